// SPDX-License-Identifier: GPL-2.0
/*
 * check_lib_device.c - the device-side walker (vringfd_dev_*) against good
 * rings and a table of malicious ones, each case its own test with the exact
 * answer it must get.
 *
 * Guest memory for these tests: two regions contiguous in guest-physical
 * space but not in the process (so a buffer crossing them gives two
 * segments):
 *	region A  GPA [0x100000, 0x108000) -> dev_mem_a
 *	region B  GPA [0x108000, 0x110000) -> dev_mem_b
 * Anything else is outside every region.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vringfd.h"
#include "unit/runner.h"
#include "unit/check_lib.h"

#define NUM		8
#define REG_SIZE	0x8000ULL
#define GPA_A		0x100000ULL
#define GPA_B		(GPA_A + REG_SIZE)
#define GPA_END		(GPA_B + REG_SIZE)
#define INDIRECT	(1ULL << VIRTIO_RING_F_INDIRECT_DESC)
#define EVIDX		(1ULL << VIRTIO_RING_F_EVENT_IDX)
#define F_NEXT		VRING_DESC_F_NEXT
#define F_WRITE		VRING_DESC_F_WRITE
#define F_IND		VRING_DESC_F_INDIRECT

static unsigned char dev_mem_a[REG_SIZE] __attribute__((aligned(16)));
static unsigned char dev_mem_b[REG_SIZE] __attribute__((aligned(16)));
static void *dev_ring_mem;
static struct vring dvr;
static struct vringfd_dev dev;
static struct iovec iov[16];
static struct vringfd_chain ch;

/**
 * dev_test_xlate() - the two-region translation described above
 * @opaque: unused
 * @addr: guest-physical address
 * @len: wanted; clipped to the end of the region
 *
 * Return: pointer, or NULL outside both regions.
 */
static void *dev_test_xlate(void *opaque, uint64_t addr, uint64_t *len)
{
	uint64_t left;
	unsigned char *p;

	if (addr >= GPA_A && addr < GPA_B) {
		p = dev_mem_a + (addr - GPA_A);
		left = GPA_B - addr;
	} else if (addr >= GPA_B && addr < GPA_END) {
		p = dev_mem_b + (addr - GPA_B);
		left = GPA_END - addr;
	} else {
		return NULL;
	}
	if (*len > left)
		*len = left;
	return p;
}

/**
 * dev_lying_xlate() - maps every address to one small buffer, full length
 * @opaque: unused
 * @addr: ignored
 * @len: left as asked
 *
 * For length checks that must happen whatever the translation says.
 * Return: dev_mem_a.
 */
static void *dev_lying_xlate(void *opaque, uint64_t addr, uint64_t *len)
{
	return dev_mem_a;
}

/**
 * dev_setup() - a fresh ring of NUM entries with guest-address translation
 * @features: ring features
 */
static void dev_setup(uint64_t features)
{
	dev_ring_mem = aligned_alloc(4096, 4 * 4096);
	ck_assert_ptr_nonnull(dev_ring_mem);
	memset(dev_ring_mem, 0, 4 * 4096);
	memset(dev_mem_a, 0, sizeof(dev_mem_a));
	memset(dev_mem_b, 0, sizeof(dev_mem_b));
	vring_init(&dvr, NUM, dev_ring_mem, 4096);
	ck_assert_int_eq(vringfd_dev_init(&dev, NUM, dvr.desc, dvr.avail, dvr.used,
					  features), 0);
	dev.xlate = dev_test_xlate;
	memset(&ch, 0, sizeof(ch));
}

static void dev_teardown(void)
{
	free(dev_ring_mem);
}

/**
 * set_desc() - write descriptor @i of the main table
 * @i: index
 * @addr: buffer address
 * @len: buffer length
 * @flags: VRING_DESC_F_*
 * @next: next index
 */
static void set_desc(unsigned int i, uint64_t addr, uint32_t len, uint16_t flags,
		     uint16_t next)
{
	dvr.desc[i].addr = addr;
	dvr.desc[i].len = len;
	dvr.desc[i].flags = flags;
	dvr.desc[i].next = next;
}

/**
 * set_ind() - write entry @i of an indirect table in region A
 * @table_off: offset of the table in dev_mem_a
 * @i: entry
 * @addr: buffer address
 * @len: buffer length
 * @flags: VRING_DESC_F_*
 * @next: next index
 */
static void set_ind(size_t table_off, unsigned int i, uint64_t addr, uint32_t len,
		    uint16_t flags, uint16_t next)
{
	struct vring_desc d = { addr, len, flags, next };

	memcpy(dev_mem_a + table_off + 16 * i, &d, sizeof(d));
}

/**
 * post() - make @head available (avail entry then avail->idx)
 * @head: head index
 */
