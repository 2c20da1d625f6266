// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * port_stream.c - the stream port type: QEMU "-netdev stream" over a unix socket
 *
 * One peer at a time (a second one is refused while one is served).  Frames
 * from the peer (4-byte big-endian length, then the frame; frame_stream.c)
 * are decoded straight into the tx buffers of the daemon's own ring pair
 * (frame_rings.c), which runs on the queue-pair pump (vq.c) like a
 * front-end's rings, and sent to the tap with one vq_push() (one eng tx())
 * per read batch; frames the pump receives from the tap are queued,
 * length-prefixed, for the peer, and written to it after each rx batch.
 * Client mode (connect = PATH) reconnects every cfg.reconnect seconds
 * while there is no peer.
 *
 * Hand-over ("vringnetctl upgrade", handover.c; systemctl restart the
 * same way, restart.c): a peer, accepted or (client mode) connected to, is
 * paused (port_stream_pause(): the tap and its socket no longer read, what
 * it sent and was decoded already at the tap, what the tap gave for it
 * queued), saved as a HOVS_REC_STREAM record with the bytes of the frame
 * it is in the middle of and the bytes queued for it, and the next
 * instance runs it on from there with a ring pair of its own: no byte is
 * lost or sent twice either way.  A client-mode port in the next instance
 * does not connect while it serves the connection it took over
 * (port_open()'s connect_later); once that closes it reconnects as usual.
 *
 * Bad input and the answer:
 *   length prefix 0 or > 65535        peer disconnected (drop_bad_hdr += 1)
 *   frame shorter than an Ethernet
 *     header                          dropped by the engine (drop_bad_chain)
 *   peer hangs up mid-frame           partial frame dropped (drop_bad_chain),
 *                                     peer disconnected
 *   peer stops reading                frames for it dropped (rx drop_tap);
 *                                     after PORT_STREAM_STALL_DROPS drops in a row
 *                                     without progress it is disconnected
 *   no complete frame within
 *     boot-timeout of connecting       peer disconnected (logged)
 *   a frame begun and not finished
 *     within message-timeout           peer disconnected (logged)
 * The port keeps listening and accepts the next peer in every case.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "deadline.h"
#include "frame_rings.h"
#include "frame_stream.h"
#include "handover_state.h"
#include "log.h"
#include "port.h"
#include "port_peer.h"

#define PORT_STREAM_READ_BATCH	16	/* reads per wakeup */
#define PORT_STREAM_STALL_DROPS	1024	/* drops without progress before disconnecting */

/**
 * struct port_stream_conn - one stream peer
 * @port: the port
 * @fd: the socket
 * @ref: its loop ref; requeued (events 0) to close the peer after an rx
 *	batch found it gone or stalled (@close_why)
 * @fp: the ring pair
 * @dec: decoder state
 * @enc: output queue
 * @stalled: frames dropped in a row because the peer does not read
 * @framed: a complete frame arrived (the handshake deadline is over)
 * @hs: deadline for the first complete frame (boot-timeout)
 * @msg: deadline for the frame begun (message-timeout)
 * @close_why: why to close at the next @ref call ("" for not)
 * @paused: stopped for a hand-over (port_stream_pause()): no rings, the
 *	socket not watched
 * @held: while not running, the bytes of the frame being decoded
 *	(@dec.got of them), else NULL
 * @rbuf: read buffer
 */
struct port_stream_conn {
	struct port *port;
	int fd;
	struct loop_ref ref;
	struct frame_rings_pair fp;
	struct frame_stream_decoder dec;
	struct frame_stream_encoder enc;
	unsigned int stalled;
	bool framed;
	struct deadline hs;
	struct deadline msg;
	char close_why[128];
	bool paused;
	uint8_t *held;
	uint8_t rbuf[65536];
};

/**
 * port_stream_close() - disconnect the peer
 * @c: the peer
 * @why: reason (NULL: clean hang-up)
 */
static void port_stream_close(struct port_stream_conn *c, const char *why)
{
	struct port *p = c->port;
	struct port_peer *pp = p->priv;

	if (why)
		log_rl_port(p, LOG_WARNING, "port %s: stream peer disconnected: %s", p->cfg.name, why);
	else
		log_rl_port(p, LOG_INFO, "port %s: stream peer hung up", p->cfg.name);
	deadline_fini(&c->hs);
	deadline_fini(&c->msg);
	loop_del(p->loop, &c->ref);
	frame_rings_close(&c->fp, &pp->gone.tx[0], &pp->gone.rx[0]);
	close(c->fd);
	port_peer_closed(p, c, why);
	free(c->held);
	free(c);
}

/**
 * port_stream_write_out() - write queued frames; watch EPOLLOUT while some remain
 * @c: the peer
 * @why: out: why the peer must go
 * @whylen: its size
 *
 * Return: 0, or -1 with @why filled (nothing is closed here).
 */
static int port_stream_write_out(struct port_stream_conn *c, char *why, size_t whylen)
{
	size_t before = frame_stream_encoder_queued(&c->enc);
	int left = frame_stream_encoder_flush(&c->enc, c->fd);

	if (left < 0) {
		snprintf(why, whylen, "write: %s", strerror(-left));
		return -1;
	}
	if ((size_t)left < before)
		c->stalled = 0;
	loop_mod(c->port->loop, &c->ref, left ? EPOLLIN | EPOLLOUT : EPOLLIN);
	return 0;
}

/**
 * port_stream_flush_out() - write queued frames, disconnect the peer on error
 * @c: the peer
 *
 * Return: 0, or -1 when the peer was disconnected.
 */
static int port_stream_flush_out(struct port_stream_conn *c)
{
	char why[96];

	if (port_stream_write_out(c, why, sizeof(why)) == 0)
		return 0;
	port_stream_close(c, why);
	return -1;
}

/**
 * port_stream_deliver() - frame_rings_ops.deliver: queue one frame from the tap for the peer
 * @opaque: the peer
 * @frame: the frame
 * @len: its length
 */
static void port_stream_deliver(void *opaque, const uint8_t *frame, size_t len)
{
	struct port_stream_conn *c = opaque;
	struct port_peer *pp = c->port->priv;

	if (frame_stream_encoder_push(&c->enc, frame, len) < 0) {
		pp->gone.rx[0].drop_tap++;
		c->stalled++;
	}
}

/**
 * port_stream_delivered() - frame_rings_ops.delivered: write the rx batch to the peer
 * @opaque: the peer
 *
 * Inside the pump's rx walk: a peer that is gone or stalled is closed
 * from the loop right after (@close_why, @ref requeued), not here.
 */
static void port_stream_delivered(void *opaque)
{
	struct port_stream_conn *c = opaque;

	if (c->close_why[0])
		return;
	if (port_stream_write_out(c, c->close_why, sizeof(c->close_why)) == 0 &&
	    c->stalled > PORT_STREAM_STALL_DROPS)
		snprintf(c->close_why, sizeof(c->close_why),
			 "peer stopped reading (frames for it dropped)");
	if (c->close_why[0])
		loop_requeue(c->port->loop, &c->ref);
}

/**
 * port_stream_close_conn() - port_peer_ops.close, and frame_rings_ops.broken
 *	(the ring pair cannot go on)
 * @conn: the peer
 * @why: reason for the log
 */
static void port_stream_close_conn(void *conn, const char *why)
{
	port_stream_close(conn, why);
}

static const struct frame_rings_ops port_stream_rings_ops = {
	.deliver = port_stream_deliver,
	.delivered = port_stream_delivered,
	.broken = port_stream_close_conn,
};

/**
 * port_stream_read() - decode what the peer sent into tx buffers, send the batch
 * @c: the peer
 *
 * Return: 0, or -1 when the peer was disconnected.
 */
static int port_stream_read(struct port_stream_conn *c)
{
	struct port_peer *pp = c->port->priv;
	struct engine_budget budget;
	char why[128];
	int i;

	/* One service: one budget (engine.h), checked between reads; the
	 * socket stays readable when data is left, the loop comes back. */
	engine_budget_init(&budget);
	for (i = 0; i < PORT_STREAM_READ_BATCH && !engine_budget_spent(&budget); i++) {
		ssize_t n = recv(c->fd, c->rbuf, sizeof(c->rbuf), MSG_DONTWAIT);
		size_t off = 0;

		if (n == 0) {
			bool mid = frame_stream_decoder_mid_frame(&c->dec);

			/* counted first: a flush that breaks the pair closes c */
			if (mid)
				pp->gone.tx[0].drop_bad_chain++;
			/* what came before the hang-up still goes to the tap */
			if (frame_rings_tx_flush(&c->fp) < 0)
				return -1;
			port_stream_close(c, mid ? "hung up in the middle of a frame (partial frame dropped)" : NULL);
			return -1;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			log_buf_errno(why, sizeof(why), errno, "read");
			port_stream_close(c, why);
			return -1;
		}
		while (off < (size_t)n) {
			uint8_t *dst = frame_rings_tx_buf(&c->fp);
			size_t used;
			int ret;

			if (!dst) {
				if (frame_rings_tx_flush(&c->fp) < 0)
					return -1;
				dst = frame_rings_tx_buf(&c->fp);
				if (!dst) {
					port_stream_close(c, "no tx buffer after a flush");
					return -1;
				}
			}
			ret = frame_stream_decode(&c->dec, dst, c->rbuf + off, (size_t)n - off, &used);
			off += used;
			if (ret < 0) {
				pp->gone.tx[0].drop_bad_hdr++;
				snprintf(why, sizeof(why), "frame length prefix %s",
					 ret == -EBADMSG ? "0" : "above 65535");
				if (frame_rings_tx_flush(&c->fp) >= 0)
					port_stream_close(c, why);
				return -1;
			}
			if (ret > 0 && !c->framed) {
				c->framed = true;
				deadline_stop(&c->hs);
			}
			if (ret > 0 && frame_rings_tx_commit(&c->fp, (size_t)ret) < 0)
				pp->gone.tx[0].drop_bad_chain++;
			if (ret > 0)
				engine_budget_take(&budget, (uint64_t)ret);
		}
	}
	if (frame_rings_tx_flush(&c->fp) < 0)
		return -1;
	if (c->framed && frame_stream_decoder_mid_frame(&c->dec))
		deadline_arm(&c->msg, deadline_message_sec());
	else
		deadline_stop(&c->msg);
	return 0;
}

/**
 * port_stream_hs_passed() - no complete frame within boot-timeout
 * @dl: the peer's @hs
 */
static void port_stream_hs_passed(struct deadline *dl)
{
	struct port_stream_conn *c = container_of(dl, struct port_stream_conn, hs);
	char why[96];

	snprintf(why, sizeof(why), "no complete frame within %u s (boot-timeout)",
		 deadline_boot_sec());
	port_stream_close(c, why);
}

/**
 * port_stream_msg_passed() - a frame begun was not finished within message-timeout
 * @dl: the peer's @msg
 */
static void port_stream_msg_passed(struct deadline *dl)
{
	struct port_stream_conn *c = container_of(dl, struct port_stream_conn, msg);
	char why[96];

	snprintf(why, sizeof(why), "a frame not finished within %u s (message-timeout)",
		 deadline_message_sec());
	port_stream_close(c, why);
}

/**
 * port_stream_conn_ready() - the peer socket is readable or writable
 * @loop: the loop
 * @ref: the peer's ref
 * @events: epoll events; 0: requeued by port_stream_delivered() to close it
 */
static void port_stream_conn_ready(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct port_stream_conn *c = container_of(ref, struct port_stream_conn, ref);

	if (c->close_why[0]) {
		port_stream_close(c, c->close_why);
		return;
	}
	if ((events & EPOLLOUT) && port_stream_flush_out(c) < 0)
		return;
	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
		port_stream_read(c);
}

/**
 * port_stream_conn_stats() - port_peer_ops.conn_stats: the live peer's ring counters
 * @p: the port
 * @conn: the peer
 * @s: accumulator; a stream port has one queue pair
 */
static void port_stream_conn_stats(struct port *p, void *conn, struct port_stats *s)
{
	struct port_stream_conn *c = conn;
	struct engine_stats t, r;

	frame_rings_get_stats(&c->fp, &t, &r);
	port_stats_add(&s->tx[0], &t);
	port_stats_add(&s->rx[0], &r);
}

static void port_stream_attach(struct port *p, int fd);

static const struct port_peer_ops port_stream_peer_ops = {
	.attach = port_stream_attach,
	.close = port_stream_close_conn,
	.conn_stats = port_stream_conn_stats,
};

/**
 * port_stream_new() - a peer's data, not running yet
 * @p: the port
 * @fd: its socket (not taken)
 * @err: message buffer
 * @errlen: its size
 *
 * Return: the peer (decoder and encoder empty, deadlines made, not
 * armed), or NULL with @err filled.
 */
static struct port_stream_conn *port_stream_new(struct port *p, int fd, char *err, size_t errlen)
{
	struct port_stream_conn *c = calloc(1, sizeof(*c));

	if (!c) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return NULL;
	}
	c->port = p;
	c->fd = fd;
	frame_stream_decoder_init(&c->dec);
	frame_stream_encoder_init(&c->enc);
	if (deadline_init(&c->hs, p->loop, port_stream_hs_passed) < 0 ||
	    deadline_init(&c->msg, p->loop, port_stream_msg_passed) < 0) {
		log_buf_errno(err, errlen, errno, "timerfd");
		deadline_fini(&c->hs);
		deadline_fini(&c->msg);
		free(c);
		return NULL;
	}
	loop_ref_init(&c->ref, LOOP_REF_PORT_CONN, fd, port_stream_conn_ready);
	return c;
}

