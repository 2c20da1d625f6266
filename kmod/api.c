// SPDX-License-Identifier: GPL-2.0
/*
 * api.c - the exported in-kernel API (vringfd_api.h): attach a kernel
 * subsystem to a vring fd user space gave it, walk and complete buffers.
 */
#define pr_fmt(fmt) "vringfd: " fmt

#include <linux/err.h>
#include <linux/file.h>
#include <linux/module.h>
#include <linux/uio.h>
#include "fd.h"
#include "ring.h"
#include "vringfd_api.h"

/**
 * vrfd_attach() - attach a subsystem to the vring fd @fd of current
 * @fd: file descriptor of a vring fd in the calling task
 * @ops: callbacks (must outlive the attachment)
 * @data: passed to @ops
 * @atomic_use: the subsystem will call vrfd_used_buffer_atomic(): the whole
 *	used ring is pinned and mapped now (any ring size)
 *
 * Context: process, in the task that owns @fd.
 * Return: the handle, or ERR_PTR(): -EBADF (@fd not open or not a vring
 * fd), -EBUSY (already attached), -EIO (ring broken), -EPERM (@atomic_use
 * from another mm), -EFAULT (used ring cannot be pinned), -EOPNOTSUPP
 * (@atomic_use, used ring in a file mapping other than shmem or
 * hugetlbfs: not pinned long-term; a ring of memory and @atomic_use or
 * !@ops->mem_files: its buffers have no user addresses), -ENOMEM, -EINTR (a fatal signal while
 * a callback of the ring was running).
 */
struct vrfd_ring *vrfd_attach(int fd, const struct vrfd_ops *ops, void *data,
			      bool atomic_use)
{
	struct vrfd_ring *ring;
	struct file *file;
	int err;

	file = fget(fd);
	if (!file)
		return ERR_PTR(-EBADF);
	ring = vrfd_fd_ring(file);
	err = ring ? vrfd_ring_attach(ring, ops, data, atomic_use) : -EBADF;
	fput(file);
	return err ? ERR_PTR(err) : ring;
}
EXPORT_SYMBOL_GPL(vrfd_attach);

/**
 * vrfd_detach() - end an attachment made by vrfd_attach()
 * @ring: the handle
 *
 * Must be called exactly once per successful vrfd_attach(), also after
 * ->destroy (and may be called from ->destroy).  No callback runs after it
 * returns; the handle is gone.
 * Context: process; not from a push/pull/poll callback of @ring.
 */
void vrfd_detach(struct vrfd_ring *ring)
{
	vrfd_ring_detach(ring);
}
EXPORT_SYMBOL_GPL(vrfd_detach);

/**
 * vrfd_get_buffer() - take the next available buffer chain
 * @ring: the handle
 * @in_iov: filled with the writable segments (user addresses), or NULL
 * @num_in: in: entries in @in_iov; out: entries used (NULL: 0 entries)
 * @in_len: total bytes of the writable segments (out), or NULL
 * @out_iov: filled with the readable segments, or NULL
 * @num_out: in: entries in @out_iov; out: entries used (NULL: 0 entries)
 * @out_len: total bytes of the readable segments (out), or NULL
 *
 * Segment addresses are user addresses of current->mm (translated through
 * the ring's memory table if it has one) that passed access_ok(); copy with
 * copy_{from,to}_user().
 * Chains with a bad address are completed empty on the way (counted in
 * the ring's drop_bad_addr), at most 64 per call: after them the call
 * answers -EAGAIN, never 0, while chains may remain.
 * Context: process, current in the ring's mm; takes the ring's mutex
 * (killably: another walker may be stuck on ring memory).
 * Return: a positive id for vrfd_used_buffer() (head + 1), 0 when no
 * buffer is available, or -errno: -EAGAIN (bad-address chains dropped,
 * none taken: call again, counting it as work for vrfd_over_weight()),
 * -E2BIG (the chain has more segments of a
 * kind than its array holds; nothing consumed, a retry sees it again),
 * -EINVAL (bad index, loop, bad indirect table, length overflow: the ring
 * is now broken), -EOPNOTSUPP (a ring of memory, VRINGFD_SET_MEM_FILES:
 * its segments are not user addresses), -EIO (broken, or the vring fd
 * was closed), -EPERM (another mm), -EFAULT (ring memory unreadable, or
 * the used ring unwritable: now broken), -EINTR (a fatal signal while
 * waiting for the ring's mutex; nothing consumed).
 */
