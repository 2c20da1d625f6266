// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_ring_device.c - libFuzzer target for libvringfd's device-side ring
 * walker (vringfd_dev_*), the code that reads rings written by an untrusted
 * driver (a guest, a client process).
 *
 * The input is a ring and a script:
 *
 *	header   8 bytes: [0] log2(num) % 10 (num 1..512), [1] bit 0:
 *		 VIRTIO_RING_F_INDIRECT_DESC, bit 1: VIRTIO_RING_F_EVENT_IDX,
 *		 [2..3] starting last_avail (LE), [4..5] starting used index
 *		 (LE), [6] iovec slots - 1 (% 64), [7] unused
 *	desc     16 * num bytes: the descriptor table
 *	avail    4 + 2 * num + 2 bytes: the avail ring (flags, idx, ring,
 *		 used_event)
 *	indirect 1024 bytes at guest address IND_GPA (straddling two regions)
 *	script   the rest: one operation per byte (see fuzz_step())
 *
 * Missing bytes are zero.  Everything lives in one 64 KiB arena; the
 * translation maps two guest regions onto it, contiguous in guest-physical
 * space but swapped in the arena, so a buffer can cross regions:
 *
 *	GPA [0x0000, 0x8000) -> arena[0x8000, 0x10000)
 *	GPA [0x8000, 0x10000) -> arena[0x0000, 0x8000)
 *
 * The ring parts are in the arena too (desc at 0x1000, avail at 0x5000,
 * used at 0x6000: guest addresses 0x9000, 0xd000, 0xe000), so buffers may
 * alias them and the script's writes change the ring between walks.
 *
 * Checked beyond ASan/UBSan: every segment lies inside the arena, segment
 * counts and lengths add up, a broken ring stays broken, last_avail moves
 * by one per chain taken.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vringfd.h"

#define ARENA_SIZE	0x10000u
#define REGION_SIZE	0x8000u
#define DESC_OFF	0x1000u
#define AVAIL_OFF	0x5000u
#define USED_OFF	0x6000u
#define IND_GPA		0x7e00u
#define IND_LEN		1024u
#define MAX_NUM_LOG2	10
#define MAX_IOV		64
#define MAX_HELD	1024

static unsigned char arena[ARENA_SIZE] __attribute__((aligned(4096)));

/* Heads taken and not yet completed, oldest first. */
static uint16_t held[MAX_HELD];
static unsigned int nheld;

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
 * fuzz_xlate() - the two swapped regions described above
 * @opaque: unused
 * @addr: guest address
 * @len: wanted; clipped to the end of the region
 *
 * Return: pointer into the arena, or NULL.
 */
static void *fuzz_xlate(void *opaque, uint64_t addr, uint64_t *len)
{
	uint64_t left;
	unsigned char *p;

	if (addr < REGION_SIZE) {
		p = arena + REGION_SIZE + addr;
		left = REGION_SIZE - addr;
	} else if (addr < 2ULL * REGION_SIZE) {
		p = arena + (addr - REGION_SIZE);
		left = 2ULL * REGION_SIZE - addr;
	} else {
		return NULL;
	}
	if (*len > left)
		*len = left;
	return p;
}

/**
 * fuzz_gpa_to_arena() - arena offset of a guest address (for the loader)
 * @gpa: guest address < 2 * REGION_SIZE
 *
 * Return: offset in the arena.
 */
static size_t fuzz_gpa_to_arena(uint64_t gpa)
{
	return gpa < REGION_SIZE ? REGION_SIZE + gpa : gpa - REGION_SIZE;
}

/**
 * fuzz_take() - consume @n input bytes into @dst (zero when input runs out)
 * @data: input cursor
 * @size: bytes left
 * @dst: destination
 * @n: bytes wanted
 */
static void fuzz_take(const uint8_t **data, size_t *size, void *dst, size_t n)
{
	size_t k = n < *size ? n : *size;

	memcpy(dst, *data, k);
	memset((char *)dst + k, 0, n - k);
	*data += k;
	*size -= k;
}

/**
 * fuzz_check_segments() - every segment is inside the arena; touch them
 * @c: the chain taken
 * @iov: its segments
 * @max_iov: slots given
 */
static void fuzz_check_segments(const struct vringfd_chain *c, const struct iovec *iov,
				unsigned int max_iov)
{
	uint64_t out = 0, in = 0;
	volatile unsigned char sink = 0;
	unsigned int i;

	fuzz_check(c->nout + c->nin <= max_iov);
	fuzz_check(c->out == iov && c->in == iov + c->nout);
	for (i = 0; i < c->nout + c->nin; i++) {
		unsigned char *p = iov[i].iov_base;

		fuzz_check(iov[i].iov_len > 0);
		fuzz_check(p >= arena && iov[i].iov_len <= ARENA_SIZE &&
			   (size_t)(p - arena) <= ARENA_SIZE - iov[i].iov_len);
		if (i < c->nout) {
			out += iov[i].iov_len;
			sink ^= p[0] ^ p[iov[i].iov_len - 1];
		} else {
			in += iov[i].iov_len;
			/* the device writes into writable segments: may hit the ring */
			p[0] ^= 0x5a;
			p[iov[i].iov_len - 1] ^= 0xa5;
		}
	}
	(void)sink;
	fuzz_check(out == c->out_len && in == c->in_len);
	fuzz_check(out + in <= UINT32_MAX);
}

