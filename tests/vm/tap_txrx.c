// SPDX-License-Identifier: GPL-2.0
/*
 * tap_txrx.c - the tap attachment's data paths in the VM: TX (batched and
 * one-by-one), RX (with and without MRG_RXBUF), virtio-net headers good and
 * bad, the memory table, malicious chains, unmapped memory, a full 32768
 * entry ring, epoll wake-ups, and the counters.
 *
 * Frames sent through a TX ring are captured by an AF_PACKET socket on the
 * tap (they enter the stack there); frames for an RX ring are injected by
 * an AF_PACKET socket sending on the tap.
 */
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>

#include "tap_common.h"
#include "common/vnet_hdr_cases.h"

#define TXTAP "vrtx0"
#define RXTAP "vrrx0"
#define BUFSZ 2048
/* VRFD_WEIGHT_CHAINS of the module: most chains one write() consumes */
#define WEIGHT_CHAINS 256

static uint8_t *arena;		/* frame buffers: 4096 x BUFSZ */

/**
 * buf_at() - the @i-th frame buffer of the arena
 * @i: index
 *
 * Return: pointer to BUFSZ bytes.
 */
static uint8_t *buf_at(unsigned int i)
{
	return arena + (size_t)(i % 4096) * BUFSZ;
}

/**
 * stats() - the ring's counters
 * @fd: vring fd
 *
 * Return: the counters (zeroes on error).
 */
static struct vringfd_stats stats(int fd)
{
	struct vringfd_stats s;

	memset(&s, 0, sizeof(s));
	vringfd_get_stats(fd, &s);
	return s;
}

/**
 * capture_count() - count captured frames of our test ethertype
 * @s: packet socket
 * @want: frames expected
 * @len: length each must have (0: any)
 * @seq0: pattern seed of the first frame (frames carry seq0, seq0+1, ...),
 *	or -1 to not check contents
 *
 * Return: frames seen that matched.
 */
static int capture_count(int s, int want, size_t len, int seq0)
{
	static uint8_t rb[70000];
	uint8_t ref[70000];
	int got = 0, seen = 0;
	struct pollfd p = { .fd = s, .events = POLLIN };

	while (seen < want + 16 && poll(&p, 1, 300) == 1) {
		ssize_t n = recv(s, rb, sizeof(rb), MSG_DONTWAIT);

		if (n < 14)
			continue;
		if (rb[12] != 0x88 || rb[13] != 0xb5)
			continue;
		seen++;
		if (len && (size_t)n != len)
			continue;
		if (seq0 >= 0) {
			tc_frame(ref, (size_t)n, (unsigned int)(seq0 + got));
			if (memcmp(ref, rb, (size_t)n))
				continue;
		}
		got++;
	}
	return got;
}

/**
 * capture_drain() - throw away every frame a packet socket holds
 * @s: packet socket
 *
 * Earlier tests leave frames of the test ethertype queued (test_notify's
 * bursts send whatever the arena's first buffers hold), and
 * capture_count() gives up after 16 frames that are not the ones it
 * waits for.
 */
static void capture_drain(int s)
{
	static uint8_t rb[70000];

	while (recv(s, rb, sizeof(rb), MSG_DONTWAIT) >= 0)
		;
}

/**
 * post_frame() - post one frame, optionally split in @nseg segments
 * @t: ring
 * @buf: frame memory
 * @len: frame length (header included)
 * @nseg: segments (1..8)
 */
static void post_frame(struct tc_ring *t, uint8_t *buf, size_t len, unsigned int nseg)
{
	struct iovec v[8];
	size_t off = 0, step = len / nseg;
	unsigned int i;

	for (i = 0; i < nseg; i++) {
		v[i].iov_base = buf + off;
		v[i].iov_len = i + 1 == nseg ? len - off : step;
		off += v[i].iov_len;
	}
	if (vringfd_ring_add(&t->r, v, nseg, NULL, 0, buf) < 0)
		fprintf(stderr, "post_frame: ring full\n");
}

/**
 * test_tx_basic() - frames of several sizes and shapes reach the stack intact
 * @cap: packet socket on TXTAP
 */
static void test_tx_basic(int cap)
{
	struct vringfd_stats s;
	struct tc_ring t;
	long long rx0;
	uint64_t lens = 0;
	int i, r, n, tap;

	tap = tc_tap_open(TXTAP, IFF_TAP | IFF_NO_PI);
	if (tc_ring_new(&t, 256, 0) || tc_attach(t.fd, tap, VRINGFD_DIR_TX, 0, 0)) {
		result_fail("tx_basic", "setup: %s", strerror(errno));
		return;
	}
	close(tap);	/* the ring keeps the queue */
	tc_expect_err("tx_write_nothing_0", write(t.fd, "", 1), 0);
	rx0 = tc_ifstat(TXTAP, "rx_packets");
	for (i = 0; i < 100; i++) {
		tc_frame(buf_at(i), 60, (unsigned int)i);
		post_frame(&t, buf_at(i), 60, 1);
	}
	vringfd_ring_publish(&t.r);
	r = (int)write(t.fd, "", 1);
	n = tc_drain_used(&t, &lens);
	s = stats(t.fd);
	if (r == 100 && n == 100 && lens == 0 && s.frames == 100 && s.bytes == 6000 &&
	    tc_ifstat(TXTAP, "rx_packets") == rx0 + 100)
		result_pass("tx_100x60_counted");
	else
		result_fail("tx_100x60_counted", "write %d used %d lens %llu frames %llu bytes %llu rx %lld",
			  r, n, (unsigned long long)lens, (unsigned long long)s.frames,
			  (unsigned long long)s.bytes, tc_ifstat(TXTAP, "rx_packets") - rx0);
	n = capture_count(cap, 100, 60, 0);
	result_check(n == 100, "tx_100x60_content", "%d of 100 frames intact", n);

	/* 1500 bytes in 3 segments, 9000 bytes (larger than a page: unbatched) */
	tc_frame(buf_at(0), 1500, 7);
	post_frame(&t, buf_at(0), 1500, 3);
	vringfd_ring_publish(&t.r);
	r = (int)write(t.fd, "", 1);
	tc_drain_used(&t, NULL);
	n = capture_count(cap, 1, 1500, 7);
	result_check(r == 1 && n == 1, "tx_1500_three_segments", "write %d captured %d", r, n);
	{
		static uint8_t big[9000];

		tc_frame(big, sizeof(big), 9);
		post_frame(&t, big, sizeof(big), 2);
		vringfd_ring_publish(&t.r);
		r = (int)write(t.fd, "", 1);
		tc_drain_used(&t, NULL);
		n = capture_count(cap, 1, sizeof(big), 9);
		result_check(r == 1 && n == 1, "tx_9000_unbatched", "write %d captured %d", r, n);
	}
	tc_ring_free(&t);
}

