// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_daemon_engine.c - the user engine against a real tap (in a private
 * network namespace) and against malicious rings.
 *
 * Each test unshares a network namespace (Check forks every test), creates
 * the tap "ut0" with tap.c and configures it with netlink.c (10.99.0.1/24,
 * IPv6 off so that the kernel sends nothing unasked), builds a tx and an rx
 * ring with libvringfd's driver side, and drives engine_user_ops.  Without the
 * permission for that, every test is a SKIP.  The test_kernel_* cases run
 * the same through engine_kernel_ops when vringfd.ko is loaded (the VM rig,
 * tests/suites/61-vm-engine-kernel), and SKIP elsewhere.
 *
 * Bad input and the expected answer:
 *   tx chain with a writable segment          drop_bad_chain, used len 0
 *   tx chain shorter than header + Ethernet   drop_bad_chain, used len 0
 *   tx header with unknown flags / GSO type   drop_bad_hdr, used len 0
 *   every header of tests/common/vnet_hdr_cases.h, through either engine,
 *   10- and 12-byte headers: the table's verdict; refused: drop_bad_hdr;
 *   accepted: frames + 1 and the tap's rx_packets + 1 (the tap took it)
 *   tx frame over 64 KiB                      drop_too_big, used len 0
 *   tx address outside the memory table       drop_bad_addr, used len 0
 *   avail->idx moved by more than num         tx()/rx() return -EIO, stay so
 *   rx chain with a readable segment          drop_bad_chain, used len 0
 *   rx buffer smaller than the frame          drop_too_big, used len 0
 *   rx with nothing posted                    0 and *starved
 *   tx()/rx() with a budget of N frames       N frames moved, the rest
 *                                             stays for the next call
 *   tx() with a byte budget                   stops after the frame that
 *                                             crosses it
 *   header length 7, mrg_rxbuf without 12     open() fails with a message
 * and that with a dirty log (migration) the user engine marks the pages it
 * wrote: both used rings and the received frame's buffer, not the tx
 * buffers it only read.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check_daemon.h"
#include "common/vnet_hdr_cases.h"
#include "dirty_log.h"
#include "unit/runner.h"
#include "engine.h"
#include "netlink.h"
#include "tap.h"
#include "vringfd.h"

#define UT_NUM	16

static struct tap_dev ut_tap;
static struct vringfd_ring ut_tx, ut_rx;
static void *ut_txmem, *ut_rxmem;
static struct engine_queue *ut_q;
static const struct engine_ops *ut_ops = &engine_user_ops;
static uint8_t ut_tapmac[6];
static const uint8_t ut_mac[6] = { 0x52, 0x54, 0x00, 0xaa, 0xbb, 0x02 };

/**
 * ut_full() - a full budget for one tx()/rx() call
 *
 * Return: a budget of ENGINE_WEIGHT_FRAMES frames and ENGINE_WEIGHT_BYTES
 * bytes (refilled at each call).
 */
static struct engine_budget *ut_full(void)
{
	static struct engine_budget b;

	engine_budget_init(&b);
	return &b;
}

/**
 * ut_setup_tap() - private netns, tap ut0 up with 10.99.0.1/24
 *
 * Skips the test when namespaces or taps are not permitted.
 */
static void ut_setup_tap(void)
{
	struct config_tap ct;
	char err[CFG_ERR_MAX];
	struct netlink *nl;
	int fd;

	if (unshare(CLONE_NEWNET) < 0)
		runner_skip("unshare(CLONE_NEWNET): %s", strerror(errno));
	fd = open("/proc/sys/net/ipv6/conf/default/disable_ipv6", O_WRONLY);
	if (fd >= 0) {
		ck_assert_int_eq(write(fd, "1", 1), 1);
		close(fd);
	}
	memset(&ct, 0, sizeof(ct));
	snprintf(ct.name, sizeof(ct.name), "ut0");
	ct.queues = 1;
	ct.ring_size = UT_NUM;
	ct.owner_uid = (uid_t)-1;
	ct.group_gid = (gid_t)-1;
	ct.mac_set = true;
	memcpy(ct.mac, (uint8_t[6]){ 0x52, 0x54, 0x00, 0x99, 0x00, 0x01 }, 6);
	memcpy(ut_tapmac, ct.mac, 6);
	ct.naddresses = 1;
	ct.addresses[0].family = AF_INET;
	ct.addresses[0].prefixlen = 24;
	ct.addresses[0].addr.in.s_addr = htonl(0x0a630001);
	if (tap_open(&ut_tap, &ct, err, sizeof(err)) < 0)
		runner_skip("%s", err);
	nl = netlink_open(err, sizeof(err));
	ck_assert_msg(nl, "%s", err);
	ck_assert_msg(netlink_apply(nl, &ct, NULL, err, sizeof(err)) == 0, "%s", err);
	netlink_close(nl);
}

/**
 * ut_setup() - tap, rings and a user-engine queue with a 12-byte header
 * @hdr_len: virtio-net header length of the rings
 * @mrg: mergeable rx buffers
 */
static void ut_setup(unsigned int hdr_len, bool mrg)
{
	size_t sz = vringfd_ring_size(UT_NUM, 4096);
	struct engine_queue_config qc;
	char err[CFG_ERR_MAX];

	ut_setup_tap();
	ck_assert(posix_memalign(&ut_txmem, 4096, sz) == 0);
	ck_assert(posix_memalign(&ut_rxmem, 4096, sz) == 0);
	memset(ut_txmem, 0, sz);
	memset(ut_rxmem, 0, sz);
	ck_assert_int_eq(vringfd_ring_init(&ut_tx, ut_txmem, UT_NUM, 4096, 0), 0);
	ck_assert_int_eq(vringfd_ring_init(&ut_rx, ut_rxmem, UT_NUM, 4096, 0), 0);
	memset(&qc, 0, sizeof(qc));
	qc.tap_fd = ut_tap.fds[0];
	qc.tap_ifindex = ut_tap.ifindex;	/* as the ports do */
	qc.vnet_hdr_len = hdr_len;
	qc.mrg_rxbuf = mrg;
	qc.tx = (struct engine_ring){ .num = UT_NUM, .desc = ut_tx.vr.desc, .avail = ut_tx.vr.avail, .used = ut_tx.vr.used };
	qc.rx = (struct engine_ring){ .num = UT_NUM, .desc = ut_rx.vr.desc, .avail = ut_rx.vr.avail, .used = ut_rx.vr.used };
	qc.tx_call_fd = qc.rx_call_fd = -1;
	ut_q = ut_ops->open(&qc, err, sizeof(err));
	ck_assert_msg(ut_q, "%s", err);
}

