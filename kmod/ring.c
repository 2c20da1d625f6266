// SPDX-License-Identifier: GPL-2.0
/*
 * ring.c - one split virtqueue in user memory: the ring object and its
 * attachment life cycle, the chain walker and the used-ring writer (the
 * part vhost keeps in vhost.c).  It calls no other file of the module but
 * the memory table; the file user space holds is fd.c's.
 *
 * The ring lives in user memory and user space may change it at any time:
 * every index read from it is checked before use, the kernel's own view
 * (last_avail, used_idx) is private, and a ring that breaks the protocol is
 * marked broken for good.
 */
#define pr_fmt(fmt) "vringfd: " fmt

#include <linux/eventfd.h>
#include <linux/hugetlb_inline.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "compat.h"
#include "memtable.h"
#include "memfiles.h"
#include "ring.h"

/* Bad-address chains dropped inside one vrfd_ring_get_chain() call. */
#define VRFD_DROP_BATCH		64

/* Internal walker result: drop this chain (bad buffer address). */
#define VRFD_WALK_DROP		1

#define VRFD_LE16(x)	le16_to_cpu((__force __le16)(x))
#define VRFD_LE32(x)	le32_to_cpu((__force __le32)(x))
#define VRFD_LE64(x)	le64_to_cpu((__force __le64)(x))

/**
 * struct vrfd_walk - state of one chain walk
 * @iov: segment array (readable segments first, then writable; only the
 *	readable ones when @in_iov is set)
 * @max: entries in @iov
 * @n: entries used
 * @split: writable segments go to @in_iov (readable ones to @iov)
 * @in_iov: separate array for the writable segments (with @split)
 * @max_in: entries in @in_iov
 * @chain: the chain being filled
 * @total: bytes in the chain so far
 * @in_seen: a writable segment was seen
 * @ndesc: descriptors read so far (an indirect table's entries included)
 * @max_desc: most descriptors the chain may have: the caller's segment
 *	capacity (@max, plus @max_in with @split), at most VRFD_MAX_CHAIN_DESCS
 */
struct vrfd_walk {
	struct iovec *iov;
	unsigned int max;
	unsigned int n;
	bool split;
	struct iovec *in_iov;
	unsigned int max_in;
	struct vrfd_chain *chain;
	u64 total;
	bool in_seen;
	unsigned int ndesc;
	unsigned int max_desc;
};

/**
 * vrfd_ring_has() - is a ring feature negotiated?
 * @ring: the ring
 * @bit: VIRTIO_RING_F_* / VIRTIO_F_* bit number
 *
 * Return: true when negotiated.
 */
static bool vrfd_ring_has(const struct vrfd_ring *ring, unsigned int bit)
{
	return ring->features & BIT_ULL(bit);
}

/**
 * vrfd_used_event() - user address of used_event (after avail->ring[num])
 * @ring: the ring
 *
 * Return: the address.
 */
static __virtio16 __user *vrfd_used_event(const struct vrfd_ring *ring)
{
	return &ring->avail->ring[ring->num];
}

/**
 * vrfd_avail_event() - user address of avail_event (after used->ring[num])
 * @ring: the ring
 *
 * Return: the address.
 */
static __virtio16 __user *vrfd_avail_event(const struct vrfd_ring *ring)
{
	return (__virtio16 __user *)&ring->used->ring[ring->num];
}

/**
 * vrfd_ring_used_size() - bytes of the used ring (avail_event included with
 * VIRTIO_RING_F_EVENT_IDX)
 * @ring: the ring
 *
 * Return: the size.
 */
static size_t vrfd_ring_used_size(const struct vrfd_ring *ring)
{
	return sizeof(struct vring_used) +
	       ring->num * sizeof(struct vring_used_elem) +
	       (vrfd_ring_has(ring, VIRTIO_RING_F_EVENT_IDX) ? sizeof(__virtio16) : 0);
}

void vrfd_ring_get(struct vrfd_ring *ring)
{
	kref_get(&ring->ref);
}

/**
 * vrfd_ring_unpin_used() - undo vrfd_ring_pin_used()
 * @ring: the ring
 *
 * Context: process; no atomic user of the mapping may be running.
 */
static void vrfd_ring_unpin_used(struct vrfd_ring *ring)
{
	void *map;
	unsigned long flags;

	if (!ring->used_pages)
		return;
	spin_lock_irqsave(&ring->used_lock, flags);
	map = ring->used_map;
	ring->used_map = NULL;
	ring->used_k = NULL;
	spin_unlock_irqrestore(&ring->used_lock, flags);
	if (map)
		vunmap(map);
	unpin_user_pages_dirty_lock(ring->used_pages, ring->used_npages, true);
	kvfree(ring->used_pages);
	ring->used_pages = NULL;
	ring->used_npages = 0;
}

/**
 * vrfd_ring_pin_check_vmas() - may the pages of [@first, @end) be pinned
 * long-term?
 * @mm: current->mm (its mmap lock held)
 * @first: page-aligned start
 * @end: page-aligned end
 *
 * A long-term pin of a file's page cache lets the kernel write the page
 * while the file system believes it clean (writeback, truncation): io_uring
 * refuses such buffers, and so does this (6.1's pin_user_pages() refuses
 * only fsdax with FOLL_LONGTERM, and migrates only movable/CMA pages).
 * shmem (memfd, tmpfs, MAP_SHARED anonymous memory, SysV shm) and
 * hugetlbfs have no writeback: accepted, as is anonymous memory.
 * Return: 0, -EFAULT (a hole), -EOPNOTSUPP (another file mapping).
 */
static int vrfd_ring_pin_check_vmas(struct mm_struct *mm, unsigned long first,
				    unsigned long end)
{
	struct vm_area_struct *vma;
	unsigned long addr = first;

	while (addr < end) {
		vma = find_vma(mm, addr);
		if (!vma || vma->vm_start > addr)
			return -EFAULT;
		if (vma->vm_file && !is_vm_hugetlb_page(vma) &&
		    !shmem_file(vma->vm_file))
			return -EOPNOTSUPP;
		addr = vma->vm_end;
	}
	return 0;
}

/**
 * vrfd_ring_pin_used() - pin the whole used ring and map it contiguously
 * @ring: the ring; current->mm must be the ring's mm
 *
 * The mappings are checked and the pages pinned under one hold of the
 * mmap lock, so the pinned pages are those of the mappings checked.  The
 * pin does not wait for a userfaultfd (no retry with the lock held): a
 * missing page is -EFAULT.
 * Return: 0, -EFAULT (not mapped writable), -EOPNOTSUPP (see
 * vrfd_ring_pin_check_vmas()), -ENOMEM, -EINTR (a fatal signal while
 * waiting for the mmap lock).
 */
