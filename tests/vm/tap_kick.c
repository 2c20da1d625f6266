// SPDX-License-Identifier: GPL-2.0
/*
 * tap_kick.c - kick mode (VRINGFD_SET_KICK) in the VM: a ring of memory
 * attached to a tap is served by the module's worker.  TX frames go out
 * on a kick of the eventfd alone (the test never calls write() on the
 * ring); RX frames arrive with only the call eventfd watched; counts are
 * exact.  Every refusal gets its errno.  Kick mode ends cleanly while
 * kicks flow: close, detach, the tap deleted, the front-end's eventfd
 * closed, SET_KICK again or -1, the process that set it up gone.  A kick
 * storm from two threads moves every frame once; a process watching the
 * ring fd for errors only is not woken by the traffic.  Last: rmmod is
 * refused while a ring in kick mode is open and works after its close
 * while kicks flow (the modules are loaded again).
 *
 * The kick eventfd's count is consumed by the module in the eventfd's
 * wake-up (synchronously with the kick): a count still there after a
 * kick says, without any waiting, that kick mode is off.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>

#include "kmod_load.h"
#include "memring.h"

#define TXTAP "vrk0"
#define RXTAP "vrk1"
#define PLAINTAP "vrk2"
#define LIFETAP "vrk3"
#define GONETAP "vrk4"		/* deleted under an idle ring */
#define BIGTAP "vrk5"		/* MTU 9000: frames too big for a buffer */

/**
 * struct kick_ring - a ring of memory attached to a tap, in kick mode
 * @m: the ring
 * @kick: kick eventfd (non-blocking)
 * @call: call eventfd (non-blocking)
 */
struct kick_ring {
	struct mf_ring m;
	int kick;
	int call;
};

/**
 * set_kick() - VRINGFD_SET_KICK
 * @fd: vring fd
 * @efd: eventfd, or -1
 *
 * Return: the ioctl's answer (-1 with errno).
 */
static int set_kick(int fd, int efd)
{
	int32_t v = efd;

	return ioctl(fd, VRINGFD_SET_KICK, &v);
}

/**
 * kick() - the front-end's kick: add 1 to @efd
 * @efd: eventfd
 *
 * Return: 0, or -1.
 */
static int kick(int efd)
{
	uint64_t one = 1;

	return write(efd, &one, sizeof(one)) == sizeof(one) ? 0 : -1;
}

/**
 * eventfd_count() - read (and reset) the count of a non-blocking eventfd
 * @efd: eventfd
 *
 * Return: the count, 0 when it was 0.
 */
static uint64_t eventfd_count(int efd)
{
	uint64_t v;

	return read(efd, &v, sizeof(v)) == sizeof(v) ? v : 0;
}

/**
 * kick_flag() - VRINGFD_STATE_KICK of a ring (VRINGFD_GET_STATE)
 * @fd: vring fd
 *
 * Return: 1 set, 0 clear, -1 GET_STATE failed.
 */
static int kick_flag(int fd)
{
	struct vringfd_state st;

	if (vringfd_get_state(fd, &st) < 0)
		return -1;
	return !!(st.flags & VRINGFD_STATE_KICK);
}

/**
 * kr_new() - a ring of memory on a new tap queue of @ifname, call and kick
 * eventfds set, kick mode on
 * @k: filled in
 * @ifname: the tap
 * @dir: VRINGFD_DIR_TX or VRINGFD_DIR_RX
 *
 * Return: 0, or -1 with errno.
 */
static int kr_new(struct kick_ring *k, const char *ifname, unsigned int dir)
{
	int tap, r;

	memset(k, 0, sizeof(*k));
	k->m.fd = k->m.memfd = -1;
	k->kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	k->call = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (k->kick < 0 || k->call < 0 || mf_ring_new(&k->m, 0) || mf_set_whole(&k->m))
		return -1;
	tap = tc_tap_open(ifname, IFF_TAP | IFF_NO_PI);
	if (tap < 0)
		return -1;
	r = tc_attach(k->m.fd, tap, dir, 0, 0);
	close(tap);
	if (r || vringfd_set_call_fd(k->m.fd, k->call) < 0)
		return -1;
	return set_kick(k->m.fd, k->kick);
}

/**
 * kr_free() - close everything of a ring from kr_new()
 * @k: the ring
 */
static void kr_free(struct kick_ring *k)
{
	mf_ring_free(&k->m);
	if (k->kick >= 0)
		close(k->kick);
	if (k->call >= 0)
		close(k->call);
	k->kick = k->call = -1;
}

/**
 * wait_used() - wait, watching only the call eventfd, until @want used
 * entries are there (each wait without news gives up after 3 s)
 * @k: the ring
 * @want: used entries expected (not yet consumed)
 *
 * Return: used entries there.
 */
