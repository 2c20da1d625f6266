// SPDX-License-Identifier: GPL-2.0
/*
 * check_lib_layout.c - the ring layout of libvringfd against
 * <linux/virtio_ring.h>: vring_size(), part offsets, alignment, event
 * index positions.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vringfd.h"
#include "unit/runner.h"
#include "unit/check_lib.h"

/* Expected size of the legacy layout, computed from the virtio spec. */
static size_t layout_expected(unsigned int num, unsigned long align)
{
	size_t first = 16 * num + 2 * (3 + num);

	first = (first + align - 1) & ~(align - 1);
	return first + 2 * 3 + 8 * num;
}

START_TEST(layout_struct_sizes)
{
	ck_assert_uint_eq(sizeof(struct vring_desc), 16);
	ck_assert_uint_eq(offsetof(struct vring_desc, addr), 0);
	ck_assert_uint_eq(offsetof(struct vring_desc, len), 8);
	ck_assert_uint_eq(offsetof(struct vring_desc, flags), 12);
	ck_assert_uint_eq(offsetof(struct vring_desc, next), 14);
	ck_assert_uint_eq(sizeof(struct vring_used_elem), 8);
	ck_assert_uint_eq(offsetof(struct vring_avail, ring), 4);
	ck_assert_uint_eq(offsetof(struct vring_used, ring), 4);
}
END_TEST

START_TEST(layout_size_matches_vring_size)
{
	static const unsigned long aligns[] = { 4, 16, 64, 4096, 65536 };
	unsigned int num, a;

	for (num = 1; num <= VRINGFD_MAX_NUM; num <<= 1)
		for (a = 0; a < sizeof(aligns) / sizeof(aligns[0]); a++) {
			size_t s = vringfd_ring_size(num, aligns[a]);

			ck_assert_uint_eq(s, vring_size(num, aligns[a]));
			ck_assert_uint_eq(s, layout_expected(num, aligns[a]));
		}
}
END_TEST

START_TEST(layout_size_rejects_bad_args)
{
	/* num: 0, not a power of two, above the maximum; align: < 4 or not 2^n */
	ck_assert_uint_eq(vringfd_ring_size(0, 4096), 0);
	ck_assert_uint_eq(vringfd_ring_size(3, 4096), 0);
	ck_assert_uint_eq(vringfd_ring_size(65536, 4096), 0);
	ck_assert_uint_eq(vringfd_ring_size(VRINGFD_MAX_NUM * 2, 4096), 0);
	ck_assert_uint_eq(vringfd_ring_size(256, 0), 0);
	ck_assert_uint_eq(vringfd_ring_size(256, 2), 0);
	ck_assert_uint_eq(vringfd_ring_size(256, 3), 0);
	ck_assert_uint_eq(vringfd_ring_size(256, 4097), 0);
}
END_TEST

START_TEST(layout_init_matches_vring_init)
{
	static const unsigned int nums[] = { 1, 2, 256, 1024, VRINGFD_MAX_NUM };
	unsigned long align = getpagesize();
	unsigned int k;

	for (k = 0; k < sizeof(nums) / sizeof(nums[0]); k++) {
		unsigned int num = nums[k];
		size_t sz = vringfd_ring_size(num, align);
		void *mem = aligned_alloc(align, (sz + align - 1) & ~(align - 1));
		struct vringfd_ring r;
		struct vring vr;

		ck_assert_ptr_nonnull(mem);
		vring_init(&vr, num, mem, align);
		ck_assert_int_eq(vringfd_ring_init(&r, mem, num, align, 0), 0);
		ck_assert_ptr_eq(r.vr.desc, vr.desc);
		ck_assert_ptr_eq(r.vr.avail, vr.avail);
		ck_assert_ptr_eq(r.vr.used, vr.used);
		ck_assert_uint_eq(r.vr.num, num);
		ck_assert_ptr_eq((void *)r.vr.desc, mem);
		ck_assert_uint_eq((char *)r.vr.avail - (char *)mem, 16 * num);
		ck_assert_uint_eq((uintptr_t)r.vr.used % align, 0);
		/* the used ring ends exactly at vring_size() */
		ck_assert_uint_eq((char *)&vring_avail_event(&r.vr) + 2 - (char *)mem, sz);
		/* used_event right after avail->ring[num - 1] */
		ck_assert_ptr_eq(&vring_used_event(&r.vr), &r.vr.avail->ring[num]);
		ck_assert_uint_eq(r.num_free, num);
		vringfd_ring_fini(&r);
		free(mem);
	}
}
END_TEST

START_TEST(layout_init_zeroes_ring)
{
	size_t sz = vringfd_ring_size(16, 4096);
	unsigned char *mem = aligned_alloc(4096, 3 * 4096);
	struct vringfd_ring r;
	size_t i;

	ck_assert_ptr_nonnull(mem);
	memset(mem, 0xa5, 3 * 4096);
	ck_assert_int_eq(vringfd_ring_init(&r, mem, 16, 4096, 0), 0);
	for (i = 0; i < 16 * 16 + 2 * (3 + 16); i++)
		ck_assert_uint_eq(mem[i], 0);
	for (i = (unsigned char *)r.vr.used - mem; i < sz; i++)
		ck_assert_uint_eq(mem[i], 0);
	vringfd_ring_fini(&r);
	free(mem);
}
END_TEST

START_TEST(layout_init_small_align)
{
	/* align 4: the used ring follows the avail ring with no padding page */
	unsigned int num = 8;
	size_t sz = vringfd_ring_size(num, 4);
	void *mem = aligned_alloc(16, (sz + 15) & ~15UL);
	struct vringfd_ring r;

	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(vringfd_ring_init(&r, mem, num, 4, 0), 0);
	ck_assert_uint_eq((char *)r.vr.used - (char *)mem,
			  (16 * num + 2 * (3 + num) + 3) & ~3UL);
	vringfd_ring_fini(&r);
	free(mem);
}
END_TEST

/**
 * layout_suite() - the ring layout suite
 *
 * Return: the suite.
 */
Suite *layout_suite(void)
{
	Suite *s = runner_suite_create("lib-layout");

	RUNNER_ADD_TEST(s, layout_struct_sizes);
	RUNNER_ADD_TEST(s, layout_size_matches_vring_size);
	RUNNER_ADD_TEST(s, layout_size_rejects_bad_args);
	RUNNER_ADD_TEST(s, layout_init_matches_vring_init);
	RUNNER_ADD_TEST(s, layout_init_zeroes_ring);
	RUNNER_ADD_TEST(s, layout_init_small_align);
	return s;
}
