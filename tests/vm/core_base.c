// SPDX-License-Identifier: GPL-2.0
/*
 * core_base.c - VRINGFD_CREATE_F_AVAIL_BASE: a vring fd that starts at a
 * given avail index (a virtio device's starting position, vhost-user's
 * SET_VRING_BASE) instead of the avail->idx found at creation.
 *
 * Buffers posted before creation are consumed with the flag (through the
 * echo module: a readable "from" ring and a writable "to" ring, both posted
 * first), skipped without it (the seed's rule); a base in the middle and a
 * base across the 16-bit wrap start exactly there; the used index still
 * starts at used->idx; bad requests (base too far behind avail->idx, base
 * without the flag, flag with non-zero padding/reserved, unknown flag) get
 * EINVAL; an avail->idx jump after creation still breaks the ring at the
 * first walk; libvringfd's vringfd_create_ex() checks its argument.
 */
#include "core_common.h"

/** BUF - bytes of every test buffer */
#define BUF	64

/**
 * base_create() - VRINGFD_CREATE through vringfd_create_ex() for @t
 * @t: a mapped ring (tring_map())
 * @flags: struct vringfd_create.flags
 * @base: avail_base
 * @pad: value for padding[0]
 * @reserved: value for reserved
 *
 * Return: the fd (also stored in @t->fd), or -1 with errno.
 */
static int base_create(struct tring *t, uint32_t flags, uint16_t base,
		       uint16_t pad, uint64_t reserved)
{
	struct vringfd_create c;

	memset(&c, 0, sizeof(c));
	c.num = t->num;
	c.flags = flags;
	c.desc_addr = (uintptr_t)t->vr.desc;
	c.avail_addr = (uintptr_t)t->vr.avail;
	c.used_addr = (uintptr_t)t->vr.used;
	c.last_used_addr = (uintptr_t)&t->last_used;
	c.avail_base = base;
	c.padding[0] = pad;
	c.reserved = reserved;
	t->fd = vringfd_create_ex(&c);
	return t->fd;
}

/**
 * struct bpair - an echo between two test rings
 * @from: readable buffers (the device reads them)
 * @to: writable buffers (the device fills them)
 * @efd: the echo fd, -1 before attach
 */
struct bpair {
	struct tring from;
	struct tring to;
	int efd;
};

/**
 * bpair_close() - close and unmap everything of @p
 * @p: the pair
 */
static void bpair_close(struct bpair *p)
{
	if (p->efd >= 0)
		close(p->efd);
	p->efd = -1;
	tring_close(&p->from);
	tring_close(&p->to);
}

/**
 * bpair_setup() - map both rings of 8, start their indexes, post buffers
 * @p: filled in
 * @start: avail->idx (and used->idx, last_used) before anything is posted
 * @nfrom: readable buffers to post on "from" (filled with 0x40 + i)
 * @nto: writable buffers to post on "to"
 *
 * Return: 0, or -1 (mmap failed).
 */
static int bpair_setup(struct bpair *p, uint16_t start, unsigned int nfrom,
		       unsigned int nto)
{
	unsigned int i;

	memset(p, 0, sizeof(*p));
	p->efd = -1;
	p->from.fd = p->to.fd = -1;
	if (tring_map(&p->from, 8, BUF) || tring_map(&p->to, 8, BUF))
		return -1;
	p->from.vr.avail->idx = start;
	p->from.vr.used->idx = start;
	p->from.last_used = start;
	p->to.vr.avail->idx = start;
	p->to.vr.used->idx = start;
	p->to.last_used = start;
	for (i = 0; i < nfrom; i++)
		tring_post(&p->from, BUF, false, (uint8_t)(0x40 + i));
	for (i = 0; i < nto; i++)
		tring_post(&p->to, BUF, true, 0);
	return 0;
}

/**
 * bpair_echo() - attach the echo and kick it with one write() on "from"
 * @p: the pair, both fds created
 *
 * Return: write()'s result, or -1 with errno (attach or write failed).
 */
static long bpair_echo(struct bpair *p)
{
	char c = 0;

	if (echo_attach(p->from.fd, p->to.fd, 0, 0, &p->efd))
		return -1;
	return write(p->from.fd, &c, 1);
}

/**
 * last_avail_of() - the kernel's last_avail of a ring
 * @t: the ring
 *
 * Return: last_avail, or -1 when VRINGFD_GET_STATE failed.
 */
