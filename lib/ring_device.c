// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ring_device.c - the device side of a split virtqueue (vringfd_dev_*): take
 * buffer chains from the avail ring, with the module's validation rules, and
 * complete them through the used ring.
 *
 * Everything the driver can write (indexes, avail entries, descriptors,
 * indirect tables, event indexes) is read exactly once per use into a local
 * value and validated before it is used; the used index is private.  A
 * protocol violation marks the ring broken for good.  Work per call is
 * bounded: at most num descriptors in a chain, plus at most the size of
 * each indirect table (itself at most VRINGFD_MAX_NUM entries).
 *
 * The exported functions are documented (kernel-doc) where they are
 * declared, in include/vringfd.h; the static helpers here.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "vringfd.h"

/* Descriptors in an indirect table, at most (the virtio ring maximum). */
#define DEV_MAX_INDIRECT	VRINGFD_MAX_NUM

/* Largest total chain length: what a used element's u32 len can report. */
#define DEV_MAX_CHAIN_BYTES	UINT32_MAX

/**
 * struct dev_walk - state of one chain walk
 * @dev: the ring
 * @iov: caller's segment array
 * @max_iov: entries in @iov
 * @niov: segments filled
 * @nout: readable segments (all before the writable ones)
 * @out_len: readable bytes
 * @in_len: writable bytes
 * @seen_write: a writable descriptor was seen
 */
struct dev_walk {
	struct vringfd_dev *dev;
	struct iovec *iov;
	unsigned int max_iov;
	unsigned int niov;
	unsigned int nout;
	uint64_t out_len;
	uint64_t in_len;
	bool seen_write;
};

/**
 * dev_num_valid() - is @num a valid ring size
 * @num: ring size
 *
 * Return: true for a power of two from 1 to VRINGFD_MAX_NUM.
 */
static bool dev_num_valid(unsigned int num)
{
	return num >= 1 && num <= VRINGFD_MAX_NUM && (num & (num - 1)) == 0;
}

/**
 * dev_aligned() - is @p non-NULL and aligned to @a bytes
 * @p: pointer
 * @a: power of two
 *
 * Return: true when aligned.
 */
static bool dev_aligned(const void *p, uintptr_t a)
{
	return p && ((uintptr_t)p & (a - 1)) == 0;
}

/**
 * dev_has() - is a ring feature negotiated
 * @dev: device ring
 * @bit: VIRTIO_RING_F_* bit number
 *
 * Return: true when negotiated.
 */
static bool dev_has(const struct vringfd_dev *dev, unsigned int bit)
{
	return dev->features & (1ULL << bit);
}

/**
 * dev_load_desc() - read one descriptor exactly once
 * @src: descriptor in shared memory, 8-byte aligned
 * @d: local copy, in host byte order
 */
static void dev_load_desc(const struct vring_desc *src, struct vring_desc *d)
{
	d->addr = le64toh(__atomic_load_n(&src->addr, __ATOMIC_RELAXED));
	d->len = le32toh(__atomic_load_n(&src->len, __ATOMIC_RELAXED));
	d->flags = le16toh(__atomic_load_n(&src->flags, __ATOMIC_RELAXED));
	d->next = le16toh(__atomic_load_n(&src->next, __ATOMIC_RELAXED));
}

/**
 * dev_xlate() - translate a buffer address
 * @dev: device ring
 * @addr: descriptor address
 * @len: bytes wanted (> 0); on return, bytes contiguous at the result
 *
 * Return: pointer, or NULL when @dev->xlate refuses @addr (or returns a
 * zero or larger-than-asked length).
 */
static void *dev_xlate(struct vringfd_dev *dev, uint64_t addr, uint64_t *len)
{
	uint64_t want = *len;
	void *p;

	if (!dev->xlate) {
		if (addr > UINTPTR_MAX)
			return NULL;
		return (void *)(uintptr_t)addr;
	}
	p = dev->xlate(dev->xlate_opaque, addr, len);
	if (!p || *len == 0 || *len > want)
		return NULL;
	return p;
}

