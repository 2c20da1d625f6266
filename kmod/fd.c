// SPDX-License-Identifier: GPL-2.0
/*
 * fd.c - the vring fd: the file user space holds over one ring.
 *
 * VRINGFD_CREATE's checks and the file's operations: write() runs the
 * attached subsystem's push, read() its pull, poll() its pull and the seed's
 * index comparison, the ioctls (tap attach, kick mode, memory table, call fd, state,
 * stats, detach), release() ends the attachment.  The ring itself (its
 * walker, used ring and attachment life cycle) is ring.c's.
 */
#define pr_fmt(fmt) "vringfd: " fmt

#include <linux/anon_inodes.h>
#include <linux/eventfd.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "fd.h"
#include "memtable.h"
#include "memfiles.h"
#include "ring.h"
#include "tap.h"

/**
 * vrfd_fd_get_version() - VRINGFD_GET_VERSION: what this module supports
 * @uarg: user pointer to struct vringfd_version
 *
 * Return: 0 or -EFAULT.
 */
long vrfd_fd_get_version(void __user *uarg)
{
	struct vringfd_version v;

	memset(&v, 0, sizeof(v));
	v.api_version = VRINGFD_API_VERSION;
	v.max_num = VRINGFD_MAX_NUM;
	v.ring_features = VRFD_RING_FEATURES;
	v.caps = VRINGFD_CAP_TAP | VRINGFD_CAP_MEM_TABLE | VRINGFD_CAP_STATS |
		 VRINGFD_CAP_CALL_FD | VRINGFD_CAP_READ |
		 VRINGFD_CAP_AVAIL_BASE | VRINGFD_CAP_TAP_IFINDEX |
		 VRINGFD_CAP_MEM_FILES | VRINGFD_CAP_KICK | VRINGFD_CAP_CREATE_MEM_FILES;
	v.max_mem_regions = VRINGFD_MAX_MEM_REGIONS;
	return copy_to_user(uarg, &v, sizeof(v)) ? -EFAULT : 0;
}

/**
 * vrfd_fd_write() - write(): run the attached subsystem's push
 * @file: the vring fd
 * @buf: ignored
 * @count: ignored
 * @ppos: ignored
 *
 * Return: chains consumed, or -errno (see vrfd_ring_call_op()).
 */
static ssize_t vrfd_fd_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	return vrfd_ring_call_op(file->private_data, true);
}

/**
 * vrfd_fd_read() - read(): run the attached subsystem's pull
 * @file: the vring fd
 * @buf: ignored
 * @count: ignored
 * @ppos: ignored
 *
 * Return: buffers used, or -errno (see vrfd_ring_call_op()).
 */
static ssize_t vrfd_fd_read(struct file *file, char __user *buf,
			      size_t count, loff_t *ppos)
{
	return vrfd_ring_call_op(file->private_data, false);
}

/**
 * vrfd_fd_poll() - poll(): pull, then the seed's index comparison
 * @file: the vring fd
 * @wait: poll table
 *
 * The wait for a DETACH or attach in progress is killable; poll() cannot
 * fail with EINTR, so a fatal signal there answers EPOLLIN|EPOLLRDNORM: a
 * spurious readiness (the next read() or poll() does the work) rather than
 * 0, which could lose a readiness for another user of a shared epoll set,
 * or EPOLLERR, which says the ring is broken.
 * Return: EPOLLIN|EPOLLRDNORM when the pull used buffers or used->idx !=
 * *last_used; EPOLLERR when broken, released, from another mm, or on a
 * fault; EPOLLHUP when the attached device went away.
 */
