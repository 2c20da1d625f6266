// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vq.c - one running queue pair and its pump (see vq.h)
 *
 * One frame from a kick to the tap: loop.c (the kick eventfd is readable)
 * -> vq_tx_kick() here -> the engine's tx() (engine_user.c: libvringfd's
 * walker and one writev() per frame; engine_kernel.c: one write() on the
 * vring fd per batch).  With workers (worker.h) that loop is the pair's
 * worker's, and vq_start(), vq_kick(), vq_get_stats() and vq_stop() hand
 * their work to it with worker_call().  A stream or dgram frame takes the
 * same way from vq_push() (the port's driver, frame_rings.c, posted it):
 * the engine's tx().
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "evfd.h"
#include "log.h"
#include "port.h"
#include "vq.h"

/**
 * vq_broken_main() - worker_defer() call: a pair broken on its worker, on
 *	the main thread now: tell the owner
 * @arg: the pair (still open on its worker, out of its loop)
 */
static void vq_broken_main(void *arg)
{
	struct vq *vq = arg;

	vq->ops->broken(vq, vq->broken_why);
}

/**
 * vq_unwatch() - take the pair's fds out of its loop
 * @vq: the pair (on its loop's thread)
 */
static void vq_unwatch(struct vq *vq)
{
	loop_del(vq->loop, &vq->tx_kick);
	loop_del(vq->loop, &vq->rx_kick);
	loop_del(vq->loop, &vq->rx);
	loop_del(vq->loop, &vq->tx_err);
	loop_del(vq->loop, &vq->poll_timer);
	vq->rx_polled = false;
}

/**
 * vq_broken() - the pair cannot go on: tell the owner
 * @vq: the pair
 * @why: the reason
 *
 * On the main thread the owner is told at once (and may free the pair);
 * on a worker the pair leaves the worker's loop and the owner is told
 * from the main loop (worker_defer()).  Either way the caller touches
 * nothing of the pair after this.
 */
static void vq_broken(struct vq *vq, const char *why)
{
	if (!vq->worker) {
		vq->ops->broken(vq, why);
		return;
	}
	vq_unwatch(vq);
	vq->broken = true;
	snprintf(vq->broken_why, sizeof(vq->broken_why), "%s", why);
	worker_defer(&vq->broken_node, vq_broken_main, vq);
}

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
	vq_broken(vq, why);
}

/**
 * vq_self_broken() - the daemon's own driver found its ring broken: tell the owner
 * @vq: a self-driven pair
 * @dir: which ring
 */
static void vq_self_broken(struct vq *vq, enum engine_dir dir)
{
	char why[100];

	snprintf(why, sizeof(why), "queue pair %u: %s ring broken (the daemon's driver side)",
		 vq->qp, dir == ENGINE_TX ? "tx" : "rx");
	vq_broken(vq, why);
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
	loop_requeue(vq->loop, &vq->tx_kick);
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
 * poll timer) brings it back.  A self-driven pair's driver takes the
 * filled buffers and posts them again after each rx() (vq_ops.used()).
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
			/* frames filled before the error still reach the port */
			if (vq->self_driven)
				(void)vq->ops->used(vq, ENGINE_RX);
			vq_engine_broken(vq, ENGINE_RX, n);
			return -EIO;
		}
		if (vq->self_driven && vq->ops->used(vq, ENGINE_RX) < 0) {
			vq_self_broken(vq, ENGINE_RX);
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
			loop_del(vq->loop, &vq->rx);
			vq->rx_polled = false;
		}
		return 0;
	}
	if (!vq->rx_polled) {
		if (loop_add(vq->loop, &vq->rx, EPOLLIN) == 0)
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
		char f[160];

		if (vq->ops->mem_fault)
			vq->ops->mem_fault(vq, &gs.fault, why, sizeof(why));
		else	/* a self-driven pair: no guarded mapping is its own */
			snprintf(why, sizeof(why), "queue pair %u: %s", vq->qp,
				 guard_fault_str(&gs.fault, f, sizeof(f)));
		vq_broken(vq, why);
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
	if (vq_polled(vq) && vq->rx_kick.fd < 0)
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
	if (vq_polled(vq) && vq->tx_kick.fd < 0)
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
 * vq_kicked_check() - a ring in kick mode reported an error: say which
 * @vq: the pair
 *
 * One tx() and one rx() answer with the ring's error (EIO: broken; EPIPE:
 * the tap is gone); when both answer without one, the event still ends
 * the pair (EPOLLERR/EPOLLHUP do not go away by themselves).
 * Return: -EIO (the owner was told).
 */
