// SPDX-License-Identifier: GPL-2.0
/*
 * check_daemon_vhost_user.c - the vhost-user back-end (daemon/vhost_user*.c)
 *
 * Every test plays the front-end on one end of a socketpair and runs the
 * back-end's vhost_user_dev_handle() on the other: a QEMU-like handshake, the ring
 * life cycle, and one test per malformed message with the exact answer it
 * gets (errno, message, REPLY_ACK status, fds closed).
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dirty_log.h"
#include "guard.h"
#include "handover_state.h"
#include "unit/runner.h"
#include "vhost_user.h"

Suite *vhost_user_suite(void);

#define MEM_SIZE	(1u << 20)
#define USER_BASE	0x7f0000000000ULL	/* the "front-end" address of guest 0 */
#define RING_NUM	256u
#define DESC_OFF(r)	(0x10000u + (r) * 0x4000u)
#define AVAIL_OFF(r)	(DESC_OFF(r) + 0x1000u)
#define USED_OFF(r)	(DESC_OFF(r) + 0x2000u)

#define GOOD_FEATURES ((1ULL << VU_F_VERSION_1) | (1ULL << VU_NET_F_MRG_RXBUF) | \
		       (1ULL << VU_RING_F_EVENT_IDX) | (1ULL << VUM_F_PROTOCOL_FEATURES) | \
		       (1ULL << VU_NET_F_CSUM))

/* What the owner callbacks saw. */
static struct {
	int starts[VHOST_USER_MAX_QUEUE_PAIRS];
	int stops[VHOST_USER_MAX_QUEUE_PAIRS];
	int fail_start;
	int tap_mtu;		/* what t_tap_mtu() answers (0: 1500) */
	int tap_mtu_calls;
	int announces;		/* t_announce() calls */
	int announce_ret;	/* what t_announce() answers */
	uint8_t mac[6];		/* the MAC it was given last */
	struct engine_queue_config cfg;
} seen;

static struct vhost_user_dev dev;
static int cfd = -1;	/* front-end end */
static int memfd = -1;

/**
 * t_queue_state() - owner callback: record starts and stops
 * @d: connection
 * @qp: queue pair
 * @ready: start or stop
 *
 * Return: 0, or -EIO when the test asked starts to fail.
 */
static int t_queue_state(struct vhost_user_dev *d, unsigned int qp, bool ready)
{
	if (ready) {
		if (seen.fail_start)
			return -EIO;
		seen.starts[qp]++;
		vhost_user_dev_queue_config(d, qp, &seen.cfg);
	} else {
		seen.stops[qp]++;
		/* the "engine" consumed 42 rx and 7 tx entries */
		vhost_user_dev_set_last_avail(d, 2 * qp, 42);
		vhost_user_dev_set_last_avail(d, 2 * qp + 1, 7);
	}
	return 0;
}

/**
 * t_tap_mtu() - owner callback: the "tap's" MTU
 * @d: connection
 *
 * Return: seen.tap_mtu, 1500 when the test set none.
 */
static int t_tap_mtu(struct vhost_user_dev *d)
{
	seen.tap_mtu_calls++;
	return seen.tap_mtu ? seen.tap_mtu : 1500;
}

/**
 * t_announce() - owner callback: record a SEND_RARP's MAC
 * @d: connection
 * @mac: the MAC
 *
 * Return: seen.announce_ret.
 */
static int t_announce(struct vhost_user_dev *d, const uint8_t mac[6])
{
	seen.announces++;
	memcpy(seen.mac, mac, sizeof(seen.mac));
	return seen.announce_ret;
}

static const struct vhost_user_ops t_ops = {
	.queue_state = t_queue_state,
	.tap_mtu = t_tap_mtu,
	.announce = t_announce,
};

/**
 * count_fds() - open fds of this process
 *
 * Return: the count.
 */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the DIR's own fd */
}

/**
 * setup_qps() - a connection offering @qps queue pairs
 * @qps: queue pairs
 */
