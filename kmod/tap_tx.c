// SPDX-License-Identifier: GPL-2.0
/*
 * tap_tx.c - the TX direction of the tap attachment (ring -> tap): write()
 * walks every available chain, copies each frame into kernel memory and
 * hands it to the tap, many per sendmsg() (TUN_MSG_PTR with an array of
 * xdp_buffs, as vhost-net does on 6.1) when the frame fits a page, else one
 * sendmsg() with a kernel copy.  Every chain is completed with length 0.
 *
 * The module copies each chain (its readable bytes only) into a kernel
 * buffer and checks the declared header there.  A batch (TUN_MSG_PTR)
 * carries the header beside the frame: tun and tap build the skb from it
 * without looking at their own header size or IFF_NO_PI (as for
 * vhost-net).  A frame sent alone goes through tun's/tap's sendmsg() with a
 * kernel iterator of exactly that many bytes, parsed with the tap's real
 * settings (their write() path, for any bytes).
 *
 * Per chain (write() on TX; the chain is completed with length 0 and
 * counted, the next one is tried):
 *   writable segment, or no byte, or a frame shorter than an Ethernet
 *   header                                  drop_bad_chain
 *   more than 65536 + header bytes          drop_too_big
 *   invalid virtio-net header               drop_bad_hdr
 *   (linux/vringfd_vnet_hdr.h: UFO, USO and RSC_INFO among them)
 *   unreadable memory                       drop_bad_addr
 *   the tap refused the frame               drop_tap
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/if_ether.h>
#include <linux/if_tun.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/sched/signal.h>
#include <linux/skbuff.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <linux/virtio_net.h>
#include <net/sock.h>
#include <net/xdp.h>
#include <linux/vringfd.h>
#include <linux/vringfd_vnet_hdr.h>
#include "ring.h"
#include "tap_dev.h"
#include "tap_tx.h"

static bool tx_batch = true;
module_param(tx_batch, bool, 0644);
MODULE_PARM_DESC(tx_batch,
		 "TX: hand page-sized frames to tun many per sendmsg (TUN_MSG_PTR); off: one sendmsg per frame with MSG_MORE");

/**
 * vrfd_tap_tx_copy_to_frag() - copy a chain's bytes into a page-fragment buffer
 * @ring: the ring the segments come from
 * @dst: inside a page of the attachment's fragment cache
 * @iov: the chain's segments (user addresses, or kernel addresses of a
 *	ring of memory)
 * @niov: their number
 * @len: bytes, the segments' total
 *
 * As tun does, through copy_page_from_iter(): the destination is a page, so
 * the hardened-usercopy object check (a walk of the page's metadata for
 * every copy) has nothing to check.
 * Return: 0, or -EFAULT.
 */
static int vrfd_tap_tx_copy_to_frag(const struct vrfd_ring *ring, void *dst,
				    const struct iovec *iov, unsigned int niov,
				    size_t len)
{
	struct iov_iter it;

	vrfd_ring_iter(ring, &it, ITER_SOURCE, iov, niov, len);
	if (copy_page_from_iter(virt_to_page(dst), offset_in_page(dst), len,
				&it) != len)
		return -EFAULT;
	return 0;
}

/**
 * vrfd_tap_tx_flush() - hand the batched frames to the tap, complete them
 * @t: the attachment
 *
 * Frames tun took are counted in frames whatever follows: they are on
 * their way.  Their chains are then completed; a used ring that cannot be
 * written breaks the ring (-EFAULT, then -EIO for the rest), and the
 * frames stay sent: the driver cannot be told, the ring is unusable.
 * Return: 0, -EPIPE (the tap went away; the frames were freed and their
 * chains completed, and counted in drop_tap), or the first error of
 * vrfd_ring_add_used() (-EFAULT: used ring not writable, now broken).
 */