/**
 * test_tx_bad_chains() - malicious chains are completed empty and counted
 */
static void test_tx_bad_chains(void)
{
	static uint8_t huge[70000];
	struct vringfd_stats s0, s;
	struct iovec out[2], in;
	struct tc_ring t;
	uint64_t lens = 0;
	int r, n, tap;

	tap = tc_tap_open(TXTAP, IFF_TAP | IFF_NO_PI);
	if (tc_ring_new(&t, 64, 0) || tc_attach(t.fd, tap, VRINGFD_DIR_TX, 0, 0)) {
		result_fail("tx_bad_chains", "setup: %s", strerror(errno));
		return;
	}
	s0 = stats(t.fd);
	tc_frame(buf_at(0), 60, 0);
	out[0].iov_base = buf_at(0);
	out[0].iov_len = 60;
	in.iov_base = buf_at(1);
	in.iov_len = 60;
	vringfd_ring_add(&t.r, out, 1, &in, 1, buf_at(0));	/* writable part */
	out[0].iov_len = 0;
	vringfd_ring_add(&t.r, out, 1, NULL, 0, buf_at(2));	/* empty */
	out[0].iov_len = 10;
	vringfd_ring_add(&t.r, out, 1, NULL, 0, buf_at(3));	/* runt */
	out[0].iov_base = huge;
	out[0].iov_len = 35000;
	out[1].iov_base = huge + 35000;
	out[1].iov_len = 35000;
	vringfd_ring_add(&t.r, out, 2, NULL, 0, huge);		/* 70000 bytes */
	out[0].iov_base = buf_at(4);
	out[0].iov_len = 60;
	vringfd_ring_add(&t.r, out, 1, NULL, 0, buf_at(4));	/* a good one */
	vringfd_ring_publish(&t.r);
	r = (int)write(t.fd, "", 1);
	n = tc_drain_used(&t, &lens);
	s = stats(t.fd);
	result_check(r == 5 && n == 5 && lens == 0, "tx_bad_chains_completed_len0",
		  "write %d used %d lens %llu", r, n, (unsigned long long)lens);
	result_check(s.drop_bad_chain - s0.drop_bad_chain == 3, "tx_bad_chain_counted",
		  "drop_bad_chain +%llu, want 3", (unsigned long long)(s.drop_bad_chain - s0.drop_bad_chain));
	result_check(s.drop_too_big - s0.drop_too_big == 1, "tx_too_big_counted",
		  "drop_too_big +%llu", (unsigned long long)(s.drop_too_big - s0.drop_too_big));
	result_check(s.frames - s0.frames == 1, "tx_good_after_bad_sent",
		  "frames +%llu", (unsigned long long)(s.frames - s0.frames));
	tc_ring_free(&t);
	close(tap);
}

/**
 * post_hdr_frame() - post a frame with a virtio-net header in front
 * @t: ring
 * @i: buffer index
 * @h: the header (12 bytes)
 * @len: frame length after the header
 */
static void post_hdr_frame(struct tc_ring *t, unsigned int i,
			   const struct virtio_net_hdr_v1 *h, size_t len)
{
	uint8_t *b = buf_at(i);

	memcpy(b, h, sizeof(*h));
	tc_frame(b + sizeof(*h), len, i);
	post_frame(t, b, sizeof(*h) + len, 1);
}

/**
 * build_tcp4() - an Ethernet + IPv4 + TCP frame of @len bytes
 * @b: buffer
 * @len: total length (>= 54)
 */
static void build_tcp4(uint8_t *b, size_t len)
{
	memset(b, 0, len);
	memset(b, 0xff, 6);
	memcpy(b + 6, "\x02\x00\x00\x00\x00\x02", 6);
	b[12] = 0x08;
	b[14] = 0x45;
	b[16] = (uint8_t)((len - 14) >> 8);
	b[17] = (uint8_t)(len - 14);
	b[22] = 64;
	b[23] = 6;
	memcpy(b + 26, "\x0a\x63\x00\x01\x0a\x63\x00\x02", 8);
	b[34] = 0x30;
	b[35] = 0x39;
	b[36] = 0x30;
	b[37] = 0x3a;
	b[46] = 0x50;	/* data offset 5 */
	b[47] = 0x10;	/* ACK */
}

