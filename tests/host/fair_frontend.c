// SPDX-License-Identifier: GPL-2.0
/*
 * fair_frontend.c - two vhost-user front-ends in one process: one floods,
 * one sends a frame at a time, and the flood's share is counted
 *
 * Usage: fair_frontend FLOOD_SOCKET LIGHT_SOCKET COUNT
 *        fair_frontend --hold DIR N LAST_SOCKET
 *
 * Connects to two vringnetd vhost-user ports (the handshake of
 * tests/host/vu_frontend: VERSION_1, REPLY_ACK, one memfd region).  The
 * flooding front-end has a tx ring of FAIR_FLOOD_NUM entries and keeps it
 * full the whole time: every completed chain is posted again at once (60-byte
 * broadcast frames, EtherType 0x88b5, each with its posting number).  The
 * light one sends COUNT frames one at a time (the frame's sequence number
 * in its payload) and waits for each to reach its tap.
 *
 * The measure is taken in the daemon's own order: a packet socket on every
 * interface of the network namespace (run it with ip netns exec) sees the
 * frames of both taps in the order the daemon wrote them.  For each light
 * frame: the flood frames completed before its kick (the flood's used->idx,
 * read just before the kick) and the last flood frame written before it on
 * the taps give the flood frames the daemon served while the light frame
 * waited.  No clock is involved, and how late this process looks does not
 * change the count.  A light frame whose kick fell while the flood's used
 * index moved (read just before and just after the kick: they differ) is
 * not measured ("unsure"), since where the kick fell is not known then.
 *
 * Prints "light sent N completed N measured N unsure N flood served F
 * median-between D max-between M capture-drops X" and exits 0 when every light frame
 * reached its tap and completed (within FAIR_SPINS looks each, against a
 * hang), 1 otherwise; the suite judges M against the daemon's budget (a
 * capture that dropped frames makes M a guess: X says so).
 *
 * With FAIR_SPACER=SOCKET in the environment a third front-end connects
 * to SOCKET after the flooding one and before the light one, and sits
 * idle (its queue pair runs, nothing is sent).  With [daemon] workers = 2
 * the daemon puts a pair that starts on the worker with the fewest pairs,
 * the tie going to the one after the last picked: flood, spacer, light
 * then land on workers A, B, A, so the flooding and the light pair share
 * one worker (the suite checks where they ran in the daemon's log).
 *
 * With --hold it is one client that holds many ports: it connects to
 * DIR/hold0.sock .. DIR/hold<N-1>.sock and gives each a memory table of
 * eight regions (the daemon registers each mapping with its fault guard),
 * keeps them all open, then connects to LAST_SOCKET, whose SET_MEM_TABLE
 * must still be accepted.  Prints "held N connections ..." and exits 0, or
 * exits 1 naming the refused request.  With FAIR_HOLD_UNTIL=FILE it then
 * keeps every connection until FILE exists (at most FAIR_HOLD_MAX_S
 * seconds, against a lost suite), so that other clients can be tried
 * while the daemon holds the mappings.
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
#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include "vhost_user_msg.h"
#include "vringfd.h"

#define FAIR_MEM		(1u << 20)
#define FAIR_FLOOD_NUM		2048u	/* 8 budgets of the daemon (ENGINE_WEIGHT_FRAMES) */
#define FAIR_LIGHT_NUM		256u
#define FAIR_HDR		12u
#define FAIR_FRAME		60u
#define FAIR_RING(r)		(0x1000u + (r) * 0x20000u)	/* desc; avail +0x8000; used +0xa000 */
#define FAIR_BUF		0x50000u	/* frame buffers: 128 bytes each */
#define FAIR_FLOOD_SEQ		0x80000000u	/* flood frames' sequence numbers have it */
#define FAIR_CAP_BLOCK		(1u << 22)	/* capture ring: 16 blocks of 4 MiB */
#define FAIR_CAP_BLOCKS		16u
#define FAIR_CAP_FRAME		256u
#define FAIR_SPINS		4000000000ul	/* looks per light frame, against a hang */
#define FAIR_HOLD_MAX_S		300u	/* FAIR_HOLD_UNTIL: give up after this */

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
 * @fds: fds to attach (one SCM_RIGHTS message)
 * @nfds: how many (0..8)
 * @ack: ask for REPLY_ACK (false before it is negotiated: no reply read
 *	for a SET, or a GET, whose u64 reply is returned)
 *
 * Return: the reply's u64 (GET) or 0; dies on a refused request.
 */
