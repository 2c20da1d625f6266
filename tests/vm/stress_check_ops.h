/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stress_check_ops.h - the checked scenarios of tests/vm/stress.c: random
 * operations on private rings, taps and memory whose outcome is known
 * exactly, so the test asserts what the module answered, not only that it
 * survived.  They run among the random operations (the rest of the kernel
 * state keeps changing underneath), each on resources no other thread
 * touches: its own mappings, its own tap device (vsk<thread>_<n>), its own
 * /dev/vringfd fd.
 *
 * The checks (--checks LIST selects them, --checks-only leaves the random
 * operations out; each ends in one result line stress_check_NAME):
 *   acct        TX chains with good frames mixed with bad addresses (kernel,
 *               non-canonical, a PROT_NONE page, a buffer running into one,
 *               outside the memory table), sometimes a run of 64+ bad ones
 *               first: every write() until all is consumed; asserted: a call
 *               that answers 0 consumed the weight's worth of chains or no
 *               usable chain remains, all chains consumed within a bound,
 *               answers summed == frames counter == good chains, drop
 *               counters == bad chains, every head used exactly once,
 *               used_idx == last_avail
 *   used-fault  a used ring made read-only or PROT_NONE (or the descriptor
 *               table, or the avail ring, PROT_NONE) after creation, then a
 *               write() (TX) or read() (RX, a frame queued); asserted:
 *               EFAULT, then the ring is broken (EIO, STATE_BROKEN)
 *   rx-fault    RX buffers each in its own page with canary bytes around
 *               it, some PROT_NONE or read-only, one frame queued per
 *               buffer, taps with and without a virtio-net header; asserted:
 *               an unwritable buffer is never completed with data, frames
 *               counter == buffers that really hold a frame, nothing
 *               written outside the posted buffers, no head lost on DETACH
 *   memtable    RX heads held by the module (a frame too big for the posted
 *               buffer; or with MRG_RXBUF, a frame waiting for more
 *               buffers), then VRINGFD_SET_MEM_TABLE moving the region (or
 *               dropping it), an unrelated memfd mapped where the region
 *               was, a frame queued; asserted: the memfd and the bytes
 *               outside the posted buffer untouched, a delivered frame is
 *               in the buffer's new place, and after DETACH
 *               last_avail == used_idx (no head kept or lost)
 *   gone-tun, gone-macvtap, gone-ipvtap
 *               a TX and an RX ring on a queue of a tun tap / macvtap /
 *               ipvtap (over a dummy), the device deleted (ip link del);
 *               asserted within 3 calls each: write() on the empty TX ring
 *               and on one with a frame posted, and read(), answer EPIPE;
 *               poll() POLLHUP; GET_STATE STATE_HUP; no frame counted as
 *               sent after the deletion (macvtap/ipvtap modules are loaded
 *               with modprobe when missing; SKIP when they cannot be)
 *   uffd        a TX ring whose descriptor table, avail ring or frame page is
 *               a missing userfaultfd page: a write() in a thread stalls on
 *               it; child processes then DETACH, write(), read(), poll(),
 *               ATTACH_TAP or close; they are SIGKILLed after 200 ms;
 *               asserted: every child is reaped within --reap-ms (2000) of
 *               the SIGKILL while the page is still missing, then the page
 *               is filled and the write() returns (at most one uffd run at
 *               a time, one every 6 s; the writer is a CLONE_VM process,
 *               SIGKILLed too in half the runs, then reaped within the same
 *               bound; --reap-ms is 6000 under the debug kernel)
 *   memfiles    a TX ring of memory (VRINGFD_SET_MEM_FILES over a sealed
 *               memfd, in 30 % of the runs a hugetlbfs one when the pool
 *               has a page, sometimes closed at once: the module holds it) on a
 *               private tap; rounds of frames drained by write() in this
 *               process, in a forked child, or in a child while this
 *               process replaces the table (the whole memfd, or only the
 *               ring parts: the buffers then have bad addresses), with a
 *               hole punched under the buffers in some runs; asserted: no
 *               write() error, answers summed == chains posted, frames +
 *               drops == chains posted, last_avail == used_idx == the
 *               posted index == used->idx seen through the mapping
 *   kick        a TX ring of memory in kick mode (VRINGFD_SET_KICK) on a
 *               private tap: rounds of frames posted and kicked (from this
 *               thread, or by a forked child through the inherited
 *               eventfd), completions awaited on the call eventfd alone
 *               (no write()); kick mode ended at random by SET_KICK -1,
 *               DETACH, close with kick mode on, or the tap's deletion;
 *               asserted: every round completed within 3 s of its kicks,
 *               frames + drops == chains posted, last_avail == used_idx ==
 *               the posted index; after -1 or DETACH a kick's count stays
 *               in the eventfd (after close: within 3 s, as a child forked
 *               by another thread may hold the file a while); after the
 *               deletion poll() reports POLLHUP
 *
 * A check's failures print "# check NAME: ..." lines (the first five per
 * check) with the seed, thread and run number; its result line gives the
 * count and the first failure.
 */
#ifndef STRESS_CHECK_OPS_H
#define STRESS_CHECK_OPS_H

#include <poll.h>
#include <net/if.h>
#include <netpacket/packet.h>
#include <net/ethernet.h>
#include <arpa/inet.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/if_tun.h>
#include <linux/userfaultfd.h>
#include <linux/falloc.h>
#include "stress_pool.h"
#include "stress_env_ops.h"

#define CK_PAGE		4096UL
#define CK_GUEST	0x40000000ULL	/* guest address of the memory-table checks */
#define CK_WEIGHT_CHAINS 256		/* kmod/README.md: chains per call */
#define CK_ETHERTYPE	0x88b5		/* local experimental */

enum {
	CK_ACCT,
	CK_USED,
	CK_RXFAULT,
	CK_MEMTAB,
	CK_GONE_TUN,
	CK_GONE_MACVTAP,
	CK_GONE_IPVTAP,
	CK_UFFD,
	CK_MEMFILES,
	CK_KICK,
	NCK
};

static const char *const ck_names[NCK] = {
	"acct", "used-fault", "rx-fault", "memtable", "gone-tun", "gone-macvtap",
	"gone-ipvtap", "uffd", "memfiles", "kick",
};

/**
 * struct ck_opts - the checks' options
 * @enabled: bit per CK_* (default: all)
 * @only: --checks-only: no random operations
 * @reap_ms: how long a SIGKILLed child may take to be reaped (0: 2000 ms,
 *	6000 ms under the rig's debug kernel, VMRUN_DEBUG_KERNEL=1)
 * @share: most of a thread's time spent in checks, in percent (unless
 *	@only): a check takes 0.1-3 s, the random operations milliseconds
 */
static struct {
	unsigned int enabled;
	bool only;
	unsigned int reap_ms;
	unsigned int share;
} ck_opt = { (1u << NCK) - 1, false, 0, 25 };

static atomic_uint ck_runs[NCK], ck_fails[NCK], ck_inconclusive[NCK];
/* memfiles and kick runs whose ring was in a hugetlbfs memfd (a huge page) */
static atomic_uint ck_hugetlb_runs[NCK];
/* memfiles and kick runs whose ring was made by VRINGFD_CREATE_F_MEM_FILES */
static atomic_uint ck_create_runs[NCK];
static atomic_llong ck_ms[NCK];
static atomic_uint ck_draws[NCK];	/* times picked (the least picked go first) */
static atomic_uint ck_unavail;		/* CK_* bits that cannot run here (no module) */
static __thread long long ck_thread_ms, ck_thread_t0;	/* time in checks, thread start */
static char ck_first[NCK][440];
static char ck_skip_why[NCK][160];
static pthread_mutex_t ck_mtx = PTHREAD_MUTEX_INITIALIZER;
static __thread unsigned int ck_seq;	/* runs of this thread (tap names, messages) */

/* Failures by kind (the assertion's format string): count and first message. */
#define CK_KINDS	48
static struct {
	int ck;
	const char *fmt;
	unsigned int n;
	char first[400];
} ck_kind[CK_KINDS];

/**
 * ck_fail() - record a failed assertion of check @ck
 * @ck: CK_*
 * @fmt: what was seen (printf format)
 */
static void __attribute__((format(printf, 2, 3))) ck_fail(int ck, const char *fmt, ...)
{
	char msg[400];
	unsigned int n = atomic_fetch_add(&ck_fails[ck], 1), i;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&ck_mtx);
	if (!n)
		snprintf(ck_first[ck], sizeof(ck_first[ck]), "%s (thread %d run %u)", msg,
			 self ? self->id : -1, ck_seq);
	for (i = 0; i < CK_KINDS; i++) {
		if (!ck_kind[i].fmt) {
			ck_kind[i].ck = ck;
			ck_kind[i].fmt = fmt;
			snprintf(ck_kind[i].first, sizeof(ck_kind[i].first), "%s", msg);
		}
		if (ck_kind[i].ck == ck && ck_kind[i].fmt == fmt) {
			ck_kind[i].n++;
			break;
		}
	}
	if (n < 5) {
		printf("# check %s: %s (seed %llu, thread %d, run %u)\n", ck_names[ck], msg,
		       (unsigned long long)opt.seed, self ? self->id : -1, ck_seq);
		fflush(stdout);
	}
	pthread_mutex_unlock(&ck_mtx);
}

/**
 * ck_skip() - remember why check @ck could not run (the latest reason)
 * @ck: CK_*
 * @fmt: why (printf format)
 */
static void __attribute__((format(printf, 2, 3))) ck_skip(int ck, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&ck_mtx);
	va_start(ap, fmt);
	vsnprintf(ck_skip_why[ck], sizeof(ck_skip_why[ck]), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&ck_mtx);
}

/**
 * struct ck_ring - a private ring: each part on its own pages
 * @fd: the vring fd (-1: none)
 * @num: ring size
 * @map: the mapping (desc | avail | used | last_used | buffers)
 * @mapsz: its size
 * @desc: descriptor table (pages from @map)
 * @avail: avail ring (own page)
 * @used: used ring (own pages)
 * @usedsz: bytes of the used ring's pages
 * @last_used: the user's last_used (own page)
 * @bufs: buffer pages
 * @bufsz: bytes of @bufs
 * @aidx: next avail index the test posts
 */
struct ck_ring {
	int fd;
	unsigned int num;
	uint8_t *map;
	size_t mapsz;
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	size_t usedsz;
	uint16_t *last_used;
	uint8_t *bufs;
	size_t bufsz;
	uint16_t aidx;
};

/**
 * ck_round() - round @n up to whole pages
 * @n: bytes
 *
 * Return: the rounded size.
 */
static size_t ck_round(size_t n)
{
	return (n + CK_PAGE - 1) & ~(CK_PAGE - 1);
}

