// SPDX-License-Identifier: GPL-2.0
/*
 * core_walk.c - malicious rings walked by the kernel (through the echo
 * module, i.e. the exported vrfd_get_buffer()): loops, out-of-range
 * indexes, avail idx jumps, bad indirect tables, length and address
 * overflows, bad addresses, ring memory unmapped or protected after
 * creation.  Each answer is checked: the errno of write(), whether the ring
 * is now broken, and EIO/POLLERR afterwards.
 */
#include <net/if.h>
#include <linux/if_tun.h>
#include "core_common.h"

#define F_INDIRECT	(1ULL << VIRTIO_RING_F_INDIRECT_DESC)

/**
 * struct pair - a "from" ring (the one made malicious) echoed into "to"
 * @from: ring read by the echo module
 * @to: ring filled by it (4 writable buffers posted)
 * @efd: echo fd
 */
struct pair {
	struct tring from;
	struct tring to;
	int efd;
};

static uint8_t data_page[4096] __attribute__((aligned(4096)));

/**
 * pair_open() - two rings and an echo between them
 * @p: filled in
 * @num: size of the from ring
 * @buf_size: data bytes per from descriptor (0: none)
 * @features: features of the from ring
 * @atomic_every: echo's atomic_every
 *
 * Return: 0, or -1 (and a FAIL line is the caller's job).
 */
static int pair_open(struct pair *p, unsigned int num, size_t buf_size,
		     uint64_t features, unsigned int atomic_every)
{
	int i;

	p->efd = -1;
	if (tring_open(&p->from, num, buf_size, features))
		return -1;
	if (tring_open(&p->to, 8, 4096, 0))
		return -1;
	for (i = 0; i < 4; i++)
		tring_post(&p->to, 4096, true, 0);
	return echo_attach(p->from.fd, p->to.fd, atomic_every, 0, &p->efd);
}

/**
 * pair_close() - undo pair_open()
 * @p: the pair
 */
static void pair_close(struct pair *p)
{
	if (p->efd >= 0)
		close(p->efd);
	tring_close(&p->from);
	tring_close(&p->to);
}

/**
 * expect_broken() - write() on from must fail with @err and break the ring
 * @name: test name
 * @p: the pair, with a malicious from ring
 * @err: errno wanted from the first write()
 */
static void expect_broken(const char *name, struct pair *p, int err)
{
	char c = 0;
	long r1, r2;
	int e1, e2 = 0, r;
	short rev = 0;
	bool broken;

	r1 = write(p->from.fd, &c, 1);
	e1 = errno;
	broken = tring_broken(&p->from);
	r2 = write(p->from.fd, &c, 1);
	if (r2 < 0)
		e2 = errno;
	r = poll_one(p->from.fd, 0, &rev);
	result_check(r1 == -1 && e1 == err && broken && r2 == -1 && e2 == EIO &&
		    r == 1 && (rev & POLLERR), name,
		    "first write %ld (%s, want %s), broken %d, second write %ld (%s), poll %d revents %#x",
		    r1, r1 < 0 ? strerror(e1) : "-", strerror(err), broken, r2,
		    r2 < 0 ? strerror(e2) : "-", r, rev);
}

/**
 * expect_dropped() - the chain is completed with length 0, counted as a bad
 * address, and the ring stays usable
 * @name: test name
 * @p: the pair
 */
static void expect_dropped(const char *name, struct pair *p)
{
	struct vringfd_stats st;
	uint32_t id = 99, len = 99;
	char c = 0;
	long r;

	r = write(p->from.fd, &c, 1);
	memset(&st, 0, sizeof(st));
	ioctl(p->from.fd, VRINGFD_GET_STATS, &st);
	result_check(r == 0 && st.drop_bad_addr == 1 && !tring_broken(&p->from) &&
		    tring_take_used(&p->from, &id, &len) && id == 0 && len == 0,
		    name, "write %ld (%s), drop_bad_addr %llu, broken %d, used id %u len %u",
		    r, r < 0 ? strerror(errno) : "-",
		    (unsigned long long)st.drop_bad_addr, tring_broken(&p->from), id, len);
}

/**
 * expect_refused() - write() on from fails with E2BIG, nothing consumed,
 * the ring not broken (a chain longer than the caller's segment array is
 * refused as soon as the walk sees it, whatever follows)
 * @name: test name
 * @p: the pair
 */
