/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap_dev.h - the state of one tap attachment (struct vrfd_tap), shared by
 * tap.c (attach, end), tap_tx.c and tap_rx.c; tap_dev.c's helpers.
 */
#ifndef VRFD_TAP_DEV_H
#define VRFD_TAP_DEV_H

#include <linux/mm_types.h>
#include <linux/poll.h>
#include <linux/types.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <net/xdp.h>
#include "kick.h"

/* Frames handed to the tap per sendmsg(TUN_MSG_PTR), as VHOST_NET_BATCH. */
#define VRFD_TAP_BATCH		64
/* Largest frame (without the virtio-net header). */
#define VRFD_TAP_MAX_FRAME	65536
/* Segments of one RX frame (all heads together) or one TX chain. */
#define VRFD_TAP_MAX_IOV	UIO_MAXIOV
/* Headroom in front of a batched TX frame, as vhost-net's RX pad. */
#define VRFD_TAP_PAD		(NET_IP_ALIGN + NET_SKB_PAD)

struct file;
struct net;
struct ptr_ring;
struct socket;
struct vrfd_ring;
struct vrfd_tap_reg;

/**
 * struct vrfd_rx_head - a posted RX chain taken but not yet filled
 * @head: head index
 * @pos: the avail entry it was taken from (for vrfd_ring_unget_chain())
 * @niov: its segments in vrfd_tap.iov
 * @cap: its writable bytes
 */
struct vrfd_rx_head {
	u16 head;
	u16 pos;
	unsigned int niov;
	u64 cap;
};

/**
 * struct vrfd_tap - one ring attached to one tap queue
 * @ring: the ring
 * @file: the tap file (our reference, from fget)
 * @sock: the tap queue's socket
 * @q: registry entry
 * @dir: VRINGFD_DIR_TX or VRINGFD_DIR_RX
 * @hdr_len: virtio-net header bytes in front of each frame (0, 10, 12)
 * @mrg: VRINGFD_TAP_F_MRG_RXBUF
 * @is_tun: a tun queue (else macvtap/ipvtap)
 * @gone: the tap went away (sendmsg/recvmsg said so, poll EPOLLERR, or
 *	macvtap/ipvtap: its device's NETDEV_UNREGISTER)
 * @net: the caller's network namespace, where @ifindex was found (our
 *	reference, from get_net(): nothing else may hold it), or NULL
 * @ifindex: the caller's struct vringfd_tap.ifindex (found at attach), 0:
 *	tap_rx_dropped is not counted
 * @drops_jiffies: when the drop counter was last copied
 * @whead: the tap's wait queue we are on, or NULL
 * @wait: our entry on @whead: wakes the ring's poll() waiters
 * @pt: poll table used once to find @whead
 * @iov: segment array (VRFD_TAP_MAX_IOV)
 * @frag: TX: page fragments for batched frames
 * @xdp: TX: the batch
 * @heads: TX: head of each frame in @xdp
 * @nbatch: TX: frames in @xdp
 * @bounce: TX: header + frame for frames that do not fit a page
 * @held: RX: heads taken for the next frame, within one call (given back
 *	at its end: vrfd_tap_rx_unhold())
 * @nheld: RX: entries in @held
 * @held_iov: RX: segments of @held at the start of @iov
 * @held_cap: RX: writable bytes of @held
 * @rxring: RX: the tap's queue of frames for user space (tun_get_tx_ring()
 *	or tap_get_ptr_ring()), consumed in batches as vhost-net does; NULL:
 *	one peek_len() and recvmsg() per frame instead
 * @rxq: RX: frames taken from @rxring, not yet delivered (still queued,
 *	from the ring's point of view)
 * @rxq_head: RX: next frame in @rxq
 * @rxq_tail: RX: end of @rxq
 * @kick: kick mode (VRINGFD_SET_KICK, kick.c)
 */
struct vrfd_tap {
	struct vrfd_ring *ring;
	struct file *file;
	struct socket *sock;
	struct vrfd_tap_reg *q;
	unsigned int dir;
	unsigned int hdr_len;
	bool mrg;
	bool is_tun;
	bool gone;
	struct net *net;
	int ifindex;
	unsigned long drops_jiffies;

	wait_queue_head_t *whead;
	wait_queue_entry_t wait;
	poll_table pt;

	struct iovec *iov;

	struct page_frag_cache frag;
	struct xdp_buff xdp[VRFD_TAP_BATCH];
	u16 heads[VRFD_TAP_BATCH];
	unsigned int nbatch;
	void *bounce;

	struct vrfd_rx_head held[VRFD_TAP_MAX_IOV];
	unsigned int nheld;
	unsigned int held_iov;
	u64 held_cap;

	struct ptr_ring *rxring;
	void *rxq[VRFD_TAP_BATCH];
	unsigned int rxq_head;
	unsigned int rxq_tail;

	struct vrfd_kick kick;
};

/**
 * vrfd_tap_dev_set_gone() - the tap went away: set the ring's HUP (once)
 * @t: the attachment
 */
void vrfd_tap_dev_set_gone(struct vrfd_tap *t);

/**
 * vrfd_tap_dev_check_gone() - has the tap gone away?  Sets the ring's HUP
 * @t: the attachment
 *
 * Return: true when gone.
 */
bool vrfd_tap_dev_check_gone(struct vrfd_tap *t);

/**
 * vrfd_tap_dev_update_drops() - copy the device's drop counter to the stats
 * @t: the attachment
 *
 * Context: the ring's lock held.
 */
void vrfd_tap_dev_update_drops(struct vrfd_tap *t);

/**
 * vrfd_tap_dev_err() - the error a TX or RX call answers, given a new one
 * @err: the call's error so far (0: none)
 * @r: a new result (0 or -errno)
 *
 * A ring error (a used-ring fault, the ring broken) wins over the answers
 * that leave the ring usable (-EPIPE, -EINTR, -ENOMEM): kmod/README.md
 * promises EFAULT for a fault inside the call, whatever else happened.
 * Return: the error to answer.
 */
static inline int vrfd_tap_dev_err(int err, int r)
{
	if (!r)
		return err;
	if (!err || err == -EPIPE || err == -EINTR || err == -ENOMEM)
		return r;
	return err;
}

#endif /* VRFD_TAP_DEV_H */
