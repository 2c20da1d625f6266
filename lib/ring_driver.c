// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ring_driver.c - the driver side of a split virtqueue (vringfd_ring_*):
 * post buffer chains, publish them, collect used entries.
 *
 * The descriptor free list and the links of chains in flight live in the
 * private @next array: nothing the device can write (descriptor next fields,
 * used elements) is trusted to find descriptors again.  A used element is
 * accepted only when its id is an outstanding head.  Freed chains go to the
 * tail of the free list (@free_tail), so descriptors are reused in the order
 * they were freed: with in-order completion, in ring order.
 *
 * The exported functions are documented (kernel-doc) where they are
 * declared, in include/vringfd.h; the static helpers here.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vringfd.h"

/**
 * ring_num_valid() - is @num a valid ring size
 * @num: ring size
 *
 * Return: true for a power of two from 1 to VRINGFD_MAX_NUM.
 */
static bool ring_num_valid(unsigned int num)
{
	return num >= 1 && num <= VRINGFD_MAX_NUM && (num & (num - 1)) == 0;
}

/**
 * ring_aligned() - is @p aligned to @a bytes
 * @p: pointer
 * @a: power of two
 *
 * Return: true when aligned (and not NULL).
 */
static bool ring_aligned(const void *p, uintptr_t a)
{
	return p && ((uintptr_t)p & (a - 1)) == 0;
}

size_t vringfd_ring_size(unsigned int num, unsigned long align)
{
	if (!ring_num_valid(num) || align < 4 || (align & (align - 1)))
		return 0;
	return vring_size(num, align);
}

int vringfd_ring_init_parts(struct vringfd_ring *ring, unsigned int num,
			    void *desc, void *avail, void *used,
			    uint64_t features)
{
	unsigned int i;

	if (!ring || !ring_num_valid(num) || !ring_aligned(desc, 16) ||
	    !ring_aligned(avail, 2) || !ring_aligned(used, 4))
		return -EINVAL;
	memset(ring, 0, sizeof(*ring));
	ring->tokens = calloc(num, sizeof(*ring->tokens));
	ring->chain_len = calloc(num, sizeof(*ring->chain_len));
	ring->next = calloc(num, sizeof(*ring->next));
	if (!ring->tokens || !ring->chain_len || !ring->next) {
		vringfd_ring_fini(ring);
		return -ENOMEM;
	}
	memset(desc, 0, sizeof(struct vring_desc) * num);
	/* flags, idx, ring[num], used_event */
	memset(avail, 0, sizeof(uint16_t) * (3 + num));
	/* flags, idx, ring[num], avail_event */
	memset(used, 0, sizeof(uint16_t) * 3 + sizeof(struct vring_used_elem) * num);
	ring->vr.num = num;
	ring->vr.desc = desc;
	ring->vr.avail = avail;
	ring->vr.used = used;
	ring->num = num;
	ring->event_idx = features & (1ULL << VIRTIO_RING_F_EVENT_IDX);
	for (i = 0; i < num; i++)
		ring->next[i] = (uint16_t)(i + 1);	/* last one: unused */
	ring->free_head = 0;
	ring->free_tail = (uint16_t)(num - 1);
	ring->num_free = (uint16_t)num;
	return 0;
}

int vringfd_ring_init(struct vringfd_ring *ring, void *mem, unsigned int num,
		      unsigned long align, uint64_t features)
{
	struct vring vr;

	if (!vringfd_ring_size(num, align) || !ring_aligned(mem, 16))
		return -EINVAL;
	vring_init(&vr, num, mem, align);
	return vringfd_ring_init_parts(ring, num, vr.desc, vr.avail, vr.used,
				       features);
}

void vringfd_ring_fini(struct vringfd_ring *ring)
{
	free(ring->tokens);
	free(ring->chain_len);
	free(ring->next);
	ring->tokens = NULL;
	ring->chain_len = NULL;
	ring->next = NULL;
	ring->num_free = 0;
}

