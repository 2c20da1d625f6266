// SPDX-License-Identifier: GPL-2.0
/*
 * tap.c - the tap attachment: a vring fd bound to one queue of a tun/tap
 * device (VRINGFD_ATTACH_TAP), through the socket that tun_get_socket() and
 * tap_get_socket() give (the symbols vhost-net uses).
 *
 *   TX ring (ring -> tap): write() walks every available chain, copies each
 *	frame into kernel memory and hands it to the tap, many per sendmsg()
 *	(TUN_MSG_PTR with an array of xdp_buffs, as vhost-net does on 6.1)
 *	when the frame fits a page, else one sendmsg() with a kernel copy.
 *	Every chain is completed with length 0.
 *   RX ring (tap -> ring): read(), poll() and write() (a kick) pull: every
 *	frame the tap has queued goes into posted writable chains with one
 *	recvmsg() each; with VRINGFD_TAP_F_MRG_RXBUF a frame may span heads
 *	and num_buffers is set.  Without a posted buffer frames stay in the
 *	tap's queue.
 *
 * The tap file is looked up once (fget) and kept until the attachment ends.
 * Accepted: any fd for which tun_get_socket() or tap_get_socket() gives a
 * socket (vhost-net's get_socket(), without raw sockets): /dev/net/tun
 * attached to a device, macvtap/ipvtap character devices.  As with
 * vhost-net, user space configures the tap (IFF_TAP, IFF_NO_PI,
 * IFF_VNET_HDR, TUNSETVNETHDRSZ, offloads); the module issues no ioctl on
 * it and reads none of its settings.  The ring's header length is the
 * caller's declaration of what the tap uses.  A tap configured otherwise
 * (IFF_TUN, packet information, another header size, changed after
 * attach) gives garbage frames or drops, never memory unsafety:
 *   TX: the module copies each chain (its readable bytes only) into a
 *	kernel buffer of that size and checks the declared header there.  A
 *	batch (TUN_MSG_PTR) carries the header beside the frame: tun and tap
 *	build the skb from it without looking at their own header size or
 *	IFF_NO_PI (as for vhost-net).  A frame sent alone goes through
 *	tun's/tap's sendmsg() with a kernel iterator of exactly that many
 *	bytes, parsed with the tap's real settings (their write() path, for
 *	any bytes).
 *   RX: recvmsg() writes through an iterator over the posted chains'
 *	writable segments (held_cap bytes), so the tap cannot write outside
 *	them whatever it puts in front of the frame.  Its answer is only
 *	trusted within those bounds: a result < 0, > held_cap or < hdr_len
 *	drops the frame (buffers completed empty); num_buffers (12-byte
 *	header) is written at offset 10 of the first head, which the walk
 *	guarantees holds >= hdr_len writable bytes and which the delivered
 *	length (>= hdr_len) covers.
 * The caller may name the device (@ifindex, looked up in its network
 * namespace, which the attachment holds with get_net()) for the
 * tap_rx_dropped stat; no device reference is held.
 *
 * Bad input of VRINGFD_ATTACH_TAP (see also the uapi header):
 *   tap_fd not open                         -EBADF
 *   not a tun/tap/macvtap fd                -EINVAL
 *   dir not TX/RX, vnet_hdr_len not 0/10/12, unknown flag, MRG_RXBUF
 *   without a 12-byte header, padding or reserved != 0, ifindex < 0
 *                                           -EINVAL
 *   header length differs from the one the other ring on the same queue
 *   declared                                -EINVAL
 *   tun fd not attached to a device         -ENODEV
 *   ifindex > 0 not found in the caller's network namespace
 *                                           -ENODEV
 *   ring already attached                   -EBUSY
 *   that queue already has a ring of @dir   -EBUSY
 *   IFF_TUN, no IFF_NO_PI, a header size other than declared
 *                                           accepted (see above)
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
 * Per frame on RX: a readable segment in a posted chain -> drop_bad_chain
 * (chain completed with 0); a frame larger than the posted buffer (or
 * than 1024 segments), or a delivered length beyond the buffers or shorter
 * than the declared header -> dropped, drop_too_big; unwritable memory ->
 * dropped, drop_bad_addr; the tap refusing the buffers (recvmsg() error:
 * shorter than its own header) -> dropped, drop_tap.
 *
 * The tap going away (ip link del): write()/read() fail with EPIPE,
 * poll() reports EPOLLERR|EPOLLHUP, VRINGFD_STATE_HUP is set.  Closing the
 * caller's tap fd changes nothing: the ring holds its own reference to the
 * file (as vhost-net), so the queue keeps working until detach.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/if_tap.h>
#include <linux/if_tun.h>
#include <linux/if_ether.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <linux/string.h>
#include <linux/poll.h>
#include <linux/ptr_ring.h>
#include <linux/skb_array.h>
#include <linux/sched/signal.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/virtio_net.h>
#include <net/sock.h>
#include <net/xdp.h>
#include <linux/vringfd.h>
#include <linux/vringfd_vnet_hdr.h>
#include "ring.h"
#include "tap.h"

/* Frames handed to the tap per sendmsg(TUN_MSG_PTR), as VHOST_NET_BATCH. */
#define VRFD_TAP_BATCH		64
/* Largest frame (without the virtio-net header). */
#define VRFD_TAP_MAX_FRAME	65536
/* Segments of one RX frame (all heads together) or one TX chain. */
#define VRFD_TAP_MAX_IOV	UIO_MAXIOV
/* Headroom in front of a batched TX frame, as vhost-net's RX pad. */
#define VRFD_TAP_PAD		(NET_IP_ALIGN + NET_SKB_PAD)

