/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kick.h - kick mode of the tap attachment (VRINGFD_SET_KICK, kick.c):
 * the module serves a ring of memory attached to a tap by itself, on a
 * kick eventfd and on the tap's frames, in a workqueue item.
 */
#ifndef VRFD_KICK_H
#define VRFD_KICK_H

#include <linux/poll.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

struct eventfd_ctx;
struct file;
struct vrfd_tap;

/**
 * struct vrfd_kick - the kick mode of one tap attachment (inside struct
 * vrfd_tap, which outlives every use of it: see kick.c)
 * @file: the kick eventfd (our reference, from fget), NULL: not in kick
 *	mode.  Changed by SET_KICK under the ring's @attach_sem (write), or
 *	by the attachment's free, which no SET_KICK can reach any more (the
 *	ring's @ops were cleared under that lock before ->destroy)
 * @ctx: its eventfd context (our reference)
 * @whead: the eventfd's wait queue we are on, or NULL
 * @wait: our entry on @whead: a kick queues @work
 * @pt: poll table used once to find @whead
 * @work: the worker: one run serves the ring once, within the weight of
 *	write()/read()
 * @on: kick mode is on: @work serves the ring, the tap's wake-ups queue it
 */
struct vrfd_kick {
	struct file *file;
	struct eventfd_ctx *ctx;
	wait_queue_head_t *whead;
	wait_queue_entry_t wait;
	poll_table pt;
	struct work_struct work;
	bool on;
};

/**
 * vrfd_kick_init() - prepare the kick state of a new attachment (not on)
 * @t: the attachment, being made
 */
void vrfd_kick_init(struct vrfd_tap *t);

/**
 * vrfd_kick_set() - VRINGFD_SET_KICK: enter, change or leave kick mode
 * @t: the attachment (of a ring of memory)
 * @fd: an eventfd, or -1 to leave kick mode
 *
 * Context: process; the ring's @attach_sem held for writing (no end,
 * detach or other SET_KICK meanwhile), not its @lock.
 * Return: 0, -EBADF (@fd not open), -EINVAL (not an eventfd).
 */
int vrfd_kick_set(struct vrfd_tap *t, int fd);

/**
 * vrfd_kick_stop() - leave kick mode; afterwards no worker runs
 * @t: the attachment
 *
 * Context: process, no ring lock held (waits for a running worker).
 */
void vrfd_kick_stop(struct vrfd_tap *t);

/**
 * vrfd_kick_tap_woken() - the tap's wait queue was woken: serve the ring
 * @t: the attachment
 * @events: the wake-up's events (0: unknown)
 *
 * Queues the worker in kick mode when the tap has frames (RX) or may have
 * gone (any direction).  Context: any (the tap's wait queue lock held).
 */
void vrfd_kick_tap_woken(struct vrfd_tap *t, __poll_t events);

#endif /* VRFD_KICK_H */
