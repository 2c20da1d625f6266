/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ring.h - the vring fd: one split virtqueue in user memory, its walker and
 * its used-ring writer (internal to vringfd.ko; other modules use
 * vringfd_api.h).
 *
 * Locking, outermost first:
 *   @attach_sem (rw_semaphore)  read: a callback of the attached subsystem is
 *                               running from a call on the ring's file
 *                               (write/read/poll); write: attach,
 *                               detach, the end of an attachment.  The
 *                               kick-mode worker (kick.c) runs the tap's
 *                               push/pull without it and must never take
 *                               it (VRINGFD_SET_KICK waits for the worker
 *                               while holding it for writing): its end is
 *                               the attachment's ->destroy, which cancels
 *                               it (cancel_work_sync()).  Taken
 *                               killably by every call user space makes
 *                               (a callback may wait on ring memory for as
 *                               long as user space wants); only the
 *                               release and vrfd_ring_detach() wait
 *                               uninterruptibly, and no callback can run
 *                               then (see vrfd_ring_end()).
 *   @lock (mutex)               serialises ring walkers: everything that
 *                               reads avail/desc or moves @last_avail, and
 *                               (without @atomic_use) writes the used ring.
 *   @used_lock (spinlock, irq)  with @atomic_use: the used ring, @used_idx,
 *                               @signalled_used.
 * A subsystem walking a ring takes @lock around a batch:
 *
 *	mutex_lock(&ring->lock);
 *	w0 = vrfd_ring_walked(ring);
 *	while (!vrfd_over_weight(n, vrfd_ring_walked(ring) - w0, bytes) &&
 *	       (r = vrfd_ring_get_chain(ring, iov, ARRAY_SIZE(iov), &ch)) > 0) {
 *		... copy, n += 1 + ch.dropped, bytes += ...;
 *		err = vrfd_ring_add_used(ring, ch.head, len);
 *	}
 *	err = vrfd_ring_publish_used(ring);
 *	mutex_unlock(&ring->lock);
 *
 * (A real loop also goes on after -EAGAIN, counts ch.dropped whatever
 * vrfd_ring_get_chain() returned, and answers the first error of
 * vrfd_ring_add_used()/vrfd_ring_publish_used(): -EFAULT for a used ring
 * that cannot be written; see tap_tx.c.)
 *
 * Errors of the walker: -EIO (ring broken, now or before), -EPERM (current
 * is not in the ring's mm; nothing touched), -EFAULT (ring memory not
 * accessible: the ring is marked broken and -EFAULT returned once, -EIO
 * afterwards), -E2BIG (chain does not fit the iovec array; nothing
 * consumed).
 */
#ifndef VRFD_RING_H
#define VRFD_RING_H

#include <linux/types.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/kref.h>
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/uio.h>
#include <linux/bits.h>
#include <uapi/linux/virtio_config.h>
#include <uapi/linux/virtio_ring.h>
#include <linux/vringfd.h>
#include "vringfd_api.h"

struct vrfd_memtable;
struct vrfd_memfiles;
struct task_struct;
struct eventfd_ctx;
struct mm_struct;
struct page;

