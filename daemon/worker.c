// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * worker.c - pump threads and their mailboxes (see worker.h)
 *
 * The pool is the daemon's (one per process, like guard.c's table): it is
 * made once at start and lives until the daemon stops; workers = N is read
 * at start only.  Everything here but the two mailboxes is touched by the
 * main thread alone.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "evfd.h"
#include "log.h"
#include "loop.h"
#include "worker.h"

/**
 * struct worker - one pump thread
 * @index: its number (0..), for messages and thread names
 * @thread: the thread
 * @loop: its event loop
 * @mbox: its mailbox eventfd's ref (in @loop)
 * @lock: protects @fn, @arg and @done
 * @cond: signalled when @done is set
 * @fn: the call posted, NULL when none
 * @arg: its argument
 * @done: the worker ran the posted call
 * @pairs: queue pairs it runs (worker_hold()); main thread only
 */
struct worker {
	unsigned int index;
	pthread_t thread;
	struct loop *loop;
	struct loop_ref mbox;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	worker_fn fn;
	void *arg;
	int done;
	unsigned int pairs;
};

/**
 * struct worker_pool - the daemon's pump threads
 * @w: the workers
 * @n: how many run
 * @next: where the next tie in worker_pick() starts
 * @main_loop: the main thread's loop
 * @main_ref: the eventfd the workers signal the main thread with
 * @lock: protects @deferred and the nodes' @queued and @next
 * @deferred: calls queued for the main thread, oldest first
 */
struct worker_pool {
	struct worker *w[WORKER_MAX];
	unsigned int n;
	unsigned int next;
	struct loop *main_loop;
	struct loop_ref main_ref;
	pthread_mutex_t lock;
	struct worker_deferred *deferred;
};

static struct worker_pool worker_pool = {
	.main_ref = { .fd = -1 },
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

/**
 * worker_mbox_ready() - the main thread posted a call: run it, then ack
 * @loop: the worker's loop
 * @ref: its mailbox ref
 * @events: unused
 */
static void worker_mbox_ready(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct worker *w = container_of(ref, struct worker, mbox);
	worker_fn fn;
	void *arg;

	(void)loop;
	(void)events;
	evfd_consume(ref->fd);
	pthread_mutex_lock(&w->lock);
	fn = w->fn;
	arg = w->arg;
	pthread_mutex_unlock(&w->lock);
	if (!fn)
		return;
	fn(arg);
	pthread_mutex_lock(&w->lock);
	w->fn = NULL;
	w->done = 1;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

/**
 * worker_main() - a pump thread: its loop until worker_pool_stop()
 * @arg: the worker
 *
 * Return: NULL.
 */
static void *worker_main(void *arg)
{
	struct worker *w = arg;

	loop_run(w->loop);
	return NULL;
}

/**
 * worker_main_ready() - workers queued calls for the main thread: run them
 * @loop: the main loop
 * @ref: the pool's main_ref
 * @events: unused
 *
 * Each node is taken off the list before its call, which may cancel
 * others (worker_cancel()) or free the object the node is in.
 */
static void worker_main_ready(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct worker_pool *pool = &worker_pool;

	(void)loop;
	(void)events;
	evfd_consume(ref->fd);
	for (;;) {
		struct worker_deferred *node;
		worker_fn fn;
		void *arg;

		pthread_mutex_lock(&pool->lock);
		node = pool->deferred;
		if (node) {
			pool->deferred = node->next;
			node->next = NULL;
			node->queued = 0;
			fn = node->fn;
			arg = node->arg;
		}
		pthread_mutex_unlock(&pool->lock);
		if (!node)
			break;
		fn(arg);
	}
}

/**
 * worker_free() - end one worker's resources (its thread has ended or never ran)
 * @w: the worker, or NULL
 */
static void worker_free(struct worker *w)
{
	if (!w)
		return;
	if (w->loop)
		loop_del(w->loop, &w->mbox);
	if (w->mbox.fd >= 0)
		close(w->mbox.fd);
	loop_free(w->loop);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

/**
 * worker_thread_start() - start a worker's thread, pinned to a CPU if asked
 * @w: the worker (its loop and mailbox ready)
 * @cpu: the CPU, or -1 for none
 *
 * With a CPU the affinity is part of the thread's attributes: the C
 * library sets it (sched_setaffinity()) before the thread runs.
 * Return: 0, or a positive error number (pthread_create()'s).
 */
static int worker_thread_start(struct worker *w, int cpu)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int ret;

	if (cpu < 0)
		return pthread_create(&w->thread, NULL, worker_main, w);
	ret = pthread_attr_init(&attr);
	if (ret)
		return ret;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ret = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	if (!ret)
		ret = pthread_create(&w->thread, &attr, worker_main, w);
	pthread_attr_destroy(&attr);
	return ret;
}

/**
 * worker_new() - make one worker and start its thread
 * @index: its number
 * @cpu: the CPU to pin it to, or -1 for none
 * @err: message buffer
 * @errlen: its size
 *
 * Return: the worker, or NULL with @err filled.
 */
static struct worker *worker_new(unsigned int index, int cpu, char *err, size_t errlen)
{
	struct worker *w = calloc(1, sizeof(*w));
	char name[16];
	int ret;

	if (!w) {
		snprintf(err, errlen, "worker %u: %s", index, strerror(ENOMEM));
		return NULL;
	}
	w->index = index;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	loop_ref_init(&w->mbox, LOOP_REF_WORKER,
		      eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC), worker_mbox_ready);
	w->loop = loop_new(NULL, NULL, err, errlen);
	if (w->mbox.fd < 0 || !w->loop || loop_add(w->loop, &w->mbox, EPOLLIN) < 0) {
		if (w->loop)
			log_buf_errno(err, errlen, errno, "worker %u: its mailbox eventfd", index);
		worker_free(w);
		return NULL;
	}
	ret = worker_thread_start(w, cpu);
	if (ret && cpu >= 0) {
		log_buf_errno(err, errlen, ret, "worker %u: pthread_create on CPU %d", index, cpu);
		worker_free(w);
		return NULL;
	}
	if (ret) {
		log_buf_errno(err, errlen, ret, "worker %u: pthread_create", index);
		worker_free(w);
		return NULL;
	}
	snprintf(name, sizeof(name), "vringnetd-w%u", index);
	pthread_setname_np(w->thread, name);
	return w;
}

/**
 * worker_quit() - worker_call() function: end the worker's loop
 * @arg: the worker
 */
static void worker_quit(void *arg)
{
	struct worker *w = arg;

	loop_quit(w->loop, 0);
}

/**
 * worker_pool_start() - start the pump threads
 * @n: how many; 1 (or 0) starts none: everything stays on the main thread
 * @cpus: the CPU of each ([daemon] worker-cpus: worker i on @cpus[i]), or
 *	NULL to leave them unpinned
 * @main_loop: the main thread's loop (worker_defer() calls run there)
 * @err: message buffer
 * @errlen: its size
 *
 * Call after the capability drop and before the seccomp filter (worker.h).
 * Return: 0, or -1 with @err filled (no worker left running).
 */
int worker_pool_start(unsigned int n, const unsigned int *cpus, struct loop *main_loop,
		      char *err, size_t errlen)
{
	struct worker_pool *pool = &worker_pool;
	unsigned int i;

	if (n <= 1)
		return 0;
	if (n > WORKER_MAX)
		n = WORKER_MAX;
	pool->main_loop = main_loop;
	loop_ref_init(&pool->main_ref, LOOP_REF_WORKER,
		      eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC), worker_main_ready);
	if (pool->main_ref.fd < 0 || loop_add(main_loop, &pool->main_ref, EPOLLIN) < 0) {
		log_buf_errno(err, errlen, errno, "workers: the main thread's eventfd");
		worker_pool_stop();
		return -1;
	}
	for (i = 0; i < n; i++) {
		pool->w[i] = worker_new(i, cpus ? (int)cpus[i] : -1, err, errlen);
		if (!pool->w[i]) {
			worker_pool_stop();
			return -1;
		}
		pool->n = i + 1;
	}
	log_info("workers: %u pump threads%s", n, cpus ? ", each pinned to its CPU of worker-cpus" : "");
	return 0;
}