static __poll_t vrfd_fd_poll(struct file *file, poll_table *wait)
{
	struct vrfd_ring *ring = file->private_data;
	__poll_t mask = 0;
	u16 used, last_used;
	int r;

	poll_wait(file, &ring->wq, wait);
	if (READ_ONCE(ring->broken) ||
	    (!READ_ONCE(ring->kmem) && current->mm != ring->mm))
		return EPOLLERR;
	if (down_read_killable(&ring->attach_sem))
		return EPOLLIN | EPOLLRDNORM;
	if (ring->ops && ring->ops->poll)
		mask |= ring->ops->poll(ring->data, file, wait);
	if (ring->ops && ring->ops->pull) {
		r = ring->ops->pull(ring->data);
		vrfd_ring_count_call(ring, r);
		if (r > 0) {
			mask |= EPOLLIN | EPOLLRDNORM;
		} else if (r < 0 && r != -EINTR) {
			mask |= EPOLLERR;
		}
	}
	up_read(&ring->attach_sem);
	if (!(mask & EPOLLIN)) {
		r = vrfd_ring_read_used_state(ring, &used, &last_used);
		if (r == -EINTR)
			return EPOLLIN | EPOLLRDNORM;
		if (r) {
			vrfd_ring_mark_broken(ring, "used->idx or last_used unreadable");
			return EPOLLERR;
		}
		if (used != last_used)
			mask |= EPOLLIN | EPOLLRDNORM;
	}
	if (READ_ONCE(ring->broken))
		mask |= EPOLLERR;
	if (READ_ONCE(ring->hup))
		mask |= EPOLLHUP;
	return mask;
}

/**
 * vrfd_fd_release() - close(): end the attachment, drop the file's ref
 * @inode: unused
 * @file: the vring fd
 *
 * Return: 0.
 */
static int vrfd_fd_release(struct inode *inode, struct file *file)
{
	struct vrfd_ring *ring = file->private_data;

	down_write(&ring->attach_sem);
	WRITE_ONCE(ring->dead, true);
	up_write(&ring->attach_sem);
	vrfd_ring_end(ring, false);
	wake_up_interruptible_poll(&ring->wq, EPOLLHUP);
	vrfd_ring_put(ring);
	return 0;
}

/**
 * vrfd_fd_set_mem_table() - VRINGFD_SET_MEM_TABLE
 * @ring: the ring
 * @uarg: user pointer to struct vringfd_mem_table
 *
 * Return: 0 or -errno (-EINTR: a fatal signal while waiting for a walker).
 */
static long vrfd_fd_set_mem_table(struct vrfd_ring *ring, void __user *uarg)
{
	struct vrfd_memtable *mt, *old;

	mt = vrfd_memtable_from_user(uarg);
	if (IS_ERR(mt))
		return PTR_ERR(mt);
	/* killable: a walk holding @lock may wait on ring memory for long */
	if (mutex_lock_killable(&ring->lock)) {
		vrfd_memtable_free(mt);
		return -EINTR;
	}
	if (ring->kmem) {
		/* a ring of memory stays one: only SET_MEM_FILES replaces */
		mutex_unlock(&ring->lock);
		vrfd_memtable_free(mt);
		return -EINVAL;
	}
	old = ring->memtable;
	ring->memtable = mt;
	mutex_unlock(&ring->lock);
	vrfd_memtable_free(old);
	return 0;
}

/**
 * vrfd_fd_set_mem_files() - VRINGFD_SET_MEM_FILES
 * @ring: the ring
 * @uarg: user pointer to struct vringfd_mem_files
 *
 * The files are checked and their pages held before any lock is taken
 * (that may take long: a fatal signal ends it); the swap is made under
 * @attach_sem (read: no attach in atomic mode meanwhile) and @lock.
 * Return: 0 or -errno (see the uapi header).
 */
static long vrfd_fd_set_mem_files(struct vrfd_ring *ring, void __user *uarg)
{
	struct vrfd_memfiles *mf, *old = NULL;
	size_t sizes[VRFD_MEMFILES_NPARTS];
	int err;

	vrfd_ring_part_sizes(ring, sizes);
	mf = vrfd_memfiles_from_user(uarg, sizes);
	if (IS_ERR(mf))
		return PTR_ERR(mf);
	err = -EINTR;
	if (down_read_killable(&ring->attach_sem))
		goto out;
	if (!mutex_lock_killable(&ring->lock)) {
		err = vrfd_ring_set_memfiles(ring, mf, &old);
		mutex_unlock(&ring->lock);
	}
	up_read(&ring->attach_sem);
out:
	/* on success the old table (or none), else the new one */
	vrfd_memfiles_free(err ? mf : old);
	return err;
}

