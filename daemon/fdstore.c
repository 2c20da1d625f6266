// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fdstore.c - systemd's file descriptor store (FDSTORE=1, LISTEN_FDNAMES)
 *
 * Names: "tap.IFNAME.Q" (a tap queue, tap.c), "listen.PORT" (a port's
 * socket, port.c), and under "restart." the state and connection fds that
 * keep vhost-user front-ends over systemctl restart (restart.c) and a
 * crash (livestore.c).
 *
 * The names: an FDNAME= value is at most 255 ASCII characters, none of them
 * a control character or ':' (sd_pid_notify_with_fds(3)).  Tap and port
 * names are escaped so that any configured name maps to a valid, unique
 * fd name: every byte outside [A-Za-z0-9_-] (and '%' itself) becomes %XX.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "fdstore.h"
#include "log.h"

/**
 * struct fdstore_passed - one fd passed by systemd at start
 * @fd: the fd, -1 once taken or closed
 * @name: its FDNAME
 * @twice: systemd passed more than one fd under this name
 * @taken: handed out by fdstore_take() (the name is in use)
 */
struct fdstore_passed {
	int fd;
	char *name;
	bool twice;
	bool taken;
};

static struct fdstore_passed *fdstore_fds;
static unsigned int fdstore_nfds;
static unsigned int fdstore_ntwice;	/* entries with @twice set */

/**
 * fdstore_escape() - append @s to @buf with bytes outside [A-Za-z0-9_-] as %XX
 * @buf: output, NUL-terminated
 * @len: its size
 * @pos: where to append
 * @s: the name to escape
 *
 * Return: the new end position, or -1 when it does not fit.
 */
static int fdstore_escape(char *buf, size_t len, size_t pos, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '-') {
			if (pos + 1 >= len)
				return -1;
			buf[pos++] = (char)c;
		} else {
			if (pos + 3 >= len)
				return -1;
			snprintf(buf + pos, 4, "%%%02X", c);
			pos += 3;
		}
	}
	buf[pos] = '\0';
	return (int)pos;
}

/**
 * fdstore_name_tap() - the fd name of a tap queue: "tap.IFNAME.Q"
 * @buf: output
 * @len: its size (FDSTORE_NAME_MAX + 1 always suffices for a tap)
 * @ifname: interface name (escaped)
 * @queue: queue index
 *
 * Return: 0, or -1 when @buf is too small.
 */
int fdstore_name_tap(char *buf, size_t len, const char *ifname, unsigned int queue)
{
	int pos;

	if (len < 5)
		return -1;
	memcpy(buf, "tap.", 5);
	pos = fdstore_escape(buf, len, 4, ifname);
	if (pos < 0)
		return -1;
	if ((size_t)snprintf(buf + pos, len - pos, ".%u", queue) >= len - pos)
		return -1;
	return fdstore_name_valid(buf) ? 0 : -1;
}

/**
 * fdstore_name_listen() - the fd name of a port's socket (listening or dgram):
 *			   "listen.PORT"
 * @buf: output
 * @len: its size
 * @port: port name (escaped)
 *
 * Return: 0, or -1 when @buf is too small.
 */
int fdstore_name_listen(char *buf, size_t len, const char *port)
{
	if (len < 8)
		return -1;
	memcpy(buf, "listen.", 8);
	if (fdstore_escape(buf, len, 7, port) < 0)
		return -1;
	return fdstore_name_valid(buf) ? 0 : -1;
}

/**
 * fdstore_name_valid() - whether systemd accepts @name as an FDNAME=
 * @name: the name
 *
 * Return: true for 1..255 printable ASCII characters without ':'.
 */