/**
 * ut_arp_request() - an ARP request for 10.99.0.1 from 10.99.0.2
 * @f: 42 bytes out
 */
static void ut_arp_request(uint8_t *f)
{
	memset(f, 0, 42);
	memset(f, 0xff, 6);
	memcpy(f + 6, ut_mac, 6);
	f[12] = 0x08; f[13] = 0x06; f[15] = 1; f[16] = 0x08; f[18] = 6; f[19] = 4; f[21] = 1;
	memcpy(f + 22, ut_mac, 6);
	f[28] = 10; f[29] = 99; f[30] = 0; f[31] = 2;
	f[38] = 10; f[39] = 99; f[40] = 0; f[41] = 1;
}

/**
 * ut_post_tx() - post one readable chain of two segments (header, frame)
 * @hdr: header bytes (NULL: none)
 * @hdr_len: its length
 * @frame: frame bytes
 * @len: its length
 * @token: token to find it again
 */
static void ut_post_tx(const void *hdr, size_t hdr_len, const void *frame, size_t len,
		       void *token)
{
	struct iovec iov[2] = { { (void *)hdr, hdr_len }, { (void *)frame, len } };

	if (hdr)
		ck_assert_int_ge(vringfd_ring_add(&ut_tx, iov, 2, NULL, 0, token), 0);
	else
		ck_assert_int_ge(vringfd_ring_add(&ut_tx, iov + 1, 1, NULL, 0, token), 0);
	vringfd_ring_publish(&ut_tx);
}

/**
 * ut_wait_tap() - wait until the tap has a frame for us
 *
 * Return: true when readable within 2 s.
 */
static bool ut_wait_tap(void)
{
	struct pollfd p = { .fd = ut_tap.fds[0], .events = POLLIN };

	return poll(&p, 1, 2000) == 1;
}

/**
 * ut_send_arp() - send the ARP request through tx() and check it left
 * @hdr_len: header length of the ring
 */
static void ut_send_arp(unsigned int hdr_len)
{
	static uint8_t hdr[12], frame[42];
	struct engine_stats t0, tx;
	uint32_t len = 99;

	ut_ops->get_stats(ut_q, &t0, NULL);
	ut_arp_request(frame);
	ut_post_tx(hdr_len ? hdr : NULL, hdr_len, frame, sizeof(frame), frame);
	ck_assert_int_eq(ut_ops->tx(ut_q, ut_full()), 1);
	ck_assert_ptr_eq(vringfd_ring_get_used(&ut_tx, &len), frame);
	ck_assert_uint_eq(len, 0);
	ut_ops->get_stats(ut_q, &tx, NULL);
	ck_assert_uint_eq(tx.frames - t0.frames, 1);
	ck_assert_uint_eq(tx.bytes - t0.bytes, 42);
	ck_assert_uint_eq(tx.syscalls - t0.syscalls, 1);
}

START_TEST(test_user_arp_roundtrip)
{
	static uint8_t buf[2048];
	struct iovec in = { buf, sizeof(buf) };
	struct engine_stats rx;
	bool starved = true;
	uint32_t len = 0;

	ut_setup(12, false);
	ut_send_arp(12);
	ck_assert_int_ge(vringfd_ring_add(&ut_rx, NULL, 0, &in, 1, buf), 0);
	vringfd_ring_publish(&ut_rx);
	ck_assert_msg(ut_wait_tap(), "no ARP reply from the kernel");
	ck_assert_int_eq(engine_user_ops.rx(ut_q, ut_full(), &starved), 1);
	ck_assert(!starved);
	ck_assert_ptr_eq(vringfd_ring_get_used(&ut_rx, &len), buf);
	ck_assert_uint_eq(len, 12 + 42);
	ck_assert_uint_eq(buf[10] | buf[11] << 8, 1);		/* num_buffers */
	ck_assert_mem_eq(buf + 12, ut_mac, 6);			/* to us */
	ck_assert_mem_eq(buf + 12 + 6, ut_tapmac, 6);		/* from the tap */
	ck_assert_uint_eq(buf[12 + 21], 2);			/* ARP reply */
	engine_user_ops.get_stats(ut_q, NULL, &rx);
	ck_assert_uint_eq(rx.frames, 1);
	ck_assert_uint_eq(rx.bytes, 42);
	engine_user_ops.close(ut_q, NULL);
}
END_TEST

START_TEST(test_user_no_header)
{
	static uint8_t buf[2048];
	struct iovec in = { buf, sizeof(buf) };
	bool starved;
	uint32_t len = 0;

	ut_setup(0, false);
	ut_send_arp(0);
	ck_assert_int_ge(vringfd_ring_add(&ut_rx, NULL, 0, &in, 1, buf), 0);
	vringfd_ring_publish(&ut_rx);
	ck_assert(ut_wait_tap());
	ck_assert_int_eq(engine_user_ops.rx(ut_q, ut_full(), &starved), 1);
	ck_assert_ptr_eq(vringfd_ring_get_used(&ut_rx, &len), buf);
	ck_assert_uint_eq(len, 42);				/* header stripped */
	ck_assert_mem_eq(buf, ut_mac, 6);
	engine_user_ops.close(ut_q, NULL);
}
END_TEST

