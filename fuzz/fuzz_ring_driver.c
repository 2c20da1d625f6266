// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_ring_driver.c - libFuzzer target for libvringfd's driver-side ring
 * helpers (vringfd_ring_*) facing an untrusted device: the device side of
 * the ring (used elements, used->idx, flags, event indexes, and any byte of
 * the shared ring) is written by the input.
 *
 * Input: 2 header bytes ([0] log2(num) % 10, [1] bit 1:
 * VIRTIO_RING_F_EVENT_IDX), then one operation per byte (see fuzz_op()),
 * some followed by argument bytes.
 *
 * Model checked beyond ASan/UBSan: every token returned by get_used is
 * outstanding and comes back once; num_free equals num minus the
 * descriptors of outstanding chains; add answers -ENOSPC exactly when the
 * model says the ring is full and -EINVAL for impossible chains; a broken
 * ring returns NULL from get_used and -EIO from add, for good.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vringfd.h"

#define MAX_NUM_LOG2	10
#define RING_ALIGN	4096u
#define ARENA_SIZE	(64u * 1024u)

static unsigned char arena[ARENA_SIZE] __attribute__((aligned(4096)));
static unsigned char payload[64];

/* Model: per head, descriptors of the outstanding chain (0: none)... */
static uint16_t model_len[512];
/* ...and its token, a slot of tokens[] (slot_used[] says which are taken) */
static char *model_tok[512];
static char tokens[513];	/* one more than num can hold: an add that */
static bool slot_used[513];	/* will fail with ENOSPC still finds a slot */

/**
 * fuzz_check() - abort (a crash for libFuzzer) when @cond is false
 * @cond: invariant
 */
static void fuzz_check(int cond)
{
	if (!cond)
		__builtin_trap();
}

/**
 * fuzz_byte() - next input byte, 0 when the input is exhausted
 * @data: cursor
 * @size: bytes left
 *
 * Return: the byte.
 */
static uint8_t fuzz_byte(const uint8_t **data, size_t *size)
{
	if (!*size)
		return 0;
	(*size)--;
	return *(*data)++;
}

/**
 * fuzz_outstanding() - descriptors held by outstanding chains (the model)
 * @num: ring size
 *
 * Return: the sum.
 */
static unsigned int fuzz_outstanding(unsigned int num)
{
	unsigned int i, n = 0;

	for (i = 0; i < num; i++)
		n += model_len[i];
	return n;
}

/**
 * fuzz_op() - one operation
 * @r: ring
 * @op: operation byte: low 3 bits select, the rest is an argument
 * @data: input cursor
 * @size: bytes left
 */
static void fuzz_op(struct vringfd_ring *r, uint8_t op, const uint8_t **data, size_t *size)
{
	unsigned int num = r->num, n, nout, k, free_before = r->num_free;
	bool was_broken = r->broken;
	struct iovec v[8];
	uint16_t x;
	uint32_t len;
	void *tok;
	int ret;

	switch (op & 7) {
	case 0:		/* add a chain of 1..8 segments (or more than num) */
		n = 1 + ((op >> 3) & 7);
		nout = (op >> 6) % (n + 1);
		for (k = 0; k < n; k++) {
			v[k].iov_base = payload;
			v[k].iov_len = k + 1;
		}
		for (k = 0; k < 513 && slot_used[k]; k++)
			;
		fuzz_check(k < 513);	/* at most num <= 512 outstanding */
		tok = &tokens[k];
		ret = vringfd_ring_add(r, v, nout, v + nout, n - nout, tok);
		if (was_broken) {
			fuzz_check(ret == -EIO);
		} else if (n > num) {
			fuzz_check(ret == -EINVAL);
		} else if (n > num - fuzz_outstanding(num)) {
			fuzz_check(ret == -ENOSPC);
		} else {
			fuzz_check(ret >= 0 && (unsigned int)ret < num);
			fuzz_check(model_len[ret] == 0);
			model_len[ret] = (uint16_t)n;
			model_tok[ret] = tok;
			slot_used[k] = true;
		}
		if (ret < 0)
			fuzz_check(r->num_free == free_before);
		break;
	case 1:
		vringfd_ring_publish(r);
		break;
	case 2:
		(void)vringfd_ring_need_kick(r);
		break;
	case 3:		/* collect */
		tok = vringfd_ring_get_used(r, &len);
		if (was_broken)
			fuzz_check(!tok);
		if (tok) {
			for (k = 0; k < num && !(model_len[k] && model_tok[k] == tok); k++)
				;
			fuzz_check(k < num);	/* an outstanding chain's token */
			model_len[k] = 0;
			model_tok[k] = NULL;
			slot_used[(char *)tok - tokens] = false;
		}
		break;
	case 4:		/* device writes a used element */
		x = fuzz_byte(data, size);
		x |= fuzz_byte(data, size) << 8;
		r->vr.used->ring[(op >> 3) & (num - 1)].id = x;
		r->vr.used->ring[(op >> 3) & (num - 1)].len = fuzz_byte(data, size);
		break;
	case 5:		/* device bumps used->idx */
		r->vr.used->idx = (uint16_t)(r->vr.used->idx + (op >> 3));
		break;
	case 6:		/* device writes its flags and avail_event */
		r->vr.used->flags = op >> 3;
		vring_avail_event(&r->vr) = fuzz_byte(data, size);
		break;
	case 7:		/* the device scribbles on any byte of the ring */
		x = fuzz_byte(data, size);
		x |= fuzz_byte(data, size) << 8;
		arena[x % vringfd_ring_size(num, RING_ALIGN)] = fuzz_byte(data, size);
		break;
	}
	if (was_broken)
		fuzz_check(r->broken);
	fuzz_check(r->num_free + fuzz_outstanding(num) == num);
}

/**
 * LLVMFuzzerTestOneInput() - run the operations of @data on a fresh ring
 * @data: input
 * @size: its length
 *
 * Return: 0.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vringfd_ring r;
	unsigned int num, steps = 0;
	uint64_t features = 0;
	uint8_t h0, h1;

	h0 = fuzz_byte(&data, &size);
	h1 = fuzz_byte(&data, &size);
	num = 1u << (h0 % MAX_NUM_LOG2);
	if (h1 & 2)
		features |= 1ULL << VIRTIO_RING_F_EVENT_IDX;
	fuzz_check(vringfd_ring_size(num, RING_ALIGN) <= ARENA_SIZE);
	memset(model_len, 0, sizeof(model_len));
	memset(model_tok, 0, sizeof(model_tok));
	memset(slot_used, 0, sizeof(slot_used));
	fuzz_check(vringfd_ring_init(&r, arena, num, RING_ALIGN, features) == 0);
	while (size && steps++ < 8192)
		fuzz_op(&r, fuzz_byte(&data, &size), &data, &size);
	vringfd_ring_fini(&r);
	return 0;
}