static void post(uint16_t head)
{
	dvr.avail->ring[dvr.avail->idx % NUM] = head;
	dvr.avail->idx++;
}

/**
 * expect_broken() - the next get_chain answers -EIO and the ring is broken
 *
 * A macro, so a failure points at the test's line.
 */
#define expect_broken() do { \
	uint16_t _last = dev.last_avail; \
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), -EIO); \
	ck_assert(dev.broken); \
	ck_assert_uint_eq(dev.last_avail, _last);	/* nothing taken */ \
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), -EIO); \
} while (0)

START_TEST(dev_init_bad_args)
{
	unsigned char m[4096] __attribute__((aligned(16)));
	struct vringfd_dev d;

	ck_assert_int_eq(vringfd_dev_init(&d, 0, m, m, m, 0), -EINVAL);
	ck_assert_int_eq(vringfd_dev_init(&d, 3, m, m, m, 0), -EINVAL);
	ck_assert_int_eq(vringfd_dev_init(&d, 65536, m, m, m, 0), -EINVAL);
	ck_assert_int_eq(vringfd_dev_init(&d, 8, m + 8, m, m, 0), -EINVAL);
	ck_assert_int_eq(vringfd_dev_init(&d, 8, m, m + 1, m, 0), -EINVAL);
	ck_assert_int_eq(vringfd_dev_init(&d, 8, m, m, m + 2, 0), -EINVAL);
	ck_assert_int_eq(vringfd_dev_init(&d, 8, NULL, m, m, 0), -EINVAL);
	ck_assert_int_eq(vringfd_dev_init(&d, 8, m, NULL, m, 0), -EINVAL);
	ck_assert_int_eq(vringfd_dev_init(&d, 8, m, m, NULL, 0), -EINVAL);
	ck_assert_int_eq(vringfd_dev_init(&d, 8, m, m, m, 0), 0);
}
END_TEST

START_TEST(dev_empty)
{
	dev_setup(0);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 0);
	ck_assert_uint_eq(vringfd_dev_pending(&dev), 0);
	ck_assert(!dev.broken);
	dev_teardown();
}
END_TEST

START_TEST(dev_null_args)
{
	dev_setup(0);
	set_desc(0, GPA_A, 10, 0, 0);
	post(0);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, NULL, iov, 16), -EINVAL);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, NULL, 16), -EINVAL);
	ck_assert_uint_eq(dev.last_avail, 0);
	ck_assert(!dev.broken);
	dev_teardown();
}
END_TEST

START_TEST(dev_good_chain)
{
	dev_setup(0);
	set_desc(3, GPA_A + 0x100, 10, F_NEXT, 5);
	set_desc(5, GPA_A + 0x200, 20, F_NEXT | F_WRITE, 1);
	set_desc(1, GPA_B + 0x10, 30, F_WRITE, 0);
	post(3);
	ck_assert_uint_eq(vringfd_dev_pending(&dev), 1);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	ck_assert_uint_eq(ch.head, 3);
	ck_assert_uint_eq(ch.nout, 1);
	ck_assert_uint_eq(ch.nin, 2);
	ck_assert_uint_eq(ch.out_len, 10);
	ck_assert_uint_eq(ch.in_len, 50);
	ck_assert_ptr_eq(ch.out, iov);
	ck_assert_ptr_eq(ch.in, iov + 1);
	ck_assert_ptr_eq(ch.out[0].iov_base, dev_mem_a + 0x100);
	ck_assert_uint_eq(ch.out[0].iov_len, 10);
	ck_assert_ptr_eq(ch.in[0].iov_base, dev_mem_a + 0x200);
	ck_assert_ptr_eq(ch.in[1].iov_base, dev_mem_b + 0x10);
	ck_assert_uint_eq(ch.in[1].iov_len, 30);
	ck_assert_uint_eq(dev.last_avail, 1);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 0);
	ck_assert_int_eq(vringfd_dev_put_used(&dev, 3, 42), 0);
	ck_assert_uint_eq(dvr.used->idx, 0);	/* not yet published */
	vringfd_dev_publish_used(&dev);
	ck_assert_uint_eq(dvr.used->idx, 1);
	ck_assert_uint_eq(dvr.used->ring[0].id, 3);
	ck_assert_uint_eq(dvr.used->ring[0].len, 42);
	dev_teardown();
}
END_TEST

START_TEST(dev_no_xlate_pointers)
{
	char buf[8];

	dev_setup(0);
	dev.xlate = NULL;
	set_desc(0, (uintptr_t)buf, sizeof(buf), 0, 0);
	post(0);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	ck_assert_ptr_eq(iov[0].iov_base, buf);
	ck_assert_uint_eq(iov[0].iov_len, sizeof(buf));
	dev_teardown();
}
END_TEST

