// SPDX-License-Identifier: GPL-2.0
/*
 * tap_world.c - the tap attachment when its world changes under it (run
 * in the VM: tests/vm/guest-run).  Each case reproduces a wrong answer
 * deterministically through the ABI alone.
 *
 *   rx_held_set_mem_table   An RX buffer is posted in a memory-table
 *       region, a frame too big for it is dropped (the module took the
 *       head), the table is replaced so the region moves, an unrelated
 *       memfd is mapped where the region was, and a frame that fits is
 *       queued: it must land at the region's new place; the unrelated
 *       memfd must stay untouched.
 *   rx_held_state_last_avail  After such a drop GET_STATE's last_avail
 *       names the posted buffer as still to be read (a successor resumes
 *       there).
 *   rx_held_detach          After such a drop, DETACH and a new RX
 *       attachment on the same ring: the posted buffer takes the next
 *       frame (it is not lost).
 *   rx_held_mrg_given_back  MRG_RXBUF: two posted buffers too small
 *       together for the queued frame: read() gives both back
 *       (last_avail 0, nothing used); a third buffer posted, the frame
 *       takes all three heads (num_buffers 3).
 *   rx_held_mrg_gap         MRG_RXBUF: a good buffer, an unusable chain
 *       (readable), a good buffer, too small together: the newest is
 *       given back, the oldest (behind the completed unusable chain) is
 *       completed with length 0: nothing is kept, last_avail 2.
 *   rx_fault_*              A posted RX buffer (or its frame part after a
 *       good header) in PROT_NONE memory: the frame cannot be written; the
 *       chain is completed with length 0, counted in drop_bad_addr, not in
 *       frames.
 *   gone_{macvtap,ipvtap}_* The device of a macvtap/ipvtap queue is
 *       deleted with both rings attached: write() (empty ring and with a
 *       frame) and read() answer EPIPE, poll() POLLHUP, GET_STATE has
 *       VRINGFD_STATE_HUP; a new ring attached to the fd gets ENODEV.
 *   gone_tun_*              The same for a tun (its TX ring empty at
 *       the first write()).
 *   vtap_netns_move_not_gone  A macvtap moved to another network
 *       namespace (NETDEV_UNREGISTER without an unregistration) keeps
 *       working: write() sends, no HUP.
 */
#include <poll.h>
#include <sys/syscall.h>

#include "tap_common.h"

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC	0x0001U
#endif

/* Guest-physical address of the test's one memory-table region. */
#define W_GPA		0x100000ULL
/* Bytes of the region (one page). */
#define W_REGION	4096
/* The posted RX buffer: this many bytes at W_GPA + W_BUF_OFF. */
#define W_BUF_OFF	256
#define W_BUF_LEN	100
/* Fill bytes: the unrelated memfd and the region before any frame. */
#define W_UNRELATED	0x5a
#define W_FILL		0xc3

/* read() on a vring fd copies nothing: any buffer. */
static char w_junk[1];

/**
 * w_memfd() - a memfd of @size bytes filled with @fill
 * @name: its name
 * @size: bytes
 * @fill: byte value
 *
 * Return: the fd, or -1.
 */
static int w_memfd(const char *name, size_t size, int fill)
{
	int fd = (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC);
	void *p;

	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)size) < 0) {
		close(fd);
		return -1;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return -1;
	}
	memset(p, fill, size);
	munmap(p, size);
	return fd;
}

/**
 * w_table() - VRINGFD_SET_MEM_TABLE with one region: W_GPA -> @user
 * @ring_fd: vring fd
 * @user: where the region is mapped
 *
 * Return: as vringfd_set_mem_table().
 */
static int w_table(int ring_fd, void *user)
{
	struct vringfd_mem_region reg;

	memset(&reg, 0, sizeof(reg));
	reg.guest_addr = W_GPA;
	reg.size = W_REGION;
	reg.user_addr = (uintptr_t)user;
	return vringfd_set_mem_table(ring_fd, &reg, 1);
}

/**
 * w_post_rx() - post one writable buffer
 * @t: the ring
 * @addr: its address (guest-physical with a memory table)
 * @len: its bytes
 *
 * Return: head, or < 0.
 */