/**
 * test_tx_headers() - the header table every engine shares
 * (tests/common/vnet_hdr_cases.h): a refused header is dropped and counted,
 * an accepted one reaches the tap, which takes it (its rx_packets); then
 * valid headers in one batch, and a 64 KiB TSO frame
 */
static void test_tx_headers(void)
{
	static uint8_t gso[12 + 65000], cbuf[12 + VHC_MAX_FRAME];
	struct virtio_net_hdr_v1 ok = { .flags = 0 };
	struct virtio_net_hdr_v1 *gh = (void *)gso;
	struct vringfd_stats s0, s;
	struct tc_ring t;
	unsigned int i;
	long long rx0;
	int tap, r;

	tap = tc_tap_open("vrhd0", IFF_TAP | IFF_NO_PI | IFF_VNET_HDR);
	if (tap < 0 || tc_set_hdr(tap, 12) || tc_sh("ip link set vrhd0 up") || tc_ring_new(&t, 64, 0) ||
	    tc_attach(t.fd, tap, VRINGFD_DIR_TX, 12, 0)) {
		result_fail("tx_headers", "setup: %s", strerror(errno));
		return;
	}
	for (i = 0; i < VHC_NCASES; i++) {
		const struct vhc_case *c = &vhc_cases[i];
		int pass = c->want == VRINGFD_VNET_HDR_OK;
		char name[64];

		s0 = stats(t.fd);
		rx0 = tc_ifstat("vrhd0", "rx_packets");
		post_frame(&t, cbuf, vhc_build(c, 12, cbuf), 1 + i % 3);
		vringfd_ring_publish(&t.r);
		r = (int)write(t.fd, "", 1);
		tc_drain_used(&t, NULL);
		s = stats(t.fd);
		snprintf(name, sizeof(name), "hdr_%s", c->name);
		result_check(r == 1 && s.drop_bad_hdr - s0.drop_bad_hdr == (uint64_t)!pass &&
			  s.frames - s0.frames == (uint64_t)pass && s.drop_tap == s0.drop_tap &&
			  tc_ifstat("vrhd0", "rx_packets") - rx0 == pass, name,
			  "%s: write %d drop_bad_hdr +%llu frames +%llu drop_tap +%llu tap rx +%lld",
			  vringfd_vnet_hdr_reason(c->want), r,
			  (unsigned long long)(s.drop_bad_hdr - s0.drop_bad_hdr),
			  (unsigned long long)(s.frames - s0.frames),
			  (unsigned long long)(s.drop_tap - s0.drop_tap),
			  tc_ifstat("vrhd0", "rx_packets") - rx0);
	}
	s0 = stats(t.fd);
	rx0 = tc_ifstat("vrhd0", "rx_packets");
	post_hdr_frame(&t, 40, &ok, 100);
	/* checksum offload: a TCP frame with NEEDS_CSUM */
	build_tcp4(buf_at(41) + 12, 100);
	memset(buf_at(41), 0, 12);
	buf_at(41)[0] = 1;			/* NEEDS_CSUM */
	buf_at(41)[6] = 34;			/* csum_start */
	buf_at(41)[8] = 16;			/* csum_offset */
	post_frame(&t, buf_at(41), 112, 1);
	/* a 64 KiB TSO frame */
	build_tcp4(gso + 12, sizeof(gso) - 12);
	memset(gh, 0, sizeof(*gh));
	gh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	gh->gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	gh->hdr_len = 54;
	gh->gso_size = 1448;
	gh->csum_start = 34;
	gh->csum_offset = 16;
	post_frame(&t, gso, sizeof(gso), 4);
	vringfd_ring_publish(&t.r);
	r = (int)write(t.fd, "", 1);
	tc_drain_used(&t, NULL);
	s = stats(t.fd);
	result_check(r == 3 && s.frames == s0.frames + 3 && s.drop_bad_hdr == s0.drop_bad_hdr &&
		  tc_ifstat("vrhd0", "rx_packets") >= rx0 + 3, "tx_good_headers_and_64k_tso",
		  "write %d frames +%llu bad_hdr +%llu rx +%lld", r,
		  (unsigned long long)(s.frames - s0.frames),
		  (unsigned long long)(s.drop_bad_hdr - s0.drop_bad_hdr),
		  tc_ifstat("vrhd0", "rx_packets") - rx0);
	result_check(tc_kmsg_clean(), "tx_headers_kernel_clean", "WARN/BUG/oops in dmesg");
	tc_ring_free(&t);
	close(tap);
}

/**
 * eventfd_fired() - read (and so reset) an eventfd without blocking
 * @efd: the eventfd (EFD_NONBLOCK)
 *
 * Return: 1 when it had been signalled.
 */
static int eventfd_fired(int efd)
{
	uint64_t v;

	return read(efd, &v, sizeof(v)) == sizeof(v) && v > 0;
}

/**
 * tx_burst() - post @n 60-byte frames, write(), collect the used entries
 * @t: ring
 * @n: frames
 *
 * Return: write()'s result.
 */
static int tx_burst(struct tc_ring *t, int n)
{
	int i, r;

	for (i = 0; i < n; i++)
		post_frame(t, buf_at((unsigned int)i), 60, 1);
	vringfd_ring_publish(&t->r);
	r = (int)write(t->fd, "", 1);
	tc_drain_used(t, NULL);
	return r;
}

