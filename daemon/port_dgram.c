// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * port_dgram.c - the datagram port type: QEMU "-netdev dgram" over unix sockets
 *
 * One frame per datagram.  The port's socket is bound at cfg.listen; it
 * answers one peer only: cfg.peer when configured, else the first sender
 * with a bound address (locked on: the lock is never moved to another
 * sender; it ends when the port is re-created).  Datagrams from any other
 * sender (or from an unbound socket, which cannot be answered) are dropped
 * and counted (tx drop_peer), with a rate-limited log line.  Datagrams are
 * received with recvmmsg() straight into the tx buffers of the daemon's own
 * ring pair (frame_rings.c), up to PORT_DGRAM_BATCH per call, and sent to
 * the tap with one vq_push() (one eng tx()) per batch: the pair runs on the
 * queue-pair pump (vq.c) like a front-end's rings.  Frames the pump
 * receives from the tap go to the peer with one sendto() each.
 *
 * Bad input and the answer (the port keeps serving in every case):
 *   zero-length datagram                 dropped (tx drop_bad_chain)
 *   datagram over 65535 bytes            dropped (tx drop_too_big)
 *   frame shorter than an Ethernet
 *     header                             dropped by the engine (drop_bad_chain)
 *   peer not reading / gone / unknown    frame for it dropped (rx drop_tap)
 *   datagram from another sender         dropped (tx drop_peer), logged
 *   the ring pair broke (not seen: it is  logged once; datagrams read and
 *     the daemon's own)                    dropped (tx drop_tap) from then on
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "frame_rings.h"
#include "handover_state.h"
#include "log.h"
#include "port.h"

#define PORT_DGRAM_BATCH	64
#define PORT_DGRAM_ROUNDS	4	/* recvmmsg() calls per wakeup */

/**
 * struct port_dgram - per-port data (port.priv)
 * @port: the port
 * @fp: the ring pair (stopped when it broke)
 * @peer: where frames go
 * @peer_len: its length; 0 = no peer known yet
 * @locked: @peer was learnt from the first sender (no peer = in the file)
 * @tx: port-level drops, peer -> tap; and the pair's counters once it broke
 * @rx: port-level drops, tap -> peer; the same
 * @msgs: recvmmsg() headers
 * @iov: one segment per datagram
 * @from: sender addresses
 * @lens: frame lengths of a batch
 */
struct port_dgram {
	struct port *port;
	struct frame_rings_pair fp;
	struct sockaddr_un peer;
	socklen_t peer_len;
	bool locked;
	struct engine_stats tx;
	struct engine_stats rx;
	struct mmsghdr msgs[PORT_DGRAM_BATCH];
	struct iovec iov[PORT_DGRAM_BATCH];
	struct sockaddr_un from[PORT_DGRAM_BATCH];
	size_t lens[PORT_DGRAM_BATCH];
};

/**
 * port_dgram_deliver() - frame_rings_ops.deliver: send one frame from the tap to the peer
 * @opaque: the port data
 * @frame: the frame
 * @len: its length
 */
static void port_dgram_deliver(void *opaque, const uint8_t *frame, size_t len)
{
	struct port_dgram *pp = opaque;
	ssize_t n;

	if (!pp->peer_len) {
		pp->rx.drop_tap++;
		return;
	}
	n = sendto(pp->port->listen_fd, frame, len, MSG_DONTWAIT | MSG_NOSIGNAL,
		   (struct sockaddr *)&pp->peer, pp->peer_len);
	if (n < 0) {
		pp->rx.drop_tap++;
		log_debug_errno(errno, "port %s: send to %s", pp->port->cfg.name, pp->peer.sun_path);
	}
}

/**
 * port_dgram_broken() - frame_rings_ops.broken: stop the pair, keep its counters
 * @opaque: the port data
 * @why: the reason
 */
static void port_dgram_broken(void *opaque, const char *why)
{
	struct port_dgram *pp = opaque;

	log_err("port %s: %s; frames no longer forwarded", pp->port->cfg.name, why);
	frame_rings_close(&pp->fp, &pp->tx, &pp->rx);
}

static const struct frame_rings_ops port_dgram_rings_ops = {
	.deliver = port_dgram_deliver,
	.broken = port_dgram_broken,
};

/**
 * port_dgram_discard() - read and drop datagrams: the ring pair broke
 * @p: the port
 * @pp: its data
 *
 * At most one budget's worth, so the socket does not stay readable for
 * ever and the loop serves the others.
 */
static void port_dgram_discard(struct port *p, struct port_dgram *pp)
{
	unsigned int k;

	for (k = 0; k < ENGINE_WEIGHT_FRAMES; k++) {
		if (recv(p->listen_fd, NULL, 0, MSG_DONTWAIT | MSG_TRUNC) < 0)
			break;
		pp->tx.drop_tap++;
	}
}

/**
 * port_dgram_from_peer() - whether a datagram comes from the port's peer
 * @pp: the port data
 * @from: its sender
 * @len: the sender address's length
 *
 * With no peer configured, the first sender with a bound address becomes
 * the peer for good (logged).
 *
 * Return: true to take the datagram.
 */
static bool port_dgram_from_peer(struct port_dgram *pp, const struct sockaddr_un *from, socklen_t len)
{
	const size_t off = offsetof(struct sockaddr_un, sun_path);
	struct port *p = pp->port;

	if (len <= off || !from->sun_path[0])
		return false;	/* unbound or abstract: nothing to answer */
	if (!pp->peer_len) {
		memcpy(&pp->peer, from, len);
		pp->peer_len = len;
		pp->locked = true;
		log_info("port %s: peer is %.*s (the first sender; others are dropped)",
			 p->cfg.name, (int)(len - off), from->sun_path);
		return true;
	}
	return strncmp(from->sun_path, pp->peer.sun_path, sizeof(from->sun_path)) == 0;
}

/**
 * port_dgram_readable() - port_ops.readable: datagrams from the peer
 * @p: the port
 */
static void port_dgram_readable(struct port *p)
{
	struct port_dgram *pp = p->priv;
	struct engine_budget budget;
	int round;

	if (!pp)
		return;
	if (!vq_running(&pp->fp.vq)) {
		port_dgram_discard(p, pp);
		return;
	}
	/* One service: one budget (engine.h); the socket stays readable
	 * when datagrams are left, the loop comes back after the others. */
	engine_budget_init(&budget);
	for (round = 0; round < PORT_DGRAM_ROUNDS && !engine_budget_spent(&budget); round++) {
		unsigned int k, want = frame_rings_tx_free(&pp->fp);
		int n;

		if (want > PORT_DGRAM_BATCH)
			want = PORT_DGRAM_BATCH;
		if (want > budget.frames)
			want = budget.frames;
		for (k = 0; k < want; k++) {
			pp->iov[k].iov_base = frame_rings_tx_peek(&pp->fp, k);
			pp->iov[k].iov_len = FRAME_RINGS_BUF_SIZE - 1;
			memset(&pp->msgs[k].msg_hdr, 0, sizeof(pp->msgs[k].msg_hdr));
			pp->msgs[k].msg_hdr.msg_name = &pp->from[k];
			pp->msgs[k].msg_hdr.msg_namelen = sizeof(pp->from[k]);
			pp->msgs[k].msg_hdr.msg_iov = &pp->iov[k];
			pp->msgs[k].msg_hdr.msg_iovlen = 1;
		}
		n = recvmmsg(p->listen_fd, pp->msgs, want, MSG_DONTWAIT, NULL);
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				log_warn_errno(errno, "port %s: recvmmsg", p->cfg.name);
			break;
		}
		for (k = 0; k < (unsigned int)n; k++) {
			const struct msghdr *mh = &pp->msgs[k].msg_hdr;

			pp->lens[k] = pp->msgs[k].msg_len;
			engine_budget_take(&budget, pp->lens[k]);
			if (!port_dgram_from_peer(pp, &pp->from[k], mh->msg_namelen)) {
				const size_t off = offsetof(struct sockaddr_un, sun_path);
				bool named = mh->msg_namelen > off && pp->from[k].sun_path[0];

				pp->tx.drop_peer++;
				pp->lens[k] = 0;
				log_rl(&p->rl, LOG_WARNING,
				       "port %s: datagram from %.*s dropped: not the peer (%s)",
				       p->cfg.name, named ? (int)(mh->msg_namelen - off) : 15,
				       named ? pp->from[k].sun_path : "an unbound socket",
				       pp->peer_len ? pp->peer.sun_path : "none yet");
			} else if (mh->msg_flags & MSG_TRUNC) {
				pp->tx.drop_too_big++;
				pp->lens[k] = 0;
			} else if (pp->lens[k] == 0) {
				pp->tx.drop_bad_chain++;
			}
		}
		if (frame_rings_tx_commit_n(&pp->fp, (unsigned int)n, pp->lens) < 0) {
			port_dgram_broken(pp, "queue pair 0: tx ring broken (the daemon's driver side)");
			break;
		}
		if (frame_rings_tx_flush(&pp->fp) < 0)
			break;	/* port_dgram_broken() said why */
		if ((unsigned int)n < want)
			break;
	}
}

