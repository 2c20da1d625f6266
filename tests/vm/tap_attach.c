// SPDX-License-Identifier: GPL-2.0
/*
 * tap_attach.c - VRINGFD_ATTACH_TAP / VRINGFD_DETACH in the VM: every bad
 * input of the attach table gets its errno; a tap configured otherwise
 * than the ring declares (IFF_TUN, packet information, another header
 * size) is accepted, and frames moved through it both ways stay within
 * the ring's buffers with a clean kernel log; the declared ifindex feeds
 * tap_rx_dropped (0: not counted; one no device has: ENODEV); the tap
 * going away while attached gives EPIPE and EPOLLERR|EPOLLHUP; closing the
 * caller's tap fd keeps the queue working.
 */
#include <poll.h>
#include <sys/eventfd.h>

#include "tap_common.h"

#define TAP0 "vrt0"

/**
 * test_bad_fds() - attach with fds that are not tap queues
 */
static void test_bad_fds(void)
{
	struct tc_ring r, r2;
	int fd;

	if (tc_ring_new(&r, 64, 0) < 0 || tc_ring_new(&r2, 64, 0) < 0) {
		result_fail("attach_bad_fds", "ring: %s", strerror(errno));
		return;
	}
	tc_expect_err("attach_fd_minus_one_EBADF", tc_attach(r.fd, -1, VRINGFD_DIR_TX, 0, 0), EBADF);
	tc_expect_err("attach_fd_not_open_EBADF", tc_attach(r.fd, 999, VRINGFD_DIR_TX, 0, 0), EBADF);
	fd = open("/dev/null", O_RDWR);
	tc_expect_err("attach_dev_null_EINVAL", tc_attach(r.fd, fd, VRINGFD_DIR_TX, 0, 0), EINVAL);
	close(fd);
	tc_expect_err("attach_vring_fd_EINVAL", tc_attach(r.fd, r2.fd, VRINGFD_DIR_TX, 0, 0), EINVAL);
	tc_expect_err("attach_self_EINVAL", tc_attach(r.fd, r.fd, VRINGFD_DIR_TX, 0, 0), EINVAL);
	fd = open("/dev/net/tun", O_RDWR);
	tc_expect_err("attach_unattached_tun_ENODEV", tc_attach(r.fd, fd, VRINGFD_DIR_TX, 0, 0), ENODEV);
	close(fd);
	tc_ring_free(&r);
	tc_ring_free(&r2);
}

/**
 * test_bad_args() - attach arguments out of range, headers that disagree
 */
static void test_bad_args(void)
{
	struct vringfd_tap a;
	struct tc_ring r;
	int plain, vnet;

	plain = tc_tap_open("vrpl0", IFF_TAP | IFF_NO_PI);
	vnet = tc_tap_open("vrvh0", IFF_TAP | IFF_NO_PI | IFF_VNET_HDR);
	if (plain < 0 || vnet < 0 || tc_ring_new(&r, 64, 0) < 0) {
		result_fail("attach_bad_args", "setup: %s", strerror(errno));
		return;
	}
	tc_expect_err("attach_dir_2_EINVAL", tc_attach(r.fd, plain, 2, 0, 0), EINVAL);
	tc_expect_err("attach_hdr_11_EINVAL", tc_attach(r.fd, vnet, VRINGFD_DIR_TX, 11, 0), EINVAL);
	tc_expect_err("attach_flag_unknown_EINVAL", tc_attach(r.fd, vnet, VRINGFD_DIR_RX, 12, 0x80), EINVAL);
	tc_expect_err("attach_mrg_hdr10_EINVAL",
		      tc_attach(r.fd, vnet, VRINGFD_DIR_RX, 10, VRINGFD_TAP_F_MRG_RXBUF), EINVAL);
	memset(&a, 0, sizeof(a));
	a.tap_fd = plain;
	a.reserved = 1;
	tc_expect_err("attach_reserved_EINVAL", vringfd_attach_tap_ex(r.fd, &a), EINVAL);
	a.reserved = 0;
	a.padding = 1;
	tc_expect_err("attach_padding_EINVAL", vringfd_attach_tap_ex(r.fd, &a), EINVAL);
	a.padding = 0;
	a.ifindex = -1;
	tc_expect_err("attach_ifindex_negative_EINVAL", vringfd_attach_tap_ex(r.fd, &a), EINVAL);
	a.ifindex = 0x7fffffff;
	tc_expect_err("attach_ifindex_unknown_ENODEV", vringfd_attach_tap_ex(r.fd, &a), ENODEV);
	tc_expect_err("attach_bad_pointer_EFAULT", ioctl(r.fd, VRINGFD_ATTACH_TAP, (void *)8), EFAULT);
	/* after all these the ring is still unattached and usable */
	tc_expect_err("attach_after_errors_ok", tc_attach(r.fd, vnet, VRINGFD_DIR_TX, 12, 0), 0);
	tc_ring_free(&r);
	close(plain);
	close(vnet);
}