/**
 * ck_ring_new_in() - map a private ring and create its vring fd
 * @r: filled in
 * @num: ring size
 * @bufsz: bytes of buffer pages after the ring
 * @features: VRINGFD_CREATE features
 * @memfd: -1 (anonymous memory), or a memfd made with MFD_ALLOW_SEALING:
 *	sized to the mapping, sealed with F_SEAL_SHRINK and mapped shared
 *
 * Return: 0, or -errno (nothing left behind but @memfd).
 */
static int ck_ring_new_in(struct ck_ring *r, unsigned int num, size_t bufsz,
			  uint64_t features, int memfd)
{
	size_t dsz = ck_round(16UL * num), asz = ck_round(6 + 2UL * num);
	struct vringfd_create c;
	int ctl, e;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->num = num;
	r->usedsz = ck_round(6 + 8UL * num);
	r->bufsz = ck_round(bufsz);
	r->mapsz = dsz + asz + r->usedsz + CK_PAGE + r->bufsz;
	if (memfd >= 0 && (ftruncate(memfd, (off_t)r->mapsz) ||
			   fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK)))
		return -errno;
	r->map = mmap(NULL, r->mapsz, PROT_READ | PROT_WRITE,
		      memfd >= 0 ? MAP_SHARED : MAP_PRIVATE | MAP_ANONYMOUS, memfd, 0);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		return -errno;
	}
	r->desc = (struct vring_desc *)r->map;
	r->avail = (struct vring_avail *)(r->map + dsz);
	r->used = (struct vring_used *)(r->map + dsz + asz);
	r->last_used = (uint16_t *)(r->map + dsz + asz + r->usedsz);
	r->bufs = r->map + dsz + asz + r->usedsz + CK_PAGE;
	memset(&c, 0, sizeof(c));
	c.num = num;
	c.features = features;
	c.desc_addr = (uintptr_t)r->desc;
	c.avail_addr = (uintptr_t)r->avail;
	c.used_addr = (uintptr_t)r->used;
	c.last_used_addr = (uintptr_t)r->last_used;
	ctl = open(getenv("VRINGFD_DEVICE") ? getenv("VRINGFD_DEVICE") : "/dev/vringfd",
		   O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		e = -errno;
		munmap(r->map, r->mapsz);
		r->map = NULL;
		return e;
	}
	r->fd = ioctl(ctl, VRINGFD_CREATE, &c);
	e = -errno;
	close(ctl);
	if (r->fd < 0) {
		munmap(r->map, r->mapsz);
		r->map = NULL;
		return e;
	}
	return 0;
}

/**
 * ck_ring_new() - map a private ring in anonymous memory, create its vring fd
 * @r: filled in
 * @num: ring size
 * @bufsz: bytes of buffer pages after the ring
 * @features: VRINGFD_CREATE features
 *
 * Return: 0, or -errno (nothing left behind).
 */
static int ck_ring_new(struct ck_ring *r, unsigned int num, size_t bufsz, uint64_t features)
{
	return ck_ring_new_in(r, num, bufsz, features, -1);
}

/**
 * ck_ring_free() - close the vring fd and unmap the ring
 * @r: the ring (may be unused)
 */
static void ck_ring_free(struct ck_ring *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	if (r->map)
		munmap(r->map, r->mapsz);
	r->map = NULL;
}

/**
 * ck_post() - post a one-descriptor chain and publish it
 * @r: the ring
 * @addr: buffer address (user or guest)
 * @len: its length
 * @write: a writable (RX) buffer
 *
 * Return: the head posted.
 */
static uint16_t ck_post(struct ck_ring *r, uint64_t addr, uint32_t len, bool write)
{
	uint16_t head = r->aidx & (r->num - 1);

	r->desc[head].addr = addr;
	r->desc[head].len = len;
	r->desc[head].flags = write ? VRING_DESC_F_WRITE : 0;
	r->desc[head].next = 0;
	r->avail->ring[head] = head;
	r->aidx++;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	r->avail->idx = r->aidx;
	return head;
}

/**
 * ck_state() - GET_STATE
 * @r: the ring
 * @st: filled in (zeroed on failure)
 *
 * Return: 0, or -errno.
 */
static int ck_state(struct ck_ring *r, struct vringfd_state *st)
{
	memset(st, 0, sizeof(*st));
	return ioctl(r->fd, VRINGFD_GET_STATE, st) ? -errno : 0;
}

/**
 * ck_stats() - GET_STATS
 * @r: the ring
 * @st: filled in (zeroed on failure)
 */
static void ck_stats(struct ck_ring *r, struct vringfd_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (ioctl(r->fd, VRINGFD_GET_STATS, st))
		memset(st, 0, sizeof(*st));
}

/**
 * ck_drops() - the sum of a ring's drop counters (the tap's own excluded)
 * @s: the counters
 *
 * Return: the sum.
 */
static uint64_t ck_drops(const struct vringfd_stats *s)
{
	return s->drop_bad_chain + s->drop_too_big + s->drop_bad_hdr + s->drop_bad_addr +
	       s->drop_tap;
}

/**
 * ck_frame() - an Ethernet frame: broadcast, ethertype 0x88b5, @tag in
 *	every payload byte
 * @b: at least @len bytes
 * @len: frame length (>= 14)
 * @tag: payload byte
 */
static void ck_frame(uint8_t *b, size_t len, uint8_t tag)
{
	memset(b, 0xff, 6);
	memcpy(b + 6, "\x02\x00\x00\x00\x00\x07", 6);
	b[12] = CK_ETHERTYPE >> 8;
	b[13] = CK_ETHERTYPE & 0xff;
	memset(b + 14, tag, len - 14);
}

/**
 * ck_is_frame() - does @b start with a frame of ck_frame()?
 * @b: bytes
 *
 * Return: true when it does.
 */
static bool ck_is_frame(const uint8_t *b)
{
	static const uint8_t h[14] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 7,
				       CK_ETHERTYPE >> 8, CK_ETHERTYPE & 0xff };

	return !memcmp(b, h, sizeof(h));
}

/**
 * ck_proc_write() - write a string to a /proc or /sys file, quietly
 * @path: file
 * @s: text
 */
static void ck_proc_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, s, strlen(s)) < 0)
		errno = 0;
	close(fd);
}

/**
 * ck_dev_up() - IPv6 off (no frames of the stack's own), then IFF_UP
 * @name: interface
 */
static void ck_dev_up(const char *name)
{
	char path[96];

	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6", name);
	ck_proc_write(path, "1");
	if_up(name);
}

/**
 * ck_tap_new() - a private single-queue tap, up, with header @hdr
 * @name: out, IFNAMSIZ bytes
 * @hdr: 0 (no IFF_VNET_HDR), 10 or 12
 *
 * Return: the queue fd, or -1.
 */
static int ck_tap_new(char *name, unsigned int hdr)
{
	int fd, sz = (int)hdr;

	snprintf(name, IFNAMSIZ, "vsk%d_%u", self->id, ck_seq % 1000);
	fd = tap_open_dev(name, IFF_TAP | IFF_NO_PI | (hdr ? IFF_VNET_HDR : 0));
	if (fd < 0)
		return -1;
	if (hdr && ioctl(fd, TUNSETVNETHDRSZ, &sz)) {
		close(fd);
		return -1;
	}
	ck_dev_up(name);
	return fd;
}

/**
 * ck_attach() - VRINGFD_ATTACH_TAP
 * @r: the ring
 * @tap: tap queue fd
 * @dir: VRINGFD_DIR_*
 * @hdr: declared header length
 * @flags: VRINGFD_TAP_F_*
 *
 * Return: 0, or -errno.
 */
static int ck_attach(struct ck_ring *r, int tap, unsigned int dir, unsigned int hdr,
		     unsigned int flags)
{
	struct vringfd_tap a;

	memset(&a, 0, sizeof(a));
	a.tap_fd = tap;
	a.dir = dir;
	a.vnet_hdr_len = hdr;
	a.flags = flags;
	return ioctl(r->fd, VRINGFD_ATTACH_TAP, &a) ? -errno : 0;
}

/**
 * ck_send() - send a frame out of device @name (it lands in its tap queue)
 * @name: interface
 * @len: frame length
 * @tag: payload byte
 *
 * Return: 0, or -1.
 */
static int ck_send(const char *name, size_t len, uint8_t tag)
{
	static __thread uint8_t fr[1600];
	struct sockaddr_ll sll;
	unsigned int idx = sys_ifindex(name);

	if (self->pkt < 0)
		self->pkt = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (self->pkt < 0 || !idx || len > sizeof(fr))
		return -1;
	ck_frame(fr, len, tag);
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = (int)idx;
	sll.sll_halen = 6;
	memset(sll.sll_addr, 0xff, 6);
	return sendto(self->pkt, fr, len, 0, (struct sockaddr *)&sll, sizeof(sll)) ==
	       (ssize_t)len ? 0 : -1;
}

/**
 * ck_bad_addr() - a TX buffer address the module must refuse or fail to read
 * @r: the ring (its last buffer page is PROT_NONE)
 * @len: the chain's length
 * @memtab: a memory table is installed (then also: outside it)
 * @fixed: the kind to use (0..3, 4 with @memtab), or -1: any
 * @kind: out, a word for messages
 *
 * Return: the address.
 */
static uint64_t ck_bad_addr(struct ck_ring *r, uint32_t len, bool memtab, int fixed,
			    const char **kind)
{
	uint8_t *none = r->bufs + r->bufsz - CK_PAGE;

	switch (fixed >= 0 ? (unsigned int)fixed : rndn(memtab ? 5 : 4)) {
	case 0:
		*kind = "kernel";
		return 0xffff888000000000ULL + CK_PAGE * rndn(1024);
	case 1:
		*kind = "non-canonical";
		return 0x8000000000000000ULL + CK_PAGE * rndn(1024);
	case 2:
		*kind = "PROT_NONE";
		return (uintptr_t)none + rndn(CK_PAGE - len);
	case 3:
		*kind = "into PROT_NONE";
		return (uintptr_t)none - len / 2;
	default:
		*kind = "outside the memory table";
		return (uintptr_t)r->map + r->mapsz + CK_PAGE * (1 + rndn(16));
	}
}

/**
 * ck_acct() - TX chains with bad addresses mixed with good ones: every
 *	chain accounted, no "nothing to do" while usable chains remain
 */