static bool tx_batch = true;
module_param(tx_batch, bool, 0644);
MODULE_PARM_DESC(tx_batch,
		 "TX: hand page-sized frames to tun many per sendmsg (TUN_MSG_PTR); off: one sendmsg per frame with MSG_MORE");

/**
 * struct vrfd_tapq - registry entry: the rings attached to one tap queue
 * @node: in vrfd_tapq_list
 * @sock: the queue's socket (the key)
 * @tap: the attachment of each direction, or NULL
 * @hdr_len: virtio-net header length shared by both directions
 */
struct vrfd_tapq {
	struct list_head node;
	struct socket *sock;
	struct vrfd_tap *tap[2];
	unsigned int hdr_len;
};

static LIST_HEAD(vrfd_tapq_list);
static DEFINE_MUTEX(vrfd_tapq_lock);

/**
 * struct vrfd_rx_head - a posted RX chain taken but not yet filled
 * @head: head index
 * @niov: its segments in vrfd_tap.iov
 * @cap: its writable bytes
 */
struct vrfd_rx_head {
	u16 head;
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
 * @gone: the tap went away (sendmsg/recvmsg said so, or poll EPOLLERR)
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
 * @held: RX: heads taken and kept for the next frame
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
 */
struct vrfd_tap {
	struct vrfd_ring *ring;
	struct file *file;
	struct socket *sock;
	struct vrfd_tapq *q;
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
};

/* VRINGFD_CAP_TAP_IFINDEX carved ifindex and padding out of reserved[0]. */
static_assert(sizeof(struct vringfd_tap) == 32);
static_assert(offsetof(struct vringfd_tap, ifindex) == 16);
static_assert(offsetof(struct vringfd_tap, reserved) == 24);

/* ---- helpers ----------------------------------------------------------- */

/**
 * vrfd_tap_get_socket() - the socket of a tun or tap (macvtap/ipvtap) file
 * @file: any file
 * @is_tun: set to true for a tun file
 *
 * The symbols are looked up at run time so that vringfd.ko loads without
 * tun.ko and tap.ko; a file of either keeps its module loaded.
 * Return: the socket, ERR_PTR(-EINVAL) (neither), ERR_PTR(-ENODEV) (a tun
 * file not attached to a device).
 */
static struct socket *vrfd_tap_get_socket(struct file *file, bool *is_tun)
{
	struct socket *(*get)(struct file *file);
	struct socket *sock = ERR_PTR(-EINVAL);