/**
 * test_notify() - the call eventfd and the state flag follow virtio's rules
 * on a tap ring: VRING_AVAIL_F_NO_INTERRUPT, and with EVENT_IDX used_event
 */
static void test_notify(void)
{
	struct vringfd_state st;
	struct tc_ring t;
	int tap, efd, r, fired;

	tap = tc_tap_open(TXTAP, IFF_TAP | IFF_NO_PI);
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (tc_ring_new(&t, 64, 0) || tc_attach(t.fd, tap, VRINGFD_DIR_TX, 0, 0) ||
	    vringfd_set_call_fd(t.fd, efd)) {
		result_fail("notify", "setup: %s", strerror(errno));
		return;
	}
	tc_frame(buf_at(0), 60, 0);
	r = tx_burst(&t, 4);
	fired = eventfd_fired(efd);
	vringfd_get_state(t.fd, &st);
	result_check(r == 4 && fired && (st.flags & VRINGFD_STATE_NOTIFY), "notify_call_fd_signalled",
		  "write %d fired %d flags %#x", r, fired, st.flags);
	t.r.vr.avail->flags = VRING_AVAIL_F_NO_INTERRUPT;
	r = tx_burst(&t, 4);
	fired = eventfd_fired(efd);
	vringfd_get_state(t.fd, &st);
	result_check(r == 4 && !fired && !(st.flags & VRINGFD_STATE_NOTIFY), "notify_no_interrupt_honoured",
		  "write %d fired %d flags %#x", r, fired, st.flags);
	tc_ring_free(&t);

	if (tc_ring_new(&t, 64, 1ULL << VIRTIO_RING_F_EVENT_IDX) ||
	    tc_attach(t.fd, tap, VRINGFD_DIR_TX, 0, 0) || vringfd_set_call_fd(t.fd, efd)) {
		result_fail("notify_event_idx", "setup: %s", strerror(errno));
		return;
	}
	/* the first publish always notifies (nothing signalled before) */
	vring_used_event(&t.r.vr) = 0;
	tx_burst(&t, 4);
	eventfd_fired(efd);
	vring_used_event(&t.r.vr) = 100;	/* not crossed by 4 -> 8 */
	r = tx_burst(&t, 4);
	fired = eventfd_fired(efd);
	result_check(r == 4 && !fired, "notify_event_idx_not_crossed", "write %d fired %d", r, fired);
	vring_used_event(&t.r.vr) = 9;		/* crossed by 8 -> 12 */
	r = tx_burst(&t, 4);
	fired = eventfd_fired(efd);
	result_check(r == 4 && fired, "notify_event_idx_crossed", "write %d fired %d", r, fired);
	result_check(vring_avail_event(&t.r.vr) == 12, "avail_event_kept_current",
		  "avail_event %u, want 12", vring_avail_event(&t.r.vr));
	/*
	 * A write() that finds the ring empty asks for a kick itself
	 * (avail_event = last_avail) and looks again, even with nothing to
	 * publish: a chain posted after its walk ended gets a kick.
	 */
	vring_avail_event(&t.r.vr) = 3;
	r = (int)write(t.fd, "", 1);
	result_check(r == 0 && vring_avail_event(&t.r.vr) == 12, "tx_empty_write_requests_kick",
		  "write %d avail_event %u, want 0 and 12", r, vring_avail_event(&t.r.vr));
	tc_ring_free(&t);
	close(efd);
	close(tap);
}

/**
 * set_table() - VRINGFD_SET_MEM_TABLE with raw regions
 * @fd: vring fd
 * @r: regions
 * @n: count
 * @padding: value for the padding field
 *
 * Return: ioctl result.
 */
static int set_table(int fd, const struct vringfd_mem_region *r, unsigned int n, unsigned int padding)
{
	static union {
		struct vringfd_mem_table t;
		char b[sizeof(struct vringfd_mem_table) + 80 * sizeof(struct vringfd_mem_region)];
	} u;

	memset(&u, 0, sizeof(u));
	u.t.nregions = n;
	u.t.padding = padding;
	if (n && n <= 80)
		memcpy(u.t.regions, r, n * sizeof(*r));
	return ioctl(fd, VRINGFD_SET_MEM_TABLE, &u.t);
}

/**
 * test_memtable() - bad tables refused; translation splits across regions;
 * an address outside every region drops the chain
 * @cap: packet socket on TXTAP
 */