static void expect_refused(const char *name, struct pair *p)
{
	struct vringfd_state st;
	char c = 0;
	long r;
	int e;

	r = write(p->from.fd, &c, 1);
	e = errno;
	tring_state(&p->from, &st);
	result_check(r == -1 && e == E2BIG && !tring_broken(&p->from) && st.last_avail == 0,
		    name, "write %ld (%s, want E2BIG), broken %d, last_avail %u",
		    r, r < 0 ? strerror(e) : "-", tring_broken(&p->from), st.last_avail);
}

/**
 * run_case() - set up one case on a fresh pair and check it
 * @name: test name
 * @num: from ring size
 * @features: from ring features
 * @setup: writes the malicious ring content
 * @err: errno wanted (0: expect_dropped(); E2BIG: expect_refused())
 */
static void run_case(const char *name, unsigned int num, uint64_t features,
		     void (*setup)(struct tring *t), int err)
{
	struct pair p;

	memset(&p, 0, sizeof(p));
	if (pair_open(&p, num, 0, features, 0)) {
		result_check(false, name, "setup: %s", strerror(errno));
		pair_close(&p);
		return;
	}
	setup(&p.from);
	if (err == E2BIG)
		expect_refused(name, &p);
	else if (err)
		expect_broken(name, &p, err);
	else
		expect_dropped(name, &p);
	pair_close(&p);
}

/* ---- ring contents ---------------------------------------------------- */

#define DP ((uintptr_t)data_page)

static void s_loop_self(struct tring *t)
{
	tring_desc(t, 0, DP, 16, VRING_DESC_F_NEXT, 0);
	tring_avail(t, 0);
}

static void s_loop_two(struct tring *t)
{
	tring_desc(t, 0, DP, 16, VRING_DESC_F_NEXT, 1);
	tring_desc(t, 1, DP, 16, VRING_DESC_F_NEXT, 0);
	tring_avail(t, 0);
}

static void s_loop_all(struct tring *t)
{
	unsigned int i;

	for (i = 0; i < t->num; i++)
		tring_desc(t, i, DP, 1, VRING_DESC_F_NEXT, (i + 1) & (t->num - 1));
	tring_avail(t, 0);
}

/* zero-length descriptors add no segment, but each counts as one */
static void s_loop_all_zero_len(struct tring *t)
{
	unsigned int i;

	for (i = 0; i < t->num; i++)
		tring_desc(t, i, DP, 0, VRING_DESC_F_NEXT, (i + 1) & (t->num - 1));
	tring_avail(t, 0);
}

/* 300 one-byte segments, then a loop back: refused at the array's end */
static void s_overflow_then_loop(struct tring *t)
{
	unsigned int i;

	for (i = 0; i < 300; i++)
		tring_desc(t, i, DP, 1, VRING_DESC_F_NEXT, i + 1);
	tring_desc(t, 300, DP, 1, VRING_DESC_F_NEXT, 0);
	tring_avail(t, 0);
}

static void s_head_oob(struct tring *t)
{
	tring_desc(t, 0, DP, 16, 0, 0);
	tring_avail(t, t->num);
}

static void s_head_ffff(struct tring *t)
{
	tring_avail(t, 0xffff);
}

static void s_next_oob(struct tring *t)
{
	tring_desc(t, 0, DP, 16, VRING_DESC_F_NEXT, t->num);
	tring_avail(t, 0);
}

static void s_idx_jump(struct tring *t)
{
	tring_desc(t, 0, DP, 16, 0, 0);
	t->vr.avail->idx = t->num + 1;
}

static void s_idx_back(struct tring *t)
{
	t->vr.avail->idx = 0xffff;
}

static void s_indirect_plain(struct tring *t)
{
	static struct vring_desc tab[2] __attribute__((aligned(16)));

	tab[0] = (struct vring_desc){ DP, 16, 0, 0 };
	tring_desc(t, 0, (uintptr_t)tab, sizeof(tab), VRING_DESC_F_INDIRECT, 0);
	tring_avail(t, 0);
}