	get = symbol_get(tun_get_socket);
	if (get) {
		sock = get(file);
		symbol_put(tun_get_socket);
		if (!IS_ERR(sock)) {
			*is_tun = true;
			return sock;
		}
		if (PTR_ERR(sock) == -EBADFD)
			return ERR_PTR(-ENODEV);
	}
	get = symbol_get(tap_get_socket);
	if (get) {
		sock = get(file);
		symbol_put(tap_get_socket);
		if (!IS_ERR(sock)) {
			*is_tun = false;
			return sock;
		}
		if (PTR_ERR(sock) == -EBADFD)
			return ERR_PTR(-ENODEV);
	}
	return ERR_PTR(-EINVAL);
}

/**
 * vrfd_tap_get_ring() - the tap's queue of frames for user space
 * @file: a tun or tap file (already recognised)
 * @is_tun: which
 *
 * Return: the ptr_ring, or NULL (then frames are taken one recvmsg() at a
 * time).
 */
static struct ptr_ring *vrfd_tap_get_ring(struct file *file, bool is_tun)
{
	struct ptr_ring *(*get)(struct file *file);
	struct ptr_ring *ring = NULL;

	if (is_tun) {
		get = symbol_get(tun_get_tx_ring);
		if (get) {
			ring = get(file);
			symbol_put(tun_get_tx_ring);
		}
	} else {
		get = symbol_get(tap_get_ptr_ring);
		if (get) {
			ring = get(file);
			symbol_put(tap_get_ptr_ring);
		}
	}
	return IS_ERR_OR_NULL(ring) ? NULL : ring;
}

/**
 * vrfd_tap_iov_copy() - copy between a kernel buffer and a user iovec array
 * @iov: segments (user addresses)
 * @niov: number of segments
 * @off: byte offset into the segments
 * @buf: kernel buffer
 * @len: bytes
 * @to_user: direction
 *
 * Return: 0, or -EFAULT (fault, or the segments end before @off + @len).
 */
static int vrfd_tap_iov_copy(const struct iovec *iov, unsigned int niov,
			     size_t off, void *buf, size_t len, bool to_user)
{
	unsigned int i;

	for (i = 0; i < niov && len; i++) {
		size_t seg = iov[i].iov_len, n;
		char __user *p;

		if (off >= seg) {
			off -= seg;
			continue;
		}
		p = (char __user *)iov[i].iov_base + off;
		n = min(seg - off, len);
		if (to_user ? copy_to_user(p, buf, n) : copy_from_user(buf, p, n))
			return -EFAULT;
		buf += n;
		len -= n;
		off = 0;
	}
	return len ? -EFAULT : 0;
}

/**
 * vrfd_tap_copy_to_frag() - copy a chain's bytes into a page-fragment buffer
 * @dst: inside a page of the attachment's fragment cache
 * @iov: the chain's segments (user addresses)
 * @niov: their number
 * @len: bytes, the segments' total
 *
 * As tun does, through copy_page_from_iter(): the destination is a page, so
 * the hardened-usercopy object check (a walk of the page's metadata for
 * every copy) has nothing to check.
 * Return: 0, or -EFAULT.
 */
static int vrfd_tap_copy_to_frag(void *dst, const struct iovec *iov,
				 unsigned int niov, size_t len)
{
	struct iov_iter it;

	iov_iter_init(&it, ITER_SOURCE, iov, niov, len);
	if (copy_page_from_iter(virt_to_page(dst), offset_in_page(dst), len,
				&it) != len)
		return -EFAULT;
	return 0;
}

/**
 * vrfd_tap_set_gone() - the tap went away: set the ring's HUP (once)
 * @t: the attachment
 */
static void vrfd_tap_set_gone(struct vrfd_tap *t)
{
	if (!xchg(&t->gone, true))
		vrfd_ring_set_hup(t->ring);
}

/**
 * vrfd_tap_check_gone() - has the tap gone away?  Sets the ring's HUP
 * @t: the attachment
 *
 * Asks the tap's own poll (it reports EPOLLERR once the device is gone).
 * Return: true when gone.
 */
static bool vrfd_tap_check_gone(struct vrfd_tap *t)
{
	if (!READ_ONCE(t->gone) && (vfs_poll(t->file, NULL) & EPOLLERR))
		vrfd_tap_set_gone(t);
	return READ_ONCE(t->gone);
}

/**
 * vrfd_tap_update_drops() - copy the device's own drop counter to the stats
 * @t: the attachment
 *
 * TX ring: the tap's rx_dropped (frames tun refused on their way to the
 * stack); RX ring: its tx_dropped (frames the stack gave the tap while its
 * queue was full).  Found by ifindex; nothing when the device is gone.
 * At most once a jiffy (and so at most a tick stale).
 * Context: @ring->lock held.
 */
static void vrfd_tap_update_drops(struct vrfd_tap *t)
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

/* ---- TX ---------------------------------------------------------------- */

/**
 * vrfd_tap_tx_flush() - hand the batched frames to the tap, complete them
 * @t: the attachment
 *
 * Return: 0, or -EPIPE (the tap went away; the frames were freed and their
 * chains completed, and counted in drop_tap).
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
	int ret;

	if (!n)
		return 0;
	ret = t->sock->ops->sendmsg(t->sock, &msg, 0);
	if (ret < 0) {
		/* not consumed: tun refused the whole batch (device gone) */
		for (i = 0; i < n; i++)
			put_page(virt_to_head_page(t->xdp[i].data));
		ring->stats.drop_tap += n;
		if (ret == -EBADFD)
			vrfd_tap_set_gone(t);
	} else {
		ring->stats.frames += n;
	}
	for (i = 0; i < n; i++)
		vrfd_ring_add_used(ring, t->heads[i], 0);
	t->nbatch = 0;
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

	if (vrfd_tap_iov_copy(iov, nout, 0, t->bounce, kv.iov_len, false)) {
		ring->stats.drop_bad_addr++;
		return 0;
	}
	if (!vrfd_tap_tx_hdr(t, t->bounce, flen))
		return 0;
	iov_iter_kvec(&msg.msg_iter, ITER_SOURCE, &kv, 1, kv.iov_len);
	ret = t->sock->ops->sendmsg(t->sock, &msg, kv.iov_len);
	if (ret == -EBADFD) {
		vrfd_tap_set_gone(t);
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
	 * multiple of SMP_CACHE_BYTES (SKB_DATA_ALIGN) and the cache carves
	 * fragments from the end of its page downwards (6.1 and 6.12), so
	 * every fragment starts on a cache line.  page_frag_alloc_align()'s
	 * last argument changed meaning between the two kernels (a mask,
	 * ~(align - 1), in 6.1; the alignment itself in 6.12, where a mask
	 * trips WARN_ON_ONCE(!is_power_of_2(align)): seen in the VM rig).
	 */
	buf = page_frag_alloc(&t->frag, buflen, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	/* pad >= sizeof(struct tun_xdp_hdr) + hdr_len: no overlap */
	if (vrfd_tap_copy_to_frag(buf + pad - t->hdr_len, iov, nout,
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
 * vrfd_tap_push_tx() - write() on a TX ring: send every available chain
 * @t: the attachment
 *
 * Return: chains consumed (sent or dropped), 0 when none were available,
 * or -errno: -EPIPE (the tap went away; chains already taken are completed
 * and counted in drop_tap), the walker's errors, -EINTR (a signal before
 * anything was consumed).
 */
static int vrfd_tap_push_tx(struct vrfd_tap *t)
{
	struct vrfd_ring *ring = t->ring;
	struct vrfd_chain ch;
	unsigned int n = 0;
	size_t bytes = 0;
	int r, err = 0;
	u32 w0;

	if (READ_ONCE(t->gone) || (!t->is_tun && vrfd_tap_check_gone(t)))
		return -EPIPE;
	if (mutex_lock_killable(&ring->lock))
		return -EINTR;
	w0 = vrfd_walked(ring);
	while (!vrfd_over_weight(n, vrfd_walked(ring) - w0, bytes)) {
		u32 flen;

		if (signal_pending(current)) {
			err = -EINTR;
			break;
		}
		cond_resched();
		r = vrfd_ring_get_chain(ring, t->iov, VRFD_TAP_MAX_IOV, &ch);
		if (r == 0) {
			/* empty: ask for a kick, and look once more */
			r = vrfd_ring_enable_notify(ring);
			if (r > 0)
				continue;
			err = r;
			break;
		}
		if (r == -E2BIG) {
			vrfd_ring_skip_chain(ring, &ch);
			ring->stats.drop_bad_chain++;
			n++;
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
		vrfd_ring_add_used(ring, ch.head, 0);
		if (err)
			break;
	}
	if (vrfd_tap_tx_flush(t) && !err)
		err = -EPIPE;
	vrfd_ring_publish_used(ring);
	vrfd_tap_update_drops(t);
	mutex_unlock(&ring->lock);
	/* chains taken before the tap went away are completed (drop_tap) */
	if (n && (err == -EINTR || err == -ENOMEM))
		return n;
	return err ? err : n;
}

/* ---- RX ---------------------------------------------------------------- */

/**
 * vrfd_tap_rx_release() - complete the first @k held heads, drop them
 * @t: the attachment
 * @k: heads to complete
 * @written: bytes the frame took, spread over the heads in order; 0
 *	completes them empty
 */
static void vrfd_tap_rx_release(struct vrfd_tap *t, unsigned int k, u64 written)
{
	unsigned int i, iovs = 0;
	u64 cap = 0;

	for (i = 0; i < k; i++) {
		u64 part = min(t->held[i].cap, written);

		vrfd_ring_add_used(t->ring, t->held[i].head, (u32)part);
		written -= part;
		iovs += t->held[i].niov;
		cap += t->held[i].cap;
	}
	t->nheld -= k;
	t->held_iov -= iovs;
	t->held_cap -= cap;
	if (!t->nheld)
		return;		/* the common case: nothing left to move */
	memmove(t->held, t->held + k, t->nheld * sizeof(t->held[0]));
	memmove(t->iov, t->iov + iovs, t->held_iov * sizeof(t->iov[0]));
}

/**
 * vrfd_tap_ptr_free() - free one entry of a tap's frame queue
 * @ptr: an sk_buff, or (tun) an xdp_frame tagged with TUN_XDP_FLAG
 */
static void vrfd_tap_ptr_free(void *ptr)
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
static void vrfd_tap_rx_unbatch(struct vrfd_tap *t)
{
	if (t->rxring && t->rxq_head < t->rxq_tail)
		ptr_ring_unconsume(t->rxring, t->rxq + t->rxq_head,
				   t->rxq_tail - t->rxq_head, vrfd_tap_ptr_free);
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
 * @w0: vrfd_walked() at the start of this call
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
		if (vrfd_over_weight(*n, vrfd_walked(ring) - w0, 0))
			return 0;
		(*n)++;
		r = vrfd_ring_get_chain(ring, t->iov + t->held_iov,
					VRFD_TAP_MAX_IOV - t->held_iov, &ch);
		if (r == -E2BIG && t->nheld)
			return 1;	/* this frame has all it can get */
		if (r == -E2BIG) {
			vrfd_ring_skip_chain(ring, &ch);
			ring->stats.drop_bad_chain++;
			continue;
		}
		if (r <= 0)
			return r;
		if (ch.nout || !ch.in_len || ch.in_len < t->hdr_len) {
			vrfd_ring_add_used(ring, ch.head, 0);
			ring->stats.drop_bad_chain++;
			continue;
		}
		t->held[t->nheld].head = ch.head;
		t->held[t->nheld].niov = ch.nin;
		t->held[t->nheld].cap = ch.in_len;
		t->nheld++;
		t->held_iov += ch.nin;
		t->held_cap += ch.in_len;
	}
	return 1;
}

/**
 * vrfd_tap_put_num_buffers() - write num_buffers into a delivered frame's
 * virtio_net_hdr_v1
 * @t: the attachment (its first held head starts with the header)
 * @k: heads the frame took
 *
 * One store when the field lies in the first segment (the usual layout),
 * else a copy across the segments.
 * Return: 0, or -EFAULT.
 */
static int vrfd_tap_put_num_buffers(struct vrfd_tap *t, unsigned int k)
{
	const size_t off = offsetof(struct virtio_net_hdr_v1, num_buffers);
	__le16 nb = cpu_to_le16(k);

	if (t->iov[0].iov_len >= off + sizeof(nb))
		return put_user(nb, (__le16 __user *)(t->iov[0].iov_base + off)) ?
		       -EFAULT : 0;
	return vrfd_tap_iov_copy(t->iov, t->held[0].niov, off, &nb, sizeof(nb), true);
}

/**
 * vrfd_tap_pull_rx() - move every queued frame into posted buffers
 * @t: the attachment
 *
 * Return: buffers (heads) used, or -errno: -EPIPE (the tap went away and
 * nothing was used), the walker's errors.
 */
static int vrfd_tap_pull_rx(struct vrfd_tap *t)
{
	struct vrfd_ring *ring = t->ring;
	unsigned int used = 0, n = 0;
	size_t bytes = 0;
	int err = 0;
	u32 w0;

	if (mutex_lock_killable(&ring->lock))
		return -EINTR;
	w0 = vrfd_walked(ring);
	while (!vrfd_over_weight(n, vrfd_walked(ring) - w0, bytes)) {
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
			if (vrfd_tap_check_gone(t))
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
				vrfd_tap_set_gone(t);
				err = -EPIPE;
				break;
			}
			ring->stats.drop_too_big++;
			n++;
			continue;
		}
		iov_iter_init(&msg.msg_iter, ITER_DEST, t->iov, t->held_iov, t->held_cap);
		r = vrfd_tap_rx_recvmsg(t, &msg, t->held_cap);
		if (r == -EAGAIN)
			break;
		if (r == -EBADFD) {
			vrfd_tap_set_gone(t);
			err = -EPIPE;
			break;
		}
		n++;
		bad = false;
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
			if (vrfd_tap_put_num_buffers(t, k)) {
				ring->stats.drop_bad_addr++;
				bad = true;
			}
		}
		if (bad) {
			/* give the buffers back empty */
			used += t->nheld;
			vrfd_tap_rx_release(t, t->nheld, 0);
			continue;
		}
		vrfd_tap_rx_release(t, k, r);
		used += k;
		ring->stats.frames++;
		ring->stats.bytes += r - t->hdr_len;
		bytes += r;
	}
	vrfd_ring_publish_used(ring);
	vrfd_tap_update_drops(t);
	mutex_unlock(&ring->lock);
	if (used && (err == -EINTR || err == -EPIPE))
		return used;
	return err ? err : used;
}

