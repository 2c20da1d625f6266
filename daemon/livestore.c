// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * livestore.c - keep systemd's fd store current while running, so that
 *		 the vhost-user front-ends survive a crash
 *
 * Design.  restart.c keeps the front-ends over systemctl restart by
 * writing their state at SIGTERM; a crash (SIGKILL, a fault, the
 * watchdog) writes nothing.  So, under systemd only, the store is kept
 * current while the daemon runs: the state of every kept connection
 * (server-mode vhost-user front-ends, the records handover_state.h
 * describes) sits in the store at all times, with its fds, under the
 * names restart.c reads at the next start.
 *
 * When: port_vhost_user.c calls livestore_update() with a connection's
 * record after its accept, after each vhost-user message it handled and
 * after an adoption, and with NULL before it closes the connection.  A
 * record equal to the last one written costs nothing (memcmp); only a
 * change is written.  Nothing here runs per frame: the rings' positions
 * are not in the record (they are rebuilt from the rings at the next
 * start, below).
 *
 * What a change costs (notify messages, one FDNAME= each): per fd name
 * that appeared, one FDSTORE=1; per name that went, one FDSTOREREMOVE=1,
 * sent before the store (systemd drops an fd it holds already, kcmp():
 * the same memfd passed again by SET_MEM_TABLE under a new number must
 * leave the store under its old name first); then the state in a fresh
 * sealed memfd: FDSTOREREMOVE=1 of LIVESTORE_STATE_NAME and FDSTORE=1 of
 * the new one (systemd does not promise that a message with both
 * FDSTOREREMOVE=1 and FDSTORE=1 removes before it stores, so a
 * replacement is two messages; a crash between them loses the state:
 * those front-ends' connections then close).
 *
 * Names: the fds of every record are named as restart.c names them at
 * SIGTERM ("restart.fd.N", N the fd's number here, regular files of one
 * inode grouped as "restart.fd.N,M,..."; livestore_group()), so a name is
 * unique while its fd is open and FDSTORE_NAME_MAX bounds a group.  A
 * connection's fds leave the store before the daemon closes the
 * connection: else systemd's copy of the socket would keep open a
 * connection the daemon meant to close, and the front-end would wait on
 * it forever.  Memory fds and eventfds that one message replaced leave it
 * right after that message (the daemon closed them during it; systemd's
 * copy holds a file, no connection).
 *
 * Positions: every record written here carries HOVS_VU_FROM_RINGS: the
 * next instance starts each ring at its used index (last_avail =
 * used->idx, vhost_user_dev_restore()), as vhost-user back-ends do on a
 * reconnect.  A chain the dead instance took but had not completed is
 * done again: a TX frame may reach the tap twice, an RX buffer is filled
 * again.  restart_keep() (SIGTERM) writes the exact positions under
 * "restart.state", which the next instance prefers, and calls
 * livestore_stop().
 *
 * Not kept: a connection in the middle of a message at the time of a
 * write or during a migration (vhost_user_dev_save() refuses: its fds
 * leave the store until it can be saved again), client-mode vhost-user
 * ports and every other port type (as restart.c).  Enabled only when
 * NOTIFY_SOCKET is set and the store has room (livestore_enable()); with
 * too little room nothing is stored (logged once).
 *
 * Sandbox: each write makes a memfd: memfd_create is in the base seccomp
 * filter (sandbox.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "handover_state.h"
#include "livestore.h"
#include "log.h"

/**
 * struct livestore_rec - one kept connection's last record
 * @key: the connection (its owner's pointer)
 * @v: its record, HOVS_VU_FROM_RINGS set
 */
struct livestore_rec {
	const void *key;
	struct hovs_vhost_user v;
};

static bool livestore_on;
static unsigned int livestore_budget;	/* names the store may take, 0: unknown */
static bool livestore_full_logged;
static struct livestore_rec *livestore_recs;
static unsigned int livestore_nrecs;
static struct livestore_groups livestore_stored;	/* names in the store now */
static bool livestore_state_stored;
static unsigned long livestore_nmsgs;

/**
 * livestore_same_file() - the group of an earlier regular file with @fd's inode
 * @g: the groups so far
 * @fd: the fd
 *
 * Return: the group's index, or -1 (@fd is no regular file, or a new one,
 * or the group's name is full).
 */
static int livestore_same_file(const struct livestore_groups *g, int fd)
{
	struct stat a, b;
	unsigned int i;

	if (fstat(fd, &a) < 0 || !S_ISREG(a.st_mode))
		return -1;
	for (i = 0; i < g->n; i++)
		if (!fstat(g->firsts[i], &b) && S_ISREG(b.st_mode) && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino && strlen(g->names[i]) + 12 <= FDSTORE_NAME_MAX)
			return (int)i;
	return -1;
}

/**
 * livestore_group() - name the fds of an encoded state for the store
 * @buf: the encoded state (its fd table holds this process's fds)
 * @g: filled (livestore_groups_free() it)
 *
 * Regular files of one inode (a front-end's one memfd for several
 * regions) share a name: systemd keeps one copy of an open file.
 *
 * Return: 0, or -ENOMEM.
 */
int livestore_group(const void *buf, struct livestore_groups *g)
{
	const struct hovs_header *h = buf;
	const uint32_t *tab = (const uint32_t *)(h + 1);
	unsigned int i;
	int k;

	g->n = 0;
	g->names = calloc(h->nfds + 1, sizeof(*g->names));
	g->firsts = calloc(h->nfds + 1, sizeof(*g->firsts));
	if (!g->names || !g->firsts) {
		livestore_groups_free(g);
		return -ENOMEM;
	}
	for (i = 0; i < h->nfds; i++) {
		k = livestore_same_file(g, (int)tab[i]);
		if (k >= 0) {
			size_t l = strlen(g->names[k]);

			snprintf(g->names[k] + l, sizeof(g->names[k]) - l, ",%u", tab[i]);
			continue;
		}
		g->firsts[g->n] = (int)tab[i];
		snprintf(g->names[g->n++], sizeof(g->names[0]), LIVESTORE_FD_PREFIX "%u", tab[i]);
	}
	return 0;
}

/**
 * livestore_groups_free() - release the names
 * @g: the groups (emptied)
 */
void livestore_groups_free(struct livestore_groups *g)
{
	free(g->names);
	free(g->firsts);
	memset(g, 0, sizeof(*g));
}

/**
 * livestore_has() - whether @name is one of @g's names
 * @g: the groups
 * @name: a name
 *
 * Return: true when it is.
 */
static bool livestore_has(const struct livestore_groups *g, const char *name)
{
	unsigned int i;

	for (i = 0; i < g->n; i++)
		if (!strcmp(g->names[i], name))
			return true;
	return false;
}

/**
 * livestore_put() - FDSTORE=1 of one fd, counted
 * @name: its name
 * @fd: the fd
 */
static void livestore_put(const char *name, int fd)
{
	livestore_nmsgs++;
	if (!fdstore_put(name, fd))
		log_debug("live store: storing %s failed", name);
}

/**
 * livestore_remove() - FDSTOREREMOVE=1 of one name, counted
 * @name: the name
 */
static void livestore_remove(const char *name)
{
	livestore_nmsgs++;
	fdstore_remove(name);
}

/**
 * livestore_apply() - make the store hold @want's names and @buf as state
 * @want: the names the state's fds need (taken over)
 * @buf: the encoded state, or NULL for none (no connection kept)
 * @len: its bytes
 */
static void livestore_apply(struct livestore_groups *want, const void *buf, size_t len)
{
	unsigned int i;
	int fd;

	for (i = 0; i < livestore_stored.n; i++)
		if (!livestore_has(want, livestore_stored.names[i]))
			livestore_remove(livestore_stored.names[i]);
	for (i = 0; i < want->n; i++)
		if (!livestore_has(&livestore_stored, want->names[i]))
			livestore_put(want->names[i], want->firsts[i]);
	livestore_groups_free(&livestore_stored);
	livestore_stored = *want;
	memset(want, 0, sizeof(*want));
	if (livestore_state_stored)
		livestore_remove(LIVESTORE_STATE_NAME);
	livestore_state_stored = false;
	if (!buf)
		return;
	fd = handover_state_to_memfd(buf, len);
	if (fd < 0) {
		log_warn_errno(fd, "live store: state memfd (a crash now closes the front-ends' connections)");
		return;
	}
	livestore_put(LIVESTORE_STATE_NAME, fd);
	livestore_state_stored = true;
	close(fd);
}

/**
 * livestore_sync() - write every kept connection's record into the store
 */
static void livestore_sync(void)
{
	struct livestore_groups want = { 0 };
	struct handover_state st;
	void *buf = NULL;
	size_t len = 0;
	unsigned int i;
	int ret = 0;

	handover_state_init(&st);
	for (i = 0; !ret && i < livestore_nrecs; i++)
		ret = handover_state_add_vhost_user(&st, &livestore_recs[i].v);
	if (!ret && st.nvu)
		ret = handover_state_encode(&st, &buf, &len);
	if (!ret && buf)
		ret = livestore_group(buf, &want);
	handover_state_free(&st);
	if (ret < 0) {
		log_warn_errno(ret, "live store: writing the state (a crash now closes the front-ends' connections)");
		free(buf);
		buf = NULL;
	} else if (buf && livestore_budget && want.n + 1 > livestore_budget) {
		if (!livestore_full_logged)
			log_warn("live store: %u fds to store, FileDescriptorStoreMax= leaves room for %u: a crash now closes the front-ends' connections",
				 want.n + 1, livestore_budget);
		livestore_full_logged = true;
		livestore_groups_free(&want);
		free(buf);
		buf = NULL;
	}
	livestore_apply(&want, buf, len);
	free(buf);
}

/**
 * livestore_enable() - keep the store current from now on
 * @budget: fd store entries left for the connections (restart.c counts
 *	    them from $FDSTORE), 0 when systemd does not say
 *
 * Only under systemd (NOTIFY_SOCKET set) and when the store has room for
 * at least a state and a socket.
 */
void livestore_enable(unsigned int budget)
{
	if (!getenv("NOTIFY_SOCKET"))
		return;
	if (budget == 1) {
		log_notice("live store: FileDescriptorStoreMax= leaves no room for the front-ends: a crash closes their connections");
		return;
	}
	livestore_budget = budget;
	livestore_on = true;
	/* a predecessor's (vringnetctl upgrade) leaves at the first write */
	livestore_state_stored = true;
	log_debug("live store: on (room for %u fds%s)", budget, budget ? "" : ": unknown");
}

/**
 * livestore_enabled() - whether the store is kept current
 *
 * Return: true after livestore_enable() under systemd, until livestore_stop().
 */
bool livestore_enabled(void)
{
	return livestore_on;
}

/**
 * livestore_find() - the record of a connection
 * @key: the connection
 *
 * Return: its index, or -1.
 */
static int livestore_find(const void *key)
{
	unsigned int i;

	for (i = 0; i < livestore_nrecs; i++)
		if (livestore_recs[i].key == key)
			return (int)i;
	return -1;
}

/**
 * livestore_update() - a kept connection's state, or its end
 * @key: the connection
 * @v: its record (fds: this process's), or NULL: the connection is about
 *     to close (or cannot be kept now): its fds leave the store first
 *
 * Writes the store only when the record differs from the last one.
 */
void livestore_update(const void *key, const struct hovs_vhost_user *v)
{
	int i = livestore_find(key);
	struct livestore_rec *n;

	if (!livestore_on)
		return;
	if (!v) {
		if (i < 0)
			return;
		livestore_recs[i] = livestore_recs[--livestore_nrecs];
		livestore_sync();
		return;
	}
	if (i >= 0) {
		struct hovs_vhost_user *cur = &livestore_recs[i].v;
		uint32_t flags = cur->flags;

		cur->flags &= ~HOVS_VU_FROM_RINGS;
		if (!memcmp(cur, v, sizeof(*v))) {
			cur->flags = flags;
			return;
		}
	} else {
		n = realloc(livestore_recs, (livestore_nrecs + 1) * sizeof(*n));
		if (!n) {
			log_warn("live store: %s: a crash would close a front-end's connection",
				 strerror(ENOMEM));
			return;
		}
		livestore_recs = n;
		i = (int)livestore_nrecs++;
		livestore_recs[i].key = key;
	}
	livestore_recs[i].v = *v;
	livestore_recs[i].v.flags |= HOVS_VU_FROM_RINGS;
	livestore_sync();
}

/**
 * livestore_stop() - stop keeping the store current (restart_keep())
 *
 * The state of the running daemon leaves the store (the exact one of
 * restart_keep() replaces it); the connection fds stay under their names,
 * which restart_keep() stored too.
 */
void livestore_stop(void)
{
	if (!livestore_on)
		return;
	if (livestore_state_stored)
		livestore_remove(LIVESTORE_STATE_NAME);
	livestore_state_stored = false;
	livestore_on = false;
}

/**
 * livestore_messages() - notify messages the live store sent so far
 *
 * Return: the count (FDSTORE=1 and FDSTOREREMOVE=1).
 */
unsigned long livestore_messages(void)
{
	return livestore_nmsgs;
}