static int last_avail_of(const struct tring *t)
{
	struct vringfd_state st;

	if (tring_state(t, &st))
		return -1;
	return st.last_avail;
}

/**
 * test_cap() - VRINGFD_GET_VERSION reports VRINGFD_CAP_AVAIL_BASE
 */
static void test_cap(void)
{
	struct vringfd_version v;
	int r = vringfd_get_version(&v);

	result_check(r == 0 && (v.caps & VRINGFD_CAP_AVAIL_BASE), "base_cap_reported",
		    "GET_VERSION %d (%s), caps %#llx", r, r ? strerror(errno) : "-",
		    r ? 0ULL : (unsigned long long)v.caps);
}

/**
 * test_consumed() - base 0 after posting on both rings: everything moves
 *
 * The vhost-user RX case: the driver posts buffers, then the device starts
 * at SET_VRING_BASE's 0.
 */
static void test_consumed(void)
{
	const char *name = "base_zero_consumes_posted";
	unsigned int i, bad = 0;
	struct bpair p;
	uint32_t id, len;
	long r;

	if (bpair_setup(&p, 0, 3, 3)) {
		result_check(false, name, "mmap failed");
		return;
	}
	if (base_create(&p.from, VRINGFD_CREATE_F_AVAIL_BASE, 0, 0, 0) < 0 ||
	    base_create(&p.to, VRINGFD_CREATE_F_AVAIL_BASE, 0, 0, 0) < 0) {
		result_check(false, name, "create: %s", strerror(errno));
		bpair_close(&p);
		return;
	}
	result_check(last_avail_of(&p.from) == 0 && last_avail_of(&p.to) == 0,
		    "base_zero_state_last_avail", "last_avail from %d to %d",
		    last_avail_of(&p.from), last_avail_of(&p.to));
	r = bpair_echo(&p);
	if (r < 0) {
		result_check(false, name, "echo: %s", strerror(errno));
		bpair_close(&p);
		return;
	}
	for (i = 0; i < 3; i++) {
		if (!tring_take_used(&p.to, &id, &len) || id != i || len != BUF ||
		    p.to.bufs[(size_t)id * BUF] != 0x40 + i)
			bad++;
	}
	result_check(bad == 0 && p.from.vr.used->idx == 3 && p.to.vr.used->idx == 3 &&
		    last_avail_of(&p.from) == 3 && last_avail_of(&p.to) == 3 &&
		    !tring_broken(&p.from) && !tring_broken(&p.to), name,
		    "write %ld, from used %u, to used %u, bad entries %u, last_avail %d/%d",
		    r, p.from.vr.used->idx, p.to.vr.used->idx, bad,
		    last_avail_of(&p.from), last_avail_of(&p.to));
	bpair_close(&p);
}

/**
 * test_old_rule() - without the flag the ring starts at avail->idx
 */
static void test_old_rule(void)
{
	const char *name = "base_without_flag_skips_posted";
	struct bpair p;
	long r;

	if (bpair_setup(&p, 0, 3, 3)) {
		result_check(false, name, "mmap failed");
		return;
	}
	if (base_create(&p.from, 0, 0, 0, 0) < 0 || base_create(&p.to, 0, 0, 0, 0) < 0) {
		result_check(false, name, "create: %s", strerror(errno));
		bpair_close(&p);
		return;
	}
	r = bpair_echo(&p);
	result_check(r == 0 && last_avail_of(&p.from) == 3 && last_avail_of(&p.to) == 3 &&
		    p.from.vr.used->idx == 0 && p.to.vr.used->idx == 0, name,
		    "write %ld (%s), last_avail %d/%d, used %u/%u", r,
		    r < 0 ? strerror(errno) : "-", last_avail_of(&p.from),
		    last_avail_of(&p.to), p.from.vr.used->idx, p.to.vr.used->idx);
	bpair_close(&p);
}

/**
 * test_mid() - base 3 with 5 posted: entries 3 and 4 move, 0..2 never do
 */