static int wait_used(struct kick_ring *k, int want)
{
	struct vringfd_ring *rs = mf_state(&k->m);
	struct pollfd p = { .fd = k->call, .events = POLLIN };
	uint16_t n;

	for (;;) {
		n = (uint16_t)(__atomic_load_n(&rs->vr.used->idx, __ATOMIC_ACQUIRE) -
			       rs->last_used);
		if (n >= want || poll(&p, 1, 3000) != 1)
			return n;
		eventfd_count(k->call);
	}
}

/**
 * drain_used() - consume every used entry
 * @k: the ring
 *
 * Return: entries consumed.
 */
static int drain_used(struct kick_ring *k)
{
	int n = 0;

	while (vringfd_ring_get_used(mf_state(&k->m), NULL))
		n++;
	return n;
}

/**
 * stats() - the ring's counters
 * @k: the ring
 *
 * Return: the counters (zero when the ioctl fails).
 */
static struct vringfd_stats stats(struct kick_ring *k)
{
	struct vringfd_stats st;

	memset(&st, 0, sizeof(st));
	vringfd_get_stats(k->m.fd, &st);
	return st;
}

/**
 * tx_round() - post @n frames, kick once, check they all left and came back
 * @k: a TX ring in kick mode
 * @cap: packet socket on its tap
 * @n: frames (at most NUM)
 * @seq0: pattern seed
 * @name: test name, or NULL to report nothing
 *
 * Return: true when all @n were captured intact and completed.
 */
static bool tx_round(struct kick_ring *k, int cap, int n, unsigned int seq0,
		     const char *name)
{
	int got, used;

	mf_post_tx(&k->m, 0, n, 60, seq0);
	kick(k->kick);
	got = capture(cap, n, 60, seq0);
	used = wait_used(k, n);
	used = used == n ? drain_used(k) : used;
	if (name)
		result_check(got == n && used == n, name,
			     "captured %d intact, %d used, of %d", got, used, n);
	return got == n && used == n;
}

/**
 * test_tx() - TX by kicks only: frames, completions, counts; frames posted
 * before kick mode begins; the kick count consumed
 * @cap: packet socket on TXTAP
 */
static void test_tx(int cap)
{
	struct kick_ring k;
	struct vringfd_stats st;
	int got;

	if (kr_new(&k, TXTAP, VRINGFD_DIR_TX)) {
		result_fail("kick_tx", "setup: %s", strerror(errno));
		kr_free(&k);
		return;
	}
	result_check(kick_flag(k.m.fd) == 1, "kick_state_flag_on",
		     "VRINGFD_STATE_KICK %d after SET_KICK", kick_flag(k.m.fd));
	/* a second ATTACH_TAP that fails (no tap fd) leaves kick mode's flag */
	{
		int r = tc_attach(k.m.fd, -1, VRINGFD_DIR_TX, 0, 0);

		result_check(r < 0 && kick_flag(k.m.fd) == 1, "kick_state_flag_failed_attach",
			     "ATTACH_TAP gave %d (%s), then VRINGFD_STATE_KICK %d", r,
			     r < 0 ? strerror(errno) : "-", kick_flag(k.m.fd));
	}
	tx_round(&k, cap, 100, 0, "kick_tx_100_no_write");
	st = stats(&k);
	result_check(st.frames == 100 && st.bytes == 100 * 60 && !st.drop_bad_chain &&
		     !st.drop_bad_addr && !st.drop_tap && st.calls >= 1, "kick_tx_stats",
		     "frames %llu bytes %llu drops %llu/%llu/%llu worker runs %llu",
		     (unsigned long long)st.frames, (unsigned long long)st.bytes,
		     (unsigned long long)st.drop_bad_chain, (unsigned long long)st.drop_bad_addr,
		     (unsigned long long)st.drop_tap, (unsigned long long)st.calls);
	result_check(eventfd_count(k.kick) == 0, "kick_count_consumed",
		     "the module left the kick's count in the eventfd");

	/* frames posted while kick mode is off go out when it begins */
	if (set_kick(k.m.fd, -1)) {
		result_fail("kick_off", "SET_KICK -1: %s", strerror(errno));
	} else {
		result_check(kick_flag(k.m.fd) == 0, "kick_state_flag_off",
			     "VRINGFD_STATE_KICK %d after SET_KICK -1", kick_flag(k.m.fd));
		mf_post_tx(&k.m, 0, 10, 60, 1000);
		kick(k.kick);
		result_check(eventfd_count(k.kick) == 1, "kick_off_leaves_eventfd",
			     "a kick after SET_KICK -1 was consumed");
		result_check(set_kick(k.m.fd, k.kick) == 0 && kick_flag(k.m.fd) == 1,
			     "kick_on_again", "%s, VRINGFD_STATE_KICK %d", strerror(errno),
			     kick_flag(k.m.fd));
		got = capture(cap, 10, 60, 1000);
		result_check(got == 10 && wait_used(&k, 10) == 10 && drain_used(&k) == 10,
			     "kick_tx_posted_before_kick_mode", "captured %d of 10", got);
	}
	kr_free(&k);
}