START_TEST(test_user_rx_starved_and_small)
{
	static uint8_t small[12 + 20], bad[64], big[2048];
	struct iovec in = { small, sizeof(small) }, out = { bad, sizeof(bad) };
	struct iovec in2 = { big, sizeof(big) };
	struct engine_stats rx;
	bool starved = false;
	uint32_t len = 99;

	ut_setup(12, false);
	ut_send_arp(12);
	ck_assert(ut_wait_tap());
	ck_assert_int_eq(engine_user_ops.rx(ut_q, ut_full(), &starved), 0);
	ck_assert(starved);
	/* a readable chain on the rx ring, then a too small buffer */
	ck_assert_int_ge(vringfd_ring_add(&ut_rx, &out, 1, NULL, 0, bad), 0);
	ck_assert_int_ge(vringfd_ring_add(&ut_rx, NULL, 0, &in, 1, small), 0);
	vringfd_ring_publish(&ut_rx);
	ck_assert_int_eq(engine_user_ops.rx(ut_q, ut_full(), &starved), 2);
	ck_assert_ptr_eq(vringfd_ring_get_used(&ut_rx, &len), bad);
	ck_assert_uint_eq(len, 0);
	ck_assert_ptr_eq(vringfd_ring_get_used(&ut_rx, &len), small);
	ck_assert_uint_eq(len, 0);
	engine_user_ops.get_stats(ut_q, NULL, &rx);
	ck_assert_uint_eq(rx.drop_bad_chain, 1);
	ck_assert_uint_eq(rx.drop_too_big, 1);
	ck_assert_uint_eq(rx.frames, 0);
	/* the ring still works */
	ut_send_arp(12);
	ck_assert_int_ge(vringfd_ring_add(&ut_rx, NULL, 0, &in2, 1, big), 0);
	vringfd_ring_publish(&ut_rx);
	ck_assert(ut_wait_tap());
	ck_assert_int_eq(engine_user_ops.rx(ut_q, ut_full(), &starved), 1);
	ck_assert_ptr_eq(vringfd_ring_get_used(&ut_rx, &len), big);
	ck_assert_uint_eq(len, 12 + 42);
	engine_user_ops.close(ut_q, NULL);
}
END_TEST

START_TEST(test_user_mrg_rxbuf)
{
	static uint8_t b[3][32];
	struct iovec in[3] = { { b[0], 32 }, { b[1], 32 }, { b[2], 32 } };
	bool starved;
	uint32_t len = 0;
	int i;

	ut_setup(12, true);
	ut_send_arp(12);
	for (i = 0; i < 3; i++)
		ck_assert_int_ge(vringfd_ring_add(&ut_rx, NULL, 0, &in[i], 1, b[i]), 0);
	vringfd_ring_publish(&ut_rx);
	ck_assert(ut_wait_tap());
	/* 54 bytes over two 32-byte heads; the third is given back */
	ck_assert_int_eq(engine_user_ops.rx(ut_q, ut_full(), &starved), 2);
	ck_assert_ptr_eq(vringfd_ring_get_used(&ut_rx, &len), b[0]);
	ck_assert_uint_eq(len, 32);
	ck_assert_ptr_eq(vringfd_ring_get_used(&ut_rx, &len), b[1]);
	ck_assert_uint_eq(len, 22);
	ck_assert_ptr_null(vringfd_ring_get_used(&ut_rx, &len));
	ck_assert_uint_eq(b[0][10] | b[0][11] << 8, 2);	/* num_buffers */
	engine_user_ops.close(ut_q, NULL);
}
END_TEST

START_TEST(test_user_tx_bad_chains)
{
	static uint8_t hdr[12], badflags[12] = { 0x80 }, badgso[12] = { 0, 0x55 };
	static uint8_t frame[42], shortf[10], wbuf[64];
	static uint8_t *huge;
	struct iovec w = { wbuf, sizeof(wbuf) };
	struct engine_stats tx;
	uint32_t len = 99;
	void *tok;
	int n = 0;

	ut_setup(12, false);
	huge = calloc(1, 70000);
	ck_assert_ptr_nonnull(huge);
	ut_arp_request(frame);
	ck_assert_int_ge(vringfd_ring_add(&ut_tx, NULL, 0, &w, 1, wbuf), 0);	/* writable */
	ut_post_tx(hdr, 12, shortf, sizeof(shortf), shortf);		/* too short */
	ut_post_tx(badflags, 12, frame, 42, badflags);			/* bad flags */
	ut_post_tx(badgso, 12, frame, 42, badgso);			/* bad GSO type */
	ut_post_tx(hdr, 12, huge, 70000, huge);				/* too big */
	ut_post_tx(hdr, 12, frame, 42, frame);				/* fine */
	ck_assert_int_eq(engine_user_ops.tx(ut_q, ut_full()), 6);
	while ((tok = vringfd_ring_get_used(&ut_tx, &len))) {
		ck_assert_uint_eq(len, 0);
		n++;
	}
	ck_assert_int_eq(n, 6);
	engine_user_ops.get_stats(ut_q, &tx, NULL);
	ck_assert_uint_eq(tx.drop_bad_chain, 2);
	ck_assert_uint_eq(tx.drop_bad_hdr, 2);
	ck_assert_uint_eq(tx.drop_too_big, 1);
	ck_assert_uint_eq(tx.frames, 1);
	engine_user_ops.close(ut_q, NULL);
	free(huge);
}
END_TEST

/**
 * ut_tap_rx_packets() - the tap's rx packets (frames it took from us),
 * from /proc/net/dev (this network namespace's)
 *
 * Return: the count.
 */
static uint64_t ut_tap_rx_packets(void)
{
	char line[512];
	FILE *f = fopen("/proc/net/dev", "r");
	unsigned long long bytes, packets;
	bool found = false;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "ut0:");

		if (p && sscanf(p + 4, "%llu %llu", &bytes, &packets) == 2)
			found = true;
		if (found)
			break;
	}
	fclose(f);
	ck_assert_msg(found, "ut0 not in /proc/net/dev");
	return packets;
}

/**
 * ut_hdr_case() - send one case of the header table through the engine
 * @c: the case
 * @hdr_size: the rings' header length (10 or 12)
 * @layout: 0: header and frame in one segment; 1: two segments; 2: the
 *	header split in two, its second part with the frame
 * @why: the mismatch, if any, is appended here
 * @whylen: its size
 *
 * Return: true when the engine and the tap did what the verdict says.
 */