static void ck_acct(void)
{
	static const unsigned int pbad[] = { 0, 10, 50, 90, 100 };
	unsigned int num = 1u << (6 + rndn(3)), hdr = rndn(3) ? 0 : 10 + 2 * rndn(2);
	unsigned int posted, nbad = 0, i, calls, ncalls = 0, good_c, bad_c, p, run_bad = 0;
	struct vringfd_stats s0, s1;
	struct vringfd_state st;
	uint16_t prev, la0;
	uint8_t bad[256];
	bool memtab = chance(40);
	int fixed = chance(30) ? -1 : (int)rndn(memtab ? 5 : 4);
	const char *kind = "";
	char name[IFNAMSIZ];
	struct ck_ring r;
	long sum = 0, rr;
	int tap;

	if (ck_ring_new(&r, num, num * 2048UL + CK_PAGE, 0))
		return;
	tap = ck_tap_new(name, hdr);
	if (tap < 0 || ck_attach(&r, tap, VRINGFD_DIR_TX, hdr, 0)) {
		ck_skip(CK_ACCT, "a private tap or its attach failed: %s", strerror(errno));
		goto out;
	}
	mprotect(r.bufs + r.bufsz - CK_PAGE, CK_PAGE, PROT_NONE);
	if (memtab) {
		struct {
			struct vringfd_mem_table t;
			struct vringfd_mem_region rg[1];
		} mt;

		memset(&mt, 0, sizeof(mt));
		mt.t.nregions = 1;
		mt.rg[0].guest_addr = (uintptr_t)r.map;
		mt.rg[0].user_addr = (uintptr_t)r.map;
		mt.rg[0].size = r.mapsz;
		if (ioctl(r.fd, VRINGFD_SET_MEM_TABLE, &mt)) {
			ck_fail(CK_ACCT, "SET_MEM_TABLE (identity): %s", strerror(errno));
			goto out;
		}
	}
	atomic_fetch_add(&ck_runs[CK_ACCT], 1);
	posted = 1 + rndn(num);
	p = pbad[rndn(5)];
	if (num >= 128 && chance(40)) {
		/* 64 or more bad chains first, then mostly good ones */
		run_bad = 64 + rndn(40);
		posted = run_bad + 1 + rndn(num - run_bad);
		p = pbad[rndn(3)];
	}
	for (i = 0; i < posted; i++) {
		uint32_t flen = 60 + rndn(1455), len = flen + hdr;
		uint8_t *b = r.bufs + (size_t)i * 2048;

		bad[i] = i < run_bad || chance(p);
		if (bad[i]) {
			ck_post(&r, ck_bad_addr(&r, len, memtab, fixed, &kind), len, false);
			nbad++;
		} else {
			memset(b, 0, hdr);
			ck_frame(b + hdr, flen, (uint8_t)i);
			ck_post(&r, (uintptr_t)b, len, false);
		}
	}
	ck_stats(&r, &s0);
	ck_state(&r, &st);
	la0 = st.last_avail;
	prev = la0;
	for (calls = 0; calls < 4 + posted / 32; calls++) {
		unsigned int left, took, good_left = 0;

		rr = write(r.fd, NULL, 0);
		ncalls++;
		if (rr < 0 && errno == EINTR)
			continue;
		if (rr < 0) {
			ck_fail(CK_ACCT, "write() %u of %u posted (%u bad, last %s): %s", ncalls,
				posted, nbad, kind, strerror(errno));
			goto out;
		}
		sum += rr;
		ck_state(&r, &st);
		left = (uint16_t)(r.aidx - st.last_avail);
		took = (uint16_t)(st.last_avail - prev);
		prev = st.last_avail;
		if (rr != took)
			ck_fail(CK_ACCT, "write() = %ld but %u chains consumed (%u posted, %u bad: %s%s)",
				rr, took, posted, nbad, nbad ? fixed >= 0 ? kind : "mixed" : "-",
				run_bad ? ", bad ones first" : "");
		if (!left)
			break;
		for (i = posted - left; i < posted; i++)
			good_left += !bad[i];
		if (rr == 0 && good_left && took < CK_WEIGHT_CHAINS) {
			ck_fail(CK_ACCT, "write() = 0 with %u chains left (%u good) after taking %u of %u "
				"(%u bad: %s%s, hdr %u, %s)", left, good_left, took, posted, nbad,
				fixed >= 0 ? kind : "mixed", run_bad ? ", bad ones first" : "", hdr,
				memtab ? "memory table" : "no table");
			break;
		}
	}
	ck_state(&r, &st);
	ck_stats(&r, &s1);
	if ((uint16_t)(r.aidx - st.last_avail))
		ck_fail(CK_ACCT, "%u of %u chains never consumed after %u write() calls (%u bad)",
			(uint16_t)(r.aidx - st.last_avail), posted, ncalls, nbad);
	good_c = bad_c = 0;
	for (i = 0; i < (uint16_t)(st.last_avail - la0) && i < posted; i++) {
		good_c += !bad[i];
		bad_c += bad[i];
	}
	if (sum != (uint16_t)(st.last_avail - la0))
		ck_fail(CK_ACCT, "write() answers sum to %ld, %u chains consumed", sum,
			(uint16_t)(st.last_avail - la0));
	if (s1.frames - s0.frames != good_c || ck_drops(&s1) - ck_drops(&s0) != bad_c)
		ck_fail(CK_ACCT, "consumed %u good + %u bad chains: frames +%llu, drops +%llu "
			"(bad_addr +%llu, bad_chain +%llu, tap +%llu)", good_c, bad_c,
			(unsigned long long)(s1.frames - s0.frames),
			(unsigned long long)(ck_drops(&s1) - ck_drops(&s0)),
			(unsigned long long)(s1.drop_bad_addr - s0.drop_bad_addr),
			(unsigned long long)(s1.drop_bad_chain - s0.drop_bad_chain),
			(unsigned long long)(s1.drop_tap - s0.drop_tap));
	if (st.used_idx != st.last_avail || r.used->idx != st.used_idx)
		ck_fail(CK_ACCT, "after write(): last_avail %u, used_idx %u, used->idx %u (TX keeps no head)",
			st.last_avail, st.used_idx, r.used->idx);
	else {
		uint8_t seen[256];
		uint16_t u;

		memset(seen, 0, sizeof(seen));
		for (u = la0; u != st.used_idx; u++) {
			uint32_t id = r.used->ring[u & (num - 1)].id;

			if (id >= num || seen[id]++) {
				ck_fail(CK_ACCT, "used entry %u: id %u out of range or twice", u, id);
				break;
			}
		}
	}
out:
	if (tap >= 0)
		close(tap);
	ck_ring_free(&r);
}

/**
 * ck_used_fault() - a ring part made unwritable/unreadable after creation:
 *	the next write()/read() that needs it answers EFAULT, then EIO
 */