/**
 * test_rx() - RX with only the call eventfd watched: frames delivered,
 * frames waiting for buffers delivered after the next post and kick
 * @inj: packet socket on RXTAP
 */
static void test_rx(int inj)
{
	struct kick_ring k;
	struct vringfd_stats st;
	int n, u;

	if (kr_new(&k, RXTAP, VRINGFD_DIR_RX)) {
		result_fail("kick_rx", "setup: %s", strerror(errno));
		kr_free(&k);
		return;
	}
	tc_wait_carrier(RXTAP);
	mf_post_rx(&k.m, 0, 20);
	kick(k.kick);
	n = tc_inject(inj, 10, 100, 0);
	u = wait_used(&k, 10);
	result_check(n == 10 && u == 10 && rx_check(&k.m, 10, 100, 0),
		     "kick_rx_10_call_fd_only", "injected %d, %d used", n, u);
	/* 10 buffers left, 15 frames: 5 wait in the tap for the next post */
	n = tc_inject(inj, 15, 100, 100);
	u = wait_used(&k, 10);
	result_check(n == 15 && u == 10 && rx_check(&k.m, 10, 100, 100),
		     "kick_rx_fills_posted", "injected %d, %d used", n, u);
	mf_post_rx(&k.m, 20, 5);
	kick(k.kick);
	u = wait_used(&k, 5);
	result_check(u == 5 && rx_check(&k.m, 5, 100, 110), "kick_rx_waits_for_buffers",
		     "%d used of 5", u);
	st = stats(&k);
	result_check(st.frames == 25 && !st.drop_too_big && !st.drop_bad_addr &&
		     !st.drop_tap && !st.drop_bad_chain, "kick_rx_stats",
		     "frames %llu (want 25), drops %llu/%llu/%llu/%llu",
		     (unsigned long long)st.frames, (unsigned long long)st.drop_too_big,
		     (unsigned long long)st.drop_bad_addr, (unsigned long long)st.drop_tap,
		     (unsigned long long)st.drop_bad_chain);
	kr_free(&k);
}

/**
 * test_refusals() - every refusal of VRINGFD_SET_KICK
 */
static void test_refusals(void)
{
	struct vringfd_version v;
	struct tc_ring plain;
	struct mf_ring m;
	int tap, efd, p[2];
	int32_t bad;

	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	tap = tc_tap_open(PLAINTAP, IFF_TAP | IFF_NO_PI);
	if (efd < 0 || tap < 0 || pipe(p)) {
		result_fail("kick_refusals", "setup: %s", strerror(errno));
		return;
	}
	result_check(vringfd_get_version(&v) == 0 && (v.caps & VRINGFD_CAP_KICK),
		     "kick_cap", "VRINGFD_CAP_KICK not reported");

	if (tc_ring_new(&plain, NUM, 0) == 0 &&
	    tc_attach(plain.fd, tap, VRINGFD_DIR_TX, 0, 0) == 0)
		tc_expect_err("kick_refused_not_memory", set_kick(plain.fd, efd), EOPNOTSUPP);
	else
		result_fail("kick_refused_not_memory", "setup: %s", strerror(errno));
	tc_ring_free(&plain);

	if (mf_ring_new(&m, 0) || mf_set_whole(&m)) {
		result_fail("kick_refusals", "ring of memory: %s", strerror(errno));
		mf_ring_free(&m);
		goto out;
	}
	tc_expect_err("kick_refused_not_attached", set_kick(m.fd, efd), EINVAL);
	if (tc_attach(m.fd, tap, VRINGFD_DIR_TX, 0, 0)) {
		result_fail("kick_refusals", "attach: %s", strerror(errno));
		mf_ring_free(&m);
		goto out;
	}
	tc_expect_err("kick_off_when_off", set_kick(m.fd, -1), 0);
	tc_expect_err("kick_refused_not_eventfd", set_kick(m.fd, p[0]), EINVAL);
	tc_expect_err("kick_refused_vring_fd", set_kick(m.fd, m.fd), EINVAL);
	tc_expect_err("kick_refused_closed_fd", set_kick(m.fd, 1000), EBADF);
	tc_expect_err("kick_refused_negative_fd", set_kick(m.fd, -2), EBADF);
	tc_expect_err("kick_refused_null", ioctl(m.fd, VRINGFD_SET_KICK, NULL), EFAULT);
	tc_expect_err("kick_refused_dev_vringfd", ({
		int d = open("/dev/vringfd", O_RDWR | O_CLOEXEC), r;

		bad = efd;
		r = ioctl(d, VRINGFD_SET_KICK, &bad);
		close(d);
		r; }), ENOTTY);
	if (vringfd_detach(m.fd) < 0)
		result_fail("kick_refused_after_detach", "detach: %s", strerror(errno));
	else
		tc_expect_err("kick_refused_after_detach", set_kick(m.fd, efd), EINVAL);
	/* a broken ring: avail->idx jumps by more than num */
	if (tc_attach(m.fd, tap, VRINGFD_DIR_TX, 0, 0) == 0) {
		mf_state(&m)->vr.avail->idx += NUM + 1;
		if (write(m.fd, "", 1) < 0 && errno == EIO)
			tc_expect_err("kick_refused_broken", set_kick(m.fd, efd), EIO);
		else
			result_fail("kick_refused_broken", "the ring did not break");
	} else {
		result_fail("kick_refused_broken", "attach again: %s", strerror(errno));
	}
	mf_ring_free(&m);
out:
	close(p[0]);
	close(p[1]);
	close(tap);
	close(efd);
}