static void test_memtable(int cap)
{
	struct vringfd_mem_region reg[80];
	struct vringfd_stats s0, s;
	uint8_t *a, *b, frame[512];
	struct iovec v;
	struct tc_ring t;
	unsigned int i;
	int r, n, tap;

	tap = tc_tap_open(TXTAP, IFF_TAP | IFF_NO_PI);
	if (tc_ring_new(&t, 64, 0) || tc_attach(t.fd, tap, VRINGFD_DIR_TX, 0, 0)) {
		result_fail("memtable", "setup: %s", strerror(errno));
		return;
	}
	a = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	b = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(reg, 0, sizeof(reg));
	for (i = 0; i < 80; i++) {
		reg[i].guest_addr = 0x100000ULL * (i + 1);
		reg[i].size = 4096;
		reg[i].user_addr = (uintptr_t)a;
	}
	tc_expect_err("memtable_65_regions_EINVAL", set_table(t.fd, reg, 65, 0), EINVAL);
	tc_expect_err("memtable_64_regions_ok", set_table(t.fd, reg, 64, 0), 0);
	tc_expect_err("memtable_padding_EINVAL", set_table(t.fd, reg, 1, 1), EINVAL);
	reg[1].size = 0;
	tc_expect_err("memtable_size0_EINVAL", set_table(t.fd, reg, 2, 0), EINVAL);
	reg[1].size = 4096;
	reg[1].guest_addr = reg[0].guest_addr + 4095;
	tc_expect_err("memtable_overlap_EINVAL", set_table(t.fd, reg, 2, 0), EINVAL);
	reg[1].guest_addr = 0xfffffffffffff000ULL;
	reg[1].size = 0x2000;
	tc_expect_err("memtable_guest_wrap_EINVAL", set_table(t.fd, reg, 2, 0), EINVAL);
	reg[1].guest_addr = 0x200000;
	reg[1].size = 4096;
	reg[1].user_addr = 0xfffffffffffff000ULL;
	tc_expect_err("memtable_user_wrap_EINVAL", set_table(t.fd, reg, 2, 0), EINVAL);
	reg[1].user_addr = 0xffff800000000000ULL;
	tc_expect_err("memtable_kernel_addr_EINVAL", set_table(t.fd, reg, 2, 0), EINVAL);
	reg[1].user_addr = (uintptr_t)a;
	reg[1].reserved = 1;
	tc_expect_err("memtable_reserved_EINVAL", set_table(t.fd, reg, 2, 0), EINVAL);
	tc_expect_err("memtable_bad_pointer_EFAULT", ioctl(t.fd, VRINGFD_SET_MEM_TABLE, (void *)8), EFAULT);

	/* guest 0x10000000: 4096 bytes at a; 0x10001000: 4096 bytes at b+4096 */
	memset(reg, 0, 2 * sizeof(reg[0]));
	reg[0].guest_addr = 0x10000000;
	reg[0].size = 4096;
	reg[0].user_addr = (uintptr_t)a;
	reg[1].guest_addr = 0x10001000;
	reg[1].size = 4096;
	reg[1].user_addr = (uintptr_t)b + 4096;
	tc_expect_err("memtable_two_regions_ok", set_table(t.fd, reg, 2, 0), 0);
	tc_frame(frame, sizeof(frame), 5);
	capture_drain(cap);
	memcpy(a + 4096 - 256, frame, 256);
	memcpy(b + 4096, frame + 256, 256);
	v.iov_base = (void *)(uintptr_t)(0x10000000 + 4096 - 256);
	v.iov_len = sizeof(frame);
	vringfd_ring_add(&t.r, &v, 1, NULL, 0, a);
	vringfd_ring_publish(&t.r);
	r = (int)write(t.fd, "", 1);
	tc_drain_used(&t, NULL);
	n = capture_count(cap, 1, sizeof(frame), 5);
	result_check(r == 1 && n == 1, "memtable_split_across_regions", "write %d captured %d", r, n);

	s0 = stats(t.fd);
	v.iov_base = (void *)(uintptr_t)0x90000000;	/* outside */
	vringfd_ring_add(&t.r, &v, 1, NULL, 0, a);
	v.iov_base = (void *)(uintptr_t)(0x10001000 + 4096 - 100);	/* runs off the end */
	vringfd_ring_add(&t.r, &v, 1, NULL, 0, b);
	v.iov_base = a;		/* a user address: not a guest address now */
	vringfd_ring_add(&t.r, &v, 1, NULL, 0, frame);
	vringfd_ring_publish(&t.r);
	r = (int)write(t.fd, "", 1);
	n = tc_drain_used(&t, NULL);
	s = stats(t.fd);
	result_check(n == 3 && s.drop_bad_addr == s0.drop_bad_addr + 3 && s.frames == s0.frames,
		  "memtable_outside_dropped", "write %d used %d drop_bad_addr +%llu frames +%llu", r, n,
		  (unsigned long long)(s.drop_bad_addr - s0.drop_bad_addr),
		  (unsigned long long)(s.frames - s0.frames));
	tc_expect_err("memtable_remove_ok", set_table(t.fd, NULL, 0, 0), 0);
	memcpy(a, frame, sizeof(frame));
	v.iov_base = a;
	vringfd_ring_add(&t.r, &v, 1, NULL, 0, a);
	vringfd_ring_publish(&t.r);
	r = (int)write(t.fd, "", 1);
	tc_drain_used(&t, NULL);
	n = capture_count(cap, 1, sizeof(frame), 5);
	result_check(r == 1 && n == 1, "memtable_removed_user_addresses_again", "write %d captured %d", r, n);
	munmap(a, 8192);
	munmap(b, 8192);
	tc_ring_free(&t);
	close(tap);
}

/**
 * test_unmapped() - frame memory and ring memory unmapped under the kernel
 */
