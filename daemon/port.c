// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * port.c - port objects: sockets, lifecycle, dispatch to the port type
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "fdstore.h"
#include "log.h"
#include "port.h"

#define PORT_BACKLOG	16

/**
 * port_ops_of() - the implementation of a port type
 * @type: the configured type
 *
 * Return: the type's ops, or NULL for a value that is no type.
 */
const struct port_ops *port_ops_of(enum config_port_type type)
{
	switch (type) {
	case CFG_PORT_VHOST_USER:
		return &port_vhost_user_ops;
	case CFG_PORT_STREAM:
		return &port_stream_ops;
	case CFG_PORT_DGRAM:
		return &port_dgram_ops;
	case CFG_PORT_RINGFD:
		return &port_ringfd_ops;
	}
	return NULL;
}

/**
 * port_mkdir_parent() - create the socket's directory if it is missing
 * @path: socket path
 *
 * One level only, mode 0755 set with chmod(), whatever the umask: the
 * shipped unit's UMask=0077 would make it 0700 and lock out the socket's
 * group (libvirt's QEMU runs as libvirt-qemu:kvm); who may connect is the
 * socket's own socket-mode/socket-owner/socket-group.  A directory that
 * exists is left as it is.  Errors show up at bind().
 */
static void port_mkdir_parent(const char *path)
{
	char dir[CFG_PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	*slash = '\0';
	if (mkdir(dir, 0755) == 0) {
		if (chmod(dir, 0755) < 0)
			log_warn_errno(errno, "created directory %s, but chmod 0755", dir);
		else
			log_info("created directory %s (mode 0755)", dir);
	}
}

/**
 * port_unix_listen() - bind a unix socket at @path, set owner and mode
 * @path: where
 * @type: SOCK_STREAM, SOCK_DGRAM or SOCK_SEQPACKET (listen() unless dgram)
 * @mode: permission bits
 * @uid: owner, (uid_t)-1 = leave
 * @gid: group, (gid_t)-1 = leave
 * @fd: out: the non-blocking socket
 * @err: message buffer
 * @errlen: its size
 *
 * A stale socket at @path is removed first; anything else there (a file,
 * a directory) is an error, as is a socket another process still listens on.
 *
 * Return: 0, or -1 with @err filled.
 */
int port_unix_listen(const char *path, int type, mode_t mode, uid_t uid, gid_t gid,
		     int *fd, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int s;

	if (!path[0] || strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "socket path \"%s\": empty or too long", path);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (lstat(path, &st) == 0) {
		int probe;

		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, errlen, "%s: exists and is not a socket", path);
			return -1;
		}
		probe = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
		if (probe >= 0 && type != SOCK_DGRAM &&
		    connect(probe, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			close(probe);
			snprintf(err, errlen, "%s: another process is listening on it", path);
			return -1;
		}
		if (probe >= 0)
			close(probe);
		unlink(path);
	}
	port_mkdir_parent(path);
	s = socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0) {
		log_buf_errno(err, errlen, errno, "%s: socket", path);
		return -1;
	}
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		log_buf_errno(err, errlen, errno, "%s: bind", path);
		close(s);
		return -1;
	}
	if (chmod(path, mode) < 0) {
		log_buf_errno(err, errlen, errno, "%s: chmod %04o", path, (unsigned int)mode);
		goto fail;
	}
	if ((uid != (uid_t)-1 || gid != (gid_t)-1) && chown(path, uid, gid) < 0) {
		snprintf(err, errlen, "%s: chown %ld:%ld: %s%s", path, (long)(int)uid,
			 (long)(int)gid, strerror(errno),
			 errno == EPERM ? " (socket-owner/socket-group need CAP_CHOWN)" : "");
		goto fail;
	}
	if (type != SOCK_DGRAM && listen(s, PORT_BACKLOG) < 0) {
		log_buf_errno(err, errlen, errno, "%s: listen", path);
		goto fail;
	}
	*fd = s;
	return 0;
fail:
	unlink(path);
	close(s);
	return -1;
}