static void s_indirect_nested(struct tring *t)
{
	static struct vring_desc inner[1] __attribute__((aligned(16)));
	static struct vring_desc tab[1] __attribute__((aligned(16)));

	inner[0] = (struct vring_desc){ DP, 16, 0, 0 };
	tab[0] = (struct vring_desc){ (uintptr_t)inner, sizeof(inner),
				      VRING_DESC_F_INDIRECT, 0 };
	tring_desc(t, 0, (uintptr_t)tab, sizeof(tab), VRING_DESC_F_INDIRECT, 0);
	tring_avail(t, 0);
}

static void s_indirect_len0(struct tring *t)
{
	tring_desc(t, 0, DP, 0, VRING_DESC_F_INDIRECT, 0);
	tring_avail(t, 0);
}

static void s_indirect_len17(struct tring *t)
{
	tring_desc(t, 0, DP, 17, VRING_DESC_F_INDIRECT, 0);
	tring_avail(t, 0);
}

static void s_indirect_next(struct tring *t)
{
	static struct vring_desc tab[1] __attribute__((aligned(16)));

	tab[0] = (struct vring_desc){ DP, 16, 0, 0 };
	tring_desc(t, 0, (uintptr_t)tab, sizeof(tab),
		   VRING_DESC_F_INDIRECT | VRING_DESC_F_NEXT, 1);
	tring_desc(t, 1, DP, 16, 0, 0);
	tring_avail(t, 0);
}

static void s_indirect_loop(struct tring *t)
{
	static struct vring_desc tab[2] __attribute__((aligned(16)));

	tab[0] = (struct vring_desc){ DP, 16, VRING_DESC_F_NEXT, 1 };
	tab[1] = (struct vring_desc){ DP, 16, VRING_DESC_F_NEXT, 0 };
	tring_desc(t, 0, (uintptr_t)tab, sizeof(tab), VRING_DESC_F_INDIRECT, 0);
	tring_avail(t, 0);
}

static void s_indirect_next_oob(struct tring *t)
{
	static struct vring_desc tab[2] __attribute__((aligned(16)));

	tab[0] = (struct vring_desc){ DP, 16, VRING_DESC_F_NEXT, 2 };
	tring_desc(t, 0, (uintptr_t)tab, sizeof(tab), VRING_DESC_F_INDIRECT, 0);
	tring_avail(t, 0);
}

static void s_indirect_huge(struct tring *t)
{
	tring_desc(t, 0, DP, 32769 * 16, VRING_DESC_F_INDIRECT, 0);
	tring_avail(t, 0);
}

static void s_indirect_unmapped(struct tring *t)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	munmap(p, 4096);
	tring_desc(t, 0, (uintptr_t)p, 32, VRING_DESC_F_INDIRECT, 0);
	tring_avail(t, 0);
}

static void s_len_wrap(struct tring *t)
{
	tring_desc(t, 0, DP, 0x80000000u, VRING_DESC_F_NEXT, 1);
	tring_desc(t, 1, DP, 0x80000000u, 0, 0);
	tring_avail(t, 0);
}

static void s_len_wrap3(struct tring *t)
{
	tring_desc(t, 0, DP, 0xffffffffu, VRING_DESC_F_NEXT, 1);
	tring_desc(t, 1, DP, 0xffffffffu, VRING_DESC_F_NEXT, 2);
	tring_desc(t, 2, DP, 0xffffffffu, 0, 0);
	tring_avail(t, 0);
}

static void s_addr_wrap(struct tring *t)
{
	tring_desc(t, 0, 0xfffffffffffff000ULL, 0x2000, 0, 0);
	tring_avail(t, 0);
}

static void s_addr_kernel(struct tring *t)
{
	tring_desc(t, 0, 0xffff888000000000ULL, 64, 0, 0);
	tring_avail(t, 0);
}

static void s_read_after_write(struct tring *t)
{
	tring_desc(t, 0, DP, 16, VRING_DESC_F_WRITE | VRING_DESC_F_NEXT, 1);
	tring_desc(t, 1, DP, 16, 0, 0);
	tring_avail(t, 0);
}

static void s_desc_unmapped(struct tring *t)
{
	tring_desc(t, 0, DP, 16, 0, 0);
	tring_avail(t, 0);
	munmap(t->vr.desc, 4096);
}

static void s_avail_protnone(struct tring *t)
{
	tring_desc(t, 0, DP, 16, 0, 0);
	tring_avail(t, 0);
	/* 256 entries: desc is page 0, avail page 1. */
	mprotect((char *)t->mem + 4096, 4096, PROT_NONE);
}