static void ck_used_fault(void)
{
	static const char *const what[] = { "read-only used ring", "PROT_NONE used ring",
					    "PROT_NONE descriptor table", "PROT_NONE avail ring" };
	unsigned int num = 1u << (3 + rndn(4)), mode = rndn(10), k = 1 + rndn(8), i;
	bool rx = chance(30);
	struct vringfd_state st0, st;
	struct vringfd_stats s0, s1;
	char name[IFNAMSIZ];
	struct ck_ring r;
	int tap = -1, e;
	long rr;

	mode = mode < 4 ? 0 : mode < 6 ? 1 : mode < 8 ? 2 : 3;
	if (ck_ring_new(&r, num, 8 * 2048, 0))
		return;
	tap = ck_tap_new(name, 0);
	if (tap < 0 || ck_attach(&r, tap, rx ? VRINGFD_DIR_RX : VRINGFD_DIR_TX, 0, 0)) {
		ck_skip(CK_USED, "a private tap or its attach failed: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < k && i < num; i++) {
		uint8_t *b = r.bufs + (size_t)i * 2048;
		uint32_t len = rx ? 2048 : 60 + rndn(1000);

		if (!rx)
			ck_frame(b, len, (uint8_t)i);
		ck_post(&r, (uintptr_t)b, len, rx);
	}
	if (rx && ck_send(name, 60 + rndn(1000), 1)) {
		ck_skip(CK_USED, "sending a frame out of %s failed: %s", name, strerror(errno));
		goto out;
	}
	ck_state(&r, &st0);
	ck_stats(&r, &s0);
	switch (mode) {
	case 0:
		e = mprotect(r.used, r.usedsz, PROT_READ);
		break;
	case 1:
		e = mprotect(r.used, r.usedsz, PROT_NONE);
		break;
	case 2:
		e = mprotect(r.desc, (uint8_t *)r.avail - (uint8_t *)r.desc, PROT_NONE);
		break;
	default:
		e = mprotect(r.avail, (uint8_t *)r.used - (uint8_t *)r.avail, PROT_NONE);
		break;
	}
	if (e)
		goto out;
	atomic_fetch_add(&ck_runs[CK_USED], 1);
	rr = rx ? read(r.fd, NULL, 0) : write(r.fd, NULL, 0);
	e = rr < 0 ? errno : 0;
	ck_state(&r, &st);
	ck_stats(&r, &s1);
	if (rr >= 0 && st.last_avail == st0.last_avail && s1.calls - s0.calls <= 1 &&
	    s1.frames == s0.frames && ck_drops(&s1) == ck_drops(&s0) && rx) {
		/* the frame had not reached the queue: nothing was touched */
		atomic_fetch_add(&ck_inconclusive[CK_USED], 1);
		goto out;
	}
	if (e == EINTR)
		goto out;
	if (e != EFAULT) {
		ck_fail(CK_USED, "%s() with a %s (%u chains posted) = %ld%s%s, want EFAULT "
			"(frames +%llu, last_avail +%u)", rx ? "read" : "write", what[mode], k, rr,
			rr < 0 ? " " : "", rr < 0 ? strerrorname_np(e) : "",
			(unsigned long long)(s1.frames - s0.frames),
			(uint16_t)(st.last_avail - st0.last_avail));
		goto out;
	}
	rr = rx ? read(r.fd, NULL, 0) : write(r.fd, NULL, 0);
	if (!(st.flags & VRINGFD_STATE_BROKEN) || rr >= 0 || errno != EIO)
		ck_fail(CK_USED, "after EFAULT (%s): STATE_BROKEN %s, next %s() = %ld (%s), want EIO",
			what[mode], st.flags & VRINGFD_STATE_BROKEN ? "set" : "not set",
			rx ? "read" : "write", rr, rr < 0 ? strerror(errno) : "-");
out:
	if (tap >= 0)
		close(tap);
	ck_ring_free(&r);
}

/**
 * ck_rx_fault() - RX buffers, some unwritable, each framed by canaries:
 *	an unwritable buffer is never completed with data and nothing lands
 *	outside the posted buffers
 */
static void ck_rx_fault(void)
{
	enum { GOOD, NONE, RDONLY };
	static const char *const kn[] = { "writable", "PROT_NONE", "read-only" };
	unsigned int hdr = chance(50) ? 0 : 10 + 2 * rndn(2), nb = 1 + rndn(4), i, nused;
	unsigned int got = 0, bad_done = 0, good_frames = 0, tries;
	const uint32_t off = 256, blen = 1600;
	struct vringfd_stats s0, s1;
	struct vringfd_state st;
	uint8_t kind[4];
	char name[IFNAMSIZ];
	struct ck_ring r;
	int tap = -1;

	if (ck_ring_new(&r, 16, nb * CK_PAGE, 0))
		return;
	tap = ck_tap_new(name, hdr);
	if (tap < 0 || ck_attach(&r, tap, VRINGFD_DIR_RX, hdr, 0)) {
		ck_skip(CK_RXFAULT, "a private tap or its attach failed: %s", strerror(errno));
		goto out;
	}
	memset(r.bufs, 0xe7, nb * CK_PAGE);
	for (i = 0; i < nb; i++) {
		kind[i] = chance(50) ? GOOD : chance(50) ? NONE : RDONLY;
		ck_post(&r, (uintptr_t)r.bufs + i * CK_PAGE + off, blen, true);
		if (kind[i] != GOOD)
			mprotect(r.bufs + i * CK_PAGE, CK_PAGE, kind[i] == NONE ? PROT_NONE : PROT_READ);
	}
	ck_stats(&r, &s0);
	memset(&st, 0, sizeof(st));
	atomic_fetch_add(&ck_runs[CK_RXFAULT], 1);
	for (i = 0; i < nb; i++)
		if (ck_send(name, 60 + rndn(1400), (uint8_t)(0x10 + i)))
			break;
	for (tries = 0; tries < 8; tries++) {
		if (read(r.fd, NULL, 0) < 0 && errno != EINTR) {
			ck_fail(CK_RXFAULT, "read(): %s (hdr %u, %u buffers)", strerror(errno), hdr, nb);
			break;
		}
		ck_state(&r, &st);
		if (st.used_idx == r.aidx)
			break;
		usleep(2000);
	}
	ck_stats(&r, &s1);
	mprotect(r.bufs, nb * CK_PAGE, PROT_READ | PROT_WRITE);
	nused = (uint16_t)(st.used_idx);
	for (i = 0; i < nused && i < 16; i++) {
		struct vring_used_elem u = r.used->ring[i];
		uint8_t *b;

		if (u.id >= nb) {
			ck_fail(CK_RXFAULT, "used entry %u has id %u, %u posted", i, u.id, nb);
			continue;
		}
		b = r.bufs + u.id * CK_PAGE + off;
		got++;
		if (kind[u.id] != GOOD) {
			bad_done++;
			if (u.len)
				ck_fail(CK_RXFAULT, "a %s buffer was completed with used.len %u (hdr %u): "
					"a frame counted as delivered that could not be written",
					kn[kind[u.id]], u.len, hdr);
		} else if (u.len) {
			if (u.len > blen || u.len < hdr + 14 || !ck_is_frame(b + hdr))
				ck_fail(CK_RXFAULT, "used.len %u (hdr %u) but the buffer holds no frame",
					u.len, hdr);
			else
				good_frames++;
		}
	}
	if (s1.frames - s0.frames != good_frames)
		ck_fail(CK_RXFAULT, "frames counter +%llu, %u buffers hold a frame (%u unwritable "
			"completed, drop_bad_addr +%llu, hdr %u)",
			(unsigned long long)(s1.frames - s0.frames), good_frames, bad_done,
			(unsigned long long)(s1.drop_bad_addr - s0.drop_bad_addr), hdr);
	for (i = 0; i < nb; i++) {
		uint8_t *pg = r.bufs + i * CK_PAGE;
		uint32_t j, end = kind[i] == GOOD ? off + blen : off;

		for (j = 0; j < CK_PAGE; j++) {
			if (j >= off && j < end)
				continue;
			if (pg[j] != 0xe7) {
				ck_fail(CK_RXFAULT, "byte %u of a %s buffer's page (buffer at %u..%u) "
					"written: %#x", j, kn[kind[i]], off, off + blen, pg[j]);
				break;
			}
		}
	}
	if (!ioctl(r.fd, VRINGFD_DETACH) && !ck_state(&r, &st) && st.last_avail != st.used_idx)
		ck_fail(CK_RXFAULT, "after DETACH last_avail %u, used_idx %u: %u heads taken and "
			"never completed", st.last_avail, st.used_idx,
			(uint16_t)(st.last_avail - st.used_idx));
out:
	if (tap >= 0)
		close(tap);
	ck_ring_free(&r);
}

/**
 * ck_memtab() - RX heads held across VRINGFD_SET_MEM_TABLE: never written
 *	through the old translation, accounted on DETACH
 */
static void ck_memtab(void)
{
	const size_t rsz = 64 * 1024;
	bool mrg = chance(40), drop = chance(25);
	unsigned int hdr = mrg ? 12 : chance(50) ? 0 : 10, nheld = mrg ? 1 + rndn(3) : 1, i;
	uint32_t blen = hdr + 80 + rndn(200), off[8];
	struct {
		struct vringfd_mem_table t;
		struct vringfd_mem_region rg[1];
	} mt;
	struct vringfd_state st, st1;
	struct vringfd_stats s0, s1;
	uint8_t *u1 = MAP_FAILED, *u2 = MAP_FAILED, *m;
	char name[IFNAMSIZ];
	struct ck_ring r;
	int tap = -1, mfd = -1, tries;
	size_t j, big;

	if (ck_ring_new(&r, 64, 0, 0))
		return;
	u1 = mmap(NULL, rsz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	u2 = mmap(NULL, rsz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mfd = memfd_create("vsk-unrelated", MFD_CLOEXEC);
	if (u1 == MAP_FAILED || u2 == MAP_FAILED || mfd < 0 || ftruncate(mfd, (off_t)rsz))
		goto out;
	tap = ck_tap_new(name, hdr);
	if (tap < 0 || ck_attach(&r, tap, VRINGFD_DIR_RX, hdr, mrg ? VRINGFD_TAP_F_MRG_RXBUF : 0)) {
		ck_skip(CK_MEMTAB, "a private tap or its attach failed: %s", strerror(errno));
		goto out;
	}
	memset(&mt, 0, sizeof(mt));
	mt.t.nregions = 1;
	mt.rg[0].guest_addr = CK_GUEST;
	mt.rg[0].user_addr = (uintptr_t)u1;
	mt.rg[0].size = rsz;
	if (ioctl(r.fd, VRINGFD_SET_MEM_TABLE, &mt)) {
		ck_fail(CK_MEMTAB, "SET_MEM_TABLE: %s", strerror(errno));
		goto out;
	}
	memset(u1, 0xc3, rsz);
	for (i = 0; i < nheld; i++) {
		off[i] = (uint32_t)(i * 4096 + 64 * rndn(32));
		ck_post(&r, CK_GUEST + off[i], blen, true);
	}
	/* too big for the posted buffers: dropped (heads kept), or (MRG) waiting */
	big = nheld * blen + 100 + rndn(200);
	if (big > 1514)
		big = 1514;
	ck_stats(&r, &s0);
	if (ck_send(name, big, 0x77))
		goto out;
	for (tries = 0; tries < 6; tries++) {
		if (read(r.fd, NULL, 0) < 0)
			errno = 0;
		ck_state(&r, &st);
		if (st.last_avail != st.used_idx)
			break;
		usleep(2000);
	}
	/*
	 * Heads held (last_avail ahead of used_idx), or given back at the end
	 * of the call: either way no byte may go through the old translation.
	 * Runs where the big frame never reached the queue (nothing happened)
	 * are inconclusive.
	 */
	ck_stats(&r, &s1);
	if (st.last_avail == st.used_idx && s1.drop_too_big == s0.drop_too_big && !mrg) {
		atomic_fetch_add(&ck_inconclusive[CK_MEMTAB], 1);
		goto out;
	}
	atomic_fetch_add(&ck_runs[CK_MEMTAB], 1);
	/* the region moves to u2 (or is dropped); an unrelated memfd takes its place */
	memcpy(u2, u1, rsz);
	mt.rg[0].guest_addr = drop ? CK_GUEST + (1ULL << 30) : CK_GUEST;
	mt.rg[0].user_addr = (uintptr_t)u2;
	if (ioctl(r.fd, VRINGFD_SET_MEM_TABLE, &mt)) {
		/* refusing while heads are held is one of the allowed answers */
		if (errno != EBUSY && errno != EINVAL)
			ck_fail(CK_MEMTAB, "SET_MEM_TABLE with %u held heads: %s", st.last_avail - st.used_idx,
				strerror(errno));
		goto out;
	}
	m = mmap(u1, rsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, mfd, 0);
	if (m != u1) {
		u1 = MAP_FAILED;
		goto out;
	}
	memset(u1, 0x5a, rsz);
	if (mrg)	/* one more buffer, in the new place, so the waiting frame fits */
		ck_post(&r, CK_GUEST + 32768, 2048, true);
	else if (ck_send(name, 60 + rndn(blen - hdr - 60 + 1), 0x66))
		goto out;
	for (tries = 0; tries < 6; tries++) {
		if (read(r.fd, NULL, 0) < 0)
			errno = 0;
		ck_state(&r, &st1);
		if (st1.used_idx != st.used_idx)
			break;
		usleep(2000);
	}
	ck_stats(&r, &s1);
	for (j = 0; j < rsz; j++)
		if (u1[j] != 0x5a)
			break;
	if (j < rsz) {
		size_t n = 0, k;

		for (k = j; k < rsz; k++)
			n += u1[k] != 0x5a;
		ck_fail(CK_MEMTAB, "%zu bytes of an unrelated memfd mapped at the region's old "
			"place written (first at +%zu; %u held heads, hdr %u%s, table %s)", n, j,
			st.last_avail - st.used_idx, hdr, mrg ? " MRG" : "",
			drop ? "dropped" : "moved");
	}
	for (j = 0; j < rsz; j++) {
		bool inside = false;

		for (i = 0; i < nheld; i++)
			inside |= j >= off[i] && j < off[i] + blen;
		if (mrg && j >= 32768 && j < 32768 + 2048)
			inside = true;
		if (!inside && u2[j] != 0xc3) {
			ck_fail(CK_MEMTAB, "byte +%zu of the region's new place, outside every posted "
				"buffer, written", j);
			break;
		}
	}
	if (!drop && !mrg) {
		/* the small frame, if delivered, is in the first head's new place */
		uint16_t u;

		for (u = st.used_idx; u != st1.used_idx; u++) {
			struct vring_used_elem e = r.used->ring[u & 63];

			if (e.id == 0 && e.len && !ck_is_frame(u2 + off[0] + hdr))
				ck_fail(CK_MEMTAB, "used.len %u for the moved buffer, but its new place "
					"holds no frame", e.len);
		}
	}
	if (ioctl(r.fd, VRINGFD_DETACH) == 0 && !ck_state(&r, &st1) &&
	    st1.last_avail != st1.used_idx)
		ck_fail(CK_MEMTAB, "after DETACH last_avail %u, used_idx %u: %u heads taken and "
			"never completed (%s)", st1.last_avail, st1.used_idx,
			(uint16_t)(st1.last_avail - st1.used_idx), mrg ? "MRG" : "frame dropped");
out:
	if (tap >= 0)
		close(tap);
	ck_ring_free(&r);
	if (u1 != MAP_FAILED)
		munmap(u1, rsz);
	if (u2 != MAP_FAILED)
		munmap(u2, rsz);
	if (mfd >= 0)
		close(mfd);
}

/* The modules of the macvtap/ipvtap checks: loaded by ck_setup()'s thread. */
static atomic_bool ck_mods_ready;

/**
 * ck_load_modules() - a thread: modprobe dummy, macvtap, ipvtap when missing
 * @arg: unused
 *
 * Seconds under TCG (the modules come over 9p): done beside the run, the
 * macvtap/ipvtap checks wait for it (their draws count as not run).
 *
 * Return: NULL.
 */
static void *ck_load_modules(void *arg)
{
	if (access("/sys/module/dummy", F_OK) && system("modprobe -q dummy >/dev/null 2>&1") == -1)
		errno = 0;
	if ((ck_opt.enabled & (1u << CK_GONE_MACVTAP)) && access("/sys/module/macvtap", F_OK) &&
	    system("modprobe -q macvtap >/dev/null 2>&1") == -1)
		errno = 0;
	if ((ck_opt.enabled & (1u << CK_GONE_IPVTAP)) && access("/sys/module/ipvtap", F_OK) &&
	    system("modprobe -q ipvtap >/dev/null 2>&1") == -1)
		errno = 0;
	atomic_store(&ck_mods_ready, true);
	return NULL;
}

/**
 * ck_setup() - start loading the modules of the macvtap/ipvtap checks
 */
static void ck_setup(void)
{
	const char *dbg = getenv("VMRUN_DEBUG_KERNEL");
	pthread_attr_t a;
	pthread_t th;

	if (!ck_opt.reap_ms)
		ck_opt.reap_ms = dbg && !strcmp(dbg, "1") ? 6000 : 2000;

	if (!(ck_opt.enabled & (1u << CK_GONE_MACVTAP | 1u << CK_GONE_IPVTAP))) {
		atomic_store(&ck_mods_ready, true);
		return;
	}
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &a, ck_load_modules, NULL))
		ck_load_modules(NULL);
	pthread_attr_destroy(&a);
}

/**
 * ck_link_del() - ip link del @name, when it exists
 * @name: the device
 *
 * Only a name that exists: ip's lookup of a missing one (SIOCGIFINDEX) asks
 * the kernel for the module "netdev-NAME", a modprobe run that takes
 * seconds under TCG over 9p and held the stress watchdog past its limit.
 */
static void ck_link_del(const char *name)
{
	char cmd[64];

	if (!sys_ifindex(name))
		return;
	snprintf(cmd, sizeof(cmd), "ip link del %s >/dev/null 2>&1", name);
	if (system(cmd) == -1)
		errno = 0;
}

/**
 * ck_open_vtap() - create a macvtap or ipvtap over a private dummy, open
 *	its queue (mknod when devtmpfs did not make the node)
 * @ck: CK_GONE_MACVTAP or CK_GONE_IPVTAP
 * @name: out, the device's name
 * @lower: out, the dummy's name
 *
 * Return: the queue fd, or -1 (the devices deleted again).
 */
static int ck_open_vtap(int ck, char *name, char *lower)
{
	char cmd[512], path[64];
	const char *type = ck == CK_GONE_MACVTAP ? "macvtap mode bridge" : "ipvtap mode l2";
	unsigned int idx;
	int fd;

	snprintf(lower, IFNAMSIZ, "vskd%d_%u", self->id, ck_seq % 1000);
	snprintf(name, IFNAMSIZ, "vskv%d_%u", self->id, ck_seq % 1000);
	snprintf(cmd, sizeof(cmd),
		 "ip link add %s type dummy && echo 1 >/proc/sys/net/ipv6/conf/%s/disable_ipv6 && "
		 "ip link set %s up && ip link add link %s name %s type %s && "
		 "echo 1 >/proc/sys/net/ipv6/conf/%s/disable_ipv6 && ip link set %s up",
		 lower, lower, lower, lower, name, type, name, name);
	if (system(cmd) != 0)
		goto fail;
	idx = sys_ifindex(name);
	snprintf(path, sizeof(path), "/dev/tap%u", idx);
	if (access(path, F_OK)) {
		snprintf(cmd, sizeof(cmd), "d=$(cat /sys/class/net/%s/*/tap%u/dev) && "
			 "mknod %s c ${d%%:*} ${d#*:}", name, idx, path);
		if (system(cmd) != 0)
			goto fail;
	}
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0)
		return fd;
fail:
	ck_skip(ck, "cannot create or open a %s over a dummy (modules dummy, %s)",
		ck == CK_GONE_MACVTAP ? "macvtap" : "ipvtap",
		ck == CK_GONE_MACVTAP ? "macvtap" : "ipvtap");
	ck_link_del(name);
	ck_link_del(lower);
	return -1;
}

