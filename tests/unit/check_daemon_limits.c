// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_daemon_limits.c - the bounds on clients: log_ratelimit() (a burst,
 * then a "N messages suppressed" line) and deadline.c (fires once, is not
 * pushed back by re-arming, does not fire once stopped).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_daemon.h"
#include "unit/runner.h"
#include "deadline.h"
#include "log.h"
#include "loop.h"

/**
 * lim_capture() - send stderr to a fresh temporary file
 * @saved: out: the old stderr
 *
 * Return: the file's fd (read it back with lim_read()).
 */
static int lim_capture(int *saved)
{
	char path[] = "/tmp/check_limits.XXXXXX";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	*saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	return fd;
}

/**
 * lim_read() - restore stderr and read what was captured
 * @fd: lim_capture()'s file
 * @saved: the old stderr
 * @buf: out
 * @len: its size
 */
static void lim_read(int fd, int saved, char *buf, size_t len)
{
	ssize_t n;

	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, buf, len - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
}

START_TEST(test_log_ratelimit_burst_then_suppressed)
{
	struct log_ratelimit rl;
	char out[4096];
	int i, allowed = 0, fd, saved;

	log_init("t");
	log_ratelimit_init(&rl, "port p0");
	for (i = 0; i < 30; i++)
		allowed += log_ratelimit(&rl);
	ck_assert_int_eq(allowed, LOG_RL_BURST);
	ck_assert_uint_eq(rl.suppressed, 30 - LOG_RL_BURST);
	/* the window is over: the next line comes after the count */
	rl.window -= LOG_RL_WINDOW_NS;
	fd = lim_capture(&saved);
	ck_assert(log_ratelimit(&rl));
	lim_read(fd, saved, out, sizeof(out));
	ck_assert_msg(strstr(out, "port p0: 20 messages suppressed"), "got '%s'", out);
	ck_assert_uint_eq(rl.suppressed, 0);
}
END_TEST

START_TEST(test_log_ratelimit_flush)
{
	struct log_ratelimit rl;
	char out[4096];
	int i, fd, saved;

	log_ratelimit_init(&rl, "control");
	fd = lim_capture(&saved);
	log_ratelimit_flush(&rl);	/* nothing suppressed: nothing said */
	for (i = 0; i < LOG_RL_BURST + 3; i++)
		log_ratelimit(&rl);
	log_ratelimit_flush(&rl);
	lim_read(fd, saved, out, sizeof(out));
	ck_assert_msg(!strncmp(strstr(out, "control:") ? strstr(out, "control:") : "",
			       "control: 3 messages suppressed", 30), "got '%s'", out);
}
END_TEST

/**
 * struct lim_dl - a deadline and what happened to it
 * @dl: the deadline
 * @fired: times its callback ran
 * @loop: the loop to stop
 */
struct lim_dl {
	struct deadline dl;
	int fired;
	struct loop *loop;
};

/**
 * lim_fired() - deadline_fn: count and stop the loop
 * @dl: the deadline
 */
static void lim_fired(struct deadline *dl)
{
	struct lim_dl *d = container_of(dl, struct lim_dl, dl);

	d->fired++;
	loop_quit(d->loop, 1);
}

/**
 * lim_guard() - loop handler of the guard timer: stop the loop
 * @loop: the loop
 * @ref: the timer
 * @events: unused
 */
static void lim_guard(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	loop_timer_ack(ref);
	loop_quit(loop, 2);
}

static struct lim_dl *lim_rearm_dl;

/**
 * lim_rearm() - loop handler of a timer half-way: arm the deadline again
 * @loop: the loop
 * @ref: the timer
 * @events: unused
 */
static void lim_rearm(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	loop_timer_ack(ref);
	deadline_arm(&lim_rearm_dl->dl, 1);
}

START_TEST(test_deadline_fires_not_pushed_back)
{
	char err[128];
	struct loop *l = loop_new(NULL, NULL, err, sizeof(err));
	struct lim_dl d = { .loop = l };
	struct loop_ref guard, half;

	ck_assert_ptr_nonnull(l);
	lim_rearm_dl = &d;
	ck_assert_int_eq(deadline_init(&d.dl, l, lim_fired), 0);
	ck_assert_int_eq(loop_timer_init(l, &guard, lim_guard), 0);
	ck_assert_int_eq(loop_timer_init(l, &half, lim_rearm), 0);
	deadline_arm(&d.dl, 1);
	/* armed again after 0.6 s: a pushed-back deadline would pass at 1.6 s,
	 * after the guard at 1.4 s */
	ck_assert_int_eq(loop_timer_set(&half, 600000000ULL, 0), 0);
	ck_assert_int_eq(loop_timer_set(&guard, 1400000000ULL, 0), 0);
	ck_assert_int_eq(loop_run(l), 1);
	ck_assert_int_eq(d.fired, 1);
	ck_assert(!d.dl.armed);
	loop_timer_fini(l, &half);
	loop_timer_fini(l, &guard);
	deadline_fini(&d.dl);
	loop_free(l);
}
END_TEST

START_TEST(test_deadline_stopped_does_not_fire)
{
	char err[128];
	struct loop *l = loop_new(NULL, NULL, err, sizeof(err));
	struct lim_dl d = { .loop = l };
	struct loop_ref guard;

	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(deadline_init(&d.dl, l, lim_fired), 0);
	ck_assert_int_eq(loop_timer_init(l, &guard, lim_guard), 0);
	deadline_arm(&d.dl, 1);
	deadline_stop(&d.dl);
	ck_assert_int_eq(loop_timer_set(&guard, 1500000000ULL, 0), 0);
	ck_assert_int_eq(loop_run(l), 2);
	ck_assert_int_eq(d.fired, 0);
	loop_timer_fini(l, &guard);
	deadline_fini(&d.dl);
	loop_free(l);
}
END_TEST

/**
 * limits_suite() - log rate limits and deadlines
 *
 * Return: the suite.
 */
Suite *limits_suite(void)
{
	Suite *s = runner_suite_create("limits");

	RUNNER_ADD_TEST(s, test_log_ratelimit_burst_then_suppressed);
	RUNNER_ADD_TEST(s, test_log_ratelimit_flush);
	RUNNER_ADD_TEST(s, test_deadline_fires_not_pushed_back);
	RUNNER_ADD_TEST(s, test_deadline_stopped_does_not_fire);
	return s;
}
