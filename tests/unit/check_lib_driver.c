// SPDX-License-Identifier: GPL-2.0
/*
 * check_lib_driver.c - the driver-side helpers (vringfd_ring_*): add,
 * publish, collect through a device walker; free-list exhaustion; bad
 * arguments; kick suppression; event index; a misbehaving device; the batch
 * forms (add_many, get_used_many) and in-order descriptor recycling.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vringfd.h"
#include "unit/runner.h"
#include "unit/check_lib.h"

#define DRV_NUM		8
#define DRV_ALIGN	4096UL
#define EVIDX		(1ULL << VIRTIO_RING_F_EVENT_IDX)

static void *drv_mem;
static struct vringfd_ring drv;
static struct vringfd_dev drv_dev;
static char drv_buf[DRV_NUM][64];

/**
 * drv_setup() - a ring of DRV_NUM entries, driver and device views
 * @features: ring features
 */
static void drv_setup(uint64_t features)
{
	drv_mem = aligned_alloc(DRV_ALIGN, 4 * DRV_ALIGN);
	ck_assert_ptr_nonnull(drv_mem);
	ck_assert_int_eq(vringfd_ring_init(&drv, drv_mem, DRV_NUM, DRV_ALIGN, features), 0);
	ck_assert_int_eq(vringfd_dev_init(&drv_dev, DRV_NUM, drv.vr.desc, drv.vr.avail,
					  drv.vr.used, features), 0);
}

static void drv_teardown(void)
{
	vringfd_ring_fini(&drv);
	free(drv_mem);
}

/**
 * drv_add1() - post one readable buffer drv_buf[@i]
 * @i: buffer index (also the token's offset)
 *
 * Return: vringfd_ring_add()'s result.
 */
static int drv_add1(unsigned int i)
{
	struct iovec v = { drv_buf[i], sizeof(drv_buf[i]) };

	return vringfd_ring_add(&drv, &v, 1, NULL, 0, drv_buf[i]);
}

/**
 * drv_complete_all() - the device takes every chain and completes it
 * @len: length to report for each
 *
 * Return: chains completed.
 */
static unsigned int drv_complete_all(uint32_t len)
{
	struct vringfd_chain c;
	struct iovec iov[DRV_NUM];
	unsigned int n = 0;

	while (vringfd_dev_get_chain(&drv_dev, &c, iov, DRV_NUM) == 1) {
		ck_assert_int_eq(vringfd_dev_put_used(&drv_dev, c.head, len), 0);
		n++;
	}
	vringfd_dev_publish_used(&drv_dev);
	return n;
}

START_TEST(drv_init_bad_args)
{
	void *mem = aligned_alloc(DRV_ALIGN, 4 * DRV_ALIGN);
	struct vringfd_ring r;

	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(vringfd_ring_init(&r, mem, 0, DRV_ALIGN, 0), -EINVAL);
	ck_assert_int_eq(vringfd_ring_init(&r, mem, 3, DRV_ALIGN, 0), -EINVAL);
	ck_assert_int_eq(vringfd_ring_init(&r, mem, 65536, DRV_ALIGN, 0), -EINVAL);
	ck_assert_int_eq(vringfd_ring_init(&r, mem, 8, 0, 0), -EINVAL);
	ck_assert_int_eq(vringfd_ring_init(&r, mem, 8, 2, 0), -EINVAL);
	ck_assert_int_eq(vringfd_ring_init(&r, mem, 8, 12, 0), -EINVAL);
	ck_assert_int_eq(vringfd_ring_init(&r, NULL, 8, DRV_ALIGN, 0), -EINVAL);
	ck_assert_int_eq(vringfd_ring_init(&r, (char *)mem + 8, 8, DRV_ALIGN, 0), -EINVAL);
	ck_assert_int_eq(vringfd_ring_init_parts(&r, 8, (char *)mem + 8, mem, mem, 0), -EINVAL);
	ck_assert_int_eq(vringfd_ring_init_parts(&r, 8, mem, (char *)mem + 1, mem, 0), -EINVAL);
	ck_assert_int_eq(vringfd_ring_init_parts(&r, 8, mem, mem, (char *)mem + 2, 0), -EINVAL);
	ck_assert_int_eq(vringfd_ring_init_parts(&r, 8, NULL, mem, mem, 0), -EINVAL);
	free(mem);
}
END_TEST