START_TEST(dev_loop)
{
	dev_setup(0);
	set_desc(0, GPA_A, 1, F_NEXT, 1);
	set_desc(1, GPA_A, 1, F_NEXT, 2);
	set_desc(2, GPA_A, 1, F_NEXT, 0);
	post(0);
	expect_broken();
	dev_teardown();
}
END_TEST

START_TEST(dev_self_loop)
{
	dev_setup(0);
	set_desc(4, GPA_A, 1, F_NEXT, 4);
	post(4);
	expect_broken();
	dev_teardown();
}
END_TEST

START_TEST(dev_chain_of_num_ok)
{
	unsigned int i;

	/* exactly num descriptors: the longest legal chain */
	dev_setup(0);
	for (i = 0; i < NUM; i++)
		set_desc(i, GPA_A + i, 1, i + 1 < NUM ? F_NEXT : 0, i + 1);
	post(0);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	ck_assert_uint_eq(ch.nout, NUM);
	ck_assert_uint_eq(ch.out_len, NUM);
	dev_teardown();
}
END_TEST

START_TEST(dev_head_out_of_range)
{
	dev_setup(0);
	post(NUM);
	expect_broken();
	dev_teardown();
}
END_TEST

START_TEST(dev_head_ffff)
{
	dev_setup(0);
	post(0xffff);
	expect_broken();
	dev_teardown();
}
END_TEST

START_TEST(dev_next_out_of_range)
{
	dev_setup(0);
	set_desc(0, GPA_A, 1, F_NEXT, NUM);
	post(0);
	expect_broken();
	dev_teardown();
}
END_TEST

START_TEST(dev_avail_idx_jump)
{
	dev_setup(0);
	set_desc(0, GPA_A, 1, 0, 0);
	dvr.avail->idx = NUM + 1;
	expect_broken();
	ck_assert_uint_eq(vringfd_dev_pending(&dev), 0);
	dev_teardown();
}
END_TEST

START_TEST(dev_avail_idx_backwards)
{
	/* avail->idx moving back is a jump of nearly 65536 */
	dev_setup(0);
	set_desc(0, GPA_A, 1, 0, 0);
	post(0);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	dvr.avail->idx = 0;
	expect_broken();
	dev_teardown();
}
END_TEST

START_TEST(dev_avail_idx_num_ok)
{
	unsigned int i;

	/* exactly num entries available is legal */
	dev_setup(0);
	for (i = 0; i < NUM; i++) {
		set_desc(i, GPA_A + i, 1, 0, 0);
		post(i);
	}
	ck_assert_uint_eq(vringfd_dev_pending(&dev), NUM);
	for (i = 0; i < NUM; i++) {
		ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
		ck_assert_uint_eq(ch.head, i);
	}
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 0);
	dev_teardown();
}
END_TEST

START_TEST(dev_index_wrap)
{
	unsigned int i;

	/* indexes that wrap 65535 -> 0 are masked, not out of the ring */
	dev_setup(0);
	dvr.avail->idx = 65533;
	vringfd_dev_set_base(&dev, 65533, 65533);
	for (i = 0; i < 6; i++) {
		set_desc(i, GPA_A + i, 1, 0, 0);
		post(i);
	}
	for (i = 0; i < 6; i++) {
		ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
		ck_assert_uint_eq(ch.head, i);
		ck_assert_int_eq(vringfd_dev_put_used(&dev, ch.head, i), 0);
		ck_assert_uint_eq(dvr.used->ring[(65533 + i) % NUM].id, i);
	}
	vringfd_dev_publish_used(&dev);
	ck_assert_uint_eq(dvr.used->idx, 3);
	ck_assert_uint_eq(dev.last_avail, 3);
	dev_teardown();
}
END_TEST

START_TEST(dev_indirect_ok)
{
	dev_setup(INDIRECT);
	set_ind(0x1000, 0, GPA_A + 0x2000, 14, F_NEXT, 2);
	set_ind(0x1000, 2, GPA_A + 0x3000, 100, F_NEXT | F_WRITE, 1);
	set_ind(0x1000, 1, GPA_B, 200, F_WRITE, 0);
	set_desc(6, GPA_A + 0x1000, 3 * 16, F_IND, 0);
	post(6);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	ck_assert_uint_eq(ch.head, 6);
	ck_assert_uint_eq(ch.nout, 1);
	ck_assert_uint_eq(ch.nin, 2);
	ck_assert_uint_eq(ch.out_len, 14);
	ck_assert_uint_eq(ch.in_len, 300);
	ck_assert_ptr_eq(ch.out[0].iov_base, dev_mem_a + 0x2000);
	ck_assert_ptr_eq(ch.in[0].iov_base, dev_mem_a + 0x3000);
	ck_assert_ptr_eq(ch.in[1].iov_base, dev_mem_b);
	dev_teardown();
}
END_TEST

