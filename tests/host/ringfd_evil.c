// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ringfd_evil.c - malformed SETUPs against a live ring-fd port
 *
 * Usage: ringfd_evil [-b] SOCKET
 *        ringfd_evil -r TAP SOCKET
 *
 * -b: another client is served meanwhile; the good SETUP of the last case
 * must then be answered EBUSY (and the malformed ones as below, since
 * every check comes before the busy check).
 *
 * -r: SETUPs of passed rings (VRINGNET_RFD_F_RINGS) to a port on the
 * kernel engine (vringfd.ko loaded here; the VM rig), each with one bad
 * ring and otherwise good rings of memory; TAP is a tap this program
 * creates for the ring of another tap:
 *
 *   rings_not_vring      EBADF    an eventfd where the tx ring goes
 *   rings_address_space  EPERM    a ring without VRINGFD_SET_MEM_FILES
 *   rings_other_tap      EISCONN  a ring of memory attached to TAP
 *   rings_wrong_num      EINVAL   a ring of 32 entries, SETUP says 16
 *   rings_same_twice     EIO      one ring as tx and rx (the second
 *                                 VRINGFD_ATTACH_TAP fails with EBUSY)
 *
 * Each case connects, sends one message (or a good SETUP then a second
 * message), and expects an ERROR reply with the given errno followed by
 * the daemon closing the connection:
 *
 *   bad_magic      EPROTO         no_fds          EBADF
 *   extra_fds      EBADF          not_memfd       EBADF
 *   unsealed       EPERM          memfd_too_small ERANGE
 *   num_65536      EINVAL         too_many_fds    EBADF
 *   rings_user_engine  ENODEV (a SETUP of passed rings, VRINGNET_RFD_F_RINGS,
 *                  to a port on the user engine, as the host suite runs it)
 *   second_setup   EALREADY (after an OK)
 *   blocking_eventfds  a good SETUP whose eventfds are blocking and
 *                  EFD_SEMAPHORE, its call counters filled to the maximum,
 *                  a frame on its tx ring and its tx kick signalled (the
 *                  completion signals a full counter): the daemon must still answer
 *                  the next connection (bad magic -> EPROTO)
 *   busy           EBUSY  (while another client is served)
 *
 * Prints "ok NAME" or "bad NAME: why" per case; exit 0 when all are ok.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if.h>
#include <linux/if_tun.h>

#include <vringfd.h>

#include "lib/ringfd_msg.h"

static const char *re_path;

/**
 * struct re_msg - a one-queue-pair SETUP
 * @s: the fixed part
 * @qp: the queue pair
 */
struct re_msg {
	struct vringnet_rfd_setup s;
	struct vringnet_rfd_qp qp;
};

/**
 * re_good() - a valid SETUP for a 64 KiB memfd and 16-entry rings
 * @m: filled in
 */
static void re_good(struct re_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->s.hdr = (struct vringnet_rfd_hdr){ VRINGNET_RFD_MAGIC, VRINGNET_RFD_VERSION,
					      sizeof(*m), VRINGNET_RFD_SETUP };
	m->s.nqp = 1;
	m->s.vnet_hdr_len = 12;
	m->qp.tx = (struct vringnet_rfd_ring){ 16, 0, 0, 256, 512 };
	m->qp.rx = (struct vringnet_rfd_ring){ 16, 0, 1024, 1280, 1536 };
}

/**
 * re_memfd() - a memfd
 * @size: its size
 * @seal: add F_SEAL_SHRINK
 * Return: the fd.
 */
static int re_memfd(size_t size, int seal)
{
	int fd = memfd_create("ringfd-evil", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0 || ftruncate(fd, (off_t)size) < 0 ||
	    (seal && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) < 0)) {
		perror("memfd");
		exit(2);
	}
	return fd;
}

/**
 * re_post_tx() - queue one frame on the tx ring of re_good()'s layout
 * @memfd: the client's memory
 * @m: the SETUP (for the ring offsets)
 *
 * With libvringfd's driver-side helpers: one chain whose address is offset
 * 4096 in the memfd (descriptor addresses are memfd offsets), holding a
 * virtio-net header and a 60-byte broadcast frame; avail->idx becomes 1.
 */