/**
 * struct vrfd_ring - one vring fd
 * @ref: references: the file holds one, each attachment one
 * @num: ring size, a power of two in 1..VRINGFD_MAX_NUM
 * @mask: @num - 1
 * @features: negotiated VIRTIO_RING_F_* / VIRTIO_F_* bits (1ULL << bit)
 * @desc: user address of the descriptor table
 * @avail: user address of the avail ring
 * @used: user address of the used ring
 * @last_used: user address of the user's last_used u16 (only read)
 * @mm: the address space that created the ring (mmgrab'ed)
 * @attach_sem: see "Locking" above
 * @lock: serialises walkers (see "Locking")
 * @used_lock: protects the used ring in atomic mode (see "Locking")
 * @last_avail: kernel-private: next avail entry to read (under @lock)
 * @avail_idx: avail->idx as last read and checked (under @lock): entries
 *	up to it are taken without reading avail->idx again (as vhost)
 * @used_idx: kernel-private used index: what used->idx becomes at the next
 *	publish (under @lock, or @used_lock in atomic mode); never read back
 * @published_idx: the used->idx last written to user memory
 * @signalled_used: @used_idx at the last notification (event-index rule)
 * @signalled_used_valid: @signalled_used is meaningful
 * @inflight_map: one bit per head: set when the walker hands the head out,
 *	cleared by its completion (a completion of a head not handed out is
 *	refused; a head made available again while in flight breaks the ring)
 * @walked: walk work done on this ring, in units (one per chain, per
 *	descriptor read and per segment stored); only grows, wraps (under
 *	@lock).  vrfd_over_weight() bounds a call by its difference.
 * @broken: protocol violation or fault seen: every call fails with -EIO
 * @dead: the file was released: every call fails with -EIO
 * @ended: the attachment was ended by the ring side (close or
 *	VRINGFD_DETACH; ->destroy called or being called): calls on the ring
 *	fail with -EIO until the subsystem calls vrfd_ring_detach()
 * @ending: ->destroy is running (in task @destroyer)
 * @destroyer: the task running ->destroy
 * @end_wq: vrfd_ring_detach() from other tasks waits here for ->destroy
 * @notify: virtio asked for an interrupt (VRINGFD_STATE_NOTIFY)
 * @hup: the attached subsystem's device went away (VRINGFD_STATE_HUP)
 * @kick: the attached tap serves the ring from kick mode's worker
 *	(VRINGFD_STATE_KICK); written by kick.c for the ring's attachment in
 *	kick mode only (SET_KICK under @attach_sem for writing; the end of
 *	the attachment, from ->destroy or DETACH), read without a lock
 * @ops: callbacks of the attached subsystem, NULL when none (under
 *	@attach_sem)
 * @data: argument of @ops
 * @owner: module of the attached subsystem (referenced), or NULL
 * @attached: a subsystem is attached (and holds a reference)
 * @atomic_use: the attachment asked for vrfd_used_buffer_atomic()
 * @used_pages: pinned pages of the used ring (atomic mode)
 * @used_npages: number of @used_pages
 * @used_map: vmap() of @used_pages (atomic mode), else NULL
 * @used_k: kernel address of the used ring inside @used_map
 * @memtable: guest-physical translation (VRINGFD_SET_MEM_TABLE), or NULL;
 *	replaced under @lock
 * @memfiles: the held memory files (VRINGFD_SET_MEM_FILES), or NULL;
 *	replaced under @lock (and @attach_sem for reading)
 * @kmem: a ring of memory: @memfiles is set, the ring parts are reached
 *	through @kdesc, @kavail, @kused and @klast_used and the buffers
 *	through @memfiles, from any task.  Set once (under @lock), never
 *	cleared
 * @kdesc: kernel address of the descriptor table (with @kmem)
 * @kavail: kernel address of the avail ring (with @kmem)
 * @kused: kernel address of the used ring (with @kmem)
 * @klast_used: kernel address of last_used (with @kmem)
 * @call: eventfd signalled on notification, or NULL; replaced under @lock
 *	and @used_lock
 * @wq: poll() waiters
 * @stats: counters (VRINGFD_GET_STATS); the core counts drop_bad_addr
 *	(under @lock) and notifies (under @used_lock); an attached subsystem
 *	counts the others under @lock.  calls and batches are @calls and
 *	@batches, copied in by vrfd_ring_get_stats()
 * @calls: stats.calls: write(), read() and poll() calls that ran a
 *	callback.  Counted outside @lock, by every task calling on the ring at
 *	once: an atomic (per ring)
 * @batches: stats.batches: those of @calls whose callback returned > 0
 */
struct vrfd_ring {
	struct kref ref;

	unsigned int num;
	u16 mask;
	u64 features;
	struct vring_desc __user *desc;
	struct vring_avail __user *avail;
	struct vring_used __user *used;
	u16 __user *last_used;
	struct mm_struct *mm;

	struct rw_semaphore attach_sem;
	struct mutex lock;
	spinlock_t used_lock;

	u16 last_avail;
	u16 avail_idx;
	u16 used_idx;
	u16 published_idx;
	u16 signalled_used;
	bool signalled_used_valid;
	unsigned long *inflight_map;
	u32 walked;
	bool broken;
	bool dead;
	bool ended;
	bool ending;
	struct task_struct *destroyer;
	wait_queue_head_t end_wq;
	bool notify;
	bool hup;
	bool kick;