/**
 * port_stream_discard() - free a peer port_stream_run() did not start
 * @c: the peer (its socket stays open)
 */
static void port_stream_discard(struct port_stream_conn *c)
{
	deadline_fini(&c->hs);
	deadline_fini(&c->msg);
	free(c->held);
	free(c);
}

/**
 * port_stream_run() - start a peer: its ring pair, its socket, its deadlines
 * @c: a peer not running (just made, paused, or taken over)
 * @err: message buffer
 * @errlen: its size
 *
 * The bytes of the frame being decoded that a pause or the predecessor
 * kept (@held) go into the pair's current tx buffer, where the decoder
 * goes on; queued output makes the socket watched for EPOLLOUT too.  The
 * boot-timeout runs until the first complete frame, the message-timeout
 * while a frame is begun.
 *
 * Return: 0, or -1 with @err filled (nothing runs).
 */
static int port_stream_run(struct port_stream_conn *c, char *err, size_t errlen)
{
	struct port *p = c->port;
	uint32_t events = frame_stream_encoder_queued(&c->enc) ? EPOLLIN | EPOLLOUT : EPOLLIN;

	if (frame_rings_open(&c->fp, p, &port_stream_rings_ops, c, err, errlen) < 0)
		return -1;
	if (c->dec.hdr_got == FRAME_STREAM_HDR_SIZE && c->dec.got)
		memcpy(frame_rings_tx_buf(&c->fp), c->held, c->dec.got);
	if (loop_add(p->loop, &c->ref, events) < 0) {
		log_buf_errno(err, errlen, errno, "epoll");
		frame_rings_close(&c->fp, NULL, NULL);
		return -1;
	}
	free(c->held);
	c->held = NULL;
	c->paused = false;
	if (!c->framed)
		deadline_arm(&c->hs, deadline_boot_sec());
	else if (frame_stream_decoder_mid_frame(&c->dec))
		deadline_arm(&c->msg, deadline_message_sec());
	return 0;
}

