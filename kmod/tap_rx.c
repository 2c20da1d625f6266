// SPDX-License-Identifier: GPL-2.0
/*
 * tap_rx.c - the RX direction of the tap attachment (tap -> ring): read(),
 * poll() and write() (a kick) pull: every frame the tap has queued goes into
 * posted writable chains with one recvmsg() each; with
 * VRINGFD_TAP_F_MRG_RXBUF a frame may span heads and num_buffers is set.
 * Without a posted buffer frames stay in the tap's queue.
 *
 * recvmsg() writes through an iterator over the posted chains' writable
 * segments (held_cap bytes), so the tap cannot write outside them whatever
 * it puts in front of the frame.  Its answer is only trusted within those
 * bounds: a result < 0, > held_cap or < hdr_len drops the frame (buffers
 * completed empty); num_buffers (12-byte header) is written at offset 10 of
 * the first head, which the walk guarantees holds >= hdr_len writable bytes
 * and which the delivered length (>= hdr_len) covers.  tun's answer is
 * also checked against what the iterator took: 6.1's tun_put_user()
 * ignores a fault while copying the frame data and reports the full
 * length; such a frame is dropped (drop_bad_addr), not completed as
 * delivered.
 *
 * Heads are not kept across calls: those taken for a frame that did not
 * get all it needs go back to the avail ring at the end of the call
 * (vrfd_tap_rx_unhold()), so a memory-table change, GET_STATE and a
 * detach between calls never see a head the module holds.
 *
 * Per frame on RX: a readable segment in a posted chain -> drop_bad_chain
 * (chain completed with 0); a frame larger than the posted buffer (or
 * than 1024 segments), or a delivered length beyond the buffers or shorter
 * than the declared header -> dropped, drop_too_big; unwritable memory ->
 * dropped, drop_bad_addr; the tap refusing the buffers (recvmsg() error:
 * shorter than its own header) -> dropped, drop_tap.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/if_tun.h>
#include <linux/net.h>
#include <linux/ptr_ring.h>
#include <linux/sched/signal.h>
#include <linux/skb_array.h>
#include <linux/skbuff.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <linux/virtio_net.h>
#include <net/sock.h>
#include <net/xdp.h>
#include <linux/vringfd.h>
#include "ring.h"
#include "tap_dev.h"
#include "tap_rx.h"

/**
 * vrfd_tap_rx_release() - complete the first @k held heads, drop them
 * @t: the attachment
 * @k: heads to complete
 * @written: bytes the frame took, spread over the heads in order; 0
 *	completes them empty
 *
 * The heads are let go whatever happens: after a used-ring fault the ring
 * is broken and they are never completed.
 * Return: 0, or the first error of vrfd_ring_add_used() (-EFAULT: the used
 * ring is not writable, the ring is now broken).
 */
static int vrfd_tap_rx_release(struct vrfd_tap *t, unsigned int k, u64 written)
{
	unsigned int i, iovs = 0;
	u64 cap = 0;
	int err = 0;

	for (i = 0; i < k; i++) {
		u64 part = min(t->held[i].cap, written);

		err = vrfd_tap_dev_err(err, vrfd_ring_add_used(t->ring, t->held[i].head,
							       (u32)part));
		written -= part;
		iovs += t->held[i].niov;
		cap += t->held[i].cap;
	}
	t->nheld -= k;
	t->held_iov -= iovs;
	t->held_cap -= cap;
	if (!t->nheld)
		return err;	/* the common case: nothing left to move */
	memmove(t->held, t->held + k, t->nheld * sizeof(t->held[0]));
	memmove(t->iov, t->iov + iovs, t->held_iov * sizeof(t->iov[0]));
	return err;
}

/**
 * vrfd_tap_rx_ptr_free() - free one entry of a tap's frame queue
 * @ptr: an sk_buff, or (tun) an xdp_frame tagged with TUN_XDP_FLAG
 */
static void vrfd_tap_rx_ptr_free(void *ptr)
{
	if (tun_is_xdp_frame(ptr))
		xdp_return_frame(tun_ptr_to_xdp(ptr));
	else
		kfree_skb(ptr);
}

