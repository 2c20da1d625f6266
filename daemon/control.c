// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * control.c - the control socket server
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "log.h"
#include "port.h"

/**
 * struct control_client - one connection
 * @ref: its loop ref (fd = the connection), LOOP_REF_CONTROL_CLIENT
 * @c: the server
 * @in_use: slot taken
 * @id: serial number, for messages
 * @uid: the peer's uid (SO_PEERCRED)
 * @last: time of the last request (CLOCK_MONOTONIC seconds)
 * @window: start of the one-second window @count is about (CLOCK_MONOTONIC
 *	nanoseconds; a window opens with the first request after the last
 *	one closed, so a burst is never split by a second boundary)
 * @count: requests in @window
 */
struct control_client {
	struct loop_ref ref;
	struct control *c;
	bool in_use;
	unsigned int id;
	uid_t uid;
	time_t last;
	uint64_t window;
	unsigned int count;
};

/**
 * struct control - the server
 * @loop: the event loop
 * @ref: the listening socket's ref
 * @idle: timer: the next time a client may have been idle too long
 * @idle_armed: @idle is counting
 * @path: the socket path ("" when socket-activated: not ours to unlink)
 * @serve: request handler
 * @opaque: passed to @serve
 * @clients: connection slots
 * @nclients: slots in use
 * @next_id: next client serial
 * @per_uid: clients one uid other than root may have
 * @rl: rate limit of the lines clients cause (drops, refusals)
 * @reply: one reply buffer shared by all clients (replies are sent at once)
 */
struct control {
	struct loop *loop;
	struct loop_ref ref;
	struct loop_ref idle;
	bool idle_armed;
	char path[CFG_PATH_MAX];
	control_serve_fn serve;
	void *opaque;
	struct control_client clients[CONTROL_MAX_CLIENTS];
	unsigned int nclients;
	unsigned int next_id;
	unsigned int per_uid;
	struct log_ratelimit rl;
	char reply[CTLPROTO_REPLY_MAX];
};

/**
 * control_now() - monotonic seconds
 *
 * Return: the time.
 */
static time_t control_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/**
 * control_now_ns() - monotonic nanoseconds
 *
 * Return: the time.
 */
static uint64_t control_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/**
 * control_drop() - close one client
 * @cl: the client
 * @why: logged (NULL: a normal hang-up, logged at debug level)
 */
static void control_drop(struct control_client *cl, const char *why)
{
	struct control *c = cl->c;

	if (why)
		log_rl(&c->rl, LOG_WARNING, "control: client %u dropped: %s", cl->id, why);
	else
		log_debug("control: client %u disconnected", cl->id);
	loop_del(c->loop, &cl->ref);
	close(cl->ref.fd);
	cl->in_use = false;
	c->nclients--;
}

/**
 * control_send() - send a reply without ever waiting
 * @cl: the client
 * @len: bytes of c->reply
 *
 * Return: 0, or -1 when the client was dropped.
 */
static int control_send(struct control_client *cl, int len)
{
	ssize_t n = send(cl->ref.fd, cl->c->reply, (size_t)len, MSG_DONTWAIT | MSG_NOSIGNAL);

	if (n == len)
		return 0;
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		control_drop(cl, "not reading its replies");
	else if (n < 0 && errno != EPIPE && errno != ECONNRESET)
		control_drop(cl, strerror(errno));
	else
		control_drop(cl, NULL);
	return -1;
}

/**
 * control_client_ready() - serve what a client sent
 * @loop: the loop
 * @ref: the client's ref
 * @events: epoll events
 *
 * At most CONTROL_PER_WAKEUP requests per call (the loop is level-triggered:
 * the rest waits for the next round, after every other ready fd).
 */
