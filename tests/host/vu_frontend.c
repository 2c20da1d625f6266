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
 * With VU_FRONTEND_QP=N (0..15, default 0) it sets up and drives queue pair
 * N (vrings 2N and 2N + 1) instead of the first one; the daemon's tap must
 * have more than N queues (MQ is negotiated when offered).
 *
 * With VU_FRONTEND_POLL_KICKS=1 in the environment both rings are set up
 * without kick fds (SET_VRING_KICK with the no-fd bit) and nothing is
 * kicked: the daemon must poll them.
 *
 * With VU_FRONTEND_PAUSE=SEC it plays a VM started paused: after the
 * handshake QEMU does at start (features, protocol features, SET_OWNER,
 * SET_FEATURES) it waits SEC seconds before the guest's driver would set up
 * memory and rings, then checks the connection still answers (GET_FEATURES)
 * and goes on as usual.
 *
 * With VU_FRONTEND_UNTIL=FILE it sends frames until FILE exists (COUNT is
 * ignored), then waits for those sent to complete; the line says how many.
 *
 * With VU_FRONTEND_CHECK_BASE=1, after the last frame it stops both rings
 * with GET_VRING_BASE and checks the positions the daemon answers: the tx
 * ring's must be the frames sent, the rx ring's the rx buffers the device
 * used (those returned before, and any it used before it stopped); prints
 * "vring base tx T rx R (want T' R')" and exits 1 when they differ.
 *
 * With VU_FRONTEND_SWAP_CALL=1, once half the frames are completed it gives
 * both rings new call eventfds (SET_VRING_CALL while the queues run, as
 * QEMU does when a guest masks or moves an MSI-X vector) and closes the
 * old ones; at the end it prints "SWAP-CALL-OK: N signals on the new call
 * fds", or "SWAP-CALL-FAIL: ..." and exits 1 when none was signalled.
 *
 * With VU_FRONTEND_CHECK_END=1, after the last frame it checks the
 * connection still answers (GET_FEATURES; it dies if the socket closed),
 * and prints "connection kept: ..." (a daemon upgrade under the stream).
 *
 * With VU_FRONTEND_LISTEN=1 it is the server, as QEMU with "-chardev
 * socket,server=on" for a client-mode port (connect = SOCKET): it listens
 * at SOCKET, waits up to 20 s for the daemon to connect and plays the
 * same front-end on that connection.  The listener stays open: at the end
 * it prints "server: 1 connection accepted, N more made" (the connections
 * that wait in its backlog) and exits 1 when N is not 0.
 *
 * VU_FRONTEND_MEM picks the guest memory (the region's fd):
 *   memfd-sealed (default)  memfd sealed against shrinking and growing
 *   memfd                   memfd without MFD_ALLOW_SEALING (F_SEAL_SEAL)
 *   hugetlb-memfd           MFD_HUGETLB memfd, sealed like the default
 *   file:PATH               PATH created (tmpfs, hugetlbfs or disk), unlinked
 *                           once mapped
 *
 * With VU_FRONTEND_MIGRATE=1 it plays a migration's source: COUNT frames,
 * then dirty logging on (LOG_SHMFD negotiated, SET_LOG_BASE, SET_FEATURES
 * with VHOST_F_LOG_ALL, SET_VRING_ADDR with VHOST_VRING_F_LOG for the tx
 * ring), COUNT frames, logging off, a check of the log: the tx used ring's
 * page marked when the device used tx entries under logging, and no other
 * page when it used no rx buffer then; the log is cleared, COUNT frames,
 * and a check that nothing was marked after logging ended: 3 x COUNT in
 * all.  Prints "MIGRATE-OK: ..." after the log check, or "MIGRATE-FAIL:
 * ..." and exits 1.  With VU_FRONTEND_MIGRATE=busy the same, but logging
 * is switched on and off as soon as a phase's frames are queued, not
 * completed: the switches fall while the device has frames in flight.
 *
 * VU_FRONTEND_EVIL makes it a hostile front-end (exit 0 when the daemon
 * reacts as it must, 1 otherwise):
 *   truncate    after the COUNT frames went through, queue more without
 *               kicking, truncate the memory file to 0, then kick: the
 *               daemon must close the connection (it faults on the rings)
 *   punch       hugetlb memory only: the same, but punch the huge pages out
 *               (FALLOC_FL_PUNCH_HOLE) and take every free huge page of the
 *               pool first, so the daemon's next touch has no page
 *   log-truncate  migration: negotiate LOG_SHMFD, hand over a dirty log
 *               (SET_LOG_BASE), turn logging on (SET_FEATURES with
 *               VHOST_F_LOG_ALL, SET_VRING_ADDR with VHOST_VRING_F_LOG for
 *               the tx ring), queue a frame, truncate the log file to 0,
 *               kick: the daemon faults marking the tx used ring and must
 *               close the connection
 *   exhausted   hugetlb memory only: map it MAP_NORESERVE, take every free
 *               huge page, then SET_MEM_TABLE: it must be refused (the
 *               daemon reserves its mapping), the connection stays usable
 *               for nothing else and is closed by the daemon
 * Prints "EVIL-OK: ..." or "EVIL-FAIL: ...".  With VU_FRONTEND_ATTACK_WHEN=
 * FILE, truncate, punch and log-truncate wait (after the COUNT frames, the
 * line "attack: waiting for FILE" printed) until FILE exists, so that a
 * suite can change the daemon's state between the set-up and the attack.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
#include <linux/falloc.h>

#include "lib/peer_server.h"
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
#define FE_ATTACK_WAIT_S 300u	/* VU_FRONTEND_ATTACK_WHEN: give up after this */

static int fe_sock;
static uint8_t *fe_mem;
static bool fe_ack_fail_ok;	/* "exhausted": a refused SET_MEM_TABLE is expected */
static bool fe_refused;		/* ... and it was */

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
	struct vhost_user_msg_hdr h = { .request = req, .flags = VUM_VERSION, .size = size };
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
	} else if (v != 0 && fe_ack_fail_ok) {
		fe_refused = true;
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
	struct vhost_user_msg_vring_state s = { .index = index, .num = num };

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
 * fe_make_mem() - create the guest memory and map it here
 * @kind: VU_FRONTEND_MEM
 * @evil: VU_FRONTEND_EVIL ("exhausted": map with MAP_NORESERVE)
 *
 * Return: the fd (fe_mem is set).
 */
static int fe_make_mem(const char *kind, const char *evil)
{
	int fd, flags = MAP_SHARED;

	if (!strcmp(kind, "memfd-sealed") || !strcmp(kind, "hugetlb-memfd")) {
		/* sealed against shrinking, as QEMU's memory-backend-memfd does */
		fd = memfd_create("vu-frontend-guest", MFD_CLOEXEC | MFD_ALLOW_SEALING |
				  (kind[0] == 'h' ? MFD_HUGETLB : 0));
		if (fd < 0 || ftruncate(fd, FE_MEM) < 0 ||
		    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0)
			fe_die(kind);
	} else if (!strcmp(kind, "memfd")) {
		fd = memfd_create("vu-frontend-guest", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, FE_MEM) < 0)
			fe_die(kind);
	} else if (!strncmp(kind, "file:", 5)) {
		fd = open(kind + 5, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0 || ftruncate(fd, FE_MEM) < 0)
			fe_die(kind);
	} else {
		fprintf(stderr, "vu_frontend: VU_FRONTEND_MEM=%s unknown\n", kind);
		exit(2);
	}
	if (!strcmp(evil, "exhausted"))
		flags |= MAP_NORESERVE;
	fe_mem = mmap(NULL, FE_MEM, PROT_READ | PROT_WRITE, flags, fd, 0);
	if (fe_mem == MAP_FAILED)
		fe_die("mmap");
	if (!strncmp(kind, "file:", 5))
		unlink(kind + 5);
	return fd;
}