int vrfd_get_buffer(struct vrfd_ring *ring,
		    struct iovec *in_iov, unsigned int *num_in,
		    unsigned long *in_len,
		    struct iovec *out_iov, unsigned int *num_out,
		    unsigned long *out_len)
{
	unsigned int max_in = num_in && in_iov ? *num_in : 0;
	unsigned int max_out = num_out && out_iov ? *num_out : 0;
	struct vrfd_chain ch;
	int r;

	if (mutex_lock_killable(&ring->lock))
		return -EINTR;
	/*
	 * Kernel addresses, which a client would give to copy_*_user(): looked
	 * at under the lock, which SET_MEM_FILES holds to make the change.
	 */
	if (ring->kmem) {
		mutex_unlock(&ring->lock);
		return -EOPNOTSUPP;
	}
	r = vrfd_ring_get_chain_split(ring, out_iov, max_out, in_iov, max_in, &ch);
	mutex_unlock(&ring->lock);
	if (r != 1)
		return r;
	if (num_out)
		*num_out = ch.nout;
	if (num_in)
		*num_in = ch.nin;
	if (out_len)
		*out_len = ch.out_len;
	if (in_len)
		*in_len = ch.in_len;
	return ch.head + 1;
}
EXPORT_SYMBOL_GPL(vrfd_get_buffer);

/**
 * vrfd_used_buffer() - complete a buffer and publish it (process context)
 * @ring: the handle
 * @id: id returned by vrfd_get_buffer()
 * @len: bytes written into its writable segments
 *
 * Context: process, current in the ring's mm; takes the ring's mutex
 * (killably).
 * Return: 0, -EINVAL (@id not one handed out), -EIO, -EPERM, -EFAULT,
 * -EINTR (a fatal signal while waiting for the mutex: the buffer is still
 * in flight, given back at detach).
 */
int vrfd_used_buffer(struct vrfd_ring *ring, int id, u32 len)
{
	int err;

	if (id <= 0 || id > ring->num)
		return -EINVAL;
	if (mutex_lock_killable(&ring->lock))
		return -EINTR;
	err = vrfd_ring_add_used(ring, id - 1, len);
	if (!err)
		err = vrfd_ring_publish_used(ring);
	mutex_unlock(&ring->lock);
	return err;
}
EXPORT_SYMBOL_GPL(vrfd_used_buffer);

/**
 * vrfd_used_buffer_atomic() - complete a buffer from any context
 * @ring: a handle attached with @atomic_use
 * @id: id returned by vrfd_get_buffer()
 * @len: bytes written
 *
 * Writes through the pinned mapping of the used ring and publishes at once.
 * Context: any, hard irq included.
 * Return: 0, -EINVAL (not attached with @atomic_use, bad @id), -EIO.
 */
int vrfd_used_buffer_atomic(struct vrfd_ring *ring, int id, u32 len)
{
	if (id <= 0 || id > ring->num)
		return -EINVAL;
	return vrfd_ring_add_used_atomic(ring, id - 1, len);
}
EXPORT_SYMBOL_GPL(vrfd_used_buffer_atomic);

/**
 * vrfd_wake() - wake the vring fd's poll() waiters (data is ready)
 * @ring: the handle
 *
 * Context: any.
 */
void vrfd_wake(struct vrfd_ring *ring)
{
	vrfd_ring_wake(ring);
}
EXPORT_SYMBOL_GPL(vrfd_wake);

/**
 * vrfd_walked() - walk work done on a ring so far, in units
 * @ring: the ring
 *
 * One unit per chain taken or dropped, per descriptor read (indirect
 * entries included) and per segment stored.  The counter only grows (and
 * wraps): a subsystem takes it at the start of a batch and passes the
 * difference to vrfd_over_weight(), so that chains it skips, long chains
 * and chains split into many segments all count.
 * Return: the counter.
 */
u32 vrfd_walked(const struct vrfd_ring *ring)
{
	return vrfd_ring_walked(ring);
}
EXPORT_SYMBOL_GPL(vrfd_walked);
