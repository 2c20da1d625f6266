// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * port_vhost_user.c - the vhost-user port type: a front-end's rings on a tap
 *
 * One front-end at a time per port (server mode: a second connection is
 * refused while one is served; client mode: connect = PATH, reconnecting
 * every cfg.reconnect seconds while there is no connection).  The
 * connection's messages go to the vhost-user state machine (vhost_user.c);
 * when it reports a queue pair ready, the pair is opened on the engine with
 * the guest's memory table and ring addresses, and from then on:
 *
 *   tx kick eventfd readable  -> eng tx()   (guest -> tap)
 *   rx kick eventfd readable  -> eng rx()   (guest posted rx buffers)
 *   engine rx_fd readable     -> eng rx()   (tap -> guest); not polled
 *                                while the guest has no rx buffer posted
 *
 * With VIRTIO_RING_F_EVENT_IDX the port publishes the avail event index of
 * each ring after the engine has walked it (so the guest kicks for the next
 * chain), then re-checks the ring for chains published meanwhile.
 *
 * A protocol error, a broken ring or a queue the engine cannot open closes
 * that connection (logged with the reason); the tap and other ports stay.
 * A ring set up without a kick fd (SET_VRING_KICK with the no-fd bit: the
 * front-end does not kick) is polled: a timer of the queue pair walks it
 * every PVU_POLL_NS, and tap events and the other ring's kicks serve it too.
 *
 * Every connection is bounded in time (deadline.h): closed (logged) when no
 * queue pair runs boot-timeout seconds after it connected, or when a
 * message it began is not complete message-timeout seconds later.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/virtio_ring.h>

#include "deadline.h"
#include "evfd.h"
#include "guard.h"
#include "log.h"
#include "port.h"
#include "port_peer.h"
#include "vhost_user.h"

#define PVU_TX_ROUNDS	8	/* tx() calls per kick before yielding */
#define PVU_POLL_NS	1000000	/* period of the walk of a ring without kick fd */

struct pvu_conn;

/**
 * struct pvu_queue - one running queue pair
 * @conn: its connection
 * @qp: queue pair index
 * @eq: engine queue, NULL when stopped
 * @tx_kick: the tx ring's kick eventfd
 * @rx_kick: the rx ring's kick eventfd
 * @tap: the engine's rx_fd
 * @tap_polled: @tap is in the epoll set (not starved)
 * @poll_timer: walks the rings that have no kick fd (fd -1 when none has)
 */
struct pvu_queue {
	struct pvu_conn *conn;
	unsigned int qp;
	struct eng_queue *eq;
	struct loop_ref tx_kick;
	struct loop_ref rx_kick;
	struct loop_ref tap;
	bool tap_polled;
	struct loop_ref poll_timer;
};

/**
 * struct pvu_conn - one front-end connection
 * @port: the port
 * @fd: the socket
 * @ref: its loop ref
 * @dev: vhost-user state
 * @q: per queue pair
 * @hs: deadline for the first running queue pair (boot-timeout)
 * @msg: deadline for a message begun (message-timeout)
 * @closing: set once the connection is being torn down
 * @in_vu: inside vu_dev_handle(): errors are deferred to @deferred
 * @deferred: an error found inside vu_dev_handle(), "" for none
 */
struct pvu_conn {
	struct port *port;
	int fd;
	struct loop_ref ref;
	struct vu_dev dev;
	struct pvu_queue q[VU_MAX_QUEUE_PAIRS];
	struct deadline hs;
	struct deadline msg;
	bool closing;
	bool in_vu;
	char deferred[320];
};

static void pvu_conn_close(struct pvu_conn *c, const char *why);

/**
 * pvu_fail() - a queue found the connection unusable
 * @c: the connection
 * @why: reason
 *
 * Closes the connection now, or, when called from inside the vhost-user
 * state machine, as soon as it returns.
 */
static void pvu_fail(struct pvu_conn *c, const char *why)
{
	if (c->in_vu) {
		if (!c->deferred[0])
			snprintf(c->deferred, sizeof(c->deferred), "%s", why);
		return;
	}
	pvu_conn_close(c, why);
}

/**
 * pvu_event_idx() - whether VIRTIO_RING_F_EVENT_IDX was negotiated
 * @c: the connection
 *
 * Return: true if so.
 */
static bool pvu_event_idx(const struct pvu_conn *c)
{
	return c->dev.features & (1ULL << VU_RING_F_EVENT_IDX);
}