START_TEST(drv_round_trip)
{
	char out1[10] = "hello", out2[20], in1[30];
	struct iovec out[2] = { { out1, sizeof(out1) }, { out2, sizeof(out2) } };
	struct iovec in[1] = { { in1, sizeof(in1) } };
	struct iovec iov[4];
	struct vringfd_chain c;
	uint32_t len = 0;
	int head;

	drv_setup(0);
	head = vringfd_ring_add(&drv, out, 2, in, 1, out1);
	ck_assert_int_ge(head, 0);
	ck_assert_uint_eq(drv.num_free, DRV_NUM - 3);
	/* not visible before publish */
	ck_assert_int_eq(vringfd_dev_get_chain(&drv_dev, &c, iov, 4), 0);
	vringfd_ring_publish(&drv);
	ck_assert_uint_eq(vringfd_dev_pending(&drv_dev), 1);
	ck_assert_int_eq(vringfd_dev_get_chain(&drv_dev, &c, iov, 4), 1);
	ck_assert_int_eq(c.head, head);
	ck_assert_uint_eq(c.nout, 2);
	ck_assert_uint_eq(c.nin, 1);
	ck_assert_uint_eq(c.out_len, 30);
	ck_assert_uint_eq(c.in_len, 30);
	ck_assert_ptr_eq(c.out[0].iov_base, out1);
	ck_assert_ptr_eq(c.out[1].iov_base, out2);
	ck_assert_ptr_eq(c.in[0].iov_base, in1);
	ck_assert_uint_eq(c.in[0].iov_len, 30);
	ck_assert_ptr_null(vringfd_ring_get_used(&drv, &len));
	ck_assert(!vringfd_ring_more_used(&drv));
	ck_assert_int_eq(vringfd_dev_put_used(&drv_dev, c.head, 17), 0);
	vringfd_dev_publish_used(&drv_dev);
	ck_assert(vringfd_ring_more_used(&drv));
	ck_assert_ptr_eq(vringfd_ring_get_used(&drv, &len), out1);
	ck_assert_uint_eq(len, 17);
	ck_assert_uint_eq(drv.last_used, 1);
	ck_assert_uint_eq(drv.num_free, DRV_NUM);
	ck_assert_ptr_null(vringfd_ring_get_used(&drv, &len));
	drv_teardown();
}
END_TEST

START_TEST(drv_free_list_exhaustion)
{
	unsigned int i, round;
	void *tok;

	drv_setup(0);
	/* several rounds: indexes wrap the ring and the free list is reused */
	for (round = 0; round < 5; round++) {
		bool seen[DRV_NUM] = { false };

		for (i = 0; i < DRV_NUM; i++) {
			int head = drv_add1(i);

			ck_assert_int_ge(head, 0);
			ck_assert_int_lt(head, DRV_NUM);
			ck_assert(!seen[head]);
			seen[head] = true;
		}
		ck_assert_uint_eq(drv.num_free, 0);
		ck_assert_int_eq(drv_add1(0), -ENOSPC);
		vringfd_ring_publish(&drv);
		ck_assert_uint_eq(drv_complete_all(0), DRV_NUM);
		for (i = 0; i < DRV_NUM; i++) {
			tok = vringfd_ring_get_used(&drv, NULL);
			ck_assert_ptr_eq(tok, drv_buf[i]);	/* in order */
		}
		ck_assert_ptr_null(vringfd_ring_get_used(&drv, NULL));
		ck_assert_uint_eq(drv.num_free, DRV_NUM);
	}
	drv_teardown();
}
END_TEST

START_TEST(drv_enospc_multi)
{
	struct iovec v[5] = { { drv_buf[0], 1 }, { drv_buf[1], 1 }, { drv_buf[2], 1 },
			      { drv_buf[3], 1 }, { drv_buf[4], 1 } };

	drv_setup(0);
	ck_assert_int_ge(vringfd_ring_add(&drv, v, 5, NULL, 0, drv_buf[0]), 0);
	ck_assert_uint_eq(drv.num_free, 3);
	/* 4 descriptors needed, 3 free: ENOSPC, nothing changes */
	ck_assert_int_eq(vringfd_ring_add(&drv, v, 2, v + 2, 2, drv_buf[1]), -ENOSPC);
	ck_assert_uint_eq(drv.num_free, 3);
	ck_assert_uint_eq(drv.avail_shadow, 1);
	ck_assert_int_ge(vringfd_ring_add(&drv, v, 1, v + 1, 2, drv_buf[1]), 0);
	ck_assert_uint_eq(drv.num_free, 0);
	vringfd_ring_publish(&drv);
	ck_assert_uint_eq(drv_complete_all(1), 2);
	ck_assert_ptr_eq(vringfd_ring_get_used(&drv, NULL), drv_buf[0]);
	ck_assert_uint_eq(drv.num_free, 5);
	ck_assert_ptr_eq(vringfd_ring_get_used(&drv, NULL), drv_buf[1]);
	ck_assert_uint_eq(drv.num_free, DRV_NUM);
	drv_teardown();
}
END_TEST

