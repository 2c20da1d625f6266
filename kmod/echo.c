// SPDX-License-Identifier: GPL-2.0
/*
 * echo.c - vringfd_echo.ko: a test client of vringfd.ko's exported API.
 *
 * Each open of /dev/vringfd_echo can attach a pair of vring fds {from, to}
 * (VRINGFD_ECHO_ATTACH) and then copies every buffer made available on
 * "from" into the next buffer made available on "to".  Some completions are
 * made from atomic context with vrfd_used_buffer_atomic(): under a spinlock
 * with bottom halves disabled, or from an irq_work (hard irq).  It uses only
 * vringfd_api.h, the way a real subsystem would.
 */
#define pr_fmt(fmt) "vringfd_echo: " fmt

#include <linux/err.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/miscdevice.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/vringfd_echo.h>
#include "compat.h"
#include "vringfd_api.h"

#define ECHO_IOV	128		/* segments per chain */
#define ECHO_QLEN	64		/* completions waiting for the irq_work */
#define ECHO_MAX_COPY	(1U << 20)	/* bytes copied per chain at most */

enum { ECHO_FROM, ECHO_TO };

struct vrfd_echo;

/**
 * struct echo_side - callback argument for one of the two rings
 * @e: the echo instance
 * @idx: ECHO_FROM or ECHO_TO
 */
struct echo_side {
	struct vrfd_echo *e;
	int idx;
};

/**
 * struct echo_done - a completion deferred to the irq_work
 * @ring: the ring
 * @id: buffer id
 * @len: length
 */
struct echo_done {
	struct vrfd_ring *ring;
	int id;
	u32 len;
};

/**
 * struct vrfd_echo - one open /dev/vringfd_echo
 * @lock: serialises the pump, attach and teardown
 * @ring: the two attachments (NULL when not attached or gone)
 * @side: callback arguments
 * @busy: VRINGFD_ECHO_ATTACH was issued
 * @dying: a ring went away or the fd is closing: no more pumping
 * @atomic_every: complete every Nth buffer atomically (0: never)
 * @flags: VRINGFD_ECHO_F_*
 * @ncomplete: completions so far (for @atomic_every)
 * @pend_id: id of a "from" chain taken and not yet echoed (0: none)
 * @pend_nout: its segments in @fout
 * @fout: segments of the pending "from" chain
 * @tin: segments of the "to" chain being filled
 * @scratch: segments of the unwanted direction
 * @bounce: one page to copy through
 * @bhlock: taken with bottom halves off around atomic completions
 * @alock: protects @q, @qn, @stats.atomic_done, @stats.irq_done (irq-safe)
 * @q: completions for @iw
 * @qn: entries in @q
 * @iw: irq_work making the deferred completions
 * @stats: counters (VRINGFD_ECHO_GET_STATS)
 */
struct vrfd_echo {
	struct mutex lock;
	struct vrfd_ring *ring[2];
	struct echo_side side[2];
	bool busy;
	bool dying;
	u32 atomic_every;
	u32 flags;
	u64 ncomplete;
	int pend_id;
	unsigned int pend_nout;
	struct iovec fout[ECHO_IOV];
	struct iovec tin[ECHO_IOV];
	struct iovec scratch[ECHO_IOV];
	void *bounce;
	spinlock_t bhlock;
	spinlock_t alock;
	struct echo_done q[ECHO_QLEN];
	unsigned int qn;
	struct irq_work iw;
	struct vringfd_echo_stats stats;
};

/**
 * echo_irq_work() - make the deferred completions (hard irq context)
 * @w: the irq_work of an echo instance
 */
static void echo_irq_work(struct irq_work *w)
{
	struct vrfd_echo *e = container_of(w, struct vrfd_echo, iw);
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&e->alock, flags);
	for (i = 0; i < e->qn; i++) {
		if (vrfd_used_buffer_atomic(e->q[i].ring, e->q[i].id,
					    e->q[i].len))
			continue;
		e->stats.atomic_done++;
		if (in_hardirq())
			e->stats.irq_done++;
	}
	e->qn = 0;
	spin_unlock_irqrestore(&e->alock, flags);
}

/**
 * echo_complete() - complete a buffer, atomically every Nth time
 * @e: the echo instance (@e->lock held)
 * @ring: the ring
 * @id: buffer id from vrfd_get_buffer()
 * @len: bytes written
 *
 * Return: 0 or -errno from vringfd.ko.
 */