/**
 * fe_grab_free_hugepages() - take every free huge page of the pool (kept until exit)
 *
 * One page at a time until the kernel has none left: the machine may have
 * other users of the pool, so a count read from /proc/meminfo can be stale
 * by the time it is used.
 */
static void fe_grab_free_hugepages(void)
{
	unsigned long n = 0, psize = 2048;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		fe_die("/proc/meminfo");
	while (fgets(line, sizeof(line), f))
		sscanf(line, "Hugepagesize: %lu kB", &psize);
	fclose(f);
	while (mmap(NULL, psize * 1024, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE, -1, 0) != MAP_FAILED)
		n++;
	printf("took %lu free huge pages\n", n);
}

/**
 * fe_closed_by_daemon() - wait up to 10 s for the daemon to close the socket
 *
 * Return: true when it did.
 */
static bool fe_closed_by_daemon(void)
{
	struct pollfd pf = { fe_sock, POLLIN, 0 };
	char b;

	if (poll(&pf, 1, 10000) <= 0)
		return false;
	return recv(fe_sock, &b, 1, MSG_DONTWAIT) <= 0;
}

/**
 * fe_expect_refused() - "exhausted": SET_MEM_TABLE must have been refused
 *
 * Return: exit status.
 */
static int fe_expect_refused(void)
{
	if (!fe_refused) {
		printf("EVIL-FAIL: SET_MEM_TABLE of unreservable hugetlb memory was accepted\n");
		return 1;
	}
	if (!fe_closed_by_daemon()) {
		printf("EVIL-FAIL: SET_MEM_TABLE refused but the connection stayed open\n");
		return 1;
	}
	printf("EVIL-OK: SET_MEM_TABLE refused (REPLY_ACK 1), connection closed\n");
	return 0;
}