/**
 * port_stream_attach() - serve a connected peer
 * @p: the port
 * @fd: its socket (owned from here on)
 */
static void port_stream_attach(struct port *p, int fd)
{
	struct port_stream_conn *c;
	char err[256];

	if (!port_peer_of(p, &port_stream_peer_ops)) {
		close(fd);
		return;
	}
	if (port_peer_refuse(p, fd, "stream peer"))
		return;
	c = port_stream_new(p, fd, err, sizeof(err));
	if (c && port_stream_run(c, err, sizeof(err)) < 0) {
		port_stream_discard(c);
		c = NULL;
	}
	if (!c) {
		log_err("port %s: stream peer refused: %s", p->cfg.name, err);
		close(fd);
		return;
	}
	port_peer_served(p, c, fd);
}

/**
 * port_stream_pause() - stop reading a peer and the tap, for a hand-over
 * @c: a running peer
 *
 * Every frame decoded so far went to the tap (each read ends in a
 * flush).  The frames the engine took from the tap are queued for the
 * peer (frame_rings_stop()) and written as far as the socket takes them
 * now; the bytes of the frame being decoded move out of the rings into
 * @held, and the rings close (their counters go to the port's).  From
 * then on what the peer sends waits in the socket, and the frames for it
 * in the tap's queue.
 *
 * Return: 0, or -1 when the peer failed meanwhile (then closed, logged).
 */