/**
 * pvu_publish_avail_event() - ask the guest to kick for the next chain
 * @c: the connection
 * @vring: ring index
 * @last_avail: where the engine stopped reading it
 *
 * Writes the avail event index (after the used ring entries), then a full
 * fence, and re-reads avail->idx.
 *
 * Return: true when chains were published meanwhile (walk again).
 */
static bool pvu_publish_avail_event(struct pvu_conn *c, unsigned int vring,
				    uint16_t last_avail)
{
	const struct vu_vring *vr = &c->dev.vrings[vring];
	struct vring_used *used = vr->used;
	struct vring_avail *avail = vr->avail;
	uint16_t *ev = (uint16_t *)&used->ring[vr->num];

	if (pvu_event_idx(c))
		__atomic_store_n(ev, htole16(last_avail), __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return le16toh(__atomic_load_n(&avail->idx, __ATOMIC_ACQUIRE)) != last_avail;
}

/**
 * pvu_probe_regions() - which region of guest memory no longer faults in
 * @c: the connection
 * @buf: filled with ": region N (...) ..." for the first region whose last
 *	byte faults, or "" when every one reads
 * @len: size of @buf
 *
 * Reads the last byte of each region under a guard scope of its own (a
 * truncated file faults there).  For the kernel engine's EFAULT, which
 * does not say where.
 */
static void pvu_probe_regions(struct pvu_conn *c, char *buf, size_t len)
{
	volatile unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < c->dev.nregions; i++) {
		const struct vu_region *r = &c->dev.regions[i];
		struct guard_scope gs;
		char what[128];

		guard_enter(&gs, &c->dev);
		if (sigsetjmp(gs.jb, 0)) {
			r = &c->dev.regions[i];
			guard_fault_str(&gs.fault, what, sizeof(what));
			snprintf(buf, len, ": guest memory region %u (guest 0x%llx, 0x%llx bytes, fd offset 0x%llx): %s",
				 i, (unsigned long long)r->guest_addr, (unsigned long long)r->size,
				 (unsigned long long)r->mmap_offset, what);
			return;
		}
		(void)*(volatile const uint8_t *)((const uint8_t *)r->host + r->size - 1);
		guard_leave(&gs);
	}
}

/**
 * pvu_engine_error() - why the engine gave up on a ring, in words
 * @q: the queue pair
 * @dir: "tx" or "rx"
 * @n: the engine's negative errno
 * @buf: the reason out
 * @len: its size
 *
 * An EFAULT (the kernel engine meeting guest memory it cannot fault in)
 * names the region that is gone, when a probe finds it.
 */
static void pvu_engine_error(struct pvu_queue *q, const char *dir, int n, char *buf, size_t len)
{
	struct pvu_conn *c = q->conn;
	char where[200] = "";

	if (n == -EFAULT)
		pvu_probe_regions(c, where, sizeof(where));
	snprintf(buf, len, "queue pair %u: %s ring broken (%s engine: %s)%s%s",
		 q->qp, dir, c->port->eng->name, strerror(-n),
		 n == -EFAULT ? ": guest memory not accessible (shrunk by the front-end, or no page to back it)" : "",
		 where);
}

/**
 * pvu_tx_walk() - send what the guest queued on the tx ring (unguarded)
 * @q: the queue pair
 *
 * Return: 0, or -EIO when the ring is broken (the connection is closed).
 */
static int pvu_tx_walk(struct pvu_queue *q)
{
	struct pvu_conn *c = q->conn;
	const struct eng_ops *eng = c->port->eng;
	unsigned int round;
	uint16_t la_tx, la_rx;
	int n;

	for (round = 0; round < PVU_TX_ROUNDS; round++) {
		n = eng->tx(q->eq);
		if (n < 0) {
			char why[sizeof(c->deferred)];

			pvu_engine_error(q, "tx", n, why, sizeof(why));
			pvu_fail(c, why);
			return -EIO;
		}
		eng->get_last_avail(q->eq, &la_tx, &la_rx);
		if (!pvu_publish_avail_event(c, 2 * q->qp + 1, la_tx))
			return 0;
	}
	/* Still more: come back through the loop instead of starving others. */
	if (c->dev.vrings[2 * q->qp + 1].kick_fd >= 0) {
		if (!evfd_signal(c->dev.vrings[2 * q->qp + 1].kick_fd))
			log_debug("port %s: self-kick: %s", c->port->cfg.name, strerror(errno));
	}
	return 0;
}