START_TEST(drv_add_bad_args)
{
	struct iovec v[DRV_NUM + 1];
	struct iovec big = { drv_buf[0], (size_t)UINT32_MAX + 1 };
	unsigned int i;

	for (i = 0; i <= DRV_NUM; i++) {
		v[i].iov_base = drv_buf[0];
		v[i].iov_len = 1;
	}
	drv_setup(0);
	/* no segment */
	ck_assert_int_eq(vringfd_ring_add(&drv, v, 0, v, 0, drv_buf[0]), -EINVAL);
	/* NULL token */
	ck_assert_int_eq(vringfd_ring_add(&drv, v, 1, NULL, 0, NULL), -EINVAL);
	/* more segments than the ring has descriptors: can never fit */
	ck_assert_int_eq(vringfd_ring_add(&drv, v, DRV_NUM + 1, NULL, 0, drv_buf[0]), -EINVAL);
	ck_assert_int_eq(vringfd_ring_add(&drv, v, 5, v, 4, drv_buf[0]), -EINVAL);
	/* NULL array with a count */
	ck_assert_int_eq(vringfd_ring_add(&drv, NULL, 1, NULL, 0, drv_buf[0]), -EINVAL);
	ck_assert_int_eq(vringfd_ring_add(&drv, v, 1, NULL, 1, drv_buf[0]), -EINVAL);
	/* a segment a descriptor's u32 length cannot hold */
	ck_assert_int_eq(vringfd_ring_add(&drv, &big, 1, NULL, 0, drv_buf[0]), -EINVAL);
	/* nothing was consumed */
	ck_assert_uint_eq(drv.num_free, DRV_NUM);
	ck_assert_uint_eq(drv.avail_shadow, 0);
	drv_teardown();
}
END_TEST

START_TEST(drv_desc_contents)
{
	char a[3], b[5];
	struct iovec out = { a, sizeof(a) }, in = { b, sizeof(b) };
	struct vring_desc *d;
	int head;

	drv_setup(0);
	head = vringfd_ring_add(&drv, &out, 1, &in, 1, a);
	ck_assert_int_ge(head, 0);
	d = &drv.vr.desc[head];
	ck_assert_uint_eq(d->addr, (uintptr_t)a);
	ck_assert_uint_eq(d->len, 3);
	ck_assert_uint_eq(d->flags, VRING_DESC_F_NEXT);
	d = &drv.vr.desc[d->next];
	ck_assert_uint_eq(d->addr, (uintptr_t)b);
	ck_assert_uint_eq(d->len, 5);
	ck_assert_uint_eq(d->flags, VRING_DESC_F_WRITE);
	ck_assert_uint_eq(drv.vr.avail->ring[0], head);
	ck_assert_uint_eq(drv.vr.avail->idx, 0);
	vringfd_ring_publish(&drv);
	ck_assert_uint_eq(drv.vr.avail->idx, 1);
	drv_teardown();
}
END_TEST

START_TEST(drv_kick_suppression)
{
	drv_setup(0);
	/* nothing published: no kick */
	ck_assert(!vringfd_ring_need_kick(&drv));
	ck_assert_int_ge(drv_add1(0), 0);
	vringfd_ring_publish(&drv);
	ck_assert(vringfd_ring_need_kick(&drv));
	/* same state again: nothing new, no kick */
	ck_assert(!vringfd_ring_need_kick(&drv));
	/* device asks for no kicks */
	vringfd_dev_set_no_notify(&drv_dev, true);
	ck_assert_uint_eq(drv.vr.used->flags & VRING_USED_F_NO_NOTIFY, VRING_USED_F_NO_NOTIFY);
	ck_assert_int_ge(drv_add1(1), 0);
	vringfd_ring_publish(&drv);
	ck_assert(!vringfd_ring_need_kick(&drv));
	vringfd_dev_set_no_notify(&drv_dev, false);
	ck_assert_int_ge(drv_add1(2), 0);
	vringfd_ring_publish(&drv);
	ck_assert(vringfd_ring_need_kick(&drv));
	drv_teardown();
}
END_TEST