static void test_unmapped(void)
{
	struct vringfd_stats s0, s;
	struct tc_ring t;
	struct iovec v;
	uint8_t *m;
	int r, tap, i;

	tap = tc_tap_open(TXTAP, IFF_TAP | IFF_NO_PI);
	if (tc_ring_new(&t, 64, 0) || tc_attach(t.fd, tap, VRINGFD_DIR_TX, 0, 0)) {
		result_fail("unmapped", "setup: %s", strerror(errno));
		return;
	}
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	tc_frame(m, 60, 0);
	v.iov_base = m;
	v.iov_len = 60;
	for (i = 0; i < 4; i++)
		vringfd_ring_add(&t.r, &v, 1, NULL, 0, m);
	vringfd_ring_publish(&t.r);
	munmap(m, 4096);
	s0 = stats(t.fd);
	r = (int)write(t.fd, "", 1);
	s = stats(t.fd);
	result_check(r == 4 && s.drop_bad_addr == s0.drop_bad_addr + 4 && s.frames == s0.frames,
		  "tx_frame_memory_unmapped_dropped", "write %d (%s) drop_bad_addr +%llu", r,
		  r < 0 ? strerror(errno) : "-", (unsigned long long)(s.drop_bad_addr - s0.drop_bad_addr));
	tc_drain_used(&t, NULL);
	/* the ring itself goes away: the ring breaks, the kernel stays clean */
	v.iov_base = buf_at(0);
	vringfd_ring_add(&t.r, &v, 1, NULL, 0, m);
	vringfd_ring_publish(&t.r);
	munmap(t.mem, t.size);
	r = (int)write(t.fd, "", 1);
	result_check(r < 0 && (errno == EFAULT || errno == EIO), "tx_ring_memory_unmapped_fails",
		  "write %d errno %s", r, strerror(errno));
	r = (int)write(t.fd, "", 1);
	result_check(r < 0 && errno == EIO, "tx_ring_broken_after_fault", "write %d errno %s", r, strerror(errno));
	t.mem = NULL;
	close(t.fd);
	t.fd = -1;
	vringfd_ring_fini(&t.r);
	close(tap);
	result_check(tc_kmsg_clean(), "unmapped_kernel_clean", "WARN/BUG/oops in dmesg");
}

/**
 * test_full_ring() - 32768 chains in one go: bounded work per write()
 */