	const struct vrfd_ops *ops;
	void *data;
	struct module *owner;
	bool attached;
	bool atomic_use;
	struct page **used_pages;
	unsigned int used_npages;
	void *used_map;
	struct vring_used *used_k;

	struct vrfd_memtable *memtable;
	struct vrfd_memfiles *memfiles;
	bool kmem;
	struct vring_desc *kdesc;
	struct vring_avail *kavail;
	struct vring_used *kused;
	__le16 *klast_used;
	struct eventfd_ctx *call;
	wait_queue_head_t wq;
	struct vringfd_stats stats;
	atomic64_t calls;
	atomic64_t batches;
};

/**
 * struct vrfd_chain - one buffer chain taken by vrfd_ring_get_chain()
 * @head: head descriptor index, for vrfd_ring_add_used()
 * @nout: readable (device-read) segments: iov[0 .. @nout)
 * @nin: writable segments: iov[@nout .. @nout + @nin)
 * @out_len: bytes in the readable segments
 * @in_len: bytes in the writable segments
 * @dropped: chains with a bad address completed empty (drop_bad_addr) by
 *	the same vrfd_ring_get_chain() call before this one; set whatever
 *	the call returns: a caller counts them as work done (and in its
 *	answer, when it answers chains consumed)
 *
 * Segment addresses are user addresses of the ring's mm (translated through
 * the memory table when the ring has one), checked with access_ok(); the
 * caller still copies with copy_{from,to}_user(), which may fail.  On a
 * ring of memory (@kmem) they are kernel addresses of held pages, each
 * segment within pages that follow each other in memory: the caller
 * copies with vrfd_ring_iov_copy() or an iterator from vrfd_ring_iter().
 */
struct vrfd_chain {
	u16 head;
	unsigned int nout;
	unsigned int nin;
	u64 out_len;
	u64 in_len;
	unsigned int dropped;
};

/* Ring features VRINGFD_CREATE understands. */
#define VRFD_RING_FEATURES	(BIT_ULL(VIRTIO_RING_F_INDIRECT_DESC) | \
				 BIT_ULL(VIRTIO_RING_F_EVENT_IDX) | \
				 BIT_ULL(VIRTIO_F_VERSION_1))

/* Most entries of one indirect table. */
#define VRFD_MAX_INDIRECT	32768

/*
 * Most descriptors one chain may have (an indirect table's entries
 * included), whatever the caller's segment array: UIO_MAXIOV, as vhost.
 */
#define VRFD_MAX_CHAIN_DESCS	1024

/**
 * vrfd_ring_new() - a new ring over user memory (VRINGFD_CREATE's checks done)
 * @c: the validated request (addresses, num, features)
 * @last_avail: first avail index to read
 * @used_idx: used index to start from (read from used->idx)
 *
 * The ring belongs to current->mm (mmgrab'ed) and holds one reference,
 * the caller's (the file's, once the fd is installed).
 * Return: the ring, or ERR_PTR(-ENOMEM).
 */
struct vrfd_ring *vrfd_ring_new(const struct vringfd_create *c, u16 last_avail,
				u16 used_idx);

/**
 * vrfd_ring_end() - end the attachment from the ring side (->destroy)
 * @ring: the ring
 *
 * Called at the file's release and by VRINGFD_DETACH.  ->destroy runs with
 * no lock held, in the calling task.  Waits for running callbacks
 * (@attach_sem for writing): with @killable (VRINGFD_DETACH) a fatal
 * signal ends the wait, since a callback may be stuck on ring memory (a
 * userfaultfd page) for as long as user space wants.  The release does
 * not wait that way: every callback run by a call runs inside a call on
 * the ring's own file, which holds a reference to it, so none runs at its
 * release (the kick-mode worker, which runs outside any call, is ended by
 * the tap's ->destroy itself: kick.c).
 * Return: 1 when an attachment was ended, 0 when none was attached,
 * -EINTR (@killable only: a fatal signal; nothing changed).
 */
int vrfd_ring_end(struct vrfd_ring *ring, bool killable);

/**
 * vrfd_ring_get() - take a reference on @ring
 * @ring: the ring
 */
