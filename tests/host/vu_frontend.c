// SPDX-License-Identifier: GPL-2.0
/*
 * vu_frontend.c - a minimal vhost-user front-end (a "hypervisor") for tests
 *
 * Usage: vu_frontend SOCKET COUNT SIZE [RX_MIN]
 *
 * Connects to a vringnetd vhost-user port, plays QEMU's part of the
 * handshake (features VERSION_1, protocol features REPLY_ACK, one memory
 * region backed by a memfd, rings of 256 entries), then acts as the guest's
 * virtio-net driver with libvringfd's vringfd_ring_*: it sends COUNT frames
 * of SIZE bytes (broadcast, EtherType 0x88b5) on the tx ring, kicking the
 * kick eventfd and waiting for the used entries through the call eventfd,
 * while keeping rx buffers posted and counting the frames the daemon puts
 * there.  With RX_MIN it waits (up to 10 s) until that many were received.
 *
 * Descriptor addresses are guest-physical: offsets into the memfd (region
 * guest address 0); ring addresses are front-end virtual addresses, as with
 * QEMU.  Prints one line "sent N completed N received N (and N rx buffers
 * returned empty) tx S s" (S: seconds from the first frame queued to the
 * last one completed, for bench/daemon_bench) and exits 0 when
 * every frame was completed (and RX_MIN reached), 1 otherwise.
 *
 * With VU_FRONTEND_POLL_KICKS=1 in the environment both rings are set up
 * without kick fds (SET_VRING_KICK with the no-fd bit) and nothing is
 * kicked: the daemon must poll them.
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
#include <time.h>
#include <unistd.h>

#include "vhost_user_msg.h"
#include "vringfd.h"

#define FE_MEM		(4u << 20)
#define FE_NUM		256u
#define FE_HDR		12u
#define FE_RX_BUF	2048u
#define FE_RING(r)	(0x1000u + (r) * 0x4000u)	/* desc; avail +0x1000; used +0x2000 */
#define FE_TX_SLOT	4096u
#define FE_TX_BASE	0x20000u
#define FE_RX_BASE	(FE_TX_BASE + FE_NUM * FE_TX_SLOT)

static int fe_sock;
static uint8_t *fe_mem;

/**
 * fe_die() - print why and exit 1
 * @what: what failed
 */
static void __attribute__((noreturn)) fe_die(const char *what)
{
	fprintf(stderr, "vu_frontend: %s: %s\n", what, strerror(errno));
	exit(1);
}

/**
 * fe_msg() - send a request; with @ack, wait for its REPLY_ACK (status 0)
 * @req: request
 * @payload: payload
 * @size: size
 * @fd: fd to attach, or -1
 * @reply: where a GET reply's u64 goes (NULL for set requests)
 */
static void fe_msg(uint32_t req, const void *payload, uint32_t size, int fd, uint64_t *reply)
{
	struct vum_hdr h = { .request = req, .flags = VUM_VERSION, .size = size };
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)payload, size } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = size ? 2 : 1 };
	char what[32];
	uint64_t v;

	snprintf(what, sizeof(what), "request %u", req);
	if (!reply)
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
	if (sendmsg(fe_sock, &mh, MSG_NOSIGNAL) != (ssize_t)(sizeof(h) + size))
		fe_die(what);
	if (recv(fe_sock, &h, sizeof(h), MSG_WAITALL) != sizeof(h) || h.request != req ||
	    h.size != 8 || recv(fe_sock, &v, 8, MSG_WAITALL) != 8) {
		errno = EPROTO;
		fe_die(what);
	}
	if (reply) {
		*reply = v;
	} else if (v != 0) {
		errno = EINVAL;
		fe_die(what);
	}
}

/**
 * fe_state() - a ring-state request
 * @req: request
 * @index: ring
 * @num: value
 */
static void fe_state(uint32_t req, uint32_t index, uint32_t num)
{
	struct vum_vring_state s = { .index = index, .num = num };

	fe_msg(req, &s, sizeof(s), -1, NULL);
}

/**
 * fe_now() - monotonic seconds
 *
 * Return: seconds.
 */
static double fe_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/**
 * fe_post_rx() - post rx buffer @i
 * @rx: the rx ring
 * @i: buffer index
 */