static void setup_qps(unsigned int qps)
{
	struct timeval tv = { .tv_sec = 2 };
	int sv[2];

	memset(&seen, 0, sizeof(seen));
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	ck_assert_int_eq(fcntl(sv[1], F_SETFL, O_NONBLOCK), 0);
	setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	cfd = sv[0];
	vhost_user_dev_init(&dev, sv[1], qps, &t_ops, NULL);
	memfd = memfd_create("guest", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ck_assert_int_ge(memfd, 0);
	ck_assert_int_eq(ftruncate(memfd, MEM_SIZE), 0);
	ck_assert_int_eq(fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
}

/**
 * setup() - a connection offering one queue pair
 */
static void setup(void)
{
	setup_qps(1);
}

/**
 * send_raw() - send bytes with fds from the front-end end
 * @buf: bytes
 * @len: count
 * @fds: fds to attach
 * @nfds: how many
 */
static void send_raw(const void *buf, size_t len, const int *fds, unsigned int nfds)
{
	char ctl[CMSG_SPACE(sizeof(int) * 16)];
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (nfds) {
		struct cmsghdr *c;

		memset(ctl, 0, sizeof(ctl));
		mh.msg_control = ctl;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	ck_assert_int_eq(sendmsg(cfd, &mh, MSG_NOSIGNAL), (ssize_t)len);
}

/**
 * send_msg() - send one message
 * @req: request
 * @flags: header flags (version added)
 * @payload: payload
 * @size: its size
 * @fds: fds
 * @nfds: their count
 */
static void send_msg(uint32_t req, uint32_t flags, const void *payload, uint32_t size,
		     const int *fds, unsigned int nfds)
{
	uint8_t buf[VUM_HDR_SIZE + VUM_MAX_PAYLOAD + 16];
	struct vhost_user_msg_hdr h = { .request = req, .flags = flags | VUM_VERSION, .size = size };

	memcpy(buf, &h, sizeof(h));
	if (size)
		memcpy(buf + sizeof(h), payload, size);
	send_raw(buf, sizeof(h) + size, fds, nfds);
}

/**
 * recv_reply() - read one reply (fails the test on timeout)
 * @req: the request it must answer
 * @payload: where the payload goes
 * @size: payload size expected
 */
static void recv_reply(uint32_t req, void *payload, uint32_t size)
{
	struct vhost_user_msg_hdr h;

	ck_assert_int_eq(recv(cfd, &h, sizeof(h), MSG_WAITALL), (ssize_t)sizeof(h));
	ck_assert_uint_eq(h.request, req);
	ck_assert_uint_eq(h.flags, VUM_VERSION | VUM_FLAG_REPLY);
	ck_assert_uint_eq(h.size, size);
	ck_assert_int_eq(recv(cfd, payload, size, MSG_WAITALL), (ssize_t)size);
}

/**
 * no_reply() - assert the back-end sent nothing
 */
static void no_reply(void)
{
	char c;

	ck_assert_int_eq(recv(cfd, &c, 1, MSG_DONTWAIT), -1);
	ck_assert_int_eq(errno, EAGAIN);
}

/**
 * handle_ok() - run the back-end, which must succeed
 */
static void handle_ok(void)
{
	int ret = vhost_user_dev_handle(&dev);

	ck_assert_msg(ret == 0, "vhost_user_dev_handle: %d (%s)", ret, dev.err);
}

/**
 * req_ok() - send a set request with NEED_REPLY, expect ack 0
 * @req: request
 * @payload: payload
 * @size: size
 * @fds: fds
 * @nfds: count
 */
static void req_ok(uint32_t req, const void *payload, uint32_t size, const int *fds,
		   unsigned int nfds)
{
	uint64_t ack = 99;
	bool acked = dev.protocol_features & (1ULL << VUM_PROTOCOL_F_REPLY_ACK);

	send_msg(req, VUM_FLAG_NEED_REPLY, payload, size, fds, nfds);
	handle_ok();
	if (acked) {
		recv_reply(req, &ack, sizeof(ack));
		ck_assert_uint_eq(ack, 0);
	} else {
		no_reply();
	}
}

/**
 * get_u64() - a GET request answered with a u64
 * @req: request
 *
 * Return: the answer.
 */
static uint64_t get_u64(uint32_t req)
{
	uint64_t v = 0;

	send_msg(req, 0, NULL, 0, NULL, 0);
	handle_ok();
	recv_reply(req, &v, sizeof(v));
	return v;
}

/**
 * state_ok() - a ring-state request that must succeed
 * @req: request
 * @index: ring
 * @num: value
 */
static void state_ok(uint32_t req, uint32_t index, uint32_t num)
{
	struct vhost_user_msg_vring_state s = { .index = index, .num = num };

	req_ok(req, &s, sizeof(s), NULL, 0);
}

/**
 * mem1() - a one-region table over the test memfd
 * @m: filled in
 * @user: front-end address of guest 0
 */
static void mem1(struct vhost_user_msg_mem *m, uint64_t user)
{
	memset(m, 0, sizeof(*m));
	m->nregions = 1;
	m->regions[0].guest_addr = 0;
	m->regions[0].size = MEM_SIZE;
	m->regions[0].user_addr = user;
	m->regions[0].mmap_offset = 0;
}

/**
 * addr_of() - the test addresses of ring @r
 * @a: filled in
 * @r: ring
 */
static void addr_of(struct vhost_user_msg_vring_addr *a, unsigned int r)
{
	memset(a, 0, sizeof(*a));
	a->index = r;
	a->desc = USER_BASE + DESC_OFF(r);
	a->avail = USER_BASE + AVAIL_OFF(r);
	a->used = USER_BASE + USED_OFF(r);
}

enum prelude { P_NONE, P_PROTO, P_MEM, P_NUM, P_NUM_NOMEM, P_RING };

/**
 * prelude() - bring the connection to a known state
 * @p: how far
 */
static void prelude(enum prelude p)
{
	uint64_t v;
	struct vhost_user_msg_mem m;
	struct vhost_user_msg_vring_addr a;

	if (p == P_NONE)
		return;
	v = (1ULL << VUM_PROTOCOL_F_MQ) | (1ULL << VUM_PROTOCOL_F_REPLY_ACK) |
	    (1ULL << VUM_PROTOCOL_F_LOG_SHMFD) | (1ULL << VUM_PROTOCOL_F_RARP) |
	    (1ULL << VUM_PROTOCOL_F_NET_MTU);
	req_ok(VUM_SET_PROTOCOL_FEATURES, &v, sizeof(v), NULL, 0);
	v = GOOD_FEATURES;
	req_ok(VUM_SET_FEATURES, &v, sizeof(v), NULL, 0);
	if (p == P_PROTO)
		return;
	if (p == P_NUM_NOMEM) {
		state_ok(VUM_SET_VRING_NUM, 0, RING_NUM);
		return;
	}
	mem1(&m, USER_BASE);
	req_ok(VUM_SET_MEM_TABLE, &m, VUM_SIZE_MEM(1), &memfd, 1);
	if (p == P_MEM)
		return;
	state_ok(VUM_SET_VRING_NUM, 0, RING_NUM);
	if (p == P_NUM)
		return;
	addr_of(&a, 0);
	req_ok(VUM_SET_VRING_ADDR, &a, sizeof(a), NULL, 0);
}

/**
 * ring_up() - configure and start ring @r completely (not enabled)
 * @r: ring
 * @kick: kick eventfd (sent, then closed here), or -1 for the polling bit
 * @call: call eventfd (sent, then closed here), or -1 for none
 */
static void ring_up(unsigned int r, int kick, int call)
{
	struct vhost_user_msg_vring_addr a;
	uint64_t v;

	state_ok(VUM_SET_VRING_NUM, r, RING_NUM);
	state_ok(VUM_SET_VRING_BASE, r, 0);
	addr_of(&a, r);
	req_ok(VUM_SET_VRING_ADDR, &a, sizeof(a), NULL, 0);
	v = r | (kick < 0 ? VUM_VRING_NOFD : 0);
	req_ok(VUM_SET_VRING_KICK, &v, sizeof(v), &kick, kick < 0 ? 0 : 1);
	v = r | (call < 0 ? VUM_VRING_NOFD : 0);
	req_ok(VUM_SET_VRING_CALL, &v, sizeof(v), &call, call < 0 ? 0 : 1);
	/* the back-end holds its own copies now */
	if (kick >= 0)
		close(kick);
	if (call >= 0)
		close(call);
}

/**
 * expect_fail() - run the back-end on what was sent: it must fail
 * @want: the errno expected (negative)
 * @substr: text the error message must contain
 * @acked: a REPLY_ACK of 1 must arrive first
 * @req: the request acknowledged
 */
static void expect_fail(int want, const char *substr, bool acked, uint32_t req)
{
	int ret = vhost_user_dev_handle(&dev);

	ck_assert_msg(ret == want, "vhost_user_dev_handle: %d, want %d (%s)", ret, want, dev.err);
	ck_assert_msg(strstr(dev.err, substr), "error \"%s\" lacks \"%s\"", dev.err, substr);
	if (acked) {
		uint64_t ack = 0;

		recv_reply(req, &ack, sizeof(ack));
		ck_assert_uint_eq(ack, 1);
	}
	no_reply();
	vhost_user_dev_reset(&dev);
}

/**
 * bad_msg() - after @p, send one message and expect it refused
 * @p: prelude
 * @req: request
 * @payload: payload
 * @size: payload size
 * @fds: fds to attach
 * @nfds: count
 * @want: errno expected (negative)
 * @substr: text in the error message
 *
 * The request carries NEED_REPLY; after P_PROTO and later REPLY_ACK is
 * negotiated, so requests without a reply of their own get an ack of 1
 * when the message got as far as the state machine.
 */
static void bad_msg(enum prelude p, uint32_t req, const void *payload, uint32_t size,
		    const int *fds, unsigned int nfds, int want, const char *substr)
{
	int before;
	bool acked;

	prelude(p);
	before = count_fds();
	acked = p != P_NONE && req != VUM_GET_FEATURES && req != VUM_GET_VRING_BASE &&
		req != VUM_GET_PROTOCOL_FEATURES && req != VUM_GET_QUEUE_NUM &&
		req != VUM_SET_LOG_BASE;
	send_msg(req, VUM_FLAG_NEED_REPLY, payload, size, fds, nfds);
	expect_fail(want, substr, acked, req);
	/* every fd the message carried is closed again, nothing else leaked */
	ck_assert_int_le(count_fds(), before);
}

/* ---- the good paths ----------------------------------------------------- */

START_TEST(handshake_qemu_like)
{
	int kick0 = eventfd(0, EFD_CLOEXEC), call0 = eventfd(0, EFD_CLOEXEC);
	int kick1 = eventfd(0, EFD_CLOEXEC), call1 = eventfd(0, EFD_CLOEXEC);
	struct vhost_user_msg_vring_state s;
	uint64_t v, pf;
	uint8_t *mem;

	setup();
	v = get_u64(VUM_GET_FEATURES);
	ck_assert_uint_eq(v & VU_FEATURES_BASE, VU_FEATURES_BASE);
	ck_assert(v & (1ULL << VU_NET_F_MQ));
	ck_assert(v & (1ULL << VU_NET_F_GUEST_TSO4));
	ck_assert(v & (1ULL << VU_NET_F_HOST_TSO6));
	pf = get_u64(VUM_GET_PROTOCOL_FEATURES);
	ck_assert(pf & (1ULL << VUM_PROTOCOL_F_MQ));
	ck_assert(pf & (1ULL << VUM_PROTOCOL_F_REPLY_ACK));
	ck_assert(pf & (1ULL << VUM_PROTOCOL_F_NET_MTU));
	ck_assert(v & (1ULL << VU_NET_F_MTU));
	ck_assert(!(pf & (1ULL << VUM_PROTOCOL_F_CONFIGURE_MEM_SLOTS)));
	req_ok(VUM_SET_PROTOCOL_FEATURES, &pf, sizeof(pf), NULL, 0);
	ck_assert_uint_eq(get_u64(VUM_GET_QUEUE_NUM), 1);
	req_ok(VUM_SET_OWNER, NULL, 0, NULL, 0);
	ck_assert_uint_eq(get_u64(VUM_GET_FEATURES), v);
	v = GOOD_FEATURES;
	req_ok(VUM_SET_FEATURES, &v, sizeof(v), NULL, 0);
	prelude(P_NONE);
	{
		struct vhost_user_msg_mem m;

		mem1(&m, USER_BASE);
		req_ok(VUM_SET_MEM_TABLE, &m, VUM_SIZE_MEM(1), &memfd, 1);
	}
	ring_up(0, kick0, call0);
	ring_up(1, kick1, call1);
	/* PROTOCOL_FEATURES acked: the rings wait for SET_VRING_ENABLE */
	ck_assert_int_eq(seen.starts[0], 0);
	state_ok(VUM_SET_VRING_ENABLE, 0, 1);
	ck_assert_int_eq(seen.starts[0], 0);
	state_ok(VUM_SET_VRING_ENABLE, 1, 1);
	ck_assert_int_eq(seen.starts[0], 1);

	/* the queue config the engine gets */
	mem = dev.regions[0].host;
	ck_assert_uint_eq(seen.cfg.vnet_hdr_len, 12);
	ck_assert(seen.cfg.mrg_rxbuf);
	ck_assert_uint_eq(seen.cfg.ring_features, 1ULL << VU_RING_F_EVENT_IDX);
	ck_assert_uint_eq(seen.cfg.nregions, 1);
	ck_assert_ptr_eq(seen.cfg.regions[0].uaddr, mem);
	ck_assert_uint_eq(seen.cfg.regions[0].size, MEM_SIZE);
	ck_assert_ptr_eq(seen.cfg.tx.desc, mem + DESC_OFF(1));
	ck_assert_ptr_eq(seen.cfg.tx.avail, mem + AVAIL_OFF(1));
	ck_assert_ptr_eq(seen.cfg.tx.used, mem + USED_OFF(1));
	ck_assert_ptr_eq(seen.cfg.rx.desc, mem + DESC_OFF(0));
	ck_assert_uint_eq(seen.cfg.tx.num, RING_NUM);
	ck_assert_int_ge(seen.cfg.tx_call_fd, 0);
	ck_assert_int_ge(seen.cfg.rx_call_fd, 0);

	/* the mapping is the memfd: a byte written through the fd shows */
	ck_assert_int_eq(pwrite(memfd, "Q", 1, 0x1234), 1);
	ck_assert_int_eq(mem[0x1234], 'Q');

	/* GET_VRING_BASE stops the pair and reports the engine's position */
	s.index = 0;
	s.num = 0;
	send_msg(VUM_GET_VRING_BASE, 0, &s, sizeof(s), NULL, 0);
	handle_ok();
	recv_reply(VUM_GET_VRING_BASE, &s, sizeof(s));
	ck_assert_uint_eq(s.index, 0);
	ck_assert_uint_eq(s.num, 42);
	ck_assert_int_eq(seen.stops[0], 1);
	ck_assert(!dev.vrings[0].started);
	s.index = 1;
	send_msg(VUM_GET_VRING_BASE, 0, &s, sizeof(s), NULL, 0);
	handle_ok();
	recv_reply(VUM_GET_VRING_BASE, &s, sizeof(s));
	ck_assert_uint_eq(s.num, 7);
	ck_assert_int_eq(seen.stops[0], 1);

	/* started again by SET_VRING_KICK on both rings, from the stored base */
	kick0 = eventfd(0, EFD_CLOEXEC);
	v = 0;
	req_ok(VUM_SET_VRING_KICK, &v, sizeof(v), &kick0, 1);
	ck_assert_int_eq(seen.starts[0], 1);
	kick1 = eventfd(0, EFD_CLOEXEC);
	v = 1;
	req_ok(VUM_SET_VRING_KICK, &v, sizeof(v), &kick1, 1);
	ck_assert_int_eq(seen.starts[0], 2);
	ck_assert_uint_eq(seen.cfg.rx.last_avail, 42);
	ck_assert_uint_eq(seen.cfg.tx.last_avail, 7);

	/* SET_VRING_ENABLE 0 stops it */
	state_ok(VUM_SET_VRING_ENABLE, 1, 0);
	ck_assert_int_eq(seen.stops[0], 2);
	vhost_user_dev_reset(&dev);
	ck_assert_int_eq(seen.stops[0], 2);
}
END_TEST

START_TEST(no_protocol_features_rings_start_enabled)
{
	uint64_t v = GOOD_FEATURES & ~(1ULL << VUM_F_PROTOCOL_FEATURES);
	struct vhost_user_msg_mem m;

	setup();
	req_ok(VUM_SET_FEATURES, &v, sizeof(v), NULL, 0);
	mem1(&m, USER_BASE);
	req_ok(VUM_SET_MEM_TABLE, &m, VUM_SIZE_MEM(1), &memfd, 1);
	ring_up(0, eventfd(0, EFD_CLOEXEC), -1);
	ck_assert_int_eq(seen.starts[0], 0);
	ring_up(1, eventfd(0, EFD_CLOEXEC), -1);
	ck_assert_int_eq(seen.starts[0], 1);
	ck_assert_int_eq(seen.cfg.tx_call_fd, -1);
	vhost_user_dev_reset(&dev);
	ck_assert_int_eq(seen.stops[0], 1);
}
END_TEST

START_TEST(legacy_header_is_10_bytes)
{
	uint64_t v = 1ULL << VU_NET_F_CSUM;
	struct engine_queue_config cfg;

	setup();
	req_ok(VUM_SET_FEATURES, &v, sizeof(v), NULL, 0);
	ck_assert_uint_eq(vhost_user_dev_vnet_hdr_len(&dev), 10);
	vhost_user_dev_queue_config(&dev, 0, &cfg);
	ck_assert(!cfg.mrg_rxbuf);
	ck_assert_uint_eq(cfg.ring_features, 0);
}
END_TEST

START_TEST(polling_kick_accepted)
{
	setup();
	prelude(P_MEM);
	ring_up(0, -1, -1);
	ring_up(1, -1, -1);
	state_ok(VUM_SET_VRING_ENABLE, 0, 1);
	state_ok(VUM_SET_VRING_ENABLE, 1, 1);
	ck_assert_int_eq(seen.starts[0], 1);
	ck_assert_int_eq(dev.vrings[1].kick_fd, -1);
	ck_assert(dev.vrings[1].kick_set);
}
END_TEST

START_TEST(message_in_pieces)
{
	struct vhost_user_msg_hdr h = { .request = VUM_GET_FEATURES, .flags = VUM_VERSION, .size = 0 };
	struct vhost_user_msg_vring_state s = { .index = 0, .num = 64 };
	uint8_t buf[VUM_HDR_SIZE + sizeof(s)];
	uint64_t v;

	setup();
	send_raw(&h, 5, NULL, 0);
	handle_ok();
	no_reply();
	send_raw((uint8_t *)&h + 5, sizeof(h) - 5, NULL, 0);
	handle_ok();
	recv_reply(VUM_GET_FEATURES, &v, sizeof(v));
	/* header complete, payload in two pieces */
	h.request = VUM_SET_VRING_NUM;
	h.size = sizeof(s);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &s, sizeof(s));
	send_raw(buf, sizeof(h) + 3, NULL, 0);
	handle_ok();
	ck_assert_uint_eq(dev.vrings[0].num, 0);
	send_raw(buf + sizeof(h) + 3, sizeof(s) - 3, NULL, 0);
	handle_ok();
	ck_assert_uint_eq(dev.vrings[0].num, 64);
}
END_TEST

START_TEST(two_messages_one_write)
{
	struct vhost_user_msg_hdr h = { .request = VUM_GET_QUEUE_NUM, .flags = VUM_VERSION, .size = 0 };
	uint8_t buf[2 * sizeof(h)];
	uint64_t v;

	setup();
	memcpy(buf, &h, sizeof(h));
	h.request = VUM_GET_PROTOCOL_FEATURES;
	memcpy(buf + sizeof(h), &h, sizeof(h));
	send_raw(buf, sizeof(buf), NULL, 0);
	handle_ok();
	recv_reply(VUM_GET_QUEUE_NUM, &v, sizeof(v));
	ck_assert_uint_eq(v, 1);
	recv_reply(VUM_GET_PROTOCOL_FEATURES, &v, sizeof(v));
	ck_assert_uint_eq(v, VU_PROTOCOL_FEATURES);
}
END_TEST

START_TEST(need_reply_without_reply_ack_is_silent)
{
	uint64_t v = GOOD_FEATURES;

	setup();
	send_msg(VUM_SET_FEATURES, VUM_FLAG_NEED_REPLY, &v, sizeof(v), NULL, 0);
	handle_ok();
	no_reply();
	ck_assert(dev.features_set);
}
END_TEST

START_TEST(same_mem_table_keeps_mapping)
{
	struct vhost_user_msg_mem m;
	void *before;

	setup();
	prelude(P_MEM);
	ring_up(0, eventfd(0, EFD_CLOEXEC), eventfd(0, EFD_CLOEXEC));
	ring_up(1, eventfd(0, EFD_CLOEXEC), eventfd(0, EFD_CLOEXEC));
	state_ok(VUM_SET_VRING_ENABLE, 0, 1);
	state_ok(VUM_SET_VRING_ENABLE, 1, 1);
	ck_assert_int_eq(seen.starts[0], 1);
	before = dev.regions[0].host;
	mem1(&m, USER_BASE);
	req_ok(VUM_SET_MEM_TABLE, &m, VUM_SIZE_MEM(1), &memfd, 1);
	ck_assert_ptr_eq(dev.regions[0].host, before);
	ck_assert_int_eq(seen.stops[0], 0);
}
END_TEST

START_TEST(new_mem_table_restarts_queue)
{
	struct vhost_user_msg_mem m;
	int fd2 = memfd_create("guest2", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	setup();
	ck_assert_int_eq(ftruncate(fd2, MEM_SIZE), 0);
	ck_assert_int_eq(fcntl(fd2, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	prelude(P_MEM);
	ring_up(0, eventfd(0, EFD_CLOEXEC), -1);
	ring_up(1, eventfd(0, EFD_CLOEXEC), -1);
	state_ok(VUM_SET_VRING_ENABLE, 0, 1);
	state_ok(VUM_SET_VRING_ENABLE, 1, 1);
	mem1(&m, USER_BASE);
	req_ok(VUM_SET_MEM_TABLE, &m, VUM_SIZE_MEM(1), &fd2, 1);
	ck_assert_int_eq(seen.stops[0], 1);
	ck_assert_int_eq(seen.starts[0], 2);
	ck_assert_ptr_eq(seen.cfg.tx.desc, (uint8_t *)dev.regions[0].host + DESC_OFF(1));
}
END_TEST

START_TEST(call_fd_replaced_restarts_queue)
{
	int call = eventfd(0, EFD_CLOEXEC), call2 = eventfd(0, EFD_CLOEXEC);
	uint64_t v = 1;

	setup();
	prelude(P_MEM);
	ring_up(0, eventfd(0, EFD_CLOEXEC), eventfd(0, EFD_CLOEXEC));
	ring_up(1, eventfd(0, EFD_CLOEXEC), call);
	state_ok(VUM_SET_VRING_ENABLE, 0, 1);
	state_ok(VUM_SET_VRING_ENABLE, 1, 1);
	ck_assert_int_eq(seen.starts[0], 1);
	/*
	 * a new call fd while the pair runs: stopped and started again with
	 * it (the kernel engine holds the eventfd itself, not its number)
	 */
	req_ok(VUM_SET_VRING_CALL, &v, sizeof(v), &call2, 1);
	ck_assert_int_eq(seen.stops[0], 1);
	ck_assert_int_eq(seen.starts[0], 2);
	ck_assert_int_ne(dev.vrings[1].call_fd, -1);
	ck_assert(dev.active[0]);
}
END_TEST

START_TEST(reset_owner_stops_and_unmaps)
{
	setup();
	prelude(P_MEM);
	ring_up(0, eventfd(0, EFD_CLOEXEC), -1);
	ring_up(1, eventfd(0, EFD_CLOEXEC), -1);
	state_ok(VUM_SET_VRING_ENABLE, 0, 1);
	state_ok(VUM_SET_VRING_ENABLE, 1, 1);
	req_ok(VUM_RESET_OWNER, NULL, 0, NULL, 0);
	ck_assert_int_eq(seen.stops[0], 1);
	ck_assert_uint_eq(dev.nregions, 0);
	ck_assert(!dev.features_set);
	ck_assert_int_eq(dev.vrings[0].kick_fd, -1);
}
END_TEST

START_TEST(reset_releases_every_fd)
{
	int base;

	setup();
	base = count_fds();
	prelude(P_MEM);
	ring_up(0, eventfd(0, EFD_CLOEXEC), eventfd(0, EFD_CLOEXEC));
	ring_up(1, eventfd(0, EFD_CLOEXEC), eventfd(0, EFD_CLOEXEC));
	{
		uint64_t v = 1;
		int e = eventfd(0, EFD_CLOEXEC);

		req_ok(VUM_SET_VRING_ERR, &v, sizeof(v), &e, 1);
		close(e);
	}
	/* a half-received message with an fd */
	{
		struct vhost_user_msg_hdr h = { .request = VUM_SET_VRING_CALL, .flags = VUM_VERSION, .size = 8 };
		int e = eventfd(0, EFD_CLOEXEC);

		send_raw(&h, sizeof(h), &e, 1);
		close(e);
		handle_ok();
	}
	ck_assert_int_gt(count_fds(), base);
	vhost_user_dev_reset(&dev);
	ck_assert_int_eq(count_fds(), base);
}
END_TEST

/* ------------------------------------------------------------ hand-over */

/**
 * dup_record() - give a saved record fds of its own (as a successor
 *	inheriting them would have)
 * @v: the record, its fd fields replaced by duplicates
 */
static void dup_record(struct hovs_vhost_user *v)
{
	unsigned int i;

	v->sock = dup(v->sock);
	for (i = 0; i < v->nregions; i++)
		v->regions[i].fd = dup(v->regions[i].fd);
	for (i = 0; i < v->nvrings; i++) {
		if (v->vrings[i].kick >= 0)
			v->vrings[i].kick = dup(v->vrings[i].kick);
		if (v->vrings[i].call >= 0)
			v->vrings[i].call = dup(v->vrings[i].call);
		if (v->vrings[i].err >= 0)
			v->vrings[i].err = dup(v->vrings[i].err);
	}
}

/**
 * running_pair_lazily() - a connection whose queue pair 0 runs
 * @lazily: vhost_user_dev_map_lazily() before the memory table
 */
static void running_pair_lazily(bool lazily)
{
	setup();
	vhost_user_dev_map_lazily(&dev, lazily);
	prelude(P_MEM);
	ring_up(0, eventfd(0, EFD_CLOEXEC), eventfd(0, EFD_CLOEXEC));
	ring_up(1, eventfd(0, EFD_CLOEXEC), -1);
	state_ok(VUM_SET_VRING_ENABLE, 0, 1);
	state_ok(VUM_SET_VRING_ENABLE, 1, 1);
	ck_assert_int_eq(seen.starts[0], 1);
}

/**
 * running_pair() - a connection whose queue pair 0 runs (memory mapped)
 */
static void running_pair(void)
{
	running_pair_lazily(false);
}

START_TEST(handover_save_restore)
{
	struct hovs_vhost_user *v = calloc(1, sizeof(*v));
	struct vhost_user_dev dev2;
	uint16_t used;
	int base;

	ck_assert_ptr_nonnull(v);
	running_pair();
	vhost_user_dev_pause(&dev);
	ck_assert_int_eq(seen.stops[0], 1);
	ck_assert_int_eq(vhost_user_dev_save(&dev, v), 0);
	ck_assert_uint_eq(v->features, GOOD_FEATURES);
	ck_assert_uint_eq(v->flags, HOVS_VU_FEATURES_SET);
	ck_assert_uint_eq(v->nregions, 1);
	ck_assert_int_ge(v->regions[0].fd, 0);
	ck_assert_uint_eq(v->nvrings, 2);
	ck_assert_uint_eq(v->vrings[0].last_avail, 42);	/* t_queue_state()'s "engine" */
	ck_assert_uint_eq(v->vrings[1].last_avail, 7);
	ck_assert_int_ge(v->vrings[0].kick, 0);
	ck_assert_int_ge(v->vrings[0].call, 0);
	ck_assert_int_eq(v->vrings[1].call, -1);
	ck_assert_uint_eq(v->vrings[1].flags, HOVS_VRING_ADDR_SET | HOVS_VRING_KICK_SET |
			  HOVS_VRING_STARTED | HOVS_VRING_ENABLED);

	/* the successor's side: rebuilt, nothing runs until the kicks */
	base = count_fds();
	dup_record(v);
	vhost_user_dev_init(&dev2, v->sock, 1, &t_ops, NULL);
	ck_assert_int_eq(vhost_user_dev_restore(&dev2, v), 0);
	ck_assert_int_eq(seen.starts[0], 1);
	ck_assert_uint_eq(dev2.features, GOOD_FEATURES);
	ck_assert_uint_eq(dev2.nregions, 1);
	ck_assert_int_eq(vhost_user_dev_restore_kicks(&dev2, v), 0);
	ck_assert_int_eq(seen.starts[0], 2);
	ck_assert_uint_eq(seen.cfg.rx.last_avail, 42);
	ck_assert_uint_eq(seen.cfg.tx.last_avail, 7);
	ck_assert_ptr_eq(seen.cfg.tx.desc, (uint8_t *)dev2.regions[0].host + DESC_OFF(1));
	no_reply();	/* the replay answers nothing on the socket */
	vhost_user_dev_reset(&dev2);
	close(dev2.fd);
	ck_assert_int_eq(count_fds(), base);
	/* the predecessor resumes at the rings' used index: a real engine
	 * left used->idx at the paused position, and the successor (the
	 * rebuilt connection above) filled 5 more rx buffers before it failed */
	used = 42 + 5;
	ck_assert_int_eq(pwrite(memfd, &used, 2, USED_OFF(0) + 2), 2);
	used = 7;
	ck_assert_int_eq(pwrite(memfd, &used, 2, USED_OFF(1) + 2), 2);
	ck_assert_int_eq(vhost_user_dev_resume(&dev), 0);
	ck_assert_int_eq(seen.starts[0], 3);
	ck_assert_uint_eq(seen.cfg.rx.last_avail, 47);
	ck_assert_uint_eq(seen.cfg.tx.last_avail, 7);
	free(v);
}
END_TEST

/**
 * from_rings_restore() - restore a running pair's record as after a crash
 * @flags: extra record flags (HOVS_VU_FROM_RINGS or 0)
 * @lazily: the rebuilt connection does not map guest memory (rings of memory)
 * @rx: out: the rx ring's start position on the rebuilt connection
 * @tx: out: the tx ring's
 */
static void from_rings_restore(uint32_t flags, bool lazily, uint16_t *rx, uint16_t *tx)
{
	struct hovs_vhost_user *v = calloc(1, sizeof(*v));
	uint16_t used_rx = 300, used_tx = 5;
	struct vhost_user_dev dev2;

	ck_assert_ptr_nonnull(v);
	running_pair();
	/* the dead instance's engine had used this much (struct vring_used's idx) */
	ck_assert_int_eq(pwrite(memfd, &used_rx, 2, USED_OFF(0) + 2), 2);
	ck_assert_int_eq(pwrite(memfd, &used_tx, 2, USED_OFF(1) + 2), 2);
	/* saved while running, as livestore.c does: no pause, stale positions */
	ck_assert_int_eq(vhost_user_dev_save(&dev, v), 0);
	v->flags |= flags;
	dup_record(v);
	vhost_user_dev_init(&dev2, v->sock, 1, &t_ops, NULL);
	vhost_user_dev_map_lazily(&dev2, lazily);
	ck_assert_int_eq(vhost_user_dev_restore(&dev2, v), 0);
	ck_assert_int_eq(vhost_user_dev_restore_kicks(&dev2, v), 0);
	ck_assert(!lazily || !dev2.vrings[0].used);	/* read from the file */
	*rx = seen.cfg.rx.last_avail;
	*tx = seen.cfg.tx.last_avail;
	vhost_user_dev_reset(&dev2);
	close(dev2.fd);
	free(v);
}

START_TEST(crash_restore_from_used_index)
{
	uint16_t rx, tx;

	from_rings_restore(HOVS_VU_FROM_RINGS, false, &rx, &tx);
	ck_assert_uint_eq(rx, 300);
	ck_assert_uint_eq(tx, 5);
}
END_TEST

/* the same when the rebuilt connection does not map guest memory */
START_TEST(crash_restore_unmapped_from_used_index)
{
	uint16_t rx, tx;

	from_rings_restore(HOVS_VU_FROM_RINGS, true, &rx, &tx);
	ck_assert_uint_eq(rx, 300);
	ck_assert_uint_eq(tx, 5);
}
END_TEST

START_TEST(restart_restore_keeps_stored_positions)
{
	uint16_t rx, tx;

	/* without the mark the record's positions are taken as exact */
	from_rings_restore(0, false, &rx, &tx);
	ck_assert_uint_eq(rx, 0);
	ck_assert_uint_eq(tx, 0);
}
END_TEST

/**
 * restore_refused() - a record changed by @change must be refused
 * @change: what to break
 * @substr: text the error must contain
 */
static void restore_refused(void (*change)(struct hovs_vhost_user *v), const char *substr)
{
	struct hovs_vhost_user *v = calloc(1, sizeof(*v));
	struct vhost_user_dev dev2;
	int base;

	ck_assert_ptr_nonnull(v);
	running_pair();
	vhost_user_dev_pause(&dev);
	ck_assert_int_eq(vhost_user_dev_save(&dev, v), 0);
	base = count_fds();
	dup_record(v);
	change(v);
	vhost_user_dev_init(&dev2, v->sock, 1, &t_ops, NULL);
	ck_assert_int_lt(vhost_user_dev_restore(&dev2, v), 0);
	ck_assert_msg(strstr(dev2.err, "hand-over: ") && strstr(dev2.err, substr),
		      "error \"%s\" lacks \"%s\"", dev2.err, substr);
	/* the kicks are the caller's when the restore failed */
	close(v->vrings[0].kick);
	close(v->vrings[1].kick);
	vhost_user_dev_reset(&dev2);
	close(dev2.fd);
	ck_assert_int_eq(count_fds(), base);
	ck_assert_int_eq(seen.starts[0], 1);
	free(v);
}

/**
 * bad_ring_num() - a ring size that is not a power of two
 * @v: the record
 */
static void bad_ring_num(struct hovs_vhost_user *v)
{
	v->vrings[1].num = 3;
}

/**
 * bad_region_size() - a region larger than its memory file
 * @v: the record
 */
static void bad_region_size(struct hovs_vhost_user *v)
{
	v->regions[0].size = 2 * MEM_SIZE;
}

/**
 * bad_features() - features the back-end never offered
 * @v: the record
 */
static void bad_features(struct hovs_vhost_user *v)
{
	v->features |= 1ULL << 63;
}

START_TEST(handover_restore_bad_ring_num) { restore_refused(bad_ring_num, "power of two"); } END_TEST
START_TEST(handover_restore_bad_region) { restore_refused(bad_region_size, "extends past the end"); } END_TEST
START_TEST(handover_restore_bad_features) { restore_refused(bad_features, "not offered"); } END_TEST

START_TEST(handover_save_refuses_half_message)
{
	struct hovs_vhost_user *v = calloc(1, sizeof(*v));
	struct vhost_user_msg_hdr h = { .request = VUM_GET_FEATURES, .flags = VUM_VERSION, .size = 8 };

	ck_assert_ptr_nonnull(v);
	running_pair();
	send_raw(&h, sizeof(h), NULL, 0);
	handle_ok();
	vhost_user_dev_pause(&dev);
	ck_assert_int_eq(vhost_user_dev_save(&dev, v), -EBUSY);
	ck_assert(strstr(dev.err, "half received"));
	free(v);
}
END_TEST

START_TEST(multiqueue_two_pairs)
{
	setup_qps(2);
	ck_assert_uint_eq(get_u64(VUM_GET_QUEUE_NUM), 2);
	prelude(P_MEM);
	ring_up(2, eventfd(0, EFD_CLOEXEC), -1);
	ring_up(3, eventfd(0, EFD_CLOEXEC), -1);
	state_ok(VUM_SET_VRING_ENABLE, 2, 1);
	state_ok(VUM_SET_VRING_ENABLE, 3, 1);
	ck_assert_int_eq(seen.starts[0], 0);
	ck_assert_int_eq(seen.starts[1], 1);
	ck_assert_ptr_eq(seen.cfg.tx.desc, (uint8_t *)dev.regions[0].host + DESC_OFF(3));
}
END_TEST

START_TEST(start_failure_closes)
{
	struct vhost_user_msg_vring_state s = { .index = 1, .num = 1 };

	setup();
	prelude(P_MEM);
	ring_up(0, eventfd(0, EFD_CLOEXEC), -1);
	ring_up(1, eventfd(0, EFD_CLOEXEC), -1);
	state_ok(VUM_SET_VRING_ENABLE, 0, 1);
	seen.fail_start = 1;
	send_msg(VUM_SET_VRING_ENABLE, VUM_FLAG_NEED_REPLY, &s, sizeof(s), NULL, 0);
	expect_fail(-EIO, "queue pair 0 could not start", true, VUM_SET_VRING_ENABLE);
}
END_TEST

START_TEST(clean_eof)
{
	setup();
	close(cfd);
	ck_assert_int_eq(vhost_user_dev_handle(&dev), -ENOTCONN);
	ck_assert(strstr(dev.err, "closed the connection"));
}
END_TEST

/* ---- malformed framing -------------------------------------------------- */

/**
 * bad_header() - send a header as given and expect -EPROTO/-EMSGSIZE
 * @flags: raw flags
 * @size: raw size
 * @want: errno
 * @substr: message text
 */
static void bad_header(uint32_t flags, uint32_t size, int want, const char *substr)
{
	struct vhost_user_msg_hdr h = { .request = VUM_GET_FEATURES, .flags = flags, .size = size };

	setup();
	send_raw(&h, sizeof(h), NULL, 0);
	expect_fail(want, substr, false, 0);
}

START_TEST(bad_version_0) { bad_header(0, 0, -EPROTO, "protocol version 0"); } END_TEST
START_TEST(bad_version_2) { bad_header(2, 0, -EPROTO, "protocol version 2"); } END_TEST
START_TEST(bad_unknown_flag) { bad_header(VUM_VERSION | 0x10, 0, -EPROTO, "unknown header flags 0x10"); } END_TEST
START_TEST(bad_reply_flag) { bad_header(VUM_VERSION | VUM_FLAG_REPLY, 0, -EPROTO, "a reply sent"); } END_TEST
START_TEST(bad_size_too_big) { bad_header(VUM_VERSION, VUM_MAX_PAYLOAD + 1, -EMSGSIZE, "payload of 4097 bytes"); } END_TEST

START_TEST(bad_eof_mid_payload)
{
	struct vhost_user_msg_hdr h = { .request = VUM_SET_FEATURES, .flags = VUM_VERSION, .size = 8 };
	uint8_t buf[sizeof(h) + 3] = { 0 };

	setup();
	memcpy(buf, &h, sizeof(h));
	send_raw(buf, sizeof(buf), NULL, 0);
	shutdown(cfd, SHUT_WR);
	expect_fail(-EPIPE, "in the middle of a message (15 bytes", false, 0);
}
END_TEST

START_TEST(bad_eof_mid_header)
{
	setup();
	send_raw("\x01\x00\x00", 3, NULL, 0);
	shutdown(cfd, SHUT_WR);
	expect_fail(-EPIPE, "in the middle of a message (3 bytes", false, 0);
}
END_TEST

START_TEST(bad_too_many_fds)
{
	int fds[VUM_MAX_FDS + 1], i, before;
	struct vhost_user_msg_hdr h = { .request = VUM_GET_FEATURES, .flags = VUM_VERSION, .size = 0 };

	setup();
	for (i = 0; i <= (int)VUM_MAX_FDS; i++)
		fds[i] = eventfd(0, EFD_CLOEXEC);
	send_raw(&h, sizeof(h), fds, VUM_MAX_FDS + 1);
	for (i = 0; i <= (int)VUM_MAX_FDS; i++)
		close(fds[i]);
	before = count_fds();
	expect_fail(-E2BIG, "more than 8 file descriptors", false, 0);
	ck_assert_int_le(count_fds(), before);
}
END_TEST

/* ---- malformed shapes (vhost_user.c's table of requests) ------------------------- */

static const uint64_t zero64;

START_TEST(bad_unknown_request)
{
	setup();
	bad_msg(P_NONE, 999, NULL, 0, NULL, 0, -EOPNOTSUPP, "unsupported request UNKNOWN (999)");
}
END_TEST

/* ---- migration: SET_LOG_BASE, SET_LOG_FD, LOG_ALL, VHOST_VRING_F_LOG ---- */

#define LOG_SIZE	4096u	/* bytes of bitmap: 128 MiB of guest memory */

/**
 * log_memfd() - a log file of @len bytes
 * @len: its size
 *
 * Return: the memfd.
 */
static int log_memfd(off_t len)
{
	int fd = memfd_create("vhost-log", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, len), 0);
	return fd;
}

/**
 * log_base_ok() - SET_LOG_BASE that must be mapped and answered with u64 0
 * @fd: the log file
 * @size: mmap_size
 * @offset: mmap_offset
 */
static void log_base_ok(int fd, uint64_t size, uint64_t offset)
{
	struct vhost_user_msg_log lg = { .mmap_size = size, .mmap_offset = offset };
	uint64_t r = 99;

	send_msg(VUM_SET_LOG_BASE, 0, &lg, sizeof(lg), &fd, 1);
	handle_ok();
	recv_reply(VUM_SET_LOG_BASE, &r, sizeof(r));
	ck_assert_uint_eq(r, 0);
	no_reply();
}

/**
 * log_byte() - one byte of a log file
 * @fd: the file
 * @off: offset
 *
 * Return: the byte.
 */
static uint8_t log_byte(int fd, off_t off)
{
	uint8_t b = 0xee;

	ck_assert_int_eq(pread(fd, &b, 1, off), 1);
	return b;
}

START_TEST(log_features_offered)
{
	setup();
	ck_assert(get_u64(VUM_GET_FEATURES) & (1ULL << VU_F_LOG_ALL));
	ck_assert(get_u64(VUM_GET_PROTOCOL_FEATURES) & (1ULL << VUM_PROTOCOL_F_LOG_SHMFD));
}
END_TEST

START_TEST(log_base_maps_marks_replaces)
{
	int a = log_memfd(LOG_SIZE), b = log_memfd(2 * LOG_SIZE + 4096);
	int base;

	setup();
	prelude(P_MEM);
	base = count_fds();
	log_base_ok(a, LOG_SIZE, 0);
	ck_assert(dirty_log_mapped(&dev.log));
	ck_assert_uint_eq(dev.log.size, LOG_SIZE);
	/* guest page 5 and pages 8..9 (a range across a page boundary) */
	dirty_log_mark(&dev.log, 5 * 4096 + 100, 1);
	dirty_log_mark(&dev.log, 8 * 4096 + 4000, 200);
	ck_assert_uint_eq(log_byte(a, 0), 1u << 5);
	ck_assert_uint_eq(log_byte(a, 1), 3u);
	/* beyond the bitmap: counted, nothing written */
	dirty_log_mark(&dev.log, (uint64_t)LOG_SIZE * 8 * 4096, 4096);
	ck_assert_uint_eq(dev.log.beyond, 1);
	/* a new log (at an offset) replaces it: the old file sees nothing more */
	log_base_ok(b, 2 * LOG_SIZE, 4096);
	ck_assert_uint_eq(dev.log.size, 2 * LOG_SIZE);
	dirty_log_mark(&dev.log, 0, 1);
	ck_assert_uint_eq(log_byte(b, 4096), 1u);
	ck_assert_uint_eq(log_byte(a, 0), 1u << 5);
	/* the fds sent were the back-end's copies: only the mapping holds them */
	ck_assert_int_eq(count_fds(), base);
	/* RESET_OWNER unmaps it */
	req_ok(VUM_RESET_OWNER, NULL, 0, NULL, 0);
	ck_assert(!dirty_log_mapped(&dev.log));
	close(a);
	close(b);
}
END_TEST

START_TEST(log_all_restarts_pair_with_log)
{
	int lfd = log_memfd(LOG_SIZE);
	struct vhost_user_msg_vring_addr a;
	uint64_t v;

	setup();
	prelude(P_MEM);
	ring_up(0, eventfd(0, EFD_CLOEXEC), -1);
	ring_up(1, eventfd(0, EFD_CLOEXEC), -1);
	state_ok(VUM_SET_VRING_ENABLE, 0, 1);
	state_ok(VUM_SET_VRING_ENABLE, 1, 1);
	ck_assert_int_eq(seen.starts[0], 1);
	ck_assert_ptr_null(seen.cfg.log);
	/* QEMU's order: log base, features with LOG_ALL, addresses with the log flag */
	log_base_ok(lfd, LOG_SIZE, 0);
	ck_assert_int_eq(seen.starts[0], 1);	/* a log alone changes nothing */
	v = GOOD_FEATURES | (1ULL << VU_F_LOG_ALL);
	req_ok(VUM_SET_FEATURES, &v, sizeof(v), NULL, 0);
	ck_assert_int_eq(seen.stops[0], 1);
	ck_assert_int_eq(seen.starts[0], 2);
	ck_assert(vhost_user_dev_logging(&dev));
	ck_assert_ptr_eq(seen.cfg.log, &dev.log);
	/* restarted from where the engine stopped */
	ck_assert_uint_eq(seen.cfg.rx.last_avail, 42);
	ck_assert_uint_eq(seen.cfg.tx.last_avail, 7);
	ck_assert(!seen.cfg.rx.log_used);
	addr_of(&a, 0);
	a.flags = VUM_VRING_F_LOG;
	a.log = 0x12340;
	req_ok(VUM_SET_VRING_ADDR, &a, sizeof(a), NULL, 0);
	ck_assert_int_eq(seen.starts[0], 3);
	ck_assert(seen.cfg.rx.log_used);
	ck_assert_uint_eq(seen.cfg.rx.used_gpa, 0x12340);
	ck_assert(!seen.cfg.tx.log_used);
	/* logging ends: back without the log */
	v = GOOD_FEATURES;
	req_ok(VUM_SET_FEATURES, &v, sizeof(v), NULL, 0);
	ck_assert_int_eq(seen.starts[0], 4);
	ck_assert_ptr_null(seen.cfg.log);
	vhost_user_dev_reset(&dev);
	ck_assert(!dirty_log_mapped(&dev.log));
	close(lfd);
}
END_TEST

START_TEST(log_fd_kept_and_released)
{
	int e = eventfd(0, EFD_CLOEXEC), base;

	setup();
	prelude(P_PROTO);
	base = count_fds();
	req_ok(VUM_SET_LOG_FD, NULL, 0, &e, 1);
	ck_assert_int_ge(dev.log_fd, 0);
	ck_assert_int_eq(count_fds(), base + 1);
	vhost_user_dev_reset(&dev);
	ck_assert_int_eq(count_fds(), base);
	close(e);
}
END_TEST

/**
 * bad_log_base() - SET_LOG_BASE refused after the protocol prelude
 * @size: mmap_size
 * @offset: mmap_offset
 * @fds: fds sent
 * @nfds: their count
 * @want: errno
 * @substr: message text
 */
static void bad_log_base(uint64_t size, uint64_t offset, const int *fds, unsigned int nfds,
			 int want, const char *substr)
{
	struct vhost_user_msg_log lg = { .mmap_size = size, .mmap_offset = offset };

	bad_msg(P_PROTO, VUM_SET_LOG_BASE, &lg, sizeof(lg), fds, nfds, want, substr);
	ck_assert(!dirty_log_mapped(&dev.log));
}

START_TEST(bad_log_base_no_fd)
{
	setup();
	bad_log_base(LOG_SIZE, 0, NULL, 0, -EBADF, "SET_LOG_BASE: 1 file descriptors missing");
}
END_TEST

START_TEST(bad_log_base_two_fds)
{
	int f[2] = { log_memfd(LOG_SIZE), log_memfd(LOG_SIZE) };

	setup();
	bad_log_base(LOG_SIZE, 0, f, 2, -EBADF, "SET_LOG_BASE: 1 unexpected file descriptors");
	close(f[0]);
	close(f[1]);
}
END_TEST

START_TEST(bad_log_base_size_zero)
{
	int f = log_memfd(LOG_SIZE);

	setup();
	bad_log_base(0, 0, &f, 1, -EINVAL, "SET_LOG_BASE: log of 0x0 bytes");
	close(f);
}
END_TEST

START_TEST(bad_log_base_too_big)
{
	int f = log_memfd(LOG_SIZE);

	setup();
	bad_log_base(DIRTY_LOG_MAX_SIZE + 1, 0, &f, 1, -EINVAL, "SET_LOG_BASE: log of 0x40000001 bytes");
	close(f);
}
END_TEST

START_TEST(bad_log_base_offset_beyond_file)
{
	int f = log_memfd(LOG_SIZE);

	setup();
	bad_log_base(LOG_SIZE, 4096, &f, 1, -EFAULT, "extends past the end of its fd (0x1000 bytes)");
	close(f);
}
END_TEST

START_TEST(bad_log_base_size_beyond_file)
{
	int f = log_memfd(LOG_SIZE);

	setup();
	bad_log_base(LOG_SIZE + 1, 0, &f, 1, -EFAULT, "extends past the end of its fd");
	close(f);
}
END_TEST

START_TEST(bad_log_base_size_overflow)
{
	int f = log_memfd(LOG_SIZE);

	setup();
	bad_log_base(LOG_SIZE, UINT64_MAX - 100, &f, 1, -EINVAL, "wraps");
	close(f);
}
END_TEST

START_TEST(bad_log_base_not_memory)
{
	int f = eventfd(0, EFD_CLOEXEC);

	setup();
	bad_log_base(LOG_SIZE, 0, &f, 1, -EINVAL, "log fd is not a memory file");
	close(f);
}
END_TEST

START_TEST(bad_log_base_without_shmfd)
{
	int f = log_memfd(LOG_SIZE);
	struct vhost_user_msg_log lg = { .mmap_size = LOG_SIZE };
	uint64_t v = 1ULL << VUM_PROTOCOL_F_REPLY_ACK;

	setup();
	req_ok(VUM_SET_PROTOCOL_FEATURES, &v, sizeof(v), NULL, 0);
	send_msg(VUM_SET_LOG_BASE, 0, &lg, sizeof(lg), &f, 1);
	expect_fail(-EINVAL, "LOG_SHMFD was not negotiated", false, 0);
	close(f);
}
END_TEST

START_TEST(bad_log_base_short)
{
	int f = log_memfd(LOG_SIZE);

	setup();
	bad_msg(P_PROTO, VUM_SET_LOG_BASE, &zero64, 8, &f, 1, -EBADMSG,
		"SET_LOG_BASE: payload of 8 bytes, the request takes 16");
	close(f);
}
END_TEST

START_TEST(bad_log_fd_not_eventfd)
{
	int f = log_memfd(LOG_SIZE);

	setup();
	bad_msg(P_PROTO, VUM_SET_LOG_FD, NULL, 0, &f, 1, -ENOTSUP, "SET_LOG_FD: fd is not an eventfd");
	close(f);
}
END_TEST

/**
 * log_truncated_case() - in a child: map a log, truncate it, mark it
 *
 * Return: 0 when the mark faulted back into the connection's guard scope
 * naming the dirty log; another value says what went wrong (the child
 * dies of SIGBUS when the fault was not caught).
 */
static int log_truncated_case(void)
{
	int lfd = log_memfd(LOG_SIZE);
	struct guard_scope gs;
	char err[128];

	if (guard_init(err, sizeof(err)) < 0)
		return 90;
	setup();
	prelude(P_MEM);
	log_base_ok(lfd, LOG_SIZE, 0);
	if (ftruncate(lfd, 0) < 0)
		return 91;
	guard_enter(&gs, &dev);
	if (sigsetjmp(gs.jb, 0)) {
		if (gs.fault.sig != SIGBUS)
			return 20;
		if (gs.fault.index != VHOST_USER_GUARD_LOG)
			return 21;
		if (gs.fault.size != LOG_SIZE)
			return 22;
		/* the owner closes the connection: everything is released */
		vhost_user_dev_reset(&dev);
		return dirty_log_mapped(&dev.log) ? 23 : 0;
	}
	dirty_log_mark(&dev.log, 4096 * 9, 1);
	guard_leave(&gs);
	return 30;
}

START_TEST(bad_log_truncated_under_logging)
{
	struct rlimit no_core = { 0, 0 };
	pid_t pid = fork();
	int st;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setrlimit(RLIMIT_CORE, &no_core);
		_exit(log_truncated_case());
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status 0x%x", st);
}
END_TEST

START_TEST(bad_unsupported_config)
{
	setup();
	bad_msg(P_PROTO, VUM_GET_CONFIG, &zero64, 8, NULL, 0, -EOPNOTSUPP,
		"unsupported request GET_CONFIG");
}
END_TEST

/* ---- NET_SET_MTU ------------------------------------------------------ */

START_TEST(net_set_mtu_equal_to_tap)
{
	uint64_t mtu = 9000;

	setup();
	seen.tap_mtu = 9000;
	prelude(P_PROTO);
	req_ok(VUM_NET_SET_MTU, &mtu, sizeof(mtu), NULL, 0);
	ck_assert_uint_eq(dev.mtu, 9000);
	ck_assert_int_eq(seen.tap_mtu_calls, 1);
}
END_TEST

START_TEST(bad_net_set_mtu_not_the_taps)
{
	uint64_t mtu = 9000;

	setup();
	seen.tap_mtu = 1500;
	bad_msg(P_PROTO, VUM_NET_SET_MTU, &mtu, sizeof(mtu), NULL, 0, -EINVAL,
		"the front-end's MTU 9000 is not the tap's MTU 1500 (give QEMU host_mtu=1500");
	ck_assert_uint_eq(dev.mtu, 0);
}
END_TEST

START_TEST(bad_net_set_mtu_not_negotiated)
{
	uint64_t mtu = 1500, v;

	setup();
	seen.tap_mtu = 1500;
	/* every protocol feature but NET_MTU: the MTU is the tap's, still refused */
	v = VU_PROTOCOL_FEATURES & ~(1ULL << VUM_PROTOCOL_F_NET_MTU);
	req_ok(VUM_SET_PROTOCOL_FEATURES, &v, sizeof(v), NULL, 0);
	v = GOOD_FEATURES;
	req_ok(VUM_SET_FEATURES, &v, sizeof(v), NULL, 0);
	send_msg(VUM_NET_SET_MTU, VUM_FLAG_NEED_REPLY, &mtu, sizeof(mtu), NULL, 0);
	/* REPLY_ACK was acked: the front-end is told 1 (refused) */
	expect_fail(-EINVAL, "NET_SET_MTU: PROTOCOL_F_NET_MTU was not negotiated", true,
		    VUM_NET_SET_MTU);
	ck_assert_uint_eq(dev.mtu, 0);
	ck_assert_int_eq(seen.tap_mtu_calls, 0);
}
END_TEST

START_TEST(bad_net_set_mtu_too_small)
{
	uint64_t mtu = 67;

	setup();
	seen.tap_mtu = 67;
	bad_msg(P_PROTO, VUM_NET_SET_MTU, &mtu, sizeof(mtu), NULL, 0, -EINVAL,
		"MTU 67 is outside 68..65535");
	ck_assert_int_eq(seen.tap_mtu_calls, 0);
}
END_TEST

START_TEST(bad_net_set_mtu_too_big)
{
	uint64_t mtu = 65536;

	setup();
	bad_msg(P_PROTO, VUM_NET_SET_MTU, &mtu, sizeof(mtu), NULL, 0, -EINVAL,
		"MTU 65536 is outside 68..65535");
}
END_TEST

START_TEST(bad_net_set_mtu_tap_unreadable)
{
	uint64_t mtu = 1500;

	setup();
	seen.tap_mtu = -ENODEV;
	bad_msg(P_PROTO, VUM_NET_SET_MTU, &mtu, sizeof(mtu), NULL, 0, -ENODEV,
		"NET_SET_MTU: reading the tap's MTU");
}
END_TEST

START_TEST(bad_net_set_mtu_short)
{
	setup();
	bad_msg(P_PROTO, VUM_NET_SET_MTU, &zero64, 4, NULL, 0, -EBADMSG,
		"NET_SET_MTU: payload of 4 bytes, the request takes 8");
}
END_TEST

/* ---- SEND_RARP -------------------------------------------------------- */

/* QEMU's payload: the MAC in the first six bytes of the u64 */
static const uint8_t guest_mac[8] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

START_TEST(send_rarp_announces_the_mac)
{
	setup();
	prelude(P_PROTO);
	req_ok(VUM_SEND_RARP, guest_mac, 8, NULL, 0);
	ck_assert_int_eq(seen.announces, 1);
	ck_assert_mem_eq(seen.mac, guest_mac, 6);
}
END_TEST

START_TEST(bad_send_rarp_not_negotiated)
{
	setup();
	bad_msg(P_NONE, VUM_SEND_RARP, guest_mac, 8, NULL, 0, -EINVAL,
		"SEND_RARP: PROTOCOL_F_RARP was not negotiated");
	ck_assert_int_eq(seen.announces, 0);
}
END_TEST

START_TEST(bad_send_rarp_multicast_mac)
{
	static const uint8_t mc[8] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };

	setup();
	bad_msg(P_PROTO, VUM_SEND_RARP, mc, 8, NULL, 0, -EINVAL,
		"SEND_RARP: 01:00:5e:00:00:01 is not a unicast MAC");
	ck_assert_int_eq(seen.announces, 0);
}
END_TEST

START_TEST(bad_send_rarp_zero_mac)
{
	setup();
	bad_msg(P_PROTO, VUM_SEND_RARP, &zero64, 8, NULL, 0, -EINVAL,
		"SEND_RARP: 00:00:00:00:00:00 is not a unicast MAC");
	ck_assert_int_eq(seen.announces, 0);
}
END_TEST

START_TEST(bad_send_rarp_tap_refuses)
{
	setup();
	seen.announce_ret = -EIO;
	bad_msg(P_PROTO, VUM_SEND_RARP, guest_mac, 8, NULL, 0, -EIO,
		"SEND_RARP: writing the RARP frame to the tap");
	ck_assert_int_eq(seen.announces, 1);
}
END_TEST

START_TEST(bad_send_rarp_short)
{
	setup();
	bad_msg(P_PROTO, VUM_SEND_RARP, guest_mac, 6, NULL, 0, -EBADMSG,
		"SEND_RARP: payload of 6 bytes, the request takes 8");
	ck_assert_int_eq(seen.announces, 0);
}
END_TEST

START_TEST(bad_get_features_with_payload)
{
	setup();
	bad_msg(P_NONE, VUM_GET_FEATURES, &zero64, 8, NULL, 0, -EBADMSG,
		"GET_FEATURES: payload of 8 bytes, the request takes 0");
}
END_TEST

START_TEST(bad_set_features_short)
{
	setup();
	bad_msg(P_PROTO, VUM_SET_FEATURES, &zero64, 4, NULL, 0, -EBADMSG,
		"SET_FEATURES: payload of 4 bytes, the request takes 8");
}
END_TEST

START_TEST(bad_vring_addr_short)
{
	struct vhost_user_msg_vring_addr a = { 0 };

	setup();
	bad_msg(P_PROTO, VUM_SET_VRING_ADDR, &a, 32, NULL, 0, -EBADMSG,
		"SET_VRING_ADDR: payload of 32 bytes, the request takes 40");
}
END_TEST

START_TEST(bad_vring_state_long)
{
	uint8_t b[12] = { 0 };

	setup();
	bad_msg(P_PROTO, VUM_SET_VRING_NUM, b, 12, NULL, 0, -EBADMSG,
		"SET_VRING_NUM: payload of 12 bytes, the request takes 8");
}
END_TEST

START_TEST(bad_mem_table_short)
{
	setup();
	bad_msg(P_PROTO, VUM_SET_MEM_TABLE, &zero64, 4, NULL, 0, -EBADMSG,
		"SET_MEM_TABLE: payload of 4 bytes, the request takes 8");
}
END_TEST

START_TEST(bad_mem_table_zero_regions)
{
	struct vhost_user_msg_mem m = { 0 };

	setup();
	bad_msg(P_PROTO, VUM_SET_MEM_TABLE, &m, VUM_SIZE_MEM(0), NULL, 0, -EBADMSG,
		"SET_MEM_TABLE: 0 regions (1..8 allowed)");
}
END_TEST

START_TEST(bad_mem_table_nine_regions)
{
	static uint8_t b[VUM_SIZE_MEM(9)];
	uint32_t n = 9;

	setup();
	memcpy(b, &n, 4);
	bad_msg(P_PROTO, VUM_SET_MEM_TABLE, b, sizeof(b), NULL, 0, -EBADMSG,
		"SET_MEM_TABLE: 9 regions");
}
END_TEST

START_TEST(bad_mem_table_size_mismatch)
{
	struct vhost_user_msg_mem m;

	setup();
	mem1(&m, USER_BASE);
	m.nregions = 2;
	bad_msg(P_PROTO, VUM_SET_MEM_TABLE, &m, VUM_SIZE_MEM(1), &memfd, 1, -EBADMSG,
		"SET_MEM_TABLE: payload of 40 bytes, the request takes 72");
}
END_TEST

START_TEST(bad_mem_table_fd_missing)
{
	struct vhost_user_msg_mem m;

	setup();
	mem1(&m, USER_BASE);
	bad_msg(P_PROTO, VUM_SET_MEM_TABLE, &m, VUM_SIZE_MEM(1), NULL, 0, -EBADF,
		"SET_MEM_TABLE: 1 file descriptors missing (got 0, takes 1)");
}
END_TEST

START_TEST(bad_mem_table_fd_extra)
{
	struct vhost_user_msg_mem m;
	int fds[2];

	setup();
	fds[0] = memfd;
	fds[1] = eventfd(0, EFD_CLOEXEC);
	mem1(&m, USER_BASE);
	bad_msg(P_PROTO, VUM_SET_MEM_TABLE, &m, VUM_SIZE_MEM(1), fds, 2, -EBADF,
		"SET_MEM_TABLE: 1 unexpected file descriptors (got 2, takes 1)");
	ck_assert_uint_eq(dev.nregions, 0);
}
END_TEST

START_TEST(bad_kick_fd_missing)
{
	uint64_t v = 0;

	setup();
	bad_msg(P_PROTO, VUM_SET_VRING_KICK, &v, 8, NULL, 0, -EBADF,
		"SET_VRING_KICK: 1 file descriptors missing");
}
END_TEST

START_TEST(bad_kick_nofd_with_fd)
{
	uint64_t v = VUM_VRING_NOFD;
	int e;

	setup();
	e = eventfd(0, EFD_CLOEXEC);
	bad_msg(P_PROTO, VUM_SET_VRING_KICK, &v, 8, &e, 1, -EBADF,
		"SET_VRING_KICK: 1 unexpected file descriptors");
}
END_TEST

START_TEST(bad_call_reserved_bits)
{
	uint64_t v = 1ULL << 9;

	setup();
	bad_msg(P_PROTO, VUM_SET_VRING_CALL, &v, 8, NULL, 0, -EBADMSG,
		"SET_VRING_CALL: reserved bits set in 0x200");
}
END_TEST

START_TEST(bad_set_owner_with_fd)
{
	int e;

	setup();
	e = eventfd(0, EFD_CLOEXEC);
	bad_msg(P_PROTO, VUM_SET_OWNER, NULL, 0, &e, 1, -EBADF,
		"SET_OWNER: 1 unexpected file descriptors (got 1, takes 0)");
}
END_TEST

/* ---- malformed values (state machine) ----------------------------------- */

START_TEST(bad_features_not_offered)
{
	uint64_t v = GOOD_FEATURES | (1ULL << 27);	/* VIRTIO_F_ANY_LAYOUT */

	setup();
	bad_msg(P_PROTO, VUM_SET_FEATURES, &v, 8, NULL, 0, -EINVAL,
		"SET_FEATURES: 0x8000000 not offered");
}
END_TEST

START_TEST(bad_protocol_features_not_offered)
{
	uint64_t v = 1ULL << VUM_PROTOCOL_F_CONFIG;

	setup();
	bad_msg(P_PROTO, VUM_SET_PROTOCOL_FEATURES, &v, 8, NULL, 0, -EINVAL,
		"SET_PROTOCOL_FEATURES: 0x200 not offered");
}
END_TEST

/**
 * bad_state() - a ring-state request refused after @p
 * @p: prelude
 * @req: request
 * @index: ring
 * @num: value
 * @want: errno
 * @substr: message text
 */
static void bad_state(enum prelude p, uint32_t req, uint32_t index, uint32_t num, int want,
		      const char *substr)
{
	struct vhost_user_msg_vring_state s = { .index = index, .num = num };

	setup();
	bad_msg(p, req, &s, sizeof(s), NULL, 0, want, substr);
}

START_TEST(bad_num_zero) { bad_state(P_PROTO, VUM_SET_VRING_NUM, 0, 0, -EINVAL, "size 0 is not a power of two in 1..32768"); } END_TEST
START_TEST(bad_num_not_pow2) { bad_state(P_PROTO, VUM_SET_VRING_NUM, 0, 1000, -EINVAL, "size 1000 is not a power of two"); } END_TEST
START_TEST(bad_num_65536) { bad_state(P_PROTO, VUM_SET_VRING_NUM, 1, 65536, -EINVAL, "ring 1: size 65536"); } END_TEST
START_TEST(bad_num_ring_index) { bad_state(P_PROTO, VUM_SET_VRING_NUM, 2, 256, -ERANGE, "SET_VRING_NUM: ring 2 does not exist (2 rings)"); } END_TEST
START_TEST(bad_base_65536) { bad_state(P_PROTO, VUM_SET_VRING_BASE, 0, 65536, -EINVAL, "base 65536 does not fit 16 bits"); } END_TEST
START_TEST(bad_enable_2) { bad_state(P_PROTO, VUM_SET_VRING_ENABLE, 0, 2, -EINVAL, "value 2 (0 or 1)"); } END_TEST
START_TEST(bad_get_base_index) { bad_state(P_PROTO, VUM_GET_VRING_BASE, 7, 0, -ERANGE, "GET_VRING_BASE: ring 7 does not exist"); } END_TEST

START_TEST(bad_kick_index)
{
	uint64_t v = 5 | VUM_VRING_NOFD;

	setup();
	bad_msg(P_PROTO, VUM_SET_VRING_KICK, &v, 8, NULL, 0, -ERANGE,
		"SET_VRING_KICK: ring 5 does not exist");
}
END_TEST

/**
 * bad_addr() - SET_VRING_ADDR of ring 0 refused after @p
 * @p: prelude
 * @desc: front-end offset... absolute address of the descriptor table
 * @avail: avail ring address
 * @used: used ring address
 * @flags: flags
 * @want: errno
 * @substr: message text
 */
static void bad_addr(enum prelude p, uint64_t desc, uint64_t avail, uint64_t used,
		     uint32_t flags, int want, const char *substr)
{
	struct vhost_user_msg_vring_addr a = { .index = 0, .flags = flags, .desc = desc,
				    .avail = avail, .used = used };

	setup();
	bad_msg(p, VUM_SET_VRING_ADDR, &a, sizeof(a), NULL, 0, want, substr);
	ck_assert(!dev.vrings[0].addr_set);
}

#define UA(off) (USER_BASE + (off))
START_TEST(bad_addr_before_num) { bad_addr(P_MEM, UA(0x1000), UA(0x2000), UA(0x3000), 0, -EINVAL, "sent before SET_VRING_NUM"); } END_TEST
START_TEST(bad_addr_before_mem) { bad_addr(P_NUM_NOMEM, UA(0x1000), UA(0x2000), UA(0x3000), 0, -EINVAL, "sent before SET_MEM_TABLE"); } END_TEST
START_TEST(bad_addr_unknown_flag) { bad_addr(P_NUM, UA(0x1000), UA(0x2000), UA(0x3000), 2, -EINVAL, "ring 0: unknown flags 0x2"); } END_TEST

START_TEST(bad_addr_log_misaligned)
{
	struct vhost_user_msg_vring_addr a = { .index = 0, .flags = VUM_VRING_F_LOG, .desc = UA(0x1000),
				    .avail = UA(0x2000), .used = UA(0x3000), .log = 0x3002 };

	setup();
	bad_msg(P_NUM, VUM_SET_VRING_ADDR, &a, sizeof(a), NULL, 0, -EINVAL,
		"used ring log address 0x3002 is not 4-byte aligned");
	ck_assert(!dev.vrings[0].addr_set);
}
END_TEST
START_TEST(bad_addr_misaligned) { bad_addr(P_NUM, UA(0x1008), UA(0x2000), UA(0x3000), 0, -EINVAL, "misaligned addresses desc"); } END_TEST
START_TEST(bad_addr_used_misaligned) { bad_addr(P_NUM, UA(0x1000), UA(0x2000), UA(0x3002), 0, -EINVAL, "misaligned"); } END_TEST
START_TEST(bad_addr_desc_outside) { bad_addr(P_NUM, UA(MEM_SIZE), UA(0x2000), UA(0x3000), 0, -EFAULT, "descriptor table (0x7f0000100000, 256 entries) is outside guest memory"); } END_TEST
START_TEST(bad_addr_desc_below) { bad_addr(P_NUM, USER_BASE - 0x1000, UA(0x2000), UA(0x3000), 0, -EFAULT, "descriptor table"); } END_TEST
START_TEST(bad_addr_used_straddles_end) { bad_addr(P_NUM, UA(0x1000), UA(0x2000), UA(MEM_SIZE - 0x800), 0, -EFAULT, "used ring"); } END_TEST
START_TEST(bad_addr_avail_straddles_end) { bad_addr(P_NUM, UA(0x1000), UA(MEM_SIZE - 4), UA(0x3000), 0, -EFAULT, "avail ring"); } END_TEST
START_TEST(bad_addr_wraps) { bad_addr(P_NUM, 0xfffffffffffffff0ULL, UA(0x2000), UA(0x3000), 0, -EFAULT, "descriptor table"); } END_TEST

START_TEST(bad_num_grows_past_memory)
{
	struct vhost_user_msg_vring_addr a = { .index = 0, .desc = UA(MEM_SIZE - 256 * 16),
				    .avail = UA(0x2000), .used = UA(0x3000) };
	struct vhost_user_msg_vring_state s = { .index = 0, .num = 512 };

	setup();
	prelude(P_NUM);
	req_ok(VUM_SET_VRING_ADDR, &a, sizeof(a), NULL, 0);
	send_msg(VUM_SET_VRING_NUM, VUM_FLAG_NEED_REPLY, &s, sizeof(s), NULL, 0);
	expect_fail(-EFAULT, "descriptor table", true, VUM_SET_VRING_NUM);
}
END_TEST

START_TEST(bad_new_table_loses_ring)
{
	struct vhost_user_msg_mem m;

	setup();
	prelude(P_RING);
	mem1(&m, USER_BASE + 2 * MEM_SIZE);
	send_msg(VUM_SET_MEM_TABLE, VUM_FLAG_NEED_REPLY, &m, VUM_SIZE_MEM(1), &memfd, 1);
	expect_fail(-EFAULT, "ring 0: descriptor table", true, VUM_SET_MEM_TABLE);
}
END_TEST

/**
 * bad_table() - a SET_MEM_TABLE refused after the protocol prelude
 * @m: table
 * @fds: fds (one per region)
 * @want: errno
 * @substr: message text
 */
static void bad_table(const struct vhost_user_msg_mem *m, const int *fds, int want, const char *substr)
{
	bad_msg(P_PROTO, VUM_SET_MEM_TABLE, m, VUM_SIZE_MEM(m->nregions), fds, m->nregions,
		want, substr);
	ck_assert_uint_eq(dev.nregions, 0);
}

START_TEST(bad_region_empty)
{
	struct vhost_user_msg_mem m;

	setup();
	mem1(&m, USER_BASE);
	m.regions[0].size = 0;
	bad_table(&m, &memfd, -EINVAL, "region 0 is empty");
}
END_TEST

START_TEST(bad_region_guest_wraps)
{
	struct vhost_user_msg_mem m;

	setup();
	mem1(&m, USER_BASE);
	m.regions[0].guest_addr = ~0ULL - 0x1000;
	bad_table(&m, &memfd, -EINVAL, "wraps the address space");
}
END_TEST

START_TEST(bad_region_user_wraps)
{
	struct vhost_user_msg_mem m;

	setup();
	mem1(&m, ~0ULL - 0x1000);
	bad_table(&m, &memfd, -EINVAL, "wraps the address space");
}
END_TEST

START_TEST(bad_region_offset_wraps)
{
	struct vhost_user_msg_mem m;

	setup();
	mem1(&m, USER_BASE);
	m.regions[0].mmap_offset = ~0ULL - 0x1000;
	bad_table(&m, &memfd, -EINVAL, "wraps the address space");
}
END_TEST

START_TEST(bad_regions_overlap_guest)
{
	struct vhost_user_msg_mem m;
	int fds[2];

	setup();
	fds[0] = fds[1] = memfd;
	mem1(&m, USER_BASE);
	m.nregions = 2;
	m.regions[0].size = MEM_SIZE / 2;
	m.regions[1] = m.regions[0];
	m.regions[1].guest_addr = MEM_SIZE / 4;
	m.regions[1].user_addr = USER_BASE + MEM_SIZE;
	bad_table(&m, fds, -EINVAL, "regions 0 and 1 overlap in guest memory");
}
END_TEST

START_TEST(bad_regions_overlap_user)
{
	struct vhost_user_msg_mem m;
	int fds[2];

	setup();
	fds[0] = fds[1] = memfd;
	mem1(&m, USER_BASE);
	m.nregions = 2;
	m.regions[0].size = MEM_SIZE / 2;
	m.regions[1] = m.regions[0];
	m.regions[1].guest_addr = MEM_SIZE;
	m.regions[1].user_addr = USER_BASE + MEM_SIZE / 2 - 1;
	bad_table(&m, fds, -EINVAL, "regions 0 and 1 overlap in front-end memory");
}
END_TEST

START_TEST(bad_region_past_fd_end)
{
	struct vhost_user_msg_mem m;

	setup();
	mem1(&m, USER_BASE);
	m.regions[0].mmap_offset = 0x1000;
	bad_table(&m, &memfd, -EFAULT, "extends past the end of its fd (0x100000 bytes)");
}
END_TEST

START_TEST(bad_region_not_memory)
{
	struct vhost_user_msg_mem m;
	int e;

	setup();
	e = eventfd(0, EFD_CLOEXEC);
	mem1(&m, USER_BASE);
	bad_table(&m, &e, -EINVAL, "fd is not a memory file");
}
END_TEST

START_TEST(good_region_memfd_unsealed)
{
	struct vhost_user_msg_mem m;
	int fd = memfd_create("unsealed", MFD_CLOEXEC);

	/* F_SEAL_SEAL, no F_SEAL_SHRINK: accepted, faults are guarded */
	setup();
	ck_assert_int_eq(ftruncate(fd, MEM_SIZE), 0);
	prelude(P_PROTO);
	mem1(&m, USER_BASE);
	req_ok(VUM_SET_MEM_TABLE, &m, VUM_SIZE_MEM(1), &fd, 1);
	ck_assert_uint_eq(dev.nregions, 1);
}
END_TEST

START_TEST(good_region_plain_file)
{
	char path[] = "/tmp/vhost-user-test.XXXXXX";
	struct vhost_user_msg_mem m;
	int fd = mkstemp(path);

	setup();
	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(ftruncate(fd, MEM_SIZE), 0);
	prelude(P_PROTO);
	mem1(&m, USER_BASE);
	req_ok(VUM_SET_MEM_TABLE, &m, VUM_SIZE_MEM(1), &fd, 1);
	ck_assert_uint_eq(dev.nregions, 1);
}
END_TEST

START_TEST(bad_region_padding)
{
	struct vhost_user_msg_mem m;

	setup();
	mem1(&m, USER_BASE);
	m.padding = 1;
	bad_table(&m, &memfd, -EINVAL, "padding is not zero");
}
END_TEST

START_TEST(good_region_offset_unaligned)
{
	struct vhost_user_msg_mem m;

	setup();
	prelude(P_PROTO);
	mem1(&m, USER_BASE);
	m.regions[0].mmap_offset = 0x123;
	m.regions[0].size = MEM_SIZE - 0x123;
	req_ok(VUM_SET_MEM_TABLE, &m, VUM_SIZE_MEM(1), &memfd, 1);
	ck_assert_int_eq(pwrite(memfd, "Z", 1, 0x123), 1);
	ck_assert_int_eq(*(char *)dev.regions[0].host, 'Z');
}
END_TEST

/**
 * vhost_user_suite() - the vhost-user back-end suite
 *
 * Return: the suite.
 */
/**
 * maps_of() - mappings of this process whose line names @name
 * @name: e.g. "memfd:guest " (the test memfd)
 *
 * Return: how many lines of /proc/self/maps contain @name.
 */
static int maps_of(const char *name)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, name))
			n++;
	fclose(f);
	return n;
}