static int vq_kicked_check(struct vq *vq)
{
	struct engine_budget budget;
	bool starved;
	char why[200];
	int n;

	engine_budget_init(&budget);
	n = vq->eng->tx(vq->eq, &budget);
	if (n < 0) {
		vq_engine_broken(vq, ENGINE_TX, n);
		return -EIO;
	}
	engine_budget_init(&budget);
	n = vq->eng->rx(vq->eq, &budget, &starved);
	if (n < 0) {
		vq_engine_broken(vq, ENGINE_RX, n);
		return -EIO;
	}
	snprintf(why, sizeof(why), "queue pair %u: a ring in kick mode reports an error or hang-up",
		 vq->qp);
	vq_broken(vq, why);
	return -EIO;
}

/**
 * vq_kicked_error() - a ring fd in kick mode reports EPOLLERR or EPOLLHUP
 * @loop: the loop
 * @ref: the pair's rx or tx_err
 * @events: epoll events
 */
static void vq_kicked_error(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct vq *vq = ref->type == LOOP_REF_QUEUE_RX ? container_of(ref, struct vq, rx) :
			container_of(ref, struct vq, tx_err);

	vq_guarded(vq, vq_kicked_check);
}

/**
 * vq_watch_kicked() - kick mode: watch the two ring fds for errors only
 * @vq: the pair (its engine queue in kick mode)
 * @err_fds: the tx and rx ring fds (engine_ops.kicked())
 *
 * Return: 0, or -1 with errno.
 */
static int vq_watch_kicked(struct vq *vq, const int err_fds[2])
{
	vq->kicked = true;
	loop_ref_init(&vq->tx_kick, LOOP_REF_PORT_AUX, -1, vq_tx_kick);
	loop_ref_init(&vq->rx_kick, LOOP_REF_PORT_AUX, -1, vq_rx_kick);
	loop_ref_init(&vq->tx_err, LOOP_REF_PORT_AUX, err_fds[ENGINE_TX], vq_kicked_error);
	loop_ref_init(&vq->rx, LOOP_REF_QUEUE_RX, err_fds[ENGINE_RX], vq_kicked_error);
	if (loop_add(vq->loop, &vq->tx_err, 0) < 0 || loop_add(vq->loop, &vq->rx, 0) < 0)
		return -1;
	return 0;
}

/**
 * struct vq_start_args - vq_start()'s work, for the pair's thread
 * @vq: the pair (zeroed, @port, @qp, @ops, @owner, @loop, @worker set)
 * @d: the rings
 * @err: message buffer
 * @errlen: its size
 * @ret: the result
 */
struct vq_start_args {
	struct vq *vq;
	const struct vq_desc *d;
	char *err;
	size_t errlen;
	int ret;
};

/**
 * vq_stop_here() - close the engine queue and forget the fds (the pair's thread)
 * @vq: the pair (running)
 * @tx: its tx counters, out
 * @rx: its rx counters, out
 * @last_avail: where the engine stopped in each avail ring, out (may be NULL)
 */
static void vq_stop_here(struct vq *vq, struct engine_stats *tx, struct engine_stats *rx,
			 uint16_t last_avail[2])
{
	vq_unwatch(vq);
	if (vq->poll_timer.fd >= 0)
		loop_timer_fini(vq->loop, &vq->poll_timer);
	vq->eng->get_stats(vq->eq, tx, rx);
	vq->eng->close(vq->eq, last_avail);
	vq->eq = NULL;
}

/**
 * vq_start_here() - open the engine queue and watch the kicks (the pair's thread)
 * @arg: struct vq_start_args
 */