/**
 * struct kicker - a thread kicking an eventfd until told to stop
 * @efd: the eventfd
 * @stop: set to stop
 * @kicks: kicks given
 * @failed: writes that failed
 * @th: the thread
 */
struct kicker {
	int efd;
	volatile int stop;
	unsigned long kicks;
	unsigned long failed;
	pthread_t th;
};

/**
 * kicker_run() - the kicking thread
 * @arg: struct kicker
 *
 * Return: NULL.
 */
static void *kicker_run(void *arg)
{
	struct kicker *kk = arg;

	while (!kk->stop) {
		if (kick(kk->efd))
			kk->failed++;
		else
			kk->kicks++;
		if (!(kk->kicks & 63))
			sched_yield();
	}
	return NULL;
}

/**
 * kicker_start() - start a kicker on @efd
 * @kk: the kicker
 * @efd: the eventfd
 *
 * Return: 0, or -1.
 */
static int kicker_start(struct kicker *kk, int efd)
{
	memset(kk, 0, sizeof(*kk));
	kk->efd = efd;
	return pthread_create(&kk->th, NULL, kicker_run, kk) ? -1 : 0;
}

/**
 * kicker_stop() - stop a kicker
 * @kk: the kicker
 *
 * Return: writes that failed.
 */
static unsigned long kicker_stop(struct kicker *kk)
{
	kk->stop = 1;
	pthread_join(kk->th, NULL);
	return kk->failed;
}

/**
 * test_end_while_kicking() - close, detach, the tap deleted while a
 * thread kicks; the eventfd is left afterwards; the front-end closes its
 * kick eventfd
 */