START_TEST(lazy_mem_table_not_mapped)
{
	struct vhost_user_msg_mem m;
	uint64_t total = 0;

	/* the pair starts on a table that is not mapped here */
	running_pair_lazily(true);
	ck_assert_int_eq(maps_of("/memfd:guest "), 0);
	ck_assert_ptr_null(dev.regions[0].map);
	ck_assert(!vhost_user_dev_mapped(&dev));
	ck_assert_uint_eq(vhost_user_dev_mapped_bytes(&dev, &total), 0);
	ck_assert_uint_eq(total, MEM_SIZE);
	ck_assert_ptr_null(seen.cfg.tx.desc);
	ck_assert_ptr_null(seen.cfg.rx.used);
	ck_assert_ptr_null(seen.cfg.regions[0].uaddr);
	ck_assert_int_eq(seen.cfg.regions[0].fd, dev.regions[0].fd);
	ck_assert_uint_eq(seen.cfg.tx.desc_gpa, DESC_OFF(1));
	ck_assert_uint_eq(seen.cfg.rx.used_gpa, USED_OFF(0));
	/* the same table again: still nothing mapped, the pair keeps running */
	mem1(&m, USER_BASE);
	req_ok(VUM_SET_MEM_TABLE, &m, VUM_SIZE_MEM(1), &memfd, 1);
	ck_assert_int_eq(seen.stops[0], 0);
	ck_assert_int_eq(maps_of("/memfd:guest "), 0);
	/* on demand: mapped once, the rings' pointers follow */
	ck_assert_int_eq(vhost_user_dev_map(&dev, "test"), 0);
	ck_assert_int_eq(maps_of("/memfd:guest "), 1);
	ck_assert(vhost_user_dev_mapped(&dev));
	ck_assert_uint_eq(vhost_user_dev_mapped_bytes(&dev, NULL), MEM_SIZE);
	ck_assert_ptr_eq(dev.vrings[1].desc, (uint8_t *)dev.regions[0].host + DESC_OFF(1));
	vhost_user_dev_queue_config(&dev, 0, &seen.cfg);
	ck_assert_ptr_eq(seen.cfg.regions[0].uaddr, dev.regions[0].host);
	ck_assert_ptr_eq(seen.cfg.rx.used, (uint8_t *)dev.regions[0].host + USED_OFF(0));
	ck_assert_int_eq(vhost_user_dev_map(&dev, "test"), 0);
	ck_assert_int_eq(maps_of("/memfd:guest "), 1);
	/* a reset unmaps and keeps the choice */
	vhost_user_dev_reset(&dev);
	ck_assert_int_eq(maps_of("/memfd:guest "), 0);
	ck_assert(dev.map_lazily);
}
END_TEST

