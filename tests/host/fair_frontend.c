// SPDX-License-Identifier: GPL-2.0
/*
 * fair_frontend.c - two vhost-user front-ends in one process: one floods,
 * one sends a frame at a time, and the flood's share is counted
 *
 * Usage: fair_frontend FLOOD_SOCKET LIGHT_SOCKET COUNT
 *
 * Connects to two vringnetd vhost-user ports (the handshake of
 * tests/host/vu_frontend: VERSION_1, REPLY_ACK, one memfd region).  The
 * flooding front-end has a tx ring of FAIR_FLOOD_NUM entries and keeps it
 * full the whole time: every completed chain is posted again at once (60-byte
 * broadcast frames, EtherType 0x88b5).  The light one sends COUNT frames one
 * at a time (the frame's sequence number in its payload) and waits for each
 * to complete.  For each light frame it reads the flood's used->idx right
 * after the light frame's kick and again when the light frame is completed:
 * the difference is how many flood frames the daemon served while the light
 * frame waited.  It spins while it waits (no sleep, so that the index is
 * read right when the light frame completes).  No clock is involved.
 *
 * Prints "light sent N completed N flood served F median-between D
 * max-between M" and exits
 * 0 when every light frame completed (within FAIR_SPINS looks each, against a hang),
 * 1 otherwise; the suite judges M against the daemon's budget.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "vhost_user_msg.h"
#include "vringfd.h"

#define FAIR_MEM		(1u << 20)
#define FAIR_FLOOD_NUM		2048u	/* 8 budgets of the daemon (ENGINE_WEIGHT_FRAMES) */
#define FAIR_LIGHT_NUM		256u
#define FAIR_HDR		12u
#define FAIR_FRAME		60u
#define FAIR_RING(r)		(0x1000u + (r) * 0x20000u)	/* desc; avail +0x8000; used +0xa000 */
#define FAIR_BUF		0x50000u	/* frame buffers: 128 bytes each */
#define FAIR_SPINS		4000000000ul	/* looks per light frame, against a hang */

/**
 * struct fair_fe - one front-end connection
 * @sock: the vhost-user socket
 * @mem: guest memory (a memfd, guest address 0)
 * @ring: its rings, [0] rx, [1] tx
 * @kick: kick eventfds
 * @call: call eventfds
 */
struct fair_fe {
	int sock;
	uint8_t *mem;
	struct vringfd_ring ring[2];
	int kick[2];
	int call[2];
};

/**
 * fair_die() - print why and exit 1
 * @what: what failed
 */
static void __attribute__((noreturn)) fair_die(const char *what)
{
	fprintf(stderr, "fair_frontend: %s: %s\n", what, strerror(errno));
	exit(1);
}

/**
 * fair_msg() - send a request and wait for its reply (GET) or REPLY_ACK
 * @fe: the connection
 * @req: request
 * @payload: payload
 * @size: its size
 * @fd: fd to attach, or -1
 * @ack: ask for REPLY_ACK (false before it is negotiated: no reply read
 *	for a SET, or a GET, whose u64 reply is returned)
 *
 * Return: the reply's u64 (GET) or 0; dies on a refused request.
 */
static uint64_t fair_msg(struct fair_fe *fe, uint32_t req, const void *payload, uint32_t size,
			 int fd, bool ack)
{
	struct vhost_user_msg_hdr h = { .request = req, .flags = VUM_VERSION, .size = size };
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)payload, size } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = size ? 2 : 1 };
	bool get = req == VUM_GET_FEATURES || req == VUM_GET_PROTOCOL_FEATURES;
	uint64_t v = 0;

	if (ack)
		h.flags |= VUM_FLAG_NEED_REPLY;
	if (fd >= 0) {
		struct cmsghdr *c;

		memset(ctl, 0, sizeof(ctl));
		mh.msg_control = ctl;
		mh.msg_controllen = sizeof(ctl);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	if (sendmsg(fe->sock, &mh, MSG_NOSIGNAL) != (ssize_t)(sizeof(h) + size))
		fair_die("sendmsg");
	if (!get && !ack)
		return 0;
	if (recv(fe->sock, &h, sizeof(h), MSG_WAITALL) != sizeof(h) || h.request != req ||
	    h.size != 8 || recv(fe->sock, &v, 8, MSG_WAITALL) != 8) {
		errno = EPROTO;
		fair_die("reply");
	}
	if (!get && v) {
		errno = EINVAL;
		fair_die("request refused");
	}
	return v;
}