static int vrfd_tap_tx_flush(struct vrfd_tap *t)
{
	struct tun_msg_ctl ctl = {
		.type = TUN_MSG_PTR,
		.num = t->nbatch,
		.ptr = t->xdp,
	};
	struct msghdr msg = {
		.msg_control = &ctl,
		.msg_controllen = sizeof(ctl),
		.msg_flags = MSG_DONTWAIT,
	};
	struct vrfd_ring *ring = t->ring;
	unsigned int i, n = t->nbatch;
	int ret, err = 0;

	if (!n)
		return 0;
	ret = t->sock->ops->sendmsg(t->sock, &msg, 0);
	if (ret < 0) {
		/* not consumed: tun refused the whole batch (device gone) */
		for (i = 0; i < n; i++)
			put_page(virt_to_head_page(t->xdp[i].data));
		ring->stats.drop_tap += n;
		if (ret == -EBADFD)
			vrfd_tap_dev_set_gone(t);
	} else {
		ring->stats.frames += n;
	}
	for (i = 0; i < n; i++)
		err = vrfd_tap_dev_err(err, vrfd_ring_add_used(ring, t->heads[i], 0));
	t->nbatch = 0;
	if (err)
		return err;
	return READ_ONCE(t->gone) ? -EPIPE : 0;
}

/**
 * vrfd_tap_tx_hdr() - validate the header of a frame already copied
 * @t: the attachment
 * @hdr: the kernel copy of the header (t->hdr_len bytes), or unused
 * @flen: frame bytes after the header
 *
 * The header is checked in kernel memory, so user space cannot change it
 * between the check and its use by the tap, against the policy that the
 * daemon's user engine applies too (<linux/vringfd_vnet_hdr.h>).
 * Return: true when the frame may be sent (counted in drop_bad_hdr if not).
 */
static bool vrfd_tap_tx_hdr(struct vrfd_tap *t, const void *hdr, u32 flen)
{
	enum vringfd_vnet_hdr_verdict v = vringfd_vnet_hdr_check(hdr, t->hdr_len, flen);

	if (v == VRINGFD_VNET_HDR_OK)
		return true;
	pr_debug("tx header refused: %s\n", vringfd_vnet_hdr_reason(v));
	t->ring->stats.drop_bad_hdr++;
	return false;
}

/**
 * vrfd_tap_tx_one() - send one frame of any size with its own sendmsg()
 * @t: the attachment
 * @iov: the chain's segments (header + frame)
 * @nout: their number
 * @flen: frame bytes after the header
 * @more: more frames follow (MSG_MORE)
 *
 * Return: 1 (sent), 0 (refused, bad header or unreadable: counted),
 * -EPIPE.
 */
static int vrfd_tap_tx_one(struct vrfd_tap *t, const struct iovec *iov,
			   unsigned int nout, u32 flen, bool more)
{
	struct vrfd_ring *ring = t->ring;
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | (more ? MSG_MORE : 0) };
	struct kvec kv = { .iov_base = t->bounce, .iov_len = t->hdr_len + flen };
	int ret;

	if (vrfd_ring_iov_copy(t->ring, iov, nout, 0, t->bounce, kv.iov_len, false)) {
		ring->stats.drop_bad_addr++;
		return 0;
	}
	if (!vrfd_tap_tx_hdr(t, t->bounce, flen))
		return 0;
	iov_iter_kvec(&msg.msg_iter, ITER_SOURCE, &kv, 1, kv.iov_len);
	ret = t->sock->ops->sendmsg(t->sock, &msg, kv.iov_len);
	if (ret == -EBADFD) {
		vrfd_tap_dev_set_gone(t);
		ring->stats.drop_tap++;
		return -EPIPE;
	}
	if (ret < 0) {
		ring->stats.drop_tap++;
		return 0;
	}
	ring->stats.frames++;
	ring->stats.bytes += flen;
	return 1;
}

/**
 * vrfd_tap_tx_batch() - copy a page-sized frame into the batch
 * @t: the attachment
 * @iov: the chain's segments (header + frame)
 * @nout: their number
 * @flen: frame bytes after the header
 * @head: the chain's head
 *
 * Header and frame are copied from user memory in one pass, the header
 * just in front of the frame's headroom; its first 10 bytes then go into
 * the tun_xdp_hdr at the start of the buffer.
 * Return: 1 (queued), 0 (bad header or unreadable: counted, chain to
 * complete), -ENOMEM, -ENOSPC (does not fit a page: send it alone),
 * -EAGAIN (flush the batch first: the fragment page is full).
 */
