// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * port_peer.c - the one-peer-at-a-time half of the vhost-user and stream port types
 *
 * See port_peer.h.  Bad input and the answer:
 *   a peer while max_peers are served   refused: its socket closed, counted
 *                                       (refused), a warning logged
 *   cfg.connect refuses or is missing   retried every cfg.reconnect seconds
 *                                       (1 when 0), state "connecting"
 *   out of memory for the port's data   the connection closed (accept), or
 *                                       the port's open fails (connect)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"
#include "port_peer.h"

/**
 * port_peer_retry() - arm the reconnect timer of a client-mode port
 * @pp: the port's data
 */
static void port_peer_retry(struct port_peer *pp)
{
	const struct port *p = pp->port;

	if (pp->timer_ok)
		loop_timer_set(&pp->timer, (uint64_t)(p->cfg.reconnect ? p->cfg.reconnect : 1) *
			       1000000000ULL, 0);
}

/**
 * port_peer_of() - the port's data, created on first use
 * @p: the port
 * @ops: the type's part
 *
 * Return: it, or NULL when out of memory.
 */
struct port_peer *port_peer_of(struct port *p, const struct port_peer_ops *ops)
{
	struct port_peer *pp = p->priv;

	if (!pp) {
		pp = calloc(1, sizeof(*pp));
		if (!pp)
			return NULL;
		pp->port = p;
		pp->ops = ops;
		p->priv = pp;
	}
	return pp;
}

/**
 * port_peer_refuse() - refuse @fd when a peer is already served
 * @p: the port (its data exists)
 * @fd: the new socket; closed when refused
 * @what: the peer's kind for the log ("stream peer", "vhost-user front-end")
 *
 * Return: true when @fd was refused and closed, false when the port is free.
 */
bool port_peer_refuse(struct port *p, int fd, const char *what)
{
	struct port_peer *pp = p->priv;
	unsigned int max = pp->ops->max_peers ? pp->ops->max_peers : 1;

	if (max > PORT_PEER_MAX)
		max = PORT_PEER_MAX;
	if (pp->nconns < max)
		return false;
	pp->refused++;
	if (max == 1)
		log_rl(&p->rl, LOG_WARNING, "port %s: %s refused: one is already connected",
		       p->cfg.name, what);
	else
		log_rl(&p->rl, LOG_WARNING, "port %s: %s refused: %u are already connected",
		       p->cfg.name, what, max);
	close(fd);
	return true;
}

/**
 * port_peer_served() - record that @conn is now a peer of the port
 * @p: the port
 * @conn: the type's connection (port_peer_refuse() said there is room)
 * @fd: its socket, for SO_PEERCRED (the process that connected or, in
 *	client mode, that listens)
 */
void port_peer_served(struct port *p, void *conn, int fd)
{
	struct port_peer *pp = p->priv;
	socklen_t len = sizeof(struct ucred);
	unsigned int i;

	for (i = 0; i < PORT_PEER_MAX; i++) {
		if (!pp->conns[i]) {
			pp->conns[i] = conn;
			pp->nconns++;
			if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &pp->creds[i], &len) < 0)
				memset(&pp->creds[i], 0, sizeof(pp->creds[i]));
			pp->newest = i;
			break;
		}
	}
	pp->accepted++;
	p->state = "connected";
}

/**
 * port_peer_closed() - record that @conn is gone; client mode: retry later
 * @p: the port
 * @conn: the type's connection (already freed: only compared)
 * @why: why it was closed, NULL when the peer hung up
 */
void port_peer_closed(struct port *p, const void *conn, const char *why)
{
	struct port_peer *pp = p->priv;
	unsigned int i;

	for (i = 0; i < PORT_PEER_MAX; i++) {
		if (pp->conns[i] == conn) {
			pp->conns[i] = NULL;
			pp->nconns--;
			memset(&pp->creds[i], 0, sizeof(pp->creds[i]));
			pp->disconnects++;
			snprintf(pp->last_why, sizeof(pp->last_why), "%s", why ? why : "hung up");
		}
	}
	if (pp->nconns)
		return;
	p->state = p->cfg.listen[0] ? "listening" : "connecting";
	if (!p->cfg.listen[0])
		port_peer_retry(pp);
}

/**
 * port_peer_try_connect() - client mode: one connection attempt
 * @p: the port
 *
 * Connected: the socket goes to the type's attach.  Not: a retry is
 * scheduled.
 */