START_TEST(dev_indirect_after_direct)
{
	/* a direct descriptor, then an indirect table ending the chain */
	dev_setup(INDIRECT);
	set_ind(0x1000, 0, GPA_A + 0x3000, 8, F_WRITE, 0);
	set_desc(0, GPA_A + 0x2000, 4, F_NEXT, 1);
	set_desc(1, GPA_A + 0x1000, 16, F_IND, 0);
	post(0);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	ck_assert_uint_eq(ch.nout, 1);
	ck_assert_uint_eq(ch.nin, 1);
	dev_teardown();
}
END_TEST

START_TEST(dev_indirect_without_feature)
{
	dev_setup(0);
	set_ind(0x1000, 0, GPA_A + 0x2000, 14, 0, 0);
	set_desc(0, GPA_A + 0x1000, 16, F_IND, 0);
	post(0);
	expect_broken();
	dev_teardown();
}
END_TEST

START_TEST(dev_indirect_nested)
{
	dev_setup(INDIRECT);
	set_ind(0x1100, 0, GPA_A + 0x2000, 14, 0, 0);
	set_ind(0x1000, 0, GPA_A + 0x1100, 16, F_IND, 0);
	set_desc(0, GPA_A + 0x1000, 16, F_IND, 0);
	post(0);
	expect_broken();
	dev_teardown();
}
END_TEST

START_TEST(dev_indirect_len_zero)
{
	dev_setup(INDIRECT);
	set_desc(0, GPA_A + 0x1000, 0, F_IND, 0);
	post(0);
	expect_broken();
	dev_teardown();
}
END_TEST

START_TEST(dev_indirect_len_not_multiple)
{
	dev_setup(INDIRECT);
	set_ind(0x1000, 0, GPA_A + 0x2000, 14, 0, 0);
	set_desc(0, GPA_A + 0x1000, 24, F_IND, 0);
	post(0);
	expect_broken();
	dev_teardown();
}
END_TEST

START_TEST(dev_indirect_too_many)
{
	/* 32769 entries: more than any ring may have */
	dev_setup(INDIRECT);
	dev.xlate = dev_lying_xlate;
	set_desc(0, GPA_A, (VRINGFD_MAX_NUM + 1) * 16, F_IND, 0);
	post(0);
	expect_broken();
	dev_teardown();
}
END_TEST

START_TEST(dev_indirect_with_next)
{
	dev_setup(INDIRECT);
	set_ind(0x1000, 0, GPA_A + 0x2000, 14, 0, 0);
	set_desc(0, GPA_A + 0x1000, 16, F_IND | F_NEXT, 1);
	set_desc(1, GPA_A + 0x2000, 14, 0, 0);
	post(0);
	expect_broken();
	dev_teardown();
}
END_TEST

START_TEST(dev_indirect_loop)
{
	dev_setup(INDIRECT);
	set_ind(0x1000, 0, GPA_A + 0x2000, 1, F_NEXT, 1);
	set_ind(0x1000, 1, GPA_A + 0x2000, 1, F_NEXT, 0);
	set_desc(0, GPA_A + 0x1000, 2 * 16, F_IND, 0);
	post(0);
	expect_broken();
	dev_teardown();
}
END_TEST

START_TEST(dev_indirect_next_out_of_table)
{
	dev_setup(INDIRECT);
	set_ind(0x1000, 0, GPA_A + 0x2000, 1, F_NEXT, 2);
	set_ind(0x1000, 1, GPA_A + 0x2000, 1, 0, 0);
	set_ind(0x1000, 2, GPA_A + 0x2000, 1, 0, 0);	/* beyond len */
	set_desc(0, GPA_A + 0x1000, 2 * 16, F_IND, 0);
	post(0);
	expect_broken();
	dev_teardown();
}
END_TEST

START_TEST(dev_indirect_table_wraps)
{
	dev_setup(INDIRECT);
	dev.xlate = dev_lying_xlate;
	set_desc(0, UINT64_MAX - 15, 32, F_IND, 0);
	post(0);
	expect_broken();
	dev_teardown();
}
END_TEST

START_TEST(dev_indirect_table_bad_addr)
{
	dev_setup(INDIRECT);
	set_desc(0, 0x1000, 16, F_IND, 0);	/* outside every region */
	set_desc(1, GPA_A, 1, 0, 0);
	post(0);
	post(1);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), -EFAULT);
	ck_assert_uint_eq(ch.head, 0);
	ck_assert(!dev.broken);
	ck_assert_int_eq(vringfd_dev_put_used(&dev, ch.head, 0), 0);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	ck_assert_uint_eq(ch.head, 1);
	dev_teardown();
}
END_TEST