static void test_mid(void)
{
	const char *name = "base_mid_starts_there";
	struct bpair p;
	uint32_t id0 = 99, id1 = 99, len;
	long r;

	if (bpair_setup(&p, 0, 5, 2)) {
		result_check(false, name, "mmap failed");
		return;
	}
	if (base_create(&p.from, VRINGFD_CREATE_F_AVAIL_BASE, 3, 0, 0) < 0 ||
	    base_create(&p.to, VRINGFD_CREATE_F_AVAIL_BASE, 0, 0, 0) < 0) {
		result_check(false, name, "create: %s", strerror(errno));
		bpair_close(&p);
		return;
	}
	r = bpair_echo(&p);
	tring_take_used(&p.to, &id0, &len);
	tring_take_used(&p.to, &id1, &len);
	/* "from" heads 3 and 4 (fill 0x43, 0x44) land in "to" buffers 0 and 1. */
	result_check(r >= 0 && p.from.vr.used->idx == 2 && p.from.vr.used->ring[0].id == 3 &&
		    p.from.vr.used->ring[1].id == 4 && id0 == 0 && id1 == 1 &&
		    p.to.bufs[0] == 0x43 && p.to.bufs[BUF] == 0x44 &&
		    last_avail_of(&p.from) == 5, name,
		    "write %ld, from used %u (ids %u %u), to ids %u %u, bytes %#x %#x, last_avail %d",
		    r, p.from.vr.used->idx, p.from.vr.used->ring[0].id,
		    p.from.vr.used->ring[1].id, id0, id1, p.to.bufs[0], p.to.bufs[BUF],
		    last_avail_of(&p.from));
	bpair_close(&p);
}

/**
 * test_wrap() - base 0xfffe, avail->idx 1: three chains across the wrap;
 * the used index starts at used->idx (0xfffe) and wraps too
 */
static void test_wrap(void)
{
	const char *name = "base_wraps_16_bits";
	struct bpair p;
	long r;

	if (bpair_setup(&p, 0xfffe, 3, 3)) {
		result_check(false, name, "mmap failed");
		return;
	}
	if (base_create(&p.from, VRINGFD_CREATE_F_AVAIL_BASE, 0xfffe, 0, 0) < 0 ||
	    base_create(&p.to, VRINGFD_CREATE_F_AVAIL_BASE, 0xfffe, 0, 0) < 0) {
		result_check(false, name, "create: %s", strerror(errno));
		bpair_close(&p);
		return;
	}
	r = bpair_echo(&p);
	result_check(r >= 0 && p.from.vr.avail->idx == 1 && last_avail_of(&p.from) == 1 &&
		    last_avail_of(&p.to) == 1 && p.from.vr.used->idx == 1 &&
		    p.to.vr.used->idx == 1 && p.to.bufs[(size_t)p.to.vr.used->ring[0].id * BUF] == 0x42,
		    name, "write %ld (%s), last_avail %d/%d, used %u/%u", r,
		    r < 0 ? strerror(errno) : "-", last_avail_of(&p.from),
		    last_avail_of(&p.to), p.from.vr.used->idx, p.to.vr.used->idx);
	bpair_close(&p);
}

/**
 * test_used_start() - with the flag the used index still starts at
 * used->idx in memory
 */
static void test_used_start(void)
{
	const char *name = "base_used_idx_from_memory";
	struct vringfd_state st;
	struct bpair p;
	long r;
	int s;

	if (bpair_setup(&p, 0, 1, 1)) {
		result_check(false, name, "mmap failed");
		return;
	}
	p.from.vr.used->idx = 500;
	p.from.last_used = 500;
	if (base_create(&p.from, VRINGFD_CREATE_F_AVAIL_BASE, 0, 0, 0) < 0 ||
	    base_create(&p.to, VRINGFD_CREATE_F_AVAIL_BASE, 0, 0, 0) < 0) {
		result_check(false, name, "create: %s", strerror(errno));
		bpair_close(&p);
		return;
	}
	s = tring_state(&p.from, &st);
	r = bpair_echo(&p);
	result_check(s == 0 && st.used_idx == 500 && r >= 0 && p.from.vr.used->idx == 501 &&
		    p.from.vr.used->ring[500 & 7].id == 0, name,
		    "state %d used_idx %u, write %ld, used->idx %u", s, st.used_idx, r,
		    p.from.vr.used->idx);
	bpair_close(&p);
}

/**
 * expect_base_create() - one creation request and the answer it must get
 * @name: test name
 * @avail_idx: avail->idx in memory at creation
 * @flags: flags
 * @base: avail_base
 * @pad: padding[0]
 * @reserved: reserved
 * @err: errno wanted, 0 for success
 */