/**
 * test_busy() - second attach, two rings of one direction on one queue
 */
static void test_busy(void)
{
	struct tc_ring a, b, c, d;
	int tap, tap2, sz = 0;

	tap = tc_tap_open(TAP0, IFF_TAP | IFF_NO_PI | IFF_VNET_HDR);
	tap2 = tc_tap_open("vrt1", IFF_TAP | IFF_NO_PI | IFF_VNET_HDR);
	/* a header size no ring declares: the module must leave it alone */
	if (tap < 0 || tap2 < 0 || tc_set_hdr(tap, 14) || tc_set_hdr(tap2, 12) ||
	    tc_ring_new(&a, 64, 0) || tc_ring_new(&b, 64, 0) ||
	    tc_ring_new(&c, 64, 0) || tc_ring_new(&d, 64, 0)) {
		result_fail("attach_busy", "setup: %s", strerror(errno));
		return;
	}
	tc_expect_err("attach_tx_ok", tc_attach(a.fd, tap, VRINGFD_DIR_TX, 12, 0), 0);
	if (ioctl(tap, TUNGETVNETHDRSZ, &sz) == 0 && sz == 14)
		result_pass("attach_leaves_vnet_hdr_sz");
	else
		result_fail("attach_leaves_vnet_hdr_sz", "TUNGETVNETHDRSZ %d, want 14 (set before attach)", sz);
	tc_set_hdr(tap, 12);
	tc_expect_err("attach_twice_EBUSY", tc_attach(a.fd, tap2, VRINGFD_DIR_TX, 12, 0), EBUSY);
	tc_expect_err("attach_second_tx_same_queue_EBUSY", tc_attach(b.fd, tap, VRINGFD_DIR_TX, 12, 0), EBUSY);
	tc_expect_err("attach_rx_other_hdr_len_EINVAL", tc_attach(b.fd, tap, VRINGFD_DIR_RX, 10, 0), EINVAL);
	tc_expect_err("attach_rx_same_queue_ok", tc_attach(b.fd, tap, VRINGFD_DIR_RX, 12, VRINGFD_TAP_F_MRG_RXBUF), 0);
	tc_expect_err("attach_second_rx_same_queue_EBUSY", tc_attach(c.fd, tap, VRINGFD_DIR_RX, 12, 0), EBUSY);
	tc_expect_err("attach_other_tap_ok", tc_attach(c.fd, tap2, VRINGFD_DIR_TX, 12, 0), 0);
	tc_expect_err("detach_ok", vringfd_detach(a.fd), 0);
	tc_expect_err("detach_again_ENOENT", vringfd_detach(a.fd), ENOENT);
	tc_expect_err("write_after_detach_EINVAL", write(a.fd, "", 1), EINVAL);
	tc_expect_err("attach_after_detach_frees_slot", tc_attach(d.fd, tap, VRINGFD_DIR_TX, 12, 0), 0);
	tc_expect_err("reattach_detached_ring_ok", tc_attach(a.fd, tap2, VRINGFD_DIR_RX, 12, 0), 0);
	tc_ring_free(&a);
	tc_ring_free(&b);
	tc_ring_free(&c);
	tc_ring_free(&d);
	/* every slot is free again once the rings are closed */
	if (tc_ring_new(&a, 64, 0) == 0) {
		tc_expect_err("close_frees_slot", tc_attach(a.fd, tap, VRINGFD_DIR_TX, 12, 0), 0);
		tc_ring_free(&a);
	}
	close(tap);
	close(tap2);
}

/**
 * post_tx() - post @n minimal frames on a TX ring (no header)
 * @t: the ring
 * @buf: frame memory (60 bytes)
 * @n: frames
 */