/* ---- callbacks ----------------------------------------------------------- */

/**
 * vrfd_tap_push() - write() on the ring
 * @data: the attachment
 *
 * TX: send every available chain.  RX: a kick: pull now.
 * Return: chains consumed / buffers used, or -errno.
 */
static int vrfd_tap_push(void *data)
{
	struct vrfd_tap *t = data;

	if (t->dir == VRINGFD_DIR_TX)
		return vrfd_tap_push_tx(t);
	return vrfd_tap_pull_rx(t);
}

/**
 * vrfd_tap_pull() - poll() and read() on the ring
 * @data: the attachment
 *
 * RX: fill posted buffers.  TX: nothing to pull (frames are sent by
 * write()), but a tap that went away is reported.
 * Return: buffers used, or -errno (-EPIPE: the tap went away).
 */
static int vrfd_tap_pull(void *data)
{
	struct vrfd_tap *t = data;

	if (t->dir == VRINGFD_DIR_RX)
		return vrfd_tap_pull_rx(t);
	return vrfd_tap_check_gone(t) ? -EPIPE : 0;
}

/**
 * vrfd_tap_poll() - extra poll() events: EPOLLERR|EPOLLHUP once the tap is gone
 * @data: the attachment
 * @file: the vring fd's file
 * @wait: poll table (unused: our entry on the tap's wait queue wakes the
 *	ring's own queue)
 *
 * Return: EPOLLERR|EPOLLHUP or 0.
 */