START_TEST(dev_indirect_table_straddles)
{
	/* a table whose second entry starts in region A and ends in B */
	size_t off = REG_SIZE - 24;
	struct vring_desc d0 = { GPA_A + 0x10, 5, F_NEXT, 1 };
	struct vring_desc d1 = { GPA_A + 0x20, 7, F_WRITE, 0 };

	dev_setup(INDIRECT);
	memcpy(dev_mem_a + off, &d0, 16);
	memcpy(dev_mem_a + off + 16, &d1, 8);
	memcpy(dev_mem_b, (char *)&d1 + 8, 8);
	set_desc(0, GPA_A + off, 32, F_IND, 0);
	post(0);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	ck_assert_uint_eq(ch.nout, 1);
	ck_assert_uint_eq(ch.nin, 1);
	ck_assert_uint_eq(ch.in_len, 7);
	ck_assert_ptr_eq(ch.in[0].iov_base, dev_mem_a + 0x20);
	dev_teardown();
}
END_TEST

START_TEST(dev_indirect_misaligned_table)
{
	/* a table at an odd address is read byte by byte, not misaligned */
	struct vring_desc d0 = { GPA_A + 0x10, 5, 0, 0 };

	dev_setup(INDIRECT);
	memcpy(dev_mem_a + 0x1001, &d0, 16);
	set_desc(0, GPA_A + 0x1001, 16, F_IND, 0);
	post(0);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	ck_assert_uint_eq(ch.out_len, 5);
	dev_teardown();
}
END_TEST

START_TEST(dev_readable_after_writable)
{
	dev_setup(0);
	set_desc(0, GPA_A, 10, F_NEXT | F_WRITE, 1);
	set_desc(1, GPA_A, 10, 0, 0);
	post(0);
	expect_broken();
	dev_teardown();
}
END_TEST

START_TEST(dev_readable_after_writable_indirect)
{
	/* the rule spans a direct descriptor and the indirect table after it */
	dev_setup(INDIRECT);
	set_ind(0x1000, 0, GPA_A + 0x3000, 8, 0, 0);
	set_desc(0, GPA_A + 0x2000, 4, F_NEXT | F_WRITE, 1);
	set_desc(1, GPA_A + 0x1000, 16, F_IND, 0);
	post(0);
	expect_broken();
	dev_teardown();
}
END_TEST

START_TEST(dev_length_wrap)
{
	/* the end of the buffer wraps 2^64 */
	dev_setup(0);
	dev.xlate = dev_lying_xlate;
	set_desc(0, UINT64_MAX - 10, 100, 0, 0);
	post(0);
	expect_broken();
	dev_teardown();
}
END_TEST

START_TEST(dev_length_ends_at_2_64)
{
	/* a buffer ending exactly at 2^64: its end does not fit (the module's rule) */
	dev_setup(0);
	dev.xlate = dev_lying_xlate;
	set_desc(0, 0ULL - 16, 16, 0, 0);
	post(0);
	expect_broken();
	dev_teardown();
}
END_TEST

START_TEST(dev_length_near_2_64_ok)
{
	/* ending one byte below 2^64 is fine */
	dev_setup(0);
	dev.xlate = dev_lying_xlate;
	set_desc(0, 0ULL - 17, 16, 0, 0);
	post(0);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	ck_assert_uint_eq(ch.out_len, 16);
	dev_teardown();
}
END_TEST

START_TEST(dev_length_over_4g)
{
	/* two descriptors of 4 GiB - 1 each: the chain's total wraps a u32 */
	dev_setup(0);
	dev.xlate = dev_lying_xlate;
	set_desc(0, GPA_A, UINT32_MAX, F_NEXT, 1);
	set_desc(1, GPA_A, UINT32_MAX, 0, 0);
	post(0);
	expect_broken();
	dev_teardown();
}
END_TEST

START_TEST(dev_length_4g_minus_1_ok)
{
	/* one descriptor of 4 GiB - 1 bytes is the largest legal chain */
	dev_setup(0);
	dev.xlate = dev_lying_xlate;
	set_desc(0, GPA_A, UINT32_MAX, 0, 0);
	post(0);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	ck_assert_uint_eq(ch.out_len, UINT32_MAX);
	dev_teardown();
}
END_TEST