int vringfd_ring_add(struct vringfd_ring *ring,
		     const struct iovec *out, unsigned int nout,
		     const struct iovec *in, unsigned int nin, void *token)
{
	unsigned int n = nout + nin, k;
	uint16_t head, i, prev = 0;

	if (ring->broken)
		return -EIO;
	if (!token || nout > ring->num || nin > ring->num || n == 0 ||
	    n > ring->num || (nout && !out) || (nin && !in))
		return -EINVAL;
	for (k = 0; k < n; k++) {
		const struct iovec *v = k < nout ? &out[k] : &in[k - nout];

		if (v->iov_len > UINT32_MAX)
			return -EINVAL;
	}
	if (n > ring->num_free)
		return -ENOSPC;

	head = i = ring->free_head;
	for (k = 0; k < n; k++) {
		const struct iovec *v = k < nout ? &out[k] : &in[k - nout];
		struct vring_desc *d = &ring->vr.desc[i];
		uint16_t flags = k < nout ? 0 : VRING_DESC_F_WRITE;

		if (k + 1 < n)
			flags |= VRING_DESC_F_NEXT;
		d->addr = htole64((uintptr_t)v->iov_base);
		d->len = htole32((uint32_t)v->iov_len);
		d->flags = htole16(flags);
		d->next = htole16(k + 1 < n ? ring->next[i] : 0);
		prev = i;
		i = ring->next[i];
	}
	/* The chain's links stay in next[]; the free list resumes after it. */
	ring->free_head = ring->next[prev];
	ring->num_free -= n;
	ring->tokens[head] = token;
	ring->chain_len[head] = (uint16_t)n;

	/*
	 * The avail entry is a plain store: it becomes visible to the device
	 * only through the release store of avail->idx in publish, which
	 * orders it (and the descriptors above) before the index.
	 */
	ring->vr.avail->ring[ring->avail_shadow & (ring->num - 1)] = htole16(head);
	ring->avail_shadow++;
	return head;
}

void vringfd_ring_publish(struct vringfd_ring *ring)
{
	/*
	 * Release: every descriptor and avail entry written before is visible
	 * to a device that loads avail->idx with acquire and sees this value
	 * (virtio's write barrier before the index update).  avail->idx is
	 * the last thing stored.
	 */
	__atomic_store_n(&ring->vr.avail->idx, htole16(ring->avail_shadow),
			 __ATOMIC_RELEASE);
}

