// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_daemon_loop.c - the event loop: dispatch, deletion inside a batch,
 * timers, signals through the signalfd.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "check_daemon.h"
#include "unit/runner.h"
#include "loop.h"

/**
 * struct lt_obj - an object owning an eventfd
 * @ref: its loop ref
 * @calls: handler calls
 * @victim: another object to delete and free from the handler
 */
struct lt_obj {
	struct loop_ref ref;
	int calls;
	struct lt_obj *victim;
};

static int lt_signo;

/**
 * lt_ready() - count, quit, and delete the victim if there is one
 * @loop: the loop
 * @ref: the ref
 * @events: unused
 */
static void lt_ready(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct lt_obj *o = container_of(ref, struct lt_obj, ref);

	o->calls++;
	if (o->victim) {
		loop_del(loop, &o->victim->ref);
		close(o->victim->ref.fd);
		free(o->victim);
		o->victim = NULL;
	}
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

START_TEST(test_loop_delete_in_batch)
{
	char err[256];
	struct loop *l = loop_new(lt_signal, NULL, err, sizeof(err));
	struct lt_obj *a, *b;

	ck_assert_msg(l, "%s", err);
	a = lt_obj_new();
	b = lt_obj_new();
	/* each deletes the other: whichever runs first, the other never runs */
	a->victim = b;
	b->victim = a;
	ck_assert_int_eq(loop_add(l, &a->ref, EPOLLIN), 0);
	ck_assert_int_eq(loop_add(l, &b->ref, EPOLLIN), 0);
	ck_assert_int_eq(loop_run(l), 7);
	/* exactly one survived, called once; the freed one was never dispatched */
	if (a->victim == NULL && b->victim == NULL)
		ck_abort_msg("both handlers ran: a freed ref was dispatched");
	if (!a->victim) {
		ck_assert_int_eq(a->calls, 1);
		loop_del(l, &a->ref);
		close(a->ref.fd);
		free(a);
	} else {
		ck_assert_int_eq(b->calls, 1);
		loop_del(l, &b->ref);
		close(b->ref.fd);
		free(b);
	}
	loop_free(l);
}
END_TEST

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

/**
 * loop_suite() - the event loop
 *
 * Return: the suite.
 */
Suite *loop_suite(void)
{
	Suite *s = runner_suite_create("loop");

	RUNNER_ADD_TEST(s, test_loop_delete_in_batch);
	RUNNER_ADD_TEST(s, test_loop_silent_ref);
	RUNNER_ADD_TEST(s, test_loop_timer_periodic);
	RUNNER_ADD_TEST(s, test_loop_signals);
	return s;
}