static void s_used_readonly(struct tring *t)
{
	tring_desc(t, 0, DP, 16, 0, 0);
	tring_avail(t, 0);
	mprotect(t->vr.used, 4096, PROT_READ);
}

/* ---- cases that are not errors ------------------------------------------ */

/**
 * test_ok_cases() - valid but unusual rings: full ring, zero length,
 * indirect, a 4 GiB - 1 chain, an unreadable data buffer, used ring made
 * read-only after an atomic attach
 */
static void test_ok_cases(void)
{
	struct pair p;
	struct vringfd_echo_stats es;
	uint32_t id, len;
	char c = 0;
	long r;
	int i, n;

	/* Exactly num available at once is legal. */
	memset(&p, 0, sizeof(p));
	if (!pair_open(&p, 4, 64, 0, 0)) {
		for (i = 0; i < 4; i++)
			tring_post(&p.from, 64, false, i);
		r = write(p.from.fd, &c, 1);
		result_check(r == 4 && !tring_broken(&p.from) &&
			    tring_used_pending(&p.to) == 4, "walk_avail_full_ring_ok",
			    "write %ld (%s), to used %u", r, r < 0 ? strerror(errno) : "-",
			    tring_used_pending(&p.to));
	} else {
		result_check(false, "walk_avail_full_ring_ok", "setup: %s", strerror(errno));
	}
	pair_close(&p);

	/* Zero-length descriptor: echoed as an empty buffer. */
	memset(&p, 0, sizeof(p));
	if (!pair_open(&p, 8, 0, 0, 0)) {
		tring_desc(&p.from, 0, DP, 0, 0, 0);
		tring_avail(&p.from, 0);
		r = write(p.from.fd, &c, 1);
		len = 99;
		result_check(r == 1 && !tring_broken(&p.from) &&
			    tring_take_used(&p.to, &id, &len) && len == 0,
			    "walk_zero_len_desc_empty_echo", "write %ld (%s), to len %u",
			    r, r < 0 ? strerror(errno) : "-", len);
	} else {
		result_check(false, "walk_zero_len_desc_empty_echo", "setup: %s",
			    strerror(errno));
	}
	pair_close(&p);

	/* A valid indirect table of two segments. */
	memset(&p, 0, sizeof(p));
	if (!pair_open(&p, 8, 0, F_INDIRECT, 0)) {
		static struct vring_desc tab[2] __attribute__((aligned(16)));

		memset(data_page, 'x', 100);
		tab[0] = (struct vring_desc){ DP, 60, VRING_DESC_F_NEXT, 1 };
		tab[1] = (struct vring_desc){ DP + 60, 40, 0, 0 };
		tring_desc(&p.from, 0, (uintptr_t)tab, sizeof(tab),
			   VRING_DESC_F_INDIRECT, 0);
		tring_avail(&p.from, 0);
		r = write(p.from.fd, &c, 1);
		len = 0;
		result_check(r == 1 && tring_take_used(&p.to, &id, &len) && len == 100 &&
			    p.to.bufs[(size_t)id * 4096 + 99] == 'x',
			    "walk_indirect_two_segments_ok", "write %ld (%s), to len %u",
			    r, r < 0 ? strerror(errno) : "-", len);
	} else {
		result_check(false, "walk_indirect_two_segments_ok", "setup: %s",
			    strerror(errno));
	}
	pair_close(&p);

	/* 4 GiB - 1 in one chain is legal (data faults are the echo's problem). */
	memset(&p, 0, sizeof(p));
	if (!pair_open(&p, 8, 0, 0, 0)) {
		tring_desc(&p.from, 0, DP, 0xffffffffu, 0, 0);
		tring_avail(&p.from, 0);
		r = write(p.from.fd, &c, 1);
		result_check(r == 1 && !tring_broken(&p.from), "walk_len_4g_minus_1_not_broken",
			    "write %ld (%s), broken %d", r, r < 0 ? strerror(errno) : "-",
			    tring_broken(&p.from));
	} else {
		result_check(false, "walk_len_4g_minus_1_not_broken", "setup: %s",
			    strerror(errno));
	}
	pair_close(&p);

	/* Data buffer unmapped: copy fails, chain completes, ring fine. */
	memset(&p, 0, sizeof(p));
	if (!pair_open(&p, 8, 0, 0, 0)) {
		void *hole = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
				  -1, 0);

		munmap(hole, 4096);
		tring_desc(&p.from, 0, (uintptr_t)hole, 64, 0, 0);
		tring_avail(&p.from, 0);
		r = write(p.from.fd, &c, 1);
		memset(&es, 0, sizeof(es));
		ioctl(p.efd, VRINGFD_ECHO_GET_STATS, &es);
		result_check(r == 1 && !tring_broken(&p.from) && es.dropped == 1 &&
			    tring_used_pending(&p.from) == 1,
			    "walk_data_unmapped_dropped_not_broken",
			    "write %ld (%s), dropped %llu", r, r < 0 ? strerror(errno) : "-",
			    (unsigned long long)es.dropped);
	} else {
		result_check(false, "walk_data_unmapped_dropped_not_broken", "setup: %s",
			    strerror(errno));
	}
	pair_close(&p);

	/* Atomic attach pins the used ring: mprotect after it cannot fault. */
	memset(&p, 0, sizeof(p));
	if (!pair_open(&p, 256, 64, 0, 1)) {
		mprotect(p.from.vr.used, 4096, PROT_READ);
		tring_post(&p.from, 64, false, 1);
		r = write(p.from.fd, &c, 1);
		n = tring_used_pending(&p.from);
		result_check(r == 1 && n == 1 && !tring_broken(&p.from),
			    "walk_used_readonly_after_atomic_attach_ok",
			    "write %ld (%s), from used %d", r, r < 0 ? strerror(errno) : "-", n);
	} else {
		result_check(false, "walk_used_readonly_after_atomic_attach_ok", "setup: %s",
			    strerror(errno));
	}
	pair_close(&p);
}

