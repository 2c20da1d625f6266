// SPDX-License-Identifier: GPL-2.0
/*
 * tap_attach.c - VRINGFD_ATTACH_TAP / VRINGFD_DETACH in the VM: every bad
 * input of the attach table gets its errno; the tap going away while
 * attached gives EPIPE and EPOLLERR|EPOLLHUP; closing the caller's tap fd
 * keeps the queue working.
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
	fd = tc_tap_open("vrtun0", IFF_TUN | IFF_NO_PI);
	if (fd < 0) {
		result_fail("attach_iff_tun_EINVAL", "TUNSETIFF: %s", strerror(errno));
	} else {
		tc_expect_err("attach_iff_tun_EINVAL", tc_attach(r.fd, fd, VRINGFD_DIR_TX, 0, 0), EINVAL);
		close(fd);
	}
	fd = tc_tap_open("vrpi0", IFF_TAP);
	if (fd < 0) {
		result_fail("attach_tap_with_pi_EINVAL", "TUNSETIFF: %s", strerror(errno));
	} else {
		tc_expect_err("attach_tap_with_pi_EINVAL", tc_attach(r.fd, fd, VRINGFD_DIR_TX, 0, 0), EINVAL);
		close(fd);
	}
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
	a.reserved[1] = 1;
	tc_expect_err("attach_reserved_EINVAL", vringfd_attach_tap_ex(r.fd, &a), EINVAL);
	tc_expect_err("attach_hdr12_on_plain_tap_EINVAL", tc_attach(r.fd, plain, VRINGFD_DIR_TX, 12, 0), EINVAL);
	tc_expect_err("attach_hdr0_on_vnet_tap_EINVAL", tc_attach(r.fd, vnet, VRINGFD_DIR_TX, 0, 0), EINVAL);
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
	if (tap < 0 || tap2 < 0 || tc_ring_new(&a, 64, 0) || tc_ring_new(&b, 64, 0) ||
	    tc_ring_new(&c, 64, 0) || tc_ring_new(&d, 64, 0)) {
		result_fail("attach_busy", "setup: %s", strerror(errno));
		return;
	}
	tc_expect_err("attach_tx_ok", tc_attach(a.fd, tap, VRINGFD_DIR_TX, 12, 0), 0);
	if (ioctl(tap, TUNGETVNETHDRSZ, &sz) == 0 && sz == 12)
		result_pass("attach_sets_vnet_hdr_sz");
	else
		result_fail("attach_sets_vnet_hdr_sz", "TUNGETVNETHDRSZ %d", sz);
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
	/* a macvtap queue always has IFF_VNET_HDR */
	if (tc_expect_err("attach_macvtap_ok", tc_attach(r.fd, fd, VRINGFD_DIR_TX, 12, 0), 0)) {
		post_tx(&r, buf, 3);
		tc_expect_err("macvtap_tx_write", write(r.fd, "", 1), 0);
	}
	tc_ring_free(&r);
	close(fd);
out:
	tc_sh("ip link del vrmvt0 2>/dev/null; ip link del vrdum0 2>/dev/null");
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
	test_gone();
	test_macvtap();
	return result_exit_status();
}