static void control_client_ready(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct control_client *cl = container_of(ref, struct control_client, ref);
	struct control *c = cl->c;
	char buf[CTLPROTO_REQUEST_MAX];
	char err[CTLPROTO_ERROR_MAX];
	struct ctlproto_request req;
	enum ctlproto_status st;
	uint64_t now_ns;
	unsigned int i;
	ssize_t n;
	int len;

	for (i = 0; i < CONTROL_PER_WAKEUP; i++) {
		n = recv(ref->fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			control_drop(cl, strerror(errno));
			return;
		}
		if (n == 0) {	/* orderly hang-up (an empty message reads the same) */
			control_drop(cl, NULL);
			return;
		}
		cl->last = control_now();
		now_ns = control_now_ns();
		if (!cl->count || now_ns - cl->window >= 1000000000ULL) {
			cl->window = now_ns;
			cl->count = 0;
		}
		if (++cl->count > CONTROL_MAX_RATE) {
			char why[64];

			snprintf(why, sizeof(why), "more than %d requests in a second",
				 CONTROL_MAX_RATE);
			control_drop(cl, why);
			return;
		}
		if ((size_t)n > sizeof(buf)) {
			len = ctlproto_reply_error(c->reply, sizeof(c->reply), CTLPROTO_E_TOO_BIG,
						   "request of %zd bytes, at most %d", n,
						   CTLPROTO_REQUEST_MAX);
		} else {
			err[0] = '\0';
			st = ctlproto_decode_request(buf, (size_t)n, &req, err, sizeof(err));
			if (st != CTLPROTO_OK)
				len = ctlproto_reply_error(c->reply, sizeof(c->reply), st,
							   "%s", err[0] ? err : "malformed request");
			else {
				req.peer_uid = cl->uid;
				len = c->serve(c->opaque, &req, c->reply, sizeof(c->reply));
			}
		}
		if (len <= 0)
			len = ctlproto_reply_error(c->reply, sizeof(c->reply), CTLPROTO_E_INTERNAL,
						   "no reply");
		if (control_send(cl, len) < 0)
			return;
	}
}

/**
 * control_idle_arm() - count down to the first moment a client can be idle
 *		     for more than CONTROL_IDLE_SEC (its last request then)
 * @c: the server
 * @now: control_now()
 *
 * Nothing is armed without clients: an idle daemon has no timer running.
 * A client that sends a request later is checked again when the timer
 * fires.
 */
static void control_idle_arm(struct control *c, time_t now)
{
	bool any = false;
	time_t first = 0;
	unsigned int i;

	for (i = 0; i < CONTROL_MAX_CLIENTS; i++)
		if (c->clients[i].in_use && (!any || c->clients[i].last < first)) {
			first = c->clients[i].last;
			any = true;
		}
	if (!any)
		return;
	/* idle too long: now - last > CONTROL_IDLE_SEC, i.e. now >= last + IDLE + 1 */
	first += CONTROL_IDLE_SEC + 1;
	if (loop_timer_set(&c->idle, (uint64_t)(first > now ? first - now : 1) * 1000000000ULL,
			   0) < 0)
		log_warn_errno(errno, "control: idle timer");
	else
		c->idle_armed = true;
}

/**
 * control_idle_fired() - drop the clients idle for more than CONTROL_IDLE_SEC
 * @loop: the loop
 * @ref: the server's idle timer
 * @events: EPOLLIN
 */
static void control_idle_fired(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct control *c = container_of(ref, struct control, idle);
	time_t now = control_now();
	unsigned int i;

	loop_timer_ack(ref);
	c->idle_armed = false;
	for (i = 0; i < CONTROL_MAX_CLIENTS; i++)
		if (c->clients[i].in_use && now - c->clients[i].last > CONTROL_IDLE_SEC)
			control_drop(&c->clients[i], "idle");
	control_idle_arm(c, now);
}

/**
 * control_admit() - whether a new client of @uid gets a slot
 * @c: the server
 * @uid: its uid
 * @why: the reason when not
 * @whylen: its size
 *
 * Root may take every slot; another uid at most c->per_uid of them, and all
 * other uids together leave CONTROL_ROOT_SLOTS free: clients of one uid that
 * connect and stall cannot lock root's vringnetctl out.
 *
 * Return: true to serve it.
 */
static bool control_admit(const struct control *c, uid_t uid, char *why, size_t whylen)
{
	unsigned int i, same = 0, others = 0;

	if (c->nclients >= CONTROL_MAX_CLIENTS) {
		snprintf(why, whylen, "%d clients connected already", CONTROL_MAX_CLIENTS);
		return false;
	}
	if (uid == 0)
		return true;
	for (i = 0; i < CONTROL_MAX_CLIENTS; i++) {
		if (!c->clients[i].in_use || c->clients[i].uid == 0)
			continue;
		others++;
		if (c->clients[i].uid == uid)
			same++;
	}
	if (same >= c->per_uid) {
		snprintf(why, whylen, "uid %lu has %u clients connected already "
			 "(control-clients-per-uid)", (unsigned long)uid, same);
		return false;
	}
	if (others >= CONTROL_MAX_CLIENTS - CONTROL_ROOT_SLOTS) {
		snprintf(why, whylen, "the last %d slot%s kept for root", CONTROL_ROOT_SLOTS,
			 CONTROL_ROOT_SLOTS > 1 ? "s are" : " is");
		return false;
	}
	return true;
}

/**
 * control_listen_ready() - accept new clients
 * @loop: the loop
 * @ref: the listening socket's ref
 * @events: epoll events
 *
 * A client control_admit() refuses is closed at once (logged, rate-limited:
 * a refused client may reconnect in a loop).
 */
