// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_daemon_loop.c - the event loop: dispatch, deletion inside a batch,
 * timers (periodic, missed periods, disarmed or deleted from their
 * handler), signals through the signalfd.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "check_daemon.h"
#include "unit/runner.h"
#include "loop.h"

/**
 * struct lt_obj - an object owning an eventfd
 * @ref: its loop ref
 * @calls: handler calls
 * @victim: another object to delete from the handler
 * @deleted: deleted by another object's handler
 * @keep_running: do not quit the loop from the handler
 */
struct lt_obj {
	struct loop_ref ref;
	int calls;
	struct lt_obj *victim;
	bool deleted;
	bool keep_running;
};

static int lt_after_delete;	/* handler calls of deleted refs */

static int lt_signo;

/**
 * lt_ready() - count, delete the victim if there is one, quit unless told
 *		to keep running
 * @loop: the loop
 * @ref: the ref
 * @events: unused
 */
static void lt_ready(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct lt_obj *o = container_of(ref, struct lt_obj, ref);

	o->calls++;
	if (o->deleted)
		lt_after_delete++;
	if (o->victim) {
		loop_del(loop, &o->victim->ref);
		o->victim->deleted = true;
		o->victim = NULL;
	}
	if (!o->keep_running)
		loop_quit(loop, 7);
}

/**
 * lt_signal() - remember the signal and quit
 * @loop: the loop
 * @signo: the signal
 * @opaque: unused
 */
static void lt_signal(struct loop *loop, int signo, void *opaque)
{
	lt_signo = signo;
	loop_quit(loop, 0);
}

/**
 * lt_obj_new() - an object with a readable eventfd
 *
 * Return: the object.
 */
static struct lt_obj *lt_obj_new(void)
{
	struct lt_obj *o = calloc(1, sizeof(*o));
	uint64_t one = 1;
	int fd = eventfd(0, EFD_NONBLOCK);

	ck_assert_ptr_nonnull(o);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, &one, sizeof(one)), (int)sizeof(one));
	loop_ref_init(&o->ref, LOOP_REF_PORT_AUX, fd, lt_ready);
	return o;
}

/**
 * lt_quit5() - one-shot timer: quit with 5
 * @loop: the loop
 * @ref: the timer
 * @events: unused
 */
static void lt_quit5(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	loop_timer_ack(ref);
	loop_quit(loop, 5);
}

START_TEST(test_loop_delete_in_batch)
{
	char err[256];
	struct loop *l = loop_new(lt_signal, NULL, err, sizeof(err));
	struct lt_obj *a, *b, *survivor, *victim;
	struct loop_ref guard;

	ck_assert_msg(l, "%s", err);
	a = lt_obj_new();
	b = lt_obj_new();
	/* Both readable from the start, so fetched by the same epoll_wait():
	 * each deletes the other; whichever runs first, the other never runs
	 * (the survivor runs again and again until the guard timer). */
	a->victim = b;
	b->victim = a;
	a->keep_running = b->keep_running = true;
	lt_after_delete = 0;
	ck_assert_int_eq(loop_add(l, &a->ref, EPOLLIN), 0);
	ck_assert_int_eq(loop_add(l, &b->ref, EPOLLIN), 0);
	ck_assert_int_eq(loop_timer_init(l, &guard, lt_quit5), 0);
	ck_assert_int_eq(loop_timer_set(&guard, 20000000ULL, 0), 0);
	ck_assert_int_eq(loop_run(l), 5);
	ck_assert_int_eq(lt_after_delete, 0);
	ck_assert_msg(a->deleted != b->deleted, "a deleted %d, b deleted %d", a->deleted,
		      b->deleted);
	survivor = a->deleted ? b : a;
	victim = a->deleted ? a : b;
	ck_assert_int_ge(survivor->calls, 1);
	ck_assert_int_eq(victim->calls, 0);
	ck_assert(!victim->ref.registered);
	loop_timer_fini(l, &guard);
	loop_del(l, &a->ref);
	loop_del(l, &b->ref);
	close(a->ref.fd);
	close(b->ref.fd);
	free(a);
	free(b);
	loop_free(l);
}
END_TEST

START_TEST(test_loop_silent_ref)
{
	char err[256];
	struct loop *l = loop_new(lt_signal, NULL, err, sizeof(err));
	struct lt_obj *a = lt_obj_new();
	struct loop_ref t;

	ck_assert_msg(l, "%s", err);
	ck_assert_int_eq(loop_add(l, &a->ref, EPOLLIN), 0);
	ck_assert_int_eq(loop_mod(l, &a->ref, 0), 0);	/* registered, silent */
	ck_assert_int_eq(loop_timer_init(l, &t, lt_quit5), 0);
	ck_assert_int_eq(loop_timer_set(&t, 20000000ULL, 0), 0);
	ck_assert_int_eq(loop_run(l), 5);
	ck_assert_int_eq(a->calls, 0);			/* readable but silent */
	loop_timer_fini(l, &t);
	loop_timer_fini(l, &t);				/* twice is harmless */
	loop_del(l, &a->ref);
	loop_del(l, &a->ref);				/* so is this */
	close(a->ref.fd);
	free(a);
	loop_free(l);
}
END_TEST

