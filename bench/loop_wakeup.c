// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * loop_wakeup.c - what one wakeup of vringnetd's event loop (daemon/loop.c)
 * costs: an eventfd whose handler reads it and makes it readable again, so
 * every round is one epoll_wait() return and one dispatch, plus one armed
 * far-away timer (a connection's deadline) and the loop's signal sources, as
 * in the daemon.
 *
 * Usage: loop_wakeup [N1 N2]   (default 10000 30000)
 *
 * Runs N1 and N2 rounds (three times each, interleaved) and prints the
 * nanoseconds per round of the median difference, (t(N2) - t(N1)) / (N2 - N1),
 * which leaves out the start and the end of a run.  Under scripts/vm-run
 * --icount (the guest clock advances 1 ns per guest instruction, the loop
 * never sleeps) that is instructions per wakeup, user and kernel:
 *   scripts/vm-run --icount --no-module -- build/bench/loop_wakeup
 * The figure includes the handler's read() and write() of the eventfd.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "loop.h"

static long lw_rounds;		/* rounds done */
static long lw_max;		/* rounds to do */

/**
 * lw_ready() - one round: take the eventfd's count and post it again
 * @loop: the loop
 * @ref: the eventfd's ref
 * @events: unused
 */
static void lw_ready(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	uint64_t v;

	if (read(ref->fd, &v, sizeof(v)) != sizeof(v))
		abort();
	if (++lw_rounds >= lw_max) {
		loop_quit(loop, 0);
		return;
	}
	v = 1;
	if (write(ref->fd, &v, sizeof(v)) != sizeof(v))
		abort();
}

/**
 * lw_timer() - the far timer's handler (it never fires during a run)
 * @loop: the loop
 * @ref: the timer
 * @events: unused
 */
static void lw_timer(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	loop_timer_ack(ref);
}

/**
 * lw_run() - time @rounds wakeups of a fresh loop
 * @rounds: how many
 *
 * Return: CLOCK_MONOTONIC nanoseconds of loop_run(), or -1 on failure.
 */
static long long lw_run(long rounds)
{
	struct loop_ref ref, timer;
	struct timespec a, b;
	uint64_t one = 1;
	struct loop *loop;
	char err[256];
	int fd;

	loop = loop_new(NULL, NULL, err, sizeof(err));
	if (!loop) {
		fprintf(stderr, "loop_wakeup: %s\n", err);
		return -1;
	}
	fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	loop_ref_init(&ref, LOOP_REF_PORT_AUX, fd, lw_ready);
	if (fd < 0 || loop_add(loop, &ref, EPOLLIN) < 0 ||
	    loop_timer_init(loop, &timer, lw_timer) < 0 ||
	    loop_timer_set(&timer, 3600ULL * 1000000000ULL, 0) < 0 ||
	    write(fd, &one, sizeof(one)) != sizeof(one)) {
		perror("loop_wakeup: setup");
		return -1;
	}
	lw_rounds = 0;
	lw_max = rounds;
	clock_gettime(CLOCK_MONOTONIC, &a);
	loop_run(loop);
	clock_gettime(CLOCK_MONOTONIC, &b);
	loop_timer_fini(loop, &timer);
	loop_del(loop, &ref);
	close(fd);
	loop_free(loop);
	return (long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
}

/**
 * main() - run, print the per-round figure
 * @argc: argument count
 * @argv: N1 N2
 *
 * Return: 0, 1 on failure, 2 for bad arguments.
 */
int main(int argc, char **argv)
{
	long n1 = argc > 2 ? atol(argv[1]) : 10000, n2 = argc > 2 ? atol(argv[2]) : 30000;
	long long t1[3], t2[3], d[3], t;
	int i, j;

	if (n1 < 1 || n2 <= n1) {
		fprintf(stderr, "usage: loop_wakeup [N1 N2] (0 < N1 < N2)\n");
		return 2;
	}
	for (i = 0; i < 3; i++) {
		t1[i] = lw_run(n1);
		t2[i] = lw_run(n2);
		if (t1[i] < 0 || t2[i] < 0)
			return 1;
	}
	for (i = 0; i < 3; i++) {
		printf("# run %d: %ld rounds %lld ns, %ld rounds %lld ns\n", i + 1, n1, t1[i],
		       n2, t2[i]);
		d[i] = t2[i] - t1[i];
		for (j = i; j > 0 && d[j - 1] > d[j]; j--) {
			t = d[j];
			d[j] = d[j - 1];
			d[j - 1] = t;
		}
	}
	printf("loop wakeup: %.1f ns per round (median of 3 differences; icount: instructions)\n",
	       (double)d[1] / (double)(n2 - n1));
	return 0;
}