static int echo_complete(struct vrfd_echo *e, struct vrfd_ring *ring, int id,
			 u32 len)
{
	unsigned long flags;
	bool queued = false;
	int err;

	if (!e->atomic_every || ++e->ncomplete % e->atomic_every)
		return vrfd_used_buffer(ring, id, len);
	if (e->flags & VRINGFD_ECHO_F_IRQ_WORK) {
		spin_lock_irqsave(&e->alock, flags);
		if (e->qn < ECHO_QLEN) {
			e->q[e->qn].ring = ring;
			e->q[e->qn].id = id;
			e->q[e->qn].len = len;
			e->qn++;
			queued = true;
		}
		spin_unlock_irqrestore(&e->alock, flags);
		if (queued) {
			irq_work_queue(&e->iw);
			return 0;
		}
	}
	spin_lock_bh(&e->bhlock);
	err = vrfd_used_buffer_atomic(ring, id, len);
	spin_unlock_bh(&e->bhlock);
	if (!err) {
		spin_lock_irqsave(&e->alock, flags);
		e->stats.atomic_done++;
		spin_unlock_irqrestore(&e->alock, flags);
	}
	return err;
}

/**
 * echo_copy() - copy the pending "from" chain into the "to" segments
 * @e: the echo instance
 * @nin: segments in @e->tin
 * @fault: set when user memory could not be read or written
 *
 * Return: bytes copied (at most ECHO_MAX_COPY).
 */
static u32 echo_copy(struct vrfd_echo *e, unsigned int nin, bool *fault)
{
	unsigned int si = 0, di = 0;
	size_t soff = 0, doff = 0, n;
	u32 total = 0;

	*fault = false;
	while (si < e->pend_nout && di < nin && total < ECHO_MAX_COPY) {
		n = min3(e->fout[si].iov_len - soff, e->tin[di].iov_len - doff,
			 (size_t)PAGE_SIZE);
		n = min_t(size_t, n, ECHO_MAX_COPY - total);
		if (copy_from_user(e->bounce, e->fout[si].iov_base + soff, n) ||
		    copy_to_user(e->tin[di].iov_base + doff, e->bounce, n)) {
			*fault = true;
			break;
		}
		total += n;
		soff += n;
		doff += n;
		if (soff == e->fout[si].iov_len) {
			si++;
			soff = 0;
		}
		if (doff == e->tin[di].iov_len) {
			di++;
			doff = 0;
		}
		cond_resched();
	}
	return total;
}

/**
 * echo_pump() - move what can be moved from "from" to "to"
 * @e: the echo instance
 *
 * Bounded by vrfd_over_weight(); stops on a pending signal.  @e->lock is
 * held across user memory access, so it is taken killably (here and by
 * the ioctls): another pump may be stuck on a ring page.
 * Return: buffers handled, or -errno when none was: -EPIPE (a ring went
 * away), -EINTR (signal), or the error of vrfd_get_buffer() /
 * vrfd_used_buffer().
 */