static int lt_timer_hits;

/**
 * lt_timer() - count expirations, quit after the third
 * @loop: the loop
 * @ref: the timer
 * @events: unused
 */
static void lt_timer(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	lt_timer_hits += (int)loop_timer_ack(ref);
	if (lt_timer_hits >= 3)
		loop_quit(loop, 3);
}

START_TEST(test_loop_timer_periodic)
{
	char err[256];
	struct loop *l = loop_new(lt_signal, NULL, err, sizeof(err));
	struct loop_ref t;

	ck_assert_msg(l, "%s", err);
	ck_assert_int_eq(loop_timer_init(l, &t, lt_timer), 0);
	ck_assert_int_eq(loop_timer_set(&t, 10000000ULL, 10000000ULL), 0);
	ck_assert_int_eq(loop_run(l), 3);
	ck_assert_int_ge(lt_timer_hits, 3);
	loop_timer_fini(l, &t);
	loop_free(l);
}
END_TEST

START_TEST(test_loop_signals)
{
	static const int sigs[] = { SIGHUP, SIGTERM, SIGINT };
	char err[256];
	unsigned int i;

	for (i = 0; i < 3; i++) {
		struct loop *l = loop_new(lt_signal, NULL, err, sizeof(err));

		ck_assert_msg(l, "%s", err);
		lt_signo = 0;
		ck_assert_int_eq(raise(sigs[i]), 0);	/* blocked: waits in the signalfd */
		ck_assert_int_eq(loop_run(l), 0);
		ck_assert_int_eq(lt_signo, sigs[i]);
		loop_free(l);
	}
	ck_assert(signal(SIGPIPE, SIG_DFL) == SIG_IGN);	/* loop_new() ignores SIGPIPE */
}
END_TEST

START_TEST(test_loop_add_twice)
{
	char err[256];
	struct loop *l = loop_new(lt_signal, NULL, err, sizeof(err));
	struct lt_obj *a = lt_obj_new();

	ck_assert_msg(l, "%s", err);
	ck_assert_int_eq(loop_add(l, &a->ref, EPOLLIN), 0);
	errno = 0;
	ck_assert_int_eq(loop_add(l, &a->ref, EPOLLIN), -1);
	ck_assert_int_eq(errno, EEXIST);
	ck_assert_int_eq(loop_run(l), 7);	/* still dispatched, once */
	ck_assert_int_eq(a->calls, 1);
	loop_del(l, &a->ref);
	close(a->ref.fd);
	free(a);
	loop_free(l);
}
END_TEST

static uint64_t lt_first_ack;

/**
 * lt_first() - remember the first expiry count and quit
 * @loop: the loop
 * @ref: the timer
 * @events: unused
 */
static void lt_first(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	lt_first_ack = loop_timer_ack(ref);
	loop_quit(loop, 4);
}

START_TEST(test_loop_timer_missed_periods)
{
	struct timespec pause = { 0, 75000000 };
	char err[256];
	struct loop *l = loop_new(lt_signal, NULL, err, sizeof(err));
	struct loop_ref t;

	ck_assert_msg(l, "%s", err);
	ck_assert_int_eq(loop_timer_init(l, &t, lt_first), 0);
	ck_assert_int_eq(loop_timer_set(&t, 10000000ULL, 10000000ULL), 0);
	/* the loop does not run for 75 ms: expiries at 10, 20, ... 70 ms */
	nanosleep(&pause, NULL);
	lt_first_ack = 0;
	ck_assert_int_eq(loop_run(l), 4);
	ck_assert_msg(lt_first_ack >= 7, "first ack %llu, 7 or more expected",
		      (unsigned long long)lt_first_ack);
	ck_assert_uint_eq(loop_timer_ack(&t), 0);	/* taken */
	loop_timer_fini(l, &t);
	ck_assert(!t.registered);
	loop_free(l);
}
END_TEST

/**
 * struct lt_tobj - a heap object owning a periodic timer
 * @t: the timer
 * @free_it: delete and free the object from the handler instead of disarming
 */
struct lt_tobj {
	struct loop_ref t;
	bool free_it;
};

static int lt_tcalls;

/**
 * lt_tonce() - periodic timer handler that stops its timer at the first call:
 *		disarms it, or deletes it and frees its object
 * @loop: the loop
 * @ref: the timer
 * @events: unused
 */
static void lt_tonce(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct lt_tobj *o = container_of(ref, struct lt_tobj, t);

	lt_tcalls++;
	if (o->free_it) {
		loop_timer_fini(loop, ref);
		free(o);
	} else {
		ck_assert_int_eq(loop_timer_set(ref, 0, 0), 0);
	}
}