/**
 * test_seed_indexes() - the seed read avail->ring[avail->idx] unmasked and
 * read used->idx back from user memory: start both indexes far above num,
 * then scribble over used->idx before a completion
 */
static void test_seed_indexes(void)
{
	struct vringfd_state st;
	struct pair p;
	char c = 0;
	long r;

	memset(&p, 0, sizeof(p));
	p.efd = -1;
	if (tring_map(&p.from, 8, 64) || tring_map(&p.to, 8, 64)) {
		result_check(false, "walk_avail_index_masked", "mmap failed");
		pair_close(&p);
		return;
	}
	p.from.vr.avail->idx = 1003;
	p.from.vr.used->idx = 2005;
	p.from.last_used = 2005;
	p.from.fd = vringfd_create(8, p.from.vr.desc, p.from.vr.avail, p.from.vr.used,
				   &p.from.last_used, 0);
	p.to.fd = vringfd_create(8, p.to.vr.desc, p.to.vr.avail, p.to.vr.used,
				 &p.to.last_used, 0);
	if (p.from.fd < 0 || p.to.fd < 0 ||
	    echo_attach(p.from.fd, p.to.fd, 0, 0, &p.efd)) {
		result_check(false, "walk_avail_index_masked", "setup: %s", strerror(errno));
		pair_close(&p);
		return;
	}
	/* avail->ring[1003 & 7] = ring[3]. */
	tring_post(&p.from, 64, false, 9);
	tring_post(&p.to, 64, true, 0);
	r = write(p.from.fd, &c, 1);
	tring_state(&p.from, &st);
	result_check(r == 1 && p.from.vr.avail->ring[3] == 0 && st.last_avail == 1004 &&
		    p.from.vr.used->idx == 2006 && p.from.vr.used->ring[2005 & 7].id == 0,
		    "walk_avail_index_masked",
		    "write %ld, last_avail %u, used->idx %u, used ring[5].id %u", r,
		    st.last_avail, p.from.vr.used->idx, p.from.vr.used->ring[5].id);
	/* User space scribbles on used->idx: the kernel's index is private. */
	p.from.vr.used->idx = 0x7777;
	tring_post(&p.from, 64, false, 10);
	tring_post(&p.to, 64, true, 0);
	r = write(p.from.fd, &c, 1);
	result_check(r == 1 && p.from.vr.used->idx == 2007 &&
		    p.from.vr.used->ring[2006 & 7].id == 1 &&
		    p.from.vr.used->ring[0x7777 & 7].len == 0,
		    "walk_used_index_private", "write %ld, used->idx %#x", r,
		    p.from.vr.used->idx);
	pair_close(&p);
}