static int vrfd_tap_tx_batch(struct vrfd_tap *t, const struct iovec *iov,
			     unsigned int nout, u32 flen, u16 head)
{
	int headroom = sock_flag(t->sock->sk, SOCK_XDP) ? XDP_PACKET_HEADROOM : 0;
	unsigned int pad = SKB_DATA_ALIGN(VRFD_TAP_PAD + headroom + t->hdr_len);
	unsigned int buflen = SKB_DATA_ALIGN(flen + pad) +
			      SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	struct xdp_buff *xdp = &t->xdp[t->nbatch];
	struct tun_xdp_hdr *xh;
	void *buf;

	if (buflen > PAGE_SIZE)
		return -ENOSPC;
	/*
	 * The cache's page is full: send the batch before a new page is
	 * taken.  tun consumes the frames in sendmsg(), so the page comes
	 * back whole and is reused; a new page would be zeroed first
	 * (init_on_alloc), which costs more than the frames themselves.
	 */
	if (t->nbatch && t->frag.va && t->frag.offset < buflen)
		return -EAGAIN;
	/*
	 * Cache-line aligned without page_frag_alloc_align(): buflen is a
	 * multiple of SMP_CACHE_BYTES (SKB_DATA_ALIGN) and so is every offset
	 * the cache carves in its page, so every fragment starts on a cache
	 * line.  page_frag_alloc_align()'s last argument changed meaning
	 * between the two kernels (a mask, ~(align - 1), in 6.1; the alignment
	 * itself in 6.12, where a mask trips WARN_ON_ONCE(!is_power_of_2(align)):
	 * seen in the VM rig).
	 */
	buf = page_frag_alloc(&t->frag, buflen, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	/* pad >= sizeof(struct tun_xdp_hdr) + hdr_len: no overlap */
	if (vrfd_tap_tx_copy_to_frag(t->ring, buf + pad - t->hdr_len, iov, nout,
				  t->hdr_len + flen)) {
		page_frag_free(buf);
		t->ring->stats.drop_bad_addr++;
		return 0;
	}
	if (!vrfd_tap_tx_hdr(t, buf + pad - t->hdr_len, flen)) {
		page_frag_free(buf);
		return 0;
	}
	xh = buf;
	xh->buflen = buflen;
	if (t->hdr_len)
		memcpy(&xh->gso, buf + pad - t->hdr_len, sizeof(xh->gso));
	else
		memset(&xh->gso, 0, sizeof(xh->gso));
	xdp_init_buff(xdp, buflen, NULL);
	xdp_prepare_buff(xdp, buf, pad, flen, true);
	t->heads[t->nbatch++] = head;
	t->ring->stats.bytes += flen;
	return 1;
}

/**
 * vrfd_tap_tx_push() - write() on a TX ring: send every available chain
 * @t: the attachment
 *
 * Every chain consumed is in the answer: sent, or dropped for any reason,
 * bad-address chains the walker completed on the way included.  0 means
 * the avail ring is empty; a call that stops on the work bound answers a
 * positive count with chains left (the caller compares avail->idx).
 * Return: chains consumed (sent or dropped), 0 when none were available,
 * or -errno: -EPIPE (the tap went away; chains already taken are completed
 * and counted in drop_tap), the walker's errors, -EFAULT (also when the
 * used ring could not be written: the ring is now broken; frames already
 * handed to the tap stay counted in frames), -EINTR (a signal before
 * anything was consumed).
 */
int vrfd_tap_tx_push(struct vrfd_tap *t)
{
	struct vrfd_ring *ring = t->ring;
	struct vrfd_chain ch;
	unsigned int n = 0;
	size_t bytes = 0;
	int r, err = 0;
	u32 w0;

	/* a macvtap/ipvtap's end comes from tap.c's netdevice notifier */
	if (READ_ONCE(t->gone))
		return -EPIPE;
	if (mutex_lock_killable(&ring->lock))
		return -EINTR;
	w0 = vrfd_ring_walked(ring);
	while (!vrfd_over_weight(n, vrfd_ring_walked(ring) - w0, bytes)) {
		u32 flen;

		if (signal_pending(current)) {
			err = -EINTR;
			break;
		}
		cond_resched();
		r = vrfd_ring_get_chain(ring, t->iov, VRFD_TAP_MAX_IOV, &ch);
		n += ch.dropped;	/* bad addresses, completed on the way */
		if (r == -EAGAIN)
			continue;	/* only dropped chains so far: more */
		if (r == 0) {
			/* empty: ask for a kick, and look once more */
			r = vrfd_ring_enable_notify(ring);
			if (r > 0)
				continue;
			err = r;
			break;
		}
		if (r == -E2BIG) {
			n++;
			err = vrfd_ring_skip_chain(ring, &ch);
			if (err)
				break;
			ring->stats.drop_bad_chain++;
			continue;
		}
		if (r < 0) {
			err = r;
			break;
		}
		n++;
		if (ch.nin || ch.out_len < t->hdr_len + ETH_HLEN) {
			ring->stats.drop_bad_chain++;
			goto complete;
		}
		if (ch.out_len > VRFD_TAP_MAX_FRAME + t->hdr_len) {
			ring->stats.drop_too_big++;
			goto complete;
		}
		flen = ch.out_len - t->hdr_len;
		bytes += flen;
		if (tx_batch) {
			r = vrfd_tap_tx_batch(t, t->iov, ch.nout, flen, ch.head);
			if (r == -EAGAIN) {
				/* the batch first: its frames free the page */
				err = vrfd_tap_tx_flush(t);
				if (err)
					goto complete;
				r = vrfd_tap_tx_batch(t, t->iov, ch.nout, flen,
						      ch.head);
			}
			if (r == 1) {
				if (t->nbatch == VRFD_TAP_BATCH) {
					err = vrfd_tap_tx_flush(t);
					if (err)
						break;
				}
				continue;
			}
			if (r == -ENOMEM) {
				err = r;
				goto complete;
			}
			if (r == 0)
				goto complete;
		}
		/* keep the frames in order: what is batched goes first */
		err = vrfd_tap_tx_flush(t);
		if (err)
			goto complete;
		r = vrfd_tap_tx_one(t, t->iov, ch.nout, flen,
				    !tx_batch && vrfd_ring_avail_pending(ring) > 0);
		if (r < 0)
			err = r;
complete:
		err = vrfd_tap_dev_err(err, vrfd_ring_add_used(ring, ch.head, 0));
		if (err)
			break;
	}
	err = vrfd_tap_dev_err(err, vrfd_tap_tx_flush(t));
	err = vrfd_tap_dev_err(err, vrfd_ring_publish_used(ring));
	vrfd_tap_dev_update_drops(t);
	mutex_unlock(&ring->lock);
	/* chains taken before the tap went away are completed (drop_tap) */
	if (n && (err == -EINTR || err == -ENOMEM))
		return n;
	/*
	 * Nothing was sent, so tun had no occasion to answer EBADFD: ask it
	 * whether its device is gone (EPOLLERR), rather than answer "nothing
	 * to do" for ever.
	 */
	if (!err && !n && t->is_tun && vrfd_tap_dev_check_gone(t))
		err = -EPIPE;
	return err ? err : n;
}


/**
 * vrfd_tap_tx_free() - drop the TX frames an attachment still holds
 * @t: the attachment, being freed
 *
 * Frames batched but not handed to the tap (their page references) and the
 * page-fragment cache.
 */
void vrfd_tap_tx_free(struct vrfd_tap *t)
{
	unsigned int i;

	for (i = 0; i < t->nbatch; i++)
		put_page(virt_to_head_page(t->xdp[i].data));
	t->nbatch = 0;
	if (t->frag.va)
		__page_frag_cache_drain(virt_to_head_page(t->frag.va),
					t->frag.pagecnt_bias);
	t->frag.va = NULL;
}