static bool ut_hdr_case(const struct vhc_case *c, unsigned int hdr_size, unsigned int layout,
			char *why, size_t whylen)
{
	static uint8_t buf[12 + VHC_MAX_FRAME];
	size_t n = vhc_build(c, hdr_size, buf), used = strlen(why);
	struct iovec iov[2] = { { buf, n }, { NULL, 0 } };
	enum vringfd_vnet_hdr_verdict v = vringfd_vnet_hdr_check(buf, hdr_size, c->len);
	bool pass = c->want == VRINGFD_VNET_HDR_OK;
	uint64_t rx0, rx1;
	struct engine_stats t0, t1;
	uint32_t len = 99;
	int r;

	if (layout) {
		iov[0].iov_len = layout == 1 ? hdr_size : 5;
		iov[1] = (struct iovec){ buf + iov[0].iov_len, n - iov[0].iov_len };
	}
	ut_ops->get_stats(ut_q, &t0, NULL);
	rx0 = ut_tap_rx_packets();
	ck_assert_int_ge(vringfd_ring_add(&ut_tx, iov, layout ? 2 : 1, NULL, 0, buf), 0);
	vringfd_ring_publish(&ut_tx);
	r = ut_ops->tx(ut_q, ut_full());
	ck_assert_ptr_eq(vringfd_ring_get_used(&ut_tx, &len), buf);
	ut_ops->get_stats(ut_q, &t1, NULL);
	rx1 = ut_tap_rx_packets();
	if (v == c->want && r == 1 && len == 0 && t1.frames - t0.frames == pass &&
	    t1.drop_bad_hdr - t0.drop_bad_hdr == !pass && t1.drop_tap == t0.drop_tap &&
	    rx1 - rx0 == pass)
		return true;
	snprintf(why + used, whylen - used,
		 " [%s/%u: verdict '%s' want '%s'; tx %d used %u frames +%llu bad_hdr +%llu"
		 " drop_tap +%llu tap rx +%llu]",
		 c->name, hdr_size, vringfd_vnet_hdr_reason(v), vringfd_vnet_hdr_reason(c->want),
		 r, len, (unsigned long long)(t1.frames - t0.frames),
		 (unsigned long long)(t1.drop_bad_hdr - t0.drop_bad_hdr),
		 (unsigned long long)(t1.drop_tap - t0.drop_tap),
		 (unsigned long long)(rx1 - rx0));
	return false;
}

/**
 * ut_hdr_policy() - the whole header table through the current engine
 * @hdr_size: the rings' header length (10 or 12)
 *
 * Every case runs; the test fails at the end with every mismatch.
 */
static void ut_hdr_policy(unsigned int hdr_size)
{
	static char why[8192];
	unsigned int i, bad = 0;

	why[0] = 0;
	ut_setup(hdr_size, false);
	for (i = 0; i < VHC_NCASES; i++)
		bad += !ut_hdr_case(&vhc_cases[i], hdr_size, i % 3, why, sizeof(why));
	ut_ops->close(ut_q, NULL);
	ck_assert_msg(bad == 0, "%u of %u header cases: %s", bad, (unsigned int)VHC_NCASES, why);
}

START_TEST(test_user_hdr_policy_12)
{
	ut_hdr_policy(12);
}
END_TEST

START_TEST(test_user_hdr_policy_10)
{
	ut_hdr_policy(10);
}
END_TEST

START_TEST(test_user_broken_ring)
{
	bool starved;

	ut_setup(12, false);
	/* avail->idx jumps past num: the ring is broken for good */
	ut_tx.vr.avail->idx = UT_NUM + 1;
	ck_assert_int_eq(engine_user_ops.tx(ut_q, ut_full()), -EIO);
	ut_tx.vr.avail->idx = 0;
	ck_assert_int_eq(engine_user_ops.tx(ut_q, ut_full()), -EIO);
	ut_rx.vr.avail->idx = 0xffff;
	ck_assert_int_eq(engine_user_ops.rx(ut_q, ut_full(), &starved), -EIO);
	engine_user_ops.close(ut_q, NULL);
}
END_TEST

START_TEST(test_user_mem_table)
{
	static uint8_t hdr[12], frame[42];
	struct engine_mem_region r;
	struct engine_queue_config qc;
	struct engine_stats tx;
	char err[CFG_ERR_MAX];
	int efd;
	uint64_t n = 0;

	ut_setup(12, false);
	engine_user_ops.close(ut_q, NULL);
	/* guest memory: hdr at guest 0x1000, frame at guest 0x2000 */
	ut_arp_request(frame);
	r.guest_addr = 0x1000;
	r.size = 0x2000;
	r.uaddr = NULL;
	{
		static uint8_t region[0x2000];

		memcpy(region, hdr, 12);
		memcpy(region + 0x1000, frame, 42);
		r.uaddr = region;
	}
	efd = eventfd(0, EFD_NONBLOCK);
	ck_assert_int_ge(efd, 0);
	memset(&qc, 0, sizeof(qc));
	qc.tap_fd = ut_tap.fds[0];
	qc.vnet_hdr_len = 12;
	qc.regions = &r;
	qc.nregions = 1;
	qc.tx = (struct engine_ring){ .num = UT_NUM, .desc = ut_tx.vr.desc, .avail = ut_tx.vr.avail, .used = ut_tx.vr.used };
	qc.rx = (struct engine_ring){ .num = UT_NUM, .desc = ut_rx.vr.desc, .avail = ut_rx.vr.avail, .used = ut_rx.vr.used };
	qc.tx_call_fd = efd;
	qc.rx_call_fd = -1;
	ut_q = engine_user_ops.open(&qc, err, sizeof(err));
	ck_assert_msg(ut_q, "%s", err);
	/* chain 1: inside the table; chain 2: frame outside it */
	ut_post_tx((void *)0x1000, 12, (void *)0x2000, 42, frame);
	ut_post_tx((void *)0x1000, 12, (void *)0x9000, 42, hdr);
	ck_assert_int_eq(engine_user_ops.tx(ut_q, ut_full()), 2);
	engine_user_ops.get_stats(ut_q, &tx, NULL);
	ck_assert_uint_eq(tx.frames, 1);
	ck_assert_uint_eq(tx.drop_bad_addr, 1);
	ck_assert_uint_ge(tx.notifies, 1);
	ck_assert_int_eq(read(efd, &n, sizeof(n)), (int)sizeof(n));
	ck_assert_uint_ge(n, 1);
	engine_user_ops.close(ut_q, NULL);
	close(efd);
}
END_TEST

