// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * restart.c - systemctl restart keeps every connected front-end and peer
 *
 * Design.  The taps and listening sockets are in systemd's fd store from
 * the start (fdstore.c).  What a restart lost was the connections: this
 * file keeps them with the hand-over's state (handover_state.h, the same
 * format and version) and the hand-over's steps (handover.c), carried by
 * the fd store instead of execve.
 *
 * Stopping (SIGTERM, main.c calls restart_keep() once the loop left):
 * under systemd (NOTIFY_SOCKET) every connection of a type the restart
 * keeps (port_ops.restart_keeps: vhost-user front-ends, a dgram port's
 * learnt peer, stream peers, ring-fd clients; accepted or, on a
 * client-mode vhost-user or stream port, made by the daemon) is
 * paused as for an upgrade (its queue pairs stop, their avail positions
 * stored; its socket is no longer read; a stream peer's bytes in flight
 * either way go in its record), the state of the connections is written
 * into a
 * sealed memfd, and every fd the state's table names is stored
 * (FDSTORE=1) under "restart.fd.N" (N: the fd's number in this process,
 * as the table names it), then the memfd as "restart.state"; a BARRIER=1
 * makes sure systemd read it all before the process exits, without any
 * teardown: nothing is shut down or closed but by the exit, and systemd's
 * copies keep every connection open.  One FDNAME= per message, so one fd
 * (or one group, below) per message: SCM_MAX_FD (253) is never reached,
 * and no fd's identity rests on its position in LISTEN_FDS (systemd lists
 * its store in its own order and drops an fd whose open file it holds
 * already).  That last rule matters for guest memory: a front-end sends
 * one memfd for several regions (QEMU does, around the PCI hole), so the
 * regular files of the table are grouped by inode and stored once, named
 * "restart.fd.N,M,...".
 *
 * A stop that is not a restart: systemd closes its store once the unit is
 * stopped for good, and with it the connections, as before.
 *
 * Starting (main.c): restart_receive() right after fdstore_load() reads
 * "restart.state", refuses a state of another version or a broken one
 * (one log line: "restart: refusing the state in systemd's fd store:
 * WHY; ..."), maps every record's fds through the "restart.fd." names
 * (a front-end's socket, memory fds and eventfds; a stream peer's socket;
 * a ring-fd client's socket and its SETUP's fds), and drops (closing its
 * fds, logged) a record one of whose fds is missing: never adopted in
 * part (its connection closed while no daemon ran: systemd drops a socket
 * that hangs up; or FileDescriptorStoreMax= too small).  After
 * daemon_start() restart_adopt() takes them in a hand-over successor's
 * order (handover_adopt()): each front-end rebuilt through the vhost-user
 * checks (vhost_user_dev_restore()), each learnt peer given to its port,
 * each stream peer's port checked, each ring-fd client's SETUP checked as
 * a fresh one's and its memory mapped; then the stream peers run (the
 * decoder in the middle of the same frame, the same bytes queued), the
 * ring-fd clients' pairs and the front-ends' rings start where the
 * previous instance stopped them.  One that fails is closed, logged; the
 * others go on.  The state
 * and every "restart." name leave the store (FDSTOREREMOVE=1) as soon as
 * they are read: the store must not hold a connection the daemon may
 * close later; the taps and sockets stay stored under their own names.
 *
 * Client mode (connect = PATH: the daemon connected to the hypervisor's
 * socket) is kept as an upgrade keeps it (handover.c): the same records.
 * When restart_receive() found connections to adopt, main.c tells
 * daemon_start() so (its adopts), and client-mode ports make their first
 * connection attempt from the loop's first turn instead of at start: by
 * then restart_adopt() has served the kept connection, and a port that
 * holds one does not connect again (the hypervisor sees no second
 * connection).  A client-mode port whose connection was not kept (it had
 * none, or its record was dropped) connects from the loop as usual; with
 * nothing to adopt (no state, or a refused one) client-mode ports connect
 * at start, as on any start.
 *
 * Sandbox.  With [daemon] upgrade = no the seccomp filter (sandbox.c)
 * does not allow pipe2: restart_init() makes the barrier's pipe (and the
 * state's memfd) at start, before the filter.  The rest is in the
 * allow-list whatever upgrade says: write and fcntl (seals) on the memfd,
 * socket(AF_UNIX) and sendmsg (sd_notify), poll, dup (F_DUPFD_CLOEXEC).
 * No fork, no exec: the next instance is started by systemd.
 *
 * Not kept: a front-end in the middle of a message or during a
 * migration: then nothing is kept, logged, and the stop closes every
 * connection as before.  Over a crash (below) only server-mode
 * vhost-user front-ends: the live store skips client-mode connections
 * (port_vhost_user_live()), and keeping stream peers and ring-fd clients
 * then would need it to hold them too (their bytes in flight and ring
 * positions written while running), which it does not.
 *
 * Crash (SIGKILL, a fault, the watchdog: nothing is written at the end).
 * restart_live() (main.c, once the daemon runs) has livestore.c keep the
 * store current while running: every kept connection's fds stored under
 * the same "restart.fd." names as they arrive and removed before the
 * daemon closes them, and each connection's own state, written again
 * after each vhost-user message that changes it, stored as
 * "restart.live.K" (K its socket's number) with its record marked
 * HOVS_VU_FROM_RINGS.  The clean-stop mark is "restart.state":
 * restart_keep() stores it (exact positions) and drops every
 * "restart.live.K" (livestore_stop()).  At start restart_receive() prefers
 * "restart.state"; "restart.live.K" states alone mean the previous
 * instance died: each is read and checked on its own (restart_read_live():
 * one of another version or a broken one refuses only its connection,
 * logged "restart: refusing restart.live.K in systemd's fd store: WHY;
 * that front-end's connection is closed"; the same drops of front-ends
 * whose fds are gone), and vhost_user_dev_restore() starts each ring of a marked record
 * at its used index (last_avail = used->idx, as vhost-user back-ends do on
 * a reconnect: a chain the dead instance took but did not complete is
 * done again, a TX frame may reach the tap twice, an RX buffer is filled
 * again).  The adopted front-ends then enter the live store under this
 * instance's fd numbers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon_priv.h"
#include "fdstore.h"
#include "handover.h"
#include "handover_state.h"
#include "livestore.h"
#include "log.h"
#include "restart.h"
#include "sdnotify.h"

/* the state's and the connection fds' names in the fd store */
#define RESTART_STATE_NAME	FDSTORE_RESTART_PREFIX "state"
#define RESTART_FD_PREFIX	LIVESTORE_FD_PREFIX
/* how long the stopping instance waits for systemd to read its messages */
#define RESTART_SYNC_MS		5000

static int restart_memfd = -1;
static int restart_pipe[2] = { -1, -1 };

/**
 * struct restart_fd - one fd the previous instance stored
 * @fd: the fd here (each use gets a dup(): a group stands for several)
 * @used: a record took it
 * @name: its FDNAME ("restart.fd.N,M,...": the previous instance's fd
 *	  numbers it stands for)
 */
struct restart_fd {
	int fd;
	bool used;
	char name[FDSTORE_NAME_MAX + 1];
};

/**
 * struct restart_map - the fds the previous instance stored, by its numbers
 * @fds: the stored fds
 * @n: their count
 */
struct restart_map {
	struct restart_fd *fds;
	unsigned int n;
};

/**
 * restart_init() - make what restart_keep() needs while the sandbox allows it
 *
 * Under systemd only (NOTIFY_SOCKET): an empty memfd for the state and a
 * pipe for the barrier.  Called before daemon_start() installs the seccomp
 * filter; failures are logged and leave restarts without the front-ends.
 */
void restart_init(void)
{
	int ret;

	if (!getenv("NOTIFY_SOCKET"))
		return;
	ret = handover_state_memfd_new();
	if (ret < 0) {
		log_warn_errno(ret, "restart: state memfd (a restart will close the front-ends' connections)");
		return;
	}
	if (pipe2(restart_pipe, O_CLOEXEC) < 0) {
		log_warn_errno(errno, "restart: pipe (a restart will close the front-ends' connections)");
		close(ret);
		return;
	}
	restart_memfd = ret;
}

/**
 * restart_store_fds() - store every fd of an encoded state's table
 * @buf: the encoded state (its fd table holds this process's fds)
 * @budget: fds the store may take (0: unknown)
 * @err: message buffer
 * @errlen: its size
 *
 * The names are the live store's (livestore_group()): a name the live
 * store holds already is the same file, which systemd keeps once.
 *
 * Return: the number of fd store entries used, or -1 with @err filled.
 */
static int restart_store_fds(const void *buf, unsigned int budget, char *err, size_t errlen)
{
	struct livestore_groups g;
	unsigned int i;
	int ret = -1;

	if (livestore_group(buf, &g) < 0) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	if (budget && g.n + 1 > budget) {
		snprintf(err, errlen, "%u fds to store, FileDescriptorStoreMax= leaves room for %u",
			 g.n + 1, budget);
		goto out;
	}
	/*
	 * The running states ("restart.live.K") hold places too until
	 * livestore_stop(): when the new fds (a stream peer's or ring-fd
	 * client's) and the state fit only without them, they go first, or
	 * systemd would refuse the state itself and the next instance would
	 * keep nothing.  A crash from here to the state closes the
	 * connections (it would have kept the front-ends).
	 */
	if (budget && g.n + 1 + livestore_states() > budget)
		livestore_stop();
	for (i = 0; i < g.n; i++)
		if (!fdstore_put(g.names[i], g.firsts[i])) {
			snprintf(err, errlen, "storing %s failed", g.names[i]);
			goto out;
		}
	ret = (int)g.n;
out:
	livestore_groups_free(&g);
	return ret;
}

/**
 * restart_budget() - fds the store may still take, when systemd says so
 * @d: daemon (its taps and sockets are stored already)
 *
 * systemd 254 and later put FileDescriptorStoreMax= in $FDSTORE; older
 * ones say nothing, and a fd over the limit is dropped by systemd (the
 * next instance then drops that front-end, logged).
 *
 * Return: the room left, or 0 when unknown.
 */
static unsigned int restart_budget(struct daemon *d)
{
	const char *max = getenv("FDSTORE");
	unsigned long total, used = 0;
	unsigned int i;

	if (!max || !*max)
		return 0;
	total = strtoul(max, NULL, 10);
	for (i = 0; i < d->ntaps; i++)
		used += d->taps[i]->dev.nqueues;
	for (i = 0; i < d->nports; i++)
		used += d->ports[i]->listen_fd >= 0;
	return total > used ? (unsigned int)(total - used) : 1;	/* 1: too small for anything */
}

/**
 * restart_live() - keep the store current from now on, for a crash
 * @d: the started daemon (its taps and sockets stored)
 * @successor: an upgrade's successor (its predecessor kept the store
 *	       current for the connections it takes over)
 *
 * Under systemd only, with room in the store (livestore.c).
 */
void restart_live(struct daemon *d, bool successor)
{
	if (restart_memfd >= 0 && getenv("NOTIFY_SOCKET"))
		livestore_enable(restart_budget(d), successor);
}

/**
 * restart_keep() - keep every front-end in systemd's fd store (SIGTERM)
 * @d: daemon, its loop left after SIGTERM
 *
 * Return: true when the state and its fds are stored: the process must
 * exit without daemon_stop() (a shutdown or close would reach the
 * front-ends).  False when there is nothing to keep or it failed
 * (logged; every front-end is resumed first, so daemon_stop() finds them
 * as always).
 */
bool restart_keep(struct daemon *d)
{
	struct handover_state st;
	char err[CFG_ERR_MAX];
	int ret, stored = -1;
	size_t len = 0;
	void *buf = NULL;

	if (restart_memfd < 0 || !getenv("NOTIFY_SOCKET"))
		return false;
	handover_state_init(&st);
	handover_pause_all(d, false, true);
	if (handover_collect_connections(d, &st, true, err, sizeof(err)) < 0)
		goto fail;
	if (!st.nvu && !st.npeers && !st.nstreams && !st.nringfd) {
		handover_state_free(&st);
		handover_pause_all(d, true, true);
		return false;
	}
	ret = handover_state_encode(&st, &buf, &len);
	if (ret < 0) {
		snprintf(err, sizeof(err), "writing the state: %s", strerror(-ret));
		goto fail;
	}
	ret = handover_state_memfd_fill(restart_memfd, buf, len);
	if (ret < 0) {
		snprintf(err, sizeof(err), "state memfd: %s", strerror(-ret));
		goto fail;
	}
	stored = restart_store_fds(buf, restart_budget(d), err, sizeof(err));
	if (stored < 0)
		goto fail;
	if (!fdstore_put(RESTART_STATE_NAME, restart_memfd)) {
		snprintf(err, sizeof(err), "storing %s failed", RESTART_STATE_NAME);
		goto fail;
	}
	/* the exact state replaces the running one */
	livestore_stop();
	if (!fdstore_sync(restart_pipe, RESTART_SYNC_MS))
		log_warn("restart: systemd did not confirm the fd store within %u ms", RESTART_SYNC_MS);
	log_info("restart: %u front-end connections kept in systemd's fd store (%u stream peers, %u ring-fd clients; state of %zu bytes, %d fds)",
		 st.nvu, st.nstreams, st.nringfd, len, stored);
	free(buf);
	handover_state_free(&st);
	return true;
fail:
	log_warn("restart: the front-ends' connections are not kept: %s", err);
	free(buf);
	handover_state_free(&st);
	handover_pause_all(d, true, true);
	return false;
}

/* ------------------------------------------------------------ next start */

/**
 * restart_map_load() - take every "restart.fd." fd systemd passed
 * @m: filled
 */
static void restart_map_load(struct restart_map *m)
{
	char name[FDSTORE_NAME_MAX + 1];
	struct restart_fd *n;
	int fd;

	memset(m, 0, sizeof(*m));
	while ((fd = fdstore_take_prefix(RESTART_FD_PREFIX, name, sizeof(name))) >= 0) {
		fdstore_remove(name);
		n = realloc(m->fds, (m->n + 1) * sizeof(*n));
		if (!n) {
			log_err("restart: %s: %s; closed", name, strerror(ENOMEM));
			close(fd);
			continue;
		}
		m->fds = n;
		m->fds[m->n].fd = fd;
		m->fds[m->n].used = false;
		snprintf(m->fds[m->n].name, sizeof(m->fds[0].name), "%s", name);
		m->n++;
	}
}

/**
 * restart_map_names() - whether a stored name stands for fd @old
 * @name: "restart.fd.N,M,..."
 * @old: an fd number of the previous instance
 *
 * Return: true when @old is one of the numbers.
 */
static bool restart_map_names(const char *name, int32_t old)
{
	const char *p = name + strlen(RESTART_FD_PREFIX);
	char *end;

	for (;;) {
		unsigned long v = strtoul(p, &end, 10);

		if (end == p)
			return false;
		if (v == (unsigned long)old)
			return true;
		if (*end != ',')
			return false;
		p = end + 1;
	}
}

/**
 * restart_map_fd() - turn one of the previous instance's fd numbers into ours
 * @m: the stored fds
 * @fd: in: its number (or -1: none); out: the fd here, or -1
 *
 * Return: 0, or -1 when nothing in the store stands for it (@fd is -1).
 */
static int restart_map_fd(struct restart_map *m, int32_t *fd)
{
	unsigned int i;
	int32_t old = *fd;

	if (old < 0)
		return 0;
	*fd = -1;
	for (i = 0; i < m->n; i++) {
		if (!restart_map_names(m->fds[i].name, old))
			continue;
		m->fds[i].used = true;
		*fd = fcntl(m->fds[i].fd, F_DUPFD_CLOEXEC, 3);
		return *fd < 0 ? -1 : 0;
	}
	return -1;
}

/**
 * restart_map_vu() - turn a front-end record's fds into ours
 * @m: the stored fds
 * @v: the record (parsed: the previous instance's fd numbers)
 *
 * Return: 0, or -1 with every fd of @v that was found closed.
 */
static int restart_map_vu(struct restart_map *m, struct hovs_vhost_user *v)
{
	unsigned int i;
	int bad = 0;

	bad |= restart_map_fd(m, &v->sock);
	for (i = 0; i < v->nregions; i++)
		bad |= restart_map_fd(m, &v->regions[i].fd);
	for (i = 0; i < v->nvrings; i++) {
		bad |= restart_map_fd(m, &v->vrings[i].kick);
		bad |= restart_map_fd(m, &v->vrings[i].call);
		bad |= restart_map_fd(m, &v->vrings[i].err);
	}
	if (bad)
		handover_state_vu_close(v);
	return bad ? -1 : 0;
}

/**
 * restart_map_stream() - turn a stream peer record's socket into ours
 * @m: the stored fds
 * @hs: the record (parsed: the previous instance's fd number)
 *
 * Return: 0, or -1 (nothing of it is open here then).
 */
static int restart_map_stream(struct restart_map *m, struct handover_stream *hs)
{
	return restart_map_fd(m, &hs->rec.sock);
}

/**
 * restart_map_ringfd() - turn a ring-fd client record's fds into ours
 * @m: the stored fds
 * @rf: the record (parsed: the previous instance's fd numbers): its socket
 *	and its SETUP's fds
 *
 * Return: 0, or -1 with every fd of @rf that was found closed.
 */
static int restart_map_ringfd(struct restart_map *m, struct hovs_ringfd *rf)
{
	unsigned int i;
	int bad = 0;

	bad |= restart_map_fd(m, &rf->sock);
	for (i = 0; i < rf->nfds && i < RINGFD_PROTO_MAX_FDS; i++)
		bad |= restart_map_fd(m, &rf->fds[i]);
	if (bad)
		handover_state_ringfd_close(rf);
	return bad ? -1 : 0;
}

/**
 * restart_map_records() - map every record's fds, dropping the incomplete
 * @m: the stored fds
 * @st: the parsed state: records whose fds are all in @m stay, with our
 *	fds; the others are dropped (their fds that were found closed, logged)
 *
 * A record is adopted whole or not at all: a connection one of whose fds
 * systemd no longer holds (it hung up while no daemon ran, or
 * FileDescriptorStoreMax= is too small) is closed.
 */
static void restart_map_records(struct restart_map *m, struct handover_state *st)
{
	static const char why[] = "one of its fds is not in systemd's fd store (its connection closed meanwhile, or FileDescriptorStoreMax= is too small)";
	unsigned int i, k;

	for (i = k = 0; i < st->nvu; i++) {
		if (restart_map_vu(m, &st->vu[i]) < 0) {
			log_err("restart: port %s: front-end not kept: %s", st->vu[i].port, why);
			continue;
		}
		st->vu[k++] = st->vu[i];
	}
	st->nvu = k;
	for (i = k = 0; i < st->nstreams; i++) {
		if (restart_map_stream(m, &st->streams[i]) < 0) {
			log_err("restart: port %s: stream peer not kept: %s", st->streams[i].rec.port, why);
			free(st->streams[i].bytes);
			continue;
		}
		st->streams[k++] = st->streams[i];
	}
	st->nstreams = k;
	for (i = k = 0; i < st->nringfd; i++) {
		if (restart_map_ringfd(m, &st->ringfd[i]) < 0) {
			log_err("restart: port %s: ring-fd client not kept: %s", st->ringfd[i].port, why);
			continue;
		}
		st->ringfd[k++] = st->ringfd[i];
	}
	st->nringfd = k;
}

/**
 * restart_map_close() - close every stored fd, and forget them
 * @m: the stored fds (records hold dups of those they took)
 *
 * Return: how many no record took.
 */
static unsigned int restart_map_close(struct restart_map *m)
{
	unsigned int i, n = 0;

	for (i = 0; i < m->n; i++) {
		if (!m->fds[i].used) {
			log_debug("restart: closing %s: no front-end names it", m->fds[i].name);
			n++;
		}
		close(m->fds[i].fd);
	}
	free(m->fds);
	memset(m, 0, sizeof(*m));
	return n;
}

/**
 * restart_read() - read and check the state systemd passed
 * @fd: the state memfd (closed here)
 * @st: filled
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 with @err filled.
 */
static int restart_read(int fd, struct handover_state *st, char *err, size_t errlen)
{
	size_t len;
	void *buf;
	int ret;

	ret = handover_state_from_memfd(fd, &buf, &len, err, errlen);
	close(fd);
	if (ret < 0)
		return -1;
	ret = handover_state_parse(buf, len, st, err, errlen);
	free(buf);
	if (ret < 0)
		return -1;
	if (st->nnamed) {
		snprintf(err, errlen, "it names %u fds by name (a hand-over's state, not a restart's)",
			 st->nnamed);
		handover_state_free(st);
		return -1;
	}
	return 0;
}

/**
 * restart_read_live() - take every connection's state a running instance
 *			 stored (livestore.c)
 * @st: filled with the records of every state that passes the checks, or
 *	NULL: each state is only taken and closed
 *
 * Each "restart.live.K" is one connection's state, checked on its own: a
 * broken one or one of another version refuses only that connection
 * (logged; its fds are closed with the ones no record names).  The one
 * "restart.live" of an earlier version (every connection in one state) is
 * read the same way.  Every name leaves the store.
 *
 * Return: the number of states found.
 */
static unsigned int restart_read_live(struct handover_state *st)
{
	char name[FDSTORE_NAME_MAX + 1], err[CFG_ERR_MAX];
	struct handover_state one;
	unsigned int i, n = 0;
	int fd;

	while ((fd = fdstore_take_prefix(LIVESTORE_STATE_NAME, name, sizeof(name))) >= 0) {
		fdstore_remove(name);
		n++;
		if (!st) {
			close(fd);
			continue;
		}
		if (restart_read(fd, &one, err, sizeof(err)) < 0) {
			log_err("restart: refusing %s in systemd's fd store: %s; that front-end's connection is closed",
				name, err);
			continue;
		}
		for (i = 0; i < one.nvu; i++)
			if (handover_state_add_vhost_user(st, &one.vu[i]) < 0)
				log_err("restart: %s: port %s: front-end not kept: too many records",
					name, one.vu[i].port);
		handover_state_free(&one);
	}
	return n;
}

/**
 * restart_receive() - take the previous instance's state from the fd store
 * @st: filled (empty when there is none or it was refused)
 *
 * Called after fdstore_load(), before daemon_start() (whose
 * fdstore_close_unused() would close these fds).  A state of another
 * version or a broken one is refused with one log line, and every
 * connection fd stored with it closed (and removed from the store): a
 * clean start; a running instance's states (a crash) are one per
 * connection, each refused on its own.
 *
 * Return: the number of connections to adopt with restart_adopt().
 */
unsigned int restart_receive(struct handover_state *st)
{
	char err[CFG_ERR_MAX];
	struct restart_map m;
	const char *state_name = RESTART_STATE_NAME;
	unsigned int n, live;
	int fd;

	handover_state_init(st);
	fd = fdstore_take(RESTART_STATE_NAME);
	/* a SIGTERM wrote the exact state: the running ones are older */
	live = restart_read_live(fd >= 0 ? NULL : st);
	if (fd < 0 && live) {
		log_notice("restart: the previous instance ended without a clean stop (crash, SIGKILL): its front-ends resume from the rings' used indices");
		state_name = LIVESTORE_STATE_NAME;
	}
	restart_map_load(&m);
	if (fd < 0 && !live) {
		n = restart_map_close(&m);
		if (n)
			log_notice("restart: %u connection fds in systemd's fd store without a state: closed",
				   n);
		return 0;
	}
	if (fd >= 0) {
		fdstore_remove(RESTART_STATE_NAME);
		if (restart_read(fd, st, err, sizeof(err)) < 0) {
			n = restart_map_close(&m);
			log_err("restart: refusing the state in systemd's fd store: %s; its %u connection fds closed, clean start",
				err, n);
			return 0;
		}
	}
	restart_map_records(&m, st);
	n = restart_map_close(&m);
	if (n)
		log_notice("restart: %u stored fds no connection named: closed", n);
	log_info("restart: state of the previous instance read (%s%s): %u front-end connections, %u stream peers, %u ring-fd clients",
		 state_name, fd >= 0 ? "" : ".*", st->nvu, st->nstreams, st->nringfd);
	return st->nvu + st->npeers + st->nstreams + st->nringfd;
}

/* the kinds of connection restart_adopt() takes, in their start order */
enum restart_kind {
	RESTART_STREAM,
	RESTART_RINGFD,
	RESTART_VU,
	RESTART_KINDS,
};

static const char *const restart_kind_name[RESTART_KINDS] = {
	[RESTART_STREAM] = "stream peer",
	[RESTART_RINGFD] = "ring-fd client",
	[RESTART_VU] = "front-end",
};

/**
 * restart_kind_count() - records of one kind in a state
 * @st: the state
 * @k: the kind
 *
 * Return: their number.
 */
static unsigned int restart_kind_count(const struct handover_state *st, enum restart_kind k)
{
	return k == RESTART_STREAM ? st->nstreams : k == RESTART_RINGFD ? st->nringfd : st->nvu;
}

/**
 * restart_adopt_one() - take one kept connection, or start it
 * @d: the started daemon
 * @st: the state
 * @k: the record's kind
 * @i: its index among the records of @k
 * @start: false: rebuild or check it (a front-end rebuilt, a stream
 *	peer's port checked, a ring-fd client taken with its SETUP checked),
 *	nothing started; true: start it where the previous instance stopped
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0; 1 when it started but closed at once (a ring-fd client's
 * pair broke at its first kick: logged); or -1 with @err filled and the
 * connection closed.
 */
static int restart_adopt_one(struct daemon *d, struct handover_state *st, enum restart_kind k,
			     unsigned int i, bool start, char *err, size_t errlen)
{
	if (k == RESTART_VU)
		return handover_adopt_vu(d, &st->vu[i], start, err, errlen);
	if (k == RESTART_RINGFD)
		return handover_adopt_ringfd(d, &st->ringfd[i], start, err, errlen);
	if (!handover_adopt_stream(d, &st->streams[i], start, err, errlen))
		return 0;
	if (!start)	/* a check takes nothing */
		close(st->streams[i].rec.sock);
	return -1;
}

/**
 * restart_adopt_kind() - take (or start) every kept connection of a kind
 * @d: the started daemon
 * @st: the state (the fds of its records of @k are taken)
 * @k: the kind
 * @start: as restart_adopt_one()
 * @failed: per record of @k, it failed (its connection is closed): set
 *	here, and such a record is skipped
 *
 * Return: the connections started and still open (ring-fd clients that
 * have not sent SETUP yet do not count).
 */
static unsigned int restart_adopt_kind(struct daemon *d, struct handover_state *st,
				       enum restart_kind k, bool start, bool *failed)
{
	unsigned int i, ok = 0, n = restart_kind_count(st, k);
	char err[CFG_ERR_MAX];

	for (i = 0; i < n; i++) {
		int r;

		if (failed[i])
			continue;
		r = restart_adopt_one(d, st, k, i, start, err, sizeof(err));
		if (r < 0) {
			failed[i] = true;
			log_err("restart: %s; that %s's connection is closed", err, restart_kind_name[k]);
			continue;
		}
		ok += start && !r &&
		      !(k == RESTART_RINGFD && (st->ringfd[i].flags & HOVS_RINGFD_PENDING));
	}
	return ok;
}

/**
 * restart_adopt() - resume the previous instance's connections
 * @d: the started daemon
 * @st: what restart_receive() read (freed here)
 *
 * In the order a hand-over's successor takes them (handover_adopt()):
 * every connection rebuilt and checked first (vhost-user front-ends
 * through the vhost-user checks, a dgram port's learnt peer, each stream
 * peer's port, each ring-fd client's SETUP as a fresh one's), then stream
 * peers run, ring-fd clients' pairs start and the front-ends' rings start,
 * each where the previous instance stopped it.  One that fails is closed
 * and logged; the others go on.  Then READY=1 (daemon_start() did not
 * send it).
 */
void restart_adopt(struct daemon *d, struct handover_state *st)
{
	unsigned int i, k, ok[RESTART_KINDS] = { 0 }, served = 0, n = 0;
	bool *failed[RESTART_KINDS];
	char err[CFG_ERR_MAX];
	bool *all;

	for (k = 0; k < RESTART_KINDS; k++)
		n += restart_kind_count(st, k);
	all = calloc(n + 1, sizeof(*all));
	for (k = 0, n = 0; all && k < RESTART_KINDS; k++) {
		failed[k] = all + n;
		n += restart_kind_count(st, k);
	}
	if (!all) {
		log_err("restart: %s: the kept connections are closed", strerror(ENOMEM));
		for (i = 0; i < st->nvu; i++)
			handover_state_vu_close(&st->vu[i]);
		for (i = 0; i < st->nstreams; i++)
			close(st->streams[i].rec.sock);
		for (i = 0; i < st->nringfd; i++)
			handover_state_ringfd_close(&st->ringfd[i]);
	} else {
		restart_adopt_kind(d, st, RESTART_VU, false, failed[RESTART_VU]);
		for (i = 0; i < st->npeers; i++)
			if (handover_adopt_peer(d, &st->peers[i], err, sizeof(err)) < 0)
				log_warn("restart: %s", err);
		restart_adopt_kind(d, st, RESTART_STREAM, false, failed[RESTART_STREAM]);
		restart_adopt_kind(d, st, RESTART_RINGFD, false, failed[RESTART_RINGFD]);
		/* stream peers first: their pairs run on this thread only */
		for (k = 0; k < RESTART_KINDS; k++)
			ok[k] = restart_adopt_kind(d, st, k, true, failed[k]);
	}
	for (i = 0; i < st->nringfd; i++)
		served += !(st->ringfd[i].flags & HOVS_RINGFD_PENDING);
	log_info("restart: %u of %u front-end connections kept from the previous instance (%u of %u stream peers, %u of %u served ring-fd clients)",
		 ok[RESTART_VU], st->nvu, ok[RESTART_STREAM], st->nstreams, ok[RESTART_RINGFD], served);
	free(all);
	/* daemon_start() left READY=1 to now: the kept connections run */
	snprintf(err, sizeof(err), "kept %u of %u front-end connections, %u of %u stream peers, %u of %u ring-fd clients",
		 ok[RESTART_VU], st->nvu, ok[RESTART_STREAM], st->nstreams, ok[RESTART_RINGFD], served);
	handover_state_free(st);
	sdnotify_ready(err);
}