static void port_peer_try_connect(struct port *p)
{
	struct port_peer *pp = p->priv;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", p->cfg.connect);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		log_info("port %s: connected to %s", p->cfg.name, p->cfg.connect);
		pp->ops->attach(p, fd);
		return;
	}
	log_debug("port %s: connect to %s: %s (retrying in %u s)", p->cfg.name,
		  p->cfg.connect, strerror(errno), p->cfg.reconnect ? p->cfg.reconnect : 1);
	if (fd >= 0)
		close(fd);
	p->state = "connecting";
	port_peer_retry(pp);
}

/**
 * port_peer_timer() - the reconnect timer expired
 * @loop: the loop
 * @ref: the port's timer
 * @events: epoll events
 */
static void port_peer_timer(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct port_peer *pp = container_of(ref, struct port_peer, timer);

	loop_timer_ack(ref);
	if (!pp->nconns)
		port_peer_try_connect(pp->port);
}

/**
 * port_peer_connect() - port_ops.connect: client mode
 * @p: the port
 * @ops: the type's part
 * @later: make the first attempt from the loop's first turn (the timer,
 *	expiring at once), not now: an upgrade's successor serves the
 *	connection its predecessor handed over before that, and the timer
 *	then finds a peer and does not connect
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0 (a failed attempt is retried), -1 with @err filled when the
 * port's data or its timer cannot be made.
 */
int port_peer_connect(struct port *p, const struct port_peer_ops *ops, bool later, char *err,
		      size_t errlen)
{
	struct port_peer *pp = port_peer_of(p, ops);

	if (!pp) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	if (!pp->timer_ok) {
		if (loop_timer_init(p->loop, &pp->timer, port_peer_timer) < 0) {
			log_buf_errno(err, errlen, errno, "reconnect timer");
			return -1;
		}
		pp->timer_ok = true;
	}
	if (!later) {
		port_peer_try_connect(p);
		return 0;
	}
	p->state = "connecting";
	/* 1 ns: 0 would disarm it */
	if (loop_timer_set(&pp->timer, 1, 0) < 0) {
		log_buf_errno(err, errlen, errno, "reconnect timer");
		return -1;
	}
	return 0;
}

/**
 * port_peer_teardown() - port_ops.teardown: close the peer, free the data
 * @p: the port
 */
void port_peer_teardown(struct port *p)
{
	struct port_peer *pp = p->priv;
	unsigned int i;

	if (!pp)
		return;
	for (i = 0; i < PORT_PEER_MAX; i++)
		if (pp->conns[i])
			pp->ops->close(pp->conns[i], "port closed");
	if (pp->timer_ok)
		loop_timer_fini(p->loop, &pp->timer);
	free(pp);
	p->priv = NULL;
}

/**
 * port_peer_get_info() - port_ops.peer_info: the newest peer's credentials, counts, memory
 * @p: the port
 * @info: filled in (port_get_peer_info() set the defaults)
 */
void port_peer_get_info(struct port *p, struct port_peer_info *info)
{
	struct port_peer *pp = p->priv;
	unsigned int i;

	if (!pp)
		return;
	info->accepted = pp->accepted;
	info->refused = pp->refused;
	info->disconnects = pp->disconnects;
	info->last_disconnect = pp->last_why;
	info->memory = pp->ops->conn_memory != NULL;
	for (i = 0; info->memory && i < PORT_PEER_MAX; i++) {
		uint64_t total = 0, mapped = 0;

		if (!pp->conns[i])
			continue;
		pp->ops->conn_memory(pp->conns[i], &total, &mapped);
		info->memory_bytes += total;
		info->memory_mapped += mapped;
	}
	for (i = 0; i < PORT_PEER_MAX; i++) {
		unsigned int k = (pp->newest + PORT_PEER_MAX - i) % PORT_PEER_MAX;

		if (pp->conns[k] && pp->creds[k].pid) {
			info->pid = pp->creds[k].pid;
			info->uid = pp->creds[k].uid;
			break;
		}
	}
}

/**
 * port_peer_get_stats() - port_ops.get_stats: closed peers plus the live ones
 * @p: the port
 * @s: accumulator, per queue pair
 */
void port_peer_get_stats(struct port *p, struct port_stats *s)
{
	struct port_peer *pp = p->priv;
	unsigned int i;

	if (!pp)
		return;
	port_stats_merge(s, &pp->gone);
	for (i = 0; i < PORT_PEER_MAX; i++)
		if (pp->conns[i] && pp->ops->conn_stats)
			pp->ops->conn_stats(p, pp->conns[i], s);
}

/**
 * port_peer_connections() - port_ops.connections
 * @p: the port
 *
 * Return: the peers served.
 */
unsigned int port_peer_connections(struct port *p)
{
	const struct port_peer *pp = p->priv;

	return pp ? pp->nconns : 0;
}