bool vringfd_ring_need_kick(struct vringfd_ring *ring)
{
	uint16_t old = ring->kicked, new = ring->avail_shadow;

	/*
	 * Full fence (virtio_mb): the avail->idx store of publish must be
	 * visible before we read the device's suppression flag or event
	 * index; otherwise the device could re-enable kicks, find nothing
	 * new, and sleep while we skip the kick.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	ring->kicked = new;
	if (new == old)
		return false;
	if (ring->event_idx) {
		uint16_t ev = le16toh(__atomic_load_n(&vring_avail_event(&ring->vr),
						      __ATOMIC_RELAXED));

		return vring_need_event(ev, new, old);
	}
	return !(le16toh(__atomic_load_n(&ring->vr.used->flags, __ATOMIC_RELAXED)) &
		 VRING_USED_F_NO_NOTIFY);
}

/**
 * ring_free_chain() - give the chain at head @id back to the free list
 * @ring: ring
 * @id: an outstanding head (checked by the caller)
 *
 * The chain goes to the tail of the free list (FIFO): with in-order
 * completion, descriptors are reused in ring order.
 * Return: the chain's token.
 */
static void *ring_free_chain(struct vringfd_ring *ring, uint16_t id)
{
	uint16_t n = ring->chain_len[id], i = id, k;
	void *token = ring->tokens[id];

	for (k = 1; k < n; k++)
		i = ring->next[i];
	if (ring->num_free)
		ring->next[ring->free_tail] = id;
	else
		ring->free_head = id;
	ring->free_tail = i;
	ring->num_free += n;
	ring->chain_len[id] = 0;
	ring->tokens[id] = NULL;
	return token;
}

bool vringfd_ring_more_used(const struct vringfd_ring *ring)
{
	return le16toh(__atomic_load_n(&ring->vr.used->idx, __ATOMIC_ACQUIRE)) !=
	       ring->last_used;
}

void *vringfd_ring_get_used(struct vringfd_ring *ring, uint32_t *len)
{
	struct vring_used_elem *e;
	uint16_t used_idx;
	uint32_t id, l;
	void *token;

	if (ring->broken || !ring->tokens)
		return NULL;
	/*
	 * Acquire: pairs with the device's release store of used->idx; the
	 * element read below was written before that store (virtio's read
	 * barrier after reading the index).
	 */
	used_idx = le16toh(__atomic_load_n(&ring->vr.used->idx, __ATOMIC_ACQUIRE));
	if (used_idx == ring->last_used)
		return NULL;
	if ((uint16_t)(used_idx - ring->last_used) > ring->num) {
		ring->broken = true;
		return NULL;
	}
	e = &ring->vr.used->ring[ring->last_used & (ring->num - 1)];
	/* Read each field once: the device may be rewriting them. */
	id = le32toh(__atomic_load_n(&e->id, __ATOMIC_RELAXED));
	l = le32toh(__atomic_load_n(&e->len, __ATOMIC_RELAXED));
	if (id >= ring->num || !ring->chain_len[id]) {
		ring->broken = true;
		return NULL;
	}

	token = ring_free_chain(ring, (uint16_t)id);

	/*
	 * last_used may be read by the kernel (poll() of a vring fd) or by a
	 * device thread: a release store orders it after our element reads.
	 */
	__atomic_store_n(&ring->last_used, (uint16_t)(ring->last_used + 1),
			 __ATOMIC_RELEASE);
	if (ring->event_idx) {
		/*
		 * Interrupt me when the next entry is used.  Full fence after
		 * the store (virtio_store_mb): a caller that then finds
		 * used->idx unchanged and sleeps will be interrupted.
		 */
		__atomic_store_n(&vring_used_event(&ring->vr),
				 htole16(ring->last_used), __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	}
	if (len)
		*len = l;
	return token;
}

void vringfd_ring_set_no_interrupt(struct vringfd_ring *ring, bool no_interrupt)
{
	uint16_t f = le16toh(ring->vr.avail->flags);

	if (no_interrupt)
		f |= VRING_AVAIL_F_NO_INTERRUPT;
	else
		f &= ~VRING_AVAIL_F_NO_INTERRUPT;
	__atomic_store_n(&ring->vr.avail->flags, htole16(f), __ATOMIC_RELAXED);
	if (!no_interrupt)
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

int vringfd_ring_add_many(struct vringfd_ring *ring, const struct iovec *iov,
			  unsigned int n, bool device_writable, void *const *tokens)
{
	uint16_t flags = htole16(device_writable ? VRING_DESC_F_WRITE : 0);
	uint16_t mask = (uint16_t)(ring->num - 1), i, avail;
	unsigned int k;

	if (ring->broken)
		return -EIO;
	if (n && !iov)
		return -EINVAL;
	if (n > ring->num_free)
		n = ring->num_free;
	for (k = 0; k < n; k++)
		if (iov[k].iov_len > UINT32_MAX || !(tokens ? tokens[k] : iov[k].iov_base))
			return -EINVAL;

	i = ring->free_head;
	avail = ring->avail_shadow;
	for (k = 0; k < n; k++) {
		struct vring_desc *d = &ring->vr.desc[i];

		d->addr = htole64((uintptr_t)iov[k].iov_base);
		d->len = htole32((uint32_t)iov[k].iov_len);
		d->flags = flags;
		d->next = 0;
		ring->tokens[i] = tokens ? tokens[k] : iov[k].iov_base;
		ring->chain_len[i] = 1;
		ring->vr.avail->ring[avail++ & mask] = htole16(i);
		i = ring->next[i];
	}
	/* With every descriptor taken, free_head is stale until a free. */
	ring->free_head = i;
	ring->num_free = (uint16_t)(ring->num_free - n);
	ring->avail_shadow = avail;
	vringfd_ring_publish(ring);
	return (int)n;
}

unsigned int vringfd_ring_get_used_many(struct vringfd_ring *ring, void **tokens,
					uint32_t *lens, unsigned int max)
{
	uint16_t used_idx, last, mask = (uint16_t)(ring->num - 1);
	unsigned int got = 0;

	if (ring->broken || !ring->tokens || !max)
		return 0;
	/* Acquire, once: pairs with the device's release store of used->idx. */
	used_idx = le16toh(__atomic_load_n(&ring->vr.used->idx, __ATOMIC_ACQUIRE));
	last = ring->last_used;
	if ((uint16_t)(used_idx - last) > ring->num) {
		ring->broken = true;
		return 0;
	}
	while (last != used_idx && got < max) {
		struct vring_used_elem *e = &ring->vr.used->ring[last & mask];
		/* Read each field once: the device may be rewriting them. */
		uint32_t id = le32toh(__atomic_load_n(&e->id, __ATOMIC_RELAXED));
		uint32_t l = le32toh(__atomic_load_n(&e->len, __ATOMIC_RELAXED));

		if (id >= ring->num || !ring->chain_len[id]) {
			ring->broken = true;
			break;
		}
		tokens[got] = ring_free_chain(ring, (uint16_t)id);
		if (lens)
			lens[got] = l;
		got++;
		last++;
	}
	if (!got)
		return 0;
	/* Release, once: orders last_used after every element read above. */
	__atomic_store_n(&ring->last_used, last, __ATOMIC_RELEASE);
	if (ring->event_idx) {
		__atomic_store_n(&vring_used_event(&ring->vr), htole16(last), __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	}
	return got;
}