START_TEST(test_user_dirty_log)
{
	static uint8_t gm[0x10000] __attribute__((aligned(4096)));
	uint8_t *hdr = gm, *frame = gm + 0x1000, *buf = gm + 0x8000;
	struct engine_mem_region r = { .guest_addr = 0x100000, .size = sizeof(gm), .uaddr = gm };
	struct iovec in = { (void *)0x108000, 2048 };
	struct engine_queue_config qc;
	char err[CFG_ERR_MAX];
	struct dirty_log log;
	uint8_t bits[64];
	uint32_t len = 0;
	bool starved;
	int lfd;

	ut_setup(12, false);
	engine_user_ops.close(ut_q, NULL);
	lfd = memfd_create("log", MFD_CLOEXEC);
	ck_assert_int_ge(lfd, 0);
	ck_assert_int_eq(ftruncate(lfd, 4096), 0);
	dirty_log_init(&log);
	ck_assert_msg(dirty_log_map(&log, lfd, 4096, 0, &log, 0, err, sizeof(err)) == 0, "%s", err);
	memset(&qc, 0, sizeof(qc));
	qc.tap_fd = ut_tap.fds[0];
	qc.vnet_hdr_len = 12;
	qc.regions = &r;
	qc.nregions = 1;
	qc.tx = (struct engine_ring){ .num = UT_NUM, .desc = ut_tx.vr.desc, .avail = ut_tx.vr.avail,
				   .used = ut_tx.vr.used, .log_used = true, .used_gpa = 0x10c000 };
	qc.rx = (struct engine_ring){ .num = UT_NUM, .desc = ut_rx.vr.desc, .avail = ut_rx.vr.avail,
				   .used = ut_rx.vr.used, .log_used = true, .used_gpa = 0x10d000 };
	qc.tx_call_fd = qc.rx_call_fd = -1;
	qc.log = &log;
	ut_q = engine_user_ops.open(&qc, err, sizeof(err));
	ck_assert_msg(ut_q, "%s", err);
	/* tx from guest pages 0x100 and 0x101 (read only), rx into page 0x108 */
	memset(hdr, 0, 12);
	ut_arp_request(frame);
	ut_post_tx((void *)0x100000, 12, (void *)0x101000, 42, frame);
	ck_assert_int_eq(engine_user_ops.tx(ut_q, ut_full()), 1);
	ck_assert_int_ge(vringfd_ring_add(&ut_rx, NULL, 0, &in, 1, buf), 0);
	vringfd_ring_publish(&ut_rx);
	ck_assert_msg(ut_wait_tap(), "no ARP reply from the kernel");
	ck_assert_int_eq(engine_user_ops.rx(ut_q, ut_full(), &starved), 1);
	ck_assert_ptr_eq(vringfd_ring_get_used(&ut_rx, &len), buf);
	ck_assert_uint_eq(len, 12 + 42);
	ck_assert_uint_eq(buf[12 + 21], 2);	/* the ARP reply landed in guest memory */
	ck_assert_int_eq(pread(lfd, bits, sizeof(bits), 0), (ssize_t)sizeof(bits));
	/* page 0x108 (rx buffer) = byte 33 bit 0, 0x10c (tx used) bit 4, 0x10d (rx used) bit 5 */
	ck_assert_uint_eq(bits[33], 0x31);
	ck_assert_uint_eq(bits[32], 0);		/* pages 0x100..0x107: only read */
	ck_assert_uint_eq(log.pages, 3);
	engine_user_ops.close(ut_q, NULL);
	dirty_log_unmap(&log);
	close(lfd);
}
END_TEST

START_TEST(test_user_open_refuses)
{
	struct engine_queue_config qc;
	char err[CFG_ERR_MAX] = "";
	static uint8_t mem[8192] __attribute__((aligned(4096)));
	struct vringfd_ring r;

	ck_assert_int_eq(vringfd_ring_init(&r, mem, 8, 4096, 0), 0);
	memset(&qc, 0, sizeof(qc));
	qc.tap_fd = -1;
	qc.tx = (struct engine_ring){ .num = 8, .desc = r.vr.desc, .avail = r.vr.avail, .used = r.vr.used };
	qc.rx = qc.tx;
	qc.vnet_hdr_len = 7;
	ck_assert_ptr_null(engine_user_ops.open(&qc, err, sizeof(err)));
	ck_assert_str_eq(err, "user engine: virtio-net header of 7 bytes (0, 10 or 12)");
	qc.vnet_hdr_len = 10;
	qc.mrg_rxbuf = true;
	ck_assert_ptr_null(engine_user_ops.open(&qc, err, sizeof(err)));
	ck_assert_str_eq(err, "user engine: mergeable rx buffers need the 12-byte header");
	qc.mrg_rxbuf = false;
	qc.tx.num = 6;
	ck_assert_ptr_null(engine_user_ops.open(&qc, err, sizeof(err)));
	ck_assert_str_eq(err, "user engine: tx ring of 6: Invalid argument");
	vringfd_ring_fini(&r);
}
END_TEST

START_TEST(test_engine_select)
{
	char err[256] = "";

	ck_assert_ptr_eq(engine_select(CFG_ENGINE_USER, err, sizeof(err)), &engine_user_ops);
	setenv("VRINGFD_DEVICE", "/nonexistent/vringfd", 1);
	ck_assert_ptr_eq(engine_select(CFG_ENGINE_AUTO, err, sizeof(err)), &engine_user_ops);
	ck_assert_ptr_null(engine_select(CFG_ENGINE_KERNEL, err, sizeof(err)));
	ck_assert_msg(strstr(err, "engine = kernel, but /dev/vringfd: No such file or directory"),
		      "%s", err);
	ck_assert(!engine_probe_kernel(err, sizeof(err)));
	/* a queue whose front-end logs dirty pages runs on the user engine */
	ck_assert_ptr_eq(engine_for_queue(&engine_kernel_ops, true), &engine_user_ops);
	ck_assert_ptr_eq(engine_for_queue(&engine_kernel_ops, false), &engine_kernel_ops);
	ck_assert_ptr_eq(engine_for_queue(&engine_user_ops, false), &engine_user_ops);
}
END_TEST

/**
 * ut_kernel() - use the kernel engine, or skip without vringfd.ko
 */
static void ut_kernel(void)
{
	char why[256];

	if (!engine_probe_kernel(why, sizeof(why)))
		runner_skip("vringfd.ko with tap attachment is not loaded (run in the VM rig)");
	ut_ops = &engine_kernel_ops;
}