static void expect_base_create(const char *name, uint16_t avail_idx, uint32_t flags,
			       uint16_t base, uint16_t pad, uint64_t reserved, int err)
{
	struct tring t;
	int fd;

	if (tring_map(&t, 8, 0)) {
		result_check(false, name, "mmap failed");
		return;
	}
	t.vr.avail->idx = avail_idx;
	fd = base_create(&t, flags, base, pad, reserved);
	if (err)
		core_expect_err(name, fd, err);
	else
		result_check(fd >= 0 && last_avail_of(&t) == base, name,
			    "create %d (%s), last_avail %d", fd,
			    fd < 0 ? strerror(errno) : "-", fd < 0 ? -1 : last_avail_of(&t));
	tring_close(&t);
}

/**
 * test_bad() - requests refused at creation (ring of 8)
 */
static void test_bad(void)
{
	const uint32_t F = VRINGFD_CREATE_F_AVAIL_BASE;

	expect_base_create("base_exactly_num_behind_ok", 8, F, 0, 0, 0, 0);
	expect_base_create("base_equal_avail_idx_ok", 77, F, 77, 0, 0, 0);
	expect_base_create("base_num_plus_one_behind_einval", 9, F, 0, 0, 0, EINVAL);
	expect_base_create("base_far_behind_einval", 0, F, 0xfff0, 0, 0, EINVAL);
	expect_base_create("base_ahead_of_avail_idx_einval", 0, F, 1, 0, 0, EINVAL);
	expect_base_create("base_ahead_0xffff_einval", 5, F, 6, 0, 0, EINVAL);
	expect_base_create("base_without_flag_einval", 0, 0, 1, 0, 0, EINVAL);
	expect_base_create("base_flag_padding_einval", 0, F, 0, 1, 0, EINVAL);
	expect_base_create("base_flag_reserved_einval", 0, F, 0, 0, 1, EINVAL);
	expect_base_create("base_flag_reserved_top_bit_einval", 0, F, 0, 0, 1ULL << 63, EINVAL);
	expect_base_create("base_unknown_flag_einval", 0, F | 2, 0, 0, 0, EINVAL);
	expect_base_create("base_flag_bit31_einval", 0, 1U << 31, 0, 0, 0, EINVAL);
}

/**
 * test_jump() - the idx jump check applies at the first walk
 */
static void test_jump(void)
{
	const char *name = "base_jump_at_first_walk_breaks";
	struct bpair p;
	long r;
	int e;

	if (bpair_setup(&p, 0, 2, 2)) {
		result_check(false, name, "mmap failed");
		return;
	}
	if (base_create(&p.from, VRINGFD_CREATE_F_AVAIL_BASE, 0, 0, 0) < 0 ||
	    base_create(&p.to, VRINGFD_CREATE_F_AVAIL_BASE, 0, 0, 0) < 0) {
		result_check(false, name, "create: %s", strerror(errno));
		bpair_close(&p);
		return;
	}
	/* Legal at creation (2 <= 8), then the driver jumps to 100. */
	p.from.vr.avail->idx = 100;
	r = bpair_echo(&p);
	e = errno;
	result_check(r == -1 && e == EIO && tring_broken(&p.from) && p.from.vr.used->idx == 0,
		    name, "write %ld (%s), broken %d, used %u", r, r < 0 ? strerror(e) : "-",
		    tring_broken(&p.from), p.from.vr.used->idx);
	bpair_close(&p);
}

/**
 * test_lib() - vringfd_create_ex()'s own checks (before the device opens)
 */
static void test_lib(void)
{
	struct vringfd_create c;
	int r;

	errno = 0;
	r = vringfd_create_ex(NULL);
	core_expect_err("base_lib_create_ex_null_efault", r, EFAULT);
	memset(&c, 0, sizeof(c));
	c.num = 6;
	errno = 0;
	r = vringfd_create_ex(&c);
	core_expect_err("base_lib_create_ex_num_einval", r, EINVAL);
}

/**
 * main() - run every VRINGFD_CREATE_F_AVAIL_BASE test
 *
 * Return: 0 when nothing failed.
 */
int main(void)
{
	test_lib();
	if (access("/dev/vringfd", F_OK)) {
		result_skip("base_cap_reported", "/dev/vringfd missing (vringfd.ko not loaded)");
		return 0;
	}
	test_cap();
	test_bad();
	if (!echo_available()) {
		result_skip("base_zero_consumes_posted", "vringfd_echo.ko not loaded");
		return result_exit_status();
	}
	test_consumed();
	test_old_rule();
	test_mid();
	test_wrap();
	test_used_start();
	test_jump();
	return result_exit_status();
}