/**
 * worker_pool_stop() - end the pump threads (their pairs stopped before)
 */
void worker_pool_stop(void)
{
	struct worker_pool *pool = &worker_pool;
	unsigned int i;

	for (i = 0; i < pool->n; i++) {
		worker_call(pool->w[i], worker_quit, pool->w[i]);
		pthread_join(pool->w[i]->thread, NULL);
		worker_free(pool->w[i]);
		pool->w[i] = NULL;
	}
	pool->n = 0;
	if (pool->main_ref.fd >= 0) {
		loop_del(pool->main_loop, &pool->main_ref);
		close(pool->main_ref.fd);
		pool->main_ref.fd = -1;
	}
	pool->deferred = NULL;
}

/**
 * worker_pool_size() - how many pump threads run
 *
 * Return: 0 when everything runs on the main thread.
 */
unsigned int worker_pool_size(void)
{
	return worker_pool.n;
}

/**
 * worker_allows() - whether a port's workers list lets its pairs run on @w
 * @allowed: bit i = worker i; 0, or a set of which none runs, allows all
 * @w: a running worker
 *
 * Return: true when @w may run them.
 */
static bool worker_allows(uint64_t allowed, const struct worker *w)
{
	const struct worker_pool *pool = &worker_pool;

	if (pool->n < WORKER_MAX && !(allowed & ((UINT64_C(1) << pool->n) - 1)))
		allowed = 0;
	return !allowed || (allowed & (UINT64_C(1) << w->index));
}

/**
 * worker_least() - the least loaded worker among those allowed
 * @allowed: bit i = worker i; 0, or a set of which none runs, allows all
 * @start: where ties start (the first of equals from there wins)
 *
 * Return: the worker, or NULL when there is no pool.
 */
