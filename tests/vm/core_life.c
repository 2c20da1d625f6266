// SPDX-License-Identifier: GPL-2.0
/*
 * core_life.c - concurrency and bounded work: write() and poll() on the
 * same rings from two threads while a third drives them, close during use,
 * and a 32768-entry ring drained with one write() per at most 256 chains
 * while signals keep arriving.
 */
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include "core_common.h"

/**
 * now_ms() - monotonic time in milliseconds
 *
 * Return: the time.
 */
static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/**
 * struct stress - shared state of the two-thread test
 * @a: "from" ring
 * @b: "to" ring
 * @done: set by the driver when finished
 * @bad: set by a thread that saw an unexpected error
 * @bad_errno: that error
 * @calls: write()/poll() calls made by the threads
 */
struct stress {
	struct tring a, b;
	volatile int done;
	volatile int bad;
	volatile int bad_errno;
	unsigned long calls[2];
};

/**
 * stress_writer() - thread: write() on "from" until done
 * @arg: struct stress
 *
 * Return: NULL.
 */
static void *stress_writer(void *arg)
{
	struct stress *s = arg;
	long r;

	while (!s->done) {
		r = write(s->a.fd, "", 1);
		s->calls[0]++;
		if (r < 0) {
			s->bad = 1;
			s->bad_errno = errno;
			break;
		}
	}
	return NULL;
}

/**
 * stress_poller() - thread: poll() on "to" until done
 * @arg: struct stress
 *
 * Return: NULL.
 */
static void *stress_poller(void *arg)
{
	struct stress *s = arg;
	short rev;

	while (!s->done) {
		if (poll_one(s->b.fd, 5, &rev) < 0 || (rev & POLLERR)) {
			s->bad = 2;
			s->bad_errno = errno;
			break;
		}
		s->calls[1]++;
	}
	return NULL;
}

/**
 * test_two_threads() - write() and poll() from two threads on one echo
 * @atomic_every: echo's atomic_every
 * @name: test name
 */
static void test_two_threads(unsigned int atomic_every, const char *name)
{
	const unsigned int total = 20000, num = 256;
	unsigned int posted = 0, got = 0, from_done = 0;
	struct stress s;
	pthread_t tw, tp;
	uint32_t id, len;
	char why[160] = "";
	double t0 = now_ms();
	int efd = -1;
	bool ok = true;

	memset(&s, 0, sizeof(s));
	if (tring_open(&s.a, num, 32, 0) || tring_open(&s.b, num, 32, 0) ||
	    echo_attach(s.a.fd, s.b.fd, atomic_every, 0, &efd)) {
		result_check(false, name, "setup: %s", strerror(errno));
		goto out;
	}
	pthread_create(&tw, NULL, stress_writer, &s);
	pthread_create(&tp, NULL, stress_poller, &s);
	while (got < total && !s.bad && now_ms() - t0 < 120000) {
		while (tring_take_used(&s.a, &id, &len))
			from_done++;
		while (ok && tring_take_used(&s.b, &id, &len)) {
			uint8_t *p = s.b.bufs + (size_t)id * 32;

			if (len != 32 || p[0] != (uint8_t)got || p[31] != (uint8_t)got) {
				snprintf(why, sizeof(why), "message %u: len %u data %#x", got,
					 len, p[0]);
				ok = false;
			}
			got++;
		}
		if (!ok)
			break;
		/* Both rings: at most num outstanding, descriptors round-robin. */
		while (posted < total && posted - from_done < num &&
		       posted - got < num) {
			tring_post(&s.a, 32, false, (uint8_t)posted);
			tring_post(&s.b, 32, true, 0);
			posted++;
		}
		sched_yield();
	}
	s.done = 1;
	pthread_join(tw, NULL);
	pthread_join(tp, NULL);
	if (ok && s.bad)
		snprintf(why, sizeof(why), "thread %d saw %s", s.bad, strerror(s.bad_errno));
	else if (ok && got != total)
		snprintf(why, sizeof(why), "received %u of %u in time", got, total);
	result_check(ok && !s.bad && got == total && !tring_broken(&s.a) &&
		    !tring_broken(&s.b), name, "%s (writes %lu polls %lu)", why,
		    s.calls[0], s.calls[1]);
out:
	if (efd >= 0)
		close(efd);
	tring_close(&s.a);
	tring_close(&s.b);
}

/**
 * struct closer - state of the close-during-use test
 * @fd: fd the thread hammers
 * @stop: set to stop the thread
 * @other_closing: the other ring is being closed: EIO is expected too (its
 *	handle fails with EIO while its ->destroy has not stopped the echo)
 * @bad_errno: an errno the thread did not expect (0: none)
 */
struct closer {
	int fd;
	int other_closing;
	volatile int stop;
	volatile int bad_errno;
};

/**
 * closer_thread() - write() and poll() on one fd until stopped
 * @arg: struct closer
 *
 * Return: NULL.
 */
static void *closer_thread(void *arg)
{
	struct closer *c = arg;
	short rev;
	long r;

	while (!c->stop) {
		r = write(c->fd, "", 1);
		if (r < 0 && errno != EPIPE && errno != EINVAL && errno != EBADF &&
		    !(errno == EIO && c->other_closing))
			c->bad_errno = errno;
		poll_one(c->fd, 0, &rev);
	}
	return NULL;
}

/**
 * test_close_during_use() - close the echo fd, then a ring, under load
 */
