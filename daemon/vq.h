/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vq.h - one running queue pair and its pump
 *
 * A port that gets rings from a front-end (vhost-user, ring-fd) describes
 * the pair (struct vq_desc: the engine's queue configuration plus the two
 * kick eventfds) and hands it to vq_start().  From then on the queue pair
 * object owns everything about the running pair: the engine queue, the
 * loop registrations of the kicks, of the engine's rx fd and of the poll
 * timer for rings without a kick fd, and whether the tap is polled.  The
 * pump:
 *
 *   tx kick readable   -> tx walk: eng tx(), then eng enable_notify(TX):
 *                         again while it says more arrived, until the
 *                         service's budget is spent, then requeued
 *                         (loop_requeue(): the loop calls it again after
 *                         the other ready fds)
 *   rx kick readable   -> rx walk: eng rx(); when starved (frames wait, no
 *   rx fd readable        buffer) eng enable_notify(RX): again if buffers
 *                         arrived, else stop polling the rx fd until the
 *                         next rx kick
 *   poll timer         -> both walks, for rings without a kick fd
 *
 * Fair shares: each walk is one service with one budget (engine.h:
 * ENGINE_WEIGHT_FRAMES frames, ENGINE_WEIGHT_BYTES bytes).  A walk that
 * spends it leaves its queue ready (the tx kick requeued in the loop, the
 * level-triggered rx fd still readable) and returns: the loop serves the
 * other ready fds first, so a guest that keeps its ring full delays another
 * guest's frame by at most about two budgets (the service in progress when
 * the other's kick came, and one more); with k guests flooding, about k + 1.
 * A kernel-engine rx queue may move up to two budgets a round: the module
 * also pulls frames when epoll polls its fd, which no budget here counts.
 *
 * Every walk runs inside a guard scope of the pair's owner (guard.h).  When
 * the engine gives up on a ring or front-end memory faults, the owner's
 * vq_ops.broken() is told with the reason; it closes the connection (which
 * may free the vq): the pump touches nothing after it.
 *
 * Kick mode (engine_ops.kicked(), the kernel engine's rings of memory with
 * VRINGFD_SET_KICK): the module serves both rings on the front-end's kicks
 * and the tap's frames; the pump watches neither kick nor rx fd, makes no
 * walk, and watches both ring fds for EPOLLERR/EPOLLHUP alone (events 0):
 * one such event is a broken ring or a deleted tap, reported with what
 * tx()/rx() answer then.  vq_stop() closes the engine queue, which leaves
 * kick mode before it reads the positions.
 *
 * The port never touches the front-end's rings: kick requests
 * (avail_event, VRING_USED_F_NO_NOTIFY) are the engine's.
 *
 * Self-driven pairs (vq_desc.self_driven): stream and dgram ports have no
 * front-end rings; the daemon is the driver of a ring pair of its own
 * (frame_rings.c) and the pair runs here like any other, so a frame from
 * any port type reaches the tap through this file and the engine.  Their
 * kick and call are direct calls, not eventfds: the driver and the pump
 * are the same thread (the main thread: such a pair is never given to a
 * worker), and an eventfd would add a write(), an epoll_wait() and a
 * read() to every batch for nothing.  So:
 *
 *   tx kick   -> vq_push(): the driver posted a batch (bounded by a budget
 *                of its own: one service of its socket); the pump sends
 *                all of it now, one budget per tx() as vq_tx_walk(), and
 *                returns, so the driver reuses its buffers at once
 *   rx call   -> vq_ops.used(), from inside the rx walk after each rx():
 *                the driver takes the filled buffers and posts them again
 *                (the walk then sees them, as after an rx kick)
 *
 * There is no kick fd and no poll timer; the engine's rx fd is watched
 * from vq_start() on, and the rx walk is the same as above (one budget
 * per service).
 *
 * Pump threads (worker.h): with [daemon] workers > 1, vq_start() gives the
 * pair to a worker (worker_pick(): the least loaded of those its port's
 * [port] workers allows) unless the caller
 * asks for the main thread (vq_desc.main: a migration's source, whose
 * dirty log the main thread remaps under it) or the pair is self-driven
 * (its driver, a stream or dgram socket, is served by the main loop).  From then on the pair's
 * state belongs to that worker's thread: vq_start(), vq_kick(),
 * vq_get_stats() and vq_stop() run their work there through
 * worker_call() (synchronous: they return when it is done), and the main
 * thread touches nothing of the pair in between.  A pair that breaks on a
 * worker leaves that worker's loop at once and tells its owner's
 * vq_ops.broken() on the main thread (worker_defer()); vq_stop() takes
 * back a notice not yet delivered.  vq_rebalance() (after a port, a
 * connection or a reload went away) moves a running pair between workers:
 * its old worker takes its fds out of its loop, the engine queue staying
 * open (positions, counters and frames in flight are the queue's), and
 * the new worker watches them and walks both rings once.  vq_ops.mem_fault() and
 * vq_ops.efault_where() run on the pair's thread, inside the walk: they
 * may read the owner's memory table (it changes only after the pairs are
 * stopped), nothing else.
 */
#ifndef VRINGNET_VQ_H
#define VRINGNET_VQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "guard.h"
#include "loop.h"
#include "worker.h"

struct port;
struct vq;

