// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * handover.c - "vringnetctl upgrade": hand every guest to a successor
 *
 * Design.  The running daemon (the predecessor) starts the binary now on
 * disk with its own argv, in hand-over mode, and gives it everything that
 * carries a guest; the successor rebuilds its state from that, resumes
 * every queue, and only then tells the predecessor, which exits without
 * closing or deleting anything.  Until that word the predecessor owns
 * everything and can take it back.
 *
 * What is handed over: every tap queue fd ("tap.IFNAME.Q"), the socket of
 * every port ("listen.PORT": listening, or a dgram port's), the control
 * socket ("control"), every connected vhost-user front-end (accepted, or
 * connected to in client mode): its socket, the memory table (the
 * regions' fds, kept open for this), features, protocol features, owner,
 * MTU, per ring its size, addresses, enable, kick/call/err eventfds and
 * avail position; and the peer address a dgram port learnt from its first
 * sender; and every connected stream peer (either mode): its socket, the
 * decoder's state with the bytes of the frame it is in the middle of, and
 * the bytes queued for the peer but not yet written (its own ring pair is
 * made again by the successor: the daemon's own memory); and every
 * client of a ring-fd port: a served one with its socket, its SETUP as it
 * sent it, the SETUP's fds (memfd or passed vring fds, eventfds) and per
 * queue pair the avail positions where its pairs stopped; one that has not
 * sent SETUP yet with its socket alone (a SETUP it sends meanwhile waits
 * in the socket, fds and all, for the successor).  The
 * successor takes taps and sockets through the same code as after
 * systemctl restart (fdstore_add_passed(), then daemon_start()) and
 * replays each front-end's state through the vhost-user checks
 * (vhost_user_dev_restore()), on either engine (the kernel engine makes
 * its rings again: a vringfd belongs to the process that made it); a
 * ring-fd client's SETUP goes through every check a fresh one gets
 * (port_ringfd.c), its rings start at the stored positions.
 *
 * Client mode (connect = PATH: the daemon connected to the hypervisor's
 * socket) changes nothing in the records: the connection is saved and
 * adopted as an accepted one is, and the successor's own port config
 * says it is a client-mode port.  Its ports make their first connection
 * attempt from the event loop, not in daemon_start() (port_open()'s
 * connect_later, daemon_start()'s adopts): by then handover_adopt() has
 * served the connection taken over, and the port does not connect again
 * while it holds one; when that connection closes, the port's reconnect
 * timer takes over as usual (port_peer.c).  A client-mode port that was
 * not connected at the hand-over (reconnecting) simply connects from the
 * successor's loop.  The instance after systemctl restart does the same
 * with the connections restart_adopt() takes (restart.c).
 *
 * Not handed over: control clients other than the one asking (their
 * connection closes with the predecessor), a front-end in the middle of a
 * message or during a migration (dirty log; refused, retry later).
 *
 * How: the fds are inherited across execve, not sent with SCM_RIGHTS.
 * The child of fork() clears FD_CLOEXEC on exactly the fds of the state
 * and execs, so the successor finds them under the same numbers the state
 * names: no 253-fds-per-message limit (SCM_MAX_FD) to split around, no
 * partial transfer to undo, nothing in flight on a socket if the
 * successor dies.  The state itself (handover_state.h) is in a sealed
 * memfd, inherited the same way; a socket pair carries one line back
 * ("ok" or "error: why").  Both fd numbers are in the environment
 * variable VRINGNETD_HANDOVER=STATE_FD,STATUS_FD.
 *
 * Order, predecessor: refuse what cannot be handed over; pause every
 * front-end (its queue pairs stop, their positions stored: every avail
 * entry before them is used, so nothing is in flight in the daemon; its
 * socket is no longer read) and every stream peer (frames it sent and
 * that were decoded went to the tap; the tap is no longer read for it and
 * what it took is queued for the peer; its socket is no longer read:
 * the bytes in flight are the record's); write the state; fork and exec; wait up to
 * HANDOVER_TIMEOUT_MS for the line, answering any control client that
 * connects meanwhile "busy" (so a second upgrade is refused).  "ok": answer
 * the client, leave the loop, exit without teardown.  Anything else (the
 * exec failed, the successor exited, refused the state, timed out: it is
 * killed): resume every front-end from the stored positions and log why.
 * Frames that arrive meanwhile wait in the rings and the taps' queues.
 *
 * Successor: read and check the state (another version is refused); put
 * the fds where daemon_start() finds them; daemon_start() as usual
 * (capabilities dropped, seccomp installed) but without READY=1 and
 * without any teardown if it fails; adopt every front-end and stream
 * peer (each checked before any is started: nothing is read from a
 * front-end, a peer or a tap before the successor knows it takes all); MAINPID= and
 * READY=1 to systemd (NotifyAccess=all in the unit: the successor is not
 * the main process until then); "ok" to the predecessor.  A failure before
 * "ok" writes "error: why" and exits 1 without touching anything shared.
 *
 * Privileges, only with [daemon] upgrade = yes (read at start; without
 * it the request is answered upgrade-disabled, daemon_control.c, and a
 * successor whose file says no refuses to take over, main.c): the
 * predecessor keeps CAP_NET_ADMIN (and CAP_CHOWN when it kept it) in its
 * bounding, inheritable and ambient sets so the successor starts with
 * them (privs.c), and its seccomp filter allows fork, execve, wait4 and
 * kill (sandbox.c).
 *
 * Test hook (test build, build/test/vringnetd, only): with
 * VRINGNETD_TEST_UPGRADE_HOOKS=FILE in the daemon's environment, each
 * upgrade reads FILE (missing: no hooks), whose lines may be
 *   exec PATH     exec PATH instead of the binary (a program that exits 1
 *                 plays a successor that fails; a script that sleeps,
 *                 then execs the binary, a slow one)
 *   version N     write state version N (another version's state)
 *   fail-started  the successor fails after starting every pair, before
 *                 it says "ok" (the predecessor takes the rings back)
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "daemon_priv.h"
#include "fdstore.h"
#include "handover.h"
#include "handover_state.h"
#include "log.h"
#include "port.h"
#include "sandbox.h"
#include "sdnotify.h"

static char **handover_argv;
static char handover_exe[PATH_MAX];
static int handover_status_fd = -1;

/**
 * handover_init() - remember how this process was started
 * @argc: main()'s argc
 * @argv: main()'s argv (kept, not copied: main()'s lives as long)
 *
 * The binary is /proc/self/exe's path as it is now: a package upgrade
 * replaces the file at that path, and the upgrade runs the new one.
 */
void handover_init(int argc, char **argv)
{
	ssize_t n = readlink("/proc/self/exe", handover_exe, sizeof(handover_exe) - 1);
	const char *del = " (deleted)";
	size_t dl = strlen(del);

	(void)argc;
	handover_argv = argv;
	if (n <= 0) {
		handover_exe[0] = '\0';
		return;
	}
	handover_exe[n] = '\0';
	if ((size_t)n > dl && !strcmp(handover_exe + n - dl, del))
		handover_exe[n - dl] = '\0';
}

/**
 * handover_now_us() - monotonic microseconds
 *
 * Return: the time.
 */
static uint64_t handover_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* ---------------------------------------------------------- predecessor */

#ifdef VRINGNETD_TEST
static char handover_test_exec[PATH_MAX];
static bool handover_test_fail_started;
static unsigned int handover_test_version;

/**
 * handover_test_hooks() - test build: read VRINGNETD_TEST_UPGRADE_HOOKS
 *
 * Sets handover_test_exec and handover_test_version from the file (both
 * cleared when it is missing).
 */
static void handover_test_hooks(void)
{
	const char *path = getenv("VRINGNETD_TEST_UPGRADE_HOOKS");
	char line[PATH_MAX + 16];
	FILE *f;

	handover_test_exec[0] = '\0';
	handover_test_version = 0;
	handover_test_fail_started = false;
	f = path ? fopen(path, "re") : NULL;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "exec ", 5))
			snprintf(handover_test_exec, sizeof(handover_test_exec), "%.*s",
				 PATH_MAX - 1, line + 5);
		else if (!strncmp(line, "version ", 8))
			handover_test_version = (unsigned int)strtoul(line + 8, NULL, 10);
		else if (!strcmp(line, "fail-started"))
			handover_test_fail_started = true;
	}
	fclose(f);
	log_warn("test hooks: exec \"%s\", state version %u%s", handover_test_exec,
		 handover_test_version, handover_test_fail_started ? ", fail after the starts" : "");
}
#endif

/**
 * handover_refusal() - why the daemon cannot be handed over now, if so
 * @d: daemon
 * @err: filled when it cannot
 * @errlen: its size
 *
 * Return: true when it cannot.
 */
static bool handover_refusal(struct daemon *d, char *err, size_t errlen)
{
	unsigned int i;

	if (!handover_exe[0]) {
		snprintf(err, errlen, "the daemon's binary is unknown (/proc/self/exe unreadable at start)");
		return true;
	}
	for (i = 0; i < d->nports; i++) {
		struct port *p = d->ports[i];

		if (!p->ops->handover_save && port_connections(p)) {
			snprintf(err, errlen, "port %s: %s connections are not handed over yet; retry when it has none",
				 p->cfg.name, p->ops->name);
			return true;
		}
	}
	return false;
}

/**
 * handover_port_kept() - whether a port's connections are in this hand-over
 * @p: the port
 * @restart: for systemctl restart (restart.c), not an upgrade
 *
 * An upgrade takes every port; a restart only the types it keeps
 * (port_ops.restart_keeps), in either mode (a client-mode port's connection
 * is kept as an accepted one: the next instance connects later, main.c):
 * the others' connections are neither paused nor saved, and close with the
 * old instance.
 *
 * Return: true when it is.
 */
static bool handover_port_kept(const struct port *p, bool restart)
{
	return !restart || p->ops->restart_keeps;
}

/**
 * handover_pause_all() - pause (or resume) every port's connections
 * @d: daemon
 * @resume: resume instead
 * @restart: only those systemctl restart keeps (handover_port_kept())
 *
 * Also the first step of keeping the front-ends over systemctl restart
 * (restart.c).
 */
void handover_pause_all(struct daemon *d, bool resume, bool restart)
{
	unsigned int i;

	for (i = 0; i < d->nports; i++) {
		struct port *p = d->ports[i];

		if (!handover_port_kept(p, restart))
			continue;
		if (resume && p->ops->handover_resume)
			p->ops->handover_resume(p);
		else if (!resume && p->ops->handover_pause)
			p->ops->handover_pause(p);
	}
}

/**
 * handover_collect_connections() - the connections of a paused daemon
 * @d: daemon
 * @st: filled: every port's handed-over connections (front-ends, peers)
 * @restart: only those systemctl restart keeps (handover_port_kept())
 * @err: message buffer
 * @errlen: its size
 *
 * What restart.c keeps over systemctl restart: the taps and sockets are
 * in systemd's fd store already, under their own names.
 *
 * Return: 0, or -1 with @err filled.
 */
int handover_collect_connections(struct daemon *d, struct handover_state *st, bool restart,
				 char *err, size_t errlen)
{
	unsigned int i;

	for (i = 0; i < d->nports; i++) {
		struct port *p = d->ports[i];

		if (handover_port_kept(p, restart) && p->ops->handover_save &&
		    p->ops->handover_save(p, st, err, errlen) < 0)
			return -1;
	}
	return 0;
}

/**
 * handover_ringfd_served() - served ring-fd clients in a state
 * @st: the state
 *
 * Return: the records of clients that sent SETUP (pending ones do not
 * count as connections, as in port_ops.connections).
 */
static unsigned int handover_ringfd_served(const struct handover_state *st)
{
	unsigned int i, n = 0;

	for (i = 0; i < st->nringfd; i++)
		n += !(st->ringfd[i].flags & HOVS_RINGFD_PENDING);
	return n;
}

/**
 * handover_collect() - the state of a paused daemon
 * @d: daemon
 * @st: filled (the daemon's fds)
 * @conns: out: front-end connections in it
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 with @err filled.
 */
static int handover_collect(struct daemon *d, struct handover_state *st, unsigned int *conns,
			    char *err, size_t errlen)
{
	char name[FDSTORE_NAME_MAX + 1];
	unsigned int i, q;
	int ret = 0;

	for (i = 0; !ret && i < d->ntaps; i++) {
		const struct tap_dev *t = &d->taps[i]->dev;

		for (q = 0; !ret && q < t->nqueues; q++) {
			ret = fdstore_name_tap(name, sizeof(name), t->name, q) < 0 ? -ENAMETOOLONG :
			      handover_state_add_named(st, name, t->fds[q]);
		}
	}
	for (i = 0; !ret && i < d->nports; i++) {
		const struct port *p = d->ports[i];

		if (p->listen_fd < 0)
			continue;
		ret = fdstore_name_listen(name, sizeof(name), p->cfg.name) < 0 ? -ENAMETOOLONG :
		      handover_state_add_named(st, name, p->listen_fd);
	}
	if (!ret)
		ret = handover_state_add_named(st, "control", control_listen_fd(d->ctrl));
	if (ret < 0) {
		snprintf(err, errlen, "writing the state: %s", strerror(-ret));
		return -1;
	}
	if (handover_collect_connections(d, st, false, err, errlen) < 0)
		return -1;
	*conns = st->nvu + st->nstreams + handover_ringfd_served(st);
	return 0;
}

/**
 * handover_spawn() - fork and exec the successor with the state's fds
 * @st: the state (its fds are cleared of FD_CLOEXEC in the child only)
 * @state_fd: the sealed memfd
 * @status_fd: the child's end of the socket pair
 * @err: message buffer
 * @errlen: its size
 *
 * Return: the child's pid, or -1 with @err filled.
 */
static pid_t handover_spawn(const struct handover_state *st, int state_fd, int status_fd,
			    char *err, size_t errlen)
{
	const char *exe = handover_exe;
	char env[64];
	unsigned int i;
	pid_t pid;

#ifdef VRINGNETD_TEST
	if (handover_test_exec[0])
		exe = handover_test_exec;
#endif
	snprintf(env, sizeof(env), "%d,%d", state_fd, status_fd);
	pid = fork();
	if (pid < 0) {
		log_buf_errno(err, errlen, errno, "fork");
		return -1;
	}
	if (pid)
		return pid;
	/* the child: only async-signal-safe work besides setenv (one thread) */
	for (i = 0; i < st->nnamed; i++)
		fcntl(st->named[i].fd, F_SETFD, 0);
	for (i = 0; i < st->nvu; i++) {
		const struct hovs_vhost_user *v = &st->vu[i];
		unsigned int j;

		fcntl(v->sock, F_SETFD, 0);
		for (j = 0; j < v->nregions; j++)
			fcntl(v->regions[j].fd, F_SETFD, 0);
		for (j = 0; j < v->nvrings; j++) {
			if (v->vrings[j].kick >= 0)
				fcntl(v->vrings[j].kick, F_SETFD, 0);
			if (v->vrings[j].call >= 0)
				fcntl(v->vrings[j].call, F_SETFD, 0);
			if (v->vrings[j].err >= 0)
				fcntl(v->vrings[j].err, F_SETFD, 0);
		}
	}
	for (i = 0; i < st->nstreams; i++)
		fcntl(st->streams[i].rec.sock, F_SETFD, 0);
	for (i = 0; i < st->nringfd; i++) {
		const struct hovs_ringfd *rf = &st->ringfd[i];
		unsigned int j;

		fcntl(rf->sock, F_SETFD, 0);
		for (j = 0; j < rf->nfds; j++)
			fcntl(rf->fds[j], F_SETFD, 0);
	}
	fcntl(state_fd, F_SETFD, 0);
	fcntl(status_fd, F_SETFD, 0);
	setenv(HANDOVER_ENV, env, 1);
	sandbox_pass_on();
	execv(exe, handover_argv);
	_exit(127);
}

/**
 * handover_wait() - wait for the successor's line
 * @d: daemon (its control socket is answered "busy" meanwhile)
 * @pid: the successor
 * @fd: our end of the socket pair
 * @err: filled with why it failed
 * @errlen: its size
 *
 * Return: 0 when the successor said "ok", -1 otherwise (it is then gone:
 * killed if it still ran, and reaped).
 */
static int handover_wait(struct daemon *d, pid_t pid, int fd, char *err, size_t errlen)
{
	uint64_t end = handover_now_us() + HANDOVER_TIMEOUT_MS * 1000ull;
	struct pollfd pfd[2] = {
		{ .fd = fd, .events = POLLIN },
		{ .fd = control_listen_fd(d->ctrl), .events = POLLIN },
	};
	char line[512];
	ssize_t n = -1;
	int st;

	for (;;) {
		uint64_t now = handover_now_us();
		int r;

		if (now >= end) {
			snprintf(err, errlen, "the successor (pid %d) did not answer within %u ms; killed",
				 (int)pid, HANDOVER_TIMEOUT_MS);
			break;
		}
		r = poll(pfd, 2, (int)((end - now) / 1000) + 1);
		if (r < 0 && errno != EINTR) {
			log_buf_errno(err, errlen, errno, "poll");
			break;
		}
		if (r > 0 && pfd[1].revents)
			control_turn_away(d->ctrl, "an upgrade is in progress");
		if (r > 0 && pfd[0].revents) {
			n = recv(fd, line, sizeof(line) - 1, 0);
			if (n > 0) {
				line[n] = '\0';
				line[strcspn(line, "\n")] = '\0';
				if (!strcmp(line, "ok"))
					return 0;
				snprintf(err, errlen, "the successor (pid %d) %s", (int)pid,
					 !strncmp(line, "error: ", 7) ? line + 7 : line);
			}
			break;
		}
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (n == 0) {	/* no line: it exited (or could not exec) */
		if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
			snprintf(err, errlen, "could not execute %s", handover_exe);
		else if (WIFEXITED(st))
			snprintf(err, errlen, "the successor (pid %d) exited with status %d before taking over",
				 (int)pid, WEXITSTATUS(st));
		else
			snprintf(err, errlen, "the successor (pid %d) was killed by signal %d before taking over",
				 (int)pid, WTERMSIG(st));
	}
	return -1;
}

/**
 * handover_upgrade() - hand everything to a successor (vringnetctl upgrade)
 * @d: daemon
 * @info: filled on success
 * @err: message buffer
 * @errlen: its size
 *
 * On success the caller answers the client and leaves the loop
 * (d->handed_over is set): the process must then exit without teardown.
 *
 * Return: 0, or -1 with @err filled (this instance serves on, logged).
 */
int handover_upgrade(struct daemon *d, struct ctlproto_upgrade_info *info, char *err,
		     size_t errlen)
{
	uint64_t t0 = handover_now_us();
	struct handover_state st;
	int sp[2] = { -1, -1 }, mfd = -1, ret = -1;
	unsigned int conns = 0, nfds;
	size_t len;
	void *buf;
	pid_t pid;

	if (handover_refusal(d, err, errlen)) {
		log_warn("upgrade refused: %s", err);
		return -1;
	}
	log_info("upgrade: starting %s", handover_exe);
	handover_state_init(&st);
	handover_pause_all(d, false, false);
	if (handover_collect(d, &st, &conns, err, errlen) < 0)
		goto out;
	if (handover_state_encode(&st, &buf, &len) < 0) {
		snprintf(err, errlen, "writing the state: too large");
		goto out;
	}
#ifdef VRINGNETD_TEST
	handover_test_hooks();
	if (handover_test_version)
		((struct hovs_header *)buf)->version = handover_test_version;
#endif
	nfds = ((struct hovs_header *)buf)->nfds;
	mfd = handover_state_to_memfd(buf, len);
	free(buf);
	if (mfd < 0) {
		snprintf(err, errlen, "state memfd: %s", strerror(-mfd));
		goto out;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) {
		log_buf_errno(err, errlen, errno, "socketpair");
		goto out;
	}
	pid = handover_spawn(&st, mfd, sp[1], err, errlen);
	if (pid < 0)
		goto out;
	close(sp[1]);
	sp[1] = -1;
	ret = handover_wait(d, pid, sp[0], err, errlen);
	if (ret == 0) {
		info->pid = (uint64_t)pid;
		info->old_pid = (uint64_t)getpid();
		info->connections = conns;
		info->fds = nfds;
		info->handover_us = handover_now_us() - t0;
		d->handed_over = true;
		log_info("upgrade: pid %d took over (%u front-end connections) after %llu us; this instance exits",
			 (int)pid, conns, (unsigned long long)info->handover_us);
		loop_quit(d->loop, 0);
	}
out:
	if (sp[0] >= 0)
		close(sp[0]);
	if (sp[1] >= 0)
		close(sp[1]);
	if (mfd >= 0)
		close(mfd);
	handover_state_free(&st);
	if (ret < 0) {
		handover_pause_all(d, true, false);
		log_err("upgrade failed: %s; this instance keeps serving", err);
	}
	return ret;
}

/* ------------------------------------------------------------ successor */

/**
 * handover_is_successor() - whether this process was started by an upgrade
 *
 * Return: true when VRINGNETD_HANDOVER is set.
 */
bool handover_is_successor(void)
{
	return getenv(HANDOVER_ENV) != NULL;
}

/**
 * handover_successor_fail() - tell the predecessor why, and exit 1
 * @why: the reason (logged too)
 *
 * Nothing shared is touched: the predecessor still serves with every fd.
 */
void handover_successor_fail(const char *why)
{
	char line[512];
	int n;

	log_err("hand-over refused: %s (the previous instance keeps serving)", why);
	n = snprintf(line, sizeof(line), "error: %s", why);
	if (handover_status_fd >= 0 && n > 0)
		send(handover_status_fd, line, (size_t)(n < (int)sizeof(line) ? n : (int)sizeof(line) - 1),
		     MSG_NOSIGNAL);
	_exit(1);
}

/**
 * handover_receive() - read the predecessor's state (successor)
 * @st: filled; its named fds are put where daemon_start() takes them
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 with @err filled (call handover_successor_fail()).
 */
int handover_receive(struct handover_state *st, char *err, size_t errlen)
{
	const char *env = getenv(HANDOVER_ENV);
	int state_fd = -1, status_fd = -1;
	unsigned int i;
	size_t len;
	void *buf;
	int ret;

	handover_state_init(st);
	if (!env || sscanf(env, "%d,%d", &state_fd, &status_fd) != 2 || state_fd < 0 ||
	    status_fd < 0) {
		snprintf(err, errlen, "%s=%s: not STATE_FD,STATUS_FD", HANDOVER_ENV, env ? env : "");
		return -1;
	}
	unsetenv(HANDOVER_ENV);
	/* the watchdog is ours once MAINPID= names us (sd_watchdog_enabled()) */
	if (getenv("WATCHDOG_USEC")) {
		char pid[24];

		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		setenv("WATCHDOG_PID", pid, 1);
	}
	handover_status_fd = status_fd;
	fcntl(status_fd, F_SETFD, FD_CLOEXEC);
	fcntl(state_fd, F_SETFD, FD_CLOEXEC);
	if (handover_state_from_memfd(state_fd, &buf, &len, err, errlen) < 0)
		return -1;
	close(state_fd);
	ret = handover_state_parse(buf, len, st, err, errlen);
	free(buf);
	if (ret < 0)
		return -1;
	for (i = 0; i < st->nfds; i++)
		if (fcntl(st->fds[i], F_SETFD, FD_CLOEXEC) < 0) {
			log_buf_errno(err, errlen, errno, "state fd %d", st->fds[i]);
			return -1;
		}
	for (i = 0; i < st->nnamed; i++) {
		if (fdstore_add_passed(st->named[i].name, st->named[i].fd) < 0) {
			snprintf(err, errlen, "%s", strerror(ENOMEM));
			return -1;
		}
		st->named[i].fd = -1;
	}
	log_info("hand-over: state of %zu bytes, %u fds, %u front-end connections, %u stream peers, %u ring-fd clients (%u served)",
		 len, st->nfds, st->nvu, st->nstreams, st->nringfd, handover_ringfd_served(st));
	return 0;
}

/**
 * handover_port() - a running port by name
 * @d: the daemon
 * @name: its name
 *
 * Return: the port, or NULL.
 */
static struct port *handover_port(struct daemon *d, const char *name)
{
	int pi = daemon_find_port(d, name);

	return pi < 0 ? NULL : d->ports[pi];
}

/**
 * handover_adopt_vu() - rebuild one front-end from its record, or start it
 * @d: the started daemon
 * @v: the record (its fds are taken, also on error)
 * @start: start the rings of a front-end rebuilt before, where the
 *	previous instance stopped them; else rebuild it without starting
 *	them (every front-end is rebuilt before any starts)
 * @err: message buffer
 * @errlen: its size
 *
 * Shared by a hand-over's successor and by the instance after systemctl
 * restart (restart.c).
 *
 * Return: 0, or -1 with @err filled (the connection is then closed).
 */
int handover_adopt_vu(struct daemon *d, const struct hovs_vhost_user *v, bool start,
		      char *err, size_t errlen)
{
	struct port *p = handover_port(d, v->port);

	if (!p || !p->ops->handover_adopt) {
		snprintf(err, errlen, "port %s: a front-end is connected, but the new configuration has no such vhost-user port",
			 v->port);
		if (!start)
			handover_state_vu_close(v);
		return -1;
	}
	if (start)
		return p->ops->handover_start(p, v, err, errlen);
	return p->ops->handover_adopt(p, v, err, errlen);
}

/**
 * handover_adopt_peer() - give a dgram port the peer its predecessor learnt
 * @d: the started daemon
 * @peer: the record
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 with @err filled.
 */
int handover_adopt_peer(struct daemon *d, const struct hovs_peer *peer, char *err,
			size_t errlen)
{
	struct port *p = handover_port(d, peer->port);

	if (!p || !p->ops->handover_peer) {
		snprintf(err, errlen, "port %s: it had a peer, but the new configuration has no such dgram port",
			 peer->port);
		return -1;
	}
	return p->ops->handover_peer(p, peer, err, errlen);
}

/**
 * handover_adopt_stream() - check a stream peer can be taken, or take it
 * @d: the started daemon
 * @hs: the record with its bytes
 * @start: take it over and run it (its socket is taken, also on error);
 *	false: only check that its port can (its socket stays the caller's)
 * @err: message buffer
 * @errlen: its size
 *
 * Shared by a hand-over's successor and by the instance after systemctl
 * restart (restart.c).
 *
 * Return: 0, or -1 with @err filled.
 */
int handover_adopt_stream(struct daemon *d, const struct handover_stream *hs, bool start,
			  char *err, size_t errlen)
{
	struct port *p = handover_port(d, hs->rec.port);

	if (!p || !p->ops->handover_stream) {
		snprintf(err, errlen, "port %s: a stream peer is connected, but the new configuration has no such stream port",
			 hs->rec.port);
		if (start)
			close(hs->rec.sock);
		return -1;
	}
	return p->ops->handover_stream(p, hs, start, err, errlen);
}

/**
 * handover_adopt_ringfd() - take a ring-fd client, or start its pairs
 * @d: the started daemon
 * @rf: the record
 * @start: false: take it (its fds are taken, also on error), its SETUP
 *	checked, its pairs not started; true: start them
 * @err: message buffer
 * @errlen: its size
 *
 * Shared by a hand-over's successor and by the instance after systemctl
 * restart (restart.c).
 *
 * Return: 0; with @start, 1 when the client was started but closed at
 * its first kick (a pair broke: logged); or -1 with @err filled.
 */
int handover_adopt_ringfd(struct daemon *d, const struct hovs_ringfd *rf, bool start,
			  char *err, size_t errlen)
{
	struct port *p = handover_port(d, rf->port);

	if (!p || !p->ops->handover_ringfd) {
		snprintf(err, errlen, "port %s: a ring-fd client is connected, but the new configuration has no such ring-fd port",
			 rf->port);
		if (!start)
			handover_state_ringfd_close(rf);
		return -1;
	}
	return p->ops->handover_ringfd(p, rf, start, err, errlen);
}

/**
 * handover_adopt() - take over the predecessor's front-ends, then its place
 * @d: the started daemon (daemon_start() in successor mode)
 * @st: the state handover_receive() read (freed here)
 *
 * Every front-end's queue pairs and every stream peer run when this
 * returns; then MAINPID= and READY=1 go to systemd and "ok" to the
 * predecessor.  Any failure ends in
 * handover_successor_fail().
 */
void handover_adopt(struct daemon *d, struct handover_state *st)
{
	char err[CFG_ERR_MAX], status[64];
	unsigned int i;

	/* every front-end rebuilt first, then their rings started: a refusal
	 * before the second loop leaves every ring where the predecessor
	 * stopped it */
	for (i = 0; i < st->nvu; i++)
		if (handover_adopt_vu(d, &st->vu[i], false, err, sizeof(err)) < 0)
			handover_successor_fail(err);
	for (i = 0; i < st->npeers; i++)
		if (handover_adopt_peer(d, &st->peers[i], err, sizeof(err)) < 0)
			handover_successor_fail(err);
	for (i = 0; i < st->nstreams; i++)
		if (handover_adopt_stream(d, &st->streams[i], false, err, sizeof(err)) < 0)
			handover_successor_fail(err);
	for (i = 0; i < st->nringfd; i++)
		if (handover_adopt_ringfd(d, &st->ringfd[i], false, err, sizeof(err)) < 0)
			handover_successor_fail(err);
	/* stream peers first: their pairs run on this thread, from the loop
	 * only, so a failure after them leaves nothing moved.  Ring-fd and
	 * vhost-user pairs run on their workers as soon as they start (they
	 * take chains at once); a start that fails after some did leaves
	 * rings moved on, which the predecessor's resume takes back for
	 * ring-fd clients (port_ringfd_take_back(): used index, detach) but
	 * not for vhost-user front-ends (it resumes at its stored positions) */
	for (i = 0; i < st->nstreams; i++)
		if (handover_adopt_stream(d, &st->streams[i], true, err, sizeof(err)) < 0)
			handover_successor_fail(err);
	for (i = 0; i < st->nringfd; i++)
		if (handover_adopt_ringfd(d, &st->ringfd[i], true, err, sizeof(err)) < 0)
			handover_successor_fail(err);
	for (i = 0; i < st->nvu; i++)
		if (handover_adopt_vu(d, &st->vu[i], true, err, sizeof(err)) < 0)
			handover_successor_fail(err);
#ifdef VRINGNETD_TEST
	handover_test_hooks();
	if (handover_test_fail_started)
		handover_successor_fail("test hook: failing after the starts");
#endif
	/* stream peers and served ring-fd clients count as front-ends here
	 * (and in the reply's connections) */
	snprintf(status, sizeof(status), "took over %u front-end connections",
		 st->nvu + st->nstreams + handover_ringfd_served(st));
	handover_state_free(st);
	sdnotify_mainpid();
	sdnotify_ready(status);
	if (send(handover_status_fd, "ok", 2, MSG_NOSIGNAL) != 2)
		log_warn_errno(errno, "hand-over: telling the previous instance");
	close(handover_status_fd);
	handover_status_fd = -1;
	log_info("hand-over: running, %s", status);
}
