// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * port_stream.c - the stream port type: QEMU "-netdev stream" over a unix socket
 *
 * One peer at a time (a second one is refused while one is served).  Frames
 * from the peer (4-byte big-endian length, then the frame; frame_stream.c)
 * are decoded straight into the tx buffers of the daemon's own ring pair
 * (frame_rings.c) and sent to the tap with one eng tx() per read batch;
 * frames the engine receives from the tap are queued, length-prefixed, for
 * the peer.  Client mode (connect = PATH) reconnects every cfg.reconnect
 * seconds while there is no peer.
 *
 * Bad input and the answer:
 *   length prefix 0 or > 65535        peer disconnected (drop_bad_hdr += 1)
 *   frame shorter than an Ethernet
 *     header                          dropped by the engine (drop_bad_chain)
 *   peer hangs up mid-frame           partial frame dropped (drop_bad_chain),
 *                                     peer disconnected
 *   peer stops reading                frames for it dropped (rx drop_tap);
 *                                     after PST_STALL_DROPS drops in a row
 *                                     without progress it is disconnected
 * The port keeps listening and accepts the next peer in every case.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "frame_rings.h"
#include "frame_stream.h"
#include "log.h"
#include "port.h"

#define PST_READ_BATCH	16	/* reads per wakeup */
#define PST_STALL_DROPS	1024	/* drops without progress before disconnecting */

/**
 * struct pst_conn - one stream peer
 * @port: the port
 * @fd: the socket
 * @ref: its loop ref
 * @tap: the engine's rx_fd ref
 * @fp: the ring pair
 * @dec: decoder state
 * @enc: output queue
 * @stalled: frames dropped in a row because the peer does not read
 * @rbuf: read buffer
 */
struct pst_conn {
	struct port *port;
	int fd;
	struct loop_ref ref;
	struct loop_ref tap;
	struct fr_pair fp;
	struct fs_decoder dec;
	struct fs_encoder enc;
	unsigned int stalled;
	uint8_t rbuf[65536];
};

/**
 * struct pst_port - per-port data (port.priv)
 * @port: the port
 * @conn: the peer, or NULL
 * @tx: counters of closed peers and port-level drops (peer -> tap)
 * @rx: same, tap -> peer
 * @accepted: peers served
 * @refused: peers refused while one was served
 * @timer: reconnect timer (client mode)
 * @timer_ok: @timer exists
 */
struct pst_port {
	struct port *port;
	struct pst_conn *conn;
	struct eng_stats tx;
	struct eng_stats rx;
	unsigned long accepted;
	unsigned long refused;
	struct loop_ref timer;
	bool timer_ok;
};

/**
 * pst_stats_add() - add counters
 * @to: accumulator
 * @from: counters
 */
static void pst_stats_add(struct eng_stats *to, const struct eng_stats *from)
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
}

/**
 * pst_close() - disconnect the peer
 * @c: the peer
 * @why: reason (NULL: clean hang-up)
 */
static void pst_close(struct pst_conn *c, const char *why)
{
	struct port *p = c->port;
	struct pst_port *pp = p->priv;
	struct eng_stats tx, rx;

	if (why)
		log_warn("port %s: stream peer disconnected: %s", p->cfg.name, why);
	else
		log_info("port %s: stream peer hung up", p->cfg.name);
	loop_del(p->loop, &c->tap);
	loop_del(p->loop, &c->ref);
	fr_get_stats(&c->fp, &tx, &rx);
	pst_stats_add(&pp->tx, &tx);
	pst_stats_add(&pp->rx, &rx);
	fr_close(&c->fp);
	close(c->fd);
	if (pp->conn == c)
		pp->conn = NULL;
	free(c);
	p->state = p->cfg.listen[0] ? "listening" : "connecting";
	if (!p->cfg.listen[0] && pp->timer_ok)
		loop_timer_set(&pp->timer, (uint64_t)(p->cfg.reconnect ? p->cfg.reconnect : 1) *
			       1000000000ULL, 0);
}

/**
 * pst_flush_out() - write queued frames; watch EPOLLOUT while some remain
 * @c: the peer
 *
 * Return: 0, or -1 when the peer was disconnected.
 */
static int pst_flush_out(struct pst_conn *c)
{
	size_t before = fs_encoder_queued(&c->enc);
	int left = fs_encoder_flush(&c->enc, c->fd);
	char why[96];

	if (left < 0) {
		snprintf(why, sizeof(why), "write: %s", strerror(-left));
		pst_close(c, why);
		return -1;
	}
	if ((size_t)left < before)
		c->stalled = 0;
	loop_mod(c->port->loop, &c->ref, left ? EPOLLIN | EPOLLOUT : EPOLLIN);
	return 0;
}