static int port_stream_pause(struct port_stream_conn *c)
{
	struct port_peer *pp = c->port->priv;
	char why[96];
	int left;

	frame_rings_stop(&c->fp, &pp->gone.tx[0], &pp->gone.rx[0]);
	if (c->close_why[0]) {
		port_stream_close(c, c->close_why);
		return -1;
	}
	if (c->dec.hdr_got == FRAME_STREAM_HDR_SIZE && c->dec.got) {
		c->held = malloc(c->dec.got);
		if (!c->held) {
			port_stream_close(c, "out of memory pausing it for a hand-over");
			return -1;
		}
		memcpy(c->held, frame_rings_tx_buf(&c->fp), c->dec.got);
	}
	frame_rings_close(&c->fp, NULL, NULL);
	loop_del(c->port->loop, &c->ref);
	deadline_stop(&c->hs);
	deadline_stop(&c->msg);
	c->paused = true;
	left = frame_stream_encoder_flush(&c->enc, c->fd);
	if (left < 0) {
		snprintf(why, sizeof(why), "write: %s", strerror(-left));
		port_stream_close(c, why);
		return -1;
	}
	return 0;
}

/**
 * port_stream_handover_pause() - port_ops.handover_pause
 * @p: the port
 */
static void port_stream_handover_pause(struct port *p)
{
	struct port_peer *pp = p->priv;
	unsigned int i;

	for (i = 0; pp && i < PORT_PEER_MAX; i++)
		if (pp->conns[i])
			port_stream_pause(pp->conns[i]);
}

