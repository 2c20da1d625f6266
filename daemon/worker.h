/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * worker.h - pump threads ([daemon] workers = N)
 *
 * With workers = 1 (the default) there is no pump thread: every queue pair
 * runs on the main thread's loop, as it always did.  With N > 1 the daemon
 * starts N pump threads, each with its own event loop (loop.c, without a
 * signalfd); the main thread keeps the control plane (configuration,
 * reload, control socket, vhost-user and ring-fd messages, hand-over) and
 * hands running queue pairs (vq.c) to the workers.
 *
 * The protocol between the main thread and a worker (control path only;
 * nothing here is on the per-frame path, which takes no lock):
 *
 *   main -> worker: worker_call(w, fn, arg) puts (fn, arg) in the worker's
 *	mailbox (under the mailbox mutex), signals the worker's mailbox
 *	eventfd and waits on a condition variable until the worker has run
 *	fn(arg) on its own thread, between two events of its loop.  One call
 *	at a time (only the main thread calls).  vq.c starts, kicks, stops
 *	and reads the counters of a queue pair this way, so the pair's state
 *	is touched by one thread at a time, and every hand-over (start,
 *	stop, GET_VRING_BASE, reset, disconnect, the dirty-log engine switch,
 *	an upgrade's pause and resume) is a stop on the worker followed by
 *	whatever the main thread does next.
 *
 *   worker -> main: worker_defer(w, node, fn, arg) queues a node (embedded
 *	in the caller's object: nothing is allocated) on the pool's list and
 *	signals the main loop's eventfd; the main thread runs fn(arg) from
 *	its loop.  A pair that breaks on a worker tells its owner this way.
 *	worker_cancel() takes a node back (the main thread, after the
 *	object's work on the worker is stopped, before freeing it).
 *
 * Placement: worker_pick() gives a starting pair the least loaded worker
 * among those its port allows ([port] workers); [daemon] worker-cpus pins
 * worker i to the i-th CPU listed (set when its thread is created, before
 * it runs).  When a port or a connection goes away, and after a reload,
 * vq_rebalance() moves running pairs, one at a time: first every pair off
 * a worker its port's list no longer names (a reload changed it), then
 * from a worker to the least loaded one its port allows while that one
 * runs at least 2 pairs fewer (worker_move_target()); a move is two
 * worker_call()s (vq.c).
 *
 * Threads, capabilities and seccomp: the workers are created by
 * worker_pool_start() after the capability drop (privs.c; capabilities
 * are per thread, and a thread starts with its creator's) and before the
 * seccomp filter, which sandbox.c installs with SECCOMP_FILTER_FLAG_TSYNC
 * so that it covers every thread.  Signals: the workers inherit the main
 * thread's mask (SIGHUP, SIGTERM and SIGINT blocked: the main thread's
 * signalfd takes them); SIGBUS/SIGSEGV from guest memory are delivered to
 * the thread that touched it, and guard.c's scope is per thread.  An
 * upgrade forks the successor only after every port paused (each pair
 * stopped on its worker): the workers then sit in epoll_wait() holding no
 * lock, which the child of fork() (one thread) relies on.
 */
#ifndef VRINGNET_WORKER_H
#define VRINGNET_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WORKER_MAX	64	/* workers = 1..WORKER_MAX, or auto */

struct loop;
struct worker;

/**
 * worker_fn - work run on another thread than the caller's
 * @arg: the caller's argument
 */
typedef void (*worker_fn)(void *arg);

/**
 * struct worker_deferred - one call queued from a worker to the main thread
 * @fn: what to run
 * @arg: its argument
 * @queued: on the pool's list
 * @next: the next one on it
 *
 * Embedded in the object it is about; zero it before first use.
 */
struct worker_deferred {
	worker_fn fn;
	void *arg;
	int queued;
	struct worker_deferred *next;
};

int worker_pool_start(unsigned int n, const unsigned int *cpus, struct loop *main_loop,
		      char *err, size_t errlen);
void worker_pool_stop(void);
unsigned int worker_pool_size(void);
struct worker *worker_pick(uint64_t allowed);
struct worker *worker_move_target(const struct worker *from, uint64_t allowed, bool *evict);
unsigned int worker_pairs(const struct worker *w);
void worker_hold(struct worker *w);
void worker_release(struct worker *w);
struct loop *worker_loop(struct worker *w);
unsigned int worker_index(const struct worker *w);
void worker_call(struct worker *w, worker_fn fn, void *arg);
void worker_defer(struct worker_deferred *node, worker_fn fn, void *arg);
void worker_cancel(struct worker_deferred *node);

#endif /* VRINGNET_WORKER_H */