/**
 * fuzz_step() - one script operation
 * @dev: device ring
 * @iov: segment array of @max_iov slots
 * @max_iov: slots
 * @op: operation byte; low 3 bits select, the rest is an argument
 * @data: input cursor (some operations take more bytes)
 * @size: bytes left
 */
static void fuzz_step(struct vringfd_dev *dev, struct iovec *iov, unsigned int max_iov,
		      uint8_t op, const uint8_t **data, size_t *size)
{
	struct vringfd_chain c;
	bool was_broken = dev->broken;
	uint16_t last = dev->last_avail;
	uint8_t arg[3];
	int r;

	switch (op & 7) {
	case 0:		/* take a chain */
	case 1:
		memset(&c, 0, sizeof(c));
		r = vringfd_dev_get_chain(dev, &c, iov, max_iov);
		if (was_broken)
			fuzz_check(r == -EIO);
		switch (r) {
		case 1:
			fuzz_check(dev->last_avail == (uint16_t)(last + 1));
			fuzz_check(c.head < dev->num);
			fuzz_check_segments(&c, iov, max_iov);
			break;
		case -EFAULT:
		case -E2BIG:
			fuzz_check(dev->last_avail == (uint16_t)(last + 1));
			fuzz_check(c.head < dev->num && c.nout == 0 && c.nin == 0);
			break;
		case 0:
		case -EIO:
			fuzz_check(dev->last_avail == last);
			fuzz_check((r == -EIO) == dev->broken);
			return;
		default:
			fuzz_check(0);
		}
		if (nheld < MAX_HELD)
			held[nheld++] = c.head;
		break;
	case 2:		/* complete the oldest chain */
		if (!nheld)
			break;
		r = vringfd_dev_put_used(dev, held[0], (uint32_t)op << 8);
		fuzz_check(r == (dev->broken ? -EIO : 0));
		memmove(held, held + 1, --nheld * sizeof(held[0]));
		break;
	case 3:
		vringfd_dev_publish_used(dev);
		break;
	case 4:
		(void)vringfd_dev_need_notify(dev);
		break;
	case 5:
		vringfd_dev_set_no_notify(dev, op & 8);
		break;
	case 6:		/* the driver writes one byte anywhere in the arena */
		fuzz_take(data, size, arg, 3);
		arena[(arg[0] | arg[1] << 8) % ARENA_SIZE] = arg[2];
		break;
	case 7:		/* the driver publishes: avail->idx += n */
		dev->vr.avail->idx = (uint16_t)(dev->vr.avail->idx + (op >> 3));
		r = (int)vringfd_dev_pending(dev);
		fuzz_check(r >= 0 && r <= 0xffff);
		if (dev->broken)
			fuzz_check(r == 0);
		break;
	}
}

/**
 * LLVMFuzzerTestOneInput() - build a ring from @data and walk it
 * @data: input
 * @size: its length
 *
 * Return: 0.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t hdr[8];
	struct vringfd_dev dev;
	unsigned int num, max_iov, steps = 0;
	uint64_t features = 0;
	unsigned char ind[IND_LEN];
	struct iovec *iov;
	size_t k;

	memset(arena, 0, sizeof(arena));
	nheld = 0;
	fuzz_take(&data, &size, hdr, sizeof(hdr));
	num = 1u << (hdr[0] % MAX_NUM_LOG2);
	if (hdr[1] & 1)
		features |= 1ULL << VIRTIO_RING_F_INDIRECT_DESC;
	if (hdr[1] & 2)
		features |= 1ULL << VIRTIO_RING_F_EVENT_IDX;
	max_iov = 1 + hdr[6] % MAX_IOV;

	fuzz_take(&data, &size, arena + DESC_OFF, 16 * num);
	fuzz_take(&data, &size, arena + AVAIL_OFF, 4 + 2 * num + 2);
	fuzz_take(&data, &size, ind, sizeof(ind));
	for (k = 0; k < sizeof(ind); k++)
		arena[fuzz_gpa_to_arena(IND_GPA + k)] = ind[k];

	fuzz_check(vringfd_dev_init(&dev, num, arena + DESC_OFF, arena + AVAIL_OFF,
				    arena + USED_OFF, features) == 0);
	vringfd_dev_set_base(&dev, (uint16_t)(hdr[2] | hdr[3] << 8),
			     (uint16_t)(hdr[4] | hdr[5] << 8));
	dev.xlate = fuzz_xlate;
	/* exactly max_iov slots, on the heap: ASan catches an overrun */
	iov = malloc(max_iov * sizeof(*iov));
	if (!iov)
		return 0;

	if (!size) {
		/* no script: take everything available, complete, notify */
		for (k = 0; k <= num; k++)
			fuzz_step(&dev, iov, max_iov, 0, &data, &size);
		while (nheld)
			fuzz_step(&dev, iov, max_iov, 2, &data, &size);
		fuzz_step(&dev, iov, max_iov, 3, &data, &size);
		fuzz_step(&dev, iov, max_iov, 4, &data, &size);
	}
	while (size && steps++ < 4096) {
		uint8_t op = *data++;

		size--;
		fuzz_step(&dev, iov, max_iov, op, &data, &size);
	}
	free(iov);
	return 0;
}