/**
 * fe_used_idx() - a ring's used index, as the device last published it
 * @r: 0 for the rx ring, 1 for the tx ring
 *
 * Return: used->idx.
 */
static uint16_t fe_used_idx(unsigned int r)
{
	return __atomic_load_n((uint16_t *)(fe_mem + FE_RING(r) + 0x2000 + 2), __ATOMIC_ACQUIRE);
}

/**
 * fe_log_on() - hand over a dirty log and turn logging on for the tx ring
 *
 * Return: the log's memfd.
 */
static int fe_log_on(void)
{
	struct vhost_user_msg_log lg = { .mmap_size = 4096, .mmap_offset = 0 };	/* 128 MiB of guest */
	struct vhost_user_msg_vring_addr a = {
		.index = 1,
		.flags = VUM_VRING_F_LOG,
		.desc = (uint64_t)(uintptr_t)(fe_mem + FE_RING(1)),
		.avail = (uint64_t)(uintptr_t)(fe_mem + FE_RING(1) + 0x1000),
		.used = (uint64_t)(uintptr_t)(fe_mem + FE_RING(1) + 0x2000),
		.log = FE_RING(1) + 0x2000,	/* guest-physical: guest 0 is the memfd's start */
	};
	int fd = memfd_create("vu-frontend-log", MFD_CLOEXEC);
	uint64_t v;

	if (fd < 0 || ftruncate(fd, 4096) < 0)
		fe_die("log memfd");
	fe_msg(VUM_SET_LOG_BASE, &lg, sizeof(lg), fd, &v);
	v = (1ULL << 32) | (1ULL << VUM_F_PROTOCOL_FEATURES) | (1ULL << 26);	/* LOG_ALL */
	fe_msg(VUM_SET_FEATURES, &v, 8, -1, NULL);
	fe_msg(VUM_SET_VRING_ADDR, &a, sizeof(a), -1, NULL);
	return fd;
}

/**
 * fe_log_off() - logging off again (SET_FEATURES without LOG_ALL, the tx
 * ring's addresses without the log flag)
 */
static void fe_log_off(void)
{
	struct vhost_user_msg_vring_addr a = {
		.index = 1,
		.desc = (uint64_t)(uintptr_t)(fe_mem + FE_RING(1)),
		.avail = (uint64_t)(uintptr_t)(fe_mem + FE_RING(1) + 0x1000),
		.used = (uint64_t)(uintptr_t)(fe_mem + FE_RING(1) + 0x2000),
	};
	uint64_t v = (1ULL << 32) | (1ULL << VUM_F_PROTOCOL_FEATURES);

	fe_msg(VUM_SET_FEATURES, &v, 8, -1, NULL);
	fe_msg(VUM_SET_VRING_ADDR, &a, sizeof(a), -1, NULL);
}

/**
 * fe_log_pages() - the pages marked in the dirty log
 * @logfd: the log (4096 bytes: one bit per guest page)
 * @first: out: the lowest marked page, or -1 for none
 *
 * Return: how many pages are marked.
 */
static unsigned int fe_log_pages(int logfd, long *first)
{
	uint8_t b[4096];
	unsigned int i, n = 0;

	if (pread(logfd, b, sizeof(b), 0) != (ssize_t)sizeof(b))
		fe_die("reading the log");
	*first = -1;
	for (i = 0; i < 8 * sizeof(b); i++) {
		if (!(b[i / 8] & (1u << (i % 8))))
			continue;
		if (*first < 0)
			*first = i;
		n++;
	}
	return n;
}