/**
 * vrfd_tap_rx_peek() - length of the next queued frame
 * @t: the attachment
 *
 * With @rxring, refills @rxq with up to VRFD_TAP_BATCH frames under one
 * lock of the tap's queue.
 * Return: the frame's length (VLAN tag included; no header), 0 when none.
 */
static int vrfd_tap_rx_peek(struct vrfd_tap *t)
{
	void *ptr;

	if (!t->rxring)
		return t->sock->ops->peek_len(t->sock);
	if (t->rxq_head == t->rxq_tail) {
		t->rxq_head = 0;
		t->rxq_tail = ptr_ring_consume_batched(t->rxring, t->rxq, VRFD_TAP_BATCH);
		if (!t->rxq_tail)
			return 0;
	}
	ptr = t->rxq[t->rxq_head];
	if (tun_is_xdp_frame(ptr))
		return tun_ptr_to_xdp(ptr)->len;
	return __skb_array_len_with_tag(ptr);
}

/**
 * vrfd_tap_rx_recvmsg() - deliver the frame vrfd_tap_rx_peek() found
 * @t: the attachment
 * @msg: with the destination iterator
 * @len: room in it
 *
 * The frame is consumed whatever the result.
 * Return: recvmsg()'s result.
 */
static int vrfd_tap_rx_recvmsg(struct vrfd_tap *t, struct msghdr *msg, size_t len)
{
	if (t->rxring)
		msg->msg_control = t->rxq[t->rxq_head++];
	return t->sock->ops->recvmsg(t->sock, msg, len, MSG_DONTWAIT | MSG_TRUNC);
}

/**
 * vrfd_tap_rx_unbatch() - give frames taken from the tap's queue back to it
 * @t: the attachment
 */
void vrfd_tap_rx_unbatch(struct vrfd_tap *t)
{
	if (t->rxring && t->rxq_head < t->rxq_tail)
		ptr_ring_unconsume(t->rxring, t->rxq + t->rxq_head,
				   t->rxq_tail - t->rxq_head, vrfd_tap_rx_ptr_free);
	t->rxq_head = t->rxq_tail = 0;
}

/**
 * vrfd_tap_rx_discard() - drop the tap's next frame (it fits no buffer)
 * @t: the attachment
 *
 * Return: recvmsg()'s result.
 */
static int vrfd_tap_rx_discard(struct vrfd_tap *t)
{
	char c[64];
	struct kvec kv = { .iov_base = c, .iov_len = sizeof(c) };
	struct msghdr msg = {};

	iov_iter_kvec(&msg.msg_iter, ITER_DEST, &kv, 1, sizeof(c));
	return vrfd_tap_rx_recvmsg(t, &msg, sizeof(c));
}

/**
 * vrfd_tap_rx_take() - take posted chains until @need bytes are held
 * @t: the attachment
 * @need: header + frame bytes
 * @n: chains handled in this call: incremented per chain taken or skipped
 * @w0: vrfd_ring_walked() at the start of this call
 *
 * Without MRG_RXBUF one head is taken (whatever its size).  Chains that
 * cannot take a frame (readable segments, no writable byte, too many
 * segments) are completed empty and count as work.
 * Return: 1 (enough, or as much as one frame may take), 0 (no more posted
 * buffers, or the call's work limit reached), or the walker's -errno.
 */
static int vrfd_tap_rx_take(struct vrfd_tap *t, u64 need, unsigned int *n,
			    u32 w0)
{
	struct vrfd_ring *ring = t->ring;
	struct vrfd_chain ch;
	int r;

	while (t->held_cap < need && (t->mrg || !t->nheld)) {
		if (t->held_iov >= VRFD_TAP_MAX_IOV || t->nheld >= ARRAY_SIZE(t->held))
			return 1;
		/* skipping unusable chains is work too */
		if (vrfd_over_weight(*n, vrfd_ring_walked(ring) - w0, 0))
			return 0;
		(*n)++;
		r = vrfd_ring_get_chain(ring, t->iov + t->held_iov,
					VRFD_TAP_MAX_IOV - t->held_iov, &ch);
		*n += ch.dropped;	/* bad addresses, completed on the way */
		if (r == -EAGAIN)
			continue;	/* only dropped chains so far: more */
		if (r == -E2BIG && t->nheld)
			return 1;	/* this frame has all it can get */
		if (r == -E2BIG) {
			r = vrfd_ring_skip_chain(ring, &ch);
			if (r)
				return r;
			ring->stats.drop_bad_chain++;
			continue;
		}
		if (r <= 0)
			return r;
		if (ch.nout || !ch.in_len || ch.in_len < t->hdr_len) {
			r = vrfd_ring_add_used(ring, ch.head, 0);
			if (r)
				return r;
			ring->stats.drop_bad_chain++;
			continue;
		}
		t->held[t->nheld].head = ch.head;
		t->held[t->nheld].pos = ring->last_avail - 1;
		t->held[t->nheld].niov = ch.nin;
		t->held[t->nheld].cap = ch.in_len;
		t->nheld++;
		t->held_iov += ch.nin;
		t->held_cap += ch.in_len;
	}
	return 1;
}