/**
 * port_unix_unlink() - remove a socket path if it is still ours
 * @path: the path
 * @fd: our socket bound there
 *
 * Only unlinks when the inode at @path is the one @fd is bound to, so a
 * newer daemon's socket is never removed.
 */
void port_unix_unlink(const char *path, int fd)
{
	struct sockaddr_un sa;
	socklen_t len = sizeof(sa);
	struct stat st;

	if (!path[0] || fd < 0 || lstat(path, &st) < 0)
		return;
	/* fstat() of a socket gives the sockfs inode, not the path's: check
	 * that the socket is bound to this path instead. */
	if (getsockname(fd, (struct sockaddr *)&sa, &len) < 0 ||
	    len <= offsetof(struct sockaddr_un, sun_path) ||
	    strncmp(sa.sun_path, path, sizeof(sa.sun_path)))
		return;
	if (S_ISSOCK(st.st_mode))
		unlink(path);
}

/**
 * port_listen_restore() - take the port's socket from systemd's fd store
 *			   (or from a hand-over's predecessor)
 * @p: the port (cfg.listen set)
 * @fdname: its fd name ("listen.PORT")
 *
 * The socket is used only if it is a listening socket of the port's type
 * (for SOCK_DGRAM: a bound socket of that type) bound to cfg.listen and a
 * socket is still at that path; otherwise it is
 * closed, logged and removed from the store.  Mode and owner are set
 * again, as the configuration may have changed while the daemon was down.
 *
 * Return: the fd (non-blocking), or -1 (none, or not usable).
 */
int port_listen_restore(struct port *p, const char *fdname)
{
	const char *path = p->cfg.listen;
	struct sockaddr_un sa;
	socklen_t len = sizeof(sa);
	int fd = fdstore_take(fdname), type = 0, acc = 0;
	socklen_t ilen = sizeof(int);
	struct stat st;

	if (fd < 0)
		return -1;
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &ilen) < 0 || type != p->ops->sock_type ||
	    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &ilen) < 0 ||
	    (!acc && type != SOCK_DGRAM) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) < 0 || sa.sun_family != AF_UNIX ||
	    len <= offsetof(struct sockaddr_un, sun_path) ||
	    strncmp(sa.sun_path, path, sizeof(sa.sun_path))) {
		log_notice("port %s: stored fd \"%s\" is not a listening socket of its type at %s; closing it",
			   p->cfg.name, fdname, path);
		goto drop;
	}
	if (lstat(path, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		log_notice("port %s: stored fd \"%s\": %s is gone; closing it", p->cfg.name,
			   fdname, path);
		goto drop;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0 ||
	    chmod(path, p->cfg.socket_mode) < 0 ||
	    ((p->cfg.socket_uid != (uid_t)-1 || p->cfg.socket_gid != (gid_t)-1) &&
	     chown(path, p->cfg.socket_uid, p->cfg.socket_gid) < 0)) {
		log_notice_errno(errno, "port %s: stored fd \"%s\": O_NONBLOCK, chmod or chown of %s; closing it",
				 p->cfg.name, fdname, path);
		goto drop;
	}
	log_info("port %s: %s socket %s restored from the fd store", p->cfg.name,
		 type == SOCK_DGRAM ? "bound" : "listening", path);
	return fd;
drop:
	close(fd);
	fdstore_remove(fdname);
	return -1;
}

/**
 * port_listen_ready() - the listening socket is readable
 * @loop: the loop
 * @ref: the port's listen_ref
 * @events: epoll events
 *
 * Stream/seqpacket: accept up to PORT_BACKLOG connections and hand each to
 * the type.  Datagram: tell the type.
 */
static void port_listen_ready(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct port *p = container_of(ref, struct port, listen_ref);
	int i, fd;

	if (p->ops->sock_type == SOCK_DGRAM) {
		if (p->ops->readable)
			p->ops->readable(p);
		return;
	}
	for (i = 0; i < PORT_BACKLOG; i++) {
		fd = accept4(p->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				log_warn_errno(errno, "port %s: accept", p->cfg.name);
			return;
		}
		log_rl(&p->rl, LOG_INFO, "port %s: connection on %s", p->cfg.name, p->cfg.listen);
		if (p->ops->accept)
			p->ops->accept(p, fd);
		else
			close(fd);
	}
}