/**
 * test_e2big() - a chain with more segments than the echo's array (128)
 */
static void test_e2big(void)
{
	struct vringfd_state st;
	struct pair p;
	char c = 0;
	long r;
	int i, e;

	memset(&p, 0, sizeof(p));
	if (pair_open(&p, 256, 0, 0, 0)) {
		result_check(false, "walk_e2big_not_consumed", "setup: %s", strerror(errno));
		pair_close(&p);
		return;
	}
	for (i = 0; i < 129; i++)
		tring_desc(&p.from, i, DP, 1, i < 128 ? VRING_DESC_F_NEXT : 0, i + 1);
	tring_avail(&p.from, 0);
	r = write(p.from.fd, &c, 1);
	e = errno;
	tring_state(&p.from, &st);
	result_check(r == -1 && e == E2BIG && !tring_broken(&p.from) && st.last_avail == 0,
		    "walk_e2big_not_consumed", "write %ld (%s), broken %d, last_avail %u",
		    r, r < 0 ? strerror(e) : "-", tring_broken(&p.from), st.last_avail);
	pair_close(&p);
}

/**
 * test_to_ring_broken() - a malicious "to" ring breaks only itself
 */
static void test_to_ring_broken(void)
{
	struct pair p;
	char c = 0;
	long r;
	int e;

	memset(&p, 0, sizeof(p));
	p.efd = -1;
	if (tring_open(&p.from, 8, 64, 0) || tring_open(&p.to, 8, 64, 0) ||
	    echo_attach(p.from.fd, p.to.fd, 0, 0, &p.efd)) {
		result_check(false, "walk_to_ring_loop_breaks_to_only", "setup: %s",
			    strerror(errno));
		pair_close(&p);
		return;
	}
	tring_post(&p.from, 64, false, 1);
	tring_desc(&p.to, 0, DP, 16, VRING_DESC_F_WRITE | VRING_DESC_F_NEXT, 0);
	tring_avail(&p.to, 0);
	r = write(p.from.fd, &c, 1);
	e = errno;
	result_check(r == -1 && e == EINVAL && tring_broken(&p.to) && !tring_broken(&p.from),
		    "walk_to_ring_loop_breaks_to_only",
		    "write %ld (%s), to broken %d, from broken %d", r,
		    r < 0 ? strerror(e) : "-", tring_broken(&p.to), tring_broken(&p.from));
	r = write(p.to.fd, &c, 1);
	core_expect_err("walk_to_ring_then_eio", r, EIO);
	pair_close(&p);
}

/**
 * test_memtable() - descriptor and indirect table addresses translated
 * through a memory table: a buffer split across two regions, an address
 * outside every region, an indirect table in guest memory
 */
