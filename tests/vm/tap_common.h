/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap_common.h - shared helpers of the tap attachment's VM tests
 * (tests/vm/tap_*.c): taps, rings, counters, raw sockets.
 *
 * Every test prints one line through tests/lib/result.h: "PASS: name",
 * "FAIL: name: why" or "SKIP: name: why"; result_exit_status() is 0 iff
 * nothing failed.
 */
#ifndef TAP_COMMON_H
#define TAP_COMMON_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netpacket/packet.h>
#include <net/ethernet.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/if_tun.h>
#include <linux/userfaultfd.h>
#include <linux/virtio_net.h>

#include "vringfd.h"

#include "lib/result.h"

/**
 * tc_expect_err() - check that a call failed with @want
 * @name: test name
 * @ret: the call's return
 * @want: expected errno (0: expected success)
 *
 * Return: 1 when as expected.
 */
static inline int tc_expect_err(const char *name, long ret, int want)
{
	int e = errno;

	if (want == 0 ? ret >= 0 : (ret < 0 && e == want)) {
		result_pass(name);
		return 1;
	}
	result_fail(name, "got %ld errno %d (%s), want %s", ret, ret < 0 ? e : 0,
		  ret < 0 ? strerror(e) : "-", want ? strerror(want) : "success");
	return 0;
}

/**
 * tc_sh() - run a shell command quietly
 * @fmt: printf format
 *
 * Return: the command's exit status (-1 when it could not run).
 */
static inline int __attribute__((format(printf, 1, 2))) tc_sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	r = system(cmd);
	return r == -1 ? -1 : WEXITSTATUS(r);
}

/**
 * tc_tap_open() - create (or attach to) a tun/tap device
 * @name: interface name
 * @flags: IFF_TAP/IFF_TUN, IFF_NO_PI, IFF_VNET_HDR, IFF_MULTI_QUEUE
 *
 * Return: the fd, or -1 with errno.
 */
static inline int tc_tap_open(const char *name, int flags)
{
	struct ifreq ifr;
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_flags = (short)flags;
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/**
 * tc_set_hdr() - set a tap's virtio-net header size (TUNSETVNETHDRSZ)
 * @tap: tap fd (IFF_VNET_HDR)
 * @sz: 10 or 12
 *
 * The caller's job: VRINGFD_ATTACH_TAP takes the ring's header length as
 * a declaration and sets nothing on the tap.
 * Return: 0, or -1 with errno.
 */
static inline int tc_set_hdr(int tap, int sz)
{
	return ioctl(tap, TUNSETVNETHDRSZ, &sz);
}

/**
 * tc_wait_carrier() - wait until a tap's carrier is on and its qdisc active
 * @ifname: interface
 *
 * Opening a persistent tap turns its carrier on; the link watch then
 * activates the qdisc a little later, and frames sent before are dropped.
 * Return: 1 when the link came up within 3 s.
 */
static inline int tc_wait_carrier(const char *ifname)
{
	char path[128], st[32];
	int i, up = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", ifname);
	for (i = 0; i < 60 && !up; i++) {
		f = fopen(path, "r");
		if (f) {
			up = fgets(st, sizeof(st), f) &&
			     (!strncmp(st, "up", 2) || !strncmp(st, "unknown", 7));
			fclose(f);
		}
		if (!up)
			usleep(50000);
	}
	usleep(200000);
	return up;
}

/**
 * tc_ifstat() - read /sys/class/net/IF/statistics/COUNTER
 * @ifname: interface
 * @counter: rx_packets, tx_dropped, ...
 *
 * Return: the value, or -1.
 */
static inline long long tc_ifstat(const char *ifname, const char *counter)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", ifname, counter);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/**
 * struct tc_ring - a ring in this process's memory with its vring fd
 * @mem: ring memory (page aligned)
 * @size: bytes of @mem
 * @r: driver-side state
 * @fd: vring fd
 */
struct tc_ring {
	void *mem;
	size_t size;
	struct vringfd_ring r;
	int fd;
};

/**
 * tc_ring_new() - allocate a ring and create its vring fd
 * @t: filled in
 * @num: ring size
 * @features: ring features
 *
 * Return: 0, or -1 with errno.
 */
static inline int tc_ring_new(struct tc_ring *t, unsigned int num, uint64_t features)
{
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->size = (vringfd_ring_size(num, 4096) + 4095) & ~(size_t)4095;
	t->mem = mmap(NULL, t->size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->mem == MAP_FAILED)
		return -1;
	if (vringfd_ring_init(&t->r, t->mem, num, 4096, features) < 0) {
		errno = EINVAL;
		return -1;
	}
	t->fd = vringfd_create(num, t->r.vr.desc, t->r.vr.avail, t->r.vr.used,
			       &t->r.last_used, features);
	return t->fd < 0 ? -1 : 0;
}

/**
 * tc_ring_free() - close and free a ring from tc_ring_new()
 * @t: the ring
 */
static inline void tc_ring_free(struct tc_ring *t)
{
	if (t->fd >= 0)
		close(t->fd);
	vringfd_ring_fini(&t->r);
	if (t->mem && t->mem != MAP_FAILED)
		munmap(t->mem, t->size);
	t->fd = -1;
	t->mem = NULL;
}

/**
 * tc_attach() - VRINGFD_ATTACH_TAP with all fields
 * @ring_fd: vring fd
 * @tap_fd: tap fd
 * @dir: VRINGFD_DIR_*
 * @hdr: vnet_hdr_len
 * @flags: VRINGFD_TAP_F_*
 *
 * Return: as vringfd_attach_tap_ex().
 */
static inline int tc_attach(int ring_fd, int tap_fd, unsigned int dir,
			    unsigned int hdr, unsigned int flags)
{
	struct vringfd_tap a;

	memset(&a, 0, sizeof(a));
	a.tap_fd = tap_fd;
	a.dir = dir;
	a.vnet_hdr_len = hdr;
	a.flags = flags;
	return vringfd_attach_tap_ex(ring_fd, &a);
}

/**
 * tc_drain_used() - collect every used entry of a ring
 * @t: the ring
 * @lens: optional sum of used lengths (out)
 *
 * Return: the number of entries collected.
 */
static inline int tc_drain_used(struct tc_ring *t, uint64_t *lens)
{
	uint32_t len;
	int n = 0;

	while (vringfd_ring_get_used(&t->r, &len)) {
		if (lens)
			*lens += len;
		n++;
	}
	return n;
}

/**
 * tc_packet_socket() - a raw AF_PACKET socket bound to @ifname
 * @ifname: interface
 *
 * Return: the socket, or -1.
 */
static inline int tc_packet_socket(const char *ifname)
{
	struct sockaddr_ll sll;
	int s = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));

	if (s < 0)
		return -1;
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (!sll.sll_ifindex || bind(s, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		close(s);
		return -1;
	}
	return s;
}

