// SPDX-License-Identifier: GPL-2.0
/*
 * tap_bounds.c - the three defects an ABI-only stress test found in the tap
 * attachment, each as a directed test (run in the VM: tests/vm/guest-run).
 *
 *   netns_dies_under_attachment  A tap created here is moved into a
 *       namespace that only one thread of ours is in; that thread attaches
 *       a TX and an RX ring naming the device (struct vringfd_tap.ifindex,
 *       looked up in *its* namespace) and exits.  The namespace must stay
 *       alive while the attachment uses it: write(), read(), poll() and
 *       close() afterwards are fine (before: a use-after-free of the dead
 *       namespace in the drop counter update, a general protection fault
 *       on the Debian kernel, a KASAN report on the debug kernel).
 *   netns_dies_no_ifindex  The same without ifindex: the attachment holds
 *       no namespace, so the namespace dies and its tap with it: write()
 *       and read() answer EPIPE, poll() POLLHUP, the kernel log is clean.
 *   rx_unusable_chains_bounded   An RX ring of 16384 whose every avail
 *       entry names the same 16384-descriptor readable chain, one frame
 *       queued on the tap: one read() may skip only a bounded number of
 *       chains (before: it skipped all 16384, 268 M descriptor reads, an
 *       RCU stall).
 *   tx_split_segments_bounded    A memory table of 64 one-byte regions and
 *       TX chains of up to 32768 descriptors of 64 bytes each (one segment
 *       per byte): one write() refuses each chain as soon as it overflows
 *       the segment array and stops after a bounded amount of walk work
 *       (before: each chain was walked to its end, 2 M segments, and 256
 *       chains per write(): a soft lockup).
 *
 *   tx_head_twice_in_flight_broken  The same head made available twice
 *       while the first is in flight breaks the ring (completions are
 *       accounted per head, not as a count).
 *
 * The bound checked is the one kmod/README.md documents: VRFD_WEIGHT_WALK
 * (4096) walk units per call, a chain refused at its 1025th descriptor or
 * segment; so one call handles at most a handful of such chains.
 */
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>

#include "tap_common.h"

/* Most chains one call may handle when each costs >= 1024 walk units. */
#define BOUND_CHAINS	8

/**
 * struct ns_job - what the namespace thread does
 * @tap_fd: the tap (created in the test's namespace)
 * @ifname: its name
 * @declare: attach naming the device (ifindex in the thread's namespace)
 * @tx: TX ring fd to attach
 * @rx: RX ring fd to attach
 * @tid: the thread's id (out), for "ip link set ... netns TID"
 * @moved: set by the main thread once the tap is in the thread's namespace
 * @err: errno of the first failure (out), 0 if none
 * @lock: protects the fields above
 * @cond: signalled on every change
 */