static void test_end_while_kicking(void)
{
	struct pollfd p;
	struct kick_ring k;
	struct kicker kk;
	int r, n;

	/* close */
	if (kr_new(&k, LIFETAP, VRINGFD_DIR_TX) || kicker_start(&kk, k.kick)) {
		result_fail("kick_close_while_kicking", "setup: %s", strerror(errno));
		kr_free(&k);
		return;
	}
	mf_post_tx(&k.m, 0, 200, 60, 0);
	close(k.m.fd);
	k.m.fd = -1;
	r = (int)kicker_stop(&kk);
	eventfd_count(k.kick);
	kick(k.kick);
	result_check(!r && eventfd_count(k.kick) == 1, "kick_close_while_kicking",
		     "%d kicks failed, or the eventfd is still consumed after close", r);
	kr_free(&k);

	/* detach */
	if (kr_new(&k, LIFETAP, VRINGFD_DIR_TX) || kicker_start(&kk, k.kick)) {
		result_fail("kick_detach_while_kicking", "setup: %s", strerror(errno));
		kr_free(&k);
		return;
	}
	mf_post_tx(&k.m, 0, 200, 60, 0);
	r = vringfd_detach(k.m.fd);
	kicker_stop(&kk);
	eventfd_count(k.kick);
	kick(k.kick);
	result_check(r == 0 && eventfd_count(k.kick) == 1, "kick_detach_while_kicking",
		     "detach %d, or the eventfd is still consumed after it", r);
	result_check(kick_flag(k.m.fd) == 0, "kick_state_flag_detach",
		     "VRINGFD_STATE_KICK %d after VRINGFD_DETACH", kick_flag(k.m.fd));
	kr_free(&k);

	/* the front-end closes its kick eventfd: the module's reference stays */
	if (kr_new(&k, LIFETAP, VRINGFD_DIR_TX)) {
		result_fail("kick_eventfd_closed_by_frontend", "setup: %s", strerror(errno));
		kr_free(&k);
		return;
	}
	close(k.kick);
	k.kick = -1;
	mf_post_tx(&k.m, 0, 10, 60, 0);
	/*
	 * write() sends what the worker has not: the run SET_KICK queued may
	 * come late (a slow kernel) and take some or all of the 10 first
	 */
	r = (int)write(k.m.fd, "", 1);
	n = wait_used(&k, 10);
	result_check(r >= 0 && r <= 10 && n == 10 && drain_used(&k) == 10 &&
		     set_kick(k.m.fd, -1) == 0, "kick_eventfd_closed_by_frontend",
		     "write() %d, %d used of 10 after the front-end closed its kick fd", r, n);
	kr_free(&k);

	/* the tap deleted */
	if (kr_new(&k, LIFETAP, VRINGFD_DIR_TX) || kicker_start(&kk, k.kick)) {
		result_fail("kick_tap_deleted_while_kicking", "setup: %s", strerror(errno));
		kr_free(&k);
		return;
	}
	mf_post_tx(&k.m, 0, 200, 60, 0);
	tc_sh("ip link del " LIFETAP);
	p.fd = k.m.fd;
	p.events = 0;
	p.revents = 0;
	r = poll(&p, 1, 3000);
	kicker_stop(&kk);
	result_check(r == 1 && (p.revents & POLLHUP), "kick_tap_deleted_while_kicking",
		     "poll %d revents %#x, want POLLHUP", r, p.revents);
	errno = 0;
	result_check(write(k.m.fd, "", 1) < 0 && errno == EPIPE, "kick_tap_deleted_epipe",
		     "write() after the tap went: %s", strerror(errno));
	kr_free(&k);
	tc_sh("ip tuntap add dev " LIFETAP " mode tap && ip link set " LIFETAP " up");
}

/**
 * test_replace_and_fork() - SET_KICK again replaces the eventfd; kick mode
 * set by a child process that exits stays
 * @cap: packet socket on TXTAP
 */
static void test_replace_and_fork(int cap)
{
	struct kick_ring k;
	int other, st;
	pid_t pid;

	other = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (other < 0 || kr_new(&k, TXTAP, VRINGFD_DIR_TX)) {
		result_fail("kick_replace", "setup: %s", strerror(errno));
		kr_free(&k);
		return;
	}
	if (set_kick(k.m.fd, other)) {
		result_fail("kick_replace", "SET_KICK again: %s", strerror(errno));
	} else {
		kick(k.kick);
		result_check(eventfd_count(k.kick) == 1, "kick_replace_leaves_old",
			     "the old eventfd is still consumed");
		close(k.kick);
		k.kick = other;
		tx_round(&k, cap, 50, 3000, "kick_replace_new_serves");
	}
	/* a child sets kick mode again on the inherited fd and exits */
	set_kick(k.m.fd, -1);
	pid = fork();
	if (pid == 0)
		_exit(set_kick(k.m.fd, k.kick) ? 1 : 0);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		result_fail("kick_survives_setter_exit", "child's SET_KICK failed");
	} else {
		tx_round(&k, cap, 50, 4000, "kick_survives_setter_exit");
	}
	kr_free(&k);
}

/**
 * test_storm() - two threads kick without pause while rounds of frames
 * flow: every frame leaves once and is completed once
 * @cap: packet socket on TXTAP
 */
static void test_storm(int cap)
{
	struct kicker a, b;
	struct kick_ring k;
	struct vringfd_stats st;
	int i, ok = 0;

	if (kr_new(&k, TXTAP, VRINGFD_DIR_TX) || kicker_start(&a, k.kick) ||
	    kicker_start(&b, k.kick)) {
		result_fail("kick_storm", "setup: %s", strerror(errno));
		kr_free(&k);
		return;
	}
	for (i = 0; i < 20; i++)
		ok += tx_round(&k, cap, 100, (unsigned int)i * 100, NULL);
	kicker_stop(&a);
	kicker_stop(&b);
	st = stats(&k);
	printf("# kick storm: %lu kicks, %llu worker runs, %llu frames\n",
	       a.kicks + b.kicks, (unsigned long long)st.calls,
	       (unsigned long long)st.frames);
	result_check(ok == 20 && st.frames == 2000 && !a.failed && !b.failed,
		     "kick_storm_two_threads", "%d of 20 rounds whole, frames %llu, "
		     "failed kicks %lu", ok, (unsigned long long)st.frames,
		     a.failed + b.failed);
	kr_free(&k);
}