/**
 * vrfd_fd_set_call_fd() - VRINGFD_SET_CALL_FD
 * @ring: the ring
 * @uarg: user pointer to a __s32 eventfd, or -1
 *
 * Return: 0, -EFAULT, -EBADF, -EINVAL (not an eventfd), -EINTR (a fatal
 * signal while waiting for a walker).
 */
static long vrfd_fd_set_call_fd(struct vrfd_ring *ring, void __user *uarg)
{
	struct eventfd_ctx *ctx = NULL, *old;
	s32 fd;

	if (get_user(fd, (s32 __user *)uarg))
		return -EFAULT;
	if (fd != -1) {
		ctx = eventfd_ctx_fdget(fd);
		if (IS_ERR(ctx))
			return PTR_ERR(ctx);
	}
	if (mutex_lock_killable(&ring->lock)) {
		if (ctx)
			eventfd_ctx_put(ctx);
		return -EINTR;
	}
	spin_lock_irq(&ring->used_lock);
	old = ring->call;
	ring->call = ctx;
	spin_unlock_irq(&ring->used_lock);
	mutex_unlock(&ring->lock);
	if (old)
		eventfd_ctx_put(old);
	return 0;
}

/**
 * vrfd_fd_get_state() - VRINGFD_GET_STATE (clears VRINGFD_STATE_NOTIFY)
 * @ring: the ring
 * @uarg: user pointer to struct vringfd_state
 *
 * Return: 0, -EFAULT, or -EINTR (a fatal signal while waiting for a walker).
 */
static long vrfd_fd_get_state(struct vrfd_ring *ring, void __user *uarg)
{
	struct vringfd_state st;

	memset(&st, 0, sizeof(st));
	if (mutex_lock_killable(&ring->lock))
		return -EINTR;
	spin_lock_irq(&ring->used_lock);
	st.last_avail = ring->last_avail;
	st.used_idx = ring->published_idx;
	st.num = ring->num;
	if (READ_ONCE(ring->broken))
		st.flags |= VRINGFD_STATE_BROKEN;
	if (ring->attached && !READ_ONCE(ring->ended))
		st.flags |= VRINGFD_STATE_ATTACHED;
	if (ring->notify)
		st.flags |= VRINGFD_STATE_NOTIFY;
	if (READ_ONCE(ring->hup))
		st.flags |= VRINGFD_STATE_HUP;
	if (READ_ONCE(ring->kmem))
		st.flags |= VRINGFD_STATE_MEM_FILES;
	if (READ_ONCE(ring->kick))
		st.flags |= VRINGFD_STATE_KICK;
	ring->notify = false;
	spin_unlock_irq(&ring->used_lock);
	mutex_unlock(&ring->lock);
	return copy_to_user(uarg, &st, sizeof(st)) ? -EFAULT : 0;
}

/**
 * vrfd_fd_ioctl() - ioctls on a vring fd
 * @file: the vring fd
 * @cmd: VRINGFD_*
 * @arg: user pointer
 *
 * GET_VERSION, GET_STATE, GET_STATS and DETACH work on a broken ring; the
 * others then fail with EIO.
 * Return: 0 or -errno (see the uapi header); -ENOTTY for unknown @cmd.
 */
static long vrfd_fd_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	struct vrfd_ring *ring = file->private_data;
	void __user *uarg = (void __user *)arg;
	struct vringfd_stats st;
	int r;

	switch (cmd) {
	case VRINGFD_GET_VERSION:
		return vrfd_fd_get_version(uarg);
	case VRINGFD_GET_STATE:
		return vrfd_fd_get_state(ring, uarg);
	case VRINGFD_GET_STATS:
		vrfd_ring_get_stats(ring, &st);
		return copy_to_user(uarg, &st, sizeof(st)) ? -EFAULT : 0;
	case VRINGFD_DETACH:
		r = vrfd_ring_end(ring, true);
		return r < 0 ? r : r ? 0 : -ENOENT;
	case VRINGFD_ATTACH_TAP:
	case VRINGFD_SET_MEM_TABLE:
	case VRINGFD_SET_MEM_FILES:
	case VRINGFD_SET_CALL_FD:
	case VRINGFD_SET_KICK:
		break;
	default:
		return -ENOTTY;
	}
	if (READ_ONCE(ring->broken))
		return -EIO;
	switch (cmd) {
	case VRINGFD_ATTACH_TAP:
		return vrfd_tap_attach(ring, uarg);
	case VRINGFD_SET_MEM_TABLE:
		return vrfd_fd_set_mem_table(ring, uarg);
	case VRINGFD_SET_MEM_FILES:
		return vrfd_fd_set_mem_files(ring, uarg);
	case VRINGFD_SET_KICK:
		return vrfd_tap_set_kick(ring, uarg);
	default:
		return vrfd_fd_set_call_fd(ring, uarg);
	}
}

