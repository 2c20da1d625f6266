// SPDX-License-Identifier: GPL-2.0
/*
 * kick.c - kick mode (VRINGFD_SET_KICK): a ring of memory attached to a
 * tap is served by the module itself.  A kick (the front-end writes the
 * kick eventfd) runs TX; frames arriving on the tap run RX; a worker does
 * what write() (TX) or read() (RX) would do, with the same weight, and the
 * ring's usual signalling (the call eventfd, VRINGFD_SET_CALL_FD) tells
 * the front-end.  No process is woken per frame: the daemon that set the
 * ring up only watches poll() for EPOLLERR/EPOLLHUP and reads the stats.
 *
 * Why a workqueue item and not a kthread per ring (as vhost's worker):
 * vhost needs a thread that adopts the owner's address space
 * (kthread_use_mm()); a ring of memory needs none (its pages are held,
 * kick mode is refused on other rings), so any kernel worker can serve it.
 * An item per ring costs no thread per ring, a storm of kicks only
 * re-queues an item already pending (queue_work() is a no-op then), and
 * cancel_work_sync() gives a clean end.  The item runs on
 * system_unbound_wq: one run may spend a write()'s whole weight copying
 * frames, which is CPU-bound work a per-CPU pool should not carry (6.12's
 * workqueue would flag it as CPU-intensive); cond_resched() runs between
 * chains inside the walks (tap_tx.c, tap_rx.c), and a run that did work
 * re-queues the item instead of looping, so other items and tasks get the
 * CPU between two weights.
 *
 * write(), read() and poll() on a ring in kick mode still work: they and
 * the worker serialise on the ring's @lock, as two write()s do.
 *
 * What keeps each pointer alive:
 *   - struct vrfd_kick is part of struct vrfd_tap, the attachment.
 *     Before it is freed (vrfd_tap_free()), and before the attachment
 *     leaves the tap's registry, vrfd_tap_quiesce() removes it from the
 *     tap's wait queue (no vrfd_kick_tap_woken() afterwards) and then
 *     calls vrfd_kick_stop(): the eventfd entry is removed (no kick
 *     callback afterwards) and cancel_work_sync() waits for a running
 *     worker and drops a queued one.  So neither callback nor worker ever
 *     sees a freed attachment.  vrfd_tap_free() runs from ->destroy, at
 *     close of the last fd of the ring (any process: the worker holds no
 *     file), at VRINGFD_DETACH, or when an attach fails.
 *   - The ring: the attachment holds a reference (vrfd_ring_attach()),
 *     dropped by vrfd_ring_detach() after vrfd_tap_free().
 *   - The tap file and socket: the attachment's fget() reference.  A
 *     deleted tap answers EPIPE/EBADFD to the worker, which then stops
 *     re-queueing and has set the ring's HUP (poll(): EPOLLHUP).
 *   - The kick eventfd: our fget() reference (@file) and context (@ctx),
 *     dropped by vrfd_kick_stop() after the entry left its wait queue.
 *     The front-end closing its eventfd changes nothing (as vhost): the
 *     file lives until kick mode ends.
 *   - SET_KICK again: runs under @attach_sem for writing, so no end or
 *     detach runs meanwhile; the old eventfd is left (entry removed,
 *     worker cancelled) before the new one is polled.
 *   - The module: every vring fd holds it (fops owner), and the worker and
 *     both callbacks are gone before the release of the ring's last fd
 *     returns; rmmod with a ring in kick mode is refused (in use) until
 *     its fds are closed.  system_unbound_wq is the kernel's.
 *   - fork(), SCM_RIGHTS: the fds share one file, one ring, one kick
 *     state; nothing here belongs to a process or an address space.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/eventfd.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/workqueue.h>
#include <linux/vringfd.h>
#include "kick.h"
#include "ring.h"
#include "tap_dev.h"
#include "tap_rx.h"
#include "tap_tx.h"

/**
 * vrfd_kick_work() - the worker: serve the ring once, as write()/read()
 * @work: the attachment's kick work
 *
 * TX: send the available chains; RX: fill posted buffers with the tap's
 * frames.  Counted in stats.calls/batches as a call.  A run that did work
 * may have stopped at the weight with more to do, and an RX run may stop
 * there having used no buffer (every frame dropped as too big): either
 * queues itself again
 * (a run that finds nothing has asked for a kick through the walk's
 * vrfd_ring_enable_notify()).  An error (tap gone, ring broken) ends the
 * runs until the next kick; the ring reports it to poll() (EPOLLERR,
 * EPOLLHUP) itself.
 */