/**
 * pvu_rx_walk() - fill the guest's rx buffers from the tap (unguarded)
 * @q: the queue pair
 *
 * When the guest has no buffer posted, the tap is no longer polled until
 * the guest kicks the rx ring.
 *
 * Return: 0, or -EIO when the ring is broken (the connection is closed).
 */
static int pvu_rx_walk(struct pvu_queue *q)
{
	struct pvu_conn *c = q->conn;
	const struct eng_ops *eng = c->port->eng;
	uint16_t la_tx, la_rx;
	bool starved;
	int n;

	for (;;) {
		n = eng->rx(q->eq, &starved);
		if (n < 0) {
			char why[sizeof(c->deferred)];

			pvu_engine_error(q, "rx", n, why, sizeof(why));
			pvu_fail(c, why);
			return -EIO;
		}
		if (!starved)
			break;
		eng->get_last_avail(q->eq, &la_tx, &la_rx);
		if (pvu_publish_avail_event(c, 2 * q->qp, la_rx))
			continue;	/* buffers arrived meanwhile */
		if (q->tap_polled) {
			loop_del(c->port->loop, &q->tap);
			q->tap_polled = false;
		}
		return 0;
	}
	if (!q->tap_polled) {
		if (loop_add(c->port->loop, &q->tap, EPOLLIN) == 0)
			q->tap_polled = true;
		else
			log_warn("port %s: epoll on the tap: %s", c->port->cfg.name,
				 strerror(errno));
	}
	return 0;
}

/**
 * pvu_mem_fault() - guest memory faulted under a ring walk: drop the front-end
 * @c: the connection
 * @f: where (guard.c)
 *
 * The front-end truncated the file behind a region, or the kernel had no
 * page to back it (hugetlbfs pool exhausted): close this connection, with
 * the region named; other ports are not affected.
 */
static void pvu_mem_fault(struct pvu_conn *c, const struct guard_fault *f)
{
	const struct vu_region *r = &c->dev.regions[f->index];
	char why[sizeof(c->deferred)], what[128];

	guard_fault_str(f, what, sizeof(what));
	snprintf(why, sizeof(why),
		 "guest memory region %u (guest 0x%llx, 0x%llx bytes, fd offset 0x%llx): %s (guest 0x%llx): the front-end shrank its memory file or its pages could not be allocated",
		 f->index, (unsigned long long)r->guest_addr, (unsigned long long)r->size,
		 (unsigned long long)r->mmap_offset, what,
		 (unsigned long long)(r->guest_addr + f->offset));
	pvu_fail(c, why);
}

/**
 * pvu_guarded() - a ring walk with guest memory faults caught
 * @q: the queue pair
 * @walk: pvu_tx_walk or pvu_rx_walk
 *
 * The jump buffer lives in this frame, which stays live for the whole walk.
 * Return: the walk's result, or -EIO when guest memory faulted (the
 * connection is closed).
 */
static int pvu_guarded(struct pvu_queue *q, int (*walk)(struct pvu_queue *q))
{
	struct pvu_conn *c = q->conn;
	struct guard_scope gs;
	int ret;

	guard_enter(&gs, &c->dev);
	if (sigsetjmp(gs.jb, 0)) {
		pvu_mem_fault(c, &gs.fault);
		return -EIO;
	}
	ret = walk(q);
	guard_leave(&gs);
	return ret;
}

/**
 * pvu_do_tx() - the tx walk, guarded
 * @q: the queue pair
 *
 * Return: as pvu_guarded().
 */
static int pvu_do_tx(struct pvu_queue *q)
{
	return pvu_guarded(q, pvu_tx_walk);
}

/**
 * pvu_do_rx() - the rx walk, guarded
 * @q: the queue pair
 *
 * Return: as pvu_guarded().
 */
static int pvu_do_rx(struct pvu_queue *q)
{
	return pvu_guarded(q, pvu_rx_walk);
}

/**
 * pvu_tx_kick() - the guest kicked the tx ring
 * @loop: the loop
 * @ref: the queue's tx_kick
 * @events: epoll events
 */
static void pvu_tx_kick(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct pvu_queue *q = container_of(ref, struct pvu_queue, tx_kick);

	evfd_consume(ref->fd);
	if (pvu_do_tx(q) < 0)
		return;
	/* Polling rx ring: serve it here too. */
	if (q->rx_kick.fd < 0)
		pvu_do_rx(q);
}