/**
 * vrfd_tap_rx_unhold() - give back the heads held at the end of a call
 * @t: the attachment
 *
 * Heads taken for a frame that did not get all it needs (or kept after a
 * frame too big for them was dropped) are not kept across calls: their
 * user addresses were translated through the memory table of this call,
 * which VRINGFD_SET_MEM_TABLE may replace before the next, and GET_STATE
 * or a DETACH must see them as not yet read.  The newest ones, as long as
 * they are the last avail entries taken, go back to the avail ring
 * (vrfd_ring_unget_chain(): last_avail is rewound and the next call reads
 * them again, as vhost-net's vhost_discard_vq_desc()); an older one
 * separated from them by a chain completed meanwhile (an unusable chain
 * between two buffers of a merged frame) is completed with length 0.
 * Context: @t->ring->lock held.
 */
static void vrfd_tap_rx_unhold(struct vrfd_tap *t)
{
	struct vrfd_ring *ring = t->ring;
	unsigned int k = t->nheld;

	while (k && t->held[k - 1].pos == (u16)(ring->last_avail - 1) &&
	       !vrfd_ring_unget_chain(ring, t->held[k - 1].head))
		k--;
	while (k)
		vrfd_ring_add_used(ring, t->held[--k].head, 0);
	t->nheld = 0;
	t->held_iov = 0;
	t->held_cap = 0;
}

/**
 * vrfd_tap_rx_put_num_buffers() - write num_buffers into a delivered frame's
 * virtio_net_hdr_v1
 * @t: the attachment (its first held head starts with the header)
 * @k: heads the frame took
 *
 * One store when the field lies in the first segment (the usual layout;
 * on a ring of memory a plain store, without the iterator and the usercopy
 * checks of a copy), else a copy across the segments.
 * Return: 0, or -EFAULT.
 */
static int vrfd_tap_rx_put_num_buffers(struct vrfd_tap *t, unsigned int k)
{
	const size_t off = offsetof(struct virtio_net_hdr_v1, num_buffers);
	__le16 nb = cpu_to_le16(k);

	if (t->iov[0].iov_len >= off + sizeof(nb)) {
		void __user *p = t->iov[0].iov_base + off;

		if (!t->ring->kmem)
			return put_user(nb, (__le16 __user *)p) ? -EFAULT : 0;
		/* a ring of memory: a kernel address in pages it holds */
		memcpy((__force void *)p, &nb, sizeof(nb));	/* may be unaligned */
		return 0;
	}
	return vrfd_ring_iov_copy(t->ring, t->iov, t->held[0].niov, off, &nb, sizeof(nb), true);
}

/**
 * vrfd_tap_rx_pull() - move every queued frame into posted buffers
 * @t: the attachment
 * @more: if not NULL, set when the loop stopped at the call's weight:
 *	frames may still be queued even when no buffer was used (each frame
 *	of the call dropped as too big counts in the weight, uses none)
 *
 * Return: buffers (heads) used, or -errno: -EPIPE (the tap went away and
 * nothing was used), the walker's errors, -EFAULT (also when the used ring
 * could not be written: the ring is now broken, whatever was used before
 * in this call).
 */