static int vrfd_ring_pin_used(struct vrfd_ring *ring)
{
	unsigned long start = (unsigned long)ring->used;
	unsigned long first = start & PAGE_MASK;
	unsigned long end = PAGE_ALIGN(start + vrfd_ring_used_size(ring));
	unsigned int npages = (end - first) >> PAGE_SHIFT;
	struct page **pages;
	long pinned;
	void *map;
	int err;

	pages = kvcalloc(npages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	if (mmap_read_lock_killable(current->mm)) {
		kvfree(pages);
		return -EINTR;
	}
	err = vrfd_ring_pin_check_vmas(current->mm, first, end);
	pinned = err ? 0 : vrfd_pin_user_pages_locked(first, npages, pages);
	mmap_read_unlock(current->mm);
	if (err || pinned != npages) {
		if (pinned > 0)
			unpin_user_pages(pages, pinned);
		kvfree(pages);
		return err ? err : -EFAULT;
	}
	map = vmap(pages, npages, VM_MAP, PAGE_KERNEL);
	if (!map) {
		unpin_user_pages(pages, npages);
		kvfree(pages);
		return -ENOMEM;
	}
	ring->used_pages = pages;
	ring->used_npages = npages;
	spin_lock_irq(&ring->used_lock);
	ring->used_map = map;
	ring->used_k = map + offset_in_page(start);
	spin_unlock_irq(&ring->used_lock);
	return 0;
}

/**
 * vrfd_ring_free() - free a ring (last reference gone)
 * @ref: the ring's kref
 */
static void vrfd_ring_free(struct kref *ref)
{
	struct vrfd_ring *ring = container_of(ref, struct vrfd_ring, ref);

	vrfd_ring_unpin_used(ring);
	vrfd_memtable_free(ring->memtable);
	vrfd_memfiles_free(ring->memfiles);
	bitmap_free(ring->inflight_map);
	if (ring->call)
		eventfd_ctx_put(ring->call);
	if (ring->mm)
		mmdrop(ring->mm);
	kfree(ring);
}

void vrfd_ring_put(struct vrfd_ring *ring)
{
	kref_put(&ring->ref, vrfd_ring_free);
}

bool vrfd_ring_is_broken(const struct vrfd_ring *ring)
{
	return READ_ONCE(ring->broken);
}

void vrfd_ring_mark_broken(struct vrfd_ring *ring, const char *why)
{
	if (!READ_ONCE(ring->broken))
		pr_debug("ring %p broken: %s\n", ring, why);
	WRITE_ONCE(ring->broken, true);
	wake_up_interruptible_poll(&ring->wq, EPOLLERR);
}

void vrfd_ring_wake(struct vrfd_ring *ring)
{
	wake_up_interruptible_poll(&ring->wq, EPOLLIN | EPOLLRDNORM);
}

void vrfd_ring_set_hup(struct vrfd_ring *ring)
{
	WRITE_ONCE(ring->hup, true);
	wake_up_interruptible_poll(&ring->wq, EPOLLHUP);
}

int vrfd_ring_check(struct vrfd_ring *ring)
{
	if (READ_ONCE(ring->broken) || READ_ONCE(ring->dead) ||
	    READ_ONCE(ring->ended))
		return -EIO;
	if (!READ_ONCE(ring->kmem) && current->mm != ring->mm)
		return -EPERM;
	return 0;
}

/**
 * vrfd_ring_load16() - read a 16-bit field of a ring part
 * @kmem: a ring of memory (the caller's one reading of @ring->kmem, under
 *	@ring->lock: a constant in the fast paths, so each kind of ring
 *	compiles to its own code)
 * @u: the field's user address (address-space ring)
 * @k: the field's kernel address (ring of memory)
 * @v: the value (out)
 *
 * Return: 0, or -EFAULT.
 */
static __always_inline int vrfd_ring_load16(const bool kmem,
					    const void __user *u, const void *k,
					    u16 *v)
{
	if (kmem) {
		*v = le16_to_cpu(READ_ONCE(*(const __le16 *)k));
		return 0;
	}
	return get_user(*v, (const u16 __user *)u);
}

/**
 * vrfd_ring_store16() - write a 16-bit field of a ring part
 * @kmem: a ring of memory (as vrfd_ring_load16())
 * @u: the field's user address (address-space ring)
 * @k: the field's kernel address (ring of memory)
 * @v: the value
 *
 * Return: 0, or -EFAULT.
 */
static __always_inline int vrfd_ring_store16(const bool kmem,
					     void __user *u, void *k, u16 v)
{
	if (kmem) {
		WRITE_ONCE(*(__le16 *)k, cpu_to_le16(v));
		return 0;
	}
	return put_user(v, (u16 __user *)u);
}

/**
 * vrfd_ring_fault() - ring memory could not be accessed: break the ring
 * @ring: the ring
 * @what: which part
 *
 * Return: -EFAULT.
 */
static int vrfd_ring_fault(struct vrfd_ring *ring, const char *what)
{
	vrfd_ring_mark_broken(ring, what);
	return -EFAULT;
}

/**
 * vrfd_ring_violation() - user space broke the ring protocol: break the ring
 * @ring: the ring
 * @what: which rule
 *
 * Return: -EINVAL.
 */
static int vrfd_ring_violation(struct vrfd_ring *ring, const char *what)
{
	vrfd_ring_mark_broken(ring, what);
	return -EINVAL;
}

/**
 * __vrfd_ring_avail_pending() - vrfd_ring_avail_pending() for a ring known
 * to be (@kmem) or not to be a ring of memory
 * @ring: the ring
 * @kmem: READ_ONCE(@ring->kmem) under @ring->lock
 *
 * Return: as vrfd_ring_avail_pending().
 */
static __always_inline int __vrfd_ring_avail_pending(struct vrfd_ring *ring,
						     const bool kmem)
{
	u16 idx, n;
	int err;

	lockdep_assert_held(&ring->lock);
	err = vrfd_ring_check(ring);
	if (err)
		return err;
	/* Entries seen at the last read of avail->idx and not yet taken. */
	n = ring->avail_idx - ring->last_avail;
	if (n)
		return n;
	if (vrfd_ring_load16(kmem, &ring->avail->idx, &ring->kavail->idx, &idx))
		return vrfd_ring_fault(ring, "avail->idx unreadable");
	n = idx - ring->last_avail;
	if (n > ring->num)
		return vrfd_ring_violation(ring, "avail->idx moved by more than num");
	ring->avail_idx = idx;
	/* Read the avail entries only after seeing avail->idx. */
	smp_rmb();
	return n;
}

int vrfd_ring_avail_pending(struct vrfd_ring *ring)
{
	return __vrfd_ring_avail_pending(ring, READ_ONCE(ring->kmem));
}

int vrfd_ring_enable_notify(struct vrfd_ring *ring)
{
	int n;

	lockdep_assert_held(&ring->lock);
	if (!vrfd_ring_has(ring, VIRTIO_RING_F_EVENT_IDX))
		return 0;
	n = vrfd_ring_check(ring);
	if (n)
		return n;
	if (vrfd_ring_store16(READ_ONCE(ring->kmem), vrfd_avail_event(ring),
			      &ring->kused->ring[ring->num], ring->last_avail))
		return vrfd_ring_fault(ring, "avail_event not writable");
	/* The request is visible before we read avail->idx again. */
	smp_mb();
	return vrfd_ring_avail_pending(ring);
}

/**
 * vrfd_ring_xlate() - where the start of a buffer is
 * @ring: the ring
 * @addr: address from a descriptor (guest-physical with a table)
 * @len: the buffer's length, > 0
 * @a: the address to copy at (out): a user address that passed
 *	access_ok(), or on a ring of memory a kernel address of held pages
 * @contig: bytes usable at @a, 1..@len (out)
 *
 * Return: 0, or VRFD_WALK_DROP (outside the table, or not a user address).
 */
static int vrfd_ring_xlate(struct vrfd_ring *ring, u64 addr, u64 len,
			   u64 *a, u64 *contig)
{
	void *k;

	if (ring->kmem) {
		if (vrfd_memfiles_xlate(ring->memfiles, addr, len, &k, contig))
			return VRFD_WALK_DROP;
		*a = (unsigned long)k;
		return 0;
	}
	if (ring->memtable) {
		if (vrfd_memtable_xlate(ring->memtable, addr, len, a, contig) ||
		    !*contig || *contig > len)
			return VRFD_WALK_DROP;
	} else {
		*a = addr;
		*contig = len;
	}
	if (*a != (unsigned long)*a ||
	    !access_ok((void __user *)(unsigned long)*a, *contig))
		return VRFD_WALK_DROP;
	return 0;
}

/**
 * vrfd_ring_add_seg() - add one buffer segment to a walk
 * @ring: the ring
 * @w: the walk
 * @addr: address from the descriptor (guest-physical with a memory table)
 * @len: its length
 * @write: device-writable segment
 *
 * Each segment stored counts one unit of walk work (@ring->walked).  A
 * segment that does not fit the caller's array ends the walk at once:
 * the chain is refused whatever follows.
 * Return: 0, VRFD_WALK_DROP (address not usable), -E2BIG (more segments
 * than the caller's array holds), -EOVERFLOW (length/address overflow),
 * -EINVAL (readable after writable).
 */
static int vrfd_ring_add_seg(struct vrfd_ring *ring, struct vrfd_walk *w,
			u64 addr, u32 len, bool write)
{
	struct vrfd_chain *ch = w->chain;
	u64 uaddr, contig;

	if (write)
		w->in_seen = true;
	else if (w->in_seen)
		return -EINVAL;
	w->total += len;
	if (w->total > U32_MAX)
		return -EOVERFLOW;
	if (!len)
		return 0;
	if (addr + len < addr)
		return -EOVERFLOW;
	while (len) {
		if (vrfd_ring_xlate(ring, addr, len, &uaddr, &contig))
			return VRFD_WALK_DROP;
		if (write && w->split) {
			if (ch->nin >= w->max_in)
				return -E2BIG;
			w->in_iov[ch->nin].iov_base =
				(void __user *)(unsigned long)uaddr;
			w->in_iov[ch->nin].iov_len = contig;
		} else {
			if (w->n >= w->max)
				return -E2BIG;
			w->iov[w->n].iov_base = (void __user *)(unsigned long)uaddr;
			w->iov[w->n].iov_len = contig;
			w->n++;
		}
		ring->walked++;
		if (write) {
			ch->nin++;
			ch->in_len += contig;
		} else {
			ch->nout++;
			ch->out_len += contig;
		}
		addr += contig;
		len -= contig;
	}
	return 0;
}

/**
 * vrfd_ring_hand_out() - the avail entry at last_avail is taken: consume it and
 * mark its head in flight
 * @ring: the ring
 * @head: the entry's head index (< num)
 *
 * Context: @ring->lock held.
 * Return: 0, or -EINVAL (the driver made a head available again before it
 * was used: the ring is now broken).
 */
static int vrfd_ring_hand_out(struct vrfd_ring *ring, u16 head)
{
	if (test_and_set_bit(head, ring->inflight_map))
		return vrfd_ring_violation(ring, "head made available while in flight");
	ring->last_avail++;
	return 0;
}

/**
 * vrfd_ring_walk_step() - account one descriptor read by a walk
 * @ring: the ring
 * @w: the walk
 *
 * Every descriptor read (an indirect table's entries included) counts one
 * unit of walk work (@ring->walked), and a chain may not have more
 * descriptors than the caller has room for segments: that bounds one
 * chain's work by the caller's array, whatever the ring size, the
 * indirect table's size or the number of zero-length descriptors.
 * Return: 0, or -E2BIG (the chain is refused).
 */
static int vrfd_ring_walk_step(struct vrfd_ring *ring, struct vrfd_walk *w)
{
	if (++w->ndesc > w->max_desc)
		return -E2BIG;
	ring->walked++;
	return 0;
}

/**
 * vrfd_ring_read_guest() - read bytes at a descriptor address (indirect table)
 * @ring: the ring
 * @dst: kernel buffer
 * @addr: address (guest-physical with a memory table)
 * @len: bytes
 *
 * Return: 0, or VRFD_WALK_DROP (outside the table, or unreadable).
 */
static int vrfd_ring_read_guest(struct vrfd_ring *ring, void *dst, u64 addr,
			   size_t len)
{
	u64 uaddr, contig;

	while (len) {
		if (vrfd_ring_xlate(ring, addr, len, &uaddr, &contig))
			return VRFD_WALK_DROP;
		if (ring->kmem)
			memcpy(dst, (void *)(unsigned long)uaddr, contig);
		else if (copy_from_user(dst, (void __user *)(unsigned long)uaddr,
					contig))
			return VRFD_WALK_DROP;
		dst += contig;
		addr += contig;
		len -= contig;
	}
	return 0;
}

/**
 * vrfd_ring_walk_indirect() - add the segments of an indirect table to a walk
 * @ring: the ring
 * @w: the walk
 * @addr: table address
 * @len: table length in bytes
 *
 * Return: 0, VRFD_WALK_DROP, -E2BIG, or a protocol error (-EINVAL,
 * -ELOOP, -EOVERFLOW).
 */
static int vrfd_ring_walk_indirect(struct vrfd_ring *ring, struct vrfd_walk *w,
			      u64 addr, u32 len)
{
	unsigned int count, i = 0, steps = 0;
	struct vring_desc d;
	u16 flags;
	int err;

	if (!vrfd_ring_has(ring, VIRTIO_RING_F_INDIRECT_DESC))
		return -EINVAL;
	if (!len || len % sizeof(d))
		return -EINVAL;
	count = len / sizeof(d);
	if (count > VRFD_MAX_INDIRECT)
		return -EINVAL;
	if (addr + len < addr)
		return -EOVERFLOW;
	for (;;) {
		if (++steps > count)
			return -ELOOP;
		err = vrfd_ring_walk_step(ring, w);
		if (err)
			return err;
		err = vrfd_ring_read_guest(ring, &d, addr + (u64)i * sizeof(d),
				      sizeof(d));
		if (err)
			return err;
		flags = VRFD_LE16(d.flags);
		if (flags & VRING_DESC_F_INDIRECT)
			return -EINVAL;
		err = vrfd_ring_add_seg(ring, w, VRFD_LE64(d.addr),
				   VRFD_LE32(d.len), flags & VRING_DESC_F_WRITE);
		if (err)
			return err;
		if (!(flags & VRING_DESC_F_NEXT))
			return 0;
		i = VRFD_LE16(d.next);
		if (i >= count)
			return -EINVAL;
	}
}

/**
 * vrfd_ring_read_desc_user() - read one descriptor of an address-space ring
 * @u: its user address (inside the table VRINGFD_CREATE checked)
 * @d: the kernel copy
 *
 * Four loads in one user-access section: no out-of-line copy, no
 * per-byte string copy for 16 bytes.
 * Return: 0, or -EFAULT.
 */
static __always_inline int vrfd_ring_read_desc_user(const struct vring_desc __user *u,
					  struct vring_desc *d)
{
	if (!user_access_begin(u, sizeof(*u)))
		return -EFAULT;
	unsafe_get_user(d->addr, &u->addr, efault);
	unsafe_get_user(d->len, &u->len, efault);
	unsafe_get_user(d->flags, &u->flags, efault);
	unsafe_get_user(d->next, &u->next, efault);
	user_access_end();
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}

/**
 * vrfd_ring_read_desc() - read descriptor @i of the ring's table
 * @ring: the ring
 * @kmem: a ring of memory (as vrfd_ring_load16())
 * @i: its index (< num)
 * @d: the kernel copy
 *
 * Return: 0, or -EFAULT.
 */
static __always_inline int vrfd_ring_read_desc(const struct vrfd_ring *ring,
					       const bool kmem, u16 i,
					       struct vring_desc *d)
{
	if (kmem) {
		/* one load each: the checks and the use see the same value */
		d->addr = READ_ONCE(ring->kdesc[i].addr);
		d->len = READ_ONCE(ring->kdesc[i].len);
		d->flags = READ_ONCE(ring->kdesc[i].flags);
		d->next = READ_ONCE(ring->kdesc[i].next);
		return 0;
	}
	return vrfd_ring_read_desc_user(&ring->desc[i], d);
}

/**
 * vrfd_ring_walk_chain() - collect the segments of the chain whose head
 * descriptor @first was read already
 * @ring: the ring
 * @w: the walk (the head descriptor already counted by vrfd_ring_walk_step())
 * @first: the head descriptor's kernel copy
 *
 * Return: 0, VRFD_WALK_DROP, -E2BIG, -EFAULT (descriptor table
 * unreadable), or a protocol error (-EINVAL, -ELOOP, -EOVERFLOW).
 */
static int vrfd_ring_walk_chain(struct vrfd_ring *ring, struct vrfd_walk *w,
			   const struct vring_desc *first)
{
	struct vring_desc d = *first;
	unsigned int i, steps = 1;
	u16 flags;
	int err;

	for (;;) {
		flags = VRFD_LE16(d.flags);
		if (flags & VRING_DESC_F_INDIRECT) {
			if (flags & VRING_DESC_F_NEXT)
				return -EINVAL;
			return vrfd_ring_walk_indirect(ring, w, VRFD_LE64(d.addr),
						  VRFD_LE32(d.len));
		}
		err = vrfd_ring_add_seg(ring, w, VRFD_LE64(d.addr), VRFD_LE32(d.len),
				   flags & VRING_DESC_F_WRITE);
		if (err)
			return err;
		if (!(flags & VRING_DESC_F_NEXT))
			return 0;
		i = VRFD_LE16(d.next);
		if (i >= ring->num)
			return -EINVAL;
		if (++steps > ring->num)
			return -ELOOP;
		err = vrfd_ring_walk_step(ring, w);
		if (err)
			return err;
		if (vrfd_ring_read_desc(ring, READ_ONCE(ring->kmem), i, &d))
			return -EFAULT;
	}
}

/**
 * vrfd_ring_walk_one() - the fast path: a chain of one direct descriptor (no
 * NEXT, no INDIRECT) on a ring without a memory table, or on a ring of
 * memory when vrfd_ring_kmem_direct() translated it in one piece (@d then
 * holds the kernel address, which is not checked with access_ok())
 * @ring: the ring
 * @kmem: a ring of memory (@d holds a kernel address already)
 * @d: the descriptor's kernel copy
 * @iov: segment array
 * @max_iov: entries in @iov
 * @split: put a writable segment into @in_iov
 * @in_iov: separate array for writable segments (with @split)
 * @max_in: entries in @in_iov
 * @chain: filled in (zeroed by the caller)
 *
 * Exactly vrfd_ring_add_seg() for the first segment of a fresh walk, without
 * the walk state and the translation loop: a zero-length descriptor adds
 * no segment; address + length may not wrap; the address must pass
 * access_ok(); the segment must fit the caller's array; the stored segment
 * counts one unit of walk work.  (A single descriptor cannot put a
 * readable segment after a writable one, nor exceed 2^32 - 1 bytes.)
 * Return: 0, VRFD_WALK_DROP, -E2BIG or -EOVERFLOW, as vrfd_ring_walk_chain().
 */
static __always_inline int vrfd_ring_walk_one(struct vrfd_ring *ring,
					 const bool kmem,
					 const struct vring_desc *d,
					 struct iovec *iov, unsigned int max_iov,
					 bool split, struct iovec *in_iov,
					 unsigned int max_in,
					 struct vrfd_chain *chain)
{
	u64 addr = VRFD_LE64(d->addr);
	u32 len = VRFD_LE32(d->len);
	bool write = VRFD_LE16(d->flags) & VRING_DESC_F_WRITE;

	if (!len)
		return 0;
	if (addr + len < addr)
		return -EOVERFLOW;
	if (!kmem && (addr != (unsigned long)addr ||
			    !access_ok((void __user *)(unsigned long)addr, len)))
		return VRFD_WALK_DROP;
	if (write && split) {
		if (!max_in)
			return -E2BIG;
		in_iov[0].iov_base = (void __user *)(unsigned long)addr;
		in_iov[0].iov_len = len;
	} else {
		if (!max_iov)
			return -E2BIG;
		iov[0].iov_base = (void __user *)(unsigned long)addr;
		iov[0].iov_len = len;
	}
	ring->walked++;
	if (write) {
		chain->nin = 1;
		chain->in_len = len;
	} else {
		chain->nout = 1;
		chain->out_len = len;
	}
	return 0;
}

/**
 * vrfd_ring_kmem_direct() - translate a lone descriptor of a ring of memory
 * for the fast path
 * @ring: a ring of memory
 * @d: the descriptor's kernel copy; its address becomes the kernel address
 *
 * Return: true when the buffer is one contiguous piece of held memory (or
 * empty): vrfd_ring_walk_one() may take it; false: the general walk
 * splits it at page boundaries, or drops it (outside the table).
 */
static __always_inline bool vrfd_ring_kmem_direct(struct vrfd_ring *ring,
						  struct vring_desc *d)
{
	u32 len = VRFD_LE32(d->len);
	u64 contig;
	void *k;

	if (!len)
		return true;
	if (vrfd_memfiles_xlate(ring->memfiles, VRFD_LE64(d->addr), len, &k, &contig) ||
	    contig != len)
		return false;
	d->addr = (__force __virtio64)cpu_to_le64((unsigned long)k);
	return true;
}

/**
 * vrfd_ring_walk_general() - the general walk of a chain whose head descriptor
 * was read (and counted) already: several descriptors, an indirect table,
 * or a memory table
 * @ring: the ring
 * @iov: segment array
 * @max_iov: entries in @iov
 * @split: put writable segments into @in_iov
 * @in_iov: separate array for writable segments (with @split)
 * @max_in: entries in @in_iov
 * @chain: filled in (zeroed by the caller)
 * @max_desc: most descriptors the chain may have (>= 1)
 * @d: the head descriptor's kernel copy
 *
 * Out of line so that the walk state (zeroed on the stack at every call
 * with CONFIG_INIT_STACK_ALL_ZERO) costs nothing on the one-descriptor
 * path.
 * Return: as vrfd_ring_walk_chain().
 */
static noinline int vrfd_ring_walk_general(struct vrfd_ring *ring,
				      struct iovec *iov, unsigned int max_iov,
				      bool split, struct iovec *in_iov,
				      unsigned int max_in,
				      struct vrfd_chain *chain,
				      unsigned int max_desc,
				      const struct vring_desc d)
{
	struct vrfd_walk w;

	w.iov = iov;
	w.max = max_iov;
	w.n = 0;
	w.split = split;
	w.in_iov = in_iov;
	w.max_in = max_in;
	w.chain = chain;
	w.total = 0;
	w.in_seen = false;
	w.ndesc = 1;	/* the head, counted by the caller */
	w.max_desc = max_desc;
	return vrfd_ring_walk_chain(ring, &w, &d);
}

/* vrfd_ring_take_chain() result: a bad-address chain was completed empty. */
#define VRFD_TAKE_DROPPED	2

/**
 * vrfd_ring_take_chain() - take the chain at last_avail, or complete it empty
 * when its buffer address is bad
 * @ring: the ring
 * @kmem: READ_ONCE(@ring->kmem) under @ring->lock, a constant at each call
 * @iov: segment array
 * @max_iov: entries in @iov
 * @split: put writable segments into @in_iov
 * @in_iov: separate array for writable segments (with @split)
 * @max_in: entries in @in_iov
 * @chain: filled in
 *
 * A chain of one direct descriptor on a ring without a memory table (the
 * common case) takes vrfd_ring_walk_one(); every other chain the general walk.
 * Both count the same walk work: one unit for the chain, one per
 * descriptor read, one per segment stored.
 * Return: 1 (a chain taken), VRFD_TAKE_DROPPED (a bad-address chain
 * completed with length 0, drop_bad_addr counted), 0 (no chain
 * available), or -errno as vrfd_ring_get_chain().
 */
static __always_inline int vrfd_ring_take_chain(struct vrfd_ring *ring,
					   const bool kmem,
					   struct iovec *iov,
					   unsigned int max_iov, bool split,
					   struct iovec *in_iov,
					   unsigned int max_in,
					   struct vrfd_chain *chain)
{
	unsigned int max_desc;
	struct vring_desc d;
	u16 head, flags;
	int n, err;

	n = __vrfd_ring_avail_pending(ring, kmem);
	if (n <= 0)
		return n;
	if (vrfd_ring_load16(kmem, &ring->avail->ring[ring->last_avail & ring->mask],
			     &ring->kavail->ring[ring->last_avail & ring->mask],
			     &head))
		return vrfd_ring_fault(ring, "avail ring unreadable");
	memset(chain, 0, sizeof(*chain));
	chain->head = head;
	if (head >= ring->num)
		return vrfd_ring_violation(ring, "avail head out of range");

	ring->walked++;		/* the chain itself */
	/* The head descriptor: bounded and counted as vrfd_ring_walk_step() does. */
	max_desc = min_t(unsigned int, VRFD_MAX_CHAIN_DESCS,
			 max_iov + (split ? max_in : 0));
	if (!max_desc)
		return -E2BIG;
	ring->walked++;
	if (vrfd_ring_read_desc(ring, kmem, head, &d))
		return vrfd_ring_fault(ring, "descriptor table unreadable");
	flags = VRFD_LE16(d.flags);
	if (likely(!(flags & (VRING_DESC_F_NEXT | VRING_DESC_F_INDIRECT)) &&
		   !ring->memtable && (!kmem || vrfd_ring_kmem_direct(ring, &d))))
		err = vrfd_ring_walk_one(ring, kmem, &d, iov, max_iov, split, in_iov,
				    max_in, chain);
	else
		err = vrfd_ring_walk_general(ring, iov, max_iov, split, in_iov,
					max_in, chain, max_desc, d);
	switch (err) {
	case 0:
		break;
	case VRFD_WALK_DROP:
		ring->stats.drop_bad_addr++;
		err = vrfd_ring_hand_out(ring, head);
		if (err)
			return err;
		err = vrfd_ring_add_used(ring, head, 0);
		return err ? err : VRFD_TAKE_DROPPED;
	case -E2BIG:
		return -E2BIG;
	case -EFAULT:
		return vrfd_ring_fault(ring, "descriptor table unreadable");
	case -ELOOP:
		return vrfd_ring_violation(ring, "descriptor chain loops");
	case -EOVERFLOW:
		return vrfd_ring_violation(ring, "chain length overflows");
	default:
		return vrfd_ring_violation(ring, "bad descriptor");
	}
	err = vrfd_ring_hand_out(ring, head);
	return err ? err : 1;
}

/**
 * vrfd_ring_get_chain_publish() - take a chain; publish the chains dropped on
 * the way (bad addresses) so user space gets them back at once
 * @ring: the ring
 * @iov: segment array
 * @max_iov: entries in @iov
 * @split: put writable segments into @in_iov
 * @in_iov: separate array for writable segments (with @split)
 * @max_in: entries in @in_iov
 * @chain: filled in
 *
 * At most VRFD_DROP_BATCH bad-address chains are completed in one call
 * (each bounded as any chain); after them the call returns -EAGAIN, never
 * 0, which would tell the caller that no chain is left.  @chain->dropped
 * says how many were completed, whatever the return.
 * Return: as vrfd_ring_get_chain().
 */
static __always_inline int vrfd_ring_get_chain_publish(struct vrfd_ring *ring,
						  struct iovec *iov,
						  unsigned int max_iov,
						  bool split,
						  struct iovec *in_iov,
						  unsigned int max_in,
						  struct vrfd_chain *chain)
{
	unsigned int dropped = 0;
	int ret, err;

	lockdep_assert_held(&ring->lock);
	for (;;) {
		/*
		 * Two copies of the walk: ring->kmem is stable under ring->lock,
		 * and with a constant the address-space ring's walk has none
		 * of a ring of memory's branches (about 20 instructions a chain).
		 */
		if (unlikely(READ_ONCE(ring->kmem)))
			ret = vrfd_ring_take_chain(ring, true, iov, max_iov, split,
						   in_iov, max_in, chain);
		else
			ret = vrfd_ring_take_chain(ring, false, iov, max_iov, split,
						   in_iov, max_in, chain);
		if (likely(ret != VRFD_TAKE_DROPPED))
			break;
		if (++dropped == VRFD_DROP_BATCH) {
			ret = -EAGAIN;
			break;
		}
	}
	chain->dropped = dropped;
	if (unlikely(dropped)) {
		err = vrfd_ring_publish_used(ring);
		if (err && (ret >= 0 || ret == -EAGAIN))
			ret = err;
	}
	return ret;
}

int vrfd_ring_get_chain_split(struct vrfd_ring *ring, struct iovec *out_iov,
			      unsigned int max_out, struct iovec *in_iov,
			      unsigned int max_in, struct vrfd_chain *chain)
{
	return vrfd_ring_get_chain_publish(ring, out_iov, max_out, true, in_iov,
				      max_in, chain);
}

int vrfd_ring_get_chain(struct vrfd_ring *ring, struct iovec *iov,
			unsigned int max_iov, struct vrfd_chain *chain)
{
	return vrfd_ring_get_chain_publish(ring, iov, max_iov, false, NULL, 0, chain);
}

int vrfd_ring_skip_chain(struct vrfd_ring *ring, const struct vrfd_chain *chain)
{
	int err;

	lockdep_assert_held(&ring->lock);
	err = vrfd_ring_avail_pending(ring);
	if (err < 0)
		return err;
	if (!err)
		return -EINVAL;
	err = vrfd_ring_hand_out(ring, chain->head);
	if (err)
		return err;
	return vrfd_ring_add_used(ring, chain->head, 0);
}

int vrfd_ring_unget_chain(struct vrfd_ring *ring, u16 head)
{
	lockdep_assert_held(&ring->lock);
	if (head >= ring->num ||
	    (u16)(ring->avail_idx - ring->last_avail) >= ring->num ||
	    !test_and_clear_bit(head, ring->inflight_map))
		return -EINVAL;
	ring->last_avail--;
	return 0;
}

/**
 * vrfd_ring_take_inflight() - account one completion
 * @ring: the ring
 * @head: head index being completed
 *
 * Context: any (the bit operation is atomic).
 * Return: 0, or -EINVAL when @head is out of range or was not handed out
 * (a bug of the attached subsystem).
 */
static int vrfd_ring_take_inflight(struct vrfd_ring *ring, u16 head)
{
	if (head >= ring->num || !test_and_clear_bit(head, ring->inflight_map)) {
		pr_warn_ratelimited("completion of head %u refused: out of range or not handed out\n",
				    head);
		return -EINVAL;
	}
	return 0;
}

/**
 * vrfd_ring_signal() - virtio asked for an interrupt: flag it, signal the call fd
 * @ring: the ring
 *
 * Context: any; @ring->call is stable (under @lock or @used_lock).
 */
static void vrfd_ring_signal(struct vrfd_ring *ring)
{
	WRITE_ONCE(ring->notify, true);
	if (ring->call) {
		vrfd_eventfd_signal(ring->call);
		ring->stats.notifies++;
	}
}

/**
 * vrfd_ring_write_used() - write one used element into the ring's used ring
 * @u: its user address
 * @e: the element
 *
 * Return: 0, or -EFAULT.
 */
static int vrfd_ring_write_used(struct vring_used_elem __user *u,
			   const struct vring_used_elem *e)
{
	if (!user_access_begin(u, sizeof(*u)))
		return -EFAULT;
	unsafe_put_user(e->id, &u->id, efault);
	unsafe_put_user(e->len, &u->len, efault);
	user_access_end();
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}

int vrfd_ring_add_used(struct vrfd_ring *ring, u16 head, u32 len)
{
	struct vring_used_elem elem;
	unsigned long flags;
	int err;

	lockdep_assert_held(&ring->lock);
	err = vrfd_ring_check(ring);
	if (err)
		return err;
	err = vrfd_ring_take_inflight(ring, head);
	if (err)
		return err;
	elem.id = (__force __virtio32)cpu_to_le32(head);
	elem.len = (__force __virtio32)cpu_to_le32(len);
	if (ring->atomic_use) {
		spin_lock_irqsave(&ring->used_lock, flags);
		if (ring->used_k) {
			ring->used_k->ring[ring->used_idx & ring->mask] = elem;
			ring->used_idx++;
			err = 0;
		} else {
			err = -EIO;
		}
		spin_unlock_irqrestore(&ring->used_lock, flags);
		return err;
	}
	if (unlikely(READ_ONCE(ring->kmem)))
		ring->kused->ring[ring->used_idx & ring->mask] = elem;
	else if (vrfd_ring_write_used(&ring->used->ring[ring->used_idx & ring->mask],
				      &elem))
		return vrfd_ring_fault(ring, "used ring not writable");
	ring->used_idx++;
	return 0;
}

/**
 * vrfd_ring_need_notify() - apply virtio's interrupt suppression rules
 * @ring: the ring
 * @old: used index at the previous notification check
 * @new: used index just published
 * @old_valid: @old is meaningful
 * @notify: set to the answer
 *
 * Context: process, current in the ring's mm.
 * Return: 0, or -EFAULT (avail ring unreadable: now broken).
 */
static int vrfd_ring_need_notify(struct vrfd_ring *ring, u16 old, u16 new,
			    bool old_valid, bool *notify)
{
	const bool kmem = READ_ONCE(ring->kmem);
	u16 v;

	if (vrfd_ring_has(ring, VIRTIO_RING_F_EVENT_IDX)) {
		if (vrfd_ring_load16(kmem, vrfd_used_event(ring),
				     &ring->kavail->ring[ring->num], &v))
			return vrfd_ring_fault(ring, "used_event unreadable");
		*notify = !old_valid || vring_need_event(v, new, old);
		return 0;
	}
	if (vrfd_ring_load16(kmem, &ring->avail->flags, &ring->kavail->flags, &v))
		return vrfd_ring_fault(ring, "avail->flags unreadable");
	*notify = !(v & VRING_AVAIL_F_NO_INTERRUPT);
	return 0;
}

int vrfd_ring_publish_used(struct vrfd_ring *ring)
{
	unsigned long flags;
	bool notify = false, old_valid;
	u16 new, old;
	int err;

	lockdep_assert_held(&ring->lock);
	err = vrfd_ring_check(ring);
	if (err)
		return err;
	if (ring->atomic_use) {
		spin_lock_irqsave(&ring->used_lock, flags);
		new = ring->used_idx;
		if (new == ring->published_idx || !ring->used_k) {
			spin_unlock_irqrestore(&ring->used_lock, flags);
			return 0;
		}
		/* Entries before the index. */
		smp_wmb();
		WRITE_ONCE(ring->used_k->idx, (__force __virtio16)cpu_to_le16(new));
		ring->published_idx = new;
		if (vrfd_ring_has(ring, VIRTIO_RING_F_EVENT_IDX))
			WRITE_ONCE(*(__virtio16 *)&ring->used_k->ring[ring->num],
				   (__force __virtio16)cpu_to_le16(ring->last_avail));
		old = ring->signalled_used;
		old_valid = ring->signalled_used_valid;
		ring->signalled_used = new;
		ring->signalled_used_valid = true;
		spin_unlock_irqrestore(&ring->used_lock, flags);
	} else {
		const bool kmem = READ_ONCE(ring->kmem);

		new = ring->used_idx;
		if (new == ring->published_idx)
			return 0;
		/* Used elements before the index that publishes them. */
		smp_wmb();
		if (vrfd_ring_store16(kmem, &ring->used->idx, &ring->kused->idx, new))
			return vrfd_ring_fault(ring, "used->idx not writable");
		ring->published_idx = new;
		if (vrfd_ring_has(ring, VIRTIO_RING_F_EVENT_IDX) &&
		    vrfd_ring_store16(kmem, vrfd_avail_event(ring),
				      &ring->kused->ring[ring->num], ring->last_avail))
			return vrfd_ring_fault(ring, "avail_event not writable");
		old = ring->signalled_used;
		old_valid = ring->signalled_used_valid;
		ring->signalled_used = new;
		ring->signalled_used_valid = true;
	}
	/* The index is visible before we read the driver's suppression. */
	smp_mb();
	err = vrfd_ring_need_notify(ring, old, new, old_valid, &notify);
	if (err)
		return err;
	if (notify) {
		spin_lock_irqsave(&ring->used_lock, flags);
		vrfd_ring_signal(ring);
		spin_unlock_irqrestore(&ring->used_lock, flags);
	}
	vrfd_ring_wake(ring);
	return 0;
}

int vrfd_ring_add_used_atomic(struct vrfd_ring *ring, u16 head, u32 len)
{
	struct vring_used_elem elem;
	unsigned long flags;
	int err;

	if (!ring->atomic_use)
		return -EINVAL;
	if (READ_ONCE(ring->broken) || READ_ONCE(ring->dead) ||
	    READ_ONCE(ring->ended))
		return -EIO;
	err = vrfd_ring_take_inflight(ring, head);
	if (err)
		return err;
	elem.id = (__force __virtio32)cpu_to_le32(head);
	elem.len = (__force __virtio32)cpu_to_le32(len);
	spin_lock_irqsave(&ring->used_lock, flags);
	if (!ring->used_k) {
		spin_unlock_irqrestore(&ring->used_lock, flags);
		return -EIO;
	}
	ring->used_k->ring[ring->used_idx & ring->mask] = elem;
	ring->used_idx++;
	/* The element before the index that publishes it. */
	smp_wmb();
	WRITE_ONCE(ring->used_k->idx,
		   (__force __virtio16)cpu_to_le16(ring->used_idx));
	ring->published_idx = ring->used_idx;
	if (vrfd_ring_has(ring, VIRTIO_RING_F_EVENT_IDX))
		WRITE_ONCE(*(__virtio16 *)&ring->used_k->ring[ring->num],
			   (__force __virtio16)cpu_to_le16(READ_ONCE(ring->last_avail)));
	ring->signalled_used = ring->used_idx;
	ring->signalled_used_valid = true;
	/* used_event cannot be read here: notify (virtio allows spurious). */
	vrfd_ring_signal(ring);
	spin_unlock_irqrestore(&ring->used_lock, flags);
	vrfd_ring_wake(ring);
	return 0;
}

int vrfd_ring_attach(struct vrfd_ring *ring, const struct vrfd_ops *ops,
		     void *data, bool atomic_use)
{
	int err = 0;

	/* killable: a running callback may be stuck on ring memory */
	if (down_write_killable(&ring->attach_sem))
		return -EINTR;
	if (READ_ONCE(ring->dead) || READ_ONCE(ring->broken))
		err = -EIO;
	else if (ring->attached)
		err = -EBUSY;
	else if ((atomic_use || !ops->mem_files) && READ_ONCE(ring->kmem))
		err = -EOPNOTSUPP;
	else if (atomic_use && current->mm != ring->mm)
		err = -EPERM;
	else if (ops->owner && !try_module_get(ops->owner))
		err = -ENODEV;
	else if (atomic_use) {
		err = vrfd_ring_pin_used(ring);
		if (err)
			module_put(ops->owner);
	}
	if (!err) {
		vrfd_ring_get(ring);
		ring->ops = ops;
		ring->data = data;
		ring->owner = ops->owner;
		ring->atomic_use = atomic_use;
		ring->attached = true;
		ring->ended = false;
		WRITE_ONCE(ring->hup, false);
	}
	up_write(&ring->attach_sem);
	return err;
}

void vrfd_ring_detach(struct vrfd_ring *ring)
{
	struct module *owner;

	down_write(&ring->attach_sem);
	while (ring->ending && ring->destroyer != current) {
		up_write(&ring->attach_sem);
		wait_event(ring->end_wq, !READ_ONCE(ring->ending));
		down_write(&ring->attach_sem);
	}
	if (!ring->attached) {
		up_write(&ring->attach_sem);
		pr_warn("detach of a ring that is not attached\n");
		return;
	}
	ring->ops = NULL;
	ring->data = NULL;
	ring->attached = false;
	WRITE_ONCE(ring->ended, false);
	/*
	 * Walkers and atomic writers of the old attachment are gone; the
	 * heads it took and never completed are not in flight for the next.
	 */
	mutex_lock(&ring->lock);
	vrfd_ring_unpin_used(ring);
	ring->atomic_use = false;
	bitmap_zero(ring->inflight_map, ring->num);
	mutex_unlock(&ring->lock);
	owner = ring->owner;
	ring->owner = NULL;
	up_write(&ring->attach_sem);
	vrfd_ring_put(ring);
	module_put(owner);
}

int vrfd_ring_end(struct vrfd_ring *ring, bool killable)
{
	const struct vrfd_ops *ops = NULL;
	void *data = NULL;
	bool ended = false;

	if (!killable)
		down_write(&ring->attach_sem);
	else if (down_write_killable(&ring->attach_sem))
		return -EINTR;
	if (ring->attached && !ring->ended) {
		ops = ring->ops;
		data = ring->data;
		ring->ops = NULL;
		WRITE_ONCE(ring->ended, true);
		ring->ending = true;
		ring->destroyer = current;
		ended = true;
	}
	up_write(&ring->attach_sem);
	if (!ended)
		return 0;
	if (ops && ops->destroy)
		ops->destroy(data);
	down_write(&ring->attach_sem);
	/*
	 * ->destroy may have detached, and a new attachment may have been
	 * made and be ending in another task by now: its end is not ours.
	 */
	if (ring->destroyer == current) {
		ring->ending = false;
		ring->destroyer = NULL;
	}
	up_write(&ring->attach_sem);
	wake_up_all(&ring->end_wq);
	return 1;
}

struct vrfd_ring *vrfd_ring_new(const struct vringfd_create *c, u16 last_avail,
				u16 used_idx)
{
	struct vrfd_ring *ring;

	ring = kzalloc(sizeof(*ring), GFP_KERNEL_ACCOUNT);
	if (!ring)
		return ERR_PTR(-ENOMEM);
	ring->inflight_map = bitmap_zalloc(c->num, GFP_KERNEL_ACCOUNT);
	if (!ring->inflight_map) {
		kfree(ring);
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&ring->ref);
	ring->num = c->num;
	ring->mask = c->num - 1;
	ring->features = c->features;
	ring->desc = (struct vring_desc __user *)(unsigned long)c->desc_addr;
	ring->avail = (struct vring_avail __user *)(unsigned long)c->avail_addr;
	ring->used = (struct vring_used __user *)(unsigned long)c->used_addr;
	ring->last_used = (u16 __user *)(unsigned long)c->last_used_addr;
	ring->last_avail = last_avail;
	ring->avail_idx = last_avail;
	ring->used_idx = used_idx;
	ring->published_idx = used_idx;
	init_rwsem(&ring->attach_sem);
	mutex_init(&ring->lock);
	spin_lock_init(&ring->used_lock);
	init_waitqueue_head(&ring->wq);
	init_waitqueue_head(&ring->end_wq);
	mmgrab(current->mm);
	ring->mm = current->mm;

	return ring;
}

int vrfd_ring_iov_copy(const struct vrfd_ring *ring, const struct iovec *iov,
		       unsigned int niov, size_t off, void *buf, size_t len,
		       bool to_user)
{
	struct iov_iter it;
	size_t total = 0;
	unsigned int i;

	for (i = 0; i < niov; i++)
		total += iov[i].iov_len;
	if (off > total || len > total - off)
		return -EFAULT;
	vrfd_ring_iter(ring, &it, to_user ? ITER_DEST : ITER_SOURCE, iov, niov,
		       total);
	iov_iter_advance(&it, off);
	if (to_user ? copy_to_iter(buf, len, &it) != len :
		      copy_from_iter(buf, len, &it) != len)
		return -EFAULT;
	return 0;
}

void vrfd_ring_part_sizes(const struct vrfd_ring *ring, size_t sizes[4])
{
	size_t event = vrfd_ring_has(ring, VIRTIO_RING_F_EVENT_IDX) ?
		       sizeof(__virtio16) : 0;

	sizes[VRFD_MEMFILES_DESC] = ring->num * sizeof(struct vring_desc);
	sizes[VRFD_MEMFILES_AVAIL] = sizeof(struct vring_avail) +
				     ring->num * sizeof(__virtio16) + event;
	sizes[VRFD_MEMFILES_USED] = vrfd_ring_used_size(ring);
	sizes[VRFD_MEMFILES_LAST_USED] = sizeof(u16);
}

int vrfd_ring_set_memfiles(struct vrfd_ring *ring, struct vrfd_memfiles *mf,
			   struct vrfd_memfiles **old)
{
	const struct vrfd_memfiles_parts *parts = vrfd_memfiles_parts(mf);

	lockdep_assert_held(&ring->lock);
	if (ring->memtable)
		return -EINVAL;
	/* @ops under @attach_sem, which the caller holds for reading */
	if (ring->atomic_use || (ring->ops && !ring->ops->mem_files))
		return -EBUSY;
	*old = ring->memfiles;
	ring->memfiles = mf;
	ring->kdesc = parts->k[VRFD_MEMFILES_DESC];
	ring->kavail = parts->k[VRFD_MEMFILES_AVAIL];
	ring->kused = parts->k[VRFD_MEMFILES_USED];
	ring->klast_used = parts->k[VRFD_MEMFILES_LAST_USED];
	/* Tasks of other address spaces may walk once they see this. */
	WRITE_ONCE(ring->kmem, true);
	return 0;
}

int vrfd_ring_start_of_memory(struct vrfd_ring *ring, struct vrfd_memfiles *mf,
			      bool base, u16 avail_base)
{
	const struct vrfd_memfiles_parts *parts = vrfd_memfiles_parts(mf);
	const struct vring_avail *avail = parts->k[VRFD_MEMFILES_AVAIL];
	const struct vring_used *used = parts->k[VRFD_MEMFILES_USED];
	struct vrfd_memfiles *old;
	u16 avail_idx, used_idx;
	int err;

	vrfd_ring_load16(true, NULL, &avail->idx, &avail_idx);
	vrfd_ring_load16(true, NULL, &used->idx, &used_idx);
	if (base) {
		/* The driver cannot have more than num chains outstanding. */
		if ((u16)(avail_idx - avail_base) > ring->num)
			return -EINVAL;
		avail_idx = avail_base;
	}
	ring->last_avail = avail_idx;
	ring->avail_idx = avail_idx;
	ring->used_idx = used_idx;
	ring->published_idx = used_idx;
	down_read(&ring->attach_sem);
	mutex_lock(&ring->lock);
	err = vrfd_ring_set_memfiles(ring, mf, &old);
	mutex_unlock(&ring->lock);
	up_read(&ring->attach_sem);
	return err;
}

int vrfd_ring_read_used_state(struct vrfd_ring *ring, u16 *used, u16 *last_used)
{
	bool kmem = READ_ONCE(ring->kmem);
	int err;

	/* A ring of memory: its parts stay mapped while @lock is held. */
	if (kmem && mutex_lock_killable(&ring->lock))
		return -EINTR;
	/*
	 * The one reading of kmem decides: a ring that became a ring of
	 * memory after it is read through user addresses (harmless: at worst
	 * a fault), never through kernel addresses without the lock.
	 */
	err = vrfd_ring_load16(kmem, &ring->used->idx, &ring->kused->idx, used) ?:
	      vrfd_ring_load16(kmem, ring->last_used, ring->klast_used, last_used);
	if (kmem)
		mutex_unlock(&ring->lock);
	return err ? -EFAULT : 0;
}

void vrfd_ring_count_call(struct vrfd_ring *ring, long ret)
{
	atomic64_inc(&ring->calls);
	if (ret > 0)
		atomic64_inc(&ring->batches);
}

void vrfd_ring_get_stats(struct vrfd_ring *ring, struct vringfd_stats *st)
{
	*st = ring->stats;
	st->calls = atomic64_read(&ring->calls);
	st->batches = atomic64_read(&ring->batches);
	memset(st->reserved, 0, sizeof(st->reserved));
}

/**
 * vrfd_ring_call_op() - run the attached pull or push callback
 * @ring: the ring
 * @push: push (write) rather than pull (read)
 *
 * Waits killably for a DETACH or attach in progress (which itself waits
 * for a callback that may be stuck on ring memory).
 * Return: the callback's count, or -errno: -EINVAL (nothing attached or no
 * such callback), -EIO (broken; also for a protocol violation seen now),
 * -EPERM (another mm), -EFAULT, -EINTR (a fatal signal while waiting).
 */
ssize_t vrfd_ring_call_op(struct vrfd_ring *ring, bool push)
{
	int (*fn)(void *data) = NULL;
	ssize_t ret;

	if (READ_ONCE(ring->broken))
		return -EIO;
	if (down_read_killable(&ring->attach_sem))
		return -EINTR;
	if (ring->ops)
		fn = push ? ring->ops->push : ring->ops->pull;
	if (!fn)
		ret = -EINVAL;
	else if (!READ_ONCE(ring->kmem) && current->mm != ring->mm)
		ret = -EPERM;
	else
		ret = fn(ring->data);
	up_read(&ring->attach_sem);
	vrfd_ring_count_call(ring, ret);
	if (ret < 0 && ret != -EFAULT && ret != -EPERM && ret != -EINTR &&
	    vrfd_ring_is_broken(ring))
		ret = -EIO;
	return ret;
}