bool fdstore_name_valid(const char *name)
{
	size_t n = strlen(name), i;

	if (!n || n > FDSTORE_NAME_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (name[i] < ' ' || name[i] > '~' || name[i] == ':')
			return false;
	return true;
}

/**
 * fdstore_is_stored_name() - whether @name is one the daemon stores
 * @name: an FDNAME from LISTEN_FDNAMES
 *
 * Socket activation passes the control socket under its socket unit's
 * name ("vringnetd.socket"); stored fds start with "tap.", "listen." or
 * "restart." (restart.c: the front-ends kept over systemctl restart).
 *
 * Return: true for a tap queue, a listening socket or a restart name.
 */
bool fdstore_is_stored_name(const char *name)
{
	return !strncmp(name, "tap.", 4) || !strncmp(name, "listen.", 7) ||
	       !strncmp(name, FDSTORE_RESTART_PREFIX, strlen(FDSTORE_RESTART_PREFIX));
}

/**
 * fdstore_cmp_name() - qsort() order of passed fds: by name, then position
 * @a: a struct fdstore_passed pointer
 * @b: another
 *
 * Return: <0, 0 or >0.
 */
static int fdstore_cmp_name(const void *a, const void *b)
{
	const struct fdstore_passed *x = *(const struct fdstore_passed * const *)a;
	const struct fdstore_passed *y = *(const struct fdstore_passed * const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x < y ? -1 : x > y);
}

/**
 * fdstore_mark_twice() - mark the names systemd passed more than one fd under
 *
 * systemd drops an fd it holds already, but it knows that only through
 * kcmp(2): on a kernel without CONFIG_CHECKPOINT_RESTORE it compares
 * inodes and takes any two device fds for different files, so a tap queue
 * stored again under its name (earlier vringnetd re-stored every restored
 * queue) sits in the store twice.  Every copy is kept here and marked: the taker
 * takes them in turn until one is what the name says (tap.c), the others
 * are closed as unused without FDSTOREREMOVE (fdstore_close_unused(): it
 * would remove the copy kept as well), and the taker stores its fd again
 * alone (fdstore_passed_twice()).  O(n log n) in the passed fds.
 */
static void fdstore_mark_twice(void)
{
	struct fdstore_passed **v = calloc(fdstore_nfds ? fdstore_nfds : 1, sizeof(*v));
	unsigned int i, n = 0;

	if (!v)
		return;	/* not marked: the copies are then closed as unused, logged */
	for (i = 0; i < fdstore_nfds; i++)
		if (fdstore_fds[i].name && fdstore_is_stored_name(fdstore_fds[i].name))
			v[n++] = &fdstore_fds[i];
	qsort(v, n, sizeof(*v), fdstore_cmp_name);
	for (i = 1; i < n; i++) {
		if (strcmp(v[i - 1]->name, v[i]->name))
			continue;
		if (!v[i - 1]->twice)
			log_notice("fd store: more than one fd passed as \"%s\" (without kcmp() systemd cannot tell copies of a device apart); the first valid one is kept",
				   v[i]->name);
		fdstore_ntwice += !v[i - 1]->twice + 1;
		v[i - 1]->twice = true;
		v[i]->twice = true;
	}
	free(v);
}

/**
 * fdstore_passed_twice() - whether systemd passed more than one fd under @name
 * @name: an FDNAME
 *
 * Such a name must be stored again after FDSTOREREMOVE=1 (see
 * fdstore_mark_twice()), so that the store holds one copy again.
 * Return: true when it did.
 */
bool fdstore_passed_twice(const char *name)
{
	unsigned int i;

	for (i = 0; fdstore_ntwice && i < fdstore_nfds; i++)
		if (fdstore_fds[i].twice && !strcmp(fdstore_fds[i].name, name))
			return true;
	return false;
}

/**
 * fdstore_load() - take every fd systemd passed (LISTEN_FDS), with its name
 *
 * Called once at start, before anything opens a tap or binds a socket.
 * Unsets LISTEN_FDS/LISTEN_PID/LISTEN_FDNAMES; the fds get FD_CLOEXEC.
 * Several fds passed under one stored name are marked
 * (fdstore_mark_twice()).
 */
void fdstore_load(void)
{
	char **names = NULL;
	int n, i;

	n = sd_listen_fds_with_names(1, &names);
	if (n < 0)
		log_warn_errno(n, "sd_listen_fds_with_names");
	if (n <= 0)
		return;
	fdstore_fds = calloc((size_t)n, sizeof(*fdstore_fds));
	if (!fdstore_fds) {
		log_err("fd store: %s; closing the %d passed fds", strerror(ENOMEM), n);
		for (i = 0; i < n; i++)
			close(SD_LISTEN_FDS_START + i);
		goto out;
	}
	for (i = 0; i < n; i++) {
		fdstore_fds[i].fd = SD_LISTEN_FDS_START + i;
		fdstore_fds[i].name = names && names[i] ? names[i] : NULL;
		if (names)
			names[i] = NULL;
	}
	fdstore_nfds = (unsigned int)n;
	log_debug("fd store: %d fds passed by systemd", n);
	fdstore_mark_twice();
out:
	for (i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

/**
 * fdstore_add_passed() - add an fd as if systemd had passed it
 * @name: its name ("tap.IFNAME.Q", "listen.PORT", or another for the
 *	control socket)
 * @fd: the fd (owned from here on)
 *
 * A hand-over's successor (handover.c) puts the fds its predecessor gave
 * it here before daemon_start(), which then takes them by name exactly as
 * after a restart.
 *
 * Return: 0, or -ENOMEM (@fd closed).
 */
int fdstore_add_passed(const char *name, int fd)
{
	struct fdstore_passed *n = realloc(fdstore_fds, (fdstore_nfds + 1) * sizeof(*n));
	char *copy = strdup(name);

	if (!n || !copy) {
		if (n)
			fdstore_fds = n;
		free(copy);
		close(fd);
		return -ENOMEM;
	}
	fdstore_fds = n;
	fdstore_fds[fdstore_nfds] = (struct fdstore_passed){ .fd = fd, .name = copy };
	fdstore_nfds++;
	return 0;
}

/**
 * fdstore_take() - hand out the passed fd stored under @name
 * @name: an FDNAME (fdstore_name_tap(), fdstore_name_listen())
 *
 * The caller owns the fd and must check it is what the name says.
 *
 * Return: the fd, or -1 when none was passed under @name.
 */
int fdstore_take(const char *name)
{
	unsigned int i;
	int fd;

	for (i = 0; i < fdstore_nfds; i++) {
		if (fdstore_fds[i].fd < 0 || !fdstore_fds[i].name ||
		    strcmp(fdstore_fds[i].name, name))
			continue;
		fd = fdstore_fds[i].fd;
		fdstore_fds[i].fd = -1;
		fdstore_fds[i].taken = true;
		return fd;
	}
	return -1;
}

/**
 * fdstore_name_taken() - whether another copy of a name passed twice was taken
 * @e: an entry
 *
 * Return: true when an entry of @e's name was handed out.
 */
static bool fdstore_name_taken(const struct fdstore_passed *e)
{
	unsigned int i;

	if (!e->twice)
		return false;
	for (i = 0; i < fdstore_nfds; i++)
		if (fdstore_fds[i].twice && fdstore_fds[i].taken &&
		    !strcmp(fdstore_fds[i].name, e->name))
			return true;
	return false;
}

/**
 * fdstore_take_prefix() - hand out one passed fd whose name starts with
 *			    @prefix
 * @prefix: the start of the name
 * @name: out: its full name
 * @len: @name's size
 *
 * Call it until it answers -1 to take every such fd.
 *
 * Return: the fd (the caller owns it), or -1 when none is left.
 */
int fdstore_take_prefix(const char *prefix, char *name, size_t len)
{
	unsigned int i;
	int fd;

	for (i = 0; i < fdstore_nfds; i++) {
		if (fdstore_fds[i].fd < 0 || !fdstore_fds[i].name ||
		    strncmp(fdstore_fds[i].name, prefix, strlen(prefix)))
			continue;
		snprintf(name, len, "%s", fdstore_fds[i].name);
		fd = fdstore_fds[i].fd;
		fdstore_fds[i].fd = -1;
		fdstore_fds[i].taken = true;
		return fd;
	}
	return -1;
}

/**
 * fdstore_take_other() - hand out the passed fds that are not stored ones
 * @fd: out: the first such fd (socket activation's control socket)
 *
 * Return: how many passed fds carry a name the daemon does not store
 * (0: @fd untouched); only the first is handed out, the others stay for
 * fdstore_close_unused().
 */
int fdstore_take_other(int *fd)
{
	unsigned int i;
	int n = 0;

	for (i = 0; i < fdstore_nfds; i++) {
		if (fdstore_fds[i].fd < 0 ||
		    (fdstore_fds[i].name && fdstore_is_stored_name(fdstore_fds[i].name)))
			continue;
		if (!n++) {
			*fd = fdstore_fds[i].fd;
			fdstore_fds[i].fd = -1;
		}
	}
	return n;
}

/**
 * fdstore_close_unused() - close (and forget) every passed fd nobody took
 *
 * Each is logged with its name and removed from systemd's store, so a tap
 * that left the configuration while the daemon was down goes now.
 */
void fdstore_close_unused(void)
{
	unsigned int i;

	for (i = 0; i < fdstore_nfds; i++) {
		const char *name = fdstore_fds[i].name ? fdstore_fds[i].name : "(no name)";

		if (fdstore_fds[i].fd >= 0 && fdstore_name_taken(&fdstore_fds[i])) {
			/* the name's kept copy is stored again alone (tap.c) */
			log_notice("fd store: closing fd %d, a second \"%s\"", fdstore_fds[i].fd, name);
			close(fdstore_fds[i].fd);
		} else if (fdstore_fds[i].fd >= 0) {
			log_notice("fd store: closing fd %d \"%s\": nothing in the configuration matches it",
				   fdstore_fds[i].fd, name);
			close(fdstore_fds[i].fd);
			if (fdstore_fds[i].name && fdstore_name_valid(fdstore_fds[i].name))
				fdstore_remove(fdstore_fds[i].name);
		}
	}
	/* names freed last: fdstore_name_taken() compares with every entry */
	for (i = 0; i < fdstore_nfds; i++)
		free(fdstore_fds[i].name);
	free(fdstore_fds);
	fdstore_fds = NULL;
	fdstore_nfds = 0;
	fdstore_ntwice = 0;
}

/**
 * fdstore_put() - store @fd in systemd's fd store under @name
 * @name: a valid FDNAME
 * @fd: the fd (systemd keeps its own copy)
 *
 * Storing an fd systemd already holds (one it passed back) adds nothing.
 * Failures (no NOTIFY_SOCKET, FileDescriptorStoreMax= reached or 0) are
 * logged at debug level: the daemon works the same, only a restart loses
 * the fd.
 *
 * Return: true when the message went out (systemd may still refuse it
 * when FileDescriptorStoreMax= is 0).
 */
bool fdstore_put(const char *name, int fd)
{
	char msg[FDSTORE_NAME_MAX + 32];
	int ret;

	if (!getenv("NOTIFY_SOCKET"))
		return false;
	snprintf(msg, sizeof(msg), "FDSTORE=1\nFDNAME=%s", name);
	ret = sd_pid_notify_with_fds(0, 0, msg, &fd, 1);
	if (ret < 0)
		log_debug_errno(ret, "fd store: storing \"%s\"", name);
	return ret > 0;
}

/**
 * fdstore_remove() - remove the fds stored under @name (FDSTOREREMOVE=1)
 * @name: a valid FDNAME
 */
void fdstore_remove(const char *name)
{
	char msg[FDSTORE_NAME_MAX + 32];
	int ret;

	if (!getenv("NOTIFY_SOCKET"))
		return;
	snprintf(msg, sizeof(msg), "FDSTOREREMOVE=1\nFDNAME=%s", name);
	ret = sd_notify(0, msg);
	if (ret < 0)
		log_debug_errno(ret, "fd store: removing \"%s\"", name);
}

/**
 * fdstore_sync() - wait until systemd has read every message sent so far
 * @pipefd: a pipe made beforehand (its write end is sent and closed here,
 *	    so it serves once; both ends are closed on return)
 * @timeout_ms: how long to wait for systemd
 *
 * BARRIER=1 as sd_notify_barrier(3) sends it, on a pipe made at start:
 * pipe2() is not in the seccomp filter's allow-list without
 * upgrade = yes.  A process that stores fds and exits needs it: systemd
 * drops a message it reads only after the sender is gone.
 *
 * Return: true when systemd answered within @timeout_ms.
 */
bool fdstore_sync(int pipefd[2], int timeout_ms)
{
	struct pollfd pfd = { .fd = pipefd[0], .events = 0 };
	bool ok = false;
	int ret;

	if (pipefd[0] < 0 || pipefd[1] < 0 || !getenv("NOTIFY_SOCKET"))
		goto out;
	ret = sd_pid_notify_with_fds(0, 0, "BARRIER=1", &pipefd[1], 1);
	close(pipefd[1]);
	pipefd[1] = -1;
	if (ret <= 0) {
		log_debug_errno(ret, "fd store: BARRIER=1");
		goto out;
	}
	do
		ret = poll(&pfd, 1, timeout_ms);
	while (ret < 0 && errno == EINTR);
	ok = ret > 0 && (pfd.revents & POLLHUP);
out:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	pipefd[0] = pipefd[1] = -1;
	return ok;
}