/**
 * fe_log_check() - logging has ended: is the log what the daemon did?
 * @logfd: the log
 * @logged: tx used entries the device wrote while logging was on (the
 *	used index's move, mod 2^16: COUNT below 65536 keeps it exact)
 * @rx_logged: whether the device used rx buffers while logging was on
 *
 * The tx ring's used ring is the only memory the daemon writes for tx
 * frames: with @logged > 0 its page must be marked, and with nothing
 * received (no rx buffer written) no other page may be.
 * Return: true when so; prints "MIGRATE-OK: ..." or "MIGRATE-FAIL: ...".
 */
static bool fe_log_check(int logfd, unsigned long logged, bool rx_logged)
{
	long used_page = (FE_RING(1) + 0x2000) / 4096, first;
	unsigned int n = fe_log_pages(logfd, &first);
	uint8_t b = 0;

	if (pread(logfd, &b, 1, used_page / 8) != 1)
		fe_die("reading the log");
	if (logged && !(b & (1u << (used_page % 8)))) {
		printf("MIGRATE-FAIL: %lu frames completed under logging, the tx used ring's page %ld not marked in the dirty log (%u pages marked)\n",
		       logged, used_page, n);
		return false;
	}
	if (!rx_logged && n > (logged ? 1u : 0u)) {
		printf("MIGRATE-FAIL: %u pages marked in the dirty log (first: page %ld), want only the tx used ring's page %ld (nothing received under logging)\n",
		       n, first, used_page);
		return false;
	}
	printf("MIGRATE-OK: %lu frames completed under logging, %u page(s) marked in the dirty log (the tx used ring's page %ld%s)\n",
	       logged, n, used_page, rx_logged ? ", and rx buffers" : " only");
	return true;
}

/**
 * fe_log_clean() - logging is off: nothing may be marked any more
 * @logfd: the log, zeroed when logging ended
 *
 * Return: true when it is still all zero; prints "MIGRATE-FAIL: ..." if not.
 */
static bool fe_log_clean(int logfd)
{
	long first;
	unsigned int n = fe_log_pages(logfd, &first);

	if (!n)
		return true;
	printf("MIGRATE-FAIL: %u pages marked in the dirty log after logging was turned off (first: page %ld)\n",
	       n, first);
	return false;
}

/**
 * fe_migrate_switch() - a migration's source: dirty logging on, or off and checked
 * @phase: 0: turn logging on; 1: turn it off, check the log, clear it
 * @sent: tx frames made available so far
 * @logfd: the log (set by phase 0)
 *
 * Return: false when the log check failed (printed).
 */
static bool fe_migrate_switch(unsigned int phase, unsigned long sent, int *logfd)
{
	static uint16_t tx_used_on, rx_used_on;
	static unsigned int inflight_on;
	static const uint8_t zero[4096];
	unsigned int inflight = (uint16_t)((uint16_t)sent - fe_used_idx(1));

	if (phase == 0) {
		inflight_on = inflight;
		*logfd = fe_log_on();
		/* what the device used from now on, it used logging */
		tx_used_on = fe_used_idx(1);
		rx_used_on = fe_used_idx(0);
		return true;
	}
	/* stopped logging (acked): what it used under logging is final */
	fe_log_off();
	printf("migrate: %u and %u tx frames in flight when logging went on and off\n",
	       inflight_on, inflight);
	if (!fe_log_check(*logfd, (uint16_t)(fe_used_idx(1) - tx_used_on),
			  fe_used_idx(0) != rx_used_on))
		return false;
	/* from now on nothing may be marked */
	if (pwrite(*logfd, zero, sizeof(zero), 0) != (ssize_t)sizeof(zero))
		fe_die("clearing the log");
	return true;
}

/**
 * fe_check_base() - GET_VRING_BASE on both rings of the pair: the right positions?
 * @qp: the queue pair
 * @rx: the rx ring (used entries the device made before it stopped are counted)
 * @sent: tx chains made available
 * @rx_used: rx buffers returned so far
 *
 * Return: true when tx's base is @sent and rx's the rx buffers used (mod 2^16).
 */