static void re_post_tx(int memfd, const struct re_msg *m)
{
	unsigned char *mem = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	struct iovec frame = { .iov_base = (void *)(uintptr_t)4096, .iov_len = 12 + 60 };
	struct vringfd_ring r;

	if (mem == MAP_FAILED ||
	    vringfd_ring_init_parts(&r, m->qp.tx.num, mem + m->qp.tx.desc, mem + m->qp.tx.avail,
				    mem + m->qp.tx.used, 0) < 0) {
		perror("re_post_tx");
		exit(2);
	}
	memset(mem + 4096, 0, 12 + 60);
	memset(mem + 4096 + 12, 0xff, 6);		/* broadcast */
	mem[4096 + 12 + 12] = 0x88;			/* local experimental */
	mem[4096 + 12 + 13] = 0xb5;
	if (vringfd_ring_add(&r, &frame, 1, NULL, 0, mem) < 0) {
		fprintf(stderr, "re_post_tx: vringfd_ring_add failed\n");
		exit(2);
	}
	vringfd_ring_publish(&r);
	vringfd_ring_fini(&r);
	munmap(mem, 65536);
}

/**
 * re_send() - connect and send a message with fds (exits 2 when it cannot)
 * @msg: bytes
 * @len: their count
 * @fds: fds
 * @nfds: their count
 * Return: the socket.
 */
static int re_send(const void *msg, size_t len, const int *fds, unsigned int nfds)
{
	int s = ringfd_msg_send(re_path, msg, len, fds, nfds);

	if (s < 0) {
		perror("ringfd_evil: connect or sendmsg");
		exit(2);
	}
	return s;
}

/**
 * re_closed() - has the daemon closed the connection
 * @s: socket
 * Return: 1 if so within 2 s.
 */
static int re_closed(int s)
{
	struct pollfd p = { .fd = s, .events = POLLIN };
	char b[8];

	return poll(&p, 1, 2000) == 1 && recv(s, b, sizeof(b), MSG_DONTWAIT) == 0;
}

static int re_failed;

/**
 * re_expect() - judge one case
 * @name: case
 * @s: its socket (closed here)
 * @want: expected errno
 */
static void re_expect(const char *name, int s, int want)
{
	char text[200] = "";
	int got = ringfd_msg_reply(s, text, sizeof(text));

	if (got != want) {
		printf("bad %s: answer %d (%s), want %d\n", name, got, text, want);
		re_failed = 1;
	} else if (!re_closed(s)) {
		printf("bad %s: connection not closed after the error\n", name);
		re_failed = 1;
	} else {
		printf("ok %s: %s\n", name, text);
	}
	close(s);
}

/**
 * re_fds() - a memfd and four eventfds
 * @fds: 5 entries
 * @size: memfd size
 * @seal: seal it
 */
static void re_fds(int *fds, size_t size, int seal)
{
	int i;

	fds[0] = re_memfd(size, seal);
	for (i = 1; i < 5; i++)
		fds[i] = eventfd(0, EFD_CLOEXEC);
}

/**
 * re_close_fds() - close fds
 * @fds: fds
 * @n: count
 */
static void re_close_fds(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		close(fds[i]);
}

/**
 * re_ring() - a vring fd over a ring at the start of a new 64 KiB memfd
 * @num: entries (at most 256)
 * @of_memory: make it a ring of memory (VRINGFD_SET_MEM_FILES, the memfd
 *	at guest address 0); else it stays a ring of this address space
 *
 * The memfd and its mapping stay (the process is short-lived).
 * Return: the vring fd (exits 2 on failure).
 */