/**
 * test_daemon_not_woken() - a process that set the rings up and watches
 * them for errors only (epoll, no events asked: EPOLLERR/EPOLLHUP) is not
 * woken while frames flow both ways
 * @cap: packet socket on TXTAP
 * @inj: packet socket on RXTAP
 */
static void test_daemon_not_woken(int cap, int inj)
{
	struct kick_ring tx, rx;
	int ctl[2], rep[2], i, ok = 0, u;
	long res[2] = { -1, -1 };
	pid_t pid;

	if (kr_new(&tx, TXTAP, VRINGFD_DIR_TX) || kr_new(&rx, RXTAP, VRINGFD_DIR_RX) ||
	    pipe(ctl) || pipe(rep)) {
		result_fail("kick_daemon_not_woken", "setup: %s", strerror(errno));
		kr_free(&tx);
		kr_free(&rx);
		return;
	}
	pid = fork();
	if (pid == 0) {
		struct epoll_event ev = { .events = 0 }, out[4];
		struct rusage ru0, ru1;
		long r[2] = { 0, 0 };
		int ep = epoll_create1(0), n;
		char c;

		epoll_ctl(ep, EPOLL_CTL_ADD, tx.m.fd, &ev);
		epoll_ctl(ep, EPOLL_CTL_ADD, rx.m.fd, &ev);
		ev.events = EPOLLIN;
		ev.data.fd = ctl[0];
		epoll_ctl(ep, EPOLL_CTL_ADD, ctl[0], &ev);
		if (write(rep[1], "r", 1) != 1)
			_exit(1);
		getrusage(RUSAGE_SELF, &ru0);
		for (;;) {
			n = epoll_wait(ep, out, 4, -1);
			r[0]++;
			if (n > 0 && out[0].data.fd == ctl[0] && read(ctl[0], &c, 1) == 1)
				break;
		}
		getrusage(RUSAGE_SELF, &ru1);
		r[1] = ru1.ru_nvcsw - ru0.ru_nvcsw;
		_exit(write(rep[1], r, sizeof(r)) == sizeof(r) ? 0 : 1);
	}
	{
		char c;

		if (pid < 0 || read(rep[0], &c, 1) != 1) {
			result_fail("kick_daemon_not_woken", "child did not start");
			goto out;
		}
	}
	tc_wait_carrier(RXTAP);
	for (i = 0; i < 10; i++) {
		ok += tx_round(&tx, cap, 100, (unsigned int)i * 100, NULL);
		mf_post_rx(&rx.m, 0, 100);
		kick(rx.kick);
		tc_inject(inj, 100, 100, (unsigned int)i * 100);
		u = wait_used(&rx, 100);
		ok += u == 100 && rx_check(&rx.m, 100, 100, (unsigned int)i * 100);
	}
	if (write(ctl[1], "q", 1) != 1 || read(rep[0], res, sizeof(res)) != sizeof(res))
		res[0] = res[1] = -1;
	printf("# daemon watching errors: %ld epoll returns, %ld voluntary switches, "
	       "2000 frames\n", res[0], res[1]);
	result_check(ok == 20 && res[0] == 1 && res[1] >= 0 && res[1] <= 2,
		     "kick_daemon_not_woken", "%d of 20 rounds whole; the watcher returned "
		     "%ld times from epoll_wait (want 1: its stop), %ld voluntary switches",
		     ok, res[0], res[1]);
out:
	if (pid > 0)
		waitpid(pid, NULL, 0);
	close(ctl[0]);
	close(ctl[1]);
	close(rep[0]);
	close(rep[1]);
	kr_free(&tx);
	kr_free(&rx);
}

/**
 * test_tun_deleted_idle() - a tun deleted under an idle TX ring in kick mode:
 * a process watching the ring for errors only (epoll, no events asked) is
 * told at once, without any kick (tun wakes with EPOLLIN only)
 */