static void vq_start_here(void *arg)
{
	struct vq_start_args *a = arg;
	struct vq *vq = a->vq;
	const struct vq_desc *d = a->d;
	struct engine_stats tx, rx;
	int err_fds[2];
	char why[256];

	vq->eq = vq->eng->open(&d->cfg, why, sizeof(why));
	if (!vq->eq) {
		snprintf(a->err, a->errlen, "queue pair %u: %s", vq->qp, why);
		a->ret = -EIO;
		return;
	}
	if (vq->eng->kicked && vq->eng->kicked(vq->eq, err_fds)) {
		a->ret = 0;
		if (vq_watch_kicked(vq, err_fds) < 0) {
			snprintf(a->err, a->errlen, "queue pair %u: epoll: %s", vq->qp, strerror(errno));
			vq_stop_here(vq, &tx, &rx, NULL);
			a->ret = -EIO;
		}
		return;
	}
	loop_ref_init(&vq->rx, LOOP_REF_QUEUE_RX, vq->eng->rx_fd(vq->eq), vq_rx_ready);
	if (vq->self_driven) {
		/* no kick: the rx fd is watched from the start (vq_push() sends) */
		loop_ref_init(&vq->tx_kick, LOOP_REF_PORT_AUX, -1, vq_tx_kick);
		loop_ref_init(&vq->rx_kick, LOOP_REF_PORT_AUX, -1, vq_rx_kick);
		a->ret = 0;
		if (loop_add(vq->loop, &vq->rx, EPOLLIN) == 0) {
			vq->rx_polled = true;
			return;
		}
		snprintf(a->err, a->errlen, "queue pair %u: epoll on the tap: %s", vq->qp,
			 strerror(errno));
		vq_stop_here(vq, &tx, &rx, NULL);
		a->ret = -EIO;
		return;
	}
	loop_ref_init(&vq->tx_kick, LOOP_REF_PORT_AUX, d->tx_kick_fd, vq_tx_kick);
	loop_ref_init(&vq->rx_kick, LOOP_REF_PORT_AUX, d->rx_kick_fd, vq_rx_kick);
	if ((vq->tx_kick.fd >= 0 && loop_add(vq->loop, &vq->tx_kick, EPOLLIN) < 0) ||
	    (vq->rx_kick.fd >= 0 && loop_add(vq->loop, &vq->rx_kick, EPOLLIN) < 0) ||
	    ((vq->tx_kick.fd < 0 || vq->rx_kick.fd < 0) &&
	     (loop_timer_init(vq->loop, &vq->poll_timer, vq_poll_tick) < 0 ||
	      loop_timer_set(&vq->poll_timer, VQ_POLL_NS, VQ_POLL_NS) < 0))) {
		snprintf(a->err, a->errlen, "queue pair %u: epoll: %s", vq->qp, strerror(errno));
		vq_stop_here(vq, &tx, &rx, NULL);
		a->ret = -EIO;
		return;
	}
	a->ret = 0;
}

/* the running pairs on workers, for vq_rebalance() (main thread only) */
static struct vq *vq_on_worker;
/* vq_rebalance_hold(): no moves (the daemon is tearing every port down) */
static bool vq_moves_held;

/**
 * vq_on_worker_add() - list a pair that now runs on a worker
 * @vq: the pair
 */
static void vq_on_worker_add(struct vq *vq)
{
	vq->on_worker_prev = NULL;
	vq->on_worker_next = vq_on_worker;
	if (vq_on_worker)
		vq_on_worker->on_worker_prev = vq;
	vq_on_worker = vq;
}

/**
 * vq_on_worker_del() - unlist a pair that left its worker
 * @vq: the pair
 */
static void vq_on_worker_del(struct vq *vq)
{
	if (vq->on_worker_prev)
		vq->on_worker_prev->on_worker_next = vq->on_worker_next;
	else
		vq_on_worker = vq->on_worker_next;
	if (vq->on_worker_next)
		vq->on_worker_next->on_worker_prev = vq->on_worker_prev;
	vq->on_worker_prev = NULL;
	vq->on_worker_next = NULL;
}

/**
 * vq_run() - run @fn(@arg) on the pair's thread
 * @vq: the pair
 * @fn: the work
 * @arg: its argument
 *
 * On a worker: worker_call() (the main thread waits until it ran).
 */