/**
 * port_open() - create a port and its socket
 * @cfg: the section
 * @loop: the event loop
 * @tap: the tap it serves
 * @eng: the engine
 * @connect_later: client mode: the first connection attempt waits for the
 *	event loop's first turn (an upgrade's successor: the connection it
 *	takes over from its predecessor is served by then, and the port does
 *	not connect again while it is)
 * @err: message buffer
 * @errlen: its size
 *
 * Return: the port, or NULL with @err filled ("port NAME: ...").
 */
struct port *port_open(const struct config_port *cfg, struct loop *loop,
		       struct tap_dev *tap, const struct engine_ops *eng, bool connect_later,
		       char *err, size_t errlen)
{
	struct port *p = calloc(1, sizeof(*p));
	char why[CFG_ERR_MAX];
	int ret;

	if (!p) {
		snprintf(err, errlen, "port %s: %s", cfg->name, strerror(ENOMEM));
		return NULL;
	}
	p->cfg = *cfg;
	p->ops = port_ops_of(cfg->type);
	if (!p->ops) {
		snprintf(err, errlen, "port %s: unknown type %d", cfg->name, (int)cfg->type);
		free(p);
		return NULL;
	}
	p->loop = loop;
	p->tap = tap;
	p->eng = eng;
	p->listen_fd = -1;
	p->state = "idle";
	snprintf(why, sizeof(why), "port %s", cfg->name);
	log_ratelimit_init(&p->rl, why);
	if (cfg->listen[0]) {
		char fdname[FDSTORE_NAME_MAX + 1];
		bool named = fdstore_name_listen(fdname, sizeof(fdname), cfg->name) == 0;

		ret = 0;
		if (!named || (p->listen_fd = port_listen_restore(p, fdname)) < 0)
			ret = port_unix_listen(cfg->listen, p->ops->sock_type,
					       cfg->socket_mode, cfg->socket_uid,
					       cfg->socket_gid, &p->listen_fd,
					       why, sizeof(why));
		if (ret < 0)
			goto fail;
		/* a restart finds it again: clients wait in its backlog,
		 * datagrams in its receive queue */
		if (named)
			p->stored = fdstore_put(fdname, p->listen_fd);
		if (p->ops->bound && p->ops->bound(p, why, sizeof(why)) < 0)
			goto fail;
		if (p->listen_fd >= 0) {
			loop_ref_init(&p->listen_ref, LOOP_REF_PORT_LISTEN, p->listen_fd,
				      port_listen_ready);
			if (loop_add(loop, &p->listen_ref, EPOLLIN) < 0) {
				log_buf_errno(why, sizeof(why), errno, "epoll");
				goto fail;
			}
		}
		p->state = "listening";
	} else if (cfg->connect[0]) {
		p->state = "connecting";
		if (p->ops->connect && p->ops->connect(p, connect_later, why, sizeof(why)) < 0)
			goto fail;
	}
	log_info("port %s: %s on tap %s, %s %s%s", cfg->name, config_port_type_name(cfg->type),
		 cfg->tap, cfg->listen[0] ? "listening on" : "connecting to",
		 cfg->listen[0] ? cfg->listen : cfg->connect,
		 p->ops->name && !strcmp(p->ops->name, "stub") ?
		 " (packet path not implemented)" : "");
	return p;
fail:
	snprintf(err, errlen, "port %s: %s", cfg->name, why);
	port_close(p, true);
	return NULL;
}

/**
 * port_close() - tear a port down: connections, socket, socket path
 * @p: the port or NULL
 * @forget: also remove the listening socket from systemd's fd store and
 *	    its path; false (a stop) leaves both to the next instance when
 *	    the socket is stored (systemd closes it if the service stays down)
 */