static const struct file_operations vrfd_ring_fops = {
	.owner		= THIS_MODULE,
	.release	= vrfd_fd_release,
	.write		= vrfd_fd_write,
	.read		= vrfd_fd_read,
	.poll		= vrfd_fd_poll,
	.unlocked_ioctl	= vrfd_fd_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

/**
 * vrfd_fd_ring() - the ring behind a file, if it is a vring fd
 * @file: any file
 *
 * Return: the ring (no reference taken), or NULL when @file is not a vring fd.
 */
struct vrfd_ring *vrfd_fd_ring(struct file *file)
{
	if (!file || file->f_op != &vrfd_ring_fops)
		return NULL;
	return file->private_data;
}


/**
 * vrfd_fd_probe() - can a ring part be accessed now?
 * @uaddr: user address
 * @len: bytes, > 0
 * @write: also check that it is writable
 *
 * Checks access_ok() and reads (and writes back) the first and last byte.
 * Return: 0 or -EFAULT.
 */
static int vrfd_fd_probe(unsigned long uaddr, size_t len, bool write)
{
	u8 __user *p = (u8 __user *)uaddr;
	u8 b;

	if (!access_ok(p, len))
		return -EFAULT;
	if (get_user(b, p) || (write && put_user(b, p)))
		return -EFAULT;
	if (get_user(b, p + len - 1) || (write && put_user(b, p + len - 1)))
		return -EFAULT;
	return 0;
}

/* VRINGFD_CREATE_F_AVAIL_BASE carved avail_base out of reserved[0]. */
static_assert(sizeof(struct vringfd_create) == 64);
static_assert(offsetof(struct vringfd_create, last_used_addr) == 40);
static_assert(offsetof(struct vringfd_create, avail_base) == 48);
static_assert(offsetof(struct vringfd_create, reserved) == 56);
static_assert(offsetof(struct vringfd_create, mem_files) == 56);

/**
 * vrfd_fd_check_create() - validate a struct vringfd_create
 * @c: the request
 *
 * Return: 0, -EINVAL or -EFAULT (see VRINGFD_CREATE).
 */
static int vrfd_fd_check_create(const struct vringfd_create *c)
{
	bool event = c->features & BIT_ULL(VIRTIO_RING_F_EVENT_IDX);
	size_t ev = event ? sizeof(__virtio16) : 0;
	int err;

	if (c->flags & ~(VRINGFD_CREATE_F_AVAIL_BASE | VRINGFD_CREATE_F_MEM_FILES))
		return -EINVAL;
	if (c->padding[0] || c->padding[1] || c->padding[2])
		return -EINVAL;
	if (!(c->flags & VRINGFD_CREATE_F_AVAIL_BASE) && c->avail_base)
		return -EINVAL;
	if (c->features & ~VRFD_RING_FEATURES)
		return -EINVAL;
	if (!c->num || c->num > VRINGFD_MAX_NUM || (c->num & (c->num - 1)))
		return -EINVAL;
	/* a ring of memory: its table names the ring parts, checked there */
	if (c->flags & VRINGFD_CREATE_F_MEM_FILES)
		return c->desc_addr || c->avail_addr || c->used_addr || c->last_used_addr ?
		       -EINVAL : 0;
	if (c->mem_files)
		return -EINVAL;
	if ((c->desc_addr & 15) || (c->avail_addr & 1) || (c->used_addr & 3) ||
	    (c->last_used_addr & 1))
		return -EINVAL;
	if (c->desc_addr != (unsigned long)c->desc_addr ||
	    c->avail_addr != (unsigned long)c->avail_addr ||
	    c->used_addr != (unsigned long)c->used_addr ||
	    c->last_used_addr != (unsigned long)c->last_used_addr)
		return -EFAULT;
	err = vrfd_fd_probe(c->desc_addr, c->num * sizeof(struct vring_desc), false);
	if (!err)
		err = vrfd_fd_probe(c->avail_addr, sizeof(struct vring_avail) +
				 c->num * sizeof(__virtio16) + ev, false);
	if (!err)
		err = vrfd_fd_probe(c->used_addr, sizeof(struct vring_used) +
				 c->num * sizeof(struct vring_used_elem) + ev,
				 true);
	if (!err)
		err = vrfd_fd_probe(c->last_used_addr, sizeof(u16), false);
	return err;
}

/**
 * vrfd_fd_new_ring_of_memory() - VRINGFD_CREATE_F_MEM_FILES: a new ring
 * whose table of memory files comes with it
 * @c: the checked request
 *
 * The caller's address space is not looked at: the ring parts and the
 * indices are reached through the held pages.
 * Return: the ring (a reference), or ERR_PTR(-errno) (VRINGFD_CREATE's and
 * VRINGFD_SET_MEM_FILES's).
 */
static struct vrfd_ring *vrfd_fd_new_ring_of_memory(const struct vringfd_create *c)
{
	size_t sizes[VRFD_MEMFILES_NPARTS];
	struct vrfd_memfiles *mf;
	struct vrfd_ring *ring;
	int err;

	ring = vrfd_ring_new(c, 0, 0);
	if (IS_ERR(ring))
		return ring;
	vrfd_ring_part_sizes(ring, sizes);
	mf = vrfd_memfiles_from_user(u64_to_user_ptr(c->mem_files), sizes);
	if (IS_ERR(mf)) {
		err = PTR_ERR(mf);
		goto err_ring;
	}
	err = vrfd_ring_start_of_memory(ring, mf, c->flags & VRINGFD_CREATE_F_AVAIL_BASE,
					c->avail_base);
	if (err) {
		vrfd_memfiles_free(mf);
		goto err_ring;
	}
	return ring;

err_ring:
	vrfd_ring_put(ring);
	return ERR_PTR(err);
}

long vrfd_fd_create(const struct vringfd_create __user *uarg)
{
	struct vringfd_create c;
	struct vrfd_ring *ring;
	struct file *file;
	u16 avail_idx, used_idx;
	int fd, err;

	if (copy_from_user(&c, uarg, sizeof(c)))
		return -EFAULT;
	err = vrfd_fd_check_create(&c);
	if (err)
		return err;
	if (c.flags & VRINGFD_CREATE_F_MEM_FILES) {
		ring = vrfd_fd_new_ring_of_memory(&c);
		if (IS_ERR(ring))
			return PTR_ERR(ring);
		goto install;
	}
	if (get_user(avail_idx, (u16 __user *)(unsigned long)
		     (c.avail_addr + offsetof(struct vring_avail, idx))) ||
	    get_user(used_idx, (u16 __user *)(unsigned long)
		     (c.used_addr + offsetof(struct vring_used, idx))))
		return -EFAULT;
	if (c.flags & VRINGFD_CREATE_F_AVAIL_BASE) {
		/* The driver cannot have more than num chains outstanding. */
		if ((u16)(avail_idx - c.avail_base) > c.num)
			return -EINVAL;
		avail_idx = c.avail_base;
	}

	ring = vrfd_ring_new(&c, avail_idx, used_idx);
	if (IS_ERR(ring))
		return PTR_ERR(ring);

install:
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		err = fd;
		goto err_fd;
	}
	file = anon_inode_getfile("[vringfd]", &vrfd_ring_fops, ring, O_RDWR);
	if (IS_ERR(file)) {
		err = PTR_ERR(file);
		goto err_file;
	}
	fd_install(fd, file);
	return fd;

err_file:
	put_unused_fd(fd);
err_fd:
	vrfd_ring_put(ring);
	return err;
}
