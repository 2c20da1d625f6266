// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vq.c - one running queue pair and its pump (see vq.h)
 *
 * One frame from a kick to the tap: loop.c (the kick eventfd is readable)
 * -> vq_tx_kick() here -> the engine's tx() (engine_user.c: libvringfd's
 * walker and one writev() per frame; engine_kernel.c: one write() on the
 * vring fd per batch).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "evfd.h"
#include "log.h"
#include "port.h"
#include "vq.h"

/**
 * vq_engine_broken() - the engine gave up on a ring: tell the owner
 * @vq: the pair
 * @dir: which ring
 * @n: the engine's negative errno
 *
 * An EFAULT (the kernel engine meeting front-end memory it cannot fault
 * in) gets the owner's description of what is gone, when it has one.
 */
static void vq_engine_broken(struct vq *vq, enum engine_dir dir, int n)
{
	char where[200] = "", why[400];

	if (n == -EFAULT && vq->ops->efault_where)
		vq->ops->efault_where(vq, where, sizeof(where));
	snprintf(why, sizeof(why), "queue pair %u: %s ring broken (%s engine: %s)%s%s",
		 vq->qp, dir == ENGINE_TX ? "tx" : "rx", vq->eng->name, strerror(-n),
		 n == -EFAULT ? ": guest memory not accessible (shrunk by the front-end, or no page to back it)" : "",
		 where);
	vq->ops->broken(vq, why);
}

/**
 * vq_tx_walk() - send what the driver queued on the tx ring (unguarded)
 * @vq: the pair
 *
 * One service: at most one budget (ENGINE_WEIGHT_FRAMES frames or
 * ENGINE_WEIGHT_BYTES bytes).  When it is spent with chains possibly left,
 * the pair requeues its tx kick in the loop and returns, so the loop serves
 * the other ready queues before it comes back to this one (a polled ring:
 * the timer comes back).
 * Return: 0, or -EIO when the pair is broken (the owner was told).
 */
static int vq_tx_walk(struct vq *vq)
{
	const struct engine_ops *eng = vq->eng;
	struct engine_budget budget;
	int n;

	engine_budget_init(&budget);
	for (;;) {
		n = eng->tx(vq->eq, &budget);
		if (n < 0) {
			vq_engine_broken(vq, ENGINE_TX, n);
			return -EIO;
		}
		if (engine_budget_spent(&budget))
			break;
		if (!eng->enable_notify(vq->eq, ENGINE_TX))
			return 0;
	}
	/* also a polled ring (no kick fd): not left until the next tick */
	loop_requeue(vq->port->loop, &vq->tx_kick);
	return 0;
}

/**
 * vq_rx_walk() - fill the driver's rx buffers from the tap (unguarded)
 * @vq: the pair
 *
 * One service: at most one budget, as vq_tx_walk().  When it is spent the
 * rx fd stays polled (level-triggered: still readable when frames are
 * left), so the loop serves the others first and comes back.  While the
 * driver has no buffer posted the rx fd is not polled; its rx kick (or the
 * poll timer) brings it back.
 * Return: 0, or -EIO when the pair is broken (the owner was told).
 */
static int vq_rx_walk(struct vq *vq)
{
	const struct engine_ops *eng = vq->eng;
	struct engine_budget budget;
	bool starved;
	int n;

	engine_budget_init(&budget);
	for (;;) {
		n = eng->rx(vq->eq, &budget, &starved);
		if (n < 0) {
			vq_engine_broken(vq, ENGINE_RX, n);
			return -EIO;
		}
		if (!starved)
			break;
		if (eng->enable_notify(vq->eq, ENGINE_RX)) {
			if (engine_budget_spent(&budget))
				break;	/* buffers arrived: the next service */
			continue;	/* buffers arrived meanwhile */
		}
		if (vq->rx_polled) {
			loop_del(vq->port->loop, &vq->rx);
			vq->rx_polled = false;
		}
		return 0;
	}
	if (!vq->rx_polled) {
		if (loop_add(vq->port->loop, &vq->rx, EPOLLIN) == 0)
			vq->rx_polled = true;
		else
			log_warn("port %s: epoll on the tap: %s", vq->port->cfg.name,
				 strerror(errno));
	}
	return 0;
}