/**
 * port_dgram_bound() - port_ops.bound: open the ring pair of the bound socket
 * @p: the port
 * @err: message buffer
 * @errlen: its size
 *
 * The socket is port.c's (stored in systemd's fd store as "listen.PORT",
 * handed over to an upgrade's successor under the same name): datagrams
 * queued in it while no daemon runs are read here after a restart.
 *
 * Return: 0, or -1 with @err filled.
 */
static int port_dgram_bound(struct port *p, char *err, size_t errlen)
{
	struct port_dgram *pp;

	pp = calloc(1, sizeof(*pp));
	if (!pp) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	pp->port = p;
	p->priv = pp;
	if (p->cfg.peer[0]) {
		pp->peer.sun_family = AF_UNIX;
		snprintf(pp->peer.sun_path, sizeof(pp->peer.sun_path), "%s", p->cfg.peer);
		pp->peer_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
					   strlen(pp->peer.sun_path) + 1);
	}
	return frame_rings_open(&pp->fp, p, &port_dgram_rings_ops, pp, err, errlen);
}

/**
 * port_dgram_teardown() - port_ops.teardown
 * @p: the port
 */
static void port_dgram_teardown(struct port *p)
{
	struct port_dgram *pp = p->priv;

	if (!pp)
		return;
	frame_rings_close(&pp->fp, NULL, NULL);
	free(pp);
	p->priv = NULL;
}