static void post_tx(struct tc_ring *t, uint8_t *buf, int n)
{
	struct iovec v = { buf, 60 };
	int i;

	tc_frame(buf, 60, 1);
	for (i = 0; i < n; i++)
		vringfd_ring_add(&t->r, &v, 1, NULL, 0, buf);
	vringfd_ring_publish(&t->r);
}

/**
 * test_gone() - the tap deleted or its fd closed while attached
 */
static void test_gone(void)
{
	struct vringfd_state st;
	struct tc_ring tx, rx;
	struct pollfd p[2];
	uint8_t buf[64];
	long long before;
	int tap, r;

	tap = tc_tap_open("vrgone0", IFF_TAP | IFF_NO_PI);
	if (tap < 0 || tc_ring_new(&tx, 64, 0) || tc_ring_new(&rx, 64, 0) ||
	    tc_sh("ip link set vrgone0 up")) {
		result_fail("tap_gone", "setup: %s", strerror(errno));
		return;
	}
	tc_attach(tx.fd, tap, VRINGFD_DIR_TX, 0, 0);
	tc_attach(rx.fd, tap, VRINGFD_DIR_RX, 0, 0);

	/* the caller's fd closed: the ring keeps its own reference */
	close(tap);
	before = tc_ifstat("vrgone0", "rx_packets");
	post_tx(&tx, buf, 4);
	r = (int)write(tx.fd, "", 1);
	if (r == 4 && tc_ifstat("vrgone0", "rx_packets") == before + 4)
		result_pass("tap_fd_closed_tx_still_works");
	else
		result_fail("tap_fd_closed_tx_still_works", "write %d (%s), rx_packets %lld -> %lld",
			  r, strerror(errno), before, tc_ifstat("vrgone0", "rx_packets"));
	tc_drain_used(&tx, NULL);

	/* delete the device: a non-persistent tap goes with ip link del */
	if (tc_sh("ip link del vrgone0")) {
		result_fail("tap_deleted", "ip link del failed");
		return;
	}
	post_tx(&tx, buf, 2);
	tc_expect_err("tap_deleted_write_EPIPE", write(tx.fd, "", 1), EPIPE);
	tc_expect_err("tap_deleted_read_EPIPE", read(rx.fd, buf, 1), EPIPE);
	p[0].fd = tx.fd;
	p[1].fd = rx.fd;
	p[0].events = p[1].events = POLLIN;
	r = poll(p, 2, 1000);
	if (r == 2 && (p[0].revents & (POLLERR | POLLHUP)) == (POLLERR | POLLHUP) &&
	    (p[1].revents & (POLLERR | POLLHUP)) == (POLLERR | POLLHUP))
		result_pass("tap_deleted_poll_ERR_HUP");
	else
		result_fail("tap_deleted_poll_ERR_HUP", "poll %d revents %#x %#x", r,
			  p[0].revents, p[1].revents);
	if (vringfd_get_state(tx.fd, &st) == 0 && (st.flags & VRINGFD_STATE_HUP))
		result_pass("tap_deleted_state_HUP");
	else
		result_fail("tap_deleted_state_HUP", "flags %#x", st.flags);
	tc_expect_err("tap_deleted_detach_ok", vringfd_detach(tx.fd), 0);
	tc_ring_free(&tx);	/* closes: nothing may be freed twice */
	tc_ring_free(&rx);
	result_check(tc_kmsg_clean(), "tap_deleted_kernel_clean", "WARN/BUG/oops in dmesg");
}

/**
 * test_macvtap() - a macvtap queue is accepted through tap_get_socket()
 */
