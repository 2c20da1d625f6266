// SPDX-License-Identifier: GPL-2.0
/*
 * tap_dev.c - the tap queue as both directions of an attachment see it: its
 * end (the device went away) and its own drop counter.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/netdevice.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/vringfd.h>
#include "ring.h"
#include "tap_dev.h"

/**
 * vrfd_tap_dev_set_gone() - the tap went away: set the ring's HUP (once)
 * @t: the attachment
 */
void vrfd_tap_dev_set_gone(struct vrfd_tap *t)
{
	if (!xchg(&t->gone, true))
		vrfd_ring_set_hup(t->ring);
}

/**
 * vrfd_tap_dev_check_gone() - has the tap gone away?  Sets the ring's HUP
 * @t: the attachment
 *
 * Asks the tap's own poll (it reports EPOLLERR once the device is gone).
 * Return: true when gone.
 */
bool vrfd_tap_dev_check_gone(struct vrfd_tap *t)
{
	if (!READ_ONCE(t->gone) && (vfs_poll(t->file, NULL) & EPOLLERR))
		vrfd_tap_dev_set_gone(t);
	return READ_ONCE(t->gone);
}

/**
 * vrfd_tap_dev_update_drops() - copy the device's own drop counter to the stats
 * @t: the attachment
 *
 * TX ring: the tap's rx_dropped (frames tun refused on their way to the
 * stack); RX ring: its tx_dropped (frames the stack gave the tap while its
 * queue was full).  Found by ifindex; nothing when the device is gone.
 * At most once a jiffy (and so at most a tick stale).
 * Context: @ring->lock held.
 */
void vrfd_tap_dev_update_drops(struct vrfd_tap *t)
{
	struct rtnl_link_stats64 st;
	struct net_device *dev;

	if (!t->ifindex || !time_after(jiffies, t->drops_jiffies))
		return;
	t->drops_jiffies = jiffies;	/* at most once a tick */
	rcu_read_lock();
	dev = dev_get_by_index_rcu(t->net, t->ifindex);
	if (dev) {
		dev_get_stats(dev, &st);
		t->ring->stats.tap_rx_dropped = t->dir == VRINGFD_DIR_TX ?
						st.rx_dropped : st.tx_dropped;
	}
	rcu_read_unlock();
}