static void test_close_during_use(void)
{
	struct closer c;
	pthread_t th;
	struct tring a, b;
	int it, i, efd, bad = 0, fails = 0;

	for (it = 0; it < 40 && !fails; it++) {
		if (tring_open(&a, 64, 32, 0) || tring_open(&b, 64, 32, 0) ||
		    echo_attach(a.fd, b.fd, it & 1, 0, &efd)) {
			fails++;
			break;
		}
		for (i = 0; i < 64; i++) {
			tring_post(&a, 32, false, i);
			tring_post(&b, 32, true, 0);
		}
		memset(&c, 0, sizeof(c));
		c.fd = (it & 2) ? b.fd : a.fd;
		c.other_closing = !!(it & 4);
		pthread_create(&th, NULL, closer_thread, &c);
		usleep(200 * (it % 5));
		if (it & 4) {
			/* Close the ring the thread does not use. */
			close((it & 2) ? a.fd : b.fd);
			if (it & 2)
				a.fd = -1;
			else
				b.fd = -1;
			usleep(500);
			close(efd);
		} else {
			close(efd);
		}
		usleep(500);
		c.stop = 1;
		pthread_join(th, NULL);
		if (c.bad_errno)
			bad = c.bad_errno;
		tring_close(&a);
		tring_close(&b);
	}
	result_check(!fails && !bad, "close_during_use",
		    "iteration %d: setup failures %d, unexpected errno %d (%s)", it, fails,
		    bad, bad ? strerror(bad) : "-");
}

static volatile sig_atomic_t sig_count;

/**
 * on_sig() - SIGUSR1 handler: count
 * @sig: unused
 */
static void on_sig(int sig)
{
	(void)sig;
	sig_count++;
}

/**
 * struct sigger - the thread sending signals
 * @target: thread to signal
 * @stop: set to stop
 * @sent: signals sent
 */
struct sigger {
	pthread_t target;
	volatile int stop;
	unsigned long sent;
};

/**
 * sigger_thread() - send SIGUSR1 to @target every 200 us
 * @arg: struct sigger
 *
 * Return: NULL.
 */
static void *sigger_thread(void *arg)
{
	struct sigger *g = arg;
	struct timespec ts = { 0, 200000 };

	while (!g->stop) {
		pthread_kill(g->target, SIGUSR1);
		g->sent++;
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/**
 * test_bounded_work() - 32768 buffers drained in bounded steps under signals
 */
static void test_bounded_work(void)
{
	const unsigned int num = 32768;
	unsigned int total = 0, calls = 0, maxcall = 0, eintr = 0, shortw = 0, i;
	struct sigaction sa;
	struct sigger g;
	struct tring a, b;
	pthread_t th;
	double t, tmax = 0, t0;
	int efd = -1;
	long r;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sig;		/* no SA_RESTART */
	sigaction(SIGUSR1, &sa, NULL);
	if (tring_open(&a, num, 512, 0) || tring_open(&b, num, 512, 0) ||
	    echo_attach(a.fd, b.fd, 0, 0, &efd)) {
		result_check(false, "bounded_work_32768", "setup: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < num; i++) {
		tring_post(&a, 512, false, (uint8_t)i);
		tring_post(&b, 512, true, 0);
	}
	memset(&g, 0, sizeof(g));
	g.target = pthread_self();
	pthread_create(&th, NULL, sigger_thread, &g);
	t0 = now_ms();
	while (total < num && now_ms() - t0 < 240000) {
		t = now_ms();
		r = write(a.fd, "", 1);
		t = now_ms() - t;
		if (t > tmax)
			tmax = t;
		calls++;
		if (r < 0) {
			if (errno != EINTR)
				break;
			eintr++;
			continue;
		}
		if (r > (long)maxcall)
			maxcall = r;
		if (r < 256 && total + r < num)
			shortw++;
		total += r;
	}
	g.stop = 1;
	pthread_join(th, NULL);
	result_check(total == num && maxcall <= 256, "bounded_work_32768",
		    "echoed %u of %u in %u calls, max %u per call, last errno %s", total,
		    num, calls, maxcall, strerror(errno));
	result_check(tmax < 10000, "bounded_work_call_time",
		    "slowest write() took %.0f ms", tmax);
	fprintf(stderr, "# bounded work: %u calls, slowest %.1f ms, %lu signals sent, %d handled, "
	       "%u EINTR, %u short writes\n", calls, tmax, g.sent, (int)sig_count, eintr,
	       shortw);
	if (g.sent < 50)
		result_skip("bounded_work_signal_stops_call", "too few signals were sent");
	else
		result_check(eintr + shortw > 0, "bounded_work_signal_stops_call",
			    "%lu signals, no write() stopped early", g.sent);
out:
	signal(SIGUSR1, SIG_DFL);
	if (efd >= 0)
		close(efd);
	tring_close(&a);
	tring_close(&b);
}

/**
 * main() - run the concurrency tests
 *
 * Return: 0 when no test failed.
 */
int main(void)
{
	if (!echo_available()) {
		result_skip("core_life", "/dev/vringfd_echo missing (vringfd_echo.ko not loaded)");
		return 0;
	}
	test_two_threads(0, "threads_write_poll_same_rings");
	test_two_threads(3, "threads_write_poll_same_rings_atomic");
	test_close_during_use();
	test_bounded_work();
	return result_exit_status();
}
