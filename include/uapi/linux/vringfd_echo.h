/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * vringfd_echo.h - ABI of vringfd_echo.ko, the in-tree test client of
 * vringfd.ko's exported API.
 *
 * Open /dev/vringfd_echo, then VRINGFD_ECHO_ATTACH a pair of vring fds
 * {from, to}.  From then on every buffer user space makes available on
 * "from" (readable segments) is copied into the next buffer it makes
 * available on "to" (writable segments): write() on either ring, or poll()/
 * read() on either, moves what can be moved.  "from" buffers complete with
 * length 0, "to" buffers with the bytes copied (truncated to the "to"
 * buffer's size).  A chain of the wrong direction completes with length 0
 * and counts as dropped.  A chain with more segments (or descriptors) than
 * the echo's array of 128 is refused: write() and read() fail with E2BIG
 * (poll() reports POLLERR) and the chain stays available (the in-kernel
 * API consumes nothing for it) until user space recreates the ring.  Closing the echo fd detaches both rings; closing
 * one ring stops the echo (calls on the other then fail with EPIPE; while
 * the close is still in progress they may fail with EIO, the error of the
 * closing ring's handle).
 */
#ifndef _UAPI_LINUX_VRINGFD_ECHO_H
#define _UAPI_LINUX_VRINGFD_ECHO_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define VRINGFD_ECHO_IOCTL_MAGIC	0xBA

/* Flags for struct vringfd_echo_attach.flags. */
#define VRINGFD_ECHO_F_IRQ_WORK	(1U << 0)	/* atomic completions from hard irq */

/**
 * struct vringfd_echo_attach - the pair of rings to echo between
 * @from_fd: vring fd whose buffers are read
 * @to_fd: vring fd whose buffers are filled
 * @atomic_every: 0: complete every buffer with vrfd_used_buffer(); N > 0:
 *	attach both rings with atomic_use and complete every Nth buffer with
 *	vrfd_used_buffer_atomic() under a spinlock with bottom halves off (or,
 *	with VRINGFD_ECHO_F_IRQ_WORK, from an irq_work in hard irq context)
 * @flags: VRINGFD_ECHO_F_*
 * @reserved: zero
 */
struct vringfd_echo_attach {
	__s32 from_fd;
	__s32 to_fd;
	__u32 atomic_every;
	__u32 flags;
	__u64 reserved[2];
};

/**
 * VRINGFD_ECHO_ATTACH - struct vringfd_echo_attach (in)
 *
 * Errors: EBUSY (this echo fd is already attached, or a ring is already
 * attached to something), EBADF (an fd is not a vring fd), EINVAL (same fd
 * twice, unknown flag, non-zero reserved), EIO (a ring is broken), EPERM
 * (atomic use of a ring made by another process), EOPNOTSUPP (a ring of
 * memory, VRINGFD_SET_MEM_FILES: echo copies with copy_*_user()),
 * EFAULT, ENOMEM.
 */
#define VRINGFD_ECHO_ATTACH	_IOW(VRINGFD_ECHO_IOCTL_MAGIC, 0x01, struct vringfd_echo_attach)

/**
 * struct vringfd_echo_stats - counters of one echo fd
 * @echoed: buffers copied from "from" to "to"
 * @bytes: bytes copied
 * @atomic_done: completions made with vrfd_used_buffer_atomic()
 * @irq_done: of those, completions made in hard irq context
 * @dropped: chains of the wrong direction, or whose data could not be copied
 * @reserved: zero
 */
struct vringfd_echo_stats {
	__u64 echoed;
	__u64 bytes;
	__u64 atomic_done;
	__u64 irq_done;
	__u64 dropped;
	__u64 reserved[3];
};

/** VRINGFD_ECHO_GET_STATS - struct vringfd_echo_stats (out) */
#define VRINGFD_ECHO_GET_STATS	_IOR(VRINGFD_ECHO_IOCTL_MAGIC, 0x02, struct vringfd_echo_stats)

/**
 * struct vringfd_echo_misuse - answers of vringfd.ko to API misuse
 * @id_zero: vrfd_used_buffer(from, 0, 0)
 * @id_too_big: vrfd_used_buffer(from, num + 1, 0)
 * @not_in_flight: vrfd_used_buffer(from, id, 0) with an id that was not
 *	handed out: 1, or 2 when the chain with id 1 is in flight (taken from
 *	"from" and waiting for a "to" buffer)
 * @atomic_not_attached_atomic: vrfd_used_buffer_atomic(from, 1, 0) on a
 *	ring attached without atomic_use (0 when attached with it: not tried)
 * @reserved: zero
 *
 * Each is the return value (0 or -errno) of the call.
 */
struct vringfd_echo_misuse {
	__s32 id_zero;
	__s32 id_too_big;
	__s32 not_in_flight;
	__s32 atomic_not_attached_atomic;
	__u32 reserved[4];
};

/**
 * VRINGFD_ECHO_MISUSE - struct vringfd_echo_misuse (out)
 *
 * Test hook: makes the calls above on the attached "from" ring (with or
 * without a chain of it in flight).  Errors: ENOTCONN (not attached),
 * EFAULT.
 */
#define VRINGFD_ECHO_MISUSE	_IOR(VRINGFD_ECHO_IOCTL_MAGIC, 0x03, struct vringfd_echo_misuse)

#endif /* _UAPI_LINUX_VRINGFD_ECHO_H */