static char lt_order[16];	/* who ran, in order: 'a' requeued, 'b' epoll */
static unsigned int lt_norder;
static struct loop_ref lt_ra, lt_rb, lt_rgone;

/**
 * lt_requeued() - handler of ref a: requeues itself twice, wakes b, then quits
 * @loop: the loop
 * @ref: lt_ra
 * @events: EPOLLIN the first time, 0 when requeued
 */
static void lt_requeued(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	uint64_t v = 1;

	ck_assert_uint_eq(events, lt_norder ? 0 : EPOLLIN);
	lt_order[lt_norder++] = 'a';
	if (events)
		ck_assert_int_eq(read(ref->fd, &v, 8), 8);
	if (lt_norder == 1)
		ck_assert_int_eq(write(lt_rb.fd, &v, 8), 8);	/* b is ready now */
	if (lt_norder < 4) {
		loop_requeue(loop, ref);
		loop_requeue(loop, ref);	/* once is enough */
		loop_requeue(loop, &lt_rgone);
		loop_del(loop, &lt_rgone);	/* taken off again: never called */
	} else {
		loop_quit(loop, 0);
	}
}

/**
 * lt_other() - handler of ref b: records its turn
 * @loop: the loop
 * @ref: lt_rb
 * @events: EPOLLIN
 */
static void lt_other(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	uint64_t v;

	ck_assert_int_eq(read(ref->fd, &v, 8), 8);
	lt_order[lt_norder++] = 'b';
}

/**
 * lt_never() - handler that must not run
 * @loop: the loop
 * @ref: the ref
 * @events: events
 */
static void lt_never(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	ck_abort_msg("a ref taken off the ready list was called");
}

START_TEST(test_loop_requeue_after_others)
{
	char err[256];
	struct loop *l = loop_new(lt_signal, NULL, err, sizeof(err));
	uint64_t v = 1;

	ck_assert_msg(l, "%s", err);
	loop_ref_init(&lt_ra, LOOP_REF_PORT_AUX, eventfd(0, EFD_NONBLOCK), lt_requeued);
	loop_ref_init(&lt_rb, LOOP_REF_PORT_AUX, eventfd(0, EFD_NONBLOCK), lt_other);
	loop_ref_init(&lt_rgone, LOOP_REF_PORT_AUX, -1, lt_never);
	ck_assert_int_eq(loop_add(l, &lt_ra, EPOLLIN), 0);
	ck_assert_int_eq(loop_add(l, &lt_rb, EPOLLIN), 0);
	ck_assert_int_eq(write(lt_ra.fd, &v, 8), 8);
	ck_assert_int_eq(loop_run(l), 0);
	/* a by epoll; b (ready meanwhile) before a's requeued call; a, a */
	ck_assert_str_eq(lt_order, "abaa");
	loop_del(l, &lt_ra);
	loop_del(l, &lt_rb);
	close(lt_ra.fd);
	close(lt_rb.fd);
	loop_free(l);
}
END_TEST

START_TEST(test_loop_timer_stopped_in_handler)
{
	char err[256];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct loop *l = loop_new(lt_signal, NULL, err, sizeof(err));
		struct lt_tobj *o = calloc(1, sizeof(*o));
		struct loop_ref guard;

		ck_assert_msg(l, "%s", err);
		ck_assert_ptr_nonnull(o);
		o->free_it = i == 1;
		lt_tcalls = 0;
		ck_assert_int_eq(loop_timer_init(l, &o->t, lt_tonce), 0);
		ck_assert_int_eq(loop_timer_set(&o->t, 5000000ULL, 5000000ULL), 0);
		ck_assert_int_eq(loop_timer_init(l, &guard, lt_quit5), 0);
		ck_assert_int_eq(loop_timer_set(&guard, 100000000ULL, 0), 0);
		ck_assert_int_eq(loop_run(l), 5);
		/* 20 periods passed: one call, then silence */
		ck_assert_int_eq(lt_tcalls, 1);
		loop_timer_fini(l, &guard);
		if (i == 0) {	/* not freed by its handler */
			loop_timer_fini(l, &o->t);
			free(o);
		}
		loop_free(l);
	}
}
END_TEST

/**
 * loop_suite() - the event loop
 *
 * Return: the suite.
 */
Suite *loop_suite(void)
{
	Suite *s = runner_suite_create("loop");

	RUNNER_ADD_TEST(s, test_loop_delete_in_batch);
	RUNNER_ADD_TEST(s, test_loop_requeue_after_others);
	RUNNER_ADD_TEST(s, test_loop_silent_ref);
	RUNNER_ADD_TEST(s, test_loop_timer_periodic);
	RUNNER_ADD_TEST(s, test_loop_signals);
	RUNNER_ADD_TEST(s, test_loop_add_twice);
	RUNNER_ADD_TEST(s, test_loop_timer_missed_periods);
	RUNNER_ADD_TEST(s, test_loop_timer_stopped_in_handler);
	return s;
}