/**
 * dev_read_indirect() - read entry @i of an indirect table
 * @dev: device ring
 * @table: address of the table (as in the descriptor)
 * @i: entry index (< table size, so @table + 16 * @i does not wrap: checked
 *	by the caller)
 * @d: local copy, in host byte order
 *
 * The entry may straddle regions or be misaligned: it is then copied byte
 * by byte (each byte read once).
 * Return: 0, or -EFAULT (outside every region).
 */
static int dev_read_indirect(struct vringfd_dev *dev, uint64_t table,
			     unsigned int i, struct vring_desc *d)
{
	uint64_t addr = table + 16ULL * i, done = 0, l;
	unsigned char buf[16];
	unsigned char *p;

	l = 16;
	p = dev_xlate(dev, addr, &l);
	if (!p)
		return -EFAULT;
	if (l == 16 && dev_aligned(p, 8)) {
		dev_load_desc((const struct vring_desc *)p, d);
		return 0;
	}
	for (;;) {
		uint64_t k;

		for (k = 0; k < l; k++)
			buf[done + k] = __atomic_load_n(&p[k], __ATOMIC_RELAXED);
		done += l;
		if (done == 16)
			break;
		l = 16 - done;
		p = dev_xlate(dev, addr + done, &l);
		if (!p)
			return -EFAULT;
	}
	memcpy(&d->addr, buf, 8);
	memcpy(&d->len, buf + 8, 4);
	memcpy(&d->flags, buf + 12, 2);
	memcpy(&d->next, buf + 14, 2);
	d->addr = le64toh(d->addr);
	d->len = le32toh(d->len);
	d->flags = le16toh(d->flags);
	d->next = le16toh(d->next);
	return 0;
}

/**
 * dev_add_buf() - append one buffer descriptor to the walk
 * @w: walk
 * @d: the descriptor (local copy)
 *
 * Return: 0; -EIO (readable after writable, end of buffer wraps, chain
 * over 4 GiB - 1); -EFAULT (address outside every region); -E2BIG (out of
 * segments).
 */
static int dev_add_buf(struct dev_walk *w, const struct vring_desc *d)
{
	bool write = d->flags & VRING_DESC_F_WRITE;
	uint64_t addr = d->addr, left = d->len;

	if (write)
		w->seen_write = true;
	else if (w->seen_write)
		return -EIO;
	if (left == 0)
		return 0;	/* allowed; gives no segment */
	/* as the module: the end, addr + len, must fit in 64 bits */
	if (addr + left < addr)
		return -EIO;
	if (w->out_len + w->in_len + left > DEV_MAX_CHAIN_BYTES)
		return -EIO;
	if (write)
		w->in_len += left;
	else
		w->out_len += left;

	while (left) {
		uint64_t l = left;
		void *p;

		p = dev_xlate(w->dev, addr, &l);
		if (!p)
			return -EFAULT;
		if (w->niov == w->max_iov)
			return -E2BIG;
		w->iov[w->niov].iov_base = p;
		w->iov[w->niov].iov_len = l;
		w->niov++;
		if (!write)
			w->nout++;
		addr += l;
		left -= l;
	}
	return 0;
}

/**
 * dev_walk_indirect() - walk an indirect table
 * @w: walk
 * @ind: the descriptor that points at the table (local copy)
 *
 * Return: 0, or as dev_add_buf(); -EIO also for a bad table length, a
 * nested indirect descriptor, a next outside the table or a loop.
 */
static int dev_walk_indirect(struct dev_walk *w, const struct vring_desc *ind)
{
	unsigned int n, i = 0, count = 0;
	struct vring_desc d;
	int ret;

	if (ind->len == 0 || ind->len % sizeof(struct vring_desc))
		return -EIO;
	n = ind->len / sizeof(struct vring_desc);
	if (n > DEV_MAX_INDIRECT)
		return -EIO;
	if (ind->addr + ind->len < ind->addr)
		return -EIO;
	for (;;) {
		if (++count > n)
			return -EIO;	/* a loop inside the table */
		ret = dev_read_indirect(w->dev, ind->addr, i, &d);
		if (ret)
			return ret;
		if (d.flags & VRING_DESC_F_INDIRECT)
			return -EIO;	/* nested */
		ret = dev_add_buf(w, &d);
		if (ret)
			return ret;
		if (!(d.flags & VRING_DESC_F_NEXT))
			return 0;
		if (d.next >= n)
			return -EIO;
		i = d.next;
	}
}