int vrfd_tap_rx_pull(struct vrfd_tap *t, bool *more)
{
	struct vrfd_ring *ring = t->ring;
	unsigned int used = 0, n = 0;
	size_t bytes = 0;
	int err = 0;
	u32 w0;

	if (mutex_lock_killable(&ring->lock))
		return -EINTR;
	w0 = vrfd_ring_walked(ring);
	while (!vrfd_over_weight(n, vrfd_ring_walked(ring) - w0, bytes)) {
		struct msghdr msg = {};
		unsigned int k;
		u64 need, acc;
		int len, r;
		bool bad;

		if (signal_pending(current)) {
			err = -EINTR;
			break;
		}
		cond_resched();
		len = vrfd_tap_rx_peek(t);
		if (len <= 0) {
			if (vrfd_tap_dev_check_gone(t))
				err = -EPIPE;
			break;
		}
		need = (u64)len + t->hdr_len;
		r = vrfd_tap_rx_take(t, need, &n, w0);
		if (r < 0) {
			err = r;
			break;
		}
		if (!t->nheld || (t->held_cap < need && t->mrg && r == 0)) {
			/*
			 * Out of posted buffers (or at the call's work limit):
			 * the frame waits.  Ask for a kick and look once more:
			 * buffers posted meanwhile would get none.
			 */
			r = vrfd_ring_enable_notify(ring);
			if (r > 0)
				continue;
			err = r;
			break;
		}
		if (t->held_cap < need) {
			/* cannot fit: drop the frame, keep the buffers */
			r = vrfd_tap_rx_discard(t);
			if (r == -EBADFD) {
				vrfd_tap_dev_set_gone(t);
				err = -EPIPE;
				break;
			}
			ring->stats.drop_too_big++;
			n++;
			continue;
		}
		vrfd_ring_iter(t->ring, &msg.msg_iter, ITER_DEST, t->iov,
			       t->held_iov, t->held_cap);
		r = vrfd_tap_rx_recvmsg(t, &msg, t->held_cap);
		if (r == -EAGAIN)
			break;
		if (r == -EBADFD) {
			vrfd_tap_dev_set_gone(t);
			err = -EPIPE;
			break;
		}
		n++;
		bad = false;
		/*
		 * The frame's length is tun's answer even when a fault cut
		 * the copy short (6.1's tun_put_user() ignores the result of
		 * copying the frame data): what the iterator took is what
		 * was written.
		 */
		if (r >= 0 && r <= t->held_cap &&
		    (u64)r > t->held_cap - iov_iter_count(&msg.msg_iter))
			r = -EFAULT;
		if (r < 0 || r > t->held_cap || r < (int)t->hdr_len) {
			/*
			 * A fault (unwritable buffer); the tap refusing the
			 * buffers (shorter than its own header or packet
			 * information: a tap configured otherwise than the
			 * ring declares); or a bigger frame than peeked (a
			 * race, or the tap's header or packet information
			 * longer than declared).  Nothing beyond the
			 * buffers was written (recvmsg() writes through
			 * the iterator only); none of it is trusted.
			 */
			if (r == -EFAULT)
				ring->stats.drop_bad_addr++;
			else if (r < 0)
				ring->stats.drop_tap++;
			else
				ring->stats.drop_too_big++;
			bad = true;
		}
		for (k = 0, acc = 0; !bad && k < t->nheld && acc < (u64)r; k++)
			acc += t->held[k].cap;
		if (!bad && t->hdr_len == sizeof(struct virtio_net_hdr_v1)) {
			if (vrfd_tap_rx_put_num_buffers(t, k)) {
				ring->stats.drop_bad_addr++;
				bad = true;
			}
		}
		if (bad) {
			/* give the buffers back empty */
			used += t->nheld;
			err = vrfd_tap_rx_release(t, t->nheld, 0);
			if (err)
				break;
			continue;
		}
		err = vrfd_tap_rx_release(t, k, r);
		if (err)
			break;	/* the frame is lost with the ring */
		used += k;
		ring->stats.frames++;
		ring->stats.bytes += r - t->hdr_len;
		bytes += r;
	}
	if (more)
		*more = !err && vrfd_over_weight(n, vrfd_ring_walked(ring) - w0, bytes);
	if (t->nheld)
		vrfd_tap_rx_unhold(t);
	err = vrfd_tap_dev_err(err, vrfd_ring_publish_used(ring));
	vrfd_tap_dev_update_drops(t);
	mutex_unlock(&ring->lock);
	if (used && (err == -EINTR || err == -EPIPE))
		return used;
	return err ? err : used;
}