static void test_memtable(void)
{
	struct vringfd_mem_region reg[2];
	struct vringfd_stats st;
	static struct vring_desc tab[2] __attribute__((aligned(16)));
	struct pair p;
	uint8_t *g;
	uint32_t id, len = 0;
	char c = 0;
	long r;
	int i;

	memset(&p, 0, sizeof(p));
	if (pair_open(&p, 8, 0, F_INDIRECT, 0)) {
		result_check(false, "memtable_split_buffer", "setup: %s", strerror(errno));
		pair_close(&p);
		return;
	}
	/* Guest [0x10000, 0x11000) and [0x11000, 0x12000): two separate pages. */
	g = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	memset(reg, 0, sizeof(reg));
	reg[0] = (struct vringfd_mem_region){ 0x10000, 4096, (uintptr_t)g + 8192, 0 };
	reg[1] = (struct vringfd_mem_region){ 0x11000, 4096, (uintptr_t)g, 0 };
	r = vringfd_set_mem_table(p.from.fd, reg, 2);
	if (r) {
		result_check(false, "memtable_split_buffer", "set table: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < 100; i++) {
		g[8192 + 4096 - 50 + i % 50] = 'A';	/* first region's tail */
		g[i % 50] = 'B';			/* second region's head */
	}
	tring_desc(&p.from, 0, 0x10000 + 4096 - 50, 100, 0, 0);
	tring_avail(&p.from, 0);
	r = write(p.from.fd, &c, 1);
	{
		bool ok = r == 1 && tring_take_used(&p.to, &id, &len) && len == 100;
		uint8_t *b = p.to.bufs + (size_t)id * 4096;

		result_check(ok && b[0] == 'A' && b[49] == 'A' && b[50] == 'B' && b[99] == 'B',
			    "memtable_split_buffer", "write %ld len %u data %c%c%c%c", r, len,
			    ok ? b[0] : '?', ok ? b[49] : '?', ok ? b[50] : '?',
			    ok ? b[99] : '?');
	}
	/* Outside every region: dropped, counted, ring usable. */
	tring_desc(&p.from, 1, 0x20000, 16, 0, 0);
	tring_avail(&p.from, 1);
	r = write(p.from.fd, &c, 1);
	memset(&st, 0, sizeof(st));
	ioctl(p.from.fd, VRINGFD_GET_STATS, &st);
	result_check(r == 0 && st.drop_bad_addr == 1 && !tring_broken(&p.from),
		    "memtable_outside_dropped", "write %ld drop_bad_addr %llu", r,
		    (unsigned long long)st.drop_bad_addr);
	/* Crossing the end of the last region: dropped as well. */
	tring_desc(&p.from, 2, 0x11000 + 4000, 200, 0, 0);
	tring_avail(&p.from, 2);
	r = write(p.from.fd, &c, 1);
	ioctl(p.from.fd, VRINGFD_GET_STATS, &st);
	result_check(r == 0 && st.drop_bad_addr == 2, "memtable_past_end_dropped",
		    "write %ld drop_bad_addr %llu", r, (unsigned long long)st.drop_bad_addr);
	/* An indirect table in guest memory, pointing at guest buffers. */
	tab[0] = (struct vring_desc){ 0x11000, 10, VRING_DESC_F_NEXT, 1 };
	tab[1] = (struct vring_desc){ 0x10000, 10, 0, 0 };
	memcpy(g + 8192 + 100, tab, sizeof(tab));
	tring_desc(&p.from, 3, 0x10000 + 100, sizeof(tab), VRING_DESC_F_INDIRECT, 0);
	tring_avail(&p.from, 3);
	tring_post(&p.to, 4096, true, 0);
	r = write(p.from.fd, &c, 1);
	len = 0;
	result_check(r == 1 && tring_take_used(&p.to, &id, &len) && len == 20,
		    "memtable_indirect_table_translated", "write %ld len %u", r, len);
	/* Remove the table: addresses are user addresses again. */
	r = vringfd_set_mem_table(p.from.fd, NULL, 0);
	memset(data_page, 'z', 16);
	tring_desc(&p.from, 4, DP, 16, 0, 0);
	tring_avail(&p.from, 4);
	tring_post(&p.to, 4096, true, 0);
	r = r ? r : write(p.from.fd, &c, 1);
	len = 0;
	result_check(r == 1 && tring_take_used(&p.to, &id, &len) && len == 16,
		    "memtable_removed_user_addresses", "write %ld len %u", r, len);
out:
	munmap(g, 3 * 4096);
	pair_close(&p);
}

/**
 * test_tap_busy_and_broken() - VRINGFD_ATTACH_TAP on a ring the echo has,
 * and the ioctls that need a sound ring on a broken one
 */
static void test_tap_busy_and_broken(void)
{
	struct vringfd_tap tap;
	struct ifreq ifr;
	struct pair p;
	int tfd;

	memset(&p, 0, sizeof(p));
	if (pair_open(&p, 256, 0, 0, 0)) {
		result_check(false, "attach_tap_on_echo_ring_ebusy", "setup: %s",
			    strerror(errno));
		pair_close(&p);
		return;
	}
	tfd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	strcpy(ifr.ifr_name, "vrfdcore0");
	if (tfd < 0 || ioctl(tfd, TUNSETIFF, &ifr)) {
		result_skip("attach_tap_on_echo_ring_ebusy", "cannot create a tap device");
	} else {
		memset(&tap, 0, sizeof(tap));
		tap.tap_fd = tfd;
		tap.dir = VRINGFD_DIR_TX;
		core_expect_err("attach_tap_on_echo_ring_ebusy",
				ioctl(p.from.fd, VRINGFD_ATTACH_TAP, &tap), EBUSY);
	}
	/* Break the ring, then every ioctl that needs a sound ring says EIO. */
	tring_avail(&p.from, 0xffff);
	write(p.from.fd, "", 1);
	memset(&tap, 0, sizeof(tap));
	tap.tap_fd = tfd;
	core_expect_err("attach_tap_on_broken_ring_eio",
			ioctl(p.from.fd, VRINGFD_ATTACH_TAP, &tap), EIO);
	core_expect_err("mem_table_on_broken_ring_eio",
			vringfd_set_mem_table(p.from.fd, NULL, 0), EIO);
	result_check(ioctl(p.from.fd, VRINGFD_DETACH) == 0, "detach_broken_ring_ok", "%s",
		    strerror(errno));
	core_expect_err("read_broken_ring_eio", read(p.from.fd, &tap, 1), EIO);
	if (tfd >= 0)
		close(tfd);
	pair_close(&p);
}

/**
 * main() - run the malicious ring tests
 *
 * Return: 0 when no test failed.
 */
int main(void)
{
	if (!echo_available()) {
		result_skip("core_walk", "/dev/vringfd_echo missing (vringfd_echo.ko not loaded)");
		return 0;
	}
	run_case("walk_loop_self_eio", 8, 0, s_loop_self, EIO);
	run_case("walk_loop_two_eio", 8, 0, s_loop_two, EIO);
	run_case("walk_loop_32768_e2big", 32768, 0, s_loop_all, E2BIG);
	run_case("walk_zero_len_loop_32768_e2big", 32768, 0, s_loop_all_zero_len, E2BIG);
	run_case("walk_overflow_then_loop_e2big", 512, 0, s_overflow_then_loop, E2BIG);
	run_case("walk_head_out_of_range_eio", 8, 0, s_head_oob, EIO);
	run_case("walk_head_ffff_eio", 8, 0, s_head_ffff, EIO);
	run_case("walk_next_out_of_range_eio", 8, 0, s_next_oob, EIO);
	run_case("walk_avail_idx_jump_eio", 8, 0, s_idx_jump, EIO);
	run_case("walk_avail_idx_backwards_eio", 8, 0, s_idx_back, EIO);
	run_case("walk_indirect_not_negotiated_eio", 8, 0, s_indirect_plain, EIO);
	run_case("walk_indirect_nested_eio", 8, F_INDIRECT, s_indirect_nested, EIO);
	run_case("walk_indirect_len_zero_eio", 8, F_INDIRECT, s_indirect_len0, EIO);
	run_case("walk_indirect_len_17_eio", 8, F_INDIRECT, s_indirect_len17, EIO);
	run_case("walk_indirect_with_next_eio", 8, F_INDIRECT, s_indirect_next, EIO);
	run_case("walk_indirect_loop_eio", 8, F_INDIRECT, s_indirect_loop, EIO);
	run_case("walk_indirect_next_out_of_table_eio", 8, F_INDIRECT,
		 s_indirect_next_oob, EIO);
	run_case("walk_indirect_over_32768_entries_eio", 8, F_INDIRECT,
		 s_indirect_huge, EIO);
	run_case("walk_indirect_table_unmapped_dropped", 8, F_INDIRECT,
		 s_indirect_unmapped, 0);
	run_case("walk_len_total_4g_eio", 8, 0, s_len_wrap, EIO);
	run_case("walk_len_total_12g_eio", 8, 0, s_len_wrap3, EIO);
	run_case("walk_addr_wraps_eio", 8, 0, s_addr_wrap, EIO);
	run_case("walk_addr_kernel_dropped", 8, 0, s_addr_kernel, 0);
	run_case("walk_readable_after_writable_eio", 8, 0, s_read_after_write, EIO);
	run_case("walk_desc_unmapped_efault", 256, 0, s_desc_unmapped, EFAULT);
	run_case("walk_avail_protnone_efault", 256, 0, s_avail_protnone, EFAULT);
	run_case("walk_used_readonly_efault", 256, 0, s_used_readonly, EFAULT);
	test_ok_cases();
	test_seed_indexes();
	test_e2big();
	test_to_ring_broken();
	test_memtable();
	test_tap_busy_and_broken();
	return result_exit_status();
}
