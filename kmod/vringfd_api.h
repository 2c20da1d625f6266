/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vringfd_api.h - the in-kernel API of vringfd.ko for other modules
 *
 * A kernel subsystem attaches to a vring fd that user space created and
 * passed to it, then walks the ring with vrfd_get_buffer() and completes
 * buffers with vrfd_used_buffer() (process context) or
 * vrfd_used_buffer_atomic() (any context, when attached with @atomic_use).
 *
 * Lifetime: every successful vrfd_attach() is balanced by exactly one
 * vrfd_detach(), also after ->destroy has been called.  ->destroy is called
 * when the vring fd is closed (or VRINGFD_DETACH is issued on it): from then
 * on no callback is invoked any more and every call on the handle fails with
 * -EIO, but the handle stays valid memory until vrfd_detach().  vrfd_detach()
 * may be called from ->destroy.  After vrfd_detach() returns no callback is
 * running or will run.
 *
 * Callbacks run in process context of the task that called write(), read()
 * or poll() on the vring fd, with the attachment pinned (they may sleep and
 * may call any function below on any ring, but must not call vrfd_attach()
 * or vrfd_detach() on the ring they are called for, except ->destroy which
 * may call vrfd_detach()).
 */
#ifndef VRFD_API_H
#define VRFD_API_H

#include <linux/types.h>
#include <linux/poll.h>

struct vrfd_ring;
struct iovec;
struct file;
struct module;

/**
 * struct vrfd_ops - callbacks of an attached subsystem (all optional)
 * @destroy: the vring fd is going away (closed, or VRINGFD_DETACH); called
 *	once, in process context, with no ring lock held
 * @pull: called by poll() and read(): fill posted buffers; return the number
 *	of buffers used, or -errno
 * @push: called by write(): consume available buffers; return the number
 *	consumed (0: none), or -errno
 * @poll: called by poll() after @pull: poll_wait() on the subsystem's own
 *	wait queues and return extra events (EPOLLERR|EPOLLHUP when the
 *	subsystem's device went away)
 * @owner: THIS_MODULE of the subsystem, or NULL (built into vringfd.ko):
 *	held from attach to detach so the callbacks' code cannot go away
 * @mem_files: the subsystem serves rings of memory (VRINGFD_SET_MEM_FILES,
 *	VRINGFD_CREATE_F_MEM_FILES)
 *	through vringfd.ko's own walks and copies (tap.c); false for a
 *	subsystem that takes buffers with vrfd_get_buffer() (user addresses,
 *	copy_*_user()), which a ring of memory cannot give: vrfd_attach()
 *	then refuses a ring of memory (-EOPNOTSUPP) and VRINGFD_SET_MEM_FILES
 *	refuses a ring attached to it (-EBUSY)
 */
struct vrfd_ops {
	struct module *owner;
	void (*destroy)(void *data);
	int (*pull)(void *data);
	int (*push)(void *data);
	__poll_t (*poll)(void *data, struct file *file, poll_table *wait);
	bool mem_files;
};

struct vrfd_ring *vrfd_attach(int fd, const struct vrfd_ops *ops, void *data,
			      bool atomic_use);
void vrfd_detach(struct vrfd_ring *ring);
int vrfd_get_buffer(struct vrfd_ring *ring,
		    struct iovec *in_iov, unsigned int *num_in,
		    unsigned long *in_len,
		    struct iovec *out_iov, unsigned int *num_out,
		    unsigned long *out_len);
int vrfd_used_buffer(struct vrfd_ring *ring, int id, u32 len);
int vrfd_used_buffer_atomic(struct vrfd_ring *ring, int id, u32 len);
void vrfd_wake(struct vrfd_ring *ring);
u32 vrfd_walked(const struct vrfd_ring *ring);

/*
 * Work limits per write()/read()/poll() call (vhost-net's weights, plus
 * walk work): chains handled (skipped ones included), walk units (one per
 * chain taken or dropped, per descriptor read, per segment stored: see
 * vrfd_walked()), bytes moved.
 */
#define VRFD_WEIGHT_CHAINS	256
#define VRFD_WEIGHT_WALK	4096
#define VRFD_WEIGHT_BYTES	0x80000

/**
 * vrfd_over_weight() - has one call done enough work?
 * @chains: chains handled in this call, skipped ones included
 * @walked: walk units spent in this call (a difference of vrfd_walked())
 * @bytes: bytes moved in this call
 *
 * A subsystem's batch loop stops when this says so, so that one
 * write()/read()/poll() does bounded work whatever the ring holds; it
 * also stops on signal_pending() and calls cond_resched() between chains.
 * Return: true when a limit is reached.
 */
static inline bool vrfd_over_weight(unsigned int chains, u32 walked, size_t bytes)
{
	return chains >= VRFD_WEIGHT_CHAINS || walked >= VRFD_WEIGHT_WALK ||
	       bytes >= VRFD_WEIGHT_BYTES;
}

#endif /* VRFD_API_H */