START_TEST(drv_kick_event_idx)
{
	unsigned int i;

	drv_setup(EVIDX);
	/* avail_event 0: the first chain (0 -> 1) crosses it */
	ck_assert_int_ge(drv_add1(0), 0);
	vringfd_ring_publish(&drv);
	ck_assert(vringfd_ring_need_kick(&drv));
	/* the device has not moved avail_event: 1 -> 3 does not cross 0 */
	ck_assert_int_ge(drv_add1(1), 0);
	ck_assert_int_ge(drv_add1(2), 0);
	vringfd_ring_publish(&drv);
	ck_assert(!vringfd_ring_need_kick(&drv));
	/* the device took 3 chains and asks for a kick at the next one */
	ck_assert_uint_eq(drv_complete_all(0), 3);
	vringfd_dev_set_no_notify(&drv_dev, false);
	ck_assert_uint_eq(vring_avail_event(&drv.vr), 3);
	for (i = 0; i < 3; i++)
		ck_assert_ptr_nonnull(vringfd_ring_get_used(&drv, NULL));
	/* used_event written by get_used: interrupt at the next entry */
	ck_assert_uint_eq(vring_used_event(&drv.vr), 3);
	ck_assert_int_ge(drv_add1(3), 0);
	ck_assert_int_ge(drv_add1(4), 0);
	vringfd_ring_publish(&drv);
	ck_assert(vringfd_ring_need_kick(&drv));	/* 3 -> 5 crosses 3 */
	/* avail_event far ahead: no kick */
	vring_avail_event(&drv.vr) = 100;
	ck_assert_int_ge(drv_add1(5), 0);
	vringfd_ring_publish(&drv);
	ck_assert(!vringfd_ring_need_kick(&drv));
	/* with EVENT_IDX the NO_NOTIFY flag is not looked at */
	drv.vr.used->flags = VRING_USED_F_NO_NOTIFY;
	vring_avail_event(&drv.vr) = 6;
	ck_assert_int_ge(drv_add1(6), 0);
	vringfd_ring_publish(&drv);
	ck_assert(vringfd_ring_need_kick(&drv));
	drv_teardown();
}
END_TEST

START_TEST(drv_used_bad_id)
{
	int head;

	drv_setup(0);
	head = drv_add1(0);
	ck_assert_int_ge(head, 0);
	vringfd_ring_publish(&drv);
	/* the device reports id == num */
	drv.vr.used->ring[0].id = DRV_NUM;
	drv.vr.used->ring[0].len = 1;
	drv.vr.used->idx = 1;
	ck_assert_ptr_null(vringfd_ring_get_used(&drv, NULL));
	ck_assert(drv.broken);
	ck_assert_uint_eq(drv.last_used, 0);
	ck_assert_uint_eq(drv.num_free, DRV_NUM - 1);
	ck_assert_int_eq(drv_add1(1), -EIO);
	drv_teardown();
}
END_TEST

START_TEST(drv_used_not_outstanding)
{
	int head;

	drv_setup(0);
	head = drv_add1(0);
	ck_assert_int_ge(head, 0);
	vringfd_ring_publish(&drv);
	/* the device names a descriptor that is not an outstanding head */
	drv.vr.used->ring[0].id = (head + 1) % DRV_NUM;
	drv.vr.used->idx = 1;
	ck_assert_ptr_null(vringfd_ring_get_used(&drv, NULL));
	ck_assert(drv.broken);
	ck_assert_uint_eq(drv.last_used, 0);
	ck_assert_uint_eq(drv.num_free, DRV_NUM - 1);
	ck_assert_ptr_eq(drv.tokens[head], drv_buf[0]);
	drv_teardown();
}
END_TEST

START_TEST(drv_used_twice)
{
	int head;

	drv_setup(0);
	head = drv_add1(0);
	vringfd_ring_publish(&drv);
	/* the same head completed twice */
	drv.vr.used->ring[0].id = head;
	drv.vr.used->ring[1].id = head;
	drv.vr.used->idx = 2;
	ck_assert_ptr_eq(vringfd_ring_get_used(&drv, NULL), drv_buf[0]);
	ck_assert_ptr_null(vringfd_ring_get_used(&drv, NULL));
	ck_assert(drv.broken);
	ck_assert_uint_eq(drv.num_free, DRV_NUM);
	drv_teardown();
}
END_TEST