static void test_macvtap(void)
{
	char path[64];
	struct tc_ring r;
	uint8_t buf[64];
	int fd, idx;

	if (tc_sh("modprobe macvtap 2>/dev/null; modprobe dummy 2>/dev/null; "
		  "ip link add vrdum0 type dummy && ip link set vrdum0 up && "
		  "ip link add link vrdum0 name vrmvt0 type macvtap mode bridge && "
		  "ip link set vrmvt0 up")) {
		result_skip("attach_macvtap", "cannot create a macvtap (no dummy/macvtap modules?)");
		return;
	}
	idx = (int)if_nametoindex("vrmvt0");
	snprintf(path, sizeof(path), "/dev/tap%d", idx);
	if (access(path, F_OK))
		tc_sh("mknod %s c $(cut -d: -f1 /sys/class/net/vrmvt0/macvtap/tap%d/dev) "
		      "$(cut -d: -f2 /sys/class/net/vrmvt0/macvtap/tap%d/dev)", path, idx, idx);
	fd = open(path, O_RDWR);
	if (fd < 0 || tc_ring_new(&r, 64, 0)) {
		result_fail("attach_macvtap", "open %s: %s", path, strerror(errno));
		goto out;
	}
	/* a macvtap queue always has IFF_VNET_HDR; its size is the caller's */
	if (tc_set_hdr(fd, 12))
		result_fail("attach_macvtap", "TUNSETVNETHDRSZ: %s", strerror(errno));
	if (tc_expect_err("attach_macvtap_ok", tc_attach(r.fd, fd, VRINGFD_DIR_TX, 12, 0), 0)) {
		post_tx(&r, buf, 3);
		tc_expect_err("macvtap_tx_write", write(r.fd, "", 1), 0);
	}
	tc_ring_free(&r);
	close(fd);
out:
	tc_sh("ip link del vrmvt0 2>/dev/null; ip link del vrdum0 2>/dev/null");
}

/* RX buffers of test_misconfigured(): each followed by a guard */
#define MC_BUF		128
#define MC_GUARD	64
#define MC_NBUF		16
#define MC_FILL		0xa5

/**
 * struct mc_case - a tap configured otherwise than the rings declare
 * @name: test name part
 * @flags: TUNSETIFF flags
 * @tap_hdr: TUNSETVNETHDRSZ value (with IFF_VNET_HDR), 0: tun's default
 * @hdr: the rings' declared vnet_hdr_len
 */
struct mc_case {
	const char *name;
	int flags;
	int tap_hdr;
	unsigned int hdr;
};

static const struct mc_case mc_cases[] = {
	{ "iff_tun", IFF_TUN | IFF_NO_PI, 0, 0 },
	{ "iff_tun_vnet12", IFF_TUN | IFF_NO_PI | IFF_VNET_HDR, 12, 12 },
	{ "tap_with_pi", IFF_TAP, 0, 0 },
	{ "tap_with_pi_vnet12", IFF_TAP | IFF_VNET_HDR, 12, 12 },
	{ "hdr12_on_plain_tap", IFF_TAP | IFF_NO_PI, 0, 12 },
	{ "hdr0_on_vnet12_tap", IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, 12, 0 },
	{ "hdr10_on_vnet12_tap", IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, 12, 10 },
	{ "hdr12_on_vnet10_tap", IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, 10, 12 },
	{ "hdr12_on_vnet100_tap", IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, 100, 12 },
};

/**
 * mc_one() - attach both rings to a misconfigured tap, move frames both ways
 * @c: the case
 * @idx: its index (device name)
 * @area: MC_NBUF * (MC_BUF + MC_GUARD) bytes for RX buffers
 * @txbuf: 2048 bytes for TX frames
 *
 * Attach must succeed.  TX: chains of the declared header and frames of
 * 60 and 1500 bytes are all consumed (sent, or dropped and counted).  RX:
 * frames of 60..1000 bytes injected on the device land in MC_BUF-byte
 * buffers (mergeable with a 12-byte header): every used length is within
 * its buffer and no guard byte changed, whatever the tap put in front.
 */