static __poll_t vrfd_tap_poll(void *data, struct file *file, poll_table *wait)
{
	struct vrfd_tap *t = data;

	return vrfd_tap_check_gone(t) ? EPOLLERR | EPOLLHUP : 0;
}

/**
 * vrfd_tap_wake() - the tap's wait queue was woken: wake the ring's waiters
 * @wait: our entry
 * @mode: unused
 * @sync: unused
 * @key: the events (unused: the ring's poll() finds out)
 *
 * Context: any (the tap's wait queue lock is held).
 * Return: 0.
 */
static int vrfd_tap_wake(wait_queue_entry_t *wait, unsigned int mode, int sync,
			 void *key)
{
	struct vrfd_tap *t = container_of(wait, struct vrfd_tap, wait);

	vrfd_ring_wake(t->ring);
	return 0;
}

/**
 * vrfd_tap_queue_proc() - poll table callback: join the tap's wait queue
 * @file: the tap file
 * @whead: its wait queue
 * @pt: our poll table
 */
static void vrfd_tap_queue_proc(struct file *file, wait_queue_head_t *whead,
				poll_table *pt)
{
	struct vrfd_tap *t = container_of(pt, struct vrfd_tap, pt);

	if (t->whead)
		return;
	t->whead = whead;
	add_wait_queue(whead, &t->wait);
}