START_TEST(drv_used_idx_jump)
{
	drv_setup(0);
	ck_assert_int_ge(drv_add1(0), 0);
	vringfd_ring_publish(&drv);
	drv.vr.used->idx = DRV_NUM + 1;
	ck_assert_ptr_null(vringfd_ring_get_used(&drv, NULL));
	ck_assert(drv.broken);
	ck_assert_uint_eq(drv.last_used, 0);
	drv_teardown();
}
END_TEST

START_TEST(drv_device_scribbles_next)
{
	unsigned int i;
	int head;

	drv_setup(0);
	for (i = 0; i < DRV_NUM / 2; i++) {
		struct iovec v[2] = { { drv_buf[i], 1 }, { drv_buf[i], 1 } };

		ck_assert_int_ge(vringfd_ring_add(&drv, v, 2, NULL, 0, drv_buf[i]), 0);
	}
	vringfd_ring_publish(&drv);
	ck_assert_uint_eq(drv_complete_all(0), DRV_NUM / 2);
	/* a hostile device rewrites every descriptor's next field */
	for (i = 0; i < DRV_NUM; i++)
		drv.vr.desc[i].next = 0;
	for (i = 0; i < DRV_NUM / 2; i++)
		ck_assert_ptr_nonnull(vringfd_ring_get_used(&drv, NULL));
	ck_assert_uint_eq(drv.num_free, DRV_NUM);
	/* the private free list still hands out every descriptor once */
	{
		bool seen[DRV_NUM] = { false };

		for (i = 0; i < DRV_NUM; i++) {
			head = drv_add1(i);
			ck_assert_int_ge(head, 0);
			ck_assert(!seen[head]);
			seen[head] = true;
		}
	}
	drv_teardown();
}
END_TEST

START_TEST(drv_no_interrupt_flag)
{
	drv_setup(0);
	vringfd_ring_set_no_interrupt(&drv, true);
	ck_assert_uint_eq(drv.vr.avail->flags, VRING_AVAIL_F_NO_INTERRUPT);
	vringfd_ring_set_no_interrupt(&drv, false);
	ck_assert_uint_eq(drv.vr.avail->flags, 0);
	drv_teardown();
}
END_TEST

START_TEST(drv_max_num)
{
	size_t sz = vringfd_ring_size(VRINGFD_MAX_NUM, DRV_ALIGN);
	void *mem = aligned_alloc(DRV_ALIGN, (sz + DRV_ALIGN - 1) & ~(DRV_ALIGN - 1));
	struct vringfd_ring r;
	unsigned int i;
	char c;

	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(vringfd_ring_init(&r, mem, VRINGFD_MAX_NUM, DRV_ALIGN, 0), 0);
	ck_assert_uint_eq(r.num_free, VRINGFD_MAX_NUM);
	for (i = 0; i < VRINGFD_MAX_NUM; i++) {
		struct iovec v = { &c, 1 };

		ck_assert_int_ge(vringfd_ring_add(&r, &v, 1, NULL, 0, &c), 0);
	}
	ck_assert_uint_eq(r.num_free, 0);
	vringfd_ring_publish(&r);
	ck_assert_uint_eq(r.vr.avail->idx, VRINGFD_MAX_NUM);
	vringfd_ring_fini(&r);
	free(mem);
}
END_TEST