START_TEST(lazy_mem_table_checks_without_mapping)
{
	struct vhost_user_msg_mem m;
	struct vhost_user_msg_vring_addr a;

	setup();
	vhost_user_dev_map_lazily(&dev, true);
	mem1(&m, USER_BASE);
	m.regions[0].mmap_offset = 0x1000;
	bad_table(&m, &memfd, -EFAULT, "extends past the end of its fd (0x100000 bytes)");
	close(cfd);
	vhost_user_dev_reset(&dev);
	close(dev.fd);
	close(memfd);

	setup();
	vhost_user_dev_map_lazily(&dev, true);
	prelude(P_NUM);
	addr_of(&a, 0);
	a.used = USER_BASE + MEM_SIZE - 8;	/* 6 + 8 * 256 bytes do not fit */
	send_msg(VUM_SET_VRING_ADDR, VUM_FLAG_NEED_REPLY, &a, sizeof(a), NULL, 0);
	expect_fail(-EFAULT, "used ring (0x7f00000ffff8, 256 entries) is outside guest memory",
		    true, VUM_SET_VRING_ADDR);
	ck_assert(!dev.vrings[0].addr_set);
	ck_assert_int_eq(maps_of("/memfd:guest "), 0);
}
END_TEST

Suite *vhost_user_suite(void)
{
	Suite *s = runner_suite_create("vhost_user");

	RUNNER_ADD_TEST(s, handshake_qemu_like);
	RUNNER_ADD_TEST(s, no_protocol_features_rings_start_enabled);
	RUNNER_ADD_TEST(s, legacy_header_is_10_bytes);
	RUNNER_ADD_TEST(s, polling_kick_accepted);
	RUNNER_ADD_TEST(s, message_in_pieces);
	RUNNER_ADD_TEST(s, two_messages_one_write);
	RUNNER_ADD_TEST(s, need_reply_without_reply_ack_is_silent);
	RUNNER_ADD_TEST(s, same_mem_table_keeps_mapping);
	RUNNER_ADD_TEST(s, new_mem_table_restarts_queue);
	RUNNER_ADD_TEST(s, lazy_mem_table_not_mapped);
	RUNNER_ADD_TEST(s, lazy_mem_table_checks_without_mapping);
	RUNNER_ADD_TEST(s, call_fd_replaced_restarts_queue);
	RUNNER_ADD_TEST(s, reset_owner_stops_and_unmaps);
	RUNNER_ADD_TEST(s, reset_releases_every_fd);
	RUNNER_ADD_TEST(s, handover_save_restore);
	RUNNER_ADD_TEST(s, crash_restore_from_used_index);
	RUNNER_ADD_TEST(s, crash_restore_unmapped_from_used_index);
	RUNNER_ADD_TEST(s, restart_restore_keeps_stored_positions);
	RUNNER_ADD_TEST(s, handover_restore_bad_ring_num);
	RUNNER_ADD_TEST(s, handover_restore_bad_region);
	RUNNER_ADD_TEST(s, handover_restore_bad_features);
	RUNNER_ADD_TEST(s, handover_save_refuses_half_message);
	RUNNER_ADD_TEST(s, multiqueue_two_pairs);
	RUNNER_ADD_TEST(s, start_failure_closes);
	RUNNER_ADD_TEST(s, clean_eof);
	RUNNER_ADD_TEST(s, good_region_offset_unaligned);

	RUNNER_ADD_TEST(s, bad_version_0);
	RUNNER_ADD_TEST(s, bad_version_2);
	RUNNER_ADD_TEST(s, bad_unknown_flag);
	RUNNER_ADD_TEST(s, bad_reply_flag);
	RUNNER_ADD_TEST(s, bad_size_too_big);
	RUNNER_ADD_TEST(s, bad_eof_mid_payload);
	RUNNER_ADD_TEST(s, bad_eof_mid_header);
	RUNNER_ADD_TEST(s, bad_too_many_fds);

	RUNNER_ADD_TEST(s, bad_unknown_request);
	RUNNER_ADD_TEST(s, log_features_offered);
	RUNNER_ADD_TEST(s, log_base_maps_marks_replaces);
	RUNNER_ADD_TEST(s, log_all_restarts_pair_with_log);
	RUNNER_ADD_TEST(s, log_fd_kept_and_released);
	RUNNER_ADD_TEST(s, bad_log_base_no_fd);
	RUNNER_ADD_TEST(s, bad_log_base_two_fds);
	RUNNER_ADD_TEST(s, bad_log_base_size_zero);
	RUNNER_ADD_TEST(s, bad_log_base_too_big);
	RUNNER_ADD_TEST(s, bad_log_base_offset_beyond_file);
	RUNNER_ADD_TEST(s, bad_log_base_size_beyond_file);
	RUNNER_ADD_TEST(s, bad_log_base_size_overflow);
	RUNNER_ADD_TEST(s, bad_log_base_not_memory);
	RUNNER_ADD_TEST(s, bad_log_base_without_shmfd);
	RUNNER_ADD_TEST(s, bad_log_base_short);
	RUNNER_ADD_TEST(s, bad_log_fd_not_eventfd);
	RUNNER_ADD_TEST(s, bad_log_truncated_under_logging);
	RUNNER_ADD_TEST(s, bad_unsupported_config);
	RUNNER_ADD_TEST(s, net_set_mtu_equal_to_tap);
	RUNNER_ADD_TEST(s, bad_net_set_mtu_not_the_taps);
	RUNNER_ADD_TEST(s, bad_net_set_mtu_not_negotiated);
	RUNNER_ADD_TEST(s, bad_net_set_mtu_too_small);
	RUNNER_ADD_TEST(s, bad_net_set_mtu_too_big);
	RUNNER_ADD_TEST(s, bad_net_set_mtu_tap_unreadable);
	RUNNER_ADD_TEST(s, bad_net_set_mtu_short);
	RUNNER_ADD_TEST(s, send_rarp_announces_the_mac);
	RUNNER_ADD_TEST(s, bad_send_rarp_not_negotiated);
	RUNNER_ADD_TEST(s, bad_send_rarp_multicast_mac);
	RUNNER_ADD_TEST(s, bad_send_rarp_zero_mac);
	RUNNER_ADD_TEST(s, bad_send_rarp_tap_refuses);
	RUNNER_ADD_TEST(s, bad_send_rarp_short);
	RUNNER_ADD_TEST(s, bad_get_features_with_payload);
	RUNNER_ADD_TEST(s, bad_set_features_short);
	RUNNER_ADD_TEST(s, bad_vring_addr_short);
	RUNNER_ADD_TEST(s, bad_vring_state_long);
	RUNNER_ADD_TEST(s, bad_mem_table_short);
	RUNNER_ADD_TEST(s, bad_mem_table_zero_regions);
	RUNNER_ADD_TEST(s, bad_mem_table_nine_regions);
	RUNNER_ADD_TEST(s, bad_mem_table_size_mismatch);
	RUNNER_ADD_TEST(s, bad_mem_table_fd_missing);
	RUNNER_ADD_TEST(s, bad_mem_table_fd_extra);
	RUNNER_ADD_TEST(s, bad_kick_fd_missing);
	RUNNER_ADD_TEST(s, bad_kick_nofd_with_fd);
	RUNNER_ADD_TEST(s, bad_call_reserved_bits);
	RUNNER_ADD_TEST(s, bad_set_owner_with_fd);

	RUNNER_ADD_TEST(s, bad_features_not_offered);
	RUNNER_ADD_TEST(s, bad_protocol_features_not_offered);
	RUNNER_ADD_TEST(s, bad_num_zero);
	RUNNER_ADD_TEST(s, bad_num_not_pow2);
	RUNNER_ADD_TEST(s, bad_num_65536);
	RUNNER_ADD_TEST(s, bad_num_ring_index);
	RUNNER_ADD_TEST(s, bad_base_65536);
	RUNNER_ADD_TEST(s, bad_enable_2);
	RUNNER_ADD_TEST(s, bad_get_base_index);
	RUNNER_ADD_TEST(s, bad_kick_index);
	RUNNER_ADD_TEST(s, bad_addr_before_num);
	RUNNER_ADD_TEST(s, bad_addr_before_mem);
	RUNNER_ADD_TEST(s, bad_addr_unknown_flag);
	RUNNER_ADD_TEST(s, bad_addr_log_misaligned);
	RUNNER_ADD_TEST(s, bad_addr_misaligned);
	RUNNER_ADD_TEST(s, bad_addr_used_misaligned);
	RUNNER_ADD_TEST(s, bad_addr_desc_outside);
	RUNNER_ADD_TEST(s, bad_addr_desc_below);
	RUNNER_ADD_TEST(s, bad_addr_used_straddles_end);
	RUNNER_ADD_TEST(s, bad_addr_avail_straddles_end);
	RUNNER_ADD_TEST(s, bad_addr_wraps);
	RUNNER_ADD_TEST(s, bad_num_grows_past_memory);
	RUNNER_ADD_TEST(s, bad_new_table_loses_ring);
	RUNNER_ADD_TEST(s, bad_region_empty);
	RUNNER_ADD_TEST(s, bad_region_guest_wraps);
	RUNNER_ADD_TEST(s, bad_region_user_wraps);
	RUNNER_ADD_TEST(s, bad_region_offset_wraps);
	RUNNER_ADD_TEST(s, bad_regions_overlap_guest);
	RUNNER_ADD_TEST(s, bad_regions_overlap_user);
	RUNNER_ADD_TEST(s, bad_region_past_fd_end);
	RUNNER_ADD_TEST(s, bad_region_not_memory);
	RUNNER_ADD_TEST(s, bad_region_padding);
	RUNNER_ADD_TEST(s, good_region_memfd_unsealed);
	RUNNER_ADD_TEST(s, good_region_plain_file);
	return s;
}