struct ns_job {
	int tap_fd, tx, rx;
	const char *ifname;
	int declare;
	pid_t tid;
	int moved, err;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/**
 * ns_thread() - unshare a network namespace, wait for the tap, attach
 * @arg: the struct ns_job
 *
 * Return: NULL.  The thread's namespace dies when it exits (nothing else
 * holds it, unless the attachment does).
 */
static void *ns_thread(void *arg)
{
	struct ns_job *j = arg;
	struct vringfd_tap a;
	unsigned int d;
	int err = 0;

	if (unshare(CLONE_NEWNET) < 0)
		err = errno;
	pthread_mutex_lock(&j->lock);
	j->tid = (pid_t)syscall(SYS_gettid);
	j->err = err;
	pthread_cond_broadcast(&j->cond);
	while (!err && !j->moved)
		pthread_cond_wait(&j->cond, &j->lock);
	pthread_mutex_unlock(&j->lock);
	if (err || j->moved < 0)
		return NULL;
	for (d = VRINGFD_DIR_TX; !err && d <= VRINGFD_DIR_RX; d++) {
		memset(&a, 0, sizeof(a));
		a.tap_fd = j->tap_fd;
		a.dir = d;
		a.ifindex = j->declare ? (int)if_nametoindex(j->ifname) : 0;
		if (j->declare && !a.ifindex)
			err = ENODEV;
		else if (vringfd_attach_tap_ex(d == VRINGFD_DIR_TX ? j->tx : j->rx, &a) < 0)
			err = errno;
	}
	pthread_mutex_lock(&j->lock);
	j->err = err;
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

/**
 * post_frame() - make one 64-byte frame available on a TX ring
 * @t: the ring
 * @buf: frame memory (64 bytes)
 *
 * Return: 0 or -1.
 */
static int post_frame(struct tc_ring *t, uint8_t *buf)
{
	struct iovec v = { .iov_base = buf, .iov_len = 64 };

	tc_frame(buf, 64, 7);
	if (vringfd_ring_add(&t->r, &v, 1, NULL, 0, buf) < 0)
		return -1;
	vringfd_ring_publish(&t->r);
	return 0;
}

/**
 * test_netns_dies() - the namespace the attaching thread was in dies
 * @declare: the thread names the device (ifindex): the attachment holds
 *	the namespace; else nothing does and the tap goes with it
 */
static void test_netns_dies(int declare)
{
	const char *name = declare ? "netns_dies_under_attachment" : "netns_dies_no_ifindex";
	static uint8_t frame[64], rxbuf[2048];
	struct iovec rv = { .iov_base = rxbuf, .iov_len = sizeof(rxbuf) };
	struct ns_job j = { .lock = PTHREAD_MUTEX_INITIALIZER,
			    .cond = PTHREAD_COND_INITIALIZER };
	struct tc_ring tx, rx;
	struct pollfd pfd;
	pthread_t th;
	long w1, w2, rd;
	int pr, i;

	if (tc_ring_new(&tx, 64, 0) || tc_ring_new(&rx, 64, 0)) {
		result_fail(name, "rings: %s", strerror(errno));
		return;
	}
	j.tap_fd = tc_tap_open("vrbns0", IFF_TAP | IFF_NO_PI);
	j.ifname = "vrbns0";
	j.declare = declare;
	j.tx = tx.fd;
	j.rx = rx.fd;
	if (j.tap_fd < 0) {
		result_fail(name, "tap: %s", strerror(errno));
		goto out;
	}
	if (pthread_create(&th, NULL, ns_thread, &j)) {
		result_fail(name, "pthread_create failed");
		goto out;
	}
	pthread_mutex_lock(&j.lock);
	while (!j.tid && !j.err)
		pthread_cond_wait(&j.cond, &j.lock);
	pthread_mutex_unlock(&j.lock);
	if (!j.err && tc_sh("ip link set dev vrbns0 netns %d", (int)j.tid) != 0)
		j.err = -1;
	pthread_mutex_lock(&j.lock);
	j.moved = j.err ? -1 : 1;
	pthread_cond_broadcast(&j.cond);
	pthread_mutex_unlock(&j.lock);
	pthread_join(th, NULL);
	if (j.err) {
		result_fail(name, "setup (unshare, move, attach): %s",
			  j.err > 0 ? strerror(j.err) : "ip link set netns failed");
		goto out;
	}
	/* The thread and its namespace's last user are gone: let cleanup_net run. */
	sleep(1);
	if (tc_sh("ip link show vrbns0 >/dev/null 2>&1") == 0) {
		result_fail(name, "vrbns0 is still in the test's namespace");
		goto out;
	}
	/* without ifindex: wait for cleanup_net to take the tap (up to 20 s) */
	for (i = 0; !declare && i < 200; i++) {
		pfd.fd = rx.fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 100) == 1 && (pfd.revents & POLLHUP))
			break;
	}
	post_frame(&tx, frame);
	w1 = write(tx.fd, "", 1);
	usleep(20000);		/* the drop counter is refreshed once a tick */
	post_frame(&tx, frame);
	w2 = write(tx.fd, "", 1);
	vringfd_ring_add(&rx.r, NULL, 0, &rv, 1, rxbuf);
	vringfd_ring_publish(&rx.r);
	rd = read(rx.fd, rxbuf, 1);
	pfd.fd = rx.fd;
	pfd.events = POLLIN;
	pr = poll(&pfd, 1, 0);
	if (declare)
		result_check(w1 >= 0 && w2 >= 0 && rd >= 0 && pr >= 0 && tc_kmsg_clean(), name,
			     "write %ld/%ld, read %ld, poll %d (errno %s), kernel log clean %d",
			     w1, w2, rd, pr, strerror(errno), tc_kmsg_clean());
	else
		result_check(w2 < 0 && rd < 0 && errno == EPIPE && pr == 1 &&
			     (pfd.revents & POLLHUP) && tc_kmsg_clean(), name,
			     "write %ld/%ld, read %ld (errno %s), poll %d revents %#x, want EPIPE, POLLHUP; kernel log clean %d",
			     w1, w2, rd, strerror(errno), pr, pr == 1 ? pfd.revents : 0, tc_kmsg_clean());
out:
	tc_ring_free(&tx);
	tc_ring_free(&rx);
	if (j.tap_fd >= 0)
		close(j.tap_fd);
	/* the namespace (and the tap in it) goes with the last reference */
}