static void test_tun_deleted_idle(void)
{
	struct epoll_event ev = { .events = 0 }, out;
	struct vringfd_state st;
	struct kick_ring k;
	int ep, n;

	if (tc_sh("ip tuntap add dev " GONETAP " mode tap && ip link set " GONETAP " up") ||
	    kr_new(&k, GONETAP, VRINGFD_DIR_TX)) {
		result_fail("kick_tun_deleted_idle_hup", "setup: %s", strerror(errno));
		return;
	}
	ep = epoll_create1(EPOLL_CLOEXEC);
	epoll_ctl(ep, EPOLL_CTL_ADD, k.m.fd, &ev);
	tc_sh("ip link del " GONETAP);
	n = epoll_wait(ep, &out, 1, 3000);
	memset(&st, 0, sizeof(st));
	ioctl(k.m.fd, VRINGFD_GET_STATE, &st);
	result_check(n == 1 && (out.events & EPOLLHUP) && (st.flags & VRINGFD_STATE_HUP),
		     "kick_tun_deleted_idle_hup",
		     "epoll_wait %d events %#x, STATE_HUP %d (within 3 s, no kick)", n,
		     n == 1 ? out.events : 0, !!(st.flags & VRINGFD_STATE_HUP));
	/* kick mode has not ended (the uapi header says so): DETACH ends it */
	result_check((st.flags & VRINGFD_STATE_KICK) && vringfd_detach(k.m.fd) == 0 &&
		     kick_flag(k.m.fd) == 0, "kick_state_flag_tap_deleted",
		     "STATE_KICK %d with STATE_HUP, %d after DETACH",
		     !!(st.flags & VRINGFD_STATE_KICK), kick_flag(k.m.fd));
	close(ep);
	kr_free(&k);
}

/**
 * test_rx_weight_of_drops() - an RX run that stops at its weight having
 * dropped every frame (too big for the one buffer) and used none queues
 * itself again: the good frame behind them arrives without a kick
 * @inj: packet socket on BIGTAP
 */
static void test_rx_weight_of_drops(int inj)
{
	struct vringfd_stats s;
	struct kick_ring k;
	int big, small, got;

	if (kr_new(&k, BIGTAP, VRINGFD_DIR_RX) || set_kick(k.m.fd, -1)) {
		result_fail("kick_rx_requeue_after_dropped_weight", "setup: %s", strerror(errno));
		kr_free(&k);
		return;
	}
	mf_post_rx(&k.m, 0, 1);			/* one 2048-byte buffer */
	big = tc_inject(inj, 400, 3000, 0);	/* more than one run's weight */
	small = tc_inject(inj, 1, 100, 1000);
	usleep(100000);
	if (set_kick(k.m.fd, k.kick)) {
		result_fail("kick_rx_requeue_after_dropped_weight", "SET_KICK: %s", strerror(errno));
		kr_free(&k);
		return;
	}
	got = wait_used(&k, 1);
	s = stats(&k);
	/*
	 * A run's weight of drops (the first run stops after 255 frames
	 * dropped as too big, having used nothing) and more than one run: a
	 * later run, queued by no kick, delivered the small frame.  Not all
	 * big frames reach the ring: between 51 % and 92 % of them were
	 * counted in CI runs, with no drop on the tap's side seen (where they
	 * go is not known); 400 are sent, and a run where fewer than a
	 * weight's worth arrived did not test the path: SKIP, with the
	 * figures, rather than a verdict on something that did not happen.
	 */
	if (big == 400 && small == 1 && got == 1 && s.drop_too_big < 255)
		result_skip("kick_rx_requeue_after_dropped_weight",
			    "only %llu of 400 big frames reached the ring (tap tx_dropped %lld): no run reached its weight",
			    (unsigned long long)s.drop_too_big,
			    tc_ifstat(BIGTAP, "tx_dropped"));
	else
		result_check(big == 400 && small == 1 && got == 1 && rx_check(&k.m, 1, 100, 1000) &&
			     s.drop_too_big >= 255 && s.calls >= 2,
			     "kick_rx_requeue_after_dropped_weight",
			     "injected %d big + %d small; used %d, drop_too_big %llu, tap tx_dropped %lld, runs %llu (no kick)",
			     big, small, got, (unsigned long long)s.drop_too_big,
			     tc_ifstat(BIGTAP, "tx_dropped"), (unsigned long long)s.calls);
	kr_free(&k);
}

/**
 * test_rmmod_while_kicking() - a ring in kick mode holds the module while
 * kicks flow; once its fd is closed, with the kicks still flowing, the
 * module unloads, and kicks after the unload reach nothing of it (no
 * callback left in the eventfd's wait queue, no worker queued: under the
 * debug kernel KASAN would see a use after free).  The modules are loaded
 * again afterwards, from where vm-run loaded them.
 */