/**
 * tc_frame() - build a test Ethernet frame: broadcast, ethertype 0x88b5
 * (local experimental), payload bytes (seq + i) & 0xff
 * @buf: at least @len bytes
 * @len: frame length (>= 14)
 * @seq: pattern seed
 */
static inline void tc_frame(uint8_t *buf, size_t len, unsigned int seq)
{
	size_t i;

	memset(buf, 0xff, 6);
	memcpy(buf + 6, "\x02\x00\x00\x00\x00\x01", 6);
	buf[12] = 0x88;
	buf[13] = 0xb5;
	for (i = 14; i < len; i++)
		buf[i] = (uint8_t)(seq + i);
}

/**
 * tc_inject() - send tc_frame() frames into a tap from the stack side
 * @s: packet socket bound to the tap
 * @n: frames
 * @len: length of each (at most 9000)
 * @seq0: pattern seed of the first (frames carry seq0, seq0 + 1, ...)
 *
 * Return: frames sent.
 */
static inline int tc_inject(int s, int n, size_t len, unsigned int seq0)
{
	uint8_t f[9000];
	int i, sent = 0;

	for (i = 0; i < n; i++) {
		tc_frame(f, len, seq0 + (unsigned int)i);
		if (send(s, f, len, 0) == (ssize_t)len)
			sent++;
	}
	return sent;
}

/**
 * tc_uffd_open() - a userfaultfd with its API handshake done, or a SKIP line
 * @name: the test to report as skipped when the kernel refuses it
 *
 * Return: the fd (O_NONBLOCK), or -1 (SKIP printed).
 */
static inline int tc_uffd_open(const char *name)
{
	struct uffdio_api api = { .api = UFFD_API };
	int uffd;

	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		result_skip(name, "userfaultfd: %s", strerror(errno));
		if (uffd >= 0)
			close(uffd);
		return -1;
	}
	return uffd;
}

/**
 * struct tc_writer - a write() on a vring fd made by another thread
 * @fd: the vring fd
 * @ret: write()'s answer once it returned
 * @err: its errno
 */
struct tc_writer {
	int fd;
	int ret, err;
};

/**
 * tc_writer_run() - thread: write() on a vring fd (e.g. one that stalls on
 * a userfaultfd page under its frame)
 * @arg: struct tc_writer
 *
 * Return: NULL.
 */
static inline void *tc_writer_run(void *arg)
{
	struct tc_writer *w = arg;

	w->ret = (int)write(w->fd, "", 1);
	w->err = errno;
	return NULL;
}

/**
 * tc_kmsg_clean() - no WARN, BUG or oops in the kernel log so far
 *
 * Return: 1 when clean (or the log cannot be read), 0 otherwise.
 */
static inline int tc_kmsg_clean(void)
{
	return tc_sh("dmesg 2>/dev/null | grep -qE 'WARNING:|BUG:|Oops|general protection'") != 0;
}

#endif /* TAP_COMMON_H */