/**
 * vrfd_tap_free() - release everything an attachment holds (not the ring)
 * @t: the attachment (its registry entry already removed)
 */
static void vrfd_tap_free(struct vrfd_tap *t)
{
	unsigned int i;

	if (t->whead)
		remove_wait_queue(t->whead, &t->wait);
	vrfd_tap_rx_unbatch(t);
	for (i = 0; i < t->nbatch; i++)
		put_page(virt_to_head_page(t->xdp[i].data));
	if (t->frag.va)
		__page_frag_cache_drain(virt_to_head_page(t->frag.va),
					t->frag.pagecnt_bias);
	if (t->file)
		fput(t->file);
	if (t->net)
		put_net(t->net);
	kvfree(t->bounce);
	kvfree(t->iov);
	kvfree(t);
}

/**
 * vrfd_tapq_remove() - take @t out of the registry
 * @t: the attachment
 */
static void vrfd_tapq_remove(struct vrfd_tap *t)
{
	struct vrfd_tapq *q = t->q;

	if (!q)
		return;
	mutex_lock(&vrfd_tapq_lock);
	q->tap[t->dir] = NULL;
	if (!q->tap[!t->dir]) {
		list_del(&q->node);
		kfree(q);
	}
	mutex_unlock(&vrfd_tapq_lock);
	t->q = NULL;
}