/**
 * port_stream_handover_resume() - port_ops.handover_resume
 * @p: the port
 *
 * The hand-over failed: every paused peer runs again where it stopped (one
 * that cannot is closed, logged).
 */
static void port_stream_handover_resume(struct port *p)
{
	struct port_peer *pp = p->priv;
	char err[256];
	unsigned int i;

	for (i = 0; pp && i < PORT_PEER_MAX; i++) {
		struct port_stream_conn *c = pp->conns[i];

		if (c && c->paused && port_stream_run(c, err, sizeof(err)) < 0)
			port_stream_close(c, err);
	}
}

/**
 * port_stream_handover_save() - port_ops.handover_save
 * @p: the port (paused)
 * @st: the state being written
 * @err: message buffer
 * @errlen: its size
 *
 * Per peer its socket, the decoder's state with the bytes of the frame
 * being decoded, and the bytes queued for it.
 *
 * Return: 0, or -1 with @err filled.
 */
static int port_stream_handover_save(struct port *p, struct handover_state *st, char *err,
				     size_t errlen)
{
	struct port_peer *pp = p->priv;
	struct hovs_stream s;
	unsigned int i;
	int ret;

	for (i = 0; pp && i < PORT_PEER_MAX; i++) {
		struct port_stream_conn *c = pp->conns[i];

		if (!c)
			continue;
		memset(&s, 0, sizeof(s));
		snprintf(s.port, sizeof(s.port), "%s", p->cfg.name);
		s.sock = c->fd;
		s.flags = c->framed ? HOVS_STREAM_FRAMED : 0;
		s.hdr_got = c->dec.hdr_got;
		memcpy(s.hdr, c->dec.hdr, s.hdr_got);
		if (s.hdr_got == FRAME_STREAM_HDR_SIZE) {
			s.len = c->dec.len;
			s.got = c->dec.got;
		}
		s.out_len = (uint32_t)frame_stream_encoder_queued(&c->enc);
		ret = handover_state_add_stream(st, &s, c->held, c->enc.buf + c->enc.head);
		if (ret < 0) {
			snprintf(err, errlen, "port %s: stream peer: %s", p->cfg.name, strerror(-ret));
			return -1;
		}
		log_info("port %s: stream peer handed over with %u of %u length prefix bytes and %u of %u frame bytes read, %u bytes queued for it",
			 p->cfg.name, s.hdr_got, FRAME_STREAM_HDR_SIZE, s.got, s.len, s.out_len);
	}
	return 0;
}