/**
 * ck_gone() - a tun tap, macvtap or ipvtap deleted under a TX and an RX
 *	ring: EPIPE, POLLHUP and STATE_HUP within three calls, no frame
 *	counted after the deletion
 * @ck: CK_GONE_*
 */
static void ck_gone(int ck)
{
	unsigned int hdr = ck == CK_GONE_TUN ? (chance(50) ? 0 : 10) : 10 + 2 * rndn(2), i;
	char name[IFNAMSIZ], lower[IFNAMSIZ] = "", cmd[128], msg[300] = "";
	struct vringfd_stats s0, s1;
	struct vringfd_state st;
	int tap = -1, sz = (int)hdr, w_empty = 0, w_full = 0, rd = 0, ph = 0;
	struct ck_ring tx, rx;
	struct pollfd p[2];
	size_t ml = 0;
	long rr;

	tx.fd = rx.fd = -1;
	tx.map = rx.map = NULL;
	if (ck == CK_GONE_TUN) {
		tap = ck_tap_new(name, hdr);
	} else {
		if (!atomic_load(&ck_mods_ready)) {
			/* not a turn: drawn again once the modules are there */
			atomic_fetch_sub(&ck_draws[ck], 1);
			ck_skip(ck, "modprobe still running");
			if (ck_opt.only)
				usleep(100000);
			return;
		}
		tap = ck_open_vtap(ck, name, lower);
		if (tap < 0 && access(ck == CK_GONE_MACVTAP ? "/sys/module/macvtap" :
				      "/sys/module/ipvtap", F_OK))
			atomic_fetch_or(&ck_unavail, 1u << ck);	/* not built: stop trying */
		if (tap >= 0 && ioctl(tap, TUNSETVNETHDRSZ, &sz)) {
			ck_fail(ck, "TUNSETVNETHDRSZ %d on the queue: %s", sz, strerror(errno));
			goto out;
		}
	}
	if (tap < 0)
		goto out;
	if (ck_ring_new(&tx, 16, 8 * 2048, 0) || ck_ring_new(&rx, 16, 8 * 2048, 0))
		goto out;
	if (ck_attach(&tx, tap, VRINGFD_DIR_TX, hdr, 0) || ck_attach(&rx, tap, VRINGFD_DIR_RX, hdr, 0)) {
		ck_fail(ck, "attach to a %s queue: %s", ck_names[ck] + 5, strerror(errno));
		goto out;
	}
	atomic_fetch_add(&ck_runs[ck], 1);
	if (chance(50)) {	/* some traffic before */
		memset(tx.bufs, 0, hdr);
		ck_frame(tx.bufs + hdr, 60, 1);
		ck_post(&tx, (uintptr_t)tx.bufs, 60 + hdr, false);
		rr = write(tx.fd, NULL, 0);
		if (rr < 0)
			ck_fail(ck, "write() before the deletion: %s", strerror(errno));
	}
	ck_post(&rx, (uintptr_t)rx.bufs, 2048, true);
	snprintf(cmd, sizeof(cmd), "ip link del %s >/dev/null 2>&1", name);
	if (system(cmd) != 0) {
		ck_fail(ck, "ip link del %s failed", name);
		goto out;
	}
	ck_stats(&tx, &s0);
	for (i = 0; i < 3 && !w_empty; i++)
		if (write(tx.fd, NULL, 0) < 0 && errno == EPIPE)
			w_empty = 1;
	for (i = 0; i < 3 && !rd; i++)
		if (read(rx.fd, NULL, 0) < 0 && errno == EPIPE)
			rd = 1;
	memset(tx.bufs + 2048, 0, hdr);
	ck_frame(tx.bufs + 2048 + hdr, 60, 2);
	ck_post(&tx, (uintptr_t)tx.bufs + 2048, 60 + hdr, false);
	for (i = 0; i < 3 && !w_full; i++)
		if (write(tx.fd, NULL, 0) < 0 && errno == EPIPE)
			w_full = 1;
	for (i = 0; i < 3 && ph != 3; i++) {
		p[0].fd = tx.fd;
		p[1].fd = rx.fd;
		p[0].events = p[1].events = POLLIN | POLLOUT;
		p[0].revents = p[1].revents = 0;
		if (poll(p, 2, 0) >= 0)
			ph = (p[0].revents & POLLHUP ? 1 : 0) | (p[1].revents & POLLHUP ? 2 : 0);
	}
	ck_stats(&tx, &s1);
#define CK_GONE_MSG(...) (ml += (size_t)snprintf(msg + ml, ml < sizeof(msg) ? sizeof(msg) - ml : 0, __VA_ARGS__))
	if (!w_empty)
		CK_GONE_MSG(" no EPIPE from write() on the empty TX ring,");
	if (!w_full)
		CK_GONE_MSG(" nor with a frame posted,");
	if (!rd)
		CK_GONE_MSG(" nor from read(),");
	if (ph != 3)
		CK_GONE_MSG(" POLLHUP on %s,", ph == 0 ? "neither ring" : ph == 1 ? "TX only" : "RX only");
	if (ck_state(&tx, &st) || !(st.flags & VRINGFD_STATE_HUP))
		CK_GONE_MSG(" no STATE_HUP on TX,");
	if (ck_state(&rx, &st) || !(st.flags & VRINGFD_STATE_HUP))
		CK_GONE_MSG(" nor on RX,");
	if (s1.frames != s0.frames)
		CK_GONE_MSG(" %llu frames counted as sent after it,",
			    (unsigned long long)(s1.frames - s0.frames));
#undef CK_GONE_MSG
	if (ml)
		ck_fail(ck, "%s deleted (hdr %u), 3 calls each:%s", ck_names[ck] + 5, hdr, msg);
out:
	ck_ring_free(&tx);
	ck_ring_free(&rx);
	if (tap >= 0)
		close(tap);
	if (lower[0]) {
		ck_link_del(name);
		ck_link_del(lower);
	}
}

/* The uffd check: one at a time, one every 6 s. */
static pthread_mutex_t ck_uffd_mtx = PTHREAD_MUTEX_INITIALIZER;
static long long ck_uffd_last_ms;

/**
 * struct ck_writer - the stalled write() of the uffd check
 * @fd: the vring fd
 * @ret: write()'s answer (-errno on failure)
 * @done: set when write() returned
 */