START_TEST(dev_zero_length_skipped)
{
	dev_setup(0);
	set_desc(0, GPA_A, 0, F_NEXT, 1);
	set_desc(1, GPA_A + 0x10, 4, F_NEXT, 2);
	set_desc(2, 0xdead0000, 0, F_WRITE, 0);	/* zero length: address unused */
	post(0);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	ck_assert_uint_eq(ch.nout, 1);
	ck_assert_uint_eq(ch.nin, 0);
	ck_assert_uint_eq(ch.out_len, 4);
	ck_assert_ptr_eq(ch.out[0].iov_base, dev_mem_a + 0x10);
	dev_teardown();
}
END_TEST

START_TEST(dev_xlate_failure)
{
	dev_setup(0);
	set_desc(2, GPA_A, 10, F_NEXT, 3);
	set_desc(3, GPA_END + 0x100, 10, F_WRITE, 0);	/* outside */
	set_desc(4, GPA_A, 10, 0, 0);
	post(2);
	post(4);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), -EFAULT);
	ck_assert_uint_eq(ch.head, 2);
	ck_assert_uint_eq(ch.nout + ch.nin, 0);
	ck_assert(!dev.broken);
	ck_assert_uint_eq(dev.last_avail, 1);	/* consumed */
	ck_assert_int_eq(vringfd_dev_put_used(&dev, ch.head, 0), 0);
	vringfd_dev_publish_used(&dev);
	ck_assert_uint_eq(dvr.used->ring[0].id, 2);
	ck_assert_uint_eq(dvr.used->ring[0].len, 0);
	/* the next chain is fine */
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	ck_assert_uint_eq(ch.head, 4);
	dev_teardown();
}
END_TEST

START_TEST(dev_xlate_buffer_runs_off_region)
{
	/* starts in region B, ends past it */
	dev_setup(0);
	set_desc(0, GPA_END - 8, 16, 0, 0);
	post(0);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), -EFAULT);
	ck_assert(!dev.broken);
	dev_teardown();
}
END_TEST

START_TEST(dev_xlate_split)
{
	dev_setup(0);
	set_desc(0, GPA_B - 100, 300, F_WRITE, 0);
	post(0);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	ck_assert_uint_eq(ch.nin, 2);
	ck_assert_uint_eq(ch.in_len, 300);
	ck_assert_ptr_eq(ch.in[0].iov_base, dev_mem_a + REG_SIZE - 100);
	ck_assert_uint_eq(ch.in[0].iov_len, 100);
	ck_assert_ptr_eq(ch.in[1].iov_base, dev_mem_b);
	ck_assert_uint_eq(ch.in[1].iov_len, 200);
	dev_teardown();
}
END_TEST

START_TEST(dev_iov_overflow)
{
	dev_setup(0);
	set_desc(0, GPA_A, 1, F_NEXT, 1);
	set_desc(1, GPA_A, 1, F_NEXT, 2);
	set_desc(2, GPA_A, 1, 0, 0);
	set_desc(3, GPA_A, 1, 0, 0);
	post(0);
	post(3);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 2), -E2BIG);
	ck_assert_uint_eq(ch.head, 0);
	ck_assert(!dev.broken);
	ck_assert_uint_eq(dev.last_avail, 1);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 2), 1);
	ck_assert_uint_eq(ch.head, 3);
	dev_teardown();
}
END_TEST

START_TEST(dev_iov_overflow_by_split)
{
	/* one descriptor, but it crosses regions: 2 segments, 1 slot */
	dev_setup(0);
	set_desc(0, GPA_B - 1, 2, 0, 0);
	post(0);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 1), -E2BIG);
	ck_assert(!dev.broken);
	dev_teardown();
}
END_TEST

START_TEST(dev_broken_stays_broken)
{
	dev_setup(0);
	set_desc(0, GPA_A, 1, F_NEXT, 0);	/* loop */
	post(0);
	expect_broken();
	/* the driver "repairs" the ring: still broken */
	set_desc(0, GPA_A, 1, 0, 0);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), -EIO);
	ck_assert_int_eq(vringfd_dev_put_used(&dev, 0, 0), -EIO);
	ck_assert_uint_eq(vringfd_dev_pending(&dev), 0);
	ck_assert(!vringfd_dev_need_notify(&dev));
	dev_teardown();
}
END_TEST

START_TEST(dev_put_used_bad_head)
{
	dev_setup(0);
	ck_assert_int_eq(vringfd_dev_put_used(&dev, NUM, 0), -EINVAL);
	ck_assert_int_eq(vringfd_dev_put_used(&dev, 0xffff, 0), -EINVAL);
	ck_assert_uint_eq(dev.used_idx, 0);
	dev_teardown();
}
END_TEST

START_TEST(dev_used_idx_private)
{
	dev_setup(0);
	set_desc(0, GPA_A, 1, 0, 0);
	post(0);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	/* the driver scribbles on used->idx: the device does not read it */
	dvr.used->idx = 1234;
	ck_assert_int_eq(vringfd_dev_put_used(&dev, 0, 1), 0);
	vringfd_dev_publish_used(&dev);
	ck_assert_uint_eq(dvr.used->idx, 1);
	ck_assert_uint_eq(dvr.used->ring[0].id, 0);
	dev_teardown();
}
END_TEST