static void control_listen_ready(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct control *c = container_of(ref, struct control, ref);
	struct ucred cred;
	unsigned int i, k;
	socklen_t len;
	char why[128];
	int fd;

	for (k = 0; k < CONTROL_MAX_CLIENTS; k++) {
		fd = accept4(ref->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
			    errno != ECONNABORTED)
				log_warn_errno(errno, "control: accept");
			return;
		}
		len = sizeof(cred);
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
			log_warn("control: SO_PEERCRED: %s; refusing a client", strerror(errno));
			close(fd);
			continue;
		}
		if (!control_admit(c, cred.uid, why, sizeof(why))) {
			log_rl(&c->rl, LOG_WARNING, "control: client of uid %lu (pid %ld) refused: %s",
			       (unsigned long)cred.uid, (long)cred.pid, why);
			close(fd);
			continue;
		}
		for (i = 0; c->clients[i].in_use; i++)
			;
		c->clients[i].c = c;
		c->clients[i].uid = cred.uid;
		c->clients[i].in_use = true;
		c->clients[i].id = ++c->next_id;
		c->clients[i].last = control_now();
		c->clients[i].window = 0;
		c->clients[i].count = 0;
		loop_ref_init(&c->clients[i].ref, LOOP_REF_CONTROL_CLIENT, fd,
			      control_client_ready);
		if (loop_add(c->loop, &c->clients[i].ref, EPOLLIN) < 0) {
			log_warn_errno(errno, "control: epoll");
			close(fd);
			c->clients[i].in_use = false;
			continue;
		}
		c->nclients++;
		log_debug("control: client %u connected", c->clients[i].id);
		if (!c->idle_armed)
			control_idle_arm(c, c->clients[i].last);
	}
}

/**
 * control_activated_perms() - honour control-mode/control-group on an activated socket
 * @fd: the socket systemd passed
 * @mode: control-mode, (mode_t)-1 = not given in the file (leave SocketMode=)
 * @gid: control-group, (gid_t)-1 = none
 * @err: message buffer
 * @errlen: its size
 *
 * systemd created the socket (SocketMode=, SocketGroup= of the .socket
 * unit); the configuration's control-mode and control-group are applied to
 * its path on top, so the file says what the socket is whatever started
 * the daemon.  A socket that is not a unix socket with a path is refused.
 *
 * Return: 0, or -1 with @err filled.
 */
static int control_activated_perms(int fd, mode_t mode, gid_t gid, char *err, size_t errlen)
{
	struct sockaddr_un sa;
	socklen_t len = sizeof(sa);
	struct stat st;
	char path[sizeof(sa.sun_path) + 1];

	memset(&sa, 0, sizeof(sa));
	if (getsockname(fd, (struct sockaddr *)&sa, &len) < 0 || sa.sun_family != AF_UNIX ||
	    len <= offsetof(struct sockaddr_un, sun_path) || !sa.sun_path[0]) {
		snprintf(err, errlen, "control socket: socket activation passed a socket without a path: "
			 "control-mode and control-group cannot be applied");
		return -1;
	}
	memcpy(path, sa.sun_path, sizeof(sa.sun_path));
	path[sizeof(sa.sun_path)] = '\0';
	if (stat(path, &st) < 0) {
		log_buf_errno(err, errlen, errno, "control socket: %s", path);
		return -1;
	}
	if (mode != (mode_t)-1 && (st.st_mode & 07777) != mode) {
		if (chmod(path, mode) < 0) {
			log_buf_errno(err, errlen, errno, "control socket: %s: control-mode %04o: chmod", path,
				 (unsigned int)mode);
			return -1;
		}
		log_info("control: socket-activated %s: control-mode %04o applied (was %04o)", path,
			 (unsigned int)mode, (unsigned int)(st.st_mode & 07777));
	}
	if (gid != (gid_t)-1 && st.st_gid != gid) {
		if (chown(path, (uid_t)-1, gid) < 0) {
			log_buf_errno(err, errlen, errno, "control socket: %s: control-group %ld: chown", path,
				 (long)gid);
			return -1;
		}
		log_info("control: socket-activated %s: control-group %ld applied", path, (long)gid);
	}
	return 0;
}

/**
 * control_open() - start the control server
 * @loop: the event loop
 * @listen_fd: a listening socket from socket activation, or -1 to bind @path
 * @path: the socket path
 * @mode: its permission bits (applied to an activated socket too, unless
 *	(mode_t)-1)
 * @gid: its group, (gid_t)-1 = ours (or as systemd made it)
 * @serve: request handler
 * @opaque: passed to @serve
 * @err: message buffer
 * @errlen: its size
 *
 * Return: the server, or NULL with @err filled.
 */
