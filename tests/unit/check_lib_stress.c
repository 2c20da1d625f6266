// SPDX-License-Identifier: GPL-2.0
/*
 * check_lib_stress.c - the memory-ordering contracts of the ring helpers,
 * tested where they can be: a driver thread and a device thread pass 10^5
 * buffers through one ring.
 *
 * Contract 1 (avail side): the driver writes a buffer's payload and its
 * descriptor before vringfd_ring_publish(); a device that sees the new
 * avail->idx (acquire) must see the payload and the descriptor.
 * Contract 2 (used side): the device writes the buffer (its reply) and the
 * used element before vringfd_dev_publish_used(); a driver that sees the new
 * used->idx (acquire) must see the reply and the element.
 * Each buffer carries its sequence number; the device checks it, writes back
 * its complement, and reports the sequence number as the used length; the
 * driver checks both.  Tokens come back in order and exactly once.  Both
 * threads spin with sched_yield(); the test has a time bound.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vringfd.h"
#include "unit/runner.h"
#include "unit/check_lib.h"

#define ST_NUM		64
#define ST_BUFFERS	100000u
#define ST_SECONDS	60

struct st_slot {
	volatile uint32_t seq;
	volatile uint32_t reply;
};

static struct vringfd_ring st_ring;
static struct vringfd_dev st_dev;
static struct st_slot st_slots[ST_NUM];
static volatile int st_stop;
static unsigned int st_dev_errors;
static char st_dev_msg[200];

/**
 * st_elapsed() - seconds since @t0
 * @t0: start time (CLOCK_MONOTONIC)
 *
 * Return: seconds.
 */
static double st_elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/**
 * st_device() - the device thread: take, check, answer, publish
 * @arg: unused
 *
 * Return: NULL.
 */
static void *st_device(void *arg)
{
	uint32_t expect = 0;
	struct vringfd_chain c;
	struct iovec iov[2];

	while (expect < ST_BUFFERS && !st_stop) {
		int r = vringfd_dev_get_chain(&st_dev, &c, iov, 2);
		struct st_slot *s;

		if (r == 0) {
			sched_yield();
			continue;
		}
		if (r != 1 || c.nout != 1 || c.nin != 1 ||
		    c.out[0].iov_len != sizeof(s->seq)) {
			snprintf(st_dev_msg, sizeof(st_dev_msg),
				 "buffer %u: get_chain %d nout %u nin %u", expect, r,
				 c.nout, c.nin);
			st_dev_errors++;
			break;
		}
		s = (struct st_slot *)c.out[0].iov_base;
		if (s->seq != expect) {
			if (!st_dev_errors)
				snprintf(st_dev_msg, sizeof(st_dev_msg),
					 "buffer %u: payload says %u (stale read)",
					 expect, s->seq);
			st_dev_errors++;
		}
		s->reply = ~s->seq;
		vringfd_dev_put_used(&st_dev, c.head, expect);
		expect++;
		/* publish every few entries, to vary batching */
		if ((expect & 3) == 0 || vringfd_dev_pending(&st_dev) == 0)
			vringfd_dev_publish_used(&st_dev);
	}
	vringfd_dev_publish_used(&st_dev);
	return NULL;
}

START_TEST(stress_two_threads)
{
	size_t sz = vringfd_ring_size(ST_NUM, 4096);
	void *mem = aligned_alloc(4096, (sz + 4095) & ~4095UL);
	uint32_t sent = 0, done = 0, len;
	unsigned int errors = 0;
	struct timespec t0;
	char msg[200] = "";
	pthread_t th;

	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(vringfd_ring_init(&st_ring, mem, ST_NUM, 4096, 0), 0);
	ck_assert_int_eq(vringfd_dev_init(&st_dev, ST_NUM, st_ring.vr.desc, st_ring.vr.avail,
					  st_ring.vr.used, 0), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, st_device, NULL), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);

	while (done < ST_BUFFERS) {
		struct st_slot *s;
		bool progress = false;

		while (sent < ST_BUFFERS && st_ring.num_free >= 2) {
			struct iovec out, in;
			int head;

			/* slot by sequence number: the device checks it */
			s = &st_slots[sent % ST_NUM];
			s->seq = sent;
			s->reply = 0;
			out.iov_base = (void *)&s->seq;
			out.iov_len = sizeof(s->seq);
			in.iov_base = (void *)&s->reply;
			in.iov_len = sizeof(s->reply);
			head = vringfd_ring_add(&st_ring, &out, 1, &in, 1, s);
			if (head < 0)
				break;
			sent++;
			progress = true;
			if ((sent & 7) == 0)
				vringfd_ring_publish(&st_ring);
		}
		vringfd_ring_publish(&st_ring);
		while ((s = vringfd_ring_get_used(&st_ring, &len))) {
			if (len != done || s != &st_slots[done % ST_NUM] ||
			    s->reply != ~(uint32_t)done) {
				if (!errors)
					snprintf(msg, sizeof(msg),
						 "completion %u: len %u, slot %ld, reply %#x",
						 done, len, (long)(s - st_slots), s->reply);
				errors++;
			}
			done++;
			progress = true;
		}
		if (st_ring.broken) {
			snprintf(msg, sizeof(msg), "driver ring broken after %u", done);
			errors++;
			break;
		}
		if (st_elapsed(&t0) > ST_SECONDS) {
			snprintf(msg, sizeof(msg), "timed out after %u of %u buffers",
				 done, ST_BUFFERS);
			errors++;
			break;
		}
		if (!progress)
			sched_yield();
	}
	st_stop = 1;
	pthread_join(th, NULL);
	ck_assert_msg(st_dev_errors == 0, "device: %u errors, first: %s", st_dev_errors,
		      st_dev_msg);
	ck_assert_msg(errors == 0, "driver: %u errors, first: %s", errors, msg);
	ck_assert_uint_eq(done, ST_BUFFERS);
	ck_assert_uint_eq(st_ring.num_free, ST_NUM);
	ck_assert(!st_dev.broken);
	vringfd_ring_fini(&st_ring);
	free(mem);
}
END_TEST

/**
 * stress_suite() - the ordering stress suite
 *
 * Return: the suite.
 */
Suite *stress_suite(void)
{
	Suite *s = runner_suite_create("lib-stress");

	RUNNER_ADD_TEST_TIMEOUT(s, stress_two_threads, ST_SECONDS + 30);
	return s;
}