void vrfd_ring_get(struct vrfd_ring *ring);

/**
 * vrfd_ring_put() - drop a reference; the last one frees the ring
 * @ring: the ring
 */
void vrfd_ring_put(struct vrfd_ring *ring);

/**
 * vrfd_ring_attach() - attach a subsystem to @ring
 * @ring: the ring
 * @ops: callbacks (kept by pointer; must outlive the attachment)
 * @data: passed to @ops
 * @atomic_use: pin and map the whole used ring for
 *	vrfd_ring_add_used_atomic() (any @num)
 *
 * Takes a reference on @ring, dropped by vrfd_ring_detach(), which must be
 * called exactly once for every successful attach (from ->destroy is fine).
 * With @atomic_use the used ring is pinned long-term: a used ring in a
 * file mapping other than shmem (memfd, tmpfs, shared anonymous memory) or
 * hugetlbfs is refused, as io_uring refuses such buffers (its page cache
 * pages would be written behind the file system's back while pinned).
 * Context: process, no ring lock held.
 * Return: 0, -EBUSY (already attached), -EIO (broken or released), -EPERM
 * (@atomic_use from another mm), -EFAULT (used ring cannot be pinned),
 * -EOPNOTSUPP (@atomic_use, used ring in a file mapping other than shmem
 * or hugetlbfs; a ring of memory and @atomic_use or !@ops->mem_files),
 * -ENOMEM, -ENODEV (@ops->owner is being unloaded), -EINTR
 * (a fatal signal while a callback was running).
 */
int vrfd_ring_attach(struct vrfd_ring *ring, const struct vrfd_ops *ops,
		     void *data, bool atomic_use);

/**
 * vrfd_ring_detach() - end the attachment and drop its reference
 * @ring: a ring attached with vrfd_ring_attach()
 *
 * If the attachment is still active it ends without ->destroy being called
 * (the subsystem asked for it).  Waits for running callbacks; afterwards none
 * runs.  Unpins the used ring.  @ring may be freed on return.
 * Context: process; may be called from ->destroy, not from other callbacks
 * of the same ring.
 */
void vrfd_ring_detach(struct vrfd_ring *ring);

/**
 * vrfd_ring_check() - may the caller walk @ring now?
 * @ring: the ring
 *
 * Return: 0, -EIO (broken, or released), -EPERM (current->mm is not the
 * ring's mm, and the ring is not a ring of memory).
 */
int vrfd_ring_check(struct vrfd_ring *ring);

/**
 * vrfd_ring_mark_broken() - mark @ring broken: every later call fails -EIO
 * @ring: the ring
 * @why: reason, logged with pr_debug (user space can trigger it)
 *
 * Wakes poll() waiters (they see EPOLLERR).  Context: any.
 */
void vrfd_ring_mark_broken(struct vrfd_ring *ring, const char *why);

/**
 * vrfd_ring_is_broken() - has @ring been marked broken?
 * @ring: the ring
 *
 * Return: true when broken.
 */
bool vrfd_ring_is_broken(const struct vrfd_ring *ring);

/**
 * vrfd_ring_get_chain() - take the next available chain
 * @ring: the ring
 * @iov: array filled with the chain's segments (readable first, then
 *	writable), as user addresses
 * @max_iov: entries in @iov
 * @chain: filled in: head, segment counts, lengths (@chain->head is also
 *	valid after -E2BIG, for vrfd_ring_skip_chain())
 *
 * Validation: avail->idx - last_avail > num, head or next >= num, a chain
 * longer than num (an indirect one longer than its table), an indirect
 * table whose length is 0 or not a multiple of 16, or longer than 32768
 * entries, INDIRECT not negotiated, NEXT together with INDIRECT, INDIRECT
 * inside an indirect table, a readable segment after a writable one, a
 * total length above U32_MAX or an address+length that wraps: the ring is
 * marked broken (-EIO).  An address outside every memory-table region or
 * failing access_ok(): the chain is completed with length 0 and counted
 * in stats.drop_bad_addr (and in @chain->dropped), and the next chain is
 * tried, at most VRFD_DROP_BATCH of them per call.  Zero-length
 * descriptors add no segment.
 * Context: process, @ring->lock held, current in the ring's mm.
 * Return: 1 (a chain), 0 (none available), -EAGAIN (VRFD_DROP_BATCH chains
 * dropped and none taken: more may be available, call again within the
 * caller's weight), -EINVAL (protocol violation seen now: the ring is now
 * broken), -EIO (broken before, or released), -EPERM, -EFAULT (ring
 * memory unreadable, or the used ring unwritable while completing a
 * dropped chain: now broken), -E2BIG (more segments than @max_iov;
 * nothing consumed).  write()/read() report a protocol violation to user
 * space as EIO.
 */
