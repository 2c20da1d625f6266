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
 *
 * Contract 3 (notification, the full fences): each side sleeps on an
 * eventfd only after re-enabling notifications and re-checking the ring;
 * the other side signals only when need_kick / need_notify says so.  A
 * missing fence or a wrong suppression rule loses a wake-up: the sleeper
 * then times out (ST_WAIT_MS) and the test fails instead of hanging.  Run
 * with VRING_USED_F_NO_NOTIFY / VRING_AVAIL_F_NO_INTERRUPT and with
 * VIRTIO_RING_F_EVENT_IDX.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "vringfd.h"
#include "unit/runner.h"
#include "unit/check_lib.h"

#define ST_NUM		64
#define ST_BUFFERS	100000u
#define ST_SECONDS	60
#define NT_BUFFERS	50000u
#define ST_WAIT_MS	5000

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

/* Notification test state. */
static struct vringfd_ring nt_ring;
static struct vringfd_dev nt_dev;
static int nt_kick = -1, nt_call = -1;
static volatile int nt_stop;
static char nt_dev_msg[200];
static unsigned int nt_kicks, nt_calls, nt_dev_sleeps;

/**
 * nt_wait() - sleep on an eventfd, bounded
 * @efd: eventfd
 *
 * Return: true when it was signalled, false on timeout.
 */
static bool nt_wait(int efd)
{
	struct pollfd p = { .fd = efd, .events = POLLIN };
	uint64_t v;

	if (poll(&p, 1, ST_WAIT_MS) != 1)
		return false;
	return read(efd, &v, sizeof(v)) == sizeof(v);
}

/**
 * nt_signal() - signal an eventfd
 * @efd: eventfd
 */
static void nt_signal(int efd)
{
	uint64_t one = 1;

	if (write(efd, &one, sizeof(one)) != sizeof(one))
		abort();
}

/**
 * nt_device() - device thread: drain, complete, notify; sleep on the kick
 * @arg: unused
 *
 * Return: NULL.
 */
static void *nt_device(void *arg)
{
	struct vringfd_chain c;
	struct iovec iov[2];
	uint32_t done = 0;

	vringfd_dev_set_no_notify(&nt_dev, true);
	while (done < NT_BUFFERS && !nt_stop) {
		int r = vringfd_dev_get_chain(&nt_dev, &c, iov, 2);

		if (r == 1) {
			vringfd_dev_put_used(&nt_dev, c.head, done++);
			if (vringfd_dev_pending(&nt_dev))
				continue;
			vringfd_dev_publish_used(&nt_dev);
			if (vringfd_dev_need_notify(&nt_dev)) {
				nt_calls++;
				nt_signal(nt_call);
			}
			continue;
		}
		if (r != 0) {
			snprintf(nt_dev_msg, sizeof(nt_dev_msg), "get_chain %d", r);
			break;
		}
		/* nothing: ask for kicks, look again, then sleep */
		vringfd_dev_set_no_notify(&nt_dev, false);
		if (vringfd_dev_pending(&nt_dev))
			continue;
		nt_dev_sleeps++;
		if (!nt_wait(nt_kick)) {
			snprintf(nt_dev_msg, sizeof(nt_dev_msg),
				 "lost kick: device slept %d ms with %u of %u done, avail->idx %u",
				 ST_WAIT_MS, done, NT_BUFFERS, nt_ring.vr.avail->idx);
			break;
		}
		vringfd_dev_set_no_notify(&nt_dev, true);
	}
	vringfd_dev_publish_used(&nt_dev);
	nt_signal(nt_call);
	return NULL;
}

/**
 * nt_run() - pass NT_BUFFERS buffers with notifications and suppression
 * @features: ring features
 */