void port_close(struct port *p, bool forget)
{
	char fdname[FDSTORE_NAME_MAX + 1];

	if (!p)
		return;
	if (p->ops && p->ops->teardown)
		p->ops->teardown(p);
	log_ratelimit_flush(&p->rl);
	if (p->stored && forget &&
	    fdstore_name_listen(fdname, sizeof(fdname), p->cfg.name) == 0)
		fdstore_remove(fdname);
	if (p->listen_fd >= 0) {
		loop_del(p->loop, &p->listen_ref);
		if (forget || !p->stored)
			port_unix_unlink(p->cfg.listen, p->listen_fd);
		close(p->listen_fd);
	}
	free(p);
}

/**
 * port_get_peer_info() - who is connected to a port, how its peers left
 * @p: the port
 * @info: filled (pid -1, uid -1, zeros, "" when the type tells nothing)
 */
void port_get_peer_info(struct port *p, struct port_peer_info *info)
{
	memset(info, 0, sizeof(*info));
	info->pid = -1;
	info->uid = (uid_t)-1;
	info->last_disconnect = "";
	if (p->ops->peer_info)
		p->ops->peer_info(p, info);
}

/**
 * port_pairs() - how many queue pairs a port runs at most
 * @p: the port
 *
 * Return: the tap's queues for a multiqueue type, else 1 (1..CFG_MAX_QUEUES).
 */
unsigned int port_pairs(const struct port *p)
{
	unsigned int n = p->ops->multiqueue && p->tap ? p->tap->nqueues : 1;

	if (n < 1)
		n = 1;
	return n > CFG_MAX_QUEUES ? CFG_MAX_QUEUES : n;
}

/**
 * port_get_stats() - counters of a port, per queue pair
 * @p: the port
 * @s: out: s->nqp pairs (the tap's queues for a multiqueue type, else 1)
 */
void port_get_stats(struct port *p, struct port_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->nqp = port_pairs(p);
	if (p->ops->get_stats)
		p->ops->get_stats(p, s);
}

/**
 * port_stats_sum() - a port's figure: the sum over its queue pairs
 * @s: the counters (port_get_stats())
 * @tx: out: guest -> tap
 * @rx: out: tap -> guest
 */
void port_stats_sum(const struct port_stats *s, struct engine_stats *tx, struct engine_stats *rx)
{
	unsigned int qp;

	memset(tx, 0, sizeof(*tx));
	memset(rx, 0, sizeof(*rx));
	for (qp = 0; qp < s->nqp; qp++) {
		port_stats_add(tx, &s->tx[qp]);
		port_stats_add(rx, &s->rx[qp]);
	}
}

/**
 * port_stats_merge() - add per-pair counters to an accumulator
 * @to: accumulator; its pairs qp < to->nqp get the counters
 * @from: the counters to add (its nqp is not used)
 */
void port_stats_merge(struct port_stats *to, const struct port_stats *from)
{
	unsigned int qp;

	for (qp = 0; qp < to->nqp; qp++) {
		port_stats_add(&to->tx[qp], &from->tx[qp]);
		port_stats_add(&to->rx[qp], &from->rx[qp]);
	}
}

/**
 * port_connections() - peers connected now
 * @p: the port
 *
 * Return: the count.
 */
unsigned int port_connections(struct port *p)
{
	return p->ops->connections ? p->ops->connections(p) : 0;
}

/**
 * port_stats_add() - add one set of counters to another
 * @to: accumulator
 * @from: counters to add
 */
void port_stats_add(struct engine_stats *to, const struct engine_stats *from)
{
	to->frames += from->frames;
	to->bytes += from->bytes;
	to->batches += from->batches;
	to->syscalls += from->syscalls;
	to->drop_bad_chain += from->drop_bad_chain;
	to->drop_too_big += from->drop_too_big;
	to->drop_bad_hdr += from->drop_bad_hdr;
	to->drop_bad_addr += from->drop_bad_addr;
	to->drop_tap += from->drop_tap;
	to->notifies += from->notifies;
	to->drop_peer += from->drop_peer;
}