static int w_post_rx(struct tc_ring *t, uint64_t addr, size_t len)
{
	struct iovec v = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	int h = vringfd_ring_add(&t->r, NULL, 0, &v, 1, (void *)(uintptr_t)(addr | 1));

	vringfd_ring_publish(&t->r);
	return h;
}

/**
 * w_up() - bring a tap up without IPv6 (whose link-up frames would take
 * the posted buffers)
 * @ifname: the tap
 *
 * Return: 0, or the failing command's status.
 */
static int w_up(const char *ifname)
{
	return tc_sh("sysctl -qw net.ipv6.conf.%s.disable_ipv6=1 && ip link set %s up",
		     ifname, ifname);
}

/**
 * w_send() - queue one frame of @len bytes on a tap (through the stack)
 * @s: packet socket bound to the tap
 * @len: frame length
 * @seq: pattern seed (tc_frame())
 *
 * Return: 0 or -1.
 */
static int w_send(int s, size_t len, unsigned int seq)
{
	uint8_t f[2048];

	tc_frame(f, len, seq);
	return send(s, f, len, 0) == (ssize_t)len ? 0 : -1;
}

/**
 * struct w_rx - an RX ring over a memory table on a fresh tap
 * @tap: tap fd
 * @s: packet socket bound to the tap
 * @rx: the ring
 * @mfd: the region's memfd
 * @old: the region's first mapping
 * @ifname: the tap's name
 */
struct w_rx {
	int tap, s;
	struct tc_ring rx;
	int mfd;
	uint8_t *old;
	const char *ifname;
};

/**
 * w_rx_setup() - tap, RX ring with a one-region table, one posted buffer,
 * one frame too big for it read (dropped, the head taken by the module)
 * @w: filled in
 * @name: test name (for failures)
 * @ifname: tap name
 *
 * Return: 0, or -1 (a FAIL line printed).
 */
static int w_rx_setup(struct w_rx *w, const char *name, const char *ifname)
{
	struct vringfd_stats st;
	long r;

	memset(w, 0, sizeof(*w));
	w->s = -1;
	w->mfd = -1;
	w->old = MAP_FAILED;
	w->ifname = ifname;
	w->tap = tc_tap_open(ifname, IFF_TAP | IFF_NO_PI);
	if (w->tap < 0 || tc_ring_new(&w->rx, 8, 0)) {
		result_fail(name, "tap/ring: %s", strerror(errno));
		return -1;
	}
	w->mfd = w_memfd("vrw-region", W_REGION, W_FILL);
	if (w->mfd >= 0)
		w->old = mmap(NULL, W_REGION, PROT_READ | PROT_WRITE, MAP_SHARED, w->mfd, 0);
	if (w->old == MAP_FAILED || w_table(w->rx.fd, w->old) < 0 ||
	    tc_attach(w->rx.fd, w->tap, VRINGFD_DIR_RX, 0, 0) < 0 ||
	    w_up(ifname) || !tc_wait_carrier(ifname) ||
	    (w->s = tc_packet_socket(ifname)) < 0) {
		result_fail(name, "memfd/table/attach/up: %s", strerror(errno));
		return -1;
	}
	if (w_post_rx(&w->rx, W_GPA + W_BUF_OFF, W_BUF_LEN) < 0 ||
	    w_send(w->s, 2 * W_BUF_LEN, 1) < 0) {
		result_fail(name, "post/send: %s", strerror(errno));
		return -1;
	}
	r = read(w->rx.fd, w_junk, 1);
	if (vringfd_get_stats(w->rx.fd, &st) < 0 || r < 0 || st.drop_too_big != 1 ||
	    tc_drain_used(&w->rx, NULL) != 0) {
		result_fail(name, "setup: read %ld (%s), drop_too_big %llu, want 1 and no used entry",
			    r, r < 0 ? strerror(errno) : "-",
			    (unsigned long long)st.drop_too_big);
		return -1;
	}
	return 0;
}

/**
 * w_rx_free() - undo w_rx_setup()
 * @w: as set up
 */
static void w_rx_free(struct w_rx *w)
{
	if (w->s >= 0)
		close(w->s);
	tc_ring_free(&w->rx);
	if (w->old != MAP_FAILED)
		munmap(w->old, W_REGION);
	if (w->mfd >= 0)
		close(w->mfd);
	if (w->tap >= 0)
		close(w->tap);
	tc_sh("ip link del %s 2>/dev/null", w->ifname);
}