struct ck_writer {
	int fd;
	long ret;
	int done;
};

#ifdef __x86_64__
/**
 * ck_writer_fn() - a CLONE_VM child: one write() on the ring, then exit
 * @arg: its struct ck_writer
 *
 * It shares the test's memory, so the ring's address space is its own and
 * the write() walks the ring, but it is a process of its own, which can be
 * SIGKILLed while stuck.  It runs on the cloning thread's TLS, so it makes
 * raw system calls only (a libc call would set that thread's errno).
 *
 * Return: never (0 for the compiler).
 */
static int ck_writer_fn(void *arg)
{
	struct ck_writer *w = arg;
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "0"((long)SYS_write), "D"((long)w->fd), "S"(0L),
			 "d"(0L) : "rcx", "r11", "memory");
	w->ret = ret;
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	__asm__ volatile("syscall" : : "a"((long)SYS_exit), "D"(0L) : "rcx", "r11", "memory");
	return 0;
}
#endif

/**
 * ck_reap() - wait up to @ms for child @pid to be reaped
 * @pid: the child
 * @ms: bound
 *
 * Return: true when it was reaped.
 */
static bool ck_reap(pid_t pid, unsigned int ms)
{
	long long t0 = now_ms();

	do {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return true;
		usleep(10000);
	} while (now_ms() - t0 <= ms);
	return false;
}

static const char *const ck_child_ops[] = {
	"DETACH", "write()", "read()", "poll()", "ATTACH_TAP", "close()+DETACH",
};

/**
 * ck_child() - in a forked child: one call on the stalled ring, then exit
 * @fd: the vring fd
 * @tap: a tap queue fd (ATTACH_TAP)
 * @op: index into ck_child_ops
 */
static void __attribute__((noreturn)) ck_child(int fd, int tap, int op)
{
	struct vringfd_tap a;
	struct pollfd p;
	int d;

	switch (op) {
	case 0:
		ioctl(fd, VRINGFD_DETACH);
		break;
	case 1:
		if (write(fd, NULL, 0) < 0)
			errno = 0;
		break;
	case 2:
		if (read(fd, NULL, 0) < 0)
			errno = 0;
		break;
	case 3:
		p.fd = fd;
		p.events = POLLIN;
		poll(&p, 1, 100);
		break;
	case 4:
		memset(&a, 0, sizeof(a));
		a.tap_fd = tap;
		a.dir = VRINGFD_DIR_RX;
		ioctl(fd, VRINGFD_ATTACH_TAP, &a);
		break;
	default:
		d = dup(fd);
		close(fd);
		ioctl(d, VRINGFD_DETACH);
		close(d);
		break;
	}
	_exit(0);
}

/**
 * ck_proc_state() - a process's state letter from /proc/PID/stat
 * @pid: the process
 *
 * Return: the letter, or '?'.
 */
static char ck_proc_state(pid_t pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] && p[2] ? p[2] : '?';
}

/**
 * ck_proc_stack() - the first frames of a process's kernel stack, for a
 *	failure line ("f1 < f2 < ...")
 * @pid: the process
 * @buf: filled in ("?" when /proc/PID/stack cannot be read)
 * @len: its size
 */
static void ck_proc_stack(pid_t pid, char *buf, size_t len)
{
	char path[64], line[160], *f, *plus;
	size_t n = 0;
	int frames = 0;
	FILE *fp;

	snprintf(buf, len, "?");
	snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
	fp = fopen(path, "r");
	if (!fp)
		return;
	while (frames < 8 && fgets(line, sizeof(line), fp)) {
		f = strchr(line, ']');
		f = f ? f + 1 : line;
		while (*f == ' ')
			f++;
		plus = strpbrk(f, "+\n");
		if (plus)
			*plus = 0;
		if (!*f)
			continue;
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", frames ? " < " : "", f);
		frames++;
	}
	fclose(fp);
}

/**
 * ck_uffd() - ring memory stuck on a userfaultfd page under a write():
 *	other processes calling into the ring stay killable, and so does the
 *	stuck writer
 *
 * The writer is a CLONE_VM child (the ring's address space, a process of
 * its own); half the runs SIGKILL it too while the page is still missing.
 */
static void ck_uffd(void)
{
	static const char *const part[] = { "descriptor table", "avail ring", "frame buffer" };
	unsigned int target = rndn(3), nch = 2 + rndn(4), i, late = 0;
	struct uffdio_register reg;
	struct uffdio_copy cp;
	struct uffdio_api api;
	static struct ck_writer w;	/* shared with the CLONE_VM child */
	struct pollfd pu;
	pid_t pid[6], wpid = -1;
	int op[6], uffd = -1, tap = -1;
	bool reaped[6], kill_writer = chance(50);
	char name[IFNAMSIZ], msg[200] = "", stk[400];
	static __thread uint8_t save[CK_PAGE];
	struct ck_ring r;
	uint8_t *pg = NULL, *stack = MAP_FAILED;
	size_t ml = 0;
	long long t0;

	if (pthread_mutex_trylock(&ck_uffd_mtx)) {
		if (ck_opt.only)
			usleep(100000);
		return;
	}
	if (now_ms() - ck_uffd_last_ms < 6000) {
		pthread_mutex_unlock(&ck_uffd_mtx);
		if (ck_opt.only)
			usleep(100000);	/* nothing else to do: do not spin */
		return;
	}
	ck_uffd_last_ms = now_ms();
	r.fd = -1;
	r.map = NULL;
#ifndef __x86_64__
	ck_skip(CK_UFFD, "the CLONE_VM writer is written for x86-64 only");
	goto out;
#endif
	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0) {
		ck_skip(CK_UFFD, "userfaultfd(): %s", strerror(errno));
		goto out;
	}
	memset(&api, 0, sizeof(api));
	api.api = UFFD_API;
	if (ioctl(uffd, UFFDIO_API, &api)) {
		ck_skip(CK_UFFD, "UFFDIO_API: %s", strerror(errno));
		goto out;
	}
	if (ck_ring_new(&r, 16, 8 * 2048, 0))
		goto out;
	tap = ck_tap_new(name, 0);
	if (tap < 0 || ck_attach(&r, tap, VRINGFD_DIR_TX, 0, 0)) {
		ck_skip(CK_UFFD, "a private tap or its attach failed: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < 4; i++) {
		ck_frame(r.bufs + i * 2048, 60, (uint8_t)i);
		ck_post(&r, (uintptr_t)r.bufs + i * 2048, 60, false);
	}
	pg = target == 0 ? (uint8_t *)r.desc : target == 1 ? (uint8_t *)r.avail : r.bufs;
	memcpy(save, pg, CK_PAGE);
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)pg;
	reg.range.len = CK_PAGE;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		ck_skip(CK_UFFD, "UFFDIO_REGISTER: %s", strerror(errno));
		goto out;
	}
	madvise(pg, CK_PAGE, MADV_DONTNEED);	/* missing now: the next touch waits */
	memset(&w, 0, sizeof(w));
	w.fd = r.fd;
	stack = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
		     -1, 0);
	if (stack == MAP_FAILED)
		goto resolve;
#ifdef __x86_64__
	/* CLONE_FILES: its exit closes nothing (a copy of the fd table would
	 * hold other threads' taps, whose last close waits for rtnl_lock) */
	wpid = clone(ck_writer_fn, stack + 65536, CLONE_VM | CLONE_FILES | SIGCHLD, &w);
#endif
	if (wpid < 0)
		goto resolve;
	pu.fd = uffd;
	pu.events = POLLIN;
	if (poll(&pu, 1, 3000) != 1) {
		/* write() did not touch the page (or returned first) */
		atomic_fetch_add(&ck_inconclusive[CK_UFFD], 1);
		goto resolve;
	}
	atomic_fetch_add(&ck_runs[CK_UFFD], 1);
	for (i = 0; i < nch; i++) {
		op[i] = i == 0 ? 0 : (int)rndn(6);
		pid[i] = fork();
		if (pid[i] == 0)
			ck_child(r.fd, tap, op[i]);
		reaped[i] = pid[i] < 0;
	}
	usleep(200000);
	for (i = 0; i < nch; i++)
		if (pid[i] > 0)
			kill(pid[i], SIGKILL);
	t0 = now_ms();
	for (;;) {
		bool all = true;

		for (i = 0; i < nch; i++) {
			if (!reaped[i] && waitpid(pid[i], NULL, WNOHANG) == pid[i])
				reaped[i] = true;
			all &= reaped[i];
		}
		if (all || now_ms() - t0 > ck_opt.reap_ms)
			break;
		usleep(10000);
	}
	for (i = 0; i < nch; i++)
		if (!reaped[i]) {
			late++;
			ml += (size_t)snprintf(msg + ml, ml < sizeof(msg) ? sizeof(msg) - ml : 0,
					       " %s (state %c)", ck_child_ops[op[i]], ck_proc_state(pid[i]));
		}
	if (late)
		ck_fail(CK_UFFD, "%u of %u children not reaped %u ms after SIGKILL, the %s stuck on a "
			"userfaultfd page under write():%s", late, nch, ck_opt.reap_ms, part[target], msg);
	if (kill_writer) {
		kill(wpid, SIGKILL);
		if (ck_reap(wpid, ck_opt.reap_ms)) {
			wpid = -1;
		} else {
			ck_proc_stack(wpid, stk, sizeof(stk));
			ck_fail(CK_UFFD, "the writer stuck on the %s's userfaultfd page not reaped %u ms "
				"after SIGKILL (state %c, kernel stack %s)", part[target], ck_opt.reap_ms,
				ck_proc_state(wpid), stk);
		}
	}
resolve:
	memset(&cp, 0, sizeof(cp));
	cp.dst = (uintptr_t)pg;
	cp.src = (uintptr_t)save;
	cp.len = CK_PAGE;
	if (ioctl(uffd, UFFDIO_COPY, &cp) && errno != EEXIST)
		ck_fail(CK_UFFD, "UFFDIO_COPY: %s", strerror(errno));
	if (wpid > 0) {
		if (!ck_reap(wpid, 10000)) {
			ck_fail(CK_UFFD, "write() still stuck 10 s after the page was filled");
			atomic_store(&stop_now, true);
			stack = MAP_FAILED;	/* still its stack */
		} else if (__atomic_load_n(&w.done, __ATOMIC_ACQUIRE) && w.ret < 0 &&
			   w.ret != -EINTR && w.ret != -EFAULT && w.ret != -EIO) {
			ck_fail(CK_UFFD, "the stalled write() answered %s", strerror((int)-w.ret));
		}
	}
	for (i = 0; i < nch && late; i++) {
		/* the children unblock once the page is there */
		if (!reaped[i] && !(reaped[i] = ck_reap(pid[i], 10000)))
			ck_fail(CK_UFFD, "child (%s) not reaped 10 s after the page was filled",
				ck_child_ops[op[i]]);
	}