int vrfd_ring_get_chain(struct vrfd_ring *ring, struct iovec *iov,
			unsigned int max_iov, struct vrfd_chain *chain);

/**
 * vrfd_ring_get_chain_split() - vrfd_ring_get_chain() with separate arrays
 * @ring: the ring
 * @out_iov: filled with the readable segments
 * @max_out: entries in @out_iov (may be 0)
 * @in_iov: filled with the writable segments
 * @max_in: entries in @in_iov (may be 0)
 * @chain: filled in as by vrfd_ring_get_chain()
 *
 * Context and return: as vrfd_ring_get_chain(); -E2BIG when either kind of
 * segment does not fit its array (nothing consumed).
 */
int vrfd_ring_get_chain_split(struct vrfd_ring *ring, struct iovec *out_iov,
			      unsigned int max_out, struct iovec *in_iov,
			      unsigned int max_in, struct vrfd_chain *chain);

/**
 * vrfd_ring_skip_chain() - consume the chain that did not fit (-E2BIG)
 * @ring: the ring
 * @chain: as filled by the failed vrfd_ring_get_chain()
 *
 * The chain is taken and completed with length 0 (not yet published).
 * Context: process, @ring->lock held.
 * Return: 0 or -errno as vrfd_ring_add_used().
 */
int vrfd_ring_skip_chain(struct vrfd_ring *ring, const struct vrfd_chain *chain);

/**
 * vrfd_ring_unget_chain() - give back the last chain taken, unused
 * @ring: the ring
 * @head: its head (the chain vrfd_ring_get_chain() took last, i.e. the
 *	avail entry at last_avail - 1, not completed)
 *
 * Rewinds last_avail by one and clears the head's in-flight bit: the next
 * walk reads the avail entry again, through the memory table of that
 * time (vhost's vhost_discard_vq_desc()).  Several chains are given back
 * newest first.
 * Context: process, @ring->lock held.
 * Return: 0, or -EINVAL (@head not in flight, or num entries would be
 * pending: the caller completes the chain instead).
 */
int vrfd_ring_unget_chain(struct vrfd_ring *ring, u16 head);

/**
 * vrfd_ring_avail_pending() - number of chains user space made available
 * @ring: the ring
 *
 * Context: process, @ring->lock held.
 * Return: avail->idx - last_avail (0..num), or -errno as
 * vrfd_ring_get_chain() (an idx jump breaks the ring).
 */
int vrfd_ring_avail_pending(struct vrfd_ring *ring);

/**
 * vrfd_ring_enable_notify() - ask user space to kick, then look once more
 * @ring: the ring
 *
 * For a push or pull that found no chain: with VIRTIO_RING_F_EVENT_IDX
 * writes avail_event = last_avail (kick me at the next chain), a full
 * barrier, then reads avail->idx again (vhost's vhost_enable_notify()).
 * A chain published before user space could see the request gets no
 * kick: the caller walks again when this returns > 0.  Without EVENT_IDX
 * kicks are never suppressed: returns 0.
 * Context: process, @ring->lock held.
 * Return: chains available now (0..num), or -errno as
 * vrfd_ring_avail_pending().
 */
int vrfd_ring_enable_notify(struct vrfd_ring *ring);

/**
 * vrfd_ring_add_used() - put a completed chain into the used ring
 * @ring: the ring
 * @head: head index of a chain taken with vrfd_ring_get_chain()
 * @len: bytes written into the chain's writable segments
 *
 * Writes the used element at the kernel-private used index and advances
 * it; user space sees it at the next vrfd_ring_publish_used().  In atomic
 * mode goes through the pinned mapping.
 * Context: process, @ring->lock held.
 * Return: 0, -EINVAL (@head >= num, or nothing in flight), -EIO, -EFAULT
 * (used ring not writable: now broken).
 */