static void nt_run(uint64_t features)
{
	size_t sz = vringfd_ring_size(ST_NUM, 4096);
	void *mem = aligned_alloc(4096, (sz + 4095) & ~4095UL);
	bool event_idx = features & (1ULL << VIRTIO_RING_F_EVENT_IDX);
	uint32_t sent = 0, done = 0, len;
	unsigned int round;
	char msg[200] = "";
	pthread_t th;
	void *tok;

	ck_assert_ptr_nonnull(mem);
	nt_stop = 0;
	nt_kicks = nt_calls = nt_dev_sleeps = 0;
	nt_dev_msg[0] = 0;
	nt_kick = eventfd(0, EFD_CLOEXEC);
	nt_call = eventfd(0, EFD_CLOEXEC);
	ck_assert(nt_kick >= 0 && nt_call >= 0);
	ck_assert_int_eq(vringfd_ring_init(&nt_ring, mem, ST_NUM, 4096, features), 0);
	ck_assert_int_eq(vringfd_dev_init(&nt_dev, ST_NUM, nt_ring.vr.desc, nt_ring.vr.avail,
					  nt_ring.vr.used, features), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, nt_device, NULL), 0);

	if (!event_idx)
		vringfd_ring_set_no_interrupt(&nt_ring, true);
	for (round = 0; done < NT_BUFFERS && !msg[0]; round++) {
		/* batches of 1..8: single-entry batches catch off-by-one events */
		unsigned int batch = 1 + (round * 2654435761u >> 29);
		/* every other round, wait for everything (ping-pong) */
		bool drain = round & 1;
		bool progress = false;

		while (sent < NT_BUFFERS && nt_ring.num_free && batch--) {
			struct iovec v = { &st_slots[0], 1 };

			ck_assert_int_ge(vringfd_ring_add(&nt_ring, &v, 1, NULL, 0,
							  &st_slots[sent % ST_NUM]), 0);
			sent++;
			progress = true;
		}
		vringfd_ring_publish(&nt_ring);
		if (vringfd_ring_need_kick(&nt_ring)) {
			nt_kicks++;
			nt_signal(nt_kick);
		}
		for (;;) {
			while ((tok = vringfd_ring_get_used(&nt_ring, &len))) {
				if (len != done && !msg[0])
					snprintf(msg, sizeof(msg), "completion %u has len %u",
						 done, len);
				done++;
				progress = true;
			}
			if (done == sent && (drain || sent == NT_BUFFERS))
				break;
			if (!drain && (progress || (nt_ring.num_free && sent < NT_BUFFERS)))
				break;
			/* waiting: ask for interrupts, look again, then sleep */
			if (!event_idx)
				vringfd_ring_set_no_interrupt(&nt_ring, false);
			if (!vringfd_ring_more_used(&nt_ring) && !nt_wait(nt_call)) {
				snprintf(msg, sizeof(msg),
					 "lost interrupt: driver slept %d ms with %u of %u done",
					 ST_WAIT_MS, done, sent);
				break;
			}
			if (!event_idx)
				vringfd_ring_set_no_interrupt(&nt_ring, true);
		}
	}
	nt_stop = 1;
	nt_signal(nt_kick);
	pthread_join(th, NULL);
	ck_assert_msg(!nt_dev_msg[0], "device: %s", nt_dev_msg);
	ck_assert_msg(!msg[0], "driver: %s", msg);
	ck_assert_uint_eq(done, NT_BUFFERS);
	ck_assert(!nt_ring.broken && !nt_dev.broken);
	/* suppression worked: far fewer kicks than buffers */
	ck_assert_msg(nt_kicks <= nt_dev_sleeps + 1 || nt_kicks < NT_BUFFERS / 2,
		      "%u kicks for %u buffers, device slept %u times", nt_kicks,
		      NT_BUFFERS, nt_dev_sleeps);
	if (getenv("STRESS_VERBOSE"))
		fprintf(stderr, "%s: %u kicks, %u interrupts, device slept %u times\n",
			event_idx ? "event_idx" : "flags", nt_kicks, nt_calls, nt_dev_sleeps);
	vringfd_ring_fini(&nt_ring);
	close(nt_kick);
	close(nt_call);
	free(mem);
}

START_TEST(stress_notify_flags)
{
	nt_run(0);
}
END_TEST

START_TEST(stress_notify_event_idx)
{
	nt_run(1ULL << VIRTIO_RING_F_EVENT_IDX);
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
	RUNNER_ADD_TEST_TIMEOUT(s, stress_notify_flags, ST_SECONDS + 30);
	RUNNER_ADD_TEST_TIMEOUT(s, stress_notify_event_idx, ST_SECONDS + 30);
	return s;
}