/**
 * pvu_rx_kick() - the guest posted rx buffers
 * @loop: the loop
 * @ref: the queue's rx_kick
 * @events: epoll events
 */
static void pvu_rx_kick(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct pvu_queue *q = container_of(ref, struct pvu_queue, rx_kick);

	evfd_consume(ref->fd);
	pvu_do_rx(q);
}

/**
 * pvu_tap_ready() - the tap has frames for the guest
 * @loop: the loop
 * @ref: the queue's tap ref
 * @events: epoll events
 */
static void pvu_tap_ready(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct pvu_queue *q = container_of(ref, struct pvu_queue, tap);

	if (pvu_do_rx(q) < 0)
		return;
	if (q->tx_kick.fd < 0)
		pvu_do_tx(q);
}

/**
 * pvu_poll_tick() - walk the rings of a queue pair that have no kick fd
 * @loop: the loop
 * @ref: the queue's poll_timer
 * @events: epoll events
 */
static void pvu_poll_tick(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct pvu_queue *q = container_of(ref, struct pvu_queue, poll_timer);

	loop_timer_ack(ref);
	if (q->tx_kick.fd < 0 && pvu_do_tx(q) < 0)
		return;
	if (q->rx_kick.fd < 0)
		pvu_do_rx(q);
}

/**
 * pvu_queue_stop() - close a queue pair's engine queue
 * @c: the connection
 * @qp: queue pair
 *
 * Stores the engine's avail positions in the vhost-user state (for
 * GET_VRING_BASE) and its counters in the port's totals.
 */
static void pvu_queue_stop(struct pvu_conn *c, unsigned int qp)
{
	struct pvu_queue *q = &c->q[qp];
	struct port_peer *pp = c->port->priv;
	const struct eng_ops *eng = c->port->eng;
	struct eng_stats tx, rx;
	uint16_t la_tx, la_rx;

	if (!q->eq)
		return;
	loop_del(c->port->loop, &q->tx_kick);
	loop_del(c->port->loop, &q->rx_kick);
	loop_del(c->port->loop, &q->tap);
	loop_timer_fini(c->port->loop, &q->poll_timer);
	q->tap_polled = false;
	eng->get_last_avail(q->eq, &la_tx, &la_rx);
	vu_dev_set_last_avail(&c->dev, 2 * qp + 1, la_tx);
	vu_dev_set_last_avail(&c->dev, 2 * qp, la_rx);
	eng->get_stats(q->eq, &tx, &rx);
	port_stats_add(&pp->tx, &tx);
	port_stats_add(&pp->rx, &rx);
	eng->close(q->eq);
	q->eq = NULL;
	log_rl(&c->port->rl, LOG_INFO, "port %s: queue pair %u stopped (tx avail %u, rx avail %u)",
		 c->port->cfg.name, qp, la_tx, la_rx);
}

/**
 * pvu_queue_start() - open a ready queue pair on the engine
 * @c: the connection
 * @qp: queue pair
 *
 * Return: 0 or a negative errno (the message is in c->dev.err).
 */