/**
 * w_count() - bytes of @p[0..@n) equal to @v
 * @p: memory
 * @n: bytes
 * @v: value
 *
 * Return: the count.
 */
static size_t w_count(const uint8_t *p, size_t n, uint8_t v)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		c += p[i] == v;
	return c;
}

/**
 * test_held_set_mem_table() - a memory-table swap with a head held
 */
static void test_held_set_mem_table(void)
{
	const char *name = "rx_held_set_mem_table";
	uint8_t *moved = MAP_FAILED, *unrel = MAP_FAILED, want[64];
	struct vringfd_stats st;
	uint32_t len = 0;
	int ufd = -1, used = 0;
	size_t dirty;
	struct w_rx w;
	long r;

	if (w_rx_setup(&w, name, "vrwmt0"))
		goto out;
	/* the region moves: the same memory, mapped elsewhere */
	moved = mmap(NULL, W_REGION, PROT_READ | PROT_WRITE, MAP_SHARED, w.mfd, 0);
	ufd = w_memfd("vrw-unrelated", W_REGION, W_UNRELATED);
	if (moved == MAP_FAILED || ufd < 0 || w_table(w.rx.fd, moved) < 0) {
		result_fail(name, "move the region: %s", strerror(errno));
		goto out;
	}
	/* an unrelated memfd where the region was */
	unrel = mmap(w.old, W_REGION, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, ufd, 0);
	if (unrel != w.old) {
		result_fail(name, "map the unrelated memfd: %s", strerror(errno));
		unrel = MAP_FAILED;
		goto out;
	}
	w.old = MAP_FAILED;	/* now unrel's */
	if (w_send(w.s, sizeof(want), 2) < 0) {
		result_fail(name, "send: %s", strerror(errno));
		goto out;
	}
	r = read(w.rx.fd, w_junk, 1);
	if (vringfd_ring_get_used(&w.rx.r, &len))
		used = 1;
	vringfd_get_stats(w.rx.fd, &st);
	tc_frame(want, sizeof(want), 2);
	dirty = W_REGION - w_count(unrel, W_REGION, W_UNRELATED);
	result_check(r >= 0 && used && len == sizeof(want) && dirty == 0 &&
		     !memcmp(moved + W_BUF_OFF, want, sizeof(want)), name,
		     "read %ld (%s), used entry %d len %u (want 1, %zu), unrelated memfd bytes written %zu (want 0), frame at the region's new place %s, frames %llu",
		     r, r < 0 ? strerror(errno) : "-", used, len, sizeof(want), dirty,
		     memcmp(moved + W_BUF_OFF, want, sizeof(want)) ? "missing" : "there",
		     (unsigned long long)st.frames);
out:
	if (moved != MAP_FAILED)
		munmap(moved, W_REGION);
	if (unrel != MAP_FAILED)
		munmap(unrel, W_REGION);
	if (ufd >= 0)
		close(ufd);
	w_rx_free(&w);
}

/**
 * test_held_state() - GET_STATE does not count a head the module gave back
 */
static void test_held_state(void)
{
	const char *name = "rx_held_state_last_avail";
	struct vringfd_state st;
	struct w_rx w;

	if (w_rx_setup(&w, name, "vrwst0"))
		goto out;
	if (vringfd_get_state(w.rx.fd, &st) < 0) {
		result_fail(name, "GET_STATE: %s", strerror(errno));
		goto out;
	}
	result_check(st.last_avail == 0 && st.used_idx == 0, name,
		     "last_avail %u used_idx %u after a dropped frame, want 0 and 0 (the posted buffer is still to be read)",
		     st.last_avail, st.used_idx);
out:
	w_rx_free(&w);
}

/**
 * test_held_detach() - DETACH gives the taken head back to a successor
 */