/**
 * vq_guarded() - a walk with front-end memory faults caught
 * @vq: the pair
 * @walk: vq_tx_walk or vq_rx_walk
 *
 * The jump buffer lives in this frame, which stays live for the whole walk.
 * Return: the walk's result, or -EIO when front-end memory faulted (the
 * owner was told).
 */
static int vq_guarded(struct vq *vq, int (*walk)(struct vq *vq))
{
	struct guard_scope gs;
	char why[400];
	int ret;

	guard_enter(&gs, vq->owner);
	if (sigsetjmp(gs.jb, 0)) {
		vq->ops->mem_fault(vq, &gs.fault, why, sizeof(why));
		vq->ops->broken(vq, why);
		return -EIO;
	}
	ret = walk(vq);
	guard_leave(&gs);
	return ret;
}

/**
 * vq_tx_kick() - the driver kicked the tx ring, or the last walk was requeued
 * @loop: the loop
 * @ref: the pair's tx_kick
 * @events: epoll events; 0: loop_requeue() (nothing to consume)
 */
static void vq_tx_kick(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct vq *vq = container_of(ref, struct vq, tx_kick);

	if (events)
		evfd_consume(ref->fd);
	if (vq_guarded(vq, vq_tx_walk) < 0)
		return;
	/* A polled rx ring: serve it here too. */
	if (vq->rx_kick.fd < 0)
		vq_guarded(vq, vq_rx_walk);
}

/**
 * vq_rx_kick() - the driver posted rx buffers
 * @loop: the loop
 * @ref: the pair's rx_kick
 * @events: epoll events
 */
static void vq_rx_kick(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct vq *vq = container_of(ref, struct vq, rx_kick);

	evfd_consume(ref->fd);
	vq_guarded(vq, vq_rx_walk);
}

/**
 * vq_rx_ready() - the engine's rx fd is readable (the tap has frames)
 * @loop: the loop
 * @ref: the pair's rx
 * @events: epoll events
 */
static void vq_rx_ready(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct vq *vq = container_of(ref, struct vq, rx);

	if (vq_guarded(vq, vq_rx_walk) < 0)
		return;
	/* A polled tx ring: serve it here too. */
	if (vq->tx_kick.fd < 0)
		vq_guarded(vq, vq_tx_walk);
}

/**
 * vq_poll_tick() - walk the rings that have no kick fd
 * @loop: the loop
 * @ref: the pair's poll_timer
 * @events: epoll events
 */
static void vq_poll_tick(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct vq *vq = container_of(ref, struct vq, poll_timer);

	loop_timer_ack(ref);
	if (vq->tx_kick.fd < 0 && vq_guarded(vq, vq_tx_walk) < 0)
		return;
	if (vq->rx_kick.fd < 0)
		vq_guarded(vq, vq_rx_walk);
}

/**
 * vq_start() - open a ring pair on the port's engine and watch its kicks
 * @vq: the pair (zeroed or stopped)
 * @p: the port
 * @qp: queue pair index (for messages)
 * @d: the rings, memory, tap queue, kick and call fds
 * @ops: the owner's callbacks
 * @owner: the owner (and guard owner of the memory)
 * @err: message buffer
 * @errlen: its size
 *
 * Nothing is walked yet: call vq_kick() when the owner is ready for
 * vq_ops.broken().
 * Return: 0, or -errno with @err filled (nothing is left open).
 */