/**
 * used_idx() - the ring's used index as the kernel published it
 * @t: the ring
 *
 * Return: used->idx.
 */
static uint16_t used_idx(struct tc_ring *t)
{
	return __atomic_load_n(&t->r.vr.used->idx, __ATOMIC_ACQUIRE);
}

/**
 * fill_avail() - make @n entries available, each naming head 0
 * @t: the ring
 * @n: entries
 */
static void fill_avail(struct tc_ring *t, unsigned int n)
{
	struct vring_avail *a = t->r.vr.avail;
	unsigned int i;

	for (i = 0; i < n; i++)
		a->ring[(a->idx + i) % t->r.vr.num] = 0;
	__atomic_store_n(&a->idx, (uint16_t)(a->idx + n), __ATOMIC_RELEASE);
}

/**
 * test_rx_unusable_bounded() - one read() skips a bounded number of chains
 */
static void test_rx_unusable_bounded(void)
{
	const char *name = "rx_unusable_chains_bounded";
	static uint8_t byte;
	unsigned int i, num = 16384, used;
	struct vringfd_stats st;
	struct tc_ring rx;
	uint8_t frame[64];
	int tap, s = -1;
	long r;

	tap = tc_tap_open("vrbrx0", IFF_TAP | IFF_NO_PI);
	if (tap < 0 || tc_ring_new(&rx, num, 0)) {
		result_fail(name, "setup: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < num; i++) {
		rx.r.vr.desc[i].addr = (uintptr_t)&byte;
		rx.r.vr.desc[i].len = 1;
		rx.r.vr.desc[i].flags = i + 1 < num ? VRING_DESC_F_NEXT : 0;
		rx.r.vr.desc[i].next = (uint16_t)(i + 1);
	}
	fill_avail(&rx, num);
	if (tc_attach(rx.fd, tap, VRINGFD_DIR_RX, 0, 0) < 0 ||
	    tc_sh("ip link set vrbrx0 up") || !tc_wait_carrier("vrbrx0") ||
	    (s = tc_packet_socket("vrbrx0")) < 0) {
		result_fail(name, "attach/up: %s", strerror(errno));
		goto out;
	}
	tc_frame(frame, sizeof(frame), 3);
	if (send(s, frame, sizeof(frame), 0) != sizeof(frame)) {
		result_fail(name, "send: %s", strerror(errno));
		goto out;
	}
	r = read(rx.fd, frame, 1);
	used = used_idx(&rx);
	vringfd_get_stats(rx.fd, &st);
	result_check(r >= 0 && used >= 1 && used <= BOUND_CHAINS &&
		  st.drop_bad_chain == used, name,
		  "read %ld (%s), chains completed %u (want 1..%d), drop_bad_chain %llu",
		  r, r < 0 ? strerror(errno) : "-", used, BOUND_CHAINS,
		  (unsigned long long)st.drop_bad_chain);
out:
	if (s >= 0)
		close(s);
	tc_ring_free(&rx);
	if (tap >= 0)
		close(tap);
}

/**
 * test_tx_split_bounded() - one write() refuses over-long chains at once
 */
static void test_tx_split_bounded(void)
{
	const char *name = "tx_split_segments_bounded";
	struct vringfd_mem_region reg[VRINGFD_MAX_MEM_REGIONS];
	unsigned int i, num = 32768, used;
	struct vringfd_stats st;
	struct tc_ring tx;
	uint8_t *mem = NULL;
	int tap;
	long r;

	tap = tc_tap_open("vrbtx0", IFF_TAP | IFF_NO_PI);
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (tap < 0 || mem == MAP_FAILED || tc_ring_new(&tx, num, 0)) {
		result_fail(name, "setup: %s", strerror(errno));
		goto out;
	}
	/* guest bytes 0..63, each its own region, two user bytes apart */
	for (i = 0; i < VRINGFD_MAX_MEM_REGIONS; i++) {
		memset(&reg[i], 0, sizeof(reg[i]));
		reg[i].guest_addr = i;
		reg[i].size = 1;
		reg[i].user_addr = (uintptr_t)mem + 2 * i;
	}
	for (i = 0; i < num; i++) {
		tx.r.vr.desc[i].addr = 0;
		tx.r.vr.desc[i].len = VRINGFD_MAX_MEM_REGIONS;
		tx.r.vr.desc[i].flags = i + 1 < num ? VRING_DESC_F_NEXT : 0;
		tx.r.vr.desc[i].next = (uint16_t)(i + 1);
	}
	fill_avail(&tx, 1024);
	if (vringfd_set_mem_table(tx.fd, reg, VRINGFD_MAX_MEM_REGIONS) < 0 ||
	    tc_attach(tx.fd, tap, VRINGFD_DIR_TX, 0, 0) < 0) {
		result_fail(name, "mem table/attach: %s", strerror(errno));
		goto out;
	}
	r = write(tx.fd, "", 1);
	used = used_idx(&tx);
	vringfd_get_stats(tx.fd, &st);
	result_check(r >= 1 && r <= BOUND_CHAINS && used == r && st.drop_bad_chain == (unsigned long long)r,
		  name, "write %ld (%s) (want 1..%d chains), used %u, drop_bad_chain %llu",
		  r, r < 0 ? strerror(errno) : "-", BOUND_CHAINS, used,
		  (unsigned long long)st.drop_bad_chain);
out:
	tc_ring_free(&tx);
	if (mem && mem != MAP_FAILED)
		munmap(mem, 4096);
	if (tap >= 0)
		close(tap);
}

/**
 * test_head_twice() - a head made available again while it is in flight
 *
 * TX batches frames before completing them, so the second avail entry
 * naming head 0 is read while head 0 is still in flight: the ring breaks
 * (before, the frame went out twice and head 0 was completed twice).
 */
static void test_head_twice(void)
{
	const char *name = "tx_head_twice_in_flight_broken";
	static uint8_t frame[64];
	struct vringfd_state st;
	struct tc_ring tx;
	int tap, e;
	long r;

	tap = tc_tap_open("vrbtw0", IFF_TAP | IFF_NO_PI);
	if (tap < 0 || tc_ring_new(&tx, 8, 0) ||
	    tc_attach(tx.fd, tap, VRINGFD_DIR_TX, 0, 0) < 0) {
		result_fail(name, "setup: %s", strerror(errno));
		goto out;
	}
	tc_frame(frame, sizeof(frame), 9);
	tx.r.vr.desc[0].addr = (uintptr_t)frame;
	tx.r.vr.desc[0].len = sizeof(frame);
	tx.r.vr.desc[0].flags = 0;
	fill_avail(&tx, 2);
	r = write(tx.fd, "", 1);
	e = errno;
	vringfd_get_state(tx.fd, &st);
	result_check(r < 0 && e == EIO && (st.flags & VRINGFD_STATE_BROKEN), name,
		  "write %ld (%s, want EIO), state flags %#x", r,
		  r < 0 ? strerror(e) : "-", st.flags);
out:
	tc_ring_free(&tx);
	if (tap >= 0)
		close(tap);
}

/**
 * main() - run the directed tests
 *
 * Return: 0 when none failed.
 */
int main(void)
{
	if (access("/dev/vringfd", R_OK | W_OK) || access("/dev/net/tun", R_OK | W_OK)) {
		result_skip("tap_bounds", "/dev/vringfd or /dev/net/tun missing");
		return 0;
	}
	test_netns_dies(1);
	test_netns_dies(0);
	test_rx_unusable_bounded();
	test_tx_split_bounded();
	test_head_twice();
	return result_exit_status();
}