out:
	ck_ring_free(&r);
	if (stack != MAP_FAILED)
		munmap(stack, 65536);
	if (tap >= 0)
		close(tap);
	if (uffd >= 0)
		close(uffd);
	pthread_mutex_unlock(&ck_uffd_mtx);
}

/**
 * struct ck_mf_table - a table of one memory file region
 * @h: the table
 * @g: its region
 */
struct ck_mf_table {
	struct vringfd_mem_files h;
	struct vringfd_mem_file_region g;
};

/**
 * ck_mf_table_of() - the table of @r over @memfd, guest address = user address
 * @r: a ring from ck_ring_new_in() with @memfd
 * @memfd: its memfd
 * @whole: the whole memfd, or only the ring parts (buffers left out)
 * @t: filled in
 */
static void ck_mf_table_of(const struct ck_ring *r, int memfd, bool whole,
			   struct ck_mf_table *t)
{
	memset(t, 0, sizeof(*t));
	t->h.nregions = 1;
	t->h.desc_addr = (uintptr_t)r->desc;
	t->h.avail_addr = (uintptr_t)r->avail;
	t->h.used_addr = (uintptr_t)r->used;
	t->h.last_used_addr = (uintptr_t)r->last_used;
	t->g.guest_addr = (uintptr_t)r->map;
	t->g.size = whole ? r->mapsz : (size_t)(r->bufs - r->map);
	t->g.fd = memfd;
}

/**
 * ck_mf_set() - VRINGFD_SET_MEM_FILES over @memfd, guest address = user address
 * @r: a ring from ck_ring_new_in() with @memfd
 * @memfd: its memfd
 * @whole: the whole memfd, or only the ring parts (buffers left out)
 *
 * Return: 0, or -errno.
 */
static int ck_mf_set(struct ck_ring *r, int memfd, bool whole)
{
	struct ck_mf_table t;

	ck_mf_table_of(r, memfd, whole, &t);
	return ioctl(r->fd, VRINGFD_SET_MEM_FILES, &t) ? -errno : 0;
}

/**
 * ck_mf_create() - replace @r's vring fd by a ring of memory made in one
 *	call (VRINGFD_CREATE_F_MEM_FILES) over the whole of @memfd
 * @r: a fresh ring from ck_ring_new_in() with @memfd (nothing posted)
 * @memfd: its memfd
 *
 * Return: 0, or -errno (@r keeps its old fd then).
 */
