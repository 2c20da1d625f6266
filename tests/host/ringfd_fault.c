// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ringfd_fault.c - a ring-fd client whose sealed hugetlb memfd loses its pages
 *
 * Usage: ringfd_fault SOCKET
 *
 * Makes a 2 MiB MFD_HUGETLB memfd sealed with F_SEAL_SHRINK (the port
 * accepts it), sends a good SETUP for one queue pair (16-entry rings), waits
 * for OK, queues one frame on its tx ring, then punches the huge page out of
 * the memfd (FALLOC_FL_PUNCH_HOLE: the seal does not forbid it), takes every
 * free huge page of the pool and kicks the tx ring.  The daemon's next touch
 * of the rings has no page to fault in (SIGBUS): it must drop this client
 * and close the connection.
 *
 * Prints "FAULT-OK: ..." and exits 0 when the connection was closed within
 * 10 s; "FAULT-FAIL: ..." and 1 otherwise; 2 for a setup failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <vringfd.h>

#define RF_MEM	(2u << 20)

/**
 * struct rf_msg - a one-queue-pair SETUP
 * @s: the fixed part
 * @qp: the queue pair
 */
struct rf_msg {
	struct vringnet_rfd_setup s;
	struct vringnet_rfd_qp qp;
};

/**
 * rf_die() - print why and exit 2
 * @what: what failed
 */
static void __attribute__((noreturn)) rf_die(const char *what)
{
	fprintf(stderr, "ringfd_fault: %s: %s\n", what, strerror(errno));
	exit(2);
}

/**
 * rf_grab_free_hugepages() - take every free huge page of the pool (kept until exit)
 *
 * One page at a time until the kernel has none left: the machine may have
 * other users of the pool, so a count read from /proc/meminfo can be stale
 * by the time it is used.
 */
static void rf_grab_free_hugepages(void)
{
	unsigned long n = 0, psize = 2048;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		rf_die("/proc/meminfo");
	while (fgets(line, sizeof(line), f))
		sscanf(line, "Hugepagesize: %lu kB", &psize);
	fclose(f);
	while (mmap(NULL, psize * 1024, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE, -1, 0) != MAP_FAILED)
		n++;
	printf("took %lu free huge pages\n", n);
}

/**
 * rf_wait_closed() - wait up to @ms for the peer to close @s
 * @s: socket
 * @ms: milliseconds
 *
 * Return: true when it was closed.
 */
static bool rf_wait_closed(int s, int ms)
{
	struct pollfd p = { .fd = s, .events = POLLIN };
	char b[512];

	while (poll(&p, 1, ms) == 1) {
		ssize_t n = recv(s, b, sizeof(b), MSG_DONTWAIT);

		if (n <= 0)
			return true;
	}
	return false;
}

/**
 * main() - set up, take the memory away, kick
 * @argc: 2
 * @argv: program, socket
 *
 * Return: 0 when the daemon closed the connection.
 */
int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char cb[CMSG_SPACE(5 * sizeof(int))];
	struct iovec iov, frame = { .iov_base = (void *)(uintptr_t)4096, .iov_len = 12 + 60 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct vringnet_rfd_reply r;
	struct vringfd_ring tx;
	struct cmsghdr *cm;
	struct rf_msg m;
	struct pollfd p;
	int fds[5], s, i;
	uint64_t one = 1;
	uint8_t *mem;

	if (argc != 2) {
		fprintf(stderr, "usage: %s SOCKET\n", argv[0]);
		return 2;
	}
	fds[0] = memfd_create("ringfd-fault", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_HUGETLB);
	if (fds[0] < 0 || ftruncate(fds[0], RF_MEM) < 0 ||
	    fcntl(fds[0], F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0)
		rf_die("hugetlb memfd");
	mem = mmap(NULL, RF_MEM, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	if (mem == MAP_FAILED)
		rf_die("mmap");
	for (i = 1; i < 5; i++)
		if ((fds[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
			rf_die("eventfd");

	memset(&m, 0, sizeof(m));
	m.s.hdr = (struct vringnet_rfd_hdr){ VRINGNET_RFD_MAGIC, VRINGNET_RFD_VERSION,
					     sizeof(m), VRINGNET_RFD_SETUP };
	m.s.nqp = 1;
	m.s.vnet_hdr_len = 12;
	m.qp.tx = (struct vringnet_rfd_ring){ 16, 0, 0, 256, 512 };
	m.qp.rx = (struct vringnet_rfd_ring){ 16, 0, 1024, 1280, 1536 };
	if (vringfd_ring_init_parts(&tx, 16, mem, mem + 256, mem + 512, 0) < 0)
		rf_die("ring init");

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[1]);
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		rf_die(argv[1]);
	iov = (struct iovec){ &m, sizeof(m) };
	memset(cb, 0, sizeof(cb));
	mh.msg_control = cb;
	mh.msg_controllen = sizeof(cb);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(5 * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, 5 * sizeof(int));
	if (sendmsg(s, &mh, MSG_NOSIGNAL) < 0)
		rf_die("SETUP");
	p = (struct pollfd){ .fd = s, .events = POLLIN };
	if (poll(&p, 1, 10000) != 1 || recv(s, &r, sizeof(r), 0) != (ssize_t)sizeof(r) ||
	    r.hdr.type != VRINGNET_RFD_OK) {
		r.text[sizeof(r.text) - 1] = '\0';
		printf("FAULT-FAIL: SETUP of a sealed hugetlb memfd not accepted (%s)\n", r.text);
		return 1;
	}

	memset(mem + 4096, 0, 12 + 60);
	memset(mem + 4096 + 12, 0xff, 6);
	mem[4096 + 24] = 0x88;
	mem[4096 + 25] = 0xb5;
	if (vringfd_ring_add(&tx, &frame, 1, NULL, 0, mem) < 0)
		rf_die("ring add");
	vringfd_ring_publish(&tx);
	/* pool empty first, so that the punched page is taken at once: a
	 * daemon walk in between would get a fresh zeroed page */
	rf_grab_free_hugepages();
	if (fallocate(fds[0], FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, RF_MEM) < 0)
		rf_die("punching the huge page out");
	rf_grab_free_hugepages();
	if (write(fds[1], &one, 8) != 8)
		rf_die("kick");
	if (!rf_wait_closed(s, 10000)) {
		printf("FAULT-FAIL: the daemon did not close the connection in 10 s\n");
		return 1;
	}
	printf("FAULT-OK: the daemon closed the connection\n");
	return 0;
}