static int pvu_queue_start(struct pvu_conn *c, unsigned int qp)
{
	struct pvu_queue *q = &c->q[qp];
	struct port *p = c->port;
	struct eng_queue_config cfg;
	char why[200];

	if (qp >= p->tap->nqueues) {
		snprintf(c->dev.err, sizeof(c->dev.err),
			 "queue pair %u: tap %s has %u queues", qp, p->tap->name,
			 p->tap->nqueues);
		return -EINVAL;
	}
	vu_dev_queue_config(&c->dev, qp, &cfg);
	cfg.tap_fd = p->tap->fds[qp];
	q->eq = p->eng->open(&cfg, why, sizeof(why));
	if (!q->eq) {
		snprintf(c->dev.err, sizeof(c->dev.err), "queue pair %u: %s", qp, why);
		return -EIO;
	}
	q->conn = c;
	q->qp = qp;
	loop_ref_init(&q->tx_kick, LOOP_REF_PORT_AUX, c->dev.vrings[2 * qp + 1].kick_fd,
		      pvu_tx_kick);
	loop_ref_init(&q->rx_kick, LOOP_REF_PORT_AUX, c->dev.vrings[2 * qp].kick_fd,
		      pvu_rx_kick);
	loop_ref_init(&q->tap, LOOP_REF_QUEUE_RX, p->eng->rx_fd(q->eq), pvu_tap_ready);
	q->tap_polled = false;
	q->poll_timer.fd = -1;
	if ((q->tx_kick.fd >= 0 && loop_add(p->loop, &q->tx_kick, EPOLLIN) < 0) ||
	    (q->rx_kick.fd >= 0 && loop_add(p->loop, &q->rx_kick, EPOLLIN) < 0) ||
	    ((q->tx_kick.fd < 0 || q->rx_kick.fd < 0) &&
	     (loop_timer_init(p->loop, &q->poll_timer, pvu_poll_tick) < 0 ||
	      loop_timer_set(&q->poll_timer, PVU_POLL_NS, PVU_POLL_NS) < 0))) {
		snprintf(c->dev.err, sizeof(c->dev.err), "queue pair %u: epoll: %s", qp,
			 strerror(errno));
		pvu_queue_stop(c, qp);
		return -EIO;
	}
	log_rl(&p->rl, LOG_INFO, "port %s: queue pair %u running (%s engine, ring sizes tx %u rx %u, header %u, mergeable rx %s, event index %s%s)",
		 p->cfg.name, qp, p->eng->name, cfg.tx.num, cfg.rx.num, cfg.vnet_hdr_len,
		 cfg.mrg_rxbuf ? "on" : "off", pvu_event_idx(c) ? "on" : "off",
		 q->poll_timer.fd >= 0 ? ", polled: a ring has no kick fd" : "");
	deadline_stop(&c->hs);
	/* Work queued before we watched the kicks. */
	if (pvu_do_tx(q) < 0)
		return 0;
	pvu_do_rx(q);
	return 0;
}

/**
 * pvu_queue_state() - vu_ops.queue_state: a queue pair starts or stops
 * @dev: the connection's state
 * @qp: queue pair
 * @ready: start or stop
 *
 * Return: 0 or a negative errno.
 */
static int pvu_queue_state(struct vu_dev *dev, unsigned int qp, bool ready)
{
	struct pvu_conn *c = dev->opaque;

	if (!ready) {
		pvu_queue_stop(c, qp);
		return 0;
	}
	return pvu_queue_start(c, qp);
}

/**
 * pvu_tap_mtu() - vu_ops.tap_mtu: the port's tap's current MTU
 * @dev: the connection's vhost-user state
 *
 * Return: the MTU or a negative errno.
 */
static int pvu_tap_mtu(struct vu_dev *dev)
{
	struct pvu_conn *c = dev->opaque;

	return tap_get_mtu(c->port->tap);
}

static const struct vu_ops pvu_vu_ops = {
	.queue_state = pvu_queue_state,
	.tap_mtu = pvu_tap_mtu,
};

/**
 * pvu_conn_close() - end a connection: queues, mappings, fds, socket
 * @c: the connection
 * @why: reason for the log, NULL for a clean hang-up
 */
static void pvu_conn_close(struct pvu_conn *c, const char *why)
{
	struct port *p = c->port;

	if (c->closing)
		return;
	c->closing = true;
	if (why)
		log_rl(&p->rl, LOG_WARNING, "port %s: vhost-user connection closed: %s", p->cfg.name, why);
	else
		log_rl(&p->rl, LOG_INFO, "port %s: vhost-user front-end disconnected", p->cfg.name);
	vu_dev_reset(&c->dev);
	deadline_fini(&c->hs);
	deadline_fini(&c->msg);
	loop_del(p->loop, &c->ref);
	close(c->fd);
	port_peer_closed(p, c);
	free(c);
}

/**
 * pvu_conn_ready() - the front-end sent something (or hung up)
 * @loop: the loop
 * @ref: the connection's ref
 * @events: epoll events
 */
static void pvu_conn_ready(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct pvu_conn *c = container_of(ref, struct pvu_conn, ref);
	int ret;

	c->in_vu = true;
	ret = vu_dev_handle(&c->dev);
	c->in_vu = false;
	if (ret == 0 && c->deferred[0]) {
		char why[sizeof(c->deferred)];

		memcpy(why, c->deferred, sizeof(why));
		pvu_conn_close(c, why);
		return;
	}
	if (ret == -ENOTCONN) {
		pvu_conn_close(c, NULL);
		return;
	}
	if (ret < 0) {
		char why[VU_ERR_MAX + 32];

		snprintf(why, sizeof(why), "%s", c->dev.err);
		pvu_conn_close(c, why);
		return;
	}
	if (c->dev.rx.got)
		deadline_arm(&c->msg, deadline_message_sec());
	else
		deadline_stop(&c->msg);
}