/**
 * dev_walk_chain() - walk the chain starting at @head
 * @w: walk
 * @head: head index (< num)
 *
 * Return: 0, or as dev_walk_indirect(); -EIO also for a next >= num, a
 * chain longer than num (a loop), an indirect descriptor without the
 * feature or with NEXT.
 */
static int dev_walk_chain(struct dev_walk *w, uint16_t head)
{
	struct vringfd_dev *dev = w->dev;
	unsigned int i = head, count = 0;
	struct vring_desc d;
	int ret;

	for (;;) {
		if (++count > dev->num)
			return -EIO;
		dev_load_desc(&dev->vr.desc[i], &d);
		if (d.flags & VRING_DESC_F_INDIRECT) {
			if (!dev_has(dev, VIRTIO_RING_F_INDIRECT_DESC))
				return -EIO;
			if (d.flags & VRING_DESC_F_NEXT)
				return -EIO;
			return dev_walk_indirect(w, &d);
		}
		ret = dev_add_buf(w, &d);
		if (ret)
			return ret;
		if (!(d.flags & VRING_DESC_F_NEXT))
			return 0;
		if (d.next >= dev->num)
			return -EIO;
		i = d.next;
	}
}

int vringfd_dev_init(struct vringfd_dev *dev, unsigned int num, void *desc,
		     void *avail, void *used, uint64_t features)
{
	if (!dev || !dev_num_valid(num) || !dev_aligned(desc, 16) ||
	    !dev_aligned(avail, 2) || !dev_aligned(used, 4))
		return -EINVAL;
	memset(dev, 0, sizeof(*dev));
	dev->vr.num = num;
	dev->vr.desc = desc;
	dev->vr.avail = avail;
	dev->vr.used = used;
	dev->num = num;
	dev->features = features;
	return 0;
}

void vringfd_dev_set_base(struct vringfd_dev *dev, uint16_t last_avail,
			  uint16_t used_idx)
{
	dev->last_avail = last_avail;
	dev->used_idx = used_idx;
	dev->signalled_used = used_idx;
	dev->signalled_used_valid = false;
	dev->broken = false;
}

int vringfd_dev_get_chain(struct vringfd_dev *dev, struct vringfd_chain *chain,
			  struct iovec *iov, unsigned int max_iov)
{
	struct dev_walk w = { .dev = dev, .iov = iov, .max_iov = max_iov };
	uint16_t avail_idx, head;
	int ret;

	if (dev->broken)
		return -EIO;
	if (!chain || !iov)
		return -EINVAL;
	/*
	 * Acquire: pairs with the driver's release store of avail->idx; the
	 * avail entry and descriptors read below were written before it
	 * (virtio's read barrier after reading the index).
	 */
	avail_idx = le16toh(__atomic_load_n(&dev->vr.avail->idx, __ATOMIC_ACQUIRE));
	if (avail_idx == dev->last_avail)
		return 0;
	if ((uint16_t)(avail_idx - dev->last_avail) > dev->num)
		goto broken;
	head = le16toh(__atomic_load_n(&dev->vr.avail->ring[dev->last_avail & (dev->num - 1)],
				       __ATOMIC_RELAXED));
	if (head >= dev->num)
		goto broken;

	ret = dev_walk_chain(&w, head);
	if (ret == -EIO)
		goto broken;
	dev->last_avail++;
	chain->head = head;
	chain->out = iov;
	if (ret) {
		/* Dropped: the caller completes it with length 0. */
		chain->nout = chain->nin = 0;
		chain->out_len = chain->in_len = 0;
		chain->in = iov;
		return ret;
	}
	chain->nout = w.nout;
	chain->nin = w.niov - w.nout;
	chain->out_len = w.out_len;
	chain->in_len = w.in_len;
	chain->in = iov + w.nout;
	return 1;

broken:
	dev->broken = true;
	return -EIO;
}