/**
 * struct vq_ops - what the owner of a queue pair is told
 * @broken: the pair cannot go on (@why says why); close the connection.
 *	May free the vq.  Called from inside the pump only.
 * @mem_fault: describe a fault in front-end memory (guard.h) for @broken
 * @efault_where: optional: the kernel engine reported EFAULT (it does not
 *	say where); describe which part of front-end memory is gone, or
 *	leave @buf empty
 * @used: self-driven pairs only (the in-process call): the engine filled
 *	rx buffers; take them and post them again.  Called on the pair's
 *	thread inside the rx walk, after each rx(); it must not stop or
 *	free the pair.  Returns 0, or -EIO when the driver's ring is broken
 *	(the pump then reports the pair broken)
 *
 * A self-driven pair's memory is the daemon's own (no guard mapping), so
 * its @mem_fault is never called and may be NULL.
 */
struct vq_ops {
	void (*broken)(struct vq *vq, const char *why);
	void (*mem_fault)(struct vq *vq, const struct guard_fault *f, char *buf,
			  size_t len);
	void (*efault_where)(struct vq *vq, char *buf, size_t len);
	int (*used)(struct vq *vq, enum engine_dir dir);
};

/**
 * struct vq_desc - a ring pair as a port describes it
 * @cfg: the engine's queue configuration (rings, memory, tap, call fds)
 * @tx_kick_fd: eventfd the driver kicks after posting tx chains; -1: the
 *	ring is polled every VQ_POLL_NS
 * @rx_kick_fd: same for rx buffers
 * @eng: the engine to run the pair on; NULL: the port's (a vhost-user
 *	guest that migrates runs on the user engine while it logs)
 * @main: run the pair on the main thread even when there are workers
 * @self_driven: the daemon drives the rings itself (see the top of this
 *	file): no kick fds (@tx_kick_fd and @rx_kick_fd are ignored), no poll
 *	timer, vq_push() and vq_ops.used() instead; runs on the main thread
 */
struct vq_desc {
	struct engine_queue_config cfg;
	const struct engine_ops *eng;
	bool main;
	bool self_driven;
	int tx_kick_fd;
	int rx_kick_fd;
};

/**
 * struct vq - one running queue pair
 * @port: its port (engine, loop, name)
 * @qp: its index, for messages
 * @ops: the owner's callbacks
 * @owner: the owner's data, also the guard owner of the memory
 * @eng: the engine the pair runs on
 * @eq: the engine queue, NULL when not running
 * @tx_kick: tx kick eventfd (fd -1 when polled)
 * @rx_kick: rx kick eventfd (fd -1 when polled)
 * @rx: the engine's rx fd (in kick mode: the rx ring fd, watched for errors)
 * @rx_polled: @rx is in the loop (not starved)
 * @self_driven: the daemon is the rings' driver (vq_desc.self_driven)
 * @tx_num: entries of the tx ring (vq_push()'s bound on tx() calls)
 * @kicked: the engine serves the pair on the front-end's kicks by itself
 *	(engine_ops.kicked(): kernel kick mode): no kick is watched, no walk
 *	made; @rx and @tx_err are watched for EPOLLERR/EPOLLHUP only
 * @tx_err: in kick mode: the tx ring fd, watched for errors
 * @poll_timer: walks the rings without a kick fd (fd -1 when none)
 * @loop: the loop it runs on (the port's, or its worker's)
 * @worker: its worker, NULL on the main thread
 * @broken_node: a break on the worker, queued for the main thread
 * @broken_why: its reason
 * @broken: it broke on its worker (the notice is on its way)
 * @on_worker_prev: the previous pair on a worker (vq_rebalance()'s list)
 * @on_worker_next: the next one
 */
struct vq {
	struct port *port;
	unsigned int qp;
	const struct vq_ops *ops;
	void *owner;
	const struct engine_ops *eng;
	struct engine_queue *eq;
	struct loop_ref tx_kick;
	struct loop_ref rx_kick;
	struct loop_ref rx;
	bool rx_polled;
	bool self_driven;
	unsigned int tx_num;
	bool kicked;
	struct loop_ref tx_err;
	struct loop_ref poll_timer;
	struct loop *loop;
	struct worker *worker;
	struct worker_deferred broken_node;
	char broken_why[400];
	bool broken;
	struct vq *on_worker_prev;
	struct vq *on_worker_next;
};

#define VQ_POLL_NS	1000000	/* walk period of a ring without a kick fd */

int vq_start(struct vq *vq, struct port *p, unsigned int qp, const struct vq_desc *d,
	     const struct vq_ops *ops, void *owner, char *err, size_t errlen);
int vq_kick(struct vq *vq);
int vq_push(struct vq *vq);
void vq_stop(struct vq *vq, struct engine_stats *tx_total, struct engine_stats *rx_total,
	     uint16_t last_avail[2]);
void vq_get_stats(const struct vq *vq, struct engine_stats *tx, struct engine_stats *rx);
const char *vq_thread_name(const struct vq *vq, char *buf, size_t len);
int vq_worker_of(const struct port *p, unsigned int qp);
void vq_rebalance(void);
void vq_rebalance_hold(bool hold);

/**
 * vq_running() - whether the pair has an engine queue
 * @vq: the pair
 *
 * Return: true while started and not stopped.
 */
static inline bool vq_running(const struct vq *vq)
{
	return vq->eq != NULL;
}

/**
 * vq_polled() - whether a ring of the pair has no kick fd
 * @vq: a running pair
 *
 * Return: true when the poll timer walks it.
 */
static inline bool vq_polled(const struct vq *vq)
{
	return vq->poll_timer.fd >= 0;
}

#endif /* VRINGNET_VQ_H */