int vrfd_ring_add_used(struct vrfd_ring *ring, u16 head, u32 len);

/**
 * vrfd_ring_publish_used() - make added used entries visible, and notify
 * @ring: the ring
 *
 * Writes used->idx (after a write barrier), with EVENT_IDX also
 * avail_event; then applies virtio's notification rule (EVENT_IDX:
 * used_event crossed; else unless VRING_AVAIL_F_NO_INTERRUPT): sets
 * VRINGFD_STATE_NOTIFY, signals the call eventfd (stats.notifies), and
 * wakes poll() waiters.  Nothing to publish: returns 0 at once.
 * Context: process, @ring->lock held.
 * Return: 0, -EIO, -EFAULT (now broken).
 */
int vrfd_ring_publish_used(struct vrfd_ring *ring);

/**
 * vrfd_ring_add_used_atomic() - add and publish one used entry, any context
 * @ring: a ring attached with @atomic_use
 * @head: head index of a chain taken with vrfd_ring_get_chain()
 * @len: bytes written
 *
 * Writes through the pinned, vmap'ed used ring under @used_lock and
 * publishes at once; notifies without reading used_event (user memory is
 * not readable here): a spurious notification is allowed by virtio.
 * Context: any (hard irq included).
 * Return: 0, -EINVAL (not atomic, bad @head, nothing in flight), -EIO.
 */
int vrfd_ring_add_used_atomic(struct vrfd_ring *ring, u16 head, u32 len);

/**
 * vrfd_ring_wake() - wake poll() waiters of @ring
 * @ring: the ring
 *
 * Context: any.
 */
void vrfd_ring_wake(struct vrfd_ring *ring);

/**
 * vrfd_ring_set_hup() - the attached subsystem's device went away
 * @ring: the ring
 *
 * Sets VRINGFD_STATE_HUP and wakes waiters; poll() then reports
 * EPOLLHUP.  Context: any.
 */
void vrfd_ring_set_hup(struct vrfd_ring *ring);

/**
 * vrfd_ring_walked() - walk work done on @ring so far, in units
 * @ring: the ring
 *
 * One unit per chain taken or dropped, per descriptor read (indirect
 * entries included) and per segment stored.  The counter only grows (and
 * wraps): a batch takes it at its start and passes the difference to
 * vrfd_over_weight(), so that skipped chains, long chains and chains split
 * into many segments all count.
 * Return: the counter.
 */
static inline u32 vrfd_ring_walked(const struct vrfd_ring *ring)
{
	return READ_ONCE(ring->walked);
}

/**
 * vrfd_ring_part_sizes() - the sizes of the ring's parts
 * @ring: the ring
 * @sizes: filled with the bytes of the descriptor table, the avail ring,
 *	the used ring (event fields included with EVENT_IDX) and last_used
 */
void vrfd_ring_part_sizes(const struct vrfd_ring *ring, size_t sizes[4]);

/**
 * vrfd_ring_set_memfiles() - make @ring a ring of memory, or replace its files
 * @ring: the ring
 * @mf: the new table (its ring parts mapped)
 * @old: the table replaced, or NULL (out): the caller frees it after
 *	dropping @lock
 *
 * Context: process, @ring->lock and @ring->attach_sem (read) held.
 * Return: 0, -EINVAL (the ring has a VRINGFD_SET_MEM_TABLE table), -EBUSY
 * (attached in atomic mode, or to a subsystem without
 * vrfd_ops.mem_files).
 */
int vrfd_ring_set_memfiles(struct vrfd_ring *ring, struct vrfd_memfiles *mf,
			   struct vrfd_memfiles **old);

/**
 * vrfd_ring_start_of_memory() - a new ring becomes a ring of memory before
 * anyone can use it (VRINGFD_CREATE_F_MEM_FILES)
 * @ring: the ring, from vrfd_ring_new() with no addresses, not published
 * @mf: its table (its ring parts mapped); the ring's on success
 * @base: start at @avail_base (VRINGFD_CREATE_F_AVAIL_BASE), else at the
 *	avail->idx found in the table's memory
 * @avail_base: the first avail entry the kernel reads, with @base
 *
 * The indices are read through the table's kernel mapping of the ring
 * parts, as VRINGFD_CREATE reads them through the caller's addresses.
 * Return: 0, or -EINVAL (avail->idx more than num ahead of @avail_base;
 * @mf is still the caller's).
 */