/**
 * fair_connect() - memory, rings and the vhost-user handshake
 * @fe: the connection (filled in)
 * @path: the port's socket
 * @txnum: entries of the tx ring (the rx ring has FAIR_LIGHT_NUM, none posted)
 */
static void fair_connect(struct fair_fe *fe, const char *path, unsigned int txnum)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct vhost_user_msg_mem mem;
	uint64_t v;
	int memfd, r;

	memfd = memfd_create("fair-guest", MFD_CLOEXEC);
	if (memfd < 0 || ftruncate(memfd, FAIR_MEM) < 0)
		fair_die("memfd");
	fe->mem = mmap(NULL, FAIR_MEM, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (fe->mem == MAP_FAILED)
		fair_die("mmap");
	for (r = 0; r < 2; r++) {
		uint8_t *base = fe->mem + FAIR_RING(r);

		if (vringfd_ring_init_parts(&fe->ring[r], r ? txnum : FAIR_LIGHT_NUM, base,
					    base + 0x8000, base + 0xa000, 0) < 0)
			fair_die("ring init");
		fe->kick[r] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		fe->call[r] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (fe->kick[r] < 0 || fe->call[r] < 0)
			fair_die("eventfd");
	}
	fe->sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fe->sock < 0 || connect(fe->sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		fair_die(path);
	fair_msg(fe, VUM_GET_FEATURES, NULL, 0, -1, false);
	v = fair_msg(fe, VUM_GET_PROTOCOL_FEATURES, NULL, 0, -1, false) &
	    (1ULL << VUM_PROTOCOL_F_REPLY_ACK);
	if (!v) {
		errno = ENOTSUP;
		fair_die("no REPLY_ACK");
	}
	fair_msg(fe, VUM_SET_PROTOCOL_FEATURES, &v, 8, -1, false);
	fair_msg(fe, VUM_SET_OWNER, NULL, 0, -1, true);
	v = (1ULL << 32) | (1ULL << VUM_F_PROTOCOL_FEATURES);
	fair_msg(fe, VUM_SET_FEATURES, &v, 8, -1, true);
	memset(&mem, 0, sizeof(mem));
	mem.nregions = 1;
	mem.regions[0].size = FAIR_MEM;
	mem.regions[0].user_addr = (uint64_t)(uintptr_t)fe->mem;
	fair_msg(fe, VUM_SET_MEM_TABLE, &mem, VUM_SIZE_MEM(1), memfd, true);
	close(memfd);
	for (r = 0; r < 2; r++) {
		struct vhost_user_msg_vring_state num = { .index = (uint32_t)r, .num = fe->ring[r].num };
		struct vhost_user_msg_vring_state base = { .index = (uint32_t)r };
		struct vhost_user_msg_vring_state on = { .index = (uint32_t)r, .num = 1 };
		struct vhost_user_msg_vring_addr a = {
			.index = (uint32_t)r,
			.desc = (uint64_t)(uintptr_t)fe->ring[r].vr.desc,
			.avail = (uint64_t)(uintptr_t)fe->ring[r].vr.avail,
			.used = (uint64_t)(uintptr_t)fe->ring[r].vr.used,
		};

		fair_msg(fe, VUM_SET_VRING_NUM, &num, sizeof(num), -1, true);
		fair_msg(fe, VUM_SET_VRING_BASE, &base, sizeof(base), -1, true);
		fair_msg(fe, VUM_SET_VRING_ADDR, &a, sizeof(a), -1, true);
		v = (uint64_t)r;
		fair_msg(fe, VUM_SET_VRING_KICK, &v, 8, fe->kick[r], true);
		fair_msg(fe, VUM_SET_VRING_CALL, &v, 8, fe->call[r], true);
		fair_msg(fe, VUM_SET_VRING_ENABLE, &on, sizeof(on), -1, true);
	}
}

/**
 * fair_frame() - write a 60-byte broadcast frame (EtherType 0x88b5) with its header
 * @fe: the connection
 * @slot: buffer slot
 * @seq: sequence number for the payload
 *
 * Return: the chain's segment (guest-physical address).
 */
static struct iovec fair_frame(struct fair_fe *fe, unsigned int slot, uint32_t seq)
{
	uint8_t *f = fe->mem + FAIR_BUF + slot * 128u;

	memset(f, 0, FAIR_HDR + FAIR_FRAME);
	memset(f + FAIR_HDR, 0xff, 6);
	memcpy(f + FAIR_HDR + 6, "\x52\x54\x00\x99\x99\x98\x88\xb5", 8);
	memcpy(f + FAIR_HDR + 14, &seq, sizeof(seq));
	return (struct iovec){ (void *)(uintptr_t)(FAIR_BUF + slot * 128u), FAIR_HDR + FAIR_FRAME };
}

/**
 * fair_kick() - publish the tx ring and kick when the device asks for it
 * @fe: the connection
 */
static void fair_kick(struct fair_fe *fe)
{
	uint64_t v = 1;

	vringfd_ring_publish(&fe->ring[1]);
	if (vringfd_ring_need_kick(&fe->ring[1]) && write(fe->kick[1], &v, 8) != 8)
		fair_die("kick");
}

/**
 * fair_refill() - take back the flood's completed chains and post them again
 * @fe: the flooding connection
 * @seg: the one frame every flood chain sends
 */
static void fair_refill(struct fair_fe *fe, const struct iovec *seg)
{
	uint64_t v;

	while (read(fe->call[1], &v, 8) == 8)
		;
	while (vringfd_ring_get_used(&fe->ring[1], NULL))
		;
	while (fe->ring[1].num_free > 0)
		if (vringfd_ring_add(&fe->ring[1], seg, 1, NULL, 0, (void *)1) < 0)
			fair_die("posting a flood chain");
	fair_kick(fe);
}

/**
 * fair_used() - the device's used->idx of a tx ring
 * @fe: the connection
 *
 * Return: the index (little-endian in the ring; this runs on x86).
 */
static uint16_t fair_used(const struct fair_fe *fe)
{
	return __atomic_load_n(&fe->ring[1].vr.used->idx, __ATOMIC_ACQUIRE);
}

/**
 * fair_cmp() - qsort() order of two counts
 * @a: one
 * @b: the other
 *
 * Return: <0, 0, >0.
 */
static int fair_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/**
 * main() - flood one port, send COUNT frames one at a time on the other
 * @argc: 4
 * @argv: program, flood socket, light socket, count
 *
 * Return: 0 when every light frame completed.
 */
int main(int argc, char **argv)
{
	static struct fair_fe flood, light;
	unsigned long count, i, completed = 0, max_between = 0, served = 0;
	struct iovec flood_seg;
	unsigned long *between;

	if (argc != 4) {
		fprintf(stderr, "usage: %s FLOOD_SOCKET LIGHT_SOCKET COUNT\n", argv[0]);
		return 2;
	}
	count = strtoul(argv[3], NULL, 0);
	between = calloc(count ? count : 1, sizeof(*between));
	if (!between)
		fair_die("calloc");
	fair_connect(&flood, argv[1], FAIR_FLOOD_NUM);
	fair_connect(&light, argv[2], FAIR_LIGHT_NUM);
	flood_seg = fair_frame(&flood, 0, 0xffffffffu);
	fair_refill(&flood, &flood_seg);
	for (i = 0; i < count; i++) {
		struct iovec seg = fair_frame(&light, (unsigned int)(i % FAIR_LIGHT_NUM), (uint32_t)i);
		uint16_t before, after, seen;
		unsigned long spins = 0;
		bool done = false;

		fair_refill(&flood, &flood_seg);
		if (vringfd_ring_add(&light.ring[1], &seg, 1, NULL, 0, (void *)1) < 0)
			fair_die("posting a light frame");
		fair_kick(&light);
		before = seen = after = fair_used(&flood);
		/* spin, no sleep: the flood's index is read right before each
		 * look at the light frame, so what the daemon serves after the
		 * light frame completed is not counted (unless this process is
		 * preempted just then: that only overcounts) */
		while (!done && ++spins < FAIR_SPINS) {
			uint16_t now = fair_used(&flood);

			after = now;
			done = vringfd_ring_get_used(&light.ring[1], NULL) != NULL;
			if (!done && now != seen) {
				fair_refill(&flood, &flood_seg);
				seen = now;
			}
		}
		if (!done)
			break;
		between[completed++] = (uint16_t)(after - before);
		served += (uint16_t)(after - before);
		if ((uint16_t)(after - before) > max_between)
			max_between = (uint16_t)(after - before);
	}
	qsort(between, completed, sizeof(between[0]), fair_cmp);
	printf("light sent %lu completed %lu flood served %lu median-between %lu max-between %lu\n",
	       completed < count ? completed + 1 : count, completed, served,
	       completed ? between[completed / 2] : 0, max_between);
	return completed == count ? 0 : 1;
}