/**
 * vrfd_tapq_add() - register @t on its queue
 * @t: the attachment (sock, dir, hdr_len set)
 *
 * Return: 0, -EBUSY (the queue has a ring of this direction), -EINVAL (the
 * other direction uses another header length), -ENOMEM.
 */
static int vrfd_tapq_add(struct vrfd_tap *t)
{
	struct vrfd_tapq *q;
	int err = 0;

	mutex_lock(&vrfd_tapq_lock);
	list_for_each_entry(q, &vrfd_tapq_list, node) {
		if (q->sock != t->sock)
			continue;
		if (q->tap[t->dir])
			err = -EBUSY;
		else if (q->hdr_len != t->hdr_len)
			err = -EINVAL;
		else
			q->tap[t->dir] = t;
		goto out;
	}
	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q) {
		err = -ENOMEM;
		goto out;
	}
	q->sock = t->sock;
	q->hdr_len = t->hdr_len;
	q->tap[t->dir] = t;
	list_add(&q->node, &vrfd_tapq_list);
out:
	if (!err)
		t->q = q;
	mutex_unlock(&vrfd_tapq_lock);
	return err;
}

/**
 * vrfd_tap_destroy() - the vring fd is closed or detached: let the tap go
 * @data: the attachment
 */
static void vrfd_tap_destroy(void *data)
{
	struct vrfd_tap *t = data;
	struct vrfd_ring *ring = t->ring;

	vrfd_tapq_remove(t);
	vrfd_tap_free(t);
	vrfd_ring_detach(ring);
}

static const struct vrfd_ops vrfd_tap_ops = {
	.destroy = vrfd_tap_destroy,
	.pull = vrfd_tap_pull,
	.push = vrfd_tap_push,
	.poll = vrfd_tap_poll,
};