struct control *control_open(struct loop *loop, int listen_fd, const char *path,
		       mode_t mode, gid_t gid, control_serve_fn serve, void *opaque,
		       char *err, size_t errlen)
{
	struct control *c = calloc(1, sizeof(*c));
	char why[CFG_ERR_MAX];
	int fd = listen_fd;

	if (!c) {
		snprintf(err, errlen, "control socket: %s", strerror(ENOMEM));
		return NULL;
	}
	if (fd < 0) {
		if (port_unix_listen(path, SOCK_SEQPACKET, mode, (uid_t)-1, gid, &fd,
				     why, sizeof(why)) < 0) {
			snprintf(err, errlen, "control socket: %s", why);
			free(c);
			return NULL;
		}
		snprintf(c->path, sizeof(c->path), "%s", path);
	}
	if (listen_fd >= 0 && control_activated_perms(fd, mode, gid, err, errlen) < 0) {
		free(c);
		return NULL;
	}
	/* A socket from socket activation may be blocking: accept() must not be. */
	if (listen_fd >= 0 && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
		log_buf_errno(err, errlen, errno, "control socket: fcntl O_NONBLOCK");
		free(c);
		return NULL;
	}
	c->loop = loop;
	c->per_uid = CFG_DEFAULT_CONTROL_PER_UID;
	log_ratelimit_init(&c->rl, "control");
	c->serve = serve;
	c->opaque = opaque;
	loop_ref_init(&c->ref, LOOP_REF_CONTROL, fd, control_listen_ready);
	if (loop_timer_init(loop, &c->idle, control_idle_fired) < 0 ||
	    loop_add(loop, &c->ref, EPOLLIN) < 0) {
		log_buf_errno(err, errlen, errno, "control socket: event loop");
		loop_timer_fini(loop, &c->idle);
		if (c->path[0])
			port_unix_unlink(c->path, fd);
		close(fd);
		free(c);
		return NULL;
	}
	log_info("control: %s %s", listen_fd >= 0 ? "socket-activated" : "listening on",
		 listen_fd >= 0 ? "socket" : path);
	return c;
}

/**
 * control_set_per_uid() - the configured control-clients-per-uid
 * @c: the server
 * @n: clients one uid other than root may have (clients over it that are
 *	connected already stay)
 */
void control_set_per_uid(struct control *c, unsigned int n)
{
	if (n)
		c->per_uid = n;
}

/**
 * control_clients() - clients connected now
 * @c: the server
 *
 * Return: the count.
 */
unsigned int control_clients(const struct control *c)
{
	return c->nclients;
}

/**
 * control_listen_fd() - the listening socket (for a hand-over)
 * @c: the server
 *
 * Return: the fd.
 */
int control_listen_fd(const struct control *c)
{
	return c->ref.fd;
}

/**
 * control_turn_away() - answer every client waiting to connect with an error
 * @c: the server
 * @why: the error text (status busy)
 *
 * For the moments the loop does not run (a hand-over): each pending
 * connection is accepted, given up to CONTROL_TURN_AWAY_MS for its request,
 * answered "busy: @why" whatever it asked, and closed.
 */
void control_turn_away(struct control *c, const char *why)
{
	char buf[CTLPROTO_REQUEST_MAX];
	struct pollfd pfd;
	int fd, len;

	while ((fd = accept4(c->ref.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, CONTROL_TURN_AWAY_MS) == 1 &&
		    recv(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC) > 0) {
			len = ctlproto_reply_error(c->reply, sizeof(c->reply), CTLPROTO_E_BUSY,
						   "%s", why);
			if (len > 0)
				send(fd, c->reply, (size_t)len, MSG_DONTWAIT | MSG_NOSIGNAL);
		}
		log_rl(&c->rl, LOG_NOTICE, "control: a client turned away: %s", why);
		close(fd);
	}
}

/**
 * control_close() - stop the server, drop every client, remove the socket
 *		  (unless socket-activated: systemd owns that one)
 * @c: the server or NULL
 */
void control_close(struct control *c)
{
	unsigned int i;

	if (!c)
		return;
	for (i = 0; i < CONTROL_MAX_CLIENTS; i++)
		if (c->clients[i].in_use)
			control_drop(&c->clients[i], NULL);
	log_ratelimit_flush(&c->rl);
	loop_timer_fini(c->loop, &c->idle);
	loop_del(c->loop, &c->ref);
	if (c->path[0])
		port_unix_unlink(c->path, c->ref.fd);
	close(c->ref.fd);
	free(c);
}