static void test_rmmod_while_kicking(void)
{
	char top[PATH_MAX], ko[PATH_MAX + 32];
	bool echo = kl_refcnt("vringfd_echo") >= 0;
	struct kick_ring k;
	struct kicker kk;
	unsigned long before;
	int r, e;

	if (geteuid() != 0 || kl_refcnt("vringfd") < 0 || kl_find_top(top) ||
	    (kl_path(top, "vringfd.ko", ko, sizeof(ko)), access(ko, R_OK))) {
		result_skip("kick_rmmod_refused_while_open",
			    "not root, vringfd not a module, or vringfd.ko not found");
		return;
	}
	if (echo && syscall(SYS_delete_module, "vringfd_echo", O_NONBLOCK)) {
		result_fail("kick_rmmod_refused_while_open", "rmmod vringfd_echo first: %s",
			    strerror(errno));
		return;
	}
	if (kr_new(&k, LIFETAP, VRINGFD_DIR_TX) || kicker_start(&kk, k.kick)) {
		result_fail("kick_rmmod_refused_while_open", "setup: %s", strerror(errno));
		kr_free(&k);
		goto reload;
	}
	mf_post_tx(&k.m, 0, 200, 60, 0);
	r = (int)syscall(SYS_delete_module, "vringfd", O_NONBLOCK);
	e = errno;
	result_check(r == -1 && kl_refcnt("vringfd") >= 0, "kick_rmmod_refused_while_open",
		     "delete_module gave %d (%s)", r, r ? strerror(e) : "-");
	close(k.m.fd);
	k.m.fd = -1;
	r = (int)syscall(SYS_delete_module, "vringfd", O_NONBLOCK);
	e = errno;
	result_check(r == 0 && kl_refcnt("vringfd") < 0, "kick_rmmod_after_close_while_kicking",
		     "delete_module gave %d (%s), %lu kicks so far", r, r ? strerror(e) : "-",
		     kk.kicks);
	before = kk.kicks;
	usleep(200000);
	r = (int)kicker_stop(&kk);
	eventfd_count(k.kick);
	kick(k.kick);
	result_check(!r && kk.kicks > before && eventfd_count(k.kick) == 1,
		     "kick_after_rmmod_reaches_nothing",
		     "%lu kicks after the unload, %d failed, or the eventfd is still consumed",
		     kk.kicks - before, r);
	kr_free(&k);
reload:
	r = kl_refcnt("vringfd") >= 0 ? 0 : kl_load(top, "vringfd.ko");
	e = errno;
	if (!r && echo)
		r = kl_load(top, "vringfd_echo.ko"), e = errno;
	result_check(!r && kl_refcnt("vringfd") >= 0 && (!echo || kl_refcnt("vringfd_echo") >= 0),
		     "kick_rmmod_reload", "finit_module: %s", r ? strerror(e) : "-");
	/* udev makes the device node again: wait for it (5 s at most) */
	for (r = 0; r < 500 && access(VRINGFD_DEVICE, F_OK); r++)
		usleep(10000);
}

int main(void)
{
	struct vringfd_version v;
	int cap, inj, big;

	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (vringfd_get_version(&v) < 0 || !(v.caps & VRINGFD_CAP_MEM_FILES)) {
		result_skip("tap_kick", "no rings of memory: %s", strerror(errno));
		return result_exit_status();
	}
	if (tc_sh("ip tuntap add dev " TXTAP " mode tap && ip link set " TXTAP " up && "
		  "ip tuntap add dev " RXTAP " mode tap && ip link set " RXTAP " up && "
		  "ip tuntap add dev " PLAINTAP " mode tap && ip link set " PLAINTAP " up && "
		  "ip tuntap add dev " LIFETAP " mode tap && ip link set " LIFETAP " up")) {
		result_fail("tap_kick", "cannot create taps");
		return 1;
	}
	tc_sh("for i in " TXTAP " " RXTAP " " LIFETAP "; do "
	      "sysctl -qw net.ipv6.conf.$i.disable_ipv6=1; done");
	cap = tc_packet_socket(TXTAP);
	inj = tc_packet_socket(RXTAP);
	if (cap < 0 || inj < 0) {
		result_fail("tap_kick", "packet sockets: %s", strerror(errno));
		return 1;
	}
	test_refusals();
	test_tx(cap);
	test_rx(inj);
	test_replace_and_fork(cap);
	test_end_while_kicking();
	test_storm(cap);
	test_daemon_not_woken(cap, inj);
	test_tun_deleted_idle();
	if (tc_sh("ip tuntap add dev " BIGTAP " mode tap && ip link set " BIGTAP " mtu 9000 up && "
		  "sysctl -qw net.ipv6.conf." BIGTAP ".disable_ipv6=1") ||
	    (big = tc_packet_socket(BIGTAP)) < 0) {
		result_fail("kick_rx_requeue_after_dropped_weight", "cannot make " BIGTAP);
	} else {
		tc_wait_carrier(BIGTAP);
		test_rx_weight_of_drops(big);
		close(big);
	}
	test_rmmod_while_kicking();
	tc_sh("ip link del " TXTAP "; ip link del " RXTAP "; ip link del " PLAINTAP
	      "; ip link del " LIFETAP "; ip link del " BIGTAP);
	return result_exit_status();
}