static bool fe_check_base(uint32_t qp, struct vringfd_ring *rx, unsigned long sent,
			  unsigned long rx_used)
{
	struct vhost_user_msg_vring_state s = { .index = 2 * qp + 1 };
	uint64_t tx_base, rx_base;

	fe_msg(VUM_GET_VRING_BASE, &s, sizeof(s), -1, &tx_base);
	s.index = 2 * qp;
	fe_msg(VUM_GET_VRING_BASE, &s, sizeof(s), -1, &rx_base);
	/* the ring is stopped: what it used is final */
	while (vringfd_ring_get_used(rx, NULL))
		rx_used++;
	tx_base >>= 32;
	rx_base >>= 32;
	printf("vring base tx %u rx %u (want %lu %lu)\n", (unsigned int)tx_base,
	       (unsigned int)rx_base, sent & 0xffff, rx_used & 0xffff);
	return tx_base == (sent & 0xffff) && rx_base == (rx_used & 0xffff);
}

/**
 * fe_attack() - queue frames, take the memory (or the dirty log) away, kick
 * @evil: "truncate", "punch" or "log-truncate"
 * @memfd: the memory fd
 * @tx: the tx ring
 * @kick: its kick eventfd
 *
 * Return: exit status (0: the daemon closed the connection).
 */
static int fe_attack(const char *evil, int memfd, struct vringfd_ring *tx, int kick)
{
	struct iovec out = { .iov_base = (void *)(uintptr_t)FE_TX_BASE, .iov_len = FE_HDR + 60 };
	const char *when = getenv("VU_FRONTEND_ATTACK_WHEN");
	unsigned int i;
	uint64_t v = 1;
	int logfd;

	if (when) {
		printf("attack: waiting for %s\n", when);
		fflush(stdout);
		for (i = 0; i < 10 * FE_ATTACK_WAIT_S && access(when, F_OK) < 0; i++)
			usleep(100000);
		if (access(when, F_OK) < 0) {
			printf("EVIL-FAIL: %s did not appear in %u s\n", when, FE_ATTACK_WAIT_S);
			return 1;
		}
	}
	logfd = !strcmp(evil, "log-truncate") ? fe_log_on() : -1;
	memset(fe_mem + FE_TX_BASE, 0, FE_HDR + 60);
	if (vringfd_ring_add(tx, &out, 1, NULL, 0, (void *)1) < 0) {
		printf("EVIL-FAIL: no tx slot\n");
		return 1;
	}
	vringfd_ring_publish(tx);
	if (!strcmp(evil, "truncate")) {
		if (ftruncate(memfd, 0) < 0)
			fe_die("ftruncate");
	} else if (logfd >= 0) {
		if (ftruncate(logfd, 0) < 0)
			fe_die("ftruncate of the log");
	} else if (!strcmp(evil, "punch")) {
		/* pool empty first, so that the punched pages are taken at once:
		 * a daemon walk in between would get a fresh zeroed page */
		fe_grab_free_hugepages();
		if (fallocate(memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, FE_MEM) < 0)
			fe_die("punching the huge pages out");
		fe_grab_free_hugepages();
	} else {
		fprintf(stderr, "vu_frontend: VU_FRONTEND_EVIL=%s unknown\n", evil);
		return 2;
	}
	if (write(kick, &v, 8) != 8)
		fe_die("kick");
	if (!fe_closed_by_daemon()) {
		printf("EVIL-FAIL: %s: the daemon did not close the connection in 10 s\n", evil);
		return 1;
	}
	printf("EVIL-OK: %s: the daemon closed the connection\n", evil);
	return 0;
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
	struct vhost_user_msg_mem mem;
	uint64_t v;
	double deadline, t_start, t_end = 0;
	const char *pk = getenv("VU_FRONTEND_POLL_KICKS");
	bool poll_kicks = pk && !strcmp(pk, "1");
	const char *mem_kind = getenv("VU_FRONTEND_MEM") ? getenv("VU_FRONTEND_MEM") : "memfd-sealed";
	const char *evil = getenv("VU_FRONTEND_EVIL") ? getenv("VU_FRONTEND_EVIL") : "";
	const char *mg = getenv("VU_FRONTEND_MIGRATE");
	uint32_t qp = getenv("VU_FRONTEND_QP") ? (uint32_t)strtoul(getenv("VU_FRONTEND_QP"), NULL, 0) : 0;
	bool busy = mg && !strcmp(mg, "busy");
	bool migrate = mg && (!strcmp(mg, "1") || busy);
	unsigned long phase_len, phase_end;
	unsigned int i, phase = 0;
	const char *until = getenv("VU_FRONTEND_UNTIL");
	const char *sc = getenv("VU_FRONTEND_SWAP_CALL");
	bool swap_call = sc && !strcmp(sc, "1"), swapped = false;
	unsigned long swapped_signals = 0;
	int logfd = -1, listen_fd = -1, more;
	const char *ls = getenv("VU_FRONTEND_LISTEN");
	bool server = ls && !strcmp(ls, "1");

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: %s SOCKET COUNT SIZE [RX_MIN]\n", argv[0]);
		return 2;
	}
	count = strtoul(argv[2], NULL, 0);
	size = strtoul(argv[3], NULL, 0);
	if (argc == 5)
		rx_min = strtoul(argv[4], NULL, 0);
	if (until)
		count = ULONG_MAX / 4;
	phase_len = phase_end = count;
	if (migrate)
		count *= 3;
	if (qp > 15) {
		fprintf(stderr, "vu_frontend: VU_FRONTEND_QP must be 0..15\n");
		return 2;
	}
	if (size < 60 || size > FE_TX_SLOT - FE_HDR) {
		fprintf(stderr, "vu_frontend: SIZE must be 60..%u\n", FE_TX_SLOT - FE_HDR);
		return 2;
	}

	memfd = fe_make_mem(mem_kind, evil);
	if (!strcmp(evil, "exhausted")) {
		fe_grab_free_hugepages();
		fe_ack_fail_ok = true;
	}
	if (!strcmp(evil, "exhausted"))
		goto handshake;	/* its pages cannot be touched: no rings written */
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