START_TEST(drv_add_many_round_trip)
{
	struct iovec v[DRV_NUM + 2];
	void *tok[DRV_NUM];
	uint32_t lens[DRV_NUM];
	struct vringfd_chain c;
	struct iovec iov[2];
	unsigned int i;

	drv_setup(EVIDX);
	for (i = 0; i < DRV_NUM + 2; i++) {
		v[i].iov_base = drv_buf[i % DRV_NUM];
		v[i].iov_len = 10 + i;
	}
	/* more than fit: as many as there are descriptors, published at once */
	ck_assert_int_eq(vringfd_ring_add_many(&drv, v, DRV_NUM + 2, true, NULL), DRV_NUM);
	ck_assert_uint_eq(drv.num_free, 0);
	ck_assert_uint_eq(le16toh(drv.vr.avail->idx), DRV_NUM);
	ck_assert_int_eq(vringfd_ring_add_many(&drv, v, 1, true, NULL), 0);
	for (i = 0; i < DRV_NUM; i++) {
		ck_assert_int_eq(vringfd_dev_get_chain(&drv_dev, &c, iov, 2), 1);
		/* in order: head i at avail slot i */
		ck_assert_int_eq(c.head, i);
		ck_assert_uint_eq(c.nout, 0);
		ck_assert_uint_eq(c.nin, 1);
		ck_assert_ptr_eq(c.in[0].iov_base, drv_buf[i]);
		ck_assert_uint_eq(c.in[0].iov_len, 10 + i);
		ck_assert_int_eq(vringfd_dev_put_used(&drv_dev, c.head, 100 + i), 0);
	}
	vringfd_dev_publish_used(&drv_dev);
	/* collected in two batches, in order */
	ck_assert_uint_eq(vringfd_ring_get_used_many(&drv, tok, lens, 3), 3);
	ck_assert_uint_eq(drv.last_used, 3);
	ck_assert_uint_eq(le16toh(vring_used_event(&drv.vr)), 3);
	ck_assert_uint_eq(vringfd_ring_get_used_many(&drv, tok + 3, lens + 3, DRV_NUM), DRV_NUM - 3);
	for (i = 0; i < DRV_NUM; i++) {
		ck_assert_ptr_eq(tok[i], drv_buf[i]);
		ck_assert_uint_eq(lens[i], 100 + i);
	}
	ck_assert_uint_eq(drv.last_used, DRV_NUM);
	ck_assert_uint_eq(le16toh(vring_used_event(&drv.vr)), DRV_NUM);
	ck_assert_uint_eq(drv.num_free, DRV_NUM);
	ck_assert_uint_eq(vringfd_ring_get_used_many(&drv, tok, lens, DRV_NUM), 0);
	drv_teardown();
}
END_TEST

START_TEST(drv_add_many_tokens_and_bad_args)
{
	struct iovec v[2] = { { drv_buf[0], 1 }, { drv_buf[1], 2 } };
	void *tok[2] = { drv_buf[5], drv_buf[6] }, *bad[2] = { drv_buf[5], NULL }, *got[2];
	struct iovec nul = { NULL, 4 };

	drv_setup(0);
	ck_assert_int_eq(vringfd_ring_add_many(&drv, NULL, 1, false, NULL), -EINVAL);
	ck_assert_int_eq(vringfd_ring_add_many(&drv, &nul, 1, false, NULL), -EINVAL);
	ck_assert_int_eq(vringfd_ring_add_many(&drv, v, 2, false, bad), -EINVAL);
	/* nothing was added by the failed calls */
	ck_assert_uint_eq(drv.num_free, DRV_NUM);
	ck_assert_uint_eq(drv.avail_shadow, 0);
	ck_assert_int_eq(vringfd_ring_add_many(&drv, v, 0, false, NULL), 0);
	ck_assert_int_eq(vringfd_ring_add_many(&drv, v, 2, false, tok), 2);
	ck_assert_uint_eq(le16toh(drv.vr.desc[0].flags), 0);
	ck_assert_uint_eq(le32toh(drv.vr.desc[1].len), 2);
	ck_assert_uint_eq(drv_complete_all(0), 2);
	ck_assert_uint_eq(vringfd_ring_get_used_many(&drv, got, NULL, 2), 2);
	ck_assert_ptr_eq(got[0], drv_buf[5]);
	ck_assert_ptr_eq(got[1], drv_buf[6]);
	drv.broken = true;
	ck_assert_int_eq(vringfd_ring_add_many(&drv, v, 1, false, NULL), -EIO);
	drv_teardown();
}
END_TEST