static int re_ring(unsigned int num, int of_memory)
{
	int memfd = re_memfd(65536, 1);
	unsigned char *mem = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	struct vringfd_mem_files files = {
		.desc_addr = 0, .avail_addr = 16 * num, .used_addr = 8192,
		.last_used_addr = 8192 + 2,
	};
	struct vringfd_mem_file_region region = { .size = 65536, .fd = memfd };
	int fd;

	if (mem == MAP_FAILED || num > 256) {
		perror("re_ring: mmap");
		exit(2);
	}
	fd = vringfd_create(num, mem, mem + files.avail_addr, mem + files.used_addr,
			    (uint16_t *)(mem + files.last_used_addr), 0);
	if (fd < 0 || (of_memory && vringfd_set_mem_files(fd, &files, &region, 1) < 0)) {
		perror("re_ring: VRINGFD_CREATE or VRINGFD_SET_MEM_FILES");
		exit(2);
	}
	return fd;
}

/**
 * re_tap() - create a tap device
 * @name: its name
 * Return: its fd (exits 2 on failure).
 */
static int re_tap(const char *name)
{
	struct ifreq ifr;
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr) < 0) {
		perror("re_tap: /dev/net/tun");
		exit(2);
	}
	return fd;
}

/**
 * re_rings_case() - send a SETUP of passed rings and judge the answer
 * @name: case
 * @tx: the tx ring fd
 * @rx: the rx ring fd
 * @want: expected errno
 *
 * The rings are 16 entries as far as the SETUP says.  @tx and @rx stay open.
 */
static void re_rings_case(const char *name, int tx, int rx, int want)
{
	struct re_msg m;
	int fds[6] = { tx, rx }, i;

	re_good(&m);
	m.s.flags = VRINGNET_RFD_F_RINGS;
	m.qp.tx = (struct vringnet_rfd_ring){ .num = 16 };
	m.qp.rx = (struct vringnet_rfd_ring){ .num = 16 };
	for (i = 2; i < 6; i++)
		fds[i] = eventfd(0, EFD_CLOEXEC);
	re_expect(name, re_send(&m, sizeof(m), fds, 6), want);
	re_close_fds(fds + 2, 4);
}

/**
 * re_rings() - the -r cases (see the top of this file)
 * @tap: name of the tap to create for rings_other_tap
 * Return: 0 all ok, 1 otherwise.
 */
static int re_rings(const char *tap)
{
	struct vringfd_tap att = { .dir = VRINGFD_DIR_TX, .vnet_hdr_len = 12 };
	int good = re_ring(16, 1), other, tap_fd, ev;

	ev = eventfd(0, EFD_CLOEXEC);
	re_rings_case("rings_not_vring", ev, good, EBADF);
	close(ev);

	other = re_ring(16, 0);
	re_rings_case("rings_address_space", other, good, EPERM);
	close(other);

	other = re_ring(16, 1);
	tap_fd = re_tap(tap);
	att.tap_fd = tap_fd;
	if (vringfd_attach_tap_ex(other, &att) < 0) {
		perror("re_rings: VRINGFD_ATTACH_TAP");
		exit(2);
	}
	re_rings_case("rings_other_tap", other, good, EISCONN);
	close(other);
	close(tap_fd);

	other = re_ring(32, 1);
	re_rings_case("rings_wrong_num", other, good, EINVAL);
	close(other);

	re_rings_case("rings_same_twice", good, good, EIO);
	close(good);
	return re_failed;
}

/**
 * main() - run the cases
 * @argc: 2, 3 or 4
 * @argv: [-b] SOCKET, or -r TAP SOCKET
 * Return: 0 all ok, 1 otherwise, 2 usage or setup failure.
 */
