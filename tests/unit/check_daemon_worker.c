// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_daemon_worker.c - pump threads: workers = 1 starts none, a call
 * runs on the worker's thread and is done when worker_call() returns, a
 * deferred call runs once on the main loop unless cancelled, the least
 * loaded worker is picked, among those a port allows; worker-cpus pins
 * each thread to its CPU.
 */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check_daemon.h"
#include "unit/runner.h"
#include "loop.h"
#include "worker.h"

/**
 * struct wt_state - what a call saw
 * @tid: the thread it ran on
 * @runs: how often it ran
 * @node: its deferred node
 * @loop: the main loop (quit by the deferred call)
 */
struct wt_state {
	pid_t tid;
	int runs;
	struct worker_deferred node;
	struct loop *loop;
};

/**
 * wt_tid() - the calling thread's id
 *
 * Return: gettid().
 */
static pid_t wt_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/**
 * wt_record() - worker_fn: note the thread and count
 * @arg: struct wt_state
 */
static void wt_record(void *arg)
{
	struct wt_state *st = arg;

	st->tid = wt_tid();
	st->runs++;
}

/**
 * wt_on_main() - worker_defer() call: record, then quit the main loop
 * @arg: struct wt_state
 */
static void wt_on_main(void *arg)
{
	struct wt_state *st = arg;

	wt_record(st);
	loop_quit(st->loop, 3);
}

static struct wt_state *wt_defer_a, *wt_defer_b;

/**
 * wt_defer_two() - worker_fn: defer a twice (queued once) and b once
 * @arg: unused
 */
static void wt_defer_two(void *arg)
{
	(void)arg;
	worker_defer(&wt_defer_a->node, wt_on_main, wt_defer_a);
	worker_defer(&wt_defer_a->node, wt_on_main, wt_defer_a);
	worker_defer(&wt_defer_b->node, wt_on_main, wt_defer_b);
}

/**
 * wt_signal() - loop_signal_fn, unused
 * @loop: the loop
 * @signo: the signal
 * @opaque: unused
 */
static void wt_signal(struct loop *loop, int signo, void *opaque)
{
	(void)loop;
	(void)signo;
	(void)opaque;
}

/**
 * wt_quit9() - guard timer: the deferred call never came
 * @loop: the loop
 * @ref: the timer
 * @events: unused
 */
static void wt_quit9(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	(void)events;
	loop_timer_ack(ref);
	loop_quit(loop, 9);
}

START_TEST(test_worker_one_is_none)
{
	char err[256];
	struct loop *l = loop_new(wt_signal, NULL, err, sizeof(err));

	ck_assert_msg(l, "%s", err);
	ck_assert_int_eq(worker_pool_start(1, NULL, l, err, sizeof(err)), 0);
	ck_assert_uint_eq(worker_pool_size(), 0);
	ck_assert_ptr_null(worker_pick(0));
	worker_pool_stop();
	loop_free(l);
}
END_TEST