static void test_full_ring(void)
{
	struct timespec t0, t1;
	struct tc_ring t;
	struct iovec v;
	int tap, writes = 0, r, maxr = 0;
	long total = 0;
	unsigned int i;

	tap = tc_tap_open(TXTAP, IFF_TAP | IFF_NO_PI);
	if (tc_ring_new(&t, 32768, 0) || tc_attach(t.fd, tap, VRINGFD_DIR_TX, 0, 0)) {
		result_fail("tx_32768_chains", "setup: %s", strerror(errno));
		return;
	}
	tc_frame(buf_at(0), 60, 0);
	v.iov_base = buf_at(0);
	v.iov_len = 60;
	for (i = 0; i < 32768; i++)
		vringfd_ring_add(&t.r, &v, 1, NULL, 0, buf_at(0));
	vringfd_ring_publish(&t.r);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (total < 32768 && writes < 100000) {
		r = (int)write(t.fd, "", 1);
		if (r <= 0)
			break;
		if (r > maxr)
			maxr = r;
		total += r;
		writes++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	result_check(total == 32768 && maxr <= WEIGHT_CHAINS, "tx_32768_chains_bounded",
		  "consumed %ld in %d writes, largest %d", total, writes, maxr);
	printf("# 32768 chains: %d writes, largest %d, %.3f s\n", writes, maxr,
	       (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	tc_ring_free(&t);
	close(tap);
}

/**
 * post_rx() - post @n writable buffers of @size bytes
 * @t: ring
 * @first: first arena index
 * @n: buffers
 * @size: bytes each
 */
static void post_rx(struct tc_ring *t, unsigned int first, int n, size_t size)
{
	struct iovec v;
	int i;

	for (i = 0; i < n; i++) {
		v.iov_base = buf_at(first + (unsigned int)i);
		v.iov_len = size;
		vringfd_ring_add(&t->r, NULL, 0, &v, 1, v.iov_base);
	}
	vringfd_ring_publish(&t->r);
}

/**
 * rx_pull() - read() the RX ring until @want buffers were used or 3 s passed
 * @t: ring
 * @want: buffers expected
 *
 * Frames injected with send() on a packet socket reach the tap through
 * the qdisc, possibly a little later (softirq): wait for them.
 * Return: buffers used, summed over the read() calls.
 */
static int rx_pull(struct tc_ring *t, int want)
{
	int got = 0, r, i;
	char c;

	for (i = 0; i < 60; i++) {
		r = (int)read(t->fd, &c, 0);
		if (r > 0)
			got += r;
		if (got >= want)
			break;
		usleep(50000);
	}
	return got;
}

/**
 * settle() - give injected frames time to reach the tap's queue
 */
static void settle(void)
{
	usleep(300000);
}

/**
 * test_rx_plain() - RX without header: fill, wait without buffers, epoll
 * @inj: packet socket on RXTAP
 */
static void test_rx_plain(int inj)
{
	uint8_t ref[2048];
	struct epoll_event ev;
	struct tc_ring t;
	int tap, r, n, ok, ep, i;
	uint32_t len;
	uint8_t *b;
	pid_t pid;

	tap = tc_tap_open(RXTAP, IFF_TAP | IFF_NO_PI);
	if (tc_ring_new(&t, 64, 0) || tc_attach(t.fd, tap, VRINGFD_DIR_RX, 0, 0)) {
		result_fail("rx_plain", "setup: %s", strerror(errno));
		return;
	}
	tc_wait_carrier(RXTAP);
	tc_expect_err("rx_read_nothing_0", read(t.fd, ref, 1), 0);
	post_rx(&t, 100, 10, BUFSZ);
	n = tc_inject(inj, 10, 100, 0);
	r = rx_pull(&t, 10);
	ok = r == 10 && n == 10;
	for (i = 0; ok && i < 10; i++) {
		b = vringfd_ring_get_used(&t.r, &len);
		tc_frame(ref, 100, (unsigned int)i);
		ok = b && len == 100 && !memcmp(b, ref, 100);
	}
	result_check(ok, "rx_10_frames_filled", "injected %d read %d", n, r);
	tc_drain_used(&t, NULL);

	/* no buffer posted: frames wait in the tap's queue */
	n = tc_inject(inj, 5, 200, 50);
	settle();
	r = (int)read(t.fd, ref, 1);
	result_check(r == 0 && n == 5, "rx_no_buffer_returns_0", "read %d", r);
	tc_ring_free(&t);

	/* the same with EVENT_IDX: the starved read() asks for a kick */
	if (tc_ring_new(&t, 64, 1ULL << VIRTIO_RING_F_EVENT_IDX) ||
	    tc_attach(t.fd, tap, VRINGFD_DIR_RX, 0, 0)) {
		result_fail("rx_plain_event_idx", "setup: %s", strerror(errno));
		return;
	}
	vring_avail_event(&t.r.vr) = 9;
	r = (int)read(t.fd, ref, 1);
	result_check(r == 0 && vring_avail_event(&t.r.vr) == 0, "rx_starved_read_requests_kick",
		  "read %d avail_event %u, want 0 and 0", r, vring_avail_event(&t.r.vr));
	post_rx(&t, 200, 8, BUFSZ);
	r = rx_pull(&t, 5);
	b = vringfd_ring_get_used(&t.r, &len);
	tc_frame(ref, 200, 50);
	result_check(r == 5 && b && len == 200 && !memcmp(b, ref, 200), "rx_frames_kept_until_posted",
		  "read %d first len %u", r, b ? len : 0);
	tc_drain_used(&t, NULL);

	/* epoll wakes when the tap gets a frame */
	ep = epoll_create1(0);
	ev.events = EPOLLIN;
	ev.data.fd = t.fd;
	epoll_ctl(ep, EPOLL_CTL_ADD, t.fd, &ev);
	r = epoll_wait(ep, &ev, 1, 0);	/* nothing yet */
	pid = fork();
	if (pid == 0) {
		usleep(300000);
		tc_inject(inj, 1, 80, 77);
		_exit(0);
	}
	r = epoll_wait(ep, &ev, 1, 5000);
	b = vringfd_ring_get_used(&t.r, &len);
	result_check(r == 1 && (ev.events & EPOLLIN) && b && len == 80, "rx_epoll_wakes_and_fills",
		  "epoll_wait %d events %#x used len %u", r, r == 1 ? ev.events : 0, b ? len : 0);
	waitpid(pid, NULL, 0);
	close(ep);
	tc_ring_free(&t);
	close(tap);
}

/**
 * test_rx_hdr() - RX with a 12-byte header: MRG_RXBUF spans heads, without it
 * a small buffer drops the frame; a readable descriptor is refused; an
 * unwritable buffer drops the frame
 * @inj: packet socket on the tap "vrrh0"
 * @tap: its fd (IFF_VNET_HDR)
 */
static void test_rx_hdr(int inj, int tap)
{
	struct virtio_net_hdr_v1 *h;
	struct vringfd_stats s0, s;
	uint8_t ref[2048], got[2048];
	struct tc_ring t;
	struct iovec v;
	uint32_t len, lens[8];
	size_t off = 0;
	int r, i, k;

	if (tc_set_hdr(tap, 12) || tc_ring_new(&t, 64, 0) ||
	    tc_attach(t.fd, tap, VRINGFD_DIR_RX, 12, VRINGFD_TAP_F_MRG_RXBUF)) {
		result_fail("rx_mrg", "setup: %s", strerror(errno));
		return;
	}
	post_rx(&t, 300, 8, 256);
	tc_inject(inj, 1, 1000, 3);
	r = rx_pull(&t, 4);
	for (k = 0; k < 8; k++) {
		uint8_t *b = vringfd_ring_get_used(&t.r, &len);

		if (!b)
			break;
		lens[k] = len;
		if (off + len <= sizeof(got))
			memcpy(got + off, b, len);
		off += len;
	}
	h = (void *)got;
	tc_frame(ref, 1000, 3);
	result_check(r == 4 && k == 4 && off == 1012 && h->num_buffers == 4 && !memcmp(got + 12, ref, 1000),
		  "rx_mrg_spans_4_heads", "read %d heads %d bytes %zu num_buffers %u lens %u/%u", r, k, off,
		  h->num_buffers, k > 0 ? lens[0] : 0, k > 3 ? lens[3] : 0);
	tc_ring_free(&t);

	if (tc_ring_new(&t, 64, 0) || tc_attach(t.fd, tap, VRINGFD_DIR_RX, 12, 0)) {
		result_fail("rx_nomrg", "setup: %s", strerror(errno));
		return;
	}
	post_rx(&t, 320, 1, 256);
	s0 = stats(t.fd);
	tc_inject(inj, 1, 1000, 4);
	tc_inject(inj, 1, 100, 5);
	settle();
	r = rx_pull(&t, 1);
	s = stats(t.fd);
	{
		uint8_t *b = vringfd_ring_get_used(&t.r, &len);

		h = (void *)b;
		tc_frame(ref, 100, 5);
		result_check(r == 1 && s.drop_too_big == s0.drop_too_big + 1 && b && len == 112 &&
			  h->num_buffers == 1 && !memcmp(b + 12, ref, 100),
			  "rx_nomrg_big_frame_dropped_small_fits", "read %d too_big +%llu len %u", r,
			  (unsigned long long)(s.drop_too_big - s0.drop_too_big), b ? len : 0);
	}
	/* a posted chain with a readable descriptor */
	s0 = stats(t.fd);
	v.iov_base = buf_at(330);
	v.iov_len = 256;
	vringfd_ring_add(&t.r, &v, 1, &v, 1, buf_at(330));
	vringfd_ring_publish(&t.r);
	tc_inject(inj, 1, 100, 6);
	settle();
	r = (int)read(t.fd, ref, 1);
	s = stats(t.fd);
	i = tc_drain_used(&t, NULL);
	result_check(s.drop_bad_chain == s0.drop_bad_chain + 1 && i == 1, "rx_readable_desc_refused",
		  "read %d drop_bad_chain +%llu used %d", r,
		  (unsigned long long)(s.drop_bad_chain - s0.drop_bad_chain), i);
	/* an unwritable buffer: the frame is dropped, the buffer returned */
	{
		uint8_t *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		v.iov_base = ro;
		v.iov_len = 2048;
		vringfd_ring_add(&t.r, NULL, 0, &v, 1, ro);
		vringfd_ring_publish(&t.r);
		s0 = stats(t.fd);
		r = (int)read(t.fd, ref, 1);	/* the frame from above is still queued */
		s = stats(t.fd);
		i = tc_drain_used(&t, NULL);
		result_check(s.drop_bad_addr > s0.drop_bad_addr && s.frames == s0.frames && i == 1,
			  "rx_unwritable_buffer_dropped", "read %d drop_bad_addr +%llu used %d", r,
			  (unsigned long long)(s.drop_bad_addr - s0.drop_bad_addr), i);
		munmap(ro, 4096);
	}
	tc_ring_free(&t);
	result_check(tc_kmsg_clean(), "rx_kernel_clean", "WARN/BUG/oops in dmesg");
}

/**
 * test_hdr10() - the 10-byte struct virtio_net_hdr both ways
 * @inj: packet socket on the tap "vrrh0"
 * @tap: its fd (IFF_VNET_HDR)
 */
static void test_hdr10(int inj, int tap)
{
	struct tc_ring tx, rx;
	uint8_t ref[256];
	long long rx0;
	uint32_t len;
	uint8_t *b;
	int r, sz = 0;

	if (tc_set_hdr(tap, 10) || tc_ring_new(&tx, 64, 0) || tc_ring_new(&rx, 64, 0) ||
	    tc_attach(tx.fd, tap, VRINGFD_DIR_TX, 10, 0) ||
	    tc_attach(rx.fd, tap, VRINGFD_DIR_RX, 10, 0)) {
		result_fail("hdr10", "setup: %s", strerror(errno));
		return;
	}
	ioctl(tap, TUNGETVNETHDRSZ, &sz);
	rx0 = tc_ifstat("vrrh0", "rx_packets");
	memset(buf_at(400), 0, 10);
	tc_frame(buf_at(400) + 10, 100, 8);
	post_frame(&tx, buf_at(400), 110, 1);
	vringfd_ring_publish(&tx.r);
	r = (int)write(tx.fd, "", 1);
	tc_drain_used(&tx, NULL);
	result_check(sz == 10 && r == 1 && tc_ifstat("vrrh0", "rx_packets") == rx0 + 1, "hdr10_tx",
		  "vnet_hdr_sz %d write %d rx +%lld", sz, r, tc_ifstat("vrrh0", "rx_packets") - rx0);
	post_rx(&rx, 410, 1, BUFSZ);
	tc_inject(inj, 1, 100, 9);
	r = rx_pull(&rx, 1);
	b = vringfd_ring_get_used(&rx.r, &len);
	tc_frame(ref, 100, 9);
	result_check(r == 1 && b && len == 110 && !memcmp(b + 10, ref, 100), "hdr10_rx",
		  "read %d len %u", r, b ? len : 0);
	tc_ring_free(&tx);
	tc_ring_free(&rx);
}

int main(void)
{
	int cap, inj, inj2, rhtap;

	signal(SIGPIPE, SIG_IGN);
	arena = mmap(NULL, 4096UL * BUFSZ, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/* persistent taps so that they outlive each test's fd */
	if (tc_sh("ip tuntap add dev " TXTAP " mode tap && ip link set " TXTAP " up && "
		  "ip tuntap add dev " RXTAP " mode tap && ip link set " RXTAP " up && "
		  "ip tuntap add dev vrrh0 mode tap vnet_hdr && ip link set vrrh0 up")) {
		result_fail("tap_txrx", "cannot create taps");
		return 1;
	}
	/* no IPv6 autoconfiguration chatter on the test taps */
	tc_sh("for i in " TXTAP " " RXTAP " vrrh0; do sysctl -qw net.ipv6.conf.$i.disable_ipv6=1; done");
	cap = tc_packet_socket(TXTAP);
	inj = tc_packet_socket(RXTAP);
	inj2 = tc_packet_socket("vrrh0");
	if (cap < 0 || inj < 0 || inj2 < 0) {
		result_fail("tap_txrx", "packet sockets: %s", strerror(errno));
		return 1;
	}
	test_tx_basic(cap);
	test_tx_bad_chains();
	test_tx_headers();
	test_notify();
	test_memtable(cap);
	test_unmapped();
	test_full_ring();
	test_rx_plain(inj);
	rhtap = tc_tap_open("vrrh0", IFF_TAP | IFF_NO_PI | IFF_VNET_HDR);
	tc_wait_carrier("vrrh0");
	test_rx_hdr(inj2, rhtap);
	test_hdr10(inj2, rhtap);
	close(rhtap);
	tc_sh("ip link del " TXTAP "; ip link del " RXTAP "; ip link del vrrh0");
	return result_exit_status();
}