START_TEST(drv_get_used_many_bad_device)
{
	struct iovec v[3] = { { drv_buf[0], 1 }, { drv_buf[1], 1 }, { drv_buf[2], 1 } };
	void *tok[3];

	drv_setup(0);
	ck_assert_int_eq(vringfd_ring_add_many(&drv, v, 3, false, NULL), 3);
	/* entry 0 good, entry 1 names a descriptor that is not a head */
	drv.vr.used->ring[0].id = htole32(1);
	drv.vr.used->ring[1].id = htole32(DRV_NUM - 1);
	drv.vr.used->ring[2].id = htole32(2);
	drv.vr.used->idx = htole16(3);
	ck_assert_uint_eq(vringfd_ring_get_used_many(&drv, tok, NULL, 3), 1);
	ck_assert_ptr_eq(tok[0], drv_buf[1]);
	ck_assert(drv.broken);
	ck_assert_uint_eq(drv.last_used, 1);
	ck_assert_uint_eq(vringfd_ring_get_used_many(&drv, tok, NULL, 3), 0);
	drv_teardown();

	drv_setup(0);
	ck_assert_int_eq(vringfd_ring_add_many(&drv, v, 1, false, NULL), 1);
	drv.vr.used->idx = htole16(DRV_NUM + 1);
	ck_assert_uint_eq(vringfd_ring_get_used_many(&drv, tok, NULL, 3), 0);
	ck_assert(drv.broken);
	ck_assert_uint_eq(drv.last_used, 0);
	drv_teardown();
}
END_TEST

START_TEST(drv_in_order_recycling)
{
	struct iovec v = { drv_buf[0], 1 };
	unsigned int i;
	void *tok;
	int head;

	drv_setup(0);
	/* one chain in flight at a time: heads cycle through the ring in order */
	for (i = 0; i < 3 * DRV_NUM; i++) {
		head = vringfd_ring_add(&drv, &v, 1, NULL, 0, drv_buf[0]);
		ck_assert_int_eq(head, i % DRV_NUM);
		vringfd_ring_publish(&drv);
		ck_assert_uint_eq(drv_complete_all(0), 1);
		ck_assert_uint_eq(vringfd_ring_get_used_many(&drv, &tok, NULL, 1), 1);
	}
	/* completed out of order: the free list takes chains in the order freed */
	ck_assert_int_eq(drv_add1(0), 0);
	ck_assert_int_eq(drv_add1(1), 1);
	vringfd_ring_publish(&drv);
	drv.vr.used->ring[drv.last_used % DRV_NUM].id = htole32(1);
	drv.vr.used->ring[(drv.last_used + 1) % DRV_NUM].id = htole32(0);
	drv.vr.used->idx = htole16(drv.last_used + 2);
	ck_assert_ptr_eq(vringfd_ring_get_used(&drv, NULL), drv_buf[1]);
	ck_assert_ptr_eq(vringfd_ring_get_used(&drv, NULL), drv_buf[0]);
	ck_assert_uint_eq(drv.num_free, DRV_NUM);
	for (i = 2; i < DRV_NUM; i++)
		ck_assert_int_eq(drv_add1(i), i);
	ck_assert_int_eq(drv_add1(0), 1);
	ck_assert_int_eq(drv_add1(1), 0);
	ck_assert_int_eq(drv_add1(2), -ENOSPC);
	drv_teardown();
}
END_TEST

/**
 * driver_suite() - the driver-side helpers suite
 *
 * Return: the suite.
 */
Suite *driver_suite(void)
{
	Suite *s = runner_suite_create("lib-driver");

	RUNNER_ADD_TEST(s, drv_init_bad_args);
	RUNNER_ADD_TEST(s, drv_round_trip);
	RUNNER_ADD_TEST(s, drv_free_list_exhaustion);
	RUNNER_ADD_TEST(s, drv_enospc_multi);
	RUNNER_ADD_TEST(s, drv_add_bad_args);
	RUNNER_ADD_TEST(s, drv_desc_contents);
	RUNNER_ADD_TEST(s, drv_kick_suppression);
	RUNNER_ADD_TEST(s, drv_kick_event_idx);
	RUNNER_ADD_TEST(s, drv_used_bad_id);
	RUNNER_ADD_TEST(s, drv_used_not_outstanding);
	RUNNER_ADD_TEST(s, drv_used_twice);
	RUNNER_ADD_TEST(s, drv_used_idx_jump);
	RUNNER_ADD_TEST(s, drv_device_scribbles_next);
	RUNNER_ADD_TEST(s, drv_no_interrupt_flag);
	RUNNER_ADD_TEST(s, drv_max_num);
	RUNNER_ADD_TEST(s, drv_add_many_round_trip);
	RUNNER_ADD_TEST(s, drv_add_many_tokens_and_bad_args);
	RUNNER_ADD_TEST(s, drv_get_used_many_bad_device);
	RUNNER_ADD_TEST(s, drv_in_order_recycling);
	return s;
}