/**
 * pst_deliver() - fr_deliver_fn: queue one frame from the tap for the peer
 * @opaque: the peer
 * @frame: the frame
 * @len: its length
 */
static void pst_deliver(void *opaque, const uint8_t *frame, size_t len)
{
	struct pst_conn *c = opaque;
	struct pst_port *pp = c->port->priv;

	if (fs_encoder_push(&c->enc, frame, len) < 0) {
		pp->rx.drop_tap++;
		c->stalled++;
	}
}

/**
 * pst_tap_ready() - frames from the tap for the peer
 * @loop: the loop
 * @ref: the peer's tap ref
 * @events: epoll events
 */
static void pst_tap_ready(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct pst_conn *c = container_of(ref, struct pst_conn, tap);

	if (fr_rx(&c->fp, pst_deliver, c) < 0) {
		pst_close(c, "rx ring broken");
		return;
	}
	if (pst_flush_out(c) < 0)
		return;
	if (c->stalled > PST_STALL_DROPS)
		pst_close(c, "peer stopped reading (frames for it dropped)");
}

/**
 * pst_read() - decode what the peer sent into tx buffers, send the batch
 * @c: the peer
 *
 * Return: 0, or -1 when the peer was disconnected.
 */
static int pst_read(struct pst_conn *c)
{
	struct pst_port *pp = c->port->priv;
	char why[128];
	int i;

	for (i = 0; i < PST_READ_BATCH; i++) {
		ssize_t n = recv(c->fd, c->rbuf, sizeof(c->rbuf), MSG_DONTWAIT);
		size_t off = 0;

		if (n == 0) {
			if (fs_decoder_mid_frame(&c->dec)) {
				pp->tx.drop_bad_chain++;
				fr_tx_flush(&c->fp);
				pst_close(c, "hung up in the middle of a frame (partial frame dropped)");
			} else {
				fr_tx_flush(&c->fp);
				pst_close(c, NULL);
			}
			return -1;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			snprintf(why, sizeof(why), "read: %s", strerror(errno));
			pst_close(c, why);
			return -1;
		}
		while (off < (size_t)n) {
			uint8_t *dst = fr_tx_buf(&c->fp);
			size_t used;
			int ret;

			if (!dst) {
				if (fr_tx_flush(&c->fp) < 0) {
					pst_close(c, "tx ring broken");
					return -1;
				}
				dst = fr_tx_buf(&c->fp);
				if (!dst) {
					pst_close(c, "no tx buffer after a flush");
					return -1;
				}
			}
			ret = fs_decode(&c->dec, dst, c->rbuf + off, (size_t)n - off, &used);
			off += used;
			if (ret < 0) {
				pp->tx.drop_bad_hdr++;
				snprintf(why, sizeof(why), "frame length prefix %s",
					 ret == -EBADMSG ? "0" : "above 65535");
				fr_tx_flush(&c->fp);
				pst_close(c, why);
				return -1;
			}
			if (ret > 0 && fr_tx_commit(&c->fp, (size_t)ret) < 0)
				pp->tx.drop_bad_chain++;
		}
	}
	if (fr_tx_flush(&c->fp) < 0) {
		pst_close(c, "tx ring broken");
		return -1;
	}
	return 0;
}

/**
 * pst_conn_ready() - the peer socket is readable or writable
 * @loop: the loop
 * @ref: the peer's ref
 * @events: epoll events
 */
static void pst_conn_ready(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct pst_conn *c = container_of(ref, struct pst_conn, ref);

	if ((events & EPOLLOUT) && pst_flush_out(c) < 0)
		return;
	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
		pst_read(c);
}

/**
 * pst_alloc() - the port's private data, created on first use
 * @p: the port
 *
 * Return: it, or NULL when out of memory.
 */
static struct pst_port *pst_alloc(struct port *p)
{
	struct pst_port *pp = p->priv;

	if (!pp) {
		pp = calloc(1, sizeof(*pp));
		if (!pp)
			return NULL;
		pp->port = p;
		p->priv = pp;
	}
	return pp;
}

/**
 * pst_attach() - serve a connected peer
 * @p: the port
 * @fd: its socket (owned from here on)
 */