static void mc_one(const struct mc_case *c, unsigned int idx, uint8_t *area, uint8_t *txbuf)
{
	unsigned int flags = c->hdr == 12 ? VRINGFD_TAP_F_MRG_RXBUF : 0;
	struct vringfd_stats ts, rs;
	char name[64], ifn[IFNAMSIZ];
	struct tc_ring tx, rx;
	int tap, inj = -1, r, i, sent, filled = 0, bad = 0;
	uint32_t len;
	uint8_t *b;

	snprintf(ifn, sizeof(ifn), "vrmc%u", idx);
	tap = tc_tap_open(ifn, c->flags);
	if (tap < 0 || (c->tap_hdr && tc_set_hdr(tap, c->tap_hdr)) || tc_sh("ip link set %s up", ifn) ||
	    tc_ring_new(&tx, 64, 0) || tc_ring_new(&rx, 64, 0)) {
		result_fail(c->name, "setup: %s", strerror(errno));
		return;
	}
	tc_wait_carrier(ifn);
	snprintf(name, sizeof(name), "attach_%s_ok", c->name);
	if (!tc_expect_err(name, tc_attach(tx.fd, tap, VRINGFD_DIR_TX, c->hdr, 0), 0))
		goto out;
	if (tc_attach(rx.fd, tap, VRINGFD_DIR_RX, c->hdr, flags) < 0) {
		result_fail(c->name, "rx attach: %s", strerror(errno));
		goto out;
	}

	/* TX: 8 chains, 60 and 1500 bytes after the declared header */
	for (i = 0; i < 8; i++) {
		size_t flen = i & 1 ? 1500 : 60;
		struct iovec v = { txbuf, c->hdr + flen };

		memset(txbuf, 0, c->hdr);
		tc_frame(txbuf + c->hdr, flen, (unsigned int)i);
		vringfd_ring_add(&tx.r, &v, 1, NULL, 0, txbuf);
	}
	vringfd_ring_publish(&tx.r);
	r = (int)write(tx.fd, "", 1);
	snprintf(name, sizeof(name), "tx_%s_consumed", c->name);
	result_check(r == 8 && tc_drain_used(&tx, NULL) == 8, name, "write %d (%s)", r,
		     r < 0 ? strerror(errno) : "");

	/* RX: guarded buffers, frames injected on the device */
	memset(area, MC_FILL, MC_NBUF * (MC_BUF + MC_GUARD));
	for (i = 0; i < MC_NBUF; i++) {
		struct iovec v = { area + i * (MC_BUF + MC_GUARD), MC_BUF };

		vringfd_ring_add(&rx.r, NULL, 0, &v, 1, v.iov_base);
	}
	vringfd_ring_publish(&rx.r);
	inj = tc_packet_socket(ifn);
	sent = 0;
	for (i = 0; inj >= 0 && i < 6; i++) {
		size_t flen = i < 3 ? 60 + 10 * (size_t)i : 1000;

		tc_frame(txbuf, flen, (unsigned int)i);
		if (send(inj, txbuf, flen, 0) == (ssize_t)flen)
			sent++;
	}
	for (i = 0; i < 10; i++) {
		r = (int)read(rx.fd, txbuf, 1);
		if (r < 0)
			break;
		usleep(20000);
	}
	while ((b = vringfd_ring_get_used(&rx.r, &len))) {
		filled++;
		if (len > MC_BUF)
			bad++;
	}
	for (i = 0; i < MC_NBUF; i++) {
		uint8_t *g = area + i * (MC_BUF + MC_GUARD) + MC_BUF;
		int k;

		for (k = 0; k < MC_GUARD; k++)
			bad += g[k] != MC_FILL;
	}
	vringfd_get_stats(tx.fd, &ts);
	vringfd_get_stats(rx.fd, &rs);
	snprintf(name, sizeof(name), "rx_%s_bounded", c->name);
	if (sent > 0 && r >= 0 && !bad)
		result_pass(name);
	else
		result_fail(name, "sent %d, last read %d (%s), used %d, bad %d", sent, r,
			    r < 0 ? strerror(errno) : "", filled, bad);
	printf("# %s: tx frames %llu drops %llu/%llu/%llu; rx used %d frames %llu drops chain %llu big %llu addr %llu tap %llu\n",
	       c->name, (unsigned long long)ts.frames, (unsigned long long)ts.drop_bad_chain,
	       (unsigned long long)ts.drop_bad_hdr, (unsigned long long)ts.drop_tap, filled,
	       (unsigned long long)rs.frames, (unsigned long long)rs.drop_bad_chain,
	       (unsigned long long)rs.drop_too_big, (unsigned long long)rs.drop_bad_addr,
	       (unsigned long long)rs.drop_tap);
out:
	if (inj >= 0)
		close(inj);
	tc_ring_free(&tx);
	tc_ring_free(&rx);
	close(tap);
	tc_sh("ip link del %s 2>/dev/null", ifn);
}

/**
 * test_misconfigured() - taps configured otherwise than the rings declare
 *
 * The module sets and checks nothing on the tap (as vhost-net): each of
 * these is accepted, and moving frames through it gives garbage, short
 * frames or counted drops, never a write outside the ring's buffers or a
 * kernel report.
 */