static uint64_t fair_msg(struct fair_fe *fe, uint32_t req, const void *payload, uint32_t size,
			 const int *fds, unsigned int nfds, bool ack)
{
	struct vhost_user_msg_hdr h = { .request = req, .flags = VUM_VERSION, .size = size };
	char ctl[CMSG_SPACE(VUM_MAX_FDS * sizeof(int))];
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)payload, size } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = size ? 2 : 1 };
	bool get = req == VUM_GET_FEATURES || req == VUM_GET_PROTOCOL_FEATURES;
	uint64_t v = 0;

	if (ack)
		h.flags |= VUM_FLAG_NEED_REPLY;
	if (nfds) {
		struct cmsghdr *c;

		memset(ctl, 0, sizeof(ctl));
		mh.msg_control = ctl;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
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
 * fair_handshake() - connect and negotiate up to SET_FEATURES (REPLY_ACK on)
 * @fe: the connection (@fe->sock set)
 * @path: the port's socket
 */
static void fair_handshake(struct fair_fe *fe, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint64_t v;

	fe->sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fe->sock < 0 || connect(fe->sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		fair_die(path);
	fair_msg(fe, VUM_GET_FEATURES, NULL, 0, NULL, 0, false);
	v = fair_msg(fe, VUM_GET_PROTOCOL_FEATURES, NULL, 0, NULL, 0, false) &
	    (1ULL << VUM_PROTOCOL_F_REPLY_ACK);
	if (!v) {
		errno = ENOTSUP;
		fair_die("no REPLY_ACK");
	}
	fair_msg(fe, VUM_SET_PROTOCOL_FEATURES, &v, 8, NULL, 0, false);
	fair_msg(fe, VUM_SET_OWNER, NULL, 0, NULL, 0, true);
	v = (1ULL << 32) | (1ULL << VUM_F_PROTOCOL_FEATURES);
	fair_msg(fe, VUM_SET_FEATURES, &v, 8, NULL, 0, true);
}

/**
 * fair_hold() - many connections with eight memory regions each, then one more
 * @dir: where the sockets are: DIR/hold0.sock .. DIR/hold<N-1>.sock
 * @n: how many to hold
 * @last: the socket whose SET_MEM_TABLE must still succeed
 * @until: keep the connections until this file exists, or NULL
 *
 * Every region is a 128 KiB slice of one sealed memfd.  Dies (exit 1) when
 * a SET_MEM_TABLE is refused.
 * Return: 0.
 */
static int fair_hold(const char *dir, unsigned long n, const char *last, const char *until)
{
	struct vhost_user_msg_mem mem;
	int memfd, fds[VUM_MAX_REGIONS];
	unsigned long k;
	unsigned int i;
	uint8_t *p;

	memfd = memfd_create("fair-hold", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (memfd < 0 || ftruncate(memfd, FAIR_MEM) < 0 ||
	    fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0)
		fair_die("memfd");
	p = mmap(NULL, FAIR_MEM, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (p == MAP_FAILED)
		fair_die("mmap");
	memset(&mem, 0, sizeof(mem));
	for (i = 0; i < VUM_MAX_REGIONS; i++) {
		mem.regions[i].guest_addr = (uint64_t)i * (FAIR_MEM / VUM_MAX_REGIONS);
		mem.regions[i].size = FAIR_MEM / VUM_MAX_REGIONS;
		mem.regions[i].user_addr = (uint64_t)(uintptr_t)p + mem.regions[i].guest_addr;
		mem.regions[i].mmap_offset = mem.regions[i].guest_addr;
		fds[i] = memfd;
	}
	for (k = 0; k <= n; k++) {
		struct fair_fe fe;
		char path[108];

		if (k < n)
			snprintf(path, sizeof(path), "%s/hold%lu.sock", dir, k);
		else
			snprintf(path, sizeof(path), "%s", last);
		mem.nregions = k < n ? VUM_MAX_REGIONS : 1;
		fair_handshake(&fe, path);
		fair_msg(&fe, VUM_SET_MEM_TABLE, &mem, VUM_SIZE_MEM(mem.nregions), fds,
			 mem.nregions, true);
	}
	printf("held %lu connections with %u regions each; SET_MEM_TABLE on %s accepted\n",
	       n, VUM_MAX_REGIONS, last);
	fflush(stdout);
	if (until) {
		for (k = 0; k < 10 * FAIR_HOLD_MAX_S && access(until, F_OK) < 0; k++)
			usleep(100000);
		printf("%s: released\n", access(until, F_OK) == 0 ? until : "timed out");
	}
	return 0;
}

/**
 * fair_connect() - memory, rings and the vhost-user handshake
 * @fe: the connection (filled in)
 * @path: the port's socket
 * @txnum: entries of the tx ring (the rx ring has FAIR_LIGHT_NUM, none posted)
 */
static void fair_connect(struct fair_fe *fe, const char *path, unsigned int txnum)
{
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
	fair_handshake(fe, path);
	memset(&mem, 0, sizeof(mem));
	mem.nregions = 1;
	mem.regions[0].size = FAIR_MEM;
	mem.regions[0].user_addr = (uint64_t)(uintptr_t)fe->mem;
	fair_msg(fe, VUM_SET_MEM_TABLE, &mem, VUM_SIZE_MEM(1), &memfd, 1, true);
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

		fair_msg(fe, VUM_SET_VRING_NUM, &num, sizeof(num), NULL, 0, true);
		fair_msg(fe, VUM_SET_VRING_BASE, &base, sizeof(base), NULL, 0, true);
		fair_msg(fe, VUM_SET_VRING_ADDR, &a, sizeof(a), NULL, 0, true);
		v = (uint64_t)r;
		fair_msg(fe, VUM_SET_VRING_KICK, &v, 8, &fe->kick[r], 1, true);
		fair_msg(fe, VUM_SET_VRING_CALL, &v, 8, &fe->call[r], 1, true);
		fair_msg(fe, VUM_SET_VRING_ENABLE, &on, sizeof(on), NULL, 0, true);
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
 * @posted: flood chains posted so far (in and out); each new chain's frame
 *	carries FAIR_FLOOD_SEQ | its number
 *
 * The daemon consumes and completes chains in posting order, so slot
 * @posted % FAIR_FLOOD_NUM is free whenever the ring has room.
 */
static void fair_refill(struct fair_fe *fe, uint32_t *posted)
{
	uint64_t v;

	while (read(fe->call[1], &v, 8) == 8)
		;
	while (vringfd_ring_get_used(&fe->ring[1], NULL))
		;
	while (fe->ring[1].num_free > 0) {
		struct iovec seg = fair_frame(fe, *posted % FAIR_FLOOD_NUM,
					      FAIR_FLOOD_SEQ | (*posted & ~FAIR_FLOOD_SEQ));

		if (vringfd_ring_add(&fe->ring[1], &seg, 1, NULL, 0, (void *)1) < 0)
			fair_die("posting a flood chain");
		(*posted)++;
	}
	fair_kick(fe);
}

/**
 * struct fair_cap - the taps' frames in the order the daemon wrote them
 * @fd: packet socket on every interface of the namespace (0x88b5 only)
 * @ring: its PACKET_RX_RING (TPACKET_V2)
 * @nframes: slots in @ring
 * @next: the next slot to look at
 * @last_flood: sequence number of the last flood frame seen, + 1 (0: none)
 *
 * A frame the daemon writes to a tap reaches packet sockets before the
 * write() returns, so the capture's order is the daemon's.
 */
struct fair_cap {
	int fd;
	uint8_t *ring;
	unsigned int nframes;
	unsigned int next;
	uint32_t last_flood;
};

/**
 * fair_cap_open() - a packet socket with a mapped ring, filtered to 0x88b5
 * @c: the capture (filled in)
 */
static void fair_cap_open(struct fair_cap *c)
{
	struct sock_filter code[] = {
		{ 0x28, 0, 0, 12 },		/* ldh [12] */
		{ 0x15, 0, 1, 0x88b5 },		/* jeq #0x88b5, accept, drop */
		{ 0x06, 0, 0, 0x40000 },	/* ret #0x40000 */
		{ 0x06, 0, 0, 0 },		/* ret #0 */
	};
	struct sock_fprog prog = { .len = 4, .filter = code };
	struct tpacket_req req = {
		.tp_block_size = FAIR_CAP_BLOCK, .tp_block_nr = FAIR_CAP_BLOCKS,
		.tp_frame_size = FAIR_CAP_FRAME,
		.tp_frame_nr = FAIR_CAP_BLOCK / FAIR_CAP_FRAME * FAIR_CAP_BLOCKS,
	};
	int v = TPACKET_V2;

	memset(c, 0, sizeof(*c));
	c->fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (c->fd < 0 ||
	    setsockopt(c->fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0 ||
	    setsockopt(c->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) < 0 ||
	    setsockopt(c->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) < 0)
		fair_die("packet socket");
	c->ring = mmap(NULL, (size_t)FAIR_CAP_BLOCK * FAIR_CAP_BLOCKS, PROT_READ | PROT_WRITE,
		       MAP_SHARED, c->fd, 0);
	if (c->ring == MAP_FAILED)
		fair_die("packet ring");
	c->nframes = req.tp_frame_nr;
}

/**
 * fair_cap_until_light() - walk the capture up to light frame @seq
 * @c: the capture
 * @seq: the light frame's sequence number
 *
 * Return: true when it was seen (@c->last_flood then says how many flood
 * frames the daemon had written before it), false when not yet.
 */
static bool fair_cap_until_light(struct fair_cap *c, uint32_t seq)
{
	for (;;) {
		struct tpacket2_hdr *h = (void *)(c->ring + (size_t)c->next * FAIR_CAP_FRAME);
		uint32_t got;

		if (!(__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER))
			return false;
		memcpy(&got, (uint8_t *)h + h->tp_mac + 14, sizeof(got));
		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		c->next = (c->next + 1) % c->nframes;
		if (got & FAIR_FLOOD_SEQ)
			c->last_flood = (got & ~FAIR_FLOOD_SEQ) + 1;
		else if (got == seq)
			return true;
	}
}

/**
 * fair_cap_drops() - frames the capture lost (its ring was full)
 * @c: the capture
 *
 * Return: the count since the last call.
 */
static unsigned int fair_cap_drops(const struct fair_cap *c)
{
	struct tpacket_stats st = { 0 };
	socklen_t len = sizeof(st);

	if (getsockopt(c->fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) < 0)
		fair_die("PACKET_STATISTICS");
	return st.tp_drops;
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
	static struct fair_fe flood, light, spacer;
	unsigned long count, i, completed = 0, max_between = 0, served = 0;
	unsigned long measured = 0, ambiguous = 0;
	unsigned long *between;
	struct fair_cap cap;
	uint32_t posted = 0;
	unsigned int drops;

	if (argc == 5 && !strcmp(argv[1], "--hold"))
		return fair_hold(argv[2], strtoul(argv[3], NULL, 0), argv[4], getenv("FAIR_HOLD_UNTIL"));
	if (argc != 4) {
		fprintf(stderr, "usage: %s FLOOD_SOCKET LIGHT_SOCKET COUNT\n"
			"       %s --hold DIR N LAST_SOCKET\n", argv[0], argv[0]);
		return 2;
	}
	count = strtoul(argv[3], NULL, 0);
	between = calloc(count ? count : 1, sizeof(*between));
	if (!between)
		fair_die("calloc");
	fair_cap_open(&cap);
	fair_connect(&flood, argv[1], FAIR_FLOOD_NUM);
	if (getenv("FAIR_SPACER"))
		fair_connect(&spacer, getenv("FAIR_SPACER"), FAIR_LIGHT_NUM);
	fair_connect(&light, argv[2], FAIR_LIGHT_NUM);
	fair_refill(&flood, &posted);
	for (i = 0; i < count; i++) {
		struct iovec seg = fair_frame(&light, (unsigned int)(i % FAIR_LIGHT_NUM), (uint32_t)i);
		uint32_t before, n;
		unsigned long spins = 0;
		uint16_t seen;
		bool done = false, unsure;

		fair_refill(&flood, &posted);
		if (vringfd_ring_add(&light.ring[1], &seg, 1, NULL, 0, (void *)1) < 0)
			fair_die("posting a light frame");
		/* flood frames completed before the kick: read before and
		 * after it; when they differ (a flood service ended meanwhile,
		 * or this process was preempted there) where the kick fell in
		 * the flood's stream is not known: the frame is not counted */
		seen = fair_used(&flood);
		before = posted - (uint16_t)((uint16_t)posted - seen);
		fair_kick(&light);
		unsure = fair_used(&flood) != seen;
		while (!done && ++spins < FAIR_SPINS) {
			uint16_t now = fair_used(&flood);

			done = fair_cap_until_light(&cap, (uint32_t)i);
			if (!done && now != seen) {
				fair_refill(&flood, &posted);
				seen = now;
			}
		}
		if (!done)
			break;
		while (!vringfd_ring_get_used(&light.ring[1], NULL))
			;	/* it is on the tap: its completion follows */
		completed++;
		if (unsure) {
			ambiguous++;
			continue;
		}
		n = cap.last_flood > before ? cap.last_flood - before : 0;
		between[measured++] = n;
		served += n;
		if (n > max_between)
			max_between = n;
	}
	drops = fair_cap_drops(&cap);
	qsort(between, measured, sizeof(between[0]), fair_cmp);
	printf("light sent %lu completed %lu measured %lu unsure %lu flood served %lu median-between %lu max-between %lu capture-drops %u\n",
	       completed < count ? completed + 1 : count, completed, measured, ambiguous, served,
	       measured ? between[measured / 2] : 0, max_between, drops);
	return completed == count ? 0 : 1;
}