static void pst_attach(struct port *p, int fd)
{
	struct pst_port *pp = pst_alloc(p);
	struct pst_conn *c;
	char err[256];

	if (!pp) {
		close(fd);
		return;
	}
	if (pp->conn) {
		pp->refused++;
		log_warn("port %s: stream peer refused: one is already connected", p->cfg.name);
		close(fd);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return;
	}
	c->port = p;
	c->fd = fd;
	fs_decoder_init(&c->dec);
	fs_encoder_init(&c->enc);
	if (fr_open(&c->fp, p->eng, p->tap->fds[0], err, sizeof(err)) < 0) {
		log_err("port %s: stream peer refused: %s", p->cfg.name, err);
		close(fd);
		free(c);
		return;
	}
	loop_ref_init(&c->ref, LOOP_REF_PORT_CONN, fd, pst_conn_ready);
	loop_ref_init(&c->tap, LOOP_REF_QUEUE_RX, fr_rx_fd(&c->fp), pst_tap_ready);
	if (loop_add(p->loop, &c->ref, EPOLLIN) < 0 || loop_add(p->loop, &c->tap, EPOLLIN) < 0) {
		log_err("port %s: epoll: %s", p->cfg.name, strerror(errno));
		loop_del(p->loop, &c->ref);
		fr_close(&c->fp);
		close(fd);
		free(c);
		return;
	}
	pp->conn = c;
	pp->accepted++;
	p->state = "connected";
}

/**
 * pst_try_connect() - client mode: one attempt
 * @p: the port
 */
static void pst_try_connect(struct port *p)
{
	struct pst_port *pp = p->priv;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", p->cfg.connect);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		log_info("port %s: connected to %s", p->cfg.name, p->cfg.connect);
		pst_attach(p, fd);
		return;
	}
	log_debug("port %s: connect to %s: %s", p->cfg.name, p->cfg.connect, strerror(errno));
	if (fd >= 0)
		close(fd);
	p->state = "connecting";
	loop_timer_set(&pp->timer, (uint64_t)(p->cfg.reconnect ? p->cfg.reconnect : 1) *
		       1000000000ULL, 0);
}

/**
 * pst_timer() - reconnect timer
 * @loop: the loop
 * @ref: the timer
 * @events: epoll events
 */
static void pst_timer(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct pst_port *pp = container_of(ref, struct pst_port, timer);

	loop_timer_ack(ref);
	if (!pp->conn)
		pst_try_connect(pp->port);
}

/**
 * pst_connect() - port_ops.connect
 * @p: the port
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 when the timer cannot be made.
 */
static int pst_connect(struct port *p, char *err, size_t errlen)
{
	struct pst_port *pp = pst_alloc(p);

	if (!pp) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	if (!pp->timer_ok) {
		if (loop_timer_init(p->loop, &pp->timer, pst_timer) < 0) {
			snprintf(err, errlen, "reconnect timer: %s", strerror(errno));
			return -1;
		}
		pp->timer_ok = true;
	}
	pst_try_connect(p);
	return 0;
}

/**
 * pst_teardown() - port_ops.teardown
 * @p: the port
 */
static void pst_teardown(struct port *p)
{
	struct pst_port *pp = p->priv;

	if (!pp)
		return;
	if (pp->conn)
		pst_close(pp->conn, "port closed");
	if (pp->timer_ok)
		loop_timer_fini(p->loop, &pp->timer);
	free(pp);
	p->priv = NULL;
}

/**
 * pst_get_stats() - port_ops.get_stats
 * @p: the port
 * @tx: out
 * @rx: out
 */
static void pst_get_stats(struct port *p, struct eng_stats *tx, struct eng_stats *rx)
{
	struct pst_port *pp = p->priv;
	struct eng_stats t, r;

	if (!pp)
		return;
	pst_stats_add(tx, &pp->tx);
	pst_stats_add(rx, &pp->rx);
	if (pp->conn) {
		fr_get_stats(&pp->conn->fp, &t, &r);
		pst_stats_add(tx, &t);
		pst_stats_add(rx, &r);
	}
}

/**
 * pst_connections() - port_ops.connections
 * @p: the port
 *
 * Return: 1 while a peer is served.
 */
static unsigned int pst_connections(struct port *p)
{
	struct pst_port *pp = p->priv;

	return pp && pp->conn ? 1 : 0;
}

const struct port_ops port_stream_ops = {
	.name = "stream",
	.sock_type = SOCK_STREAM,
	.accept = pst_attach,
	.connect = pst_connect,
	.teardown = pst_teardown,
	.get_stats = pst_get_stats,
	.connections = pst_connections,
};