/**
 * port_dgram_get_stats() - port_ops.get_stats: its one queue pair
 * @p: the port
 * @s: accumulator
 */
static void port_dgram_get_stats(struct port *p, struct port_stats *s)
{
	struct port_dgram *pp = p->priv;
	struct engine_stats t, r;

	if (!pp)
		return;
	frame_rings_get_stats(&pp->fp, &t, &r);
	port_stats_add(&s->tx[0], &t);
	port_stats_add(&s->rx[0], &r);
	port_stats_add(&s->tx[0], &pp->tx);
	port_stats_add(&s->rx[0], &pp->rx);
}

/**
 * port_dgram_connections() - port_ops.connections
 * @p: the port
 *
 * Return: 1 when a peer address is known.
 */
static unsigned int port_dgram_connections(struct port *p)
{
	struct port_dgram *pp = p->priv;

	return pp && pp->peer_len ? 1 : 0;
}

/**
 * port_dgram_handover_save() - port_ops.handover_save: the learnt peer
 * @p: the port
 * @st: the state being written
 * @err: message buffer
 * @errlen: its size
 *
 * The socket itself goes as listen.PORT (handover.c); a peer from the
 * file (peer =) is the successor's from the same file.  Frames are not
 * kept between calls (each batch goes to the tap or the peer at once):
 * nothing else is in flight.
 *
 * Return: 0, or -1 with @err filled.
 */
static int port_dgram_handover_save(struct port *p, struct handover_state *st, char *err,
				    size_t errlen)
{
	struct port_dgram *pp = p->priv;
	struct hovs_peer peer;
	int ret;

	if (!pp || !pp->locked || !pp->peer_len)
		return 0;
	memset(&peer, 0, sizeof(peer));
	snprintf(peer.port, sizeof(peer.port), "%s", p->cfg.name);
	peer.len = (uint32_t)pp->peer_len;
	memcpy(peer.addr, &pp->peer, pp->peer_len);
	ret = handover_state_add_peer(st, &peer);
	if (ret < 0) {
		snprintf(err, errlen, "port %s: peer: %s", p->cfg.name, strerror(-ret));
		return -1;
	}
	return 0;
}

/**
 * port_dgram_handover_peer() - port_ops.handover_peer: the predecessor's peer
 * @p: the port
 * @peer: the record
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 with @err filled (an address that is not AF_UNIX or
 * does not fit, or a port whose file names another peer).
 */
static int port_dgram_handover_peer(struct port *p, const struct hovs_peer *peer, char *err,
				    size_t errlen)
{
	struct port_dgram *pp = p->priv;
	struct sockaddr_un sa;

	memset(&sa, 0, sizeof(sa));
	memcpy(&sa, peer->addr, peer->len < sizeof(sa) ? peer->len : sizeof(sa));
	if (!pp || peer->len > sizeof(sa) || peer->len <= offsetof(struct sockaddr_un, sun_path) ||
	    sa.sun_family != AF_UNIX) {
		snprintf(err, errlen, "port %s: the predecessor's peer is not a unix socket address",
			 p->cfg.name);
		return -1;
	}
	if (p->cfg.peer[0]) {
		snprintf(err, errlen, "port %s: the file names peer %s now, the predecessor had learnt %.*s",
			 p->cfg.name, p->cfg.peer, (int)sizeof(sa.sun_path), sa.sun_path);
		return -1;
	}
	pp->peer = sa;
	pp->peer_len = (socklen_t)peer->len;
	pp->locked = true;
	log_info("port %s: peer %.*s taken over from the previous instance", p->cfg.name,
		 (int)sizeof(sa.sun_path), sa.sun_path);
	return 0;
}

const struct port_ops port_dgram_ops = {
	.name = "dgram",
	.sock_type = SOCK_DGRAM,
	.restart_keeps = true,
	.bound = port_dgram_bound,
	.readable = port_dgram_readable,
	.teardown = port_dgram_teardown,
	.get_stats = port_dgram_get_stats,
	.connections = port_dgram_connections,
	.handover_save = port_dgram_handover_save,
	.handover_peer = port_dgram_handover_peer,
};
