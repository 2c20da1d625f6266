// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ringfd_shared_call.c - a ring-fd client whose two call fds are one eventfd
 *
 * Usage: ringfd_shared_call SOCKET SECONDS
 *
 * Sends a SETUP (one queue pair, 16-entry rings in a sealed memfd) whose
 * tx call and rx call fds are the same eventfd, passed twice in one
 * SCM_RIGHTS message: a client that waits on one fd for both directions.
 * The daemon then holds two fds of one open file.  For SECONDS it posts
 * one 60-byte broadcast frame (EtherType 0x88b5) every 10 ms on the tx
 * ring and kicks, collecting the used entries; then it waits up to 10 s
 * for the last ones.  The connection must stay open throughout (e.g.
 * across `systemctl restart vringnetd`, which keeps ring-fd clients in
 * systemd's fd store: systemd keeps one copy of an open file, so both
 * fds must come back under one name).
 *
 * Prints "N frames sent, M completed, connection kept|closed" and exits
 * 0 when the connection stayed open and every frame was completed, 1
 * otherwise, 2 on usage or set-up errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <vringfd.h>

#include "lib/ringfd_msg.h"

#define RSC_MEM		65536
#define RSC_NUM		16
#define RSC_BUF		4096	/* first frame buffer, one per descriptor */
#define RSC_FRAME	(12 + 60)

/**
 * struct rsc_msg - a one-queue-pair SETUP
 * @s: the fixed part
 * @qp: the queue pair
 */
struct rsc_msg {
	struct vringnet_rfd_setup s;
	struct vringnet_rfd_qp qp;
};

/**
 * rsc_now_ms() - monotonic milliseconds
 * Return: them.
 */
static long long rsc_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/**
 * rsc_closed() - whether the daemon closed the connection (no wait)
 * @s: the socket
 * Return: true when it did.
 */
static bool rsc_closed(int s)
{
	struct pollfd p = { .fd = s, .events = POLLIN };
	char b[8];

	if (poll(&p, 1, 0) != 1)
		return false;
	return (p.revents & (POLLHUP | POLLERR)) ||
	       recv(s, b, sizeof(b), MSG_DONTWAIT) == 0;
}

/**
 * main() - set up, send for SECONDS, judge
 * @argc: 3
 * @argv: SOCKET SECONDS
 * Return: 0, 1 or 2 (see the top of the file).
 */
int main(int argc, char **argv)
{
	static void *const token = (void *)1;
	unsigned long sent = 0, done = 0;
	struct vringfd_ring tx;
	struct rsc_msg m;
	long long end, stop;
	uint8_t *mem;
	uint64_t one = 1;
	char text[200] = "";
	int fds[5], s, secs, i, r;
	bool closed = false;

	if (argc != 3 || (secs = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: ringfd_shared_call SOCKET SECONDS\n");
		return 2;
	}
	memset(&m, 0, sizeof(m));
	m.s.hdr = (struct vringnet_rfd_hdr){ VRINGNET_RFD_MAGIC, VRINGNET_RFD_VERSION,
					     sizeof(m), VRINGNET_RFD_SETUP };
	m.s.nqp = 1;
	m.s.vnet_hdr_len = 12;
	m.qp.tx = (struct vringnet_rfd_ring){ RSC_NUM, 0, 0, 256, 512 };
	m.qp.rx = (struct vringnet_rfd_ring){ RSC_NUM, 0, 1024, 1280, 1536 };
	fds[0] = memfd_create("ringfd-shared-call", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fds[0] < 0 || ftruncate(fds[0], RSC_MEM) < 0 ||
	    fcntl(fds[0], F_ADD_SEALS, F_SEAL_SHRINK) < 0) {
		perror("ringfd_shared_call: memfd");
		return 2;
	}
	mem = mmap(NULL, RSC_MEM, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	fds[1] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);	/* tx kick */
	fds[2] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);	/* both calls */
	fds[3] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);	/* rx kick */
	fds[4] = fds[2];
	if (mem == MAP_FAILED || fds[1] < 0 || fds[2] < 0 || fds[3] < 0 ||
	    vringfd_ring_init_parts(&tx, RSC_NUM, mem + m.qp.tx.desc, mem + m.qp.tx.avail,
				    mem + m.qp.tx.used, 0) < 0) {
		perror("ringfd_shared_call: set-up");
		return 2;
	}
	for (i = 0; i < RSC_NUM; i++) {
		uint8_t *f = mem + RSC_BUF + i * 128;

		memset(f, 0, RSC_FRAME);
		memset(f + 12, 0xff, 6);	/* broadcast */
		f[12 + 12] = 0x88;		/* local experimental EtherType */
		f[12 + 13] = 0xb5;
	}
	s = ringfd_msg_send(argv[1], &m, sizeof(m), fds, 5);
	if (s < 0) {
		fprintf(stderr, "ringfd_shared_call: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	r = ringfd_msg_reply(s, text, sizeof(text));
	if (r) {
		fprintf(stderr, "ringfd_shared_call: SETUP %s: %s (%s)\n",
			r < 0 ? "not answered" : "refused", r < 0 ? "-" : strerror(r), text);
		return 2;
	}
	end = rsc_now_ms() + (long long)secs * 1000;
	stop = end + 10000;
	while (!closed && (rsc_now_ms() < end || (done < sent && rsc_now_ms() < stop))) {
		uint64_t v;

		while (vringfd_ring_get_used(&tx, NULL))
			done++;
		if (read(fds[2], &v, sizeof(v)) < 0 && errno != EAGAIN)
			break;
		if (rsc_now_ms() < end && sent - done < RSC_NUM) {
			/* descriptors are memfd offsets; one buffer per slot */
			struct iovec f = {
				.iov_base = (void *)(uintptr_t)(RSC_BUF + (sent % RSC_NUM) * 128),
				.iov_len = RSC_FRAME,
			};

			if (vringfd_ring_add(&tx, &f, 1, NULL, 0, token) < 0) {
				fprintf(stderr, "ringfd_shared_call: vringfd_ring_add failed\n");
				break;
			}
			vringfd_ring_publish(&tx);
			sent++;
			if (write(fds[1], &one, sizeof(one)) != sizeof(one))
				break;
		}
		closed = rsc_closed(s);
		usleep(10000);
	}
	while (vringfd_ring_get_used(&tx, NULL))
		done++;
	closed = closed || rsc_closed(s);
	printf("%lu frames sent, %lu completed, connection %s\n", sent, done,
	       closed ? "closed" : "kept");
	vringfd_ring_fini(&tx);
	close(s);
	return !closed && sent && done == sent ? 0 : 1;
}