/**
 * port_stream_handover_stream() - port_ops.handover_stream
 * @p: the port
 * @hs: the predecessor's record of one peer, with its bytes
 * @start: take it over (its socket is taken, also on error); false: only
 *	say whether the port can
 * @err: message buffer
 * @errlen: its size
 *
 * The peer goes on where the predecessor paused it: the decoder in the
 * middle of the same frame, the same bytes queued for it.
 *
 * Return: 0, or -1 with @err filled (the socket closed here, not the
 * predecessor's copy).
 */
static int port_stream_handover_stream(struct port *p, const struct handover_stream *hs, bool start,
				       char *err, size_t errlen)
{
	struct port_peer *pp = port_peer_of(p, &port_stream_peer_ops);
	const struct hovs_stream *s = &hs->rec;
	struct port_stream_conn *c;

	if (!pp || pp->nconns) {
		snprintf(err, errlen, "port %s: no room for the stream peer (one is served, or out of memory)",
			 p->cfg.name);
		goto fail;
	}
	if (!start)
		return 0;
	c = port_stream_new(p, s->sock, err, errlen);
	if (!c)
		goto fail;
	memcpy(c->dec.hdr, s->hdr, sizeof(c->dec.hdr));
	c->dec.hdr_got = s->hdr_got;
	c->dec.len = s->len;
	c->dec.got = s->got;
	c->framed = s->flags & HOVS_STREAM_FRAMED;
	c->held = s->got ? malloc(s->got) : NULL;
	if ((s->got && !c->held) ||
	    (s->out_len &&	/* an idle peer's record has no bytes at all */
	     frame_stream_encoder_restore(&c->enc, hs->bytes + s->got, s->out_len) < 0)) {
		snprintf(err, errlen, "port %s: stream peer: %s", p->cfg.name, strerror(ENOMEM));
		port_stream_discard(c);
		goto fail;
	}
	if (s->got)
		memcpy(c->held, hs->bytes, s->got);
	if (port_stream_run(c, err, errlen) < 0) {
		port_stream_discard(c);
		goto fail;
	}
	port_peer_served(p, c, s->sock);
	log_info("port %s: stream peer taken over from the previous instance (%u of %u frame bytes read, %u bytes queued for it)",
		 p->cfg.name, s->got, s->len, s->out_len);
	return 0;
fail:
	if (start)
		close(s->sock);
	return -1;
}

/**
 * port_stream_connect() - port_ops.connect: client mode
 * @p: the port
 * @later: the first attempt from the loop (port_peer_connect())
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 when the port's data or timer cannot be made.
 */
static int port_stream_connect(struct port *p, bool later, char *err, size_t errlen)
{
	return port_peer_connect(p, &port_stream_peer_ops, later, err, errlen);
}

const struct port_ops port_stream_ops = {
	.name = "stream",
	.sock_type = SOCK_STREAM,
	.restart_keeps = true,
	.accept = port_stream_attach,
	.connect = port_stream_connect,
	.teardown = port_peer_teardown,
	.get_stats = port_peer_get_stats,
	.connections = port_peer_connections,
	.peer_info = port_peer_get_info,
	.handover_pause = port_stream_handover_pause,
	.handover_resume = port_stream_handover_resume,
	.handover_save = port_stream_handover_save,
	.handover_stream = port_stream_handover_stream,
};