static void test_held_detach(void)
{
	const char *name = "rx_held_detach";
	uint8_t want[64];
	uint32_t len = 0;
	struct w_rx w;
	int used = 0;
	long r;

	if (w_rx_setup(&w, name, "vrwdt0"))
		goto out;
	if (vringfd_detach(w.rx.fd) < 0 ||
	    tc_attach(w.rx.fd, w.tap, VRINGFD_DIR_RX, 0, 0) < 0) {
		result_fail(name, "detach/attach: %s", strerror(errno));
		goto out;
	}
	if (w_send(w.s, sizeof(want), 3) < 0) {
		result_fail(name, "send: %s", strerror(errno));
		goto out;
	}
	r = read(w.rx.fd, w_junk, 1);
	if (vringfd_ring_get_used(&w.rx.r, &len))
		used = 1;
	tc_frame(want, sizeof(want), 3);
	result_check(r >= 0 && used && len == sizeof(want) &&
		     !memcmp(w.old + W_BUF_OFF, want, sizeof(want)), name,
		     "read %ld (%s), used entry %d len %u (want 1, %zu), frame in the buffer %s",
		     r, r < 0 ? strerror(errno) : "-", used, len, sizeof(want),
		     memcmp(w.old + W_BUF_OFF, want, sizeof(want)) ? "no" : "yes");
out:
	w_rx_free(&w);
}

/**
 * struct w_mrg - an RX ring with MRG_RXBUF (12-byte header) on a fresh tap
 * @tap: tap fd
 * @s: packet socket bound to it
 * @rx: the ring
 * @buf: buffer memory (4 x 64 bytes)
 * @ifname: the tap's name
 */
struct w_mrg {
	int tap, s;
	struct tc_ring rx;
	uint8_t buf[4][64];
	const char *ifname;
};

/**
 * w_mrg_setup() - tap with a 12-byte header, MRG_RXBUF RX ring attached
 * @w: filled in
 * @name: test name (for failures)
 * @ifname: tap name
 *
 * Return: 0, or -1 (a FAIL line printed).
 */