static int ck_mf_create(struct ck_ring *r, int memfd)
{
	struct vringfd_create c;
	struct ck_mf_table t;
	int ctl, fd, e;

	ck_mf_table_of(r, memfd, true, &t);
	memset(&c, 0, sizeof(c));
	c.num = r->num;
	c.flags = VRINGFD_CREATE_F_MEM_FILES;
	c.mem_files = (uintptr_t)&t;
	ctl = open(getenv("VRINGFD_DEVICE") ? getenv("VRINGFD_DEVICE") : "/dev/vringfd",
		   O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -errno;
	fd = ioctl(ctl, VRINGFD_CREATE, &c);
	e = errno;
	close(ctl);
	if (fd < 0)
		return -e;
	close(r->fd);
	r->fd = fd;
	return 0;
}

/**
 * ck_mf_drain() - write() until the ring answers 0 (at most @calls calls)
 * @fd: the vring fd
 * @calls: most calls
 *
 * Async-signal-safe (a forked child of this threaded process runs it).
 * Return: the answers summed, or -errno of the first failing call.
 */
static long ck_mf_drain(int fd, unsigned int calls)
{
	long sum = 0, r;

	while (calls--) {
		r = write(fd, NULL, 0);
		if (r < 0)
			return -errno;
		if (!r)
			break;
		sum += r;
	}
	return sum;
}

/**
 * ck_mf_round() - drain the posted chains of a ring of memory one way
 * @r: the ring
 * @memfd: its memfd, or -1 (closed: the table cannot be replaced)
 * @mode: 0 write() here, 1 in a forked child, 2 in a forked child while
 *	this process replaces the table
 * @whole: out: whether the last table set covers the buffers
 *
 * Return: the chains answered, or -errno (-ECHILD: the child failed).
 */
static long ck_mf_round(struct ck_ring *r, int memfd, unsigned int mode, bool *whole)
{
	long got = -ECHILD, more;
	unsigned int k;
	int p[2], st;
	pid_t pid;

	if (!mode)
		return ck_mf_drain(r->fd, 64);
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		got = ck_mf_drain(r->fd, 64);
		_exit(write(p[1], &got, sizeof(got)) == sizeof(got) ? 0 : 1);
	}
	close(p[1]);
	for (k = 0; mode == 2 && memfd >= 0 && pid > 0 && k < 1 + rndn(4); k++) {
		*whole = chance(75);
		more = ck_mf_set(r, memfd, *whole);
		if (more) {
			ck_fail(CK_MEMFILES, "replacing the table while a child walks: %s",
				strerror((int)-more));
			break;
		}
	}
	if (pid < 0 || read(p[0], &got, sizeof(got)) != sizeof(got))
		got = -ECHILD;
	close(p[0]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	if (got < 0)
		return got;
	more = ck_mf_drain(r->fd, 64);	/* what the child left, if anything */
	return more < 0 ? more : got + more;
}

/**
 * ck_mf_tx_ring() - a TX ring of memory in a new sealed memfd, attached to
 *	a private tap
 * @ck: the check (its failure and skip lines)
 * @r: the ring (filled in)
 * @num: ring size
 * @memfd: the memfd (out), or -1
 * @tap: the tap fd (out), or -1
 * @name: the tap's name (out, IFNAMSIZ bytes)
 * @huge: try a hugetlbfs memfd of one 2 MiB huge page first (out: it is
 *	one); a shmem memfd when the pool has no page
 *
 * In 30 % of the calls the ring of memory is made by VRINGFD_CREATE
 * itself (VRINGFD_CREATE_F_MEM_FILES), counted in ck_create_runs[@ck].
 *
 * Return: 1 (ready), 0 (the ring was made, the rest failed and was
 * reported: free it), -1 (nothing made).
 */
static int ck_mf_tx_ring(int ck, struct ck_ring *r, unsigned int num, int *memfd, int *tap,
			 char *name, bool *huge)
{
	/* the ring's pages before its buffers (ck_ring_new_in()'s layout) */
	size_t ring = ck_round(16UL * num) + ck_round(6 + 2UL * num) +
		      ck_round(6 + 8UL * num) + CK_PAGE;

	*tap = -1;
	*memfd = -1;
	if (*huge) {
		*memfd = memfd_create("vsk-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_HUGETLB);
		if (*memfd >= 0 && ck_ring_new_in(r, num, (2UL << 20) - ring, 0, *memfd)) {
			close(*memfd);
			*memfd = -1;
		}
		*huge = *memfd >= 0;
	}
	if (*memfd < 0) {
		*memfd = memfd_create("vsk-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		if (*memfd < 0)
			return -1;
		if (ck_ring_new_in(r, num, 64 * 2048, 0, *memfd)) {
			close(*memfd);
			*memfd = -1;
			return -1;
		}
	}
	if (chance(30)) {
		int e = ck_mf_create(r, *memfd);

		if (e) {
			ck_fail(ck, "VRINGFD_CREATE_F_MEM_FILES of a sealed memfd: %s", strerror(-e));
			return 0;
		}
		atomic_fetch_add(&ck_create_runs[ck], 1);
	} else if (ck_mf_set(r, *memfd, true)) {
		ck_fail(ck, "SET_MEM_FILES of a sealed memfd: %s", strerror(errno));
		return 0;
	}
	*tap = ck_tap_new(name, 0);
	if (*tap < 0 || ck_attach(r, *tap, VRINGFD_DIR_TX, 0, 0)) {
		ck_skip(ck, "a private tap or its attach failed: %s", strerror(errno));
		return 0;
	}
	return 1;
}

/**
 * ck_mf_post_round() - post 1..@num TX frames of random sizes (60..1459
 *	bytes, pattern @round) in the ring's 64 buffers
 * @r: the ring
 * @num: ring size
 * @round: the round (the frames' pattern)
 *
 * Return: frames posted.
 */
static unsigned int ck_mf_post_round(struct ck_ring *r, unsigned int num, unsigned int round)
{
	unsigned int n = 1 + rndn(num), j;

	for (j = 0; j < n; j++) {
		uint8_t *b = r->bufs + (size_t)(r->aidx % 64) * 2048;
		uint32_t len = 60 + rndn(1400);

		ck_frame(b, len, (uint8_t)round);
		ck_post(r, (uintptr_t)b, len, false);
	}
	return n;
}

/**
 * ck_memfiles() - a ring of memory drained by this process, forked
 *	children, and children racing a table replacement: every chain
 *	answered and counted once
 */
static void ck_memfiles(void)
{
	static const char *const how[] = { "here", "in a child", "in a child, table replaced" };
	unsigned int num = 1u << (3 + rndn(4)), rounds = 2 + rndn(5), i, mode = 0;
	uint64_t posted = 0, answered = 0;
	struct vringfd_state st;
	struct vringfd_stats s;
	char name[IFNAMSIZ];
	bool whole = true, huge = chance(30);
	struct ck_ring r;
	int memfd, tap, made;
	long got;

	made = ck_mf_tx_ring(CK_MEMFILES, &r, num, &memfd, &tap, name, &huge);
	if (made < 0)
		return;
	if (!made)
		goto out;
	if (huge)
		atomic_fetch_add(&ck_hugetlb_runs[CK_MEMFILES], 1);
	if (chance(25)) {
		close(memfd);	/* the module holds the file */
		memfd = -1;
	}
	atomic_fetch_add(&ck_runs[CK_MEMFILES], 1);
	for (i = 0; i < rounds; i++) {
		if (memfd >= 0 && i == rounds - 1 && chance(30) &&
		    fallocate(memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      r.bufs - r.map, (off_t)r.bufsz))
			ck_fail(CK_MEMFILES, "punching a hole: %s", strerror(errno));
		posted += ck_mf_post_round(&r, num, i);
		mode = rndn(3);
		got = ck_mf_round(&r, memfd, mode, &whole);
		if (got < 0) {
			ck_fail(CK_MEMFILES, "write() on a ring of memory (%s): %s", how[mode],
				strerror((int)-got));
			goto out;
		}
		answered += (uint64_t)got;
	}
	ck_state(&r, &st);
	ck_stats(&r, &s);
	if (answered != posted || s.frames + ck_drops(&s) != posted ||
	    st.last_avail != r.aidx || st.used_idx != r.aidx ||
	    __atomic_load_n(&r.used->idx, __ATOMIC_ACQUIRE) != r.aidx)
		ck_fail(CK_MEMFILES, "%llu chains posted, %llu answered, frames %llu + drops %llu, "
			"last_avail %u used_idx %u used->idx %u, want %u (last round %s, "
			"last table %s)", (unsigned long long)posted,
			(unsigned long long)answered, (unsigned long long)s.frames,
			(unsigned long long)ck_drops(&s), st.last_avail, st.used_idx,
			r.used->idx, r.aidx, how[mode], whole ? "whole" : "ring parts only");
out:
	if (tap >= 0)
		close(tap);
	ck_ring_free(&r);
	if (memfd >= 0)
		close(memfd);
}

/**
 * ck_kick_give() - kick @kick @n times, here or from a forked child
 * @kick: the kick eventfd
 * @n: kicks
 * @child: from a forked child (which only writes the inherited eventfd)
 *
 * Return: 0, or -1 (a kick or the child failed).
 */
static int ck_kick_give(int kick, unsigned int n, bool child)
{
	const uint64_t one = 1;
	unsigned int i;
	pid_t pid;
	int st;

	if (!child) {
		for (i = 0; i < n; i++)
			if (write(kick, &one, sizeof(one)) != sizeof(one))
				return -1;
		return 0;
	}
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < n; i++)
			if (write(kick, &one, sizeof(one)) != sizeof(one))
				_exit(1);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return 0;
}

/**
 * ck_kick_wait() - wait, watching only the call eventfd, until the used
 * ring reaches @want (3 s without news: give up)
 * @r: the ring
 * @call: its call eventfd (non-blocking)
 * @want: the used index awaited
 *
 * Return: true when reached.
 */
static bool ck_kick_wait(struct ck_ring *r, int call, uint16_t want)
{
	struct pollfd p = { .fd = call, .events = POLLIN };
	uint64_t v;

	while (__atomic_load_n(&r->used->idx, __ATOMIC_ACQUIRE) != want) {
		if (poll(&p, 1, 3000) != 1)
			return false;
		if (read(call, &v, sizeof(v)) < 0)
			errno = 0;
	}
	return true;
}

/**
 * ck_kick_left() - after kick mode ended: a kick's count stays
 * @kick: the kick eventfd (non-blocking)
 *
 * Return: true when the count of one kick is there to read.
 */
static bool ck_kick_left(int kick)
{
	uint64_t v = 0;

	if (read(kick, &v, sizeof(v)) < 0)
		v = 0;		/* a count from before: read and forgotten */
	if (ck_kick_give(kick, 1, false))
		return false;
	return read(kick, &v, sizeof(v)) == sizeof(v) && v == 1;
}

/**
 * ck_kick() - a TX ring of memory in kick mode: rounds of frames posted
 *	and kicked, completions awaited on the call eventfd; kick mode ended
 *	one of four ways
 */
static void ck_kick(void)
{
	static const char *const ends[] = { "SET_KICK -1", "DETACH", "close", "tap deleted" };
	unsigned int num = 1u << (3 + rndn(4)), rounds = 2 + rndn(5), end = rndn(4), i, j;
	int memfd, tap, made, kick = -1, call = -1;
	struct vringfd_state st;
	struct vringfd_stats s;
	char name[IFNAMSIZ];
	uint64_t posted = 0;
	bool huge = chance(30);
	struct ck_ring r;
	struct pollfd p;
	int32_t v;

	made = ck_mf_tx_ring(CK_KICK, &r, num, &memfd, &tap, name, &huge);
	if (made < 0)
		return;
	if (!made)
		goto out;
	if (huge)
		atomic_fetch_add(&ck_hugetlb_runs[CK_KICK], 1);
	kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	call = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	v = call;
	if (kick < 0 || call < 0 || ioctl(r.fd, VRINGFD_SET_CALL_FD, &v) ||
	    (v = kick, ioctl(r.fd, VRINGFD_SET_KICK, &v))) {
		ck_fail(CK_KICK, "call fd or SET_KICK: %s", strerror(errno));
		goto out;
	}
	atomic_fetch_add(&ck_runs[CK_KICK], 1);
	for (i = 0; i < rounds; i++) {
		posted += ck_mf_post_round(&r, num, i);
		if (ck_kick_give(kick, 1 + rndn(3), chance(30))) {
			ck_fail(CK_KICK, "round %u: kicking failed", i);
			goto out;
		}
		if (!ck_kick_wait(&r, call, r.aidx)) {
			ck_fail(CK_KICK, "round %u: used->idx %u, want %u, 3 s after the kicks",
				i, __atomic_load_n(&r.used->idx, __ATOMIC_ACQUIRE), r.aidx);
			goto out;
		}
	}
	ck_state(&r, &st);
	ck_stats(&r, &s);
	if (s.frames + ck_drops(&s) != posted || st.last_avail != r.aidx ||
	    st.used_idx != r.aidx)
		ck_fail(CK_KICK, "%llu chains posted, frames %llu + drops %llu, last_avail %u "
			"used_idx %u, want %u", (unsigned long long)posted,
			(unsigned long long)s.frames, (unsigned long long)ck_drops(&s),
			st.last_avail, st.used_idx, r.aidx);
	v = -1;
	switch (end) {
	case 0:
	case 1:
		if (end ? ioctl(r.fd, VRINGFD_DETACH) < 0 : ioctl(r.fd, VRINGFD_SET_KICK, &v) < 0)
			ck_fail(CK_KICK, "%s: %s", ends[end], strerror(errno));
		else if (!ck_kick_left(kick))
			ck_fail(CK_KICK, "a kick after %s was consumed", ends[end]);
		break;
	case 2:
		/*
		 * A child forked meanwhile by another thread holds the ring's
		 * file until it exits: the last close may come a little later.
		 */
		close(r.fd);
		r.fd = -1;
		for (j = 0; j < 30 && !ck_kick_left(kick); j++)
			usleep(100000);
		if (j == 30)
			ck_fail(CK_KICK, "kicks after %s still consumed 3 s later", ends[end]);
		break;
	default:
		ck_link_del(name);
		p.fd = r.fd;
		p.events = 0;
		p.revents = 0;
		if (poll(&p, 1, 3000) != 1 || !(p.revents & POLLHUP))
			ck_fail(CK_KICK, "no POLLHUP 3 s after the tap's deletion (revents %#x)",
				p.revents);
	}
out:
	if (kick >= 0)
		close(kick);
	if (call >= 0)
		close(call);
	if (tap >= 0)
		close(tap);
	ck_ring_free(&r);
	if (memfd >= 0)
		close(memfd);
}

/**
 * op_check() - one checked scenario, drawn among the enabled ones that
 *	were drawn least (every check gets its turn in a short run)
 */
static void op_check(void)
{
	unsigned int n = 0, k, i;
	long long t = now_ms();
	int pick[NCK];

	if (!ck_thread_t0)
		ck_thread_t0 = t;
	if (!ck_opt.only && ck_thread_ms * 100 > (t - ck_thread_t0) * (long long)ck_opt.share)
		return;
	unsigned int least = ~0u;

	unsigned int on = ck_opt.enabled & ~atomic_load(&ck_unavail);

	for (i = 0; i < NCK; i++)
		if ((on & (1u << i)) && atomic_load(&ck_draws[i]) < least)
			least = atomic_load(&ck_draws[i]);
	for (i = 0; i < NCK; i++)
		if ((on & (1u << i)) && atomic_load(&ck_draws[i]) == least)
			pick[n++] = (int)i;
	if (!n) {
		if (ck_opt.only)
			usleep(100000);
		return;
	}
	k = (unsigned int)pick[rndn(n)];
	atomic_fetch_add(&ck_draws[k], 1);
	ck_seq++;
	OP_BEGIN(ck_names[k]);
	switch (k) {
	case CK_ACCT:
		ck_acct();
		break;
	case CK_USED:
		ck_used_fault();
		break;
	case CK_RXFAULT:
		ck_rx_fault();
		break;
	case CK_MEMTAB:
		ck_memtab();
		break;
	case CK_UFFD:
		ck_uffd();
		break;
	case CK_MEMFILES:
		ck_memfiles();
		break;
	case CK_KICK:
		ck_kick();
		break;
	default:
		ck_gone((int)k);
		break;
	}
	OP_END();
	t = now_ms() - t;
	ck_thread_ms += t;
	atomic_fetch_add(&ck_ms[k], t);
}

/**
 * ck_parse() - parse --checks' comma-separated names ("all", "none")
 * @prog: argv[0]
 * @s: the list
 *
 * Return: the CK_* bits.
 */
static unsigned int ck_parse(const char *prog, const char *s)
{
	char buf[256], *tok, *save;
	unsigned int m = 0, i;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all")) {
			m |= (1u << NCK) - 1;
			continue;
		}
		if (!strcmp(tok, "none"))
			continue;
		if (!strcmp(tok, "gone")) {
			m |= 1u << CK_GONE_TUN | 1u << CK_GONE_MACVTAP | 1u << CK_GONE_IPVTAP;
			continue;
		}
		for (i = 0; i < NCK; i++)
			if (!strcmp(tok, ck_names[i]))
				break;
		if (i == NCK) {
			fprintf(stderr, "%s: --checks: unknown check '%s'\n", prog, tok);
			exit(2);
		}
		m |= 1u << i;
	}
	return m;
}

/**
 * ck_report() - one result line per enabled check
 */
static void ck_report(void)
{
	char name[64];
	unsigned int i, k, runs, fails, inc;

	for (i = 0; i < NCK; i++) {
		if (!(ck_opt.enabled & (1u << i)))
			continue;
		snprintf(name, sizeof(name), "stress_check_%s", ck_names[i]);
		runs = atomic_load(&ck_runs[i]);
		fails = atomic_load(&ck_fails[i]);
		inc = atomic_load(&ck_inconclusive[i]);
		printf("# check %s: %u runs, %u failures, %u inconclusive, %.1f s\n", ck_names[i], runs,
		       fails, inc, atomic_load(&ck_ms[i]) / 1000.0);
		for (k = 0; k < CK_KINDS && ck_kind[k].fmt; k++)
			if (ck_kind[k].ck == (int)i)
				printf("#   %u x %s\n", ck_kind[k].n, ck_kind[k].first);
		if (i == CK_MEMFILES || i == CK_KICK)
			printf("#   %u runs in a hugetlbfs memfd, %u made by "
			       "VRINGFD_CREATE_F_MEM_FILES\n", atomic_load(&ck_hugetlb_runs[i]),
			       atomic_load(&ck_create_runs[i]));
		if (fails)
			result_fail(name, "%u failures in %u runs; first: %s (seed %llu)", fails, runs,
				    ck_first[i], (unsigned long long)opt.seed);
		else if (!runs && inc)
			result_skip(name, "no run completed: %u inconclusive (the scenario did not "
				    "arise: a frame did not reach the tap in time)", inc);
		else if (!runs)
			result_skip(name, "no run completed (%s)",
				    ck_skip_why[i][0] ? ck_skip_why[i] : "not drawn: longer --seconds");
		else
			result_pass(name);
	}
}

#endif /* STRESS_CHECK_OPS_H */