/**
 * pvu_hs_passed() - no queue pair running within boot-timeout
 * @dl: the connection's @hs
 */
static void pvu_hs_passed(struct deadline *dl)
{
	struct pvu_conn *c = container_of(dl, struct pvu_conn, hs);
	char why[96];

	snprintf(why, sizeof(why), "no ring running within %u s (boot-timeout)",
		 deadline_boot_sec());
	pvu_conn_close(c, why);
}

/**
 * pvu_msg_passed() - a message begun was not finished within message-timeout
 * @dl: the connection's @msg
 */
static void pvu_msg_passed(struct deadline *dl)
{
	struct pvu_conn *c = container_of(dl, struct pvu_conn, msg);
	char why[96];

	snprintf(why, sizeof(why), "a message not finished within %u s (message-timeout)",
		 deadline_message_sec());
	pvu_conn_close(c, why);
}

/**
 * pvu_attach() - serve a connected socket
 * @p: the port
 * @fd: the socket (non-blocking; owned from here on)
 */
static void pvu_attach(struct port *p, int fd)
{
	struct pvu_conn *c;
	unsigned int qps;

	if (port_peer_refuse(p, fd, "vhost-user front-end"))
		return;
	c = calloc(1, sizeof(*c));
	if (!c) {
		log_err("port %s: vhost-user connection closed: %s", p->cfg.name,
			strerror(ENOMEM));
		close(fd);
		return;
	}
	c->port = p;
	c->fd = fd;
	qps = p->tap->nqueues;
	vu_dev_init(&c->dev, fd, qps, &pvu_vu_ops, c);
	loop_ref_init(&c->ref, LOOP_REF_PORT_CONN, fd, pvu_conn_ready);
	if (deadline_init(&c->hs, p->loop, pvu_hs_passed) < 0 ||
	    deadline_init(&c->msg, p->loop, pvu_msg_passed) < 0 ||
	    loop_add(p->loop, &c->ref, EPOLLIN) < 0) {
		log_err("port %s: vhost-user connection closed: epoll/timerfd: %s", p->cfg.name,
			strerror(errno));
		deadline_fini(&c->hs);
		deadline_fini(&c->msg);
		close(fd);
		free(c);
		return;
	}
	deadline_arm(&c->hs, deadline_boot_sec());
	port_peer_served(p, c);
}

/**
 * pvu_conn_stats() - port_peer_ops.conn_stats: the running queues' counters
 * @p: the port
 * @conn: the connection
 * @tx: accumulator (guest -> tap)
 * @rx: accumulator (tap -> guest)
 */
static void pvu_conn_stats(struct port *p, void *conn, struct eng_stats *tx,
			   struct eng_stats *rx)
{
	struct pvu_conn *c = conn;
	unsigned int qp;

	for (qp = 0; qp < VU_MAX_QUEUE_PAIRS; qp++) {
		struct eng_stats t, r;

		if (!c->q[qp].eq)
			continue;
		p->eng->get_stats(c->q[qp].eq, &t, &r);
		port_stats_add(tx, &t);
		port_stats_add(rx, &r);
	}
}

/**
 * pvu_close_conn() - port_peer_ops.close
 * @conn: the connection
 * @why: reason for the log
 */
static void pvu_close_conn(void *conn, const char *why)
{
	pvu_conn_close(conn, why);
}

static const struct port_peer_ops pvu_peer_ops = {
	.attach = pvu_attach,
	.close = pvu_close_conn,
	.conn_stats = pvu_conn_stats,
};

/**
 * pvu_accept() - port_ops.accept
 * @p: the port
 * @fd: the new connection
 */
static void pvu_accept(struct port *p, int fd)
{
	if (!port_peer_of(p, &pvu_peer_ops)) {
		close(fd);
		return;
	}
	pvu_attach(p, fd);
}

/**
 * pvu_connect() - port_ops.connect: client mode
 * @p: the port
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0 (a failed attempt is retried), -1 when the timer cannot be made.
 */
static int pvu_connect(struct port *p, char *err, size_t errlen)
{
	return port_peer_connect(p, &pvu_peer_ops, err, errlen);
}

const struct port_ops port_vhost_user_ops = {
	.name = "vhost-user",
	.sock_type = SOCK_STREAM,
	.accept = pvu_accept,
	.connect = pvu_connect,
	.teardown = port_peer_teardown,
	.get_stats = port_peer_get_stats,
	.connections = port_peer_connections,
};