START_TEST(test_kernel_arp_roundtrip)
{
	static uint8_t buf[2048];
	struct iovec in = { buf, sizeof(buf) };
	struct engine_stats tx, rx;
	bool starved = true;
	uint32_t len = 0;
	int i, n = 0;

	ut_kernel();
	ut_setup(12, false);
	ck_assert_int_ge(vringfd_ring_add(&ut_rx, NULL, 0, &in, 1, buf), 0);
	vringfd_ring_publish(&ut_rx);
	ut_send_arp(12);
	/* the module fills the posted buffer itself or on read() */
	for (i = 0; i < 50 && !vringfd_ring_more_used(&ut_rx); i++) {
		struct pollfd p = { .fd = ut_ops->rx_fd(ut_q), .events = POLLIN };

		poll(&p, 1, 100);
		n = ut_ops->rx(ut_q, ut_full(), &starved);
		ck_assert_int_ge(n, 0);
	}
	ck_assert_ptr_eq(vringfd_ring_get_used(&ut_rx, &len), buf);
	ck_assert_uint_eq(len, 12 + 42);
	ck_assert_mem_eq(buf + 12, ut_mac, 6);
	ck_assert_uint_eq(buf[12 + 21], 2);
	ut_ops->get_stats(ut_q, &tx, &rx);
	ck_assert_uint_eq(tx.frames, 1);
	ck_assert_uint_eq(rx.frames, 1);
	ut_ops->close(ut_q, NULL);
	ut_ops = &engine_user_ops;
}
END_TEST

START_TEST(test_user_tx_budget)
{
	static uint8_t hdr[12], frame[5][42];
	struct engine_budget b = { .frames = 3, .bytes = 1 << 20 };
	struct engine_stats tx;
	unsigned int i;

	ut_setup(12, false);
	for (i = 0; i < 5; i++) {
		ut_arp_request(frame[i]);
		ut_post_tx(hdr, 12, frame[i], 42, frame[i]);
	}
	/* three frames: the frame budget is spent, two chains stay */
	ck_assert_int_eq(ut_ops->tx(ut_q, &b), 3);
	ck_assert(engine_budget_spent(&b));
	ck_assert_uint_eq(b.bytes, (1 << 20) - 3 * 42);
	/* 50 bytes: the second frame crosses it and still goes */
	b = (struct engine_budget){ .frames = 100, .bytes = 50 };
	ck_assert_int_eq(ut_ops->tx(ut_q, &b), 2);
	ck_assert(engine_budget_spent(&b));
	ck_assert_uint_eq(b.frames, 98);
	ut_ops->get_stats(ut_q, &tx, NULL);
	ck_assert_uint_eq(tx.frames, 5);
	ut_ops->close(ut_q, NULL);
}
END_TEST

START_TEST(test_user_rx_budget)
{
	static uint8_t frame[42], buf[4][128];
	struct engine_budget b = { .frames = 1, .bytes = 1 << 20 };
	struct sockaddr_ll sll;
	unsigned int i;
	bool starved;
	int s;

	ut_setup(12, false);
	for (i = 0; i < 4; i++) {
		struct iovec in = { buf[i], sizeof(buf[i]) };

		ck_assert_int_ge(vringfd_ring_add(&ut_rx, NULL, 0, &in, 1, buf[i]), 0);
	}
	vringfd_ring_publish(&ut_rx);
	/* two frames queued on the tap (a packet socket's send reaches the
	 * tap's queue before sendto() returns) */
	s = socket(AF_PACKET, SOCK_RAW, 0);
	ck_assert_int_ge(s, 0);
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = ut_tap.ifindex;
	sll.sll_halen = 6;
	ut_arp_request(frame);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(sendto(s, frame, sizeof(frame), 0, (struct sockaddr *)&sll,
					sizeof(sll)), (int)sizeof(frame));
	close(s);
	ck_assert(ut_wait_tap());
	ck_assert_int_eq(ut_ops->rx(ut_q, &b, &starved), 1);
	ck_assert(engine_budget_spent(&b));
	ck_assert(!starved);
	ck_assert(ut_wait_tap());	/* the second one waits for the next service */
	ck_assert_int_eq(ut_ops->rx(ut_q, ut_full(), &starved), 1);
	ut_ops->close(ut_q, NULL);
}
END_TEST

START_TEST(test_kernel_tx_bad_chains)
{
	static uint8_t hdr[12], badflags[12] = { 0x80 }, frame[42], shortf[10], wbuf[64];
	struct iovec w = { wbuf, sizeof(wbuf) };
	struct engine_stats tx;
	uint32_t len = 99;
	int n = 0;

	ut_kernel();
	ut_setup(12, false);
	ut_arp_request(frame);
	ck_assert_int_ge(vringfd_ring_add(&ut_tx, NULL, 0, &w, 1, wbuf), 0);	/* writable */
	ut_post_tx(hdr, 12, shortf, sizeof(shortf), shortf);		/* too short */
	ut_post_tx(badflags, 12, frame, 42, badflags);			/* bad flags */
	ut_post_tx(hdr, 12, frame, 42, frame);				/* fine */
	ck_assert_int_eq(ut_ops->tx(ut_q, ut_full()), 4);
	while (vringfd_ring_get_used(&ut_tx, &len)) {
		ck_assert_uint_eq(len, 0);
		n++;
	}
	ck_assert_int_eq(n, 4);
	ut_ops->get_stats(ut_q, &tx, NULL);
	ck_assert_uint_eq(tx.frames, 1);
	ck_assert_uint_eq(tx.drop_bad_chain + tx.drop_bad_hdr, 3);
	ut_ops->close(ut_q, NULL);
	ut_ops = &engine_user_ops;
}
END_TEST

START_TEST(test_kernel_hdr_policy_12)
{
	ut_kernel();
	ut_hdr_policy(12);
	ut_ops = &engine_user_ops;
}
END_TEST

START_TEST(test_kernel_hdr_policy_10)
{
	ut_kernel();
	ut_hdr_policy(10);
	ut_ops = &engine_user_ops;
}
END_TEST

