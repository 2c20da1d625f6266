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
 * socket number and record after its accept, after each vhost-user
 * message it handled and after an adoption, and with NULL before it
 * closes the connection.  A record equal to the last one written costs
 * nothing (memcmp); only a change is written.  Nothing here runs per
 * frame: the rings' positions are not in the record (they are rebuilt
 * from the rings at the next start, below).
 *
 * One state per connection: each kept connection's record is stored
 * alone, in its own sealed memfd named "restart.live.K", K the number of
 * its socket here.  A change of one connection encodes, groups and
 * compares that connection's record and names only, and its connection is
 * found by that number (one index): the work of a message is bounded by
 * its own connection's fds (at most 1 + VUM_MAX_REGIONS + 3 per ring,
 * one fstat() each), whatever the number of other connections
 * (livestore_work() counts it).  The number is unique while the socket is
 * open, and the connection's names and state leave the store before the
 * socket closes (livestore_update() with NULL), so a number that comes
 * again starts from nothing stored; 10 digits fit FDSTORE_NAME_MAX.
 *
 * What a change costs (notify messages, one FDNAME= each): per fd name
 * that appeared, one FDSTORE=1; per name that went, one FDSTOREREMOVE=1,
 * sent before the store (systemd drops an fd it holds already, kcmp():
 * the same memfd passed again by SET_MEM_TABLE under a new number must
 * leave the store under its old name first); then the state in a fresh
 * sealed memfd: FDSTOREREMOVE=1 of the connection's old state and
 * FDSTORE=1 of the new one (systemd does not promise that a message with
 * both FDSTOREREMOVE=1 and FDSTORE=1 removes before it stores, so a
 * replacement is two messages; a crash between them loses that state:
 * that front-end's connection then closes).  The messages are sent right
 * after the message that caused them, not coalesced: a name is an fd
 * number, and one that closed must leave the store before the number can
 * come again.
 *
 * Budget: FileDescriptorStoreMax= is counted over every connection's
 * names and states (livestore_used); a connection whose names do not fit
 * is not kept (its names leave, logged once) until a later change of it
 * fits.
 *
 * Names: the fds of every record are named as restart.c names them at
 * SIGTERM ("restart.fd.N", N the fd's number here, regular files of one
 * inode and fds of one open file, kcmp(), grouped as "restart.fd.N,M,...";
 * livestore_group()), so a name is unique while its fd is open and
 * FDSTORE_NAME_MAX bounds a group.  The
 * grouping is within one connection: a file of two connections (one open
 * file a front-end passed on both; QEMU does not) is stored under each
 * one's names, and systemd keeps only the first copy, so after a crash
 * the second connection misses a name and is closed (logged by restart.c);
 * two connections' separate opens of one inode are two files, both kept.  A
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
 * livestore_stop(), which removes every connection's "restart.live.K".
 *
 * Upgrade: a successor (handover.c) keeps its predecessor's sockets under
 * the same numbers; the first write of each connection removes the state
 * its predecessor stored under that number before storing its own (one
 * message more per connection in a successor), and livestore_enable()
 * removes an earlier version's single "restart.live".
 *
 * Not kept: a connection in the middle of a message at the time of a
 * write or during a migration (vhost_user_dev_save() refuses: its fds
 * leave the store until it can be saved again), client-mode vhost-user
 * ports and every other port type: stream peers and ring-fd clients,
 * which restart.c keeps over a SIGTERM, close over a crash.  Enabled only when
 * NOTIFY_SOCKET is set and the store has room (livestore_enable()); with
 * too little room nothing is stored (logged once).
 *
 * Sandbox: each write makes a memfd: memfd_create is in the base seccomp
 * filter (sandbox.c), and so is kcmp (grouping copies of an open file),
 * unless a predecessor's filter lacks it (sandbox_allows_kcmp()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/kcmp.h>

#include "handover_state.h"
#include "livestore.h"
#include "log.h"
#include "sandbox.h"

/**
 * struct livestore_conn - one kept connection as the store holds it
 * @v: its last record, HOVS_VU_FROM_RINGS set
 * @stored: the names of its fds in the store now
 * @state_stored: its state (LIVESTORE_STATE_NAME ".K") is in the store
 * @state_predecessor: an upgrade's predecessor may have stored a state
 *		       under its key (not counted in the store's entries)
 */
struct livestore_conn {
	struct hovs_vhost_user v;
	struct livestore_groups stored;
	bool state_stored;
	bool state_predecessor;
};

/**
 * struct livestore_file - what names an fd's open file for grouping
 * @dev: its file's device (0 with @ino 0: fstat() failed)
 * @ino: its inode
 * @reg: a regular file (grouped by inode)
 * @fd: the fd (other files: grouped by open file, kcmp())
 * @index: its place in the state's fd table
 */
struct livestore_file {
	dev_t dev;
	ino_t ino;
	bool reg;
	int fd;
	unsigned int index;
};

static bool livestore_on;
/* an upgrade's successor: its predecessor's states are stored under the
 * keys of the connections it hands over (the same socket numbers) */
static bool livestore_inherited;
static unsigned int livestore_budget;	/* names the store may take, 0: unknown */
static bool livestore_full_logged;
static struct livestore_conn **livestore_conns;	/* by socket fd number */
static unsigned int livestore_nslots;
static unsigned int livestore_used;	/* store entries held: fd names and states */
static unsigned long livestore_nmsgs;
static unsigned long livestore_nwork;

/**
 * livestore_file_of() - the identity of @fd's file, one fstat()
 * @fd: the fd
 * @f: filled (not regular when fstat() fails)
 */
static void livestore_file_of(int fd, struct livestore_file *f)
{
	struct stat a;

	livestore_nwork++;
	memset(f, 0, sizeof(*f));
	f->fd = fd;
	if (fstat(fd, &a) < 0)
		return;
	f->dev = a.st_dev;
	f->ino = a.st_ino;
	f->reg = S_ISREG(a.st_mode);
}

/**
 * livestore_kcmp() - kcmp(KCMP_FILE) of two of our fds
 * @a: an fd
 * @b: another
 *
 * Return: 0 one open file, 1 or 2 the order of two different ones, -1
 * kcmp() failed (a kernel without CONFIG_CHECKPOINT_RESTORE: ENOSYS).
 */
static int livestore_kcmp(int a, int b)
{
	livestore_nwork++;
	return (int)syscall(SYS_kcmp, getpid(), getpid(), KCMP_FILE, a, b);
}

/**
 * livestore_cmp_open_file() - qsort() order of non-regular fds: inode,
 * open file (kcmp()), place in the table
 * @x: a struct livestore_file
 * @y: another
 *
 * Return: <0, 0 or >0.
 */
static int livestore_cmp_open_file(const void *x, const void *y)
{
	const struct livestore_file *a = x, *b = y;
	int k;

	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	k = livestore_kcmp(a->fd, b->fd);
	if (k == 1 || k == 2)
		return k == 1 ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/**
 * livestore_link_open_files() - find the fds that are one open file
 * @files: the table's fds (livestore_file_of()), @n of them
 * @n: their count
 * @leader: per fd, set to the first index of the table holding the same
 *	    open file (itself when none before it does)
 *
 * For the fds that are not regular files (those are grouped by inode):
 * systemd keeps one copy of an open file in the store (it compares with
 * kcmp()), so a front-end's one eventfd passed twice (the call fd of two
 * rings) must be stored under one name, or the second name would be
 * missing at the next start and the connection dropped.  Sorted by inode,
 * then by kcmp()'s order of the open files: O(n log n) kcmp() calls, only
 * between fds of one inode (eventfds share one; sockets have their own).
 * Without kcmp() nothing is linked; systemd cannot tell them apart then
 * either and keeps every copy.  Nothing is linked either in a successor
 * of a vringnetd whose seccomp filter did not allow kcmp()
 * (sandbox_allows_kcmp()): such copies then miss a name at the next start.
 */
static void livestore_link_open_files(const struct livestore_file *files, unsigned int n,
				      unsigned int *leader)
{
	struct livestore_file *v;
	unsigned int i, m = 0;

	for (i = 0; i < n; i++)
		leader[i] = i;
	if (!sandbox_allows_kcmp())
		return;	/* a successor under an older filter: kcmp() would kill it */
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return;	/* not linked: such a connection is not kept over a restart */
	for (i = 0; i < n; i++)
		if (!files[i].reg && (files[i].dev || files[i].ino))
			v[m++] = files[i];
	if (m < 2 || livestore_kcmp(v[0].fd, v[0].fd) != 0) {
		free(v);
		return;
	}
	qsort(v, m, sizeof(*v), livestore_cmp_open_file);
	for (i = 1; i < m; i++)
		if (v[i].dev == v[i - 1].dev && v[i].ino == v[i - 1].ino &&
		    livestore_kcmp(v[i - 1].fd, v[i].fd) == 0)
			leader[v[i].index] = leader[v[i - 1].index];
	free(v);
}

/**
 * livestore_same_file() - the group of an earlier regular file with @f's inode
 * @g: the groups so far
 * @files: per group, its first fd's file
 * @f: the file of the fd to place
 *
 * Return: the group's index, or -1 (@f is no regular file, or a new one,
 * or the group's name is full).
 */
static int livestore_same_file(const struct livestore_groups *g,
			       const struct livestore_file *files,
			       const struct livestore_file *f)
{
	unsigned int i;

	if (!f->reg)
		return -1;
	for (i = 0; i < g->n; i++) {
		livestore_nwork++;
		if (files[i].reg && files[i].dev == f->dev && files[i].ino == f->ino &&
		    strlen(g->names[i]) + 12 <= FDSTORE_NAME_MAX)
			return (int)i;
	}
	return -1;
}

/**
 * livestore_group() - name the fds of an encoded state for the store
 * @buf: the encoded state (its fd table holds this process's fds)
 * @g: filled (livestore_groups_free() it)
 *
 * The fds of one file share a name, since systemd keeps one copy of an
 * open file: regular files of one inode (a front-end's one memfd for
 * several regions), and fds of one open file (livestore_link_open_files():
 * an eventfd passed twice).  One fstat() per fd.  A name holds as many
 * numbers as FDSTORE_NAME_MAX allows; a further copy gets a name of its
 * own, which systemd then drops as a copy (the connection is not kept).
 *
 * Return: 0, or -ENOMEM.
 */
int livestore_group(const void *buf, struct livestore_groups *g)
{
	const struct hovs_header *h = buf;
	const uint32_t *tab = (const uint32_t *)(h + 1);
	struct livestore_file *files, *firsts;
	unsigned int i, *leader, *group_of;
	int k;

	g->n = 0;
	g->names = calloc(h->nfds + 1, sizeof(*g->names));
	g->firsts = calloc(h->nfds + 1, sizeof(*g->firsts));
	files = calloc(h->nfds + 1, sizeof(*files));
	firsts = calloc(h->nfds + 1, sizeof(*firsts));
	leader = calloc(h->nfds + 1, sizeof(*leader));
	group_of = calloc(h->nfds + 1, sizeof(*group_of));
	if (!g->names || !g->firsts || !files || !firsts || !leader || !group_of) {
		free(files);
		free(firsts);
		free(leader);
		free(group_of);
		livestore_groups_free(g);
		return -ENOMEM;
	}
	for (i = 0; i < h->nfds; i++) {
		livestore_file_of((int)tab[i], &files[i]);
		files[i].index = i;
	}
	livestore_link_open_files(files, h->nfds, leader);
	for (i = 0; i < h->nfds; i++) {
		k = leader[i] != i ? (int)group_of[leader[i]] :
		    livestore_same_file(g, firsts, &files[i]);
		if (k >= 0 && strlen(g->names[k]) + 12 <= FDSTORE_NAME_MAX) {
			size_t l = strlen(g->names[k]);

			snprintf(g->names[k] + l, sizeof(g->names[k]) - l, ",%u", tab[i]);
			group_of[i] = (unsigned int)k;
			continue;
		}
		firsts[g->n] = files[i];
		g->firsts[g->n] = (int)tab[i];
		group_of[i] = g->n;
		snprintf(g->names[g->n++], sizeof(g->names[0]), LIVESTORE_FD_PREFIX "%u", tab[i]);
	}
	free(files);
	free(firsts);
	free(leader);
	free(group_of);
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
 * @g: the groups (one connection's)
 * @name: a name
 *
 * Return: true when it is.
 */
static bool livestore_has(const struct livestore_groups *g, const char *name)
{
	unsigned int i;

	for (i = 0; i < g->n; i++) {
		livestore_nwork++;
		if (!strcmp(g->names[i], name))
			return true;
	}
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
	livestore_used++;
	if (!fdstore_put(name, fd))
		log_debug("live store: storing %s failed", name);
}

/**
 * livestore_remove() - FDSTOREREMOVE=1 of one name, counted
 * @name: the name
 * @held: whether the name counts in the store's entries (it does unless a
 *	  predecessor stored it)
 */
static void livestore_remove(const char *name, bool held)
{
	livestore_nmsgs++;
	if (held && livestore_used)
		livestore_used--;
	fdstore_remove(name);
}

/**
 * livestore_state_name() - the name of a connection's state
 * @buf: filled: LIVESTORE_STATE_NAME ".K"
 * @len: its size (LIVESTORE_STATE_NAME_LEN)
 * @sock: K, the connection's socket number
 */
static void livestore_state_name(char *buf, size_t len, int sock)
{
	snprintf(buf, len, LIVESTORE_STATE_NAME ".%d", sock);
}

/**
 * livestore_apply() - make the store hold @want's names and @buf as one
 *		       connection's state
 * @sock: the connection's socket number (its key)
 * @c: the connection (its names and state in the store now)
 * @want: the names its fds need (taken over)
 * @buf: its encoded state, or NULL for none (not kept)
 * @len: its bytes
 *
 * Only @c's names are compared: the work is bounded by one connection's
 * fds.
 */
static void livestore_apply(int sock, struct livestore_conn *c, struct livestore_groups *want,
			    const void *buf, size_t len)
{
	char name[LIVESTORE_STATE_NAME_LEN];
	unsigned int i;
	int fd;

	for (i = 0; i < c->stored.n; i++)
		if (!livestore_has(want, c->stored.names[i]))
			livestore_remove(c->stored.names[i], true);
	for (i = 0; i < want->n; i++)
		if (!livestore_has(&c->stored, want->names[i]))
			livestore_put(want->names[i], want->firsts[i]);
	livestore_groups_free(&c->stored);
	c->stored = *want;
	memset(want, 0, sizeof(*want));
	livestore_state_name(name, sizeof(name), sock);
	if (c->state_stored || c->state_predecessor)
		livestore_remove(name, c->state_stored);
	c->state_stored = false;
	c->state_predecessor = false;
	if (!buf)
		return;
	fd = handover_state_to_memfd(buf, len);
	if (fd < 0) {
		log_warn_errno(fd, "live store: port %s: state memfd (a crash now closes this front-end's connection)",
			       c->v.port);
		return;
	}
	livestore_put(name, fd);
	c->state_stored = true;
	close(fd);
}

/**
 * livestore_sync() - write one kept connection's record into the store
 * @sock: its socket number
 * @c: the connection
 *
 * Encodes, groups and compares @c's record and names only.  Within the
 * budget (FileDescriptorStoreMax=) counted over every connection's entries.
 */
static void livestore_sync(int sock, struct livestore_conn *c)
{
	unsigned int held = c->stored.n + c->state_stored;
	struct livestore_groups want = { 0 };
	struct handover_state st;
	void *buf = NULL;
	size_t len = 0;
	int ret;

	handover_state_init(&st);
	livestore_nwork++;
	ret = handover_state_add_vhost_user(&st, &c->v);
	if (!ret)
		ret = handover_state_encode(&st, &buf, &len);
	if (!ret)
		ret = livestore_group(buf, &want);
	handover_state_free(&st);
	if (ret < 0) {
		log_warn_errno(ret, "live store: port %s: writing a front-end's state (a crash now closes its connection)",
			       c->v.port);
		free(buf);
		buf = NULL;
	} else if (livestore_budget && livestore_used - held + want.n + 1 > livestore_budget) {
		if (!livestore_full_logged)
			log_warn("live store: port %s: %u fds more to store, FileDescriptorStoreMax= leaves room for %u in all: a crash now closes the connections that do not fit",
				 c->v.port, want.n + 1, livestore_budget);
		livestore_full_logged = true;
		livestore_groups_free(&want);
		free(buf);
		buf = NULL;
	}
	livestore_apply(sock, c, &want, buf, len);
	free(buf);
}

/**
 * livestore_enable() - keep the store current from now on
 * @budget: fd store entries left for the connections (restart.c counts
 *	    them from $FDSTORE), 0 when systemd does not say
 * @successor: an upgrade's successor (handover.c): the store may hold its
 *	       predecessor's states under the numbers of the sockets it takes
 *
 * Only under systemd (NOTIFY_SOCKET set) and when the store has room for
 * at least a state and a socket.
 */
void livestore_enable(unsigned int budget, bool successor)
{
	if (!getenv("NOTIFY_SOCKET"))
		return;
	if (budget == 1) {
		log_notice("live store: FileDescriptorStoreMax= leaves no room for the front-ends: a crash closes their connections");
		return;
	}
	livestore_budget = budget;
	livestore_on = true;
	livestore_inherited = successor;
	/* one state for every connection: a predecessor of an earlier version */
	if (successor)
		livestore_remove(LIVESTORE_STATE_NAME, false);
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
 * livestore_conn_new() - a slot for the connection of socket @sock
 * @sock: its number
 *
 * The slots grow by doubling: a lookup is one index.
 *
 * Return: the connection, or NULL (-ENOMEM).
 */
static struct livestore_conn *livestore_conn_new(int sock)
{
	unsigned int n = livestore_nslots ? livestore_nslots : 64;
	struct livestore_conn **s;

	while (n <= (unsigned int)sock)
		n *= 2;
	if (n != livestore_nslots) {
		s = realloc(livestore_conns, n * sizeof(*s));
		if (!s)
			return NULL;
		memset(s + livestore_nslots, 0, (n - livestore_nslots) * sizeof(*s));
		livestore_conns = s;
		livestore_nslots = n;
	}
	livestore_conns[sock] = calloc(1, sizeof(**livestore_conns));
	if (livestore_conns[sock])
		livestore_conns[sock]->state_predecessor = livestore_inherited;
	return livestore_conns[sock];
}

/**
 * livestore_update() - a kept connection's state, or its end
 * @sock: the connection's socket (its key: unique while it is open)
 * @v: its record (fds: this process's), or NULL: the connection is about
 *     to close (or cannot be kept now): its fds and state leave the store
 *     first, before the daemon closes anything (its numbers may come
 *     again)
 *
 * Writes the store only when the record differs from the last one, and
 * only this connection's names and state.
 */
void livestore_update(int sock, const struct hovs_vhost_user *v)
{
	struct livestore_conn *c;
	struct livestore_groups none = { 0 };

	if (!livestore_on || sock < 0)
		return;
	c = (unsigned int)sock < livestore_nslots ? livestore_conns[sock] : NULL;
	if (!v) {
		if (!c)
			return;
		livestore_apply(sock, c, &none, NULL, 0);
		free(c);
		livestore_conns[sock] = NULL;
		return;
	}
	if (c) {
		struct hovs_vhost_user *cur = &c->v;
		uint32_t flags = cur->flags;

		cur->flags &= ~HOVS_VU_FROM_RINGS;
		if (!memcmp(cur, v, sizeof(*v))) {
			cur->flags = flags;
			return;
		}
	} else {
		c = livestore_conn_new(sock);
		if (!c) {
			log_warn("live store: %s: a crash would close a front-end's connection",
				 strerror(ENOMEM));
			return;
		}
	}
	c->v = *v;
	c->v.flags |= HOVS_VU_FROM_RINGS;
	livestore_sync(sock, c);
}

/**
 * livestore_stop() - stop keeping the store current (restart_keep())
 *
 * Every connection's state of the running daemon leaves the store (the
 * exact one of restart_keep() replaces them); the connection fds stay
 * under their names, which restart_keep() stored too.
 */
void livestore_stop(void)
{
	char name[LIVESTORE_STATE_NAME_LEN];
	unsigned int i;

	if (!livestore_on)
		return;
	for (i = 0; i < livestore_nslots; i++) {
		struct livestore_conn *c = livestore_conns[i];

		if (!c || (!c->state_stored && !c->state_predecessor))
			continue;
		livestore_state_name(name, sizeof(name), (int)i);
		livestore_remove(name, c->state_stored);
		c->state_stored = false;
		c->state_predecessor = false;
	}
	livestore_on = false;
}

/**
 * livestore_states() - running states the store holds now
 *
 * Return: the "restart.live.K" entries of this instance and those of an
 * upgrade's predecessor under the keys of the connections it handed over
 * (each takes a place in FileDescriptorStoreMax= until livestore_stop()).
 */
unsigned int livestore_states(void)
{
	unsigned int i, n = 0;

	for (i = 0; livestore_on && i < livestore_nslots; i++) {
		const struct livestore_conn *c = livestore_conns[i];

		n += c && (c->state_stored || c->state_predecessor);
	}
	return n;
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

/**
 * livestore_work() - the live store's work so far, in steps
 *
 * Return: fstat() calls, file and name comparisons and records encoded
 * (livestore_group() for restart.c counts too): what a message costs
 * besides its notify messages.
 */
unsigned long livestore_work(void)
{
	return livestore_nwork;
}