static struct worker *worker_least(uint64_t allowed, unsigned int start)
{
	struct worker_pool *pool = &worker_pool;
	struct worker *best = NULL;
	unsigned int i;

	for (i = 0; i < pool->n; i++) {
		struct worker *w = pool->w[(start + i) % pool->n];

		if (!worker_allows(allowed, w))
			continue;
		if (!best || w->pairs < best->pairs)
			best = w;
	}
	return best;
}

/**
 * worker_pick() - the worker a queue pair starting now should run on
 * @allowed: the workers its port allows ([port] workers: bit i = worker
 *	i); 0, or a set of which none runs, allows every worker
 *
 * The allowed one with the fewest pairs; among equals, the one after the
 * last pick (round robin), so the pairs of a guest, started one after the
 * other, land on different workers while the loads are even.
 * Return: the worker, or NULL when there is no pool (the main thread).
 */
struct worker *worker_pick(uint64_t allowed)
{
	struct worker_pool *pool = &worker_pool;
	struct worker *best = worker_least(allowed, pool->next);

	if (best)
		pool->next = (best->index + 1) % pool->n;
	return best;
}

/**
 * worker_move_target() - where a running pair should move: off a worker
 *			  its port no longer allows, or to even the load
 * @from: the worker it runs on
 * @allowed: the workers its port allows (as worker_pick())
 * @evict: out: true when @from is not among them (a reload changed the
 *	port's list): the pair must move whatever the loads
 *
 * Return: the least loaded allowed worker when @from is not allowed, or
 * when it runs at least 2 pairs fewer than @from (a move then makes the
 * loads closer); else NULL.
 */
struct worker *worker_move_target(const struct worker *from, uint64_t allowed, bool *evict)
{
	struct worker *to = worker_least(allowed, 0);

	*evict = !worker_allows(allowed, from);
	if (!to || to == from || (!*evict && from->pairs < to->pairs + 2))
		return NULL;
	return to;
}

/**
 * worker_pairs() - how many queue pairs a worker runs
 * @w: the worker
 *
 * Return: the count (worker_hold() minus worker_release()).
 */
unsigned int worker_pairs(const struct worker *w)
{
	return w->pairs;
}

/**
 * worker_hold() - count a queue pair a worker now runs
 * @w: the worker
 */
void worker_hold(struct worker *w)
{
	w->pairs++;
}

/**
 * worker_release() - a queue pair left the worker
 * @w: the worker
 */
void worker_release(struct worker *w)
{
	w->pairs--;
}

/**
 * worker_loop() - a worker's event loop
 * @w: the worker
 *
 * Return: the loop (register its refs from the worker's thread only:
 * inside a worker_call() function).
 */
struct loop *worker_loop(struct worker *w)
{
	return w->loop;
}

/**
 * worker_index() - a worker's number
 * @w: the worker
 *
 * Return: 0..N-1.
 */
unsigned int worker_index(const struct worker *w)
{
	return w->index;
}

/**
 * worker_call() - run @fn(@arg) on a worker's thread and wait until it ran
 * @w: the worker
 * @fn: the call
 * @arg: its argument
 *
 * Main thread only.  @fn must not wait for the main thread.  The mutex
 * orders everything the main thread wrote before the call before @fn, and
 * everything @fn wrote before the return.
 */
void worker_call(struct worker *w, worker_fn fn, void *arg)
{
	pthread_mutex_lock(&w->lock);
	w->fn = fn;
	w->arg = arg;
	w->done = 0;
	pthread_mutex_unlock(&w->lock);
	evfd_signal(w->mbox.fd);
	pthread_mutex_lock(&w->lock);
	while (!w->done)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

/**
 * worker_defer() - from a worker: have the main thread run @fn(@arg)
 * @node: the caller's node (already queued: nothing happens)
 * @fn: the call
 * @arg: its argument
 */
void worker_defer(struct worker_deferred *node, worker_fn fn, void *arg)
{
	struct worker_pool *pool = &worker_pool;
	struct worker_deferred **pp;

	pthread_mutex_lock(&pool->lock);
	if (!node->queued) {
		node->fn = fn;
		node->arg = arg;
		node->next = NULL;
		node->queued = 1;
		for (pp = &pool->deferred; *pp; pp = &(*pp)->next)
			;
		*pp = node;
	}
	pthread_mutex_unlock(&pool->lock);
	evfd_signal(pool->main_ref.fd);
}

/**
 * worker_cancel() - from the main thread: forget a call not run yet
 * @node: the node (not queued: nothing happens)
 */
void worker_cancel(struct worker_deferred *node)
{
	struct worker_pool *pool = &worker_pool;
	struct worker_deferred **pp;

	pthread_mutex_lock(&pool->lock);
	for (pp = &pool->deferred; node->queued && *pp; pp = &(*pp)->next) {
		if (*pp != node)
			continue;
		*pp = node->next;
		break;
	}
	node->queued = 0;
	node->next = NULL;
	pthread_mutex_unlock(&pool->lock);
}