START_TEST(test_kernel_rx_preposted)
{
	static uint8_t buf[2048];
	struct iovec in = { buf, sizeof(buf) };
	struct engine_queue_config qc;
	char err[CFG_ERR_MAX];
	struct pollfd p;
	bool starved = true;
	uint32_t len = 0;
	int i;

	ut_kernel();
	ut_setup(12, false);
	/* Reopen after posting: the device starts at last_avail 0 (as after
	 * vhost-user SET_VRING_BASE 0), not at avail->idx, so the buffer posted
	 * before the queue started is served. */
	ut_ops->close(ut_q, NULL);
	ck_assert_int_ge(vringfd_ring_add(&ut_rx, NULL, 0, &in, 1, buf), 0);
	vringfd_ring_publish(&ut_rx);
	memset(&qc, 0, sizeof(qc));
	qc.tap_fd = ut_tap.fds[0];
	qc.vnet_hdr_len = 12;
	qc.tx = (struct engine_ring){ .num = UT_NUM, .desc = ut_tx.vr.desc, .avail = ut_tx.vr.avail, .used = ut_tx.vr.used };
	qc.rx = (struct engine_ring){ .num = UT_NUM, .desc = ut_rx.vr.desc, .avail = ut_rx.vr.avail, .used = ut_rx.vr.used };
	qc.tx_call_fd = qc.rx_call_fd = -1;
	ut_q = ut_ops->open(&qc, err, sizeof(err));
	ck_assert_msg(ut_q, "%s", err);
	ut_send_arp(12);
	for (i = 0; i < 50 && !vringfd_ring_more_used(&ut_rx); i++) {
		p = (struct pollfd){ .fd = ut_ops->rx_fd(ut_q), .events = POLLIN };
		poll(&p, 1, 100);
		ck_assert_int_ge(ut_ops->rx(ut_q, ut_full(), &starved), 0);
	}
	ck_assert_ptr_eq(vringfd_ring_get_used(&ut_rx, &len), buf);
	ck_assert_uint_eq(len, 12 + 42);
	/* Nothing more to deliver: the rx fd must not stay readable (the
	 * event loop would spin). */
	p = (struct pollfd){ .fd = ut_ops->rx_fd(ut_q), .events = POLLIN };
	ck_assert_int_eq(poll(&p, 1, 0), 0);
	ut_ops->close(ut_q, NULL);
	ut_ops = &engine_user_ops;
}
END_TEST

START_TEST(test_kernel_refuses_no_header)
{
	struct engine_queue_config qc;
	char err[CFG_ERR_MAX] = "";

	memset(&qc, 0, sizeof(qc));
	qc.vnet_hdr_len = 0;
	ck_assert_ptr_null(engine_kernel_ops.open(&qc, err, sizeof(err)));
	ck_assert_str_eq(err, "kernel engine: rings need a 10- or 12-byte virtio-net header on an IFF_VNET_HDR tap (got 0)");
}
END_TEST

START_TEST(test_kernel_refuses_dirty_log)
{
	struct engine_queue_config qc;
	char err[CFG_ERR_MAX] = "";
	struct dirty_log log;

	dirty_log_init(&log);
	memset(&qc, 0, sizeof(qc));
	qc.vnet_hdr_len = 12;
	qc.log = &log;
	ck_assert_ptr_null(engine_kernel_ops.open(&qc, err, sizeof(err)));
	ck_assert_str_eq(err, "kernel engine: cannot log dirty pages (a migrating guest runs on the user engine)");
}
END_TEST

/**
 * ut_memfd_maps() - mappings of this process of the test's guest memfd
 *
 * Return: lines of /proc/self/maps naming "memfd:ut-guest ".
 */
static int ut_memfd_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "/memfd:ut-guest "))
			n++;
	fclose(f);
	return n;
}

#define UT_GPA		0x100000ULL	/* guest address of the memfd's byte 0 */
#define UT_GM_SIZE	0x10000u

/**
 * ut_unmapped_config() - a queue on rings of memory the engine is not given mapped
 * @qc: filled: rings by guest address only (desc/avail/used NULL), one
 *	region over @fd without uaddr, mem_files
 * @r: the region (filled)
 * @gm: the test's own mapping of @fd (the "front-end's")
 * @fd: the memfd
 */
static void ut_unmapped_config(struct engine_queue_config *qc, struct engine_mem_region *r,
			       uint8_t *gm, int fd)
{
	*r = (struct engine_mem_region){ .guest_addr = UT_GPA, .size = UT_GM_SIZE, .fd = fd };
	memset(qc, 0, sizeof(*qc));
	qc->tap_fd = ut_tap.fds[0];
	qc->tap_ifindex = ut_tap.ifindex;
	qc->vnet_hdr_len = 12;
	qc->regions = r;
	qc->nregions = 1;
	qc->mem_files = true;
	qc->tx = (struct engine_ring){ .num = UT_NUM,
		.desc_gpa = UT_GPA + (uint64_t)((uint8_t *)ut_tx.vr.desc - gm),
		.avail_gpa = UT_GPA + (uint64_t)((uint8_t *)ut_tx.vr.avail - gm),
		.used_gpa = UT_GPA + (uint64_t)((uint8_t *)ut_tx.vr.used - gm) };
	qc->rx = (struct engine_ring){ .num = UT_NUM,
		.desc_gpa = UT_GPA + (uint64_t)((uint8_t *)ut_rx.vr.desc - gm),
		.avail_gpa = UT_GPA + (uint64_t)((uint8_t *)ut_rx.vr.avail - gm),
		.used_gpa = UT_GPA + (uint64_t)((uint8_t *)ut_rx.vr.used - gm) };
	qc->tx_call_fd = qc->rx_call_fd = -1;
}

/**
 * ut_guest_memfd() - the "front-end's" guest memory, mapped by the test
 * @seal: seal it against shrinking (vringfd.ko then takes it)
 * @fd: the memfd (out)
 *
 * Return: the test's mapping; the tx ring at 0, the rx ring at 0x4000.
 */