int vringfd_dev_put_used(struct vringfd_dev *dev, uint16_t head, uint32_t len)
{
	struct vring_used_elem *e;

	if (dev->broken)
		return -EIO;
	if (head >= dev->num)
		return -EINVAL;
	/*
	 * Plain (relaxed) stores: the element becomes visible through the
	 * release store of used->idx in vringfd_dev_publish_used().
	 */
	e = &dev->vr.used->ring[dev->used_idx & (dev->num - 1)];
	__atomic_store_n(&e->id, htole32(head), __ATOMIC_RELAXED);
	__atomic_store_n(&e->len, htole32(len), __ATOMIC_RELAXED);
	dev->used_idx++;
	return 0;
}

void vringfd_dev_publish_used(struct vringfd_dev *dev)
{
	/*
	 * Release: every used element written before is visible to a driver
	 * that loads used->idx with acquire and sees this value (virtio's
	 * write barrier before the used index update).
	 */
	__atomic_store_n(&dev->vr.used->idx, htole16(dev->used_idx),
			 __ATOMIC_RELEASE);
}

bool vringfd_dev_need_notify(struct vringfd_dev *dev)
{
	uint16_t old = dev->signalled_used, new = dev->used_idx, ev;
	bool valid = dev->signalled_used_valid;

	if (dev->broken)
		return false;
	/*
	 * Full fence (virtio_mb): the used->idx store must be visible before
	 * we read the driver's flags or used_event, or the driver could
	 * re-enable interrupts, find nothing new and sleep while we skip the
	 * interrupt.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	dev->signalled_used = new;
	dev->signalled_used_valid = true;
	if (valid && new == old)
		return false;
	if (dev_has(dev, VIRTIO_RING_F_EVENT_IDX)) {
		if (!valid)
			return true;
		ev = le16toh(__atomic_load_n(&vring_used_event(&dev->vr),
					     __ATOMIC_RELAXED));
		return vring_need_event(ev, new, old);
	}
	return !(le16toh(__atomic_load_n(&dev->vr.avail->flags, __ATOMIC_RELAXED)) &
		 VRING_AVAIL_F_NO_INTERRUPT);
}

void vringfd_dev_set_no_notify(struct vringfd_dev *dev, bool no_notify)
{
	uint16_t f;

	if (dev_has(dev, VIRTIO_RING_F_EVENT_IDX)) {
		if (no_notify)
			return;
		__atomic_store_n(&vring_avail_event(&dev->vr),
				 htole16(dev->last_avail), __ATOMIC_RELAXED);
	} else {
		/* used->flags is written only by the device: no read-back race */
		f = le16toh(__atomic_load_n(&dev->vr.used->flags, __ATOMIC_RELAXED));
		if (no_notify)
			f |= VRING_USED_F_NO_NOTIFY;
		else
			f &= ~VRING_USED_F_NO_NOTIFY;
		__atomic_store_n(&dev->vr.used->flags, htole16(f), __ATOMIC_RELAXED);
		if (no_notify)
			return;
	}
	/*
	 * Full fence: the re-enabled notification must be visible before the
	 * caller re-reads avail->idx (vringfd_dev_pending()), so a chain
	 * published meanwhile is either seen or kicked.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

bool vringfd_dev_enable_notify(struct vringfd_dev *dev)
{
	vringfd_dev_set_no_notify(dev, false);
	return vringfd_dev_pending(dev) != 0;
}

int vringfd_dev_discard(struct vringfd_dev *dev, unsigned int n)
{
	if (n > dev->num)
		return -EINVAL;
	dev->last_avail -= (uint16_t)n;
	return 0;
}

unsigned int vringfd_dev_pending(const struct vringfd_dev *dev)
{
	if (dev->broken)
		return 0;
	return (uint16_t)(le16toh(__atomic_load_n(&dev->vr.avail->idx,
						  __ATOMIC_ACQUIRE)) -
			  dev->last_avail);
}