START_TEST(dev_notify_flags)
{
	dev_setup(0);
	/* nothing published yet, first call: not suppressed */
	ck_assert_int_eq(vringfd_dev_put_used(&dev, 0, 0), 0);
	vringfd_dev_publish_used(&dev);
	ck_assert(vringfd_dev_need_notify(&dev));
	/* nothing new */
	ck_assert(!vringfd_dev_need_notify(&dev));
	/* driver suppresses interrupts */
	dvr.avail->flags = VRING_AVAIL_F_NO_INTERRUPT;
	ck_assert_int_eq(vringfd_dev_put_used(&dev, 0, 0), 0);
	vringfd_dev_publish_used(&dev);
	ck_assert(!vringfd_dev_need_notify(&dev));
	dvr.avail->flags = 0;
	ck_assert_int_eq(vringfd_dev_put_used(&dev, 0, 0), 0);
	vringfd_dev_publish_used(&dev);
	ck_assert(vringfd_dev_need_notify(&dev));
	dev_teardown();
}
END_TEST

START_TEST(dev_notify_event_idx)
{
	unsigned int i;

	dev_setup(EVIDX);
	/* first notification always goes out */
	ck_assert_int_eq(vringfd_dev_put_used(&dev, 0, 0), 0);
	vringfd_dev_publish_used(&dev);
	ck_assert(vringfd_dev_need_notify(&dev));
	/* used_event 0: 1 -> 3 does not cross it */
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(vringfd_dev_put_used(&dev, 0, 0), 0);
	vringfd_dev_publish_used(&dev);
	ck_assert(!vringfd_dev_need_notify(&dev));
	/* used_event 4: 3 -> 5 crosses it (entry 4 published) */
	vring_used_event(&dvr) = 4;
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(vringfd_dev_put_used(&dev, 0, 0), 0);
	vringfd_dev_publish_used(&dev);
	ck_assert(vringfd_dev_need_notify(&dev));
	/* the NO_INTERRUPT flag is not looked at with EVENT_IDX */
	dvr.avail->flags = VRING_AVAIL_F_NO_INTERRUPT;
	vring_used_event(&dvr) = 5;
	ck_assert_int_eq(vringfd_dev_put_used(&dev, 0, 0), 0);
	vringfd_dev_publish_used(&dev);
	ck_assert(vringfd_dev_need_notify(&dev));
	dev_teardown();
}
END_TEST

START_TEST(dev_set_no_notify)
{
	dev_setup(0);
	vringfd_dev_set_no_notify(&dev, true);
	ck_assert_uint_eq(dvr.used->flags, VRING_USED_F_NO_NOTIFY);
	vringfd_dev_set_no_notify(&dev, false);
	ck_assert_uint_eq(dvr.used->flags, 0);
	dev_teardown();
}
END_TEST

START_TEST(dev_set_no_notify_event_idx)
{
	dev_setup(EVIDX);
	set_desc(0, GPA_A, 1, 0, 0);
	post(0);
	post(0);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	vringfd_dev_set_no_notify(&dev, true);
	ck_assert_uint_eq(vring_avail_event(&dvr), 0);
	ck_assert_uint_eq(dvr.used->flags, 0);
	vringfd_dev_set_no_notify(&dev, false);
	ck_assert_uint_eq(vring_avail_event(&dvr), 2);
	dev_teardown();
}
END_TEST

START_TEST(dev_enable_notify_sees_late_chain)
{
	dev_setup(EVIDX);
	set_desc(0, GPA_A, 1, 0, 0);
	post(0);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 0);
	/* empty: the request is published, nothing came meanwhile */
	ck_assert(!vringfd_dev_enable_notify(&dev));
	ck_assert_uint_eq(vring_avail_event(&dvr), 1);
	/* a chain posted after the walk found the ring empty is seen */
	post(0);
	ck_assert(vringfd_dev_enable_notify(&dev));
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	ck_assert(!vringfd_dev_enable_notify(&dev));
	ck_assert_uint_eq(vring_avail_event(&dvr), 2);
	dev_teardown();
}
END_TEST