static uint8_t *ut_guest_memfd(bool seal, int *fd)
{
	uint8_t *gm;

	*fd = memfd_create("ut-guest", MFD_CLOEXEC | (seal ? MFD_ALLOW_SEALING : 0));
	ck_assert_int_ge(*fd, 0);
	ck_assert_int_eq(ftruncate(*fd, UT_GM_SIZE), 0);
	if (seal)
		ck_assert_int_eq(fcntl(*fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
	gm = mmap(NULL, UT_GM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	ck_assert_ptr_ne(gm, MAP_FAILED);
	ck_assert_int_eq(vringfd_ring_init(&ut_tx, gm, UT_NUM, 4096, 0), 0);
	ck_assert_int_eq(vringfd_ring_init(&ut_rx, gm + 0x4000, UT_NUM, 4096, 0), 0);
	return gm;
}

START_TEST(test_kernel_unmapped_memory_rings)
{
	struct engine_queue_config qc;
	struct engine_mem_region r;
	struct engine_stats tx, rx;
	char err[CFG_ERR_MAX] = "";
	uint8_t *gm;
	uint32_t len = 99;
	bool starved;
	int fd, i;
	struct iovec in = { (void *)(uintptr_t)(UT_GPA + 0xa000), 2048 };
	struct iovec out[2] = { { (void *)(uintptr_t)(UT_GPA + 0x8000), 12 },
				{ (void *)(uintptr_t)(UT_GPA + 0x9000), 42 } };

	ut_kernel();
	ut_setup_tap();
	gm = ut_guest_memfd(true, &fd);
	ut_unmapped_config(&qc, &r, gm, fd);
	ut_q = engine_kernel_ops.open(&qc, err, sizeof(err));
	ck_assert_msg(ut_q, "%s", err);
	/* the engine's short mappings under the ring parts are gone */
	ck_assert_int_eq(ut_memfd_maps(), 1);
	/* an ARP request out, its reply back, through the memory file */
	memset(gm + 0x8000, 0, 12);
	ut_arp_request(gm + 0x9000);
	ck_assert_int_ge(vringfd_ring_add(&ut_rx, NULL, 0, &in, 1, gm + 0xa000), 0);
	vringfd_ring_publish(&ut_rx);
	ck_assert_int_ge(vringfd_ring_add(&ut_tx, out, 2, NULL, 0, gm + 0x9000), 0);
	vringfd_ring_publish(&ut_tx);
	ck_assert_int_eq(engine_kernel_ops.tx(ut_q, ut_full()), 1);
	ck_assert_ptr_eq(vringfd_ring_get_used(&ut_tx, &len), gm + 0x9000);
	/* not mapped here: whether chains are left is asked with one more write() */
	ck_assert(engine_kernel_ops.enable_notify(ut_q, ENGINE_TX));
	ck_assert_int_eq(engine_kernel_ops.tx(ut_q, ut_full()), 0);
	ck_assert(!engine_kernel_ops.enable_notify(ut_q, ENGINE_TX));
	for (i = 0; i < 50 && !vringfd_ring_more_used(&ut_rx); i++) {
		struct pollfd p = { .fd = engine_kernel_ops.rx_fd(ut_q), .events = POLLIN };

		poll(&p, 1, 100);
		ck_assert_int_ge(engine_kernel_ops.rx(ut_q, ut_full(), &starved), 0);
	}
	ck_assert_ptr_eq(vringfd_ring_get_used(&ut_rx, &len), gm + 0xa000);
	ck_assert_uint_eq(len, 12 + 42);
	ck_assert_mem_eq(gm + 0xa000 + 12, ut_mac, 6);
	ck_assert_uint_eq(gm[0xa000 + 12 + 21], 2);
	engine_kernel_ops.get_stats(ut_q, &tx, &rx);
	ck_assert_uint_eq(tx.frames, 1);
	ck_assert_uint_eq(rx.frames, 1);
	ck_assert_int_eq(ut_memfd_maps(), 1);
	engine_kernel_ops.close(ut_q, NULL);
	ut_ops = &engine_user_ops;
}
END_TEST

START_TEST(test_kernel_unmapped_memory_refused)
{
	struct engine_queue_config qc;
	struct engine_mem_region r;
	char err[CFG_ERR_MAX] = "";
	uint8_t *gm;
	int fd;

	ut_kernel();
	ut_setup_tap();
	/* a memfd that can shrink: vringfd.ko refuses it, and without a
	 * mapping here there are no rings of this process to fall back to */
	gm = ut_guest_memfd(false, &fd);
	ut_unmapped_config(&qc, &r, gm, fd);
	ck_assert_ptr_null(engine_kernel_ops.open(&qc, err, sizeof(err)));
	ck_assert_msg(strstr(err, "kernel engine: tx ring of 16 (avail base 0): VRINGFD_CREATE of memory (guest memory not mapped here): Operation not permitted"),
		      "%s", err);
	ck_assert_int_eq(ut_memfd_maps(), 1);
	/* nor without mem_files */
	qc.mem_files = false;
	ck_assert_ptr_null(engine_kernel_ops.open(&qc, err, sizeof(err)));
	ck_assert_str_eq(err, "kernel engine: tx ring: guest memory is not mapped here");
	ut_ops = &engine_user_ops;
}
END_TEST

/**
 * engine_suite() - the user engine and engine selection
 *
 * Return: the suite.
 */
Suite *engine_suite(void)
{
	Suite *s = runner_suite_create("engine");

	RUNNER_ADD_TEST_TIMEOUT(s, test_user_arp_roundtrip, 10);
	RUNNER_ADD_TEST_TIMEOUT(s, test_user_no_header, 10);
	RUNNER_ADD_TEST_TIMEOUT(s, test_user_rx_starved_and_small, 10);
	RUNNER_ADD_TEST_TIMEOUT(s, test_user_mrg_rxbuf, 10);
	RUNNER_ADD_TEST_TIMEOUT(s, test_user_tx_bad_chains, 10);
	RUNNER_ADD_TEST_TIMEOUT(s, test_user_tx_budget, 10);
	RUNNER_ADD_TEST_TIMEOUT(s, test_user_rx_budget, 10);
	RUNNER_ADD_TEST_TIMEOUT(s, test_user_hdr_policy_12, 20);
	RUNNER_ADD_TEST_TIMEOUT(s, test_user_hdr_policy_10, 20);
	RUNNER_ADD_TEST_TIMEOUT(s, test_user_broken_ring, 10);
	RUNNER_ADD_TEST_TIMEOUT(s, test_user_mem_table, 10);
	RUNNER_ADD_TEST_TIMEOUT(s, test_user_dirty_log, 10);
	RUNNER_ADD_TEST(s, test_user_open_refuses);
	RUNNER_ADD_TEST(s, test_engine_select);
	RUNNER_ADD_TEST_TIMEOUT(s, test_kernel_arp_roundtrip, 20);
	RUNNER_ADD_TEST_TIMEOUT(s, test_kernel_tx_bad_chains, 20);
	RUNNER_ADD_TEST_TIMEOUT(s, test_kernel_hdr_policy_12, 30);
	RUNNER_ADD_TEST_TIMEOUT(s, test_kernel_hdr_policy_10, 30);
	RUNNER_ADD_TEST_TIMEOUT(s, test_kernel_rx_preposted, 20);
	RUNNER_ADD_TEST(s, test_kernel_refuses_no_header);
	RUNNER_ADD_TEST(s, test_kernel_refuses_dirty_log);
	RUNNER_ADD_TEST_TIMEOUT(s, test_kernel_unmapped_memory_rings, 20);
	RUNNER_ADD_TEST_TIMEOUT(s, test_kernel_unmapped_memory_refused, 20);
	return s;
}