static void vq_run(struct vq *vq, worker_fn fn, void *arg)
{
	if (vq->worker)
		worker_call(vq->worker, fn, arg);
	else
		fn(arg);
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
 * The pair runs on a worker (worker_pick()) when there are workers and
 * @d does not ask for the main thread (nor is self-driven); the engine
 * queue is opened and the kicks watched on that worker's thread.  Nothing
 * is walked yet: call vq_kick() when the owner is ready for
 * vq_ops.broken().  A self-driven pair needs no vq_kick(): its rx fd is
 * watched at once, its tx ring sent by vq_push().
 * Return: 0, or -errno with @err filled (nothing is left open).
 */
int vq_start(struct vq *vq, struct port *p, unsigned int qp, const struct vq_desc *d,
	     const struct vq_ops *ops, void *owner, char *err, size_t errlen)
{
	struct vq_start_args a = { .vq = vq, .d = d, .err = err, .errlen = errlen };

	memset(vq, 0, sizeof(*vq));
	vq->port = p;
	vq->qp = qp;
	vq->ops = ops;
	vq->owner = owner;
	vq->poll_timer.fd = -1;
	vq->eng = d->eng ? d->eng : p->eng;
	vq->self_driven = d->self_driven;
	vq->tx_num = d->cfg.tx.num;
	vq->worker = d->main || d->self_driven ? NULL : worker_pick(p->cfg.workers);
	vq->loop = vq->worker ? worker_loop(vq->worker) : p->loop;
	vq_run(vq, vq_start_here, &a);
	if (a.ret < 0) {
		vq->worker = NULL;
		return a.ret;
	}
	if (vq->worker) {
		worker_hold(vq->worker);
		vq_on_worker_add(vq);
	}
	return 0;
}

/**
 * vq_kick_here() - walk both rings once (the pair's thread)
 * @arg: the pair
 */
static void vq_kick_here(void *arg)
{
	struct vq *vq = arg;

	if (vq_guarded(vq, vq_tx_walk) == 0)
		vq_guarded(vq, vq_rx_walk);
}

/**
 * vq_kick() - walk both rings once (work queued before the kicks were watched)
 * @vq: a running pair
 *
 * Return: 0, or -EIO when the pair broke on the main thread (the owner
 * was told); a pair on a worker that breaks tells its owner later, from
 * the main loop.
 */
int vq_kick(struct vq *vq)
{
	if (vq->kicked)
		return 0;	/* the module served what was queued at VRINGFD_SET_KICK */
	if (vq->worker) {
		worker_call(vq->worker, vq_kick_here, vq);
		return 0;
	}
	if (vq_guarded(vq, vq_tx_walk) < 0)
		return -EIO;
	return vq_guarded(vq, vq_rx_walk);
}

/**
 * vq_tx_drain() - send every chain the daemon's own driver posted (unguarded)
 * @vq: a self-driven pair
 *
 * One budget per tx() call, a fresh one while enable_notify() says chains
 * are left (the engine stopped at its weight): the driver bounded the
 * batch by a service budget of its own, and takes its buffers back as
 * soon as this returns (vq_ops.used(), the in-process call).  Each further
 * call consumes at least one chain: at most @vq->tx_num calls.
 * Return: chains consumed, or -EIO when the pair is broken (the owner was
 * told).
 */
static int vq_tx_drain(struct vq *vq)
{
	struct engine_budget budget;
	unsigned int rounds = 0;
	int n, sum = 0;

	do {
		engine_budget_init(&budget);
		n = vq->eng->tx(vq->eq, &budget);
		if (n < 0) {
			vq_engine_broken(vq, ENGINE_TX, n);
			return -EIO;
		}
		sum += n;
	} while (++rounds < vq->tx_num && vq->eng->enable_notify(vq->eq, ENGINE_TX));
	if (vq->ops->used(vq, ENGINE_TX) < 0) {
		vq_self_broken(vq, ENGINE_TX);
		return -EIO;
	}
	return sum;
}

/**
 * vq_push() - the in-process kick: send what a self-driven pair's driver posted
 * @vq: a running self-driven pair (on the main thread, the driver's)
 *
 * The driver published its tx ring's avail index first; when this returns
 * every chain is used (or the pair broke).  One tx() per batch, no system
 * call of its own.
 * Return: chains consumed, or -EIO when the pair broke (the owner was
 * told and may have freed it: touch nothing of it).
 */
int vq_push(struct vq *vq)
{
	return vq_guarded(vq, vq_tx_drain);
}

/**
 * struct vq_stats_args - counters read on the pair's thread
 * @vq: the pair
 * @tx: its tx counters
 * @rx: its rx counters
 */
struct vq_stats_args {
	const struct vq *vq;
	struct engine_stats *tx;
	struct engine_stats *rx;
};

/**
 * vq_get_stats_here() - read the engine's counters (the pair's thread)
 * @arg: struct vq_stats_args
 */
static void vq_get_stats_here(void *arg)
{
	struct vq_stats_args *a = arg;

	a->vq->eng->get_stats(a->vq->eq, a->tx, a->rx);
}

/**
 * vq_get_stats() - the engine's counters of a running pair
 * @vq: the pair
 * @tx: out (zeroed when not running)
 * @rx: out (zeroed when not running)
 *
 * The counters are written by the pair's thread only; on a worker they
 * are read there (worker_call()).
 */
void vq_get_stats(const struct vq *vq, struct engine_stats *tx, struct engine_stats *rx)
{
	struct vq_stats_args a = { .vq = vq, .tx = tx, .rx = rx };

	memset(tx, 0, sizeof(*tx));
	memset(rx, 0, sizeof(*rx));
	if (!vq->eq)
		return;
	if (vq->worker)
		worker_call(vq->worker, vq_get_stats_here, &a);
	else
		vq_get_stats_here(&a);
}

/**
 * struct vq_stop_args - vq_stop()'s work, for the pair's thread
 * @vq: the pair
 * @tx: its tx counters, out
 * @rx: its rx counters, out
 * @last_avail: where the engine stopped, out (may be NULL)
 */
struct vq_stop_args {
	struct vq *vq;
	struct engine_stats tx;
	struct engine_stats rx;
	uint16_t *last_avail;
};

/**
 * vq_stop_call() - vq_stop_here() as a worker_fn
 * @arg: struct vq_stop_args
 */
static void vq_stop_call(void *arg)
{
	struct vq_stop_args *a = arg;

	vq_stop_here(a->vq, &a->tx, &a->rx, a->last_avail);
}

/**
 * vq_stop() - close the engine queue and forget the fds
 * @vq: the pair (stopped already: nothing happens)
 * @tx_total: the pair's tx counters are added here (may be NULL)
 * @rx_total: same for rx
 * @last_avail: where the engine stopped in each avail ring, out (may be
 *	NULL; vhost-user GET_VRING_BASE)
 *
 * A pair on a worker is stopped there (worker_call()) and leaves it; a
 * break notice it left for the main thread is taken back.  The kick and
 * call fds stay open: they are the owner's.
 */
void vq_stop(struct vq *vq, struct engine_stats *tx_total, struct engine_stats *rx_total,
	     uint16_t last_avail[2])
{
	struct vq_stop_args a = { .vq = vq, .last_avail = last_avail };

	if (!vq->eq)
		return;
	vq_run(vq, vq_stop_call, &a);
	if (vq->worker) {
		worker_cancel(&vq->broken_node);
		worker_release(vq->worker);
		vq_on_worker_del(vq);
		vq->worker = NULL;
	}
	if (tx_total)
		port_stats_add(tx_total, &a.tx);
	if (rx_total)
		port_stats_add(rx_total, &a.rx);
}

/**
 * vq_thread_name() - which thread runs a pair, for the log
 * @vq: a running pair
 * @buf: out: "worker N" or "main thread"
 * @len: its size
 *
 * Return: @buf.
 */
const char *vq_thread_name(const struct vq *vq, char *buf, size_t len)
{
	if (vq->worker)
		snprintf(buf, len, "worker %u", worker_index(vq->worker));
	else
		snprintf(buf, len, "main thread");
	return buf;
}

/**
 * vq_worker_of() - which pump thread runs a queue pair of a port (main thread)
 * @p: the port
 * @qp: the pair's index
 *
 * Looks through the pairs on workers (vq_rebalance()'s list); a port with
 * several connections (ring-fd) names the first pair @qp found.
 *
 * Return: the worker's index, or -1 when no pair @qp of @p runs on a
 * worker (it runs on the main thread, or not at all).
 */
int vq_worker_of(const struct port *p, unsigned int qp)
{
	const struct vq *vq;

	for (vq = vq_on_worker; vq; vq = vq->on_worker_next)
		if (vq->port == p && vq->qp == qp)
			return (int)worker_index(vq->worker);
	return -1;
}

/**
 * struct vq_move_args - the fds a moving pair had in its old loop
 * @vq: the pair
 * @events: what each of tx_kick, rx_kick, rx, tx_err was watched for
 * @watched: which of them were in the loop
 * @polled: the poll timer ran
 */
struct vq_move_args {
	struct vq *vq;
	uint32_t events[4];
	bool watched[4];
	bool polled;
};

/**
 * vq_move_refs() - the pair's refs a move carries, in vq_move_args order
 * @vq: the pair
 * @refs: out
 */
static void vq_move_refs(struct vq *vq, struct loop_ref *refs[4])
{
	refs[0] = &vq->tx_kick;
	refs[1] = &vq->rx_kick;
	refs[2] = &vq->rx;
	refs[3] = &vq->tx_err;
}

/**
 * vq_move_out() - take the pair's fds out of its old worker's loop (that thread)
 * @arg: struct vq_move_args, filled
 *
 * The engine queue stays open: its positions, counters and the frames it
 * holds go with it.  A tx walk requeued for later is dropped here; the
 * new worker walks both rings once (vq_move_in()).
 */
static void vq_move_out(void *arg)
{
	struct vq_move_args *a = arg;
	struct vq *vq = a->vq;
	struct loop_ref *refs[4];
	unsigned int i;

	vq_move_refs(vq, refs);
	for (i = 0; i < 4; i++) {
		a->watched[i] = refs[i]->registered;
		a->events[i] = refs[i]->events;
		loop_del(vq->loop, refs[i]);
	}
	a->polled = vq->poll_timer.fd >= 0;
	if (a->polled)
		loop_timer_fini(vq->loop, &vq->poll_timer);
}

/**
 * vq_move_in() - watch the pair's fds in its new worker's loop (that thread)
 * @arg: struct vq_move_args from vq_move_out()
 *
 * Then both rings are walked once (not in kick mode: the module serves
 * them; nor when the pair broke, its owner being told), for what came
 * while no thread watched.  A failure breaks the pair
 * (its owner is told from the main loop).
 */
static void vq_move_in(void *arg)
{
	struct vq_move_args *a = arg;
	struct vq *vq = a->vq;
	struct loop_ref *refs[4];
	char why[128];
	unsigned int i;

	vq_move_refs(vq, refs);
	for (i = 0; i < 4; i++) {
		if (a->watched[i] && loop_add(vq->loop, refs[i], a->events[i]) < 0)
			goto fail;
	}
	if (a->polled && (loop_timer_init(vq->loop, &vq->poll_timer, vq_poll_tick) < 0 ||
			  loop_timer_set(&vq->poll_timer, VQ_POLL_NS, VQ_POLL_NS) < 0))
		goto fail;
	if (!vq->kicked && !vq->broken)
		vq_kick_here(vq);
	return;
fail:
	snprintf(why, sizeof(why), "moved to another worker: epoll: %s", strerror(errno));
	vq_broken(vq, why);
}

/**
 * vq_move() - run a pair on another worker from now on (main thread)
 * @vq: a running pair on a worker
 * @to: the worker it moves to
 *
 * Two worker_call()s: the old worker lets go of the pair's fds, the new
 * one watches them.  Between the two no thread touches the pair; a kick
 * that comes then stays in its eventfd (or the ring) for the new worker.
 */
static void vq_move(struct vq *vq, struct worker *to)
{
	struct vq_move_args a = { .vq = vq };
	struct worker *from = vq->worker;

	worker_call(from, vq_move_out, &a);
	worker_release(from);
	worker_hold(to);
	vq->worker = to;
	vq->loop = worker_loop(to);
	worker_call(to, vq_move_in, &a);
	log_rl(&vq->port->rl, LOG_INFO, "port %s: queue pair %u moved from worker %u to worker %u",
	       vq->port->cfg.name, vq->qp, worker_index(from), worker_index(to));
}

/**
 * vq_rebalance() - move pairs off workers their port no longer allows, and
 *		    even the workers' loads (main thread)
 *
 * A running pair whose worker its port's list ([port] workers, changed by
 * a reload) no longer names moves to the least loaded worker the list
 * allows, whatever the loads; these go first.  Then, while a running
 * pair's worker runs at least 2 pairs more than the least loaded worker
 * its port allows, the pair of the most loaded such worker moves there.
 * One pair at a time (vq_move()).  Pairs on the main thread (a
 * migration's source, self-driven pairs) are not on the list and never
 * move.  A pair moved off a worker lands on an allowed one and stays
 * allowed; each other move lowers the spread of the loads: the loop ends.
 */
void vq_rebalance(void)
{
	struct vq *vq, *best;
	struct worker *to, *best_to;
	bool evict, best_evict;

	while (!vq_moves_held) {
		best = NULL;
		best_to = NULL;
		best_evict = false;
		for (vq = vq_on_worker; vq && !best_evict; vq = vq->on_worker_next) {
			to = worker_move_target(vq->worker, vq->port->cfg.workers, &evict);
			if (!to || (!evict && best &&
				    worker_pairs(vq->worker) <= worker_pairs(best->worker)))
				continue;
			best = vq;
			best_to = to;
			best_evict = evict;
		}
		if (!best)
			return;
		vq_move(best, best_to);
	}
}

/**
 * vq_rebalance_hold() - stop or allow vq_rebalance()'s moves
 * @hold: true: vq_rebalance() does nothing from now on (the daemon stops
 *	every port: moving pairs that are about to stop is wasted work)
 */
void vq_rebalance_hold(bool hold)
{
	vq_moves_held = hold;
}