START_TEST(test_worker_call_on_its_thread)
{
	char err[256];
	struct loop *l = loop_new(wt_signal, NULL, err, sizeof(err));
	struct wt_state a = { 0 }, b = { 0 };
	struct worker *w0, *w1;

	ck_assert_msg(l, "%s", err);
	ck_assert_msg(worker_pool_start(2, NULL, l, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(worker_pool_size(), 2);
	w0 = worker_pick(0);
	worker_hold(w0);
	w1 = worker_pick(0);
	worker_hold(w1);
	ck_assert_ptr_ne(w0, w1);
	worker_call(w0, wt_record, &a);
	worker_call(w1, wt_record, &b);
	/* done when worker_call() returns, and not on this thread */
	ck_assert_int_eq(a.runs, 1);
	ck_assert_int_eq(b.runs, 1);
	ck_assert_int_ne(a.tid, wt_tid());
	ck_assert_int_ne(b.tid, wt_tid());
	ck_assert_int_ne(a.tid, b.tid);
	worker_call(w0, wt_record, &b);
	ck_assert_int_eq(b.tid, a.tid);
	worker_release(w0);
	worker_release(w1);
	worker_pool_stop();
	ck_assert_uint_eq(worker_pool_size(), 0);
	loop_free(l);
}
END_TEST

START_TEST(test_worker_pick_least_loaded)
{
	char err[256];
	struct loop *l = loop_new(wt_signal, NULL, err, sizeof(err));
	struct worker *w[4];

	ck_assert_msg(l, "%s", err);
	ck_assert_msg(worker_pool_start(2, NULL, l, err, sizeof(err)) == 0, "%s", err);
	w[0] = worker_pick(0);
	worker_hold(w[0]);
	w[1] = worker_pick(0);
	worker_hold(w[1]);
	ck_assert_ptr_ne(w[0], w[1]);
	/* w[0] loses its pair: the next one goes there */
	worker_release(w[0]);
	w[2] = worker_pick(0);
	ck_assert_ptr_eq(w[2], w[0]);
	worker_hold(w[2]);
	w[3] = worker_pick(0);
	worker_hold(w[3]);
	ck_assert_uint_eq(worker_index(w[0]) + worker_index(w[1]), 1);
	worker_release(w[1]);
	worker_release(w[2]);
	worker_release(w[3]);
	worker_pool_stop();
	loop_free(l);
}
END_TEST

START_TEST(test_worker_pick_allowed)
{
	char err[256];
	struct loop *l = loop_new(wt_signal, NULL, err, sizeof(err));
	struct worker *w[3];
	unsigned int i;

	ck_assert_msg(l, "%s", err);
	ck_assert_msg(worker_pool_start(2, NULL, l, err, sizeof(err)) == 0, "%s", err);
	/* every pair of a port pinned to worker 1 goes there, however loaded */
	for (i = 0; i < 3; i++) {
		w[i] = worker_pick(UINT64_C(1) << 1);
		ck_assert_uint_eq(worker_index(w[i]), 1);
		worker_hold(w[i]);
	}
	ck_assert_uint_eq(worker_index(worker_pick(UINT64_C(1) << 0)), 0);
	/* a set of which no worker runs (worker 5 of 2) allows any: the least loaded */
	ck_assert_uint_eq(worker_index(worker_pick(UINT64_C(1) << 5)), 0);
	ck_assert_uint_eq(worker_index(worker_pick(0)), 0);
	for (i = 0; i < 3; i++)
		worker_release(w[i]);
	worker_pool_stop();
	loop_free(l);
}
END_TEST

START_TEST(test_worker_move_target)
{
	char err[256];
	struct loop *l = loop_new(wt_signal, NULL, err, sizeof(err));
	struct worker *w0, *w1;
	bool evict;

	ck_assert_msg(l, "%s", err);
	ck_assert_msg(worker_pool_start(2, NULL, l, err, sizeof(err)) == 0, "%s", err);
	w0 = worker_pick(UINT64_C(1) << 0);
	w1 = worker_pick(UINT64_C(1) << 1);
	/* 1 + 0: a move would only swap the loads */
	worker_hold(w0);
	ck_assert_ptr_null(worker_move_target(w0, 0, &evict));
	/* 2 + 0: a pair of worker 0 moves to worker 1 */
	worker_hold(w0);
	ck_assert_ptr_eq(worker_move_target(w0, 0, &evict), w1);
	ck_assert(!evict);
	ck_assert_uint_eq(worker_pairs(w0), 2);
	/* unless its port allows worker 0 only */
	ck_assert_ptr_null(worker_move_target(w0, UINT64_C(1) << 0, &evict));
	/* 2 + 1: balanced enough; the less loaded one never gives */
	worker_hold(w1);
	ck_assert_ptr_null(worker_move_target(w0, 0, &evict));
	ck_assert_ptr_null(worker_move_target(w1, 0, &evict));
	ck_assert(!evict);
	/* a list that no longer names the pair's worker: it moves to the
	 * one the list names, whatever the loads (2 + 1 here) */
	ck_assert_ptr_eq(worker_move_target(w0, UINT64_C(1) << 1, &evict), w1);
	ck_assert(evict);
	/* the same the other way round: worker 1's pair goes to worker 0 */
	ck_assert_ptr_eq(worker_move_target(w1, UINT64_C(1) << 0, &evict), w0);
	ck_assert(evict);
	/* a list naming no running worker allows all: nothing to leave */
	ck_assert_ptr_null(worker_move_target(w1, UINT64_C(1) << 5, &evict));
	ck_assert(!evict);
	worker_release(w0);
	worker_release(w0);
	worker_release(w1);
	worker_pool_stop();
	loop_free(l);
}
END_TEST

/**
 * wt_affinity() - worker_call() function: the CPUs the calling thread may run on
 * @arg: a cpu_set_t
 */
static void wt_affinity(void *arg)
{
	pthread_getaffinity_np(pthread_self(), sizeof(cpu_set_t), arg);
}

START_TEST(test_worker_pinned)
{
	char err[256];
	struct loop *l = loop_new(wt_signal, NULL, err, sizeof(err));
	unsigned int cpus[2], n = 0, i;
	cpu_set_t set;
	int c;

	ck_assert_msg(l, "%s", err);
	ck_assert_int_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	/* the last two CPUs this process may use, in reverse order */
	for (c = CPU_SETSIZE - 1; c >= 0 && n < 2; c--)
		if (CPU_ISSET(c, &set))
			cpus[n++] = (unsigned int)c;
	if (n < 2) {
		loop_free(l);
		runner_skip("fewer than 2 CPUs allowed to this process");
		return;
	}
	ck_assert_msg(worker_pool_start(2, cpus, l, err, sizeof(err)) == 0, "%s", err);
	for (i = 0; i < 2; i++) {
		struct worker *w = worker_pick(UINT64_C(1) << i);

		CPU_ZERO(&set);
		worker_call(w, wt_affinity, &set);
		ck_assert_int_eq(CPU_COUNT(&set), 1);
		ck_assert_msg(CPU_ISSET(cpus[i], &set), "worker %u not on CPU %u", i, cpus[i]);
	}
	worker_pool_stop();
	loop_free(l);
}
END_TEST

START_TEST(test_worker_defer_and_cancel)
{
	char err[256];
	struct loop *l = loop_new(wt_signal, NULL, err, sizeof(err));
	struct wt_state a = { 0 }, b = { 0 };
	struct loop_ref guard;
	struct worker *w;

	ck_assert_msg(l, "%s", err);
	ck_assert_msg(worker_pool_start(2, NULL, l, err, sizeof(err)) == 0, "%s", err);
	a.loop = b.loop = l;
	wt_defer_a = &a;
	wt_defer_b = &b;
	w = worker_pick(0);
	worker_call(w, wt_defer_two, NULL);
	/* b is taken back before the main loop runs: only a runs, once */
	worker_cancel(&b.node);
	ck_assert_int_eq(loop_timer_init(l, &guard, wt_quit9), 0);
	ck_assert_int_eq(loop_timer_set(&guard, 2000000000ULL, 0), 0);
	ck_assert_int_eq(loop_run(l), 3);
	ck_assert_int_eq(a.runs, 1);
	ck_assert_int_eq(a.tid, wt_tid());
	ck_assert_int_eq(b.runs, 0);
	ck_assert_int_eq(a.node.queued, 0);
	ck_assert_int_eq(b.node.queued, 0);
	loop_timer_fini(l, &guard);
	worker_pool_stop();
	loop_free(l);
}
END_TEST

/**
 * worker_suite() - the pump threads' suite
 *
 * Return: the suite.
 */
Suite *worker_suite(void)
{
	Suite *s = runner_suite_create("worker");

	RUNNER_ADD_TEST(s, test_worker_one_is_none);
	RUNNER_ADD_TEST(s, test_worker_call_on_its_thread);
	RUNNER_ADD_TEST(s, test_worker_pick_least_loaded);
	RUNNER_ADD_TEST(s, test_worker_pick_allowed);
	RUNNER_ADD_TEST(s, test_worker_move_target);
	RUNNER_ADD_TEST(s, test_worker_pinned);
	RUNNER_ADD_TEST(s, test_worker_defer_and_cancel);
	return s;
}