static int echo_pump(struct vrfd_echo *e)
{
	struct vrfd_ring *from, *to;
	unsigned int nin, nout, done = 0;
	unsigned long olen;
	size_t bytes = 0;
	bool fault;
	int r, ret = 0;
	u32 len, w0[2];

	if (mutex_lock_killable(&e->lock))
		return -EINTR;
	from = e->ring[ECHO_FROM];
	to = e->ring[ECHO_TO];
	if (READ_ONCE(e->dying) || !from || !to) {
		ret = -EPIPE;
		goto out;
	}
	w0[ECHO_FROM] = vrfd_walked(from);
	w0[ECHO_TO] = vrfd_walked(to);
	while (!vrfd_over_weight(done, (vrfd_walked(from) - w0[ECHO_FROM]) +
				 (vrfd_walked(to) - w0[ECHO_TO]), bytes)) {
		if (signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		cond_resched();
		if (!e->pend_id) {
			nin = ECHO_IOV;
			nout = ECHO_IOV;
			r = vrfd_get_buffer(from, e->scratch, &nin, NULL,
					    e->fout, &nout, &olen);
			if (r == -EAGAIN)
				continue;	/* bad chains dropped: more */
			if (r <= 0) {
				ret = r;
				break;
			}
			if (nin) {
				e->stats.dropped++;
				done++;
				ret = echo_complete(e, from, r, 0);
				if (ret)
					break;
				continue;
			}
			e->pend_id = r;
			e->pend_nout = nout;
		}
		nin = ECHO_IOV;
		nout = ECHO_IOV;
		r = vrfd_get_buffer(to, e->tin, &nin, NULL, e->scratch, &nout,
				    NULL);
		if (r == -EAGAIN)
			continue;
		if (r <= 0) {
			ret = r;
			break;
		}
		if (nout) {
			e->stats.dropped++;
			done++;
			ret = echo_complete(e, to, r, 0);
			if (ret)
				break;
			continue;
		}
		len = echo_copy(e, nin, &fault);
		if (fault)
			e->stats.dropped++;
		ret = echo_complete(e, to, r, len);
		if (!ret)
			ret = echo_complete(e, from, e->pend_id, 0);
		e->pend_id = 0;
		if (ret)
			break;
		e->stats.echoed++;
		e->stats.bytes += len;
		bytes += len;
		done++;
	}
out:
	mutex_unlock(&e->lock);
	return done ? done : ret;
}

/**
 * echo_push() - write() on either ring
 * @data: struct echo_side
 *
 * Return: as echo_pump().
 */
static int echo_push(void *data)
{
	struct echo_side *s = data;

	return echo_pump(s->e);
}

/**
 * echo_pull() - poll()/read() on either ring
 * @data: struct echo_side
 *
 * Return: as echo_pump().
 */
static int echo_pull(void *data)
{
	struct echo_side *s = data;

	return echo_pump(s->e);
}

/**
 * echo_stop() - no more pumping; flush the deferred completions
 * @e: the echo instance
 *
 * Called from the echo's release, which cannot fail: waits for a running
 * pump uninterruptibly.  A pump stuck on ring memory ends when its own
 * task gets a signal or the fault is resolved; a pump that starts after
 * this stops at once (@dying).  (A ring's ->destroy waits killably: see
 * echo_destroy().)
 */
static void echo_stop(struct vrfd_echo *e)
{
	mutex_lock(&e->lock);
	WRITE_ONCE(e->dying, true);
	mutex_unlock(&e->lock);
	irq_work_sync(&e->iw);
}

/**
 * echo_drop_side() - detach one ring if still attached
 * @e: the echo instance
 * @idx: ECHO_FROM or ECHO_TO
 */
static void echo_drop_side(struct vrfd_echo *e, int idx)
{
	struct vrfd_ring *h;

	mutex_lock(&e->lock);
	h = e->ring[idx];
	e->ring[idx] = NULL;
	mutex_unlock(&e->lock);
	if (h)
		vrfd_detach(h);
}

/**
 * echo_destroy() - a ring's fd was closed (or VRINGFD_DETACH on it)
 * @data: struct echo_side
 *
 * Waits for a running pump killably: a pump holds @e->lock across ring
 * memory access and may be stuck there (a userfaultfd page) for as long
 * as user space wants, and a DETACH or close() must stay killable.
 * Killed, it leaves the ring attached: the ring is ended (every call on
 * it fails, the pump stops: @dying), and the echo's release detaches it,
 * as it does every ring still attached.
 */
static void echo_destroy(void *data)
{
	struct echo_side *s = data;
	struct vrfd_echo *e = s->e;
	struct vrfd_ring *h;

	WRITE_ONCE(e->dying, true);
	if (mutex_lock_killable(&e->lock))
		return;
	h = e->ring[s->idx];
	e->ring[s->idx] = NULL;
	mutex_unlock(&e->lock);
	irq_work_sync(&e->iw);
	if (h)
		vrfd_detach(h);
}

static const struct vrfd_ops echo_ops = {
	.owner		= THIS_MODULE,
	.destroy	= echo_destroy,
	.pull		= echo_pull,
	.push		= echo_push,
};

/**
 * echo_attach() - VRINGFD_ECHO_ATTACH
 * @e: the echo instance
 * @uarg: user pointer to struct vringfd_echo_attach
 *
 * Return: 0 or -errno (see the uapi header).
 */
static long echo_attach(struct vrfd_echo *e, void __user *uarg)
{
	struct vringfd_echo_attach a;
	struct vrfd_ring *h0, *h1;
	bool atomic;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if ((a.flags & ~VRINGFD_ECHO_F_IRQ_WORK) || a.reserved[0] ||
	    a.reserved[1] || a.from_fd == a.to_fd)
		return -EINVAL;
	if (mutex_lock_killable(&e->lock))
		return -EINTR;
	if (e->busy) {
		mutex_unlock(&e->lock);
		return -EBUSY;
	}
	e->busy = true;
	e->atomic_every = a.atomic_every;
	e->flags = a.flags;
	mutex_unlock(&e->lock);

	atomic = a.atomic_every != 0;
	h0 = vrfd_attach(a.from_fd, &echo_ops, &e->side[ECHO_FROM], atomic);
	if (IS_ERR(h0))
		goto err_from;
	h1 = vrfd_attach(a.to_fd, &echo_ops, &e->side[ECHO_TO], atomic);
	if (IS_ERR(h1))
		goto err_to;
	mutex_lock(&e->lock);
	e->ring[ECHO_FROM] = h0;
	e->ring[ECHO_TO] = h1;
	mutex_unlock(&e->lock);
	return 0;

err_to:
	vrfd_detach(h0);
	h0 = h1;
err_from:
	mutex_lock(&e->lock);
	e->busy = false;
	mutex_unlock(&e->lock);
	return PTR_ERR(h0);
}

/**
 * echo_misuse() - VRINGFD_ECHO_MISUSE: call the API wrongly, report answers
 * @e: the echo instance
 * @uarg: user pointer to struct vringfd_echo_misuse
 *
 * Return: 0, -ENOTCONN, -EFAULT.
 */
static long echo_misuse(struct vrfd_echo *e, void __user *uarg)
{
	struct vringfd_echo_misuse m;
	struct vrfd_ring *from;

	memset(&m, 0, sizeof(m));
	if (mutex_lock_killable(&e->lock))
		return -EINTR;
	from = e->ring[ECHO_FROM];
	if (!from || READ_ONCE(e->dying)) {
		mutex_unlock(&e->lock);
		return -ENOTCONN;
	}
	m.id_zero = vrfd_used_buffer(from, 0, 0);
	m.id_too_big = vrfd_used_buffer(from, 32769, 0);
	/* a head that is not in flight, while another one may be */
	m.not_in_flight = vrfd_used_buffer(from, e->pend_id == 1 ? 2 : 1, 0);
	if (!e->atomic_every)
		m.atomic_not_attached_atomic = vrfd_used_buffer_atomic(from, 1, 0);
	mutex_unlock(&e->lock);
	return copy_to_user(uarg, &m, sizeof(m)) ? -EFAULT : 0;
}

/**
 * echo_ioctl() - ioctls on /dev/vringfd_echo
 * @file: the open echo device
 * @cmd: VRINGFD_ECHO_*
 * @arg: user pointer
 *
 * Return: 0 or -errno; -ENOTTY for unknown @cmd.
 */
static long echo_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct vrfd_echo *e = file->private_data;
	struct vringfd_echo_stats st;
	unsigned long flags;

	switch (cmd) {
	case VRINGFD_ECHO_ATTACH:
		return echo_attach(e, (void __user *)arg);
	case VRINGFD_ECHO_MISUSE:
		return echo_misuse(e, (void __user *)arg);
	case VRINGFD_ECHO_GET_STATS:
		if (mutex_lock_killable(&e->lock))
			return -EINTR;
		spin_lock_irqsave(&e->alock, flags);
		st = e->stats;
		spin_unlock_irqrestore(&e->alock, flags);
		mutex_unlock(&e->lock);
		return copy_to_user((void __user *)arg, &st, sizeof(st)) ?
		       -EFAULT : 0;
	default:
		return -ENOTTY;
	}
}