static void vrfd_kick_work(struct work_struct *work)
{
	struct vrfd_tap *t = container_of(work, struct vrfd_tap, kick.work);
	bool more = false;
	int r;

	if (!READ_ONCE(t->kick.on))
		return;
	if (t->dir == VRINGFD_DIR_TX)
		r = vrfd_tap_tx_push(t);
	else
		r = vrfd_tap_rx_pull(t, &more);
	vrfd_ring_count_call(t->ring, r);
	if ((r > 0 || more) && READ_ONCE(t->kick.on))
		queue_work(system_unbound_wq, work);
}

/**
 * vrfd_kick_wake() - the kick eventfd was written: queue the worker
 * @wait: our entry on the eventfd's wait queue
 * @mode: unused
 * @sync: unused
 * @key: the events
 *
 * The count is consumed (the eventfd never fills up and stays quiet for
 * other pollers), as KVM's irqfd does.
 * Context: any; the eventfd's wait queue lock held.
 * Return: 0.
 */
static int vrfd_kick_wake(wait_queue_entry_t *wait, unsigned int mode,
			  int sync, void *key)
{
	struct vrfd_tap *t = container_of(wait, struct vrfd_tap, kick.wait);
	u64 cnt;

	if (!(key_to_poll(key) & EPOLLIN))
		return 0;
	eventfd_ctx_do_read(t->kick.ctx, &cnt);
	if (READ_ONCE(t->kick.on))
		queue_work(system_unbound_wq, &t->kick.work);
	return 0;
}

/**
 * vrfd_kick_queue_proc() - poll table callback: join the eventfd's wait queue
 * @file: the eventfd
 * @whead: its wait queue
 * @pt: our poll table
 */
static void vrfd_kick_queue_proc(struct file *file, wait_queue_head_t *whead,
				 poll_table *pt)
{
	struct vrfd_tap *t = container_of(pt, struct vrfd_tap, kick.pt);

	if (t->kick.whead)
		return;
	t->kick.whead = whead;
	add_wait_queue(whead, &t->kick.wait);
}

void vrfd_kick_init(struct vrfd_tap *t)
{
	INIT_WORK(&t->kick.work, vrfd_kick_work);
	init_waitqueue_func_entry(&t->kick.wait, vrfd_kick_wake);
	init_poll_funcptr(&t->kick.pt, vrfd_kick_queue_proc);
}

/**
 * vrfd_kick_end() - leave kick mode (see vrfd_kick_stop())
 * @t: the attachment
 * @report: clear the ring's VRINGFD_STATE_KICK too (not when SET_KICK
 *	replaces the eventfd: kick mode goes on)
 */
static void vrfd_kick_end(struct vrfd_tap *t, bool report)
{
	struct vrfd_kick *k = &t->kick;

	/*
	 * Only an attachment in kick mode speaks for the ring: an attach that
	 * failed (its attachment freed at once) must not clear the flag of the
	 * ring's real attachment.
	 */
	if (report && READ_ONCE(k->on))
		WRITE_ONCE(t->ring->kick, false);
	WRITE_ONCE(k->on, false);
	if (k->whead)
		remove_wait_queue(k->whead, &k->wait);
	k->whead = NULL;
	/* a run queued by the tap afterwards sees !on and returns */
	cancel_work_sync(&k->work);
	if (k->ctx)
		eventfd_ctx_put(k->ctx);
	k->ctx = NULL;
	if (k->file)
		fput(k->file);
	k->file = NULL;
}

void vrfd_kick_stop(struct vrfd_tap *t)
{
	vrfd_kick_end(t, true);
}

int vrfd_kick_set(struct vrfd_tap *t, int fd)
{
	struct vrfd_kick *k = &t->kick;
	struct eventfd_ctx *ctx;
	struct file *file;

	if (fd == -1) {
		vrfd_kick_stop(t);
		return 0;
	}
	file = fget(fd);
	if (!file)
		return -EBADF;
	ctx = eventfd_ctx_fileget(file);
	if (IS_ERR(ctx)) {
		fput(file);
		return PTR_ERR(ctx);
	}
	vrfd_kick_end(t, false);	/* the flag stays: kick mode goes on */
	k->file = file;
	k->ctx = ctx;
	WRITE_ONCE(k->on, true);
	WRITE_ONCE(t->ring->kick, true);
	vfs_poll(file, &k->pt);
	/* serve what is already there: kicks given before kick mode began */
	queue_work(system_unbound_wq, &k->work);
	return 0;
}

void vrfd_kick_tap_woken(struct vrfd_tap *t, __poll_t events)
{
	__poll_t want = EPOLLERR | EPOLLHUP;

	if (!READ_ONCE(t->kick.on))
		return;
	if (t->dir == VRINGFD_DIR_RX)
		want |= EPOLLIN;
	if (!events || (events & want))
		queue_work(system_unbound_wq, &t->kick.work);
}