int vrfd_ring_start_of_memory(struct vrfd_ring *ring, struct vrfd_memfiles *mf,
			      bool base, u16 avail_base);

/**
 * vrfd_ring_read_used_state() - read used->idx and last_used (poll())
 * @ring: the ring
 * @used: used->idx (out)
 * @last_used: *last_used (out)
 *
 * Context: process, in the ring's mm unless @ring->kmem (then takes
 * @ring->lock, killably).
 * Return: 0, -EFAULT, or -EINTR (a fatal signal while waiting for @lock).
 */
int vrfd_ring_read_used_state(struct vrfd_ring *ring, u16 *used, u16 *last_used);

/**
 * vrfd_ring_iter() - an iterator over a chain's segments
 * @ring: the ring the segments come from
 * @it: the iterator to set up
 * @dir: ITER_SOURCE or ITER_DEST
 * @iov: segments as vrfd_ring_get_chain() gave them
 * @niov: number of segments
 * @len: bytes
 *
 * User segments (ITER_IOVEC), or kernel segments of a ring of memory
 * (ITER_KVEC: struct kvec has struct iovec's layout).  Inline: it is on
 * every frame's path (an out-of-line call cost 10 instructions a frame).
 * Context: @ring->lock held (@ring->kmem stable).
 */
static inline void vrfd_ring_iter(const struct vrfd_ring *ring,
				  struct iov_iter *it, unsigned int dir,
				  const struct iovec *iov, unsigned long niov,
				  size_t len)
{
	BUILD_BUG_ON(sizeof(struct kvec) != sizeof(struct iovec) ||
		     offsetof(struct kvec, iov_len) != offsetof(struct iovec, iov_len));
	if (unlikely(READ_ONCE(ring->kmem)))
		iov_iter_kvec(it, dir, (const struct kvec *)iov, niov, len);
	else
		iov_iter_init(it, dir, iov, niov, len);
}

/**
 * vrfd_ring_iov_copy() - copy between a kernel buffer and a chain's segments
 * @ring: the ring the segments come from
 * @iov: segments (as vrfd_ring_get_chain() gives them)
 * @niov: number of segments
 * @off: byte offset into the segments
 * @buf: kernel buffer
 * @len: bytes
 * @to_user: direction
 *
 * Context: process, in the ring's mm unless @ring->kmem.
 * Return: 0, or -EFAULT (fault, or the segments end before @off + @len).
 */
int vrfd_ring_iov_copy(const struct vrfd_ring *ring, const struct iovec *iov,
		       unsigned int niov, size_t off, void *buf, size_t len, bool to_user);

/**
 * vrfd_ring_count_call() - count a call that ran a callback (stats.calls,
 * stats.batches)
 * @ring: the ring
 * @ret: the callback's answer (> 0: a batch)
 *
 * Context: any; no lock needed (two tasks may call on one ring at once).
 */
void vrfd_ring_count_call(struct vrfd_ring *ring, long ret);

/**
 * vrfd_ring_get_stats() - the ring's counters, for VRINGFD_GET_STATS
 * @ring: the ring
 * @st: filled in (reserved fields zero)
 *
 * Context: any; the counters are read without a lock, each one whole.
 */
void vrfd_ring_get_stats(struct vrfd_ring *ring, struct vringfd_stats *st);

/**
 * vrfd_ring_call_op() - run the attached subsystem's push or pull
 * @ring: the ring
 * @push: push (write()) rather than pull (read())
 *
 * Counts the call (stats.calls, stats.batches).  Waits killably for a
 * DETACH or attach in progress (which waits for a callback that may be
 * stuck on ring memory).
 * Return: the callback's count, or -errno: -EINVAL (nothing attached or no
 * such callback), -EIO (broken; also for a protocol violation seen now),
 * -EPERM (another mm), -EFAULT, -EINTR (a fatal signal while waiting).
 */
ssize_t vrfd_ring_call_op(struct vrfd_ring *ring, bool push);

#endif /* VRFD_RING_H */