int vq_start(struct vq *vq, struct port *p, unsigned int qp, const struct vq_desc *d,
	     const struct vq_ops *ops, void *owner, char *err, size_t errlen)
{
	char why[256];

	memset(vq, 0, sizeof(*vq));
	vq->port = p;
	vq->qp = qp;
	vq->ops = ops;
	vq->owner = owner;
	vq->poll_timer.fd = -1;
	vq->eng = d->eng ? d->eng : p->eng;
	vq->eq = vq->eng->open(&d->cfg, why, sizeof(why));
	if (!vq->eq) {
		snprintf(err, errlen, "queue pair %u: %s", qp, why);
		return -EIO;
	}
	loop_ref_init(&vq->tx_kick, LOOP_REF_PORT_AUX, d->tx_kick_fd, vq_tx_kick);
	loop_ref_init(&vq->rx_kick, LOOP_REF_PORT_AUX, d->rx_kick_fd, vq_rx_kick);
	loop_ref_init(&vq->rx, LOOP_REF_QUEUE_RX, vq->eng->rx_fd(vq->eq), vq_rx_ready);
	if ((vq->tx_kick.fd >= 0 && loop_add(p->loop, &vq->tx_kick, EPOLLIN) < 0) ||
	    (vq->rx_kick.fd >= 0 && loop_add(p->loop, &vq->rx_kick, EPOLLIN) < 0) ||
	    ((vq->tx_kick.fd < 0 || vq->rx_kick.fd < 0) &&
	     (loop_timer_init(p->loop, &vq->poll_timer, vq_poll_tick) < 0 ||
	      loop_timer_set(&vq->poll_timer, VQ_POLL_NS, VQ_POLL_NS) < 0))) {
		snprintf(err, errlen, "queue pair %u: epoll: %s", qp, strerror(errno));
		vq_stop(vq, NULL, NULL, NULL);
		return -EIO;
	}
	return 0;
}

/**
 * vq_kick() - walk both rings once (work queued before the kicks were watched)
 * @vq: a running pair
 *
 * Return: 0, or -EIO when the pair broke (the owner was told).
 */
int vq_kick(struct vq *vq)
{
	if (vq_guarded(vq, vq_tx_walk) < 0)
		return -EIO;
	return vq_guarded(vq, vq_rx_walk);
}

/**
 * vq_get_stats() - the engine's counters of a running pair
 * @vq: the pair
 * @tx: out (zeroed when not running)
 * @rx: out (zeroed when not running)
 */
void vq_get_stats(const struct vq *vq, struct engine_stats *tx, struct engine_stats *rx)
{
	memset(tx, 0, sizeof(*tx));
	memset(rx, 0, sizeof(*rx));
	if (vq->eq)
		vq->eng->get_stats(vq->eq, tx, rx);
}

/**
 * vq_stop() - close the engine queue and forget the fds
 * @vq: the pair (stopped already: nothing happens)
 * @tx_total: the pair's tx counters are added here (may be NULL)
 * @rx_total: same for rx
 * @last_avail: where the engine stopped in each avail ring, out (may be
 *	NULL; vhost-user GET_VRING_BASE)
 *
 * The kick and call fds stay open: they are the owner's.
 */
void vq_stop(struct vq *vq, struct engine_stats *tx_total, struct engine_stats *rx_total,
	     uint16_t last_avail[2])
{
	struct engine_stats tx, rx;
	struct loop *loop;

	if (!vq->eq)
		return;
	loop = vq->port->loop;
	loop_del(loop, &vq->tx_kick);
	loop_del(loop, &vq->rx_kick);
	loop_del(loop, &vq->rx);
	if (vq->poll_timer.fd >= 0)
		loop_timer_fini(loop, &vq->poll_timer);
	vq->rx_polled = false;
	vq_get_stats(vq, &tx, &rx);
	if (tx_total)
		port_stats_add(tx_total, &tx);
	if (rx_total)
		port_stats_add(rx_total, &rx);
	vq->eng->close(vq->eq, last_avail);
	vq->eq = NULL;
}