static void fe_post_rx(struct vringfd_ring *rx, unsigned int i)
{
	struct iovec in = { .iov_base = (void *)(uintptr_t)(FE_RX_BASE + i * FE_RX_BUF),
			    .iov_len = FE_RX_BUF };

	if (vringfd_ring_add(rx, NULL, 0, &in, 1, (void *)(uintptr_t)(i + 1)) < 0) {
		errno = ENOSPC;
		fe_die("posting an rx buffer");
	}
}

/**
 * main() - handshake, then send and receive
 * @argc: 4 or 5
 * @argv: program, socket, count, size, [rx_min]
 *
 * Return: 0 on success.
 */
int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct vringfd_ring ring[2];	/* 0: rx, 1: tx */
	int kick[2], call[2], memfd, r;
	unsigned long count, size, rx_min = 0, sent = 0, done = 0, received = 0, empty = 0;
	struct vum_mem mem;
	uint64_t v;
	double deadline, t_start, t_end = 0;
	const char *pk = getenv("VU_FRONTEND_POLL_KICKS");
	bool poll_kicks = pk && !strcmp(pk, "1");
	unsigned int i;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: %s SOCKET COUNT SIZE [RX_MIN]\n", argv[0]);
		return 2;
	}
	count = strtoul(argv[2], NULL, 0);
	size = strtoul(argv[3], NULL, 0);
	if (argc == 5)
		rx_min = strtoul(argv[4], NULL, 0);
	if (size < 60 || size > FE_TX_SLOT - FE_HDR) {
		fprintf(stderr, "vu_frontend: SIZE must be 60..%u\n", FE_TX_SLOT - FE_HDR);
		return 2;
	}

	/* sealed against shrinking, as QEMU's memory-backend-memfd does */
	memfd = memfd_create("vu-frontend-guest", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (memfd < 0 || ftruncate(memfd, FE_MEM) < 0 ||
	    fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0)
		fe_die("memfd");
	fe_mem = mmap(NULL, FE_MEM, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (fe_mem == MAP_FAILED)
		fe_die("mmap");
	for (r = 0; r < 2; r++) {
		if (vringfd_ring_init_parts(&ring[r], FE_NUM, fe_mem + FE_RING(r),
					    fe_mem + FE_RING(r) + 0x1000,
					    fe_mem + FE_RING(r) + 0x2000, 0) < 0)
			fe_die("ring init");
		kick[r] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		call[r] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (kick[r] < 0 || call[r] < 0)
			fe_die("eventfd");
	}

	fe_sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[1]);
	if (fe_sock < 0 || connect(fe_sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		fe_die(argv[1]);

	fe_msg(VUM_GET_FEATURES, NULL, 0, -1, &v);
	if (!(v & (1ULL << 32)) || !(v & (1ULL << VUM_F_PROTOCOL_FEATURES))) {
		errno = ENOTSUP;
		fe_die("device features lack VERSION_1 or PROTOCOL_FEATURES");
	}
	fe_msg(VUM_GET_PROTOCOL_FEATURES, NULL, 0, -1, &v);
	v &= (1ULL << VUM_PROTOCOL_F_REPLY_ACK) | (1ULL << VUM_PROTOCOL_F_MQ);
	/* no ack possible before REPLY_ACK is on: send it plainly */
	{
		struct vum_hdr h = { .request = VUM_SET_PROTOCOL_FEATURES, .flags = VUM_VERSION,
				     .size = 8 };
		struct iovec iov[2] = { { &h, sizeof(h) }, { &v, 8 } };
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

		if (sendmsg(fe_sock, &mh, MSG_NOSIGNAL) != 20)
			fe_die("SET_PROTOCOL_FEATURES");
	}
	fe_msg(VUM_SET_OWNER, NULL, 0, -1, NULL);
	v = (1ULL << 32) | (1ULL << VUM_F_PROTOCOL_FEATURES);
	fe_msg(VUM_SET_FEATURES, &v, 8, -1, NULL);
	memset(&mem, 0, sizeof(mem));
	mem.nregions = 1;
	mem.regions[0].guest_addr = 0;
	mem.regions[0].size = FE_MEM;
	mem.regions[0].user_addr = (uint64_t)(uintptr_t)fe_mem;
	fe_msg(VUM_SET_MEM_TABLE, &mem, VUM_SIZE_MEM(1), memfd, NULL);
	for (r = 0; r < 2; r++) {
		struct vum_vring_addr a = {
			.index = (uint32_t)r,
			.desc = (uint64_t)(uintptr_t)(fe_mem + FE_RING(r)),
			.avail = (uint64_t)(uintptr_t)(fe_mem + FE_RING(r) + 0x1000),
			.used = (uint64_t)(uintptr_t)(fe_mem + FE_RING(r) + 0x2000),
		};

		fe_state(VUM_SET_VRING_NUM, (uint32_t)r, FE_NUM);
		fe_state(VUM_SET_VRING_BASE, (uint32_t)r, 0);
		fe_msg(VUM_SET_VRING_ADDR, &a, sizeof(a), -1, NULL);
		v = (uint64_t)r;
		if (poll_kicks) {
			v |= VUM_VRING_NOFD;
			fe_msg(VUM_SET_VRING_KICK, &v, 8, -1, NULL);
			v = (uint64_t)r;
		} else {
			fe_msg(VUM_SET_VRING_KICK, &v, 8, kick[r], NULL);
		}
		fe_msg(VUM_SET_VRING_CALL, &v, 8, call[r], NULL);
	}
	for (i = 0; i < FE_NUM; i++)
		fe_post_rx(&ring[0], i);
	vringfd_ring_publish(&ring[0]);
	fe_state(VUM_SET_VRING_ENABLE, 0, 1);
	fe_state(VUM_SET_VRING_ENABLE, 1, 1);

	t_start = fe_now();
	deadline = t_start + 10 + count / 1000.0;
	while ((done < count || received < rx_min) && fe_now() < deadline) {
		struct pollfd pf[2] = { { call[0], POLLIN, 0 }, { call[1], POLLIN, 0 } };
		bool added = false;
		uint32_t len;
		void *tok;

		while (sent < count && ring[1].num_free > 0) {
			unsigned int slot = sent % FE_NUM;
			uint8_t *f = fe_mem + FE_TX_BASE + slot * FE_TX_SLOT;
			struct iovec out = { .iov_base = (void *)(uintptr_t)(FE_TX_BASE + slot * FE_TX_SLOT),
					     .iov_len = FE_HDR + size };

			memset(f, 0, FE_HDR);
			memset(f + FE_HDR, 0xff, 6);
			memcpy(f + FE_HDR + 6, "\x52\x54\x00\x99\x99\x99\x88\xb5", 8);
			memset(f + FE_HDR + 14, (int)(sent & 0xff), size - 14);
			if (vringfd_ring_add(&ring[1], &out, 1, NULL, 0,
					     (void *)(uintptr_t)(slot + 1)) < 0)
				break;
			sent++;
			added = true;
		}
		if (added) {
			vringfd_ring_publish(&ring[1]);
			if (vringfd_ring_need_kick(&ring[1])) {
				v = 1;
				if (write(kick[1], &v, 8) != 8)
					fe_die("kick");
			}
		}
		poll(pf, 2, 100);
		for (r = 0; r < 2; r++)
			while (read(call[r], &v, 8) == 8)
				;
		while ((tok = vringfd_ring_get_used(&ring[1], NULL))) {
			done++;
			if (done == count)
				t_end = fe_now();
		}
		added = false;
		while ((tok = vringfd_ring_get_used(&ring[0], &len))) {
			if (len > FE_HDR)
				received++;
			else
				empty++;
			fe_post_rx(&ring[0], (unsigned int)((uintptr_t)tok - 1));
			added = true;
		}
		if (added) {
			vringfd_ring_publish(&ring[0]);
			v = 1;
			if (vringfd_ring_need_kick(&ring[0]) && write(kick[0], &v, 8) != 8)
				fe_die("rx kick");
		}
	}
	printf("sent %lu completed %lu received %lu (and %lu rx buffers returned empty) tx %.6f s\n",
	       sent, done, received, empty, (t_end > 0 ? t_end : fe_now()) - t_start);
	close(fe_sock);
	return done == count && received >= rx_min ? 0 : 1;
}