int main(int argc, char **argv)
{
	struct re_msg m;
	int fds[64], s, s2, i, busy = 0;
	char text[200];

	if (argc == 4 && !strcmp(argv[1], "-r")) {
		re_path = argv[3];
		return re_rings(argv[2]);
	}
	if (argc == 3 && !strcmp(argv[1], "-b")) {
		busy = 1;
		argv++;
	} else if (argc != 2) {
		fprintf(stderr, "usage: ringfd_evil [-b] SOCKET | -r TAP SOCKET\n");
		return 2;
	}
	re_path = argv[1];

	re_good(&m);
	m.s.hdr.magic = 0x12345678;
	re_fds(fds, 65536, 1);
	re_expect("bad_magic", re_send(&m, sizeof(m), fds, 5), EPROTO);
	re_close_fds(fds, 5);

	re_good(&m);
	re_expect("no_fds", re_send(&m, sizeof(m), NULL, 0), EBADF);

	re_fds(fds, 65536, 1);
	fds[5] = eventfd(0, EFD_CLOEXEC);
	fds[6] = eventfd(0, EFD_CLOEXEC);
	re_expect("extra_fds", re_send(&m, sizeof(m), fds, 7), EBADF);
	re_close_fds(fds, 7);

	re_fds(fds, 65536, 1);
	close(fds[0]);
	fds[0] = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	re_expect("not_memfd", re_send(&m, sizeof(m), fds, 5), EBADF);
	re_close_fds(fds, 5);

	re_fds(fds, 65536, 0);
	re_expect("unsealed", re_send(&m, sizeof(m), fds, 5), EPERM);
	re_close_fds(fds, 5);

	re_fds(fds, 1536, 1);
	re_expect("memfd_too_small", re_send(&m, sizeof(m), fds, 5), ERANGE);
	re_close_fds(fds, 5);

	m.qp.rx.num = 65536;
	re_fds(fds, 65536, 1);
	re_expect("num_65536", re_send(&m, sizeof(m), fds, 5), EINVAL);
	re_close_fds(fds, 5);

	re_good(&m);
	for (i = 0; i < 50; i++)
		fds[i] = eventfd(0, EFD_CLOEXEC);
	re_expect("too_many_fds", re_send(&m, sizeof(m), fds, 50), EBADF);
	re_close_fds(fds, 50);

	re_good(&m);
	m.s.flags = VRINGNET_RFD_F_RINGS;
	m.qp.tx.desc = m.qp.tx.avail = m.qp.tx.used = 0;
	m.qp.rx.desc = m.qp.rx.avail = m.qp.rx.used = 0;
	for (i = 0; i < 6; i++)
		fds[i] = eventfd(0, EFD_CLOEXEC);
	re_expect("rings_user_engine", re_send(&m, sizeof(m), fds, 6), ENODEV);
	re_close_fds(fds, 6);
	re_good(&m);

	/* A good SETUP (empty rings), then a second message. */
	re_fds(fds, 65536, 1);
	s = re_send(&m, sizeof(m), fds, 5);
	if (busy) {
		re_expect("busy", s, EBUSY);
		s = -1;
	} else if (ringfd_msg_reply(s, text, sizeof(text)) != 0) {
		printf("bad second_setup: the good SETUP was refused: %s\n", text);
		printf("bad busy: no served client to be busy with\n");
		re_failed = 1;
	} else {
		int f2[5];

		re_fds(f2, 65536, 1);
		s2 = re_send(&m, sizeof(m), f2, 5);
		re_expect("busy", s2, EBUSY);
		re_close_fds(f2, 5);
		if (send(s, &m, sizeof(m), MSG_NOSIGNAL) < 0)
			perror("send");
		re_expect("second_setup", s, EALREADY);
		s = -1;
	}
	if (s >= 0)
		close(s);
	re_close_fds(fds, 5);

	if (!busy) {
		uint64_t v = 0xfffffffffffffffeULL, two = 2;

		re_good(&m);
		fds[0] = re_memfd(65536, 1);
		for (i = 1; i < 5; i++)
			fds[i] = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
		if (write(fds[2], &v, 8) != 8 || write(fds[4], &v, 8) != 8)
			perror("write");
		/* One 60-byte frame on the tx ring: its completion must signal. */
		re_post_tx(fds[0], &m);
		s = re_send(&m, sizeof(m), fds, 5);
		if (ringfd_msg_reply(s, text, sizeof(text)) != 0) {
			printf("bad blocking_eventfds: SETUP refused: %s\n", text);
			re_failed = 1;
		} else {
			if (write(fds[1], &two, 8) != 8 || write(fds[3], &two, 8) != 8)
				perror("write");
			usleep(200000);
			re_good(&m);
			m.s.hdr.magic = 1;
			s2 = re_send(&m, sizeof(m), NULL, 0);
			re_expect("blocking_eventfds", s2, EPROTO);
		}
		close(s);
		re_close_fds(fds, 5);
	}
	return re_failed;
}