/**
 * vrfd_tap_find_dev() - check the caller's @ifindex, keep it for the stats
 * @t: the attachment
 * @ifindex: struct vringfd_tap.ifindex (> 0)
 *
 * The device is looked up in the caller's network namespace, which the
 * attachment holds (get_net()): the caller's namespace may die (with the
 * device) while the ring lives.  No device reference is kept: the ifindex
 * is looked up again at each drop-counter refresh, and it is used for
 * nothing else.
 * Return: 0, or -ENODEV (no such device).
 */
static int vrfd_tap_find_dev(struct vrfd_tap *t, int ifindex)
{
	struct net *net = current->nsproxy->net_ns;
	struct net_device *dev;

	dev = dev_get_by_index(net, ifindex);
	if (!dev)
		return -ENODEV;
	dev_put(dev);
	t->net = get_net(net);
	t->ifindex = ifindex;
	return 0;
}

/**
 * vrfd_tap_attach() - attach @ring to the tap queue described at @arg
 * @ring: an unattached vring
 * @arg: user pointer to struct vringfd_tap
 *
 * Return: 0, or -errno (see VRINGFD_ATTACH_TAP and the table at the top of
 * this file).
 */
long vrfd_tap_attach(struct vrfd_ring *ring, const struct vringfd_tap __user *arg)
{
	struct vringfd_tap a;
	struct vrfd_tap *t;
	long err;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.dir > VRINGFD_DIR_RX || a.padding || a.reserved || a.ifindex < 0 ||
	    (a.flags & ~VRINGFD_TAP_F_MRG_RXBUF))
		return -EINVAL;
	if (a.vnet_hdr_len != 0 && a.vnet_hdr_len != sizeof(struct virtio_net_hdr) &&
	    a.vnet_hdr_len != sizeof(struct virtio_net_hdr_v1))
		return -EINVAL;
	if ((a.flags & VRINGFD_TAP_F_MRG_RXBUF) &&
	    a.vnet_hdr_len != sizeof(struct virtio_net_hdr_v1))
		return -EINVAL;
	err = vrfd_ring_check(ring);
	if (err)
		return err;

	t = kvzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	if (!t)
		return -ENOMEM;
	t->ring = ring;
	t->dir = a.dir;
	t->hdr_len = a.vnet_hdr_len;
	t->mrg = a.flags & VRINGFD_TAP_F_MRG_RXBUF;
	t->drops_jiffies = jiffies - 1;
	init_waitqueue_func_entry(&t->wait, vrfd_tap_wake);
	init_poll_funcptr(&t->pt, vrfd_tap_queue_proc);

	t->file = fget(a.tap_fd);
	if (!t->file) {
		err = -EBADF;
		goto err_free;
	}
	t->sock = vrfd_tap_get_socket(t->file, &t->is_tun);
	if (IS_ERR(t->sock)) {
		err = PTR_ERR(t->sock);
		t->sock = NULL;
		goto err_free;
	}

	if (a.ifindex) {
		err = vrfd_tap_find_dev(t, a.ifindex);
		if (err)
			goto err_free;
	}

	if (t->dir == VRINGFD_DIR_RX)
		t->rxring = vrfd_tap_get_ring(t->file, t->is_tun);

	err = -ENOMEM;
	t->iov = kvmalloc_array(VRFD_TAP_MAX_IOV, sizeof(*t->iov), GFP_KERNEL_ACCOUNT);
	if (!t->iov)
		goto err_free;
	if (t->dir == VRINGFD_DIR_TX) {
		t->bounce = kvmalloc(VRFD_TAP_MAX_FRAME + t->hdr_len, GFP_KERNEL_ACCOUNT);
		if (!t->bounce)
			goto err_free;
	}

	/* join the tap's wait queue: its frames and its end wake our poll() */
	vfs_poll(t->file, &t->pt);
	if (!t->whead) {
		err = -ENODEV;	/* tun answers EPOLLERR at once: no device */
		goto err_free;
	}
	err = vrfd_tapq_add(t);
	if (err)
		goto err_free;
	err = vrfd_ring_attach(ring, &vrfd_tap_ops, t, false);
	if (err)
		goto err_unregister;
	return 0;

err_unregister:
	vrfd_tapq_remove(t);
err_free:
	vrfd_tap_free(t);
	/* tun answers EBADFD when its device goes away during the attach */
	return err == -EBADFD ? -ENODEV : err;
}