handshake:
	if (server) {
		fe_sock = peer_server_accept(argv[1], &listen_fd, 20000);
		if (fe_sock < 0)
			fe_die(argv[1]);
	} else {
		fe_sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[1]);
		if (fe_sock < 0 || connect(fe_sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			fe_die(argv[1]);
	}

	fe_msg(VUM_GET_FEATURES, NULL, 0, -1, &v);
	if (!(v & (1ULL << 32)) || !(v & (1ULL << VUM_F_PROTOCOL_FEATURES))) {
		errno = ENOTSUP;
		fe_die("device features lack VERSION_1 or PROTOCOL_FEATURES");
	}
	fe_msg(VUM_GET_PROTOCOL_FEATURES, NULL, 0, -1, &v);
	v &= (1ULL << VUM_PROTOCOL_F_REPLY_ACK) | (1ULL << VUM_PROTOCOL_F_MQ) |
	     (!strcmp(evil, "log-truncate") || migrate ? 1ULL << VUM_PROTOCOL_F_LOG_SHMFD : 0);
	/* no ack possible before REPLY_ACK is on: send it plainly */
	{
		struct vhost_user_msg_hdr h = { .request = VUM_SET_PROTOCOL_FEATURES, .flags = VUM_VERSION,
				     .size = 8 };
		struct iovec iov[2] = { { &h, sizeof(h) }, { &v, 8 } };
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

		if (sendmsg(fe_sock, &mh, MSG_NOSIGNAL) != 20)
			fe_die("SET_PROTOCOL_FEATURES");
	}
	fe_msg(VUM_SET_OWNER, NULL, 0, -1, NULL);
	v = (1ULL << 32) | (1ULL << VUM_F_PROTOCOL_FEATURES);
	fe_msg(VUM_SET_FEATURES, &v, 8, -1, NULL);
	if (getenv("VU_FRONTEND_PAUSE")) {
		sleep((unsigned int)strtoul(getenv("VU_FRONTEND_PAUSE"), NULL, 0));
		fe_msg(VUM_GET_FEATURES, NULL, 0, -1, &v);	/* dies if closed meanwhile */
		printf("paused %s s, connection kept\n", getenv("VU_FRONTEND_PAUSE"));
	}
	memset(&mem, 0, sizeof(mem));
	mem.nregions = 1;
	mem.regions[0].guest_addr = 0;
	mem.regions[0].size = FE_MEM;
	mem.regions[0].user_addr = (uint64_t)(uintptr_t)fe_mem;
	fe_msg(VUM_SET_MEM_TABLE, &mem, VUM_SIZE_MEM(1), memfd, NULL);
	if (!strcmp(evil, "exhausted"))
		return fe_expect_refused();
	for (r = 0; r < 2; r++) {
		struct vhost_user_msg_vring_addr a = {
			.index = 2 * qp + (uint32_t)r,
			.desc = (uint64_t)(uintptr_t)(fe_mem + FE_RING(r)),
			.avail = (uint64_t)(uintptr_t)(fe_mem + FE_RING(r) + 0x1000),
			.used = (uint64_t)(uintptr_t)(fe_mem + FE_RING(r) + 0x2000),
		};

		fe_state(VUM_SET_VRING_NUM, a.index, FE_NUM);
		fe_state(VUM_SET_VRING_BASE, a.index, 0);
		fe_msg(VUM_SET_VRING_ADDR, &a, sizeof(a), -1, NULL);
		v = a.index;
		if (poll_kicks) {
			v |= VUM_VRING_NOFD;
			fe_msg(VUM_SET_VRING_KICK, &v, 8, -1, NULL);
			v = a.index;
		} else {
			fe_msg(VUM_SET_VRING_KICK, &v, 8, kick[r], NULL);
		}
		fe_msg(VUM_SET_VRING_CALL, &v, 8, call[r], NULL);
	}
	for (i = 0; i < FE_NUM; i++)
		fe_post_rx(&ring[0], i);
	vringfd_ring_publish(&ring[0]);
	fe_state(VUM_SET_VRING_ENABLE, 2 * qp, 1);
	fe_state(VUM_SET_VRING_ENABLE, 2 * qp + 1, 1);

	t_start = fe_now();
	deadline = t_start + 10 + count / 1000.0;
	if (until)
		deadline = t_start + 120;
	while ((done < count || received < rx_min) && fe_now() < deadline) {
		struct pollfd pf[2] = { { call[0], POLLIN, 0 }, { call[1], POLLIN, 0 } };
		bool added = false;
		uint32_t len;
		void *tok;

		/* VU_FRONTEND_UNTIL: the file appeared: finish what was sent */
		if (until && count > sent && access(until, F_OK) == 0)
			count = phase_end = sent;
		while (sent < phase_end && ring[1].num_free > 0) {
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
		/* busy: switch right after the kick, frames in flight */
		if (busy && sent == phase_end && phase < 2) {
			if (!fe_migrate_switch(phase++, sent, &logfd))
				return 1;
			phase_end += phase_len;
		}
		poll(pf, 2, 100);
		for (r = 0; r < 2; r++)
			while (read(call[r], &v, 8) == 8)
				swapped_signals += swapped;
		if (swap_call && !swapped && done >= count / 2) {
			/* new call fds while the queues run; the old ones go */
			for (r = 0; r < 2; r++) {
				int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

				if (fd < 0)
					fe_die("eventfd");
				v = 2 * qp + (uint32_t)r;
				fe_msg(VUM_SET_VRING_CALL, &v, 8, fd, NULL);
				close(call[r]);
				call[r] = fd;
			}
			swapped = true;
		}
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
		if (migrate && !busy && done == phase_end && phase < 2) {
			if (!fe_migrate_switch(phase++, sent, &logfd))
				return 1;
			phase_end += phase_len;
		}
	}
	printf("sent %lu completed %lu received %lu (and %lu rx buffers returned empty) tx %.6f s\n",
	       sent, done, received, empty, (t_end > 0 ? t_end : fe_now()) - t_start);
	if (*evil) {
		if (done != count) {
			printf("EVIL-FAIL: the frames before the attack did not go through\n");
			return 1;
		}
		return fe_attack(evil, memfd, &ring[1], kick[1]);
	}
	if (swap_call) {
		if (!swapped || !swapped_signals) {
			printf("SWAP-CALL-FAIL: %s\n", swapped ? "the new call fds were never signalled" :
			       "the call fds were not replaced");
			return 1;
		}
		printf("SWAP-CALL-OK: %lu signals on the new call fds\n", swapped_signals);
	}
	if (migrate && logfd >= 0 && !fe_log_clean(logfd))
		return 1;
	if (getenv("VU_FRONTEND_CHECK_END")) {
		fe_msg(VUM_GET_FEATURES, NULL, 0, -1, &v);	/* dies if closed meanwhile */
		printf("connection kept: GET_FEATURES answered after the last frame\n");
	}
	if (getenv("VU_FRONTEND_CHECK_BASE") && !fe_check_base(qp, &ring[0], sent, received + empty)) {
		close(fe_sock);
		return 1;
	}
	more = server ? peer_server_more(listen_fd) : 0;
	if (server)
		printf("server: 1 connection accepted, %d more made\n", more);
	close(fe_sock);
	return done == count && received >= rx_min && !more ? 0 : 1;
}