/**
 * echo_open() - a new echo instance
 * @inode: unused
 * @file: the open device
 *
 * Return: 0 or -ENOMEM.
 */
static int echo_open(struct inode *inode, struct file *file)
{
	struct vrfd_echo *e;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->bounce = (void *)__get_free_page(GFP_KERNEL);
	if (!e->bounce) {
		kfree(e);
		return -ENOMEM;
	}
	mutex_init(&e->lock);
	spin_lock_init(&e->bhlock);
	spin_lock_init(&e->alock);
	init_irq_work(&e->iw, echo_irq_work);
	e->side[ECHO_FROM].e = e;
	e->side[ECHO_FROM].idx = ECHO_FROM;
	e->side[ECHO_TO].e = e;
	e->side[ECHO_TO].idx = ECHO_TO;
	file->private_data = e;
	return 0;
}

/**
 * echo_release() - detach both rings and free the instance
 * @inode: unused
 * @file: the open device
 *
 * Return: 0.
 */
static int echo_release(struct inode *inode, struct file *file)
{
	struct vrfd_echo *e = file->private_data;

	echo_stop(e);
	echo_drop_side(e, ECHO_FROM);
	echo_drop_side(e, ECHO_TO);
	free_page((unsigned long)e->bounce);
	kfree(e);
	return 0;
}

static const struct file_operations echo_fops = {
	.owner		= THIS_MODULE,
	.open		= echo_open,
	.release	= echo_release,
	.unlocked_ioctl	= echo_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice echo_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "vringfd_echo",
	.fops	= &echo_fops,
	.mode	= 0660,
};

/**
 * echo_init() - register /dev/vringfd_echo
 *
 * Return: 0 or -errno.
 */
static int __init echo_init(void)
{
	int err;

	err = misc_register(&echo_misc);
	if (err) {
		pr_err("cannot register the misc device /dev/vringfd_echo: error %d\n",
		       err);
		goto err_misc;
	}
	return 0;

err_misc:
	return err;
}

/**
 * echo_exit() - unregister /dev/vringfd_echo
 */
static void __exit echo_exit(void)
{
	misc_deregister(&echo_misc);
}

module_init(echo_init);
module_exit(echo_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("vringfd echo: test client of the vringfd in-kernel API");