static void test_misconfigured(void)
{
	size_t asz = MC_NBUF * (MC_BUF + MC_GUARD);
	uint8_t *area, *txbuf;
	unsigned int i;

	area = mmap(NULL, asz + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED) {
		result_fail("misconfigured", "mmap: %s", strerror(errno));
		return;
	}
	txbuf = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (txbuf == MAP_FAILED) {
		result_fail("misconfigured", "mmap: %s", strerror(errno));
		return;
	}
	for (i = 0; i < sizeof(mc_cases) / sizeof(mc_cases[0]); i++)
		mc_one(&mc_cases[i], i, area, txbuf);
	munmap(area, asz + 4096);
	munmap(txbuf, 4096);
	result_check(tc_kmsg_clean(), "misconfigured_kernel_clean", "WARN/BUG/oops in dmesg");
}

/**
 * rx_overflow() - an RX ring on a tap whose queue to user space holds 4
 *	frames, 40 frames injected with no buffer posted
 * @ifn: device name
 * @declare: pass the device's ifindex in struct vringfd_tap
 * @st: the ring's stats after a read() (out)
 *
 * Return: the device's tx_dropped afterwards, or -1 on a setup failure.
 */
static long long rx_overflow(const char *ifn, int declare, struct vringfd_stats *st)
{
	struct vringfd_tap a;
	struct tc_ring t;
	uint8_t f[64];
	long long d = -1;
	int tap, inj, i;
	char c;

	tap = tc_tap_open(ifn, IFF_TAP | IFF_NO_PI);
	if (tap < 0 || tc_sh("ip link set %s txqueuelen 4 up", ifn) || tc_ring_new(&t, 64, 0))
		return -1;
	tc_wait_carrier(ifn);
	memset(&a, 0, sizeof(a));
	a.tap_fd = tap;
	a.dir = VRINGFD_DIR_RX;
	a.ifindex = declare ? (int)if_nametoindex(ifn) : 0;
	inj = tc_packet_socket(ifn);
	if (vringfd_attach_tap_ex(t.fd, &a) == 0 && inj >= 0) {
		for (i = 0; i < 40; i++) {
			tc_frame(f, 60, (unsigned int)i);
			send(inj, f, 60, 0);
		}
		usleep(50000);	/* the counter is copied at most once a jiffy */
		if (read(t.fd, &c, 1) >= 0 && vringfd_get_stats(t.fd, st) == 0)
			d = tc_ifstat(ifn, "tx_dropped");
	}
	if (inj >= 0)
		close(inj);
	tc_ring_free(&t);
	close(tap);
	tc_sh("ip link del %s 2>/dev/null", ifn);
	return d;
}

/**
 * test_ifindex() - the declared ifindex feeds tap_rx_dropped
 */
static void test_ifindex(void)
{
	struct vringfd_stats st;
	long long d;

	memset(&st, 0, sizeof(st));
	d = rx_overflow("vrdr0", 1, &st);
	if (d > 0 && (long long)st.tap_rx_dropped > 0 && (long long)st.tap_rx_dropped <= d)
		result_pass("ifindex_feeds_tap_rx_dropped");
	else
		result_fail("ifindex_feeds_tap_rx_dropped", "tx_dropped %lld, tap_rx_dropped %llu", d,
			    (unsigned long long)st.tap_rx_dropped);
	memset(&st, 0xff, sizeof(st));
	d = rx_overflow("vrdr1", 0, &st);
	if (d > 0 && st.tap_rx_dropped == 0)
		result_pass("ifindex_0_tap_rx_dropped_stays_0");
	else
		result_fail("ifindex_0_tap_rx_dropped_stays_0", "tx_dropped %lld, tap_rx_dropped %llu", d,
			    (unsigned long long)st.tap_rx_dropped);
}

int main(void)
{
	struct vringfd_version v;

	if (vringfd_get_version(&v) < 0) {
		result_fail("tap_attach", "no /dev/vringfd: %s", strerror(errno));
		return 1;
	}
	if (!(v.caps & VRINGFD_CAP_TAP)) {
		result_fail("tap_attach", "module without VRINGFD_CAP_TAP");
		return 1;
	}
	test_bad_fds();
	test_bad_args();
	test_busy();
	test_misconfigured();
	test_ifindex();
	test_gone();
	test_macvtap();
	return result_exit_status();
}