static int w_mrg_setup(struct w_mrg *w, const char *name, const char *ifname)
{
	memset(w, 0, sizeof(*w));
	w->s = -1;
	w->ifname = ifname;
	w->tap = tc_tap_open(ifname, IFF_TAP | IFF_NO_PI | IFF_VNET_HDR);
	if (w->tap < 0 || tc_set_hdr(w->tap, 12) || tc_ring_new(&w->rx, 8, 0) ||
	    tc_attach(w->rx.fd, w->tap, VRINGFD_DIR_RX, 12, VRINGFD_TAP_F_MRG_RXBUF) < 0 ||
	    w_up(ifname) || !tc_wait_carrier(ifname) ||
	    (w->s = tc_packet_socket(ifname)) < 0) {
		result_fail(name, "tap/ring/attach/up: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/**
 * w_mrg_free() - undo w_mrg_setup()
 * @w: as set up
 */
static void w_mrg_free(struct w_mrg *w)
{
	if (w->s >= 0)
		close(w->s);
	tc_ring_free(&w->rx);
	if (w->tap >= 0)
		close(w->tap);
	tc_sh("ip link del %s 2>/dev/null", w->ifname);
}

/**
 * test_held_mrg() - MRG_RXBUF: heads taken for a frame that waits go back
 */
static void test_held_mrg(void)
{
	const char *name = "rx_held_mrg_given_back";
	struct vringfd_state st1, st2;
	uint32_t lens[4] = { 0 };
	struct w_mrg w;
	uint16_t nb = 0;
	int i, used = 0;
	long r1, r2;

	if (w_mrg_setup(&w, name, "vrwmg0"))
		goto out;
	for (i = 0; i < 2; i++)
		w_post_rx(&w.rx, (uintptr_t)w.buf[i], sizeof(w.buf[i]));
	/* 12 + 150 bytes: more than two 64-byte buffers, less than three */
	if (w_send(w.s, 150, 6) < 0) {
		result_fail(name, "send: %s", strerror(errno));
		goto out;
	}
	r1 = read(w.rx.fd, w_junk, 1);
	vringfd_get_state(w.rx.fd, &st1);
	w_post_rx(&w.rx, (uintptr_t)w.buf[2], sizeof(w.buf[2]));
	r2 = read(w.rx.fd, w_junk, 1);
	vringfd_get_state(w.rx.fd, &st2);
	while (used < 4 && vringfd_ring_get_used(&w.rx.r, &lens[used]))
		used++;
	memcpy(&nb, w.buf[0] + 10, sizeof(nb));
	result_check(r1 >= 0 && st1.last_avail == 0 && st1.used_idx == 0 &&
		     r2 == 3 && used == 3 && lens[0] + lens[1] + lens[2] == 162 && nb == 3 &&
		     st2.last_avail == 3, name,
		     "first read %ld, last_avail %u used_idx %u (want 0, 0); second read %ld (want 3), used %d lens %u+%u+%u (want 3, 162 bytes), num_buffers %u, last_avail %u",
		     r1, st1.last_avail, st1.used_idx, r2, used, lens[0], lens[1], lens[2],
		     nb, st2.last_avail);
out:
	w_mrg_free(&w);
}

/**
 * test_held_mrg_gap() - MRG_RXBUF: a completed chain between held heads
 */
static void test_held_mrg_gap(void)
{
	const char *name = "rx_held_mrg_gap";
	struct iovec bad = { .iov_base = NULL, .iov_len = 64 };
	struct vringfd_stats stats;
	struct vringfd_state st;
	uint32_t lens[4] = { 0 };
	struct w_mrg w;
	int used = 0;
	long r;

	if (w_mrg_setup(&w, name, "vrwmg1"))
		goto out;
	bad.iov_base = w.buf[3];
	w_post_rx(&w.rx, (uintptr_t)w.buf[0], sizeof(w.buf[0]));
	vringfd_ring_add(&w.rx.r, &bad, 1, NULL, 0, w.buf[3]);	/* readable: unusable */
	w_post_rx(&w.rx, (uintptr_t)w.buf[1], sizeof(w.buf[1]));
	if (w_send(w.s, 150, 7) < 0) {
		result_fail(name, "send: %s", strerror(errno));
		goto out;
	}
	r = read(w.rx.fd, w_junk, 1);
	vringfd_get_state(w.rx.fd, &st);
	vringfd_get_stats(w.rx.fd, &stats);
	while (used < 4 && vringfd_ring_get_used(&w.rx.r, &lens[used]))
		used++;
	result_check(r >= 0 && used == 2 && !lens[0] && !lens[1] && st.last_avail == 2 &&
		     stats.drop_bad_chain == 1 && stats.frames == 0, name,
		     "read %ld (%s), used %d lens %u,%u (want 2 empty), last_avail %u (want 2), drop_bad_chain %llu frames %llu",
		     r, r < 0 ? strerror(errno) : "-", used, lens[0], lens[1], st.last_avail,
		     (unsigned long long)stats.drop_bad_chain, (unsigned long long)stats.frames);
out:
	w_mrg_free(&w);
}

/**
 * test_rx_fault() - a frame that cannot be written is not delivered
 * @name: test name
 * @ifname: tap name
 * @hdr: virtio-net header bytes (0: no IFF_VNET_HDR)
 * @split: the header in a good page, the frame in a PROT_NONE one (else
 *	the whole buffer is PROT_NONE)
 */
static void test_rx_fault(const char *name, const char *ifname, int hdr, int split)
{
	struct vringfd_stats st;
	struct tc_ring rx;
	uint8_t *mem;
	uint32_t len = 0;
	int tap, s = -1, used = 0;
	long r;

	rx.fd = -1;
	rx.mem = NULL;
	mem = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	tap = tc_tap_open(ifname, IFF_TAP | IFF_NO_PI | (hdr ? IFF_VNET_HDR : 0));
	if (mem == MAP_FAILED || tap < 0 || (hdr && tc_set_hdr(tap, hdr)) ||
	    tc_ring_new(&rx, 8, 0) || mprotect(mem + 4096, 4096, PROT_NONE)) {
		result_fail(name, "setup: %s", strerror(errno));
		goto out;
	}
	if (split) {
		struct iovec v[2] = {
			{ .iov_base = mem + 4096 - hdr, .iov_len = hdr },
			{ .iov_base = mem + 4096, .iov_len = 2048 },
		};

		r = vringfd_ring_add(&rx.r, NULL, 0, v, 2, mem);
	} else {
		struct iovec v = { .iov_base = mem + 4096, .iov_len = 2048 };

		r = vringfd_ring_add(&rx.r, NULL, 0, &v, 1, mem);
	}
	vringfd_ring_publish(&rx.r);
	if (r < 0 || tc_attach(rx.fd, tap, VRINGFD_DIR_RX, hdr, 0) < 0 ||
	    w_up(ifname) || !tc_wait_carrier(ifname) ||
	    (s = tc_packet_socket(ifname)) < 0 || w_send(s, 60, 4) < 0) {
		result_fail(name, "post/attach/up/send: %s", strerror(errno));
		goto out;
	}
	r = read(rx.fd, w_junk, 1);
	if (vringfd_ring_get_used(&rx.r, &len))
		used = 1;
	vringfd_get_stats(rx.fd, &st);
	result_check(r >= 0 && used && len == 0 && st.frames == 0 && st.drop_bad_addr == 1,
		     name, "read %ld (%s), used entry %d len %u, frames %llu, drop_bad_addr %llu; want the chain completed with 0, frames 0, drop_bad_addr 1",
		     r, r < 0 ? strerror(errno) : "-", used, len,
		     (unsigned long long)st.frames, (unsigned long long)st.drop_bad_addr);
out:
	if (s >= 0)
		close(s);
	if (rx.fd >= 0 || rx.mem)
		tc_ring_free(&rx);
	if (tap >= 0)
		close(tap);
	if (mem != MAP_FAILED)
		munmap(mem, 8192);
	tc_sh("ip link del %s 2>/dev/null", ifname);
}

/**
 * w_gone_check() - after the device went away: EPIPE, POLLHUP, STATE_HUP
 * @prefix: test name prefix
 * @tx: TX ring (attached), or NULL
 * @rx: RX ring (attached), or NULL
 */
static void w_gone_check(const char *prefix, struct tc_ring *tx, struct tc_ring *rx)
{
	static uint8_t frame[64], rxbuf[2048];
	struct iovec v = { .iov_base = frame, .iov_len = sizeof(frame) };
	struct vringfd_state st;
	struct pollfd pfd;
	char name[96];
	long r;
	int e, p;

	if (tx) {
		snprintf(name, sizeof(name), "%s_tx_write_empty", prefix);
		r = write(tx->fd, "", 1);
		e = errno;
		result_check(r < 0 && e == EPIPE, name, "write() on an empty TX ring: %ld (%s), want EPIPE",
			     r, r < 0 ? strerror(e) : "-");
		snprintf(name, sizeof(name), "%s_tx_write_frame", prefix);
		tc_frame(frame, sizeof(frame), 5);
		vringfd_ring_add(&tx->r, &v, 1, NULL, 0, frame);
		vringfd_ring_publish(&tx->r);
		r = write(tx->fd, "", 1);
		e = errno;
		result_check(r < 0 && e == EPIPE, name, "write() with a frame: %ld (%s), want EPIPE",
			     r, r < 0 ? strerror(e) : "-");
		snprintf(name, sizeof(name), "%s_tx_poll_state", prefix);
		pfd.fd = tx->fd;
		pfd.events = POLLOUT;
		p = poll(&pfd, 1, 0);
		memset(&st, 0, sizeof(st));
		vringfd_get_state(tx->fd, &st);
		result_check(p == 1 && (pfd.revents & POLLHUP) && (st.flags & VRINGFD_STATE_HUP),
			     name, "poll %d revents %#x, state flags %#x; want POLLHUP and VRINGFD_STATE_HUP",
			     p, p == 1 ? pfd.revents : 0, st.flags);
	}
	if (rx) {
		struct iovec rv = { .iov_base = rxbuf, .iov_len = sizeof(rxbuf) };

		snprintf(name, sizeof(name), "%s_rx_read", prefix);
		vringfd_ring_add(&rx->r, NULL, 0, &rv, 1, rxbuf);
		vringfd_ring_publish(&rx->r);
		r = read(rx->fd, rxbuf, 1);
		e = errno;
		result_check(r < 0 && e == EPIPE, name, "read(): %ld (%s), want EPIPE",
			     r, r < 0 ? strerror(e) : "-");
		snprintf(name, sizeof(name), "%s_rx_poll_state", prefix);
		pfd.fd = rx->fd;
		pfd.events = POLLIN;
		p = poll(&pfd, 1, 0);
		memset(&st, 0, sizeof(st));
		vringfd_get_state(rx->fd, &st);
		result_check(p == 1 && (pfd.revents & POLLHUP) && (st.flags & VRINGFD_STATE_HUP),
			     name, "poll %d revents %#x, state flags %#x; want POLLHUP and VRINGFD_STATE_HUP",
			     p, p == 1 ? pfd.revents : 0, st.flags);
	}
}

/**
 * test_gone_vtap() - a macvtap or ipvtap deleted under its rings
 * @kind: "macvtap" or "ipvtap"
 */
static void test_gone_vtap(const char *kind)
{
	char prefix[32], clean[48], path[64], dev[64];
	struct tc_ring tx, rx;
	int fd = -1, idx, ok = 0;
	const char *link = !strcmp(kind, "macvtap") ? "mode bridge" : "mode l2";

	snprintf(prefix, sizeof(prefix), "gone_%s", kind);
	snprintf(clean, sizeof(clean), "%s_kernel_clean", prefix);
	tx.fd = rx.fd = -1;
	tx.mem = rx.mem = NULL;
	/* a kernel built without it (the rig's debug kernel has no IPVLAN) */
	if (tc_sh("modprobe %s 2>/dev/null || [ -d /sys/module/%s ]", kind, kind)) {
		result_skip(prefix, "this kernel has no %s module", kind);
		return;
	}
	if (tc_sh("modprobe %s 2>/dev/null; modprobe dummy 2>/dev/null; "
		  "ip link add vrwdm0 type dummy && "
		  "sysctl -qw net.ipv6.conf.vrwdm0.disable_ipv6=1 && ip link set vrwdm0 up && "
		  "ip link add link vrwdm0 name vrwvt0 type %s %s && "
		  "sysctl -qw net.ipv6.conf.vrwvt0.disable_ipv6=1 && "
		  "ip link set vrwvt0 up", kind, kind, link)) {
		result_fail(prefix, "cannot create a %s on a dummy (modules %s, dummy)", kind, kind);
		goto out;
	}
	idx = (int)if_nametoindex("vrwvt0");
	snprintf(path, sizeof(path), "/tmp/vrw-tap%d", idx);
	snprintf(dev, sizeof(dev), "/sys/class/net/vrwvt0/%s/tap%d/dev", kind, idx);
	if (tc_sh("mknod %s c $(cut -d: -f1 %s) $(cut -d: -f2 %s)", path, dev, dev) ||
	    (fd = open(path, O_RDWR)) < 0 || tc_set_hdr(fd, 12) ||
	    tc_ring_new(&tx, 64, 0) || tc_ring_new(&rx, 64, 0) ||
	    tc_attach(tx.fd, fd, VRINGFD_DIR_TX, 12, 0) < 0 ||
	    tc_attach(rx.fd, fd, VRINGFD_DIR_RX, 12, 0) < 0) {
		result_fail(prefix, "open %s (%s)/attach: %s", path, dev, strerror(errno));
		goto out;
	}
	ok = 1;
	if (tc_sh("ip link del vrwvt0")) {
		result_fail(prefix, "ip link del vrwvt0 failed");
		goto out;
	}
	usleep(100000);
	w_gone_check(prefix, &tx, &rx);
	/* a new ring on the queue of the deleted device */
	{
		struct tc_ring r2;
		char name[64];

		snprintf(name, sizeof(name), "%s_attach_enodev", prefix);
		if (tc_ring_new(&r2, 64, 0) == 0)
			tc_expect_err(name, tc_attach(r2.fd, fd, VRINGFD_DIR_TX, 12, 0), ENODEV);
		else
			result_fail(name, "ring: %s", strerror(errno));
		tc_ring_free(&r2);
	}
out:
	if (ok)
		result_check(tc_kmsg_clean(), clean, "WARN/BUG/oops in dmesg");
	tc_ring_free(&tx);
	tc_ring_free(&rx);
	if (fd >= 0)
		close(fd);
	unlink(path);
	tc_sh("ip link del vrwvt0 2>/dev/null; ip link del vrwdm0 2>/dev/null");
}

/**
 * test_vtap_netns_move() - a macvtap moved to another namespace is not gone
 */
static void test_vtap_netns_move(void)
{
	const char *name = "vtap_netns_move_not_gone";
	static uint8_t frame[64];
	struct iovec v = { .iov_base = frame, .iov_len = sizeof(frame) };
	char path[64], dev[96];
	struct vringfd_state st;
	struct tc_ring tx;
	int fd = -1, idx;
	long r;

	tx.fd = -1;
	tx.mem = NULL;
	path[0] = 0;
	if (tc_sh("modprobe macvtap 2>/dev/null; modprobe dummy 2>/dev/null; "
		  "ip link add vrwdm1 type dummy && ip link set vrwdm1 up && "
		  "ip link add link vrwdm1 name vrwvt1 type macvtap mode bridge && "
		  "ip link set vrwvt1 up && ip netns add vrwns1")) {
		result_fail(name, "cannot create a macvtap on a dummy, or a namespace");
		goto out;
	}
	idx = (int)if_nametoindex("vrwvt1");
	snprintf(path, sizeof(path), "/tmp/vrw-tap%d", idx);
	snprintf(dev, sizeof(dev), "/sys/class/net/vrwvt1/macvtap/tap%d/dev", idx);
	if (tc_sh("mknod %s c $(cut -d: -f1 %s) $(cut -d: -f2 %s)", path, dev, dev) ||
	    (fd = open(path, O_RDWR)) < 0 || tc_set_hdr(fd, 12) ||
	    tc_ring_new(&tx, 64, 0) || tc_attach(tx.fd, fd, VRINGFD_DIR_TX, 12, 0) < 0 ||
	    tc_sh("ip link set vrwvt1 netns vrwns1")) {
		result_fail(name, "open/attach/move: %s", strerror(errno));
		goto out;
	}
	usleep(100000);
	tc_frame(frame, sizeof(frame), 8);
	memset(frame, 0, 12);	/* the 12-byte header: no offload */
	vringfd_ring_add(&tx.r, &v, 1, NULL, 0, frame);
	vringfd_ring_publish(&tx.r);
	r = write(tx.fd, "", 1);
	memset(&st, 0, sizeof(st));
	vringfd_get_state(tx.fd, &st);
	result_check(r == 1 && !(st.flags & VRINGFD_STATE_HUP), name,
		     "write %ld (%s), state flags %#x: want 1 chain and no VRINGFD_STATE_HUP",
		     r, r < 0 ? strerror(errno) : "-", st.flags);
out:
	tc_ring_free(&tx);
	if (fd >= 0)
		close(fd);
	if (path[0])
		unlink(path);
	tc_sh("ip netns del vrwns1 2>/dev/null; ip link del vrwvt1 2>/dev/null; "
	      "ip link del vrwdm1 2>/dev/null");
}

/**
 * test_gone_tun() - a tun deleted under an empty TX ring and an RX ring
 */
static void test_gone_tun(void)
{
	struct tc_ring tx, rx;
	int tap;

	tx.fd = rx.fd = -1;
	tx.mem = rx.mem = NULL;
	tap = tc_tap_open("vrwtn0", IFF_TAP | IFF_NO_PI);
	if (tap < 0 || tc_ring_new(&tx, 64, 0) || tc_ring_new(&rx, 64, 0) ||
	    tc_attach(tx.fd, tap, VRINGFD_DIR_TX, 0, 0) < 0 ||
	    tc_attach(rx.fd, tap, VRINGFD_DIR_RX, 0, 0) < 0 ||
	    tc_sh("ip link del vrwtn0")) {
		result_fail("gone_tun", "setup/delete: %s", strerror(errno));
		goto out;
	}
	usleep(100000);
	w_gone_check("gone_tun", &tx, &rx);
out:
	tc_ring_free(&tx);
	tc_ring_free(&rx);
	if (tap >= 0)
		close(tap);
}

/**
 * main() - run the cases
 *
 * Return: 0 when none failed.
 */
int main(void)
{
	if (access("/dev/vringfd", R_OK | W_OK) || access("/dev/net/tun", R_OK | W_OK)) {
		result_skip("tap_world", "/dev/vringfd or /dev/net/tun missing");
		return 0;
	}
	test_held_set_mem_table();
	test_held_state();
	test_held_detach();
	test_held_mrg();
	test_held_mrg_gap();
	test_rx_fault("rx_fault_prot_none_nohdr", "vrwf0", 0, 0);
	test_rx_fault("rx_fault_prot_none_hdr10", "vrwf1", 10, 0);
	test_rx_fault("rx_fault_frame_after_hdr12", "vrwf2", 12, 1);
	test_gone_vtap("macvtap");
	test_gone_vtap("ipvtap");
	test_gone_tun();
	test_vtap_netns_move();
	return result_exit_status();
}