START_TEST(dev_discard_gives_chains_back)
{
	dev_setup(0);
	set_desc(0, GPA_A, 1, 0, 0);
	set_desc(1, GPA_A + 8, 2, 0, 0);
	post(0);
	post(1);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	ck_assert_uint_eq(ch.head, 0);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	ck_assert_uint_eq(ch.head, 1);
	ck_assert_uint_eq(vringfd_dev_pending(&dev), 0);
	ck_assert_int_eq(vringfd_dev_discard(&dev, 2), 0);
	ck_assert_uint_eq(vringfd_dev_pending(&dev), 2);
	/* the same chains again, in order */
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	ck_assert_uint_eq(ch.head, 0);
	ck_assert_int_eq(vringfd_dev_discard(&dev, 1), 0);
	ck_assert_int_eq(vringfd_dev_get_chain(&dev, &ch, iov, 16), 1);
	ck_assert_uint_eq(ch.head, 0);
	ck_assert_int_eq(vringfd_dev_discard(&dev, dev.num + 1), -EINVAL);
	dev_teardown();
}
END_TEST

/**
 * device_suite() - the device walker suite
 *
 * Return: the suite.
 */
Suite *device_suite(void)
{
	Suite *s = runner_suite_create("lib-device");

	RUNNER_ADD_TEST(s, dev_init_bad_args);
	RUNNER_ADD_TEST(s, dev_empty);
	RUNNER_ADD_TEST(s, dev_null_args);
	RUNNER_ADD_TEST(s, dev_good_chain);
	RUNNER_ADD_TEST(s, dev_no_xlate_pointers);
	RUNNER_ADD_TEST(s, dev_loop);
	RUNNER_ADD_TEST(s, dev_self_loop);
	RUNNER_ADD_TEST(s, dev_chain_of_num_ok);
	RUNNER_ADD_TEST(s, dev_head_out_of_range);
	RUNNER_ADD_TEST(s, dev_head_ffff);
	RUNNER_ADD_TEST(s, dev_next_out_of_range);
	RUNNER_ADD_TEST(s, dev_avail_idx_jump);
	RUNNER_ADD_TEST(s, dev_avail_idx_backwards);
	RUNNER_ADD_TEST(s, dev_avail_idx_num_ok);
	RUNNER_ADD_TEST(s, dev_index_wrap);
	RUNNER_ADD_TEST(s, dev_indirect_ok);
	RUNNER_ADD_TEST(s, dev_indirect_after_direct);
	RUNNER_ADD_TEST(s, dev_indirect_without_feature);
	RUNNER_ADD_TEST(s, dev_indirect_nested);
	RUNNER_ADD_TEST(s, dev_indirect_len_zero);
	RUNNER_ADD_TEST(s, dev_indirect_len_not_multiple);
	RUNNER_ADD_TEST(s, dev_indirect_too_many);
	RUNNER_ADD_TEST(s, dev_indirect_with_next);
	RUNNER_ADD_TEST(s, dev_indirect_loop);
	RUNNER_ADD_TEST(s, dev_indirect_next_out_of_table);
	RUNNER_ADD_TEST(s, dev_indirect_table_wraps);
	RUNNER_ADD_TEST(s, dev_indirect_table_bad_addr);
	RUNNER_ADD_TEST(s, dev_indirect_table_straddles);
	RUNNER_ADD_TEST(s, dev_indirect_misaligned_table);
	RUNNER_ADD_TEST(s, dev_readable_after_writable);
	RUNNER_ADD_TEST(s, dev_readable_after_writable_indirect);
	RUNNER_ADD_TEST(s, dev_length_wrap);
	RUNNER_ADD_TEST(s, dev_length_ends_at_2_64);
	RUNNER_ADD_TEST(s, dev_length_near_2_64_ok);
	RUNNER_ADD_TEST(s, dev_length_over_4g);
	RUNNER_ADD_TEST(s, dev_length_4g_minus_1_ok);
	RUNNER_ADD_TEST(s, dev_zero_length_skipped);
	RUNNER_ADD_TEST(s, dev_xlate_failure);
	RUNNER_ADD_TEST(s, dev_xlate_buffer_runs_off_region);
	RUNNER_ADD_TEST(s, dev_xlate_split);
	RUNNER_ADD_TEST(s, dev_iov_overflow);
	RUNNER_ADD_TEST(s, dev_iov_overflow_by_split);
	RUNNER_ADD_TEST(s, dev_broken_stays_broken);
	RUNNER_ADD_TEST(s, dev_put_used_bad_head);
	RUNNER_ADD_TEST(s, dev_used_idx_private);
	RUNNER_ADD_TEST(s, dev_notify_flags);
	RUNNER_ADD_TEST(s, dev_notify_event_idx);
	RUNNER_ADD_TEST(s, dev_set_no_notify);
	RUNNER_ADD_TEST(s, dev_enable_notify_sees_late_chain);
	RUNNER_ADD_TEST(s, dev_discard_gives_chains_back);
	RUNNER_ADD_TEST(s, dev_set_no_notify_event_idx);
	return s;
}
