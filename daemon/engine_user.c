// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * engine_user.c - the user engine: the daemon plays the virtio device
 *
 * Rings are walked with libvringfd's vringfd_dev_* (the same validation
 * rules as the module: masked indices, bounded chains, a private used
 * index, avail jumps refused), and every frame is one writev() (tx) or
 * readv() (rx) on the tap fd, straight between the ring buffers and the
 * tap: the virtio-net header in the ring is the tap's IFF_VNET_HDR header,
 * so no frame is copied in between (on tx the tap gets the engine's checked
 * copy of the header).  Rings without a header (vnet_hdr_len 0) get a zero
 * header prepended on tx and stripped on rx.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/virtio_net.h>
#include <linux/vringfd_vnet_hdr.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "dirty_log.h"
#include "engine.h"
#include "evfd.h"
#include "log.h"
#include "tap.h"
#include "vringfd.h"

#define ENGINE_USER_MAX_IOV		1024	/* UIO_MAXIOV: one writev()/readv() */
#define ENGINE_USER_MAX_FRAME		65535	/* largest frame without its header */
#define ENGINE_USER_MRG_MAX_HEADS	64	/* heads one received frame may span */
#define ENGINE_USER_MRG_WANT		(ENGINE_USER_MAX_FRAME + 12)

/**
 * struct engine_queue - a ring pair bound to a tap queue (user engine)
 * @tap_fd: the tap queue (not owned)
 * @hdr_len: virtio-net header bytes in front of each frame in the rings
 * @tap_hdr_len: the tap's header size (@hdr_len, or 12 when @hdr_len is 0)
 * @mrg_rxbuf: a received frame may span heads (num_buffers in the header)
 * @tx: device view of the tx ring
 * @rx: device view of the rx ring
 * @regions: copy of the memory table (guest-physical descriptor addresses)
 * @nregions: entries in @regions
 * @tx_call_fd: eventfd for tx interrupts, or -1
 * @rx_call_fd: eventfd for rx interrupts, or -1
 * @stx: tx counters
 * @srx: rx counters
 * @log: dirty log of a migrating guest, or NULL (engine_user_log_used(), engine_user_rx())
 * @log_tx: log the tx used ring (its engine_ring.log_used)
 * @log_rx: log the rx used ring
 * @used_gpa: guest-physical address of each used ring, [ENGINE_TX], [ENGINE_RX]
 * @iov: scratch segments for one frame (slot 0 for a prepended header,
 *	then the chains, then @overflow)
 * @overflow: catches the part of a frame longer than the posted buffers:
 *	some kernels' tun returns the full length of a truncated frame,
 *	newer ones only what was copied; with this last segment both say
 *	"longer than the buffers" the same way
 */
struct engine_queue {
	int tap_fd;
	unsigned int hdr_len;
	unsigned int tap_hdr_len;
	bool mrg_rxbuf;
	struct vringfd_dev tx;
	struct vringfd_dev rx;
	struct engine_mem_region *regions;
	unsigned int nregions;
	int tx_call_fd;
	int rx_call_fd;
	struct engine_stats stx;
	struct engine_stats srx;
	struct dirty_log *log;
	bool log_tx;
	bool log_rx;
	uint64_t used_gpa[2];
	struct iovec iov[ENGINE_USER_MAX_IOV + 1];
	uint8_t overflow[ENGINE_USER_MAX_FRAME + 64];
};

/**
 * engine_user_xlate() - guest-physical address to a pointer in this process
 * @opaque: the queue
 * @addr: descriptor address
 * @len: wanted length; on return, contiguous length at the result
 *
 * Return: the pointer, or NULL when @addr is in no region.
 */
static void *engine_user_xlate(void *opaque, uint64_t addr, uint64_t *len)
{
	struct engine_queue *q = opaque;
	const struct engine_mem_region *r = engine_region_find(q->regions, q->nregions, addr, len);

	return r ? (char *)r->uaddr + (addr - r->guest_addr) : NULL;
}

/**
 * engine_user_log_used() - mark a used ring's pages dirty (migration)
 * @q: the queue
 * @dir: which ring
 *
 * The whole used ring (flags, idx, elements, avail_event) after the
 * device wrote any of it: at most 65 pages, usually one.
 */
static void engine_user_log_used(struct engine_queue *q, enum engine_dir dir)
{
	const struct vringfd_dev *dev = dir == ENGINE_TX ? &q->tx : &q->rx;

	if (q->log && (dir == ENGINE_TX ? q->log_tx : q->log_rx))
		dirty_log_mark(q->log, q->used_gpa[dir], 6 + 8 * (uint64_t)dev->num);
}

/**
 * engine_user_notify() - signal a call eventfd if virtio's rules ask for it
 * @dev: the ring
 * @fd: eventfd or -1
 * @st: counters of that direction
 */
static void engine_user_notify(struct vringfd_dev *dev, int fd, struct engine_stats *st)
{
	vringfd_dev_publish_used(dev);
	if (fd < 0 || !vringfd_dev_need_notify(dev))
		return;
	st->syscalls++;
	if (evfd_signal(fd))
		st->notifies++;
}

/**
 * engine_user_gather() - copy the first bytes of a segment list
 * @iov: segments
 * @n: number of segments
 * @dst: output
 * @len: bytes wanted (the segments hold at least that many)
 */
static void engine_user_gather(const struct iovec *iov, unsigned int n, void *dst, size_t len)
{
	char *d = dst;
	unsigned int i;

	for (i = 0; i < n && len; i++) {
		size_t k = iov[i].iov_len < len ? iov[i].iov_len : len;

		memcpy(d, iov[i].iov_base, k);
		d += k;
		len -= k;
	}
}

/**
 * engine_user_scatter() - write bytes at an offset of a segment list
 * @iov: segments
 * @n: number of segments
 * @off: offset in the list
 * @src: bytes
 * @len: how many
 */
static void engine_user_scatter(const struct iovec *iov, unsigned int n, size_t off,
			 const void *src, size_t len)
{
	const char *s = src;
	unsigned int i;

	for (i = 0; i < n && len; i++) {
		size_t k;

		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		k = iov[i].iov_len - off < len ? iov[i].iov_len - off : len;
		memcpy((char *)iov[i].iov_base + off, s, k);
		s += k;
		len -= k;
		off = 0;
	}
}

/**
 * engine_user_count_walk_drop() - count a chain the ring walker refused
 * @st: counters
 * @ret: vringfd_dev_get_chain()'s error (-EFAULT: address outside memory,
 *	-E2BIG: more segments than one writev()/readv() takes)
 */
static void engine_user_count_walk_drop(struct engine_stats *st, int ret)
{
	if (ret == -EFAULT)
		st->drop_bad_addr++;
	else if (ret == -E2BIG)
		st->drop_too_big++;
	else
		st->drop_bad_chain++;
}

/**
 * engine_user_hdr_valid() - check a virtio-net header from the driver
 * @h: the header (@hdr_len bytes)
 * @hdr_len: 10 or 12
 * @frame_len: bytes of frame after it
 *
 * The policy vringfd.ko applies as well (<linux/vringfd_vnet_hdr.h>), so
 * both engines count the same frames in drop_bad_hdr.
 * Return: true when the frame may go to the tap.
 */
static bool engine_user_hdr_valid(const void *h, unsigned int hdr_len, uint64_t frame_len)
{
	enum vringfd_vnet_hdr_verdict v;

	v = vringfd_vnet_hdr_check(h, hdr_len, (uint32_t)frame_len);
	if (v != VRINGFD_VNET_HDR_OK)
		log_debug("user engine: tx header refused: %s", vringfd_vnet_hdr_reason(v));
	return v == VRINGFD_VNET_HDR_OK;
}

/**
 * engine_user_open() - bind a ring pair to a tap queue
 * @cfg: rings, tap, header length, memory table
 * @err: message buffer
 * @errlen: its size
 *
 * Return: the queue, or NULL with @err filled.
 */
static struct engine_queue *engine_user_open(const struct engine_queue_config *cfg,
				   char *err, size_t errlen)
{
	struct engine_queue *q;
	int ret;

	if (cfg->vnet_hdr_len != 0 && cfg->vnet_hdr_len != 10 && cfg->vnet_hdr_len != 12) {
		snprintf(err, errlen, "user engine: virtio-net header of %u bytes (0, 10 or 12)",
			 cfg->vnet_hdr_len);
		return NULL;
	}
	if (cfg->mrg_rxbuf && cfg->vnet_hdr_len != 12) {
		snprintf(err, errlen, "user engine: mergeable rx buffers need the 12-byte header");
		return NULL;
	}
	if (cfg->ring_fds) {
		snprintf(err, errlen, "user engine: passed vring fds need the kernel engine");
		return NULL;
	}
	if (cfg->nregions && !cfg->regions) {
		snprintf(err, errlen, "user engine: %u memory regions but no table", cfg->nregions);
		return NULL;
	}
	q = calloc(1, sizeof(*q));
	if (!q) {
		snprintf(err, errlen, "user engine: %s", strerror(ENOMEM));
		return NULL;
	}
	q->tap_fd = cfg->tap_fd;
	q->hdr_len = cfg->vnet_hdr_len;
	q->tap_hdr_len = cfg->vnet_hdr_len ? cfg->vnet_hdr_len : 12;
	q->mrg_rxbuf = cfg->mrg_rxbuf;
	q->tx_call_fd = cfg->tx_call_fd;
	q->rx_call_fd = cfg->rx_call_fd;
	q->log = cfg->log;
	q->log_tx = cfg->tx.log_used;
	q->log_rx = cfg->rx.log_used;
	q->used_gpa[ENGINE_TX] = cfg->tx.used_gpa;
	q->used_gpa[ENGINE_RX] = cfg->rx.used_gpa;
	if (cfg->nregions) {
		q->regions = calloc(cfg->nregions, sizeof(*q->regions));
		if (!q->regions) {
			snprintf(err, errlen, "user engine: %s", strerror(ENOMEM));
			goto fail;
		}
		memcpy(q->regions, cfg->regions, cfg->nregions * sizeof(*q->regions));
		q->nregions = cfg->nregions;
	}
	ret = vringfd_dev_init(&q->tx, cfg->tx.num, cfg->tx.desc, cfg->tx.avail,
			       cfg->tx.used, cfg->ring_features);
	if (ret < 0) {
		snprintf(err, errlen, "user engine: tx ring of %u: %s", cfg->tx.num,
			 strerror(-ret));
		goto fail;
	}
	ret = vringfd_dev_init(&q->rx, cfg->rx.num, cfg->rx.desc, cfg->rx.avail,
			       cfg->rx.used, cfg->ring_features);
	if (ret < 0) {
		snprintf(err, errlen, "user engine: rx ring of %u: %s", cfg->rx.num,
			 strerror(-ret));
		goto fail;
	}
	/* vhost-user resumes both indexes at SET_VRING_BASE's value. */
	vringfd_dev_set_base(&q->tx, cfg->tx.last_avail, cfg->tx.last_avail);
	vringfd_dev_set_base(&q->rx, cfg->rx.last_avail, cfg->rx.last_avail);
	if (q->nregions) {
		q->tx.xlate = q->rx.xlate = engine_user_xlate;
		q->tx.xlate_opaque = q->rx.xlate_opaque = q;
	}
	if (tap_set_vnet_hdr_len(q->tap_fd, q->tap_hdr_len, "user engine", err, errlen) < 0)
		goto fail;
	return q;
fail:
	free(q->regions);
	free(q);
	return NULL;
}

/**
 * engine_user_tx() - send available tx chains to the tap, one writev() each
 * @q: the queue
 * @budget: charged one frame (and its bytes) per chain consumed; the walk
 *	stops when it is spent
 *
 * Chains with writable segments, shorter than header + Ethernet header,
 * longer than 64 KiB + header, or with an invalid header are completed
 * with length 0 and counted; the walk itself never stops on them.
 *
 * A tap that went away (EBADFD: deleted, its queue detached) ends the
 * walk: that chain is completed and counted in drop_tap, and -EPIPE says
 * so, as the kernel engine does (the pump reports the pair broken).
 *
 * Return: chains consumed, -EIO when the ring is broken, or -EPIPE.
 */
static int engine_user_tx(struct engine_queue *q, struct engine_budget *budget)
{
	static const uint8_t zero_hdr[12];
	struct vringfd_chain ch;
	unsigned int n = 0;
	bool gone = false;
	int ret = 0;

	while (!gone && n < q->tx.num && !engine_budget_spent(budget)) {
		struct virtio_net_hdr_mrg_rxbuf h;
		uint64_t frame_len = 0;
		ssize_t w;

		ret = vringfd_dev_get_chain(&q->tx, &ch, q->iov + 1, ENGINE_USER_MAX_IOV - 1);
		if (ret == 0 || ret == -EIO)
			break;
		n++;
		if (ret < 0) {	/* dropped by the walker: complete with 0 */
			engine_user_count_walk_drop(&q->stx, ret);
			ret = 0;
			goto done;
		}
		if (ch.nin || ch.out_len < q->hdr_len + ETH_HLEN) {
			q->stx.drop_bad_chain++;
			goto done;
		}
		frame_len = ch.out_len - q->hdr_len;
		if (frame_len > ENGINE_USER_MAX_FRAME) {
			q->stx.drop_too_big++;
			goto done;
		}
		if (q->hdr_len) {
			struct iovec *seg = ch.out;
			size_t skip = q->hdr_len;

			engine_user_gather(ch.out, ch.nout, &h, sizeof(h));
			if (!engine_user_hdr_valid(&h, q->hdr_len, frame_len)) {
				q->stx.drop_bad_hdr++;
				goto done;
			}
			/* The tap gets the checked copy, not the guest's
			 * header, which may have changed since: the segments
			 * after the header, with the copy in the slot before. */
			while (skip && skip >= seg->iov_len)
				skip -= (seg++)->iov_len;
			seg->iov_base = (char *)seg->iov_base + skip;
			seg->iov_len -= skip;
			seg[-1] = (struct iovec){ &h, q->hdr_len };
			w = writev(q->tap_fd, seg - 1, (int)(ch.nout - (seg - ch.out)) + 1);
		} else {
			q->iov[0].iov_base = (void *)zero_hdr;
			q->iov[0].iov_len = q->tap_hdr_len;
			w = writev(q->tap_fd, q->iov, (int)ch.nout + 1);
		}
		q->stx.syscalls++;
		if (w < 0) {
			q->stx.drop_tap++;
			gone = errno == EBADFD;
			log_debug_errno(errno, "user engine: tap write");
			goto done;
		}
		q->stx.frames++;
		q->stx.bytes += frame_len;
done:
		engine_budget_take(budget, frame_len);
		vringfd_dev_put_used(&q->tx, ch.head, 0);
	}
	if (n) {
		q->stx.batches++;
		engine_user_notify(&q->tx, q->tx_call_fd, &q->stx);
		engine_user_log_used(q, ENGINE_TX);
	}
	if (ret < 0)
		return -EIO;
	return gone ? -EPIPE : (int)n;
}

/**
 * struct engine_user_rx_frame - the chains taken for one received frame
 * @heads: head of each chain
 * @lens: writable bytes of each
 * @nheads: chains taken
 * @niov: segments in q->iov from slot 1 on (the frame's buffers)
 * @space: writable bytes of all chains
 */
struct engine_user_rx_frame {
	uint16_t heads[ENGINE_USER_MRG_MAX_HEADS];
	uint64_t lens[ENGINE_USER_MRG_MAX_HEADS];
	unsigned int nheads;
	unsigned int niov;
	uint64_t space;
};

/**
 * engine_user_rx_take() - take posted chains for one frame
 * @q: the queue
 * @f: the frame's chains (out)
 * @filled: incremented per unusable chain completed empty on the way
 *
 * One chain, or with mergeable rx buffers as many as make 64 KiB (up to
 * ENGINE_USER_MRG_MAX_HEADS).  Unusable chains (readable segments, shorter than
 * header + Ethernet header, refused by the walker) met before the first
 * good one are completed with length 0 and counted; met after it, they
 * are given back for the next frame.
 * Return: 0, or -EIO when the ring is broken.
 */
static int engine_user_rx_take(struct engine_queue *q, struct engine_user_rx_frame *f, unsigned int *filled)
{
	unsigned int max_heads = q->mrg_rxbuf ? ENGINE_USER_MRG_MAX_HEADS : 1u;
	struct vringfd_chain ch;
	int ret;

	f->nheads = 0;
	f->niov = 1;
	f->space = 0;
	while (f->nheads < max_heads && f->space < ENGINE_USER_MRG_WANT &&
	       f->niov < ENGINE_USER_MAX_IOV - 1) {
		if (!vringfd_dev_pending(&q->rx))
			break;
		ret = vringfd_dev_get_chain(&q->rx, &ch, q->iov + f->niov,
					    ENGINE_USER_MAX_IOV - 1 - f->niov);
		if (ret == 0)
			break;
		if (ret == -EIO)
			return -EIO;
		if (ret > 0 && (ch.nout || ch.in_len < q->hdr_len + (uint64_t)ETH_HLEN))
			ret = -EINVAL;	/* wrong shape */
		if (ret < 0 && f->nheads) {
			/* first the frame we have; this one next round */
			vringfd_dev_discard(&q->rx, 1);
			break;
		}
		if (ret < 0) {
			if (ret == -EINVAL)
				q->srx.drop_bad_chain++;
			else
				engine_user_count_walk_drop(&q->srx, ret);
			vringfd_dev_put_used(&q->rx, ch.head, 0);
			(*filled)++;
			continue;
		}
		f->heads[f->nheads] = ch.head;
		f->lens[f->nheads] = ch.in_len;
		f->nheads++;
		f->niov += ch.nin;
		f->space += ch.in_len;
	}
	return 0;
}

/**
 * engine_user_rx_read() - one readv() of a frame from the tap into taken chains
 * @q: the queue
 * @f: the chains
 *
 * Return: what readv() returned (the tap's header included, also when the
 * ring has none), or -errno from the tap (-EAGAIN: no frame).
 */
static ssize_t engine_user_rx_read(struct engine_queue *q, const struct engine_user_rx_frame *f)
{
	uint8_t scratch[12];
	ssize_t r;

	q->iov[f->niov].iov_base = q->overflow;
	q->iov[f->niov].iov_len = sizeof(q->overflow);
	if (q->hdr_len) {
		r = readv(q->tap_fd, q->iov + 1, (int)f->niov);
	} else {
		q->iov[0].iov_base = scratch;
		q->iov[0].iov_len = q->tap_hdr_len;
		r = readv(q->tap_fd, q->iov, (int)f->niov + 1);
	}
	q->srx.syscalls++;
	return r < 0 ? -errno : r;
}

/**
 * engine_user_rx_complete() - complete the chains a frame used, give back the rest
 * @q: the queue
 * @f: the chains
 * @got: the frame's bytes (engine_user_rx_read()), <= @f->space
 *
 * Writes num_buffers (12-byte header).
 * Return: chains used.
 */
static unsigned int engine_user_rx_complete(struct engine_queue *q, const struct engine_user_rx_frame *f,
				     uint64_t got)
{
	uint64_t left = got;
	unsigned int k;

	for (k = 0; k < f->nheads && (left || !k); k++) {
		uint64_t l = left < f->lens[k] ? left : f->lens[k];

		vringfd_dev_put_used(&q->rx, f->heads[k], (uint32_t)l);
		left -= l;
	}
	vringfd_dev_discard(&q->rx, f->nheads - k);
	if (q->hdr_len == 12) {
		uint16_t nb = (uint16_t)k;	/* num_buffers, little-endian */
		uint8_t le[2] = { nb & 0xff, nb >> 8 };

		engine_user_scatter(q->iov + 1, f->niov - 1, 10, le, 2);
	}
	return k;
}

/**
 * engine_user_rx() - fill posted rx buffers with frames from the tap
 * @q: the queue
 * @budget: charged one frame (and its bytes) per frame read; reading
 *	stops when it is spent
 * @starved: set when the tap may have frames but no buffer is posted
 *
 * Per frame: take chains (engine_user_rx_take()), one readv() into them
 * (engine_user_rx_read()), complete what it used (engine_user_rx_complete()).  A frame
 * longer than its buffers is dropped (drop_too_big), its chains completed
 * with 0.
 *
 * A tap that went away (EBADFD) ends the walk with -EPIPE after the
 * buffers filled so far are completed: its fd stays readable (EPOLLERR)
 * for good, so answering 0 would make the loop spin on it.
 *
 * Return: buffers (heads) filled, -EIO when the ring is broken, or -EPIPE.
 */
static int engine_user_rx(struct engine_queue *q, struct engine_budget *budget, bool *starved)
{
	struct engine_user_rx_frame f;
	unsigned int filled = 0, frames = 0, k;
	int ret = 0;

	*starved = false;
	while (frames < q->rx.num && !engine_budget_spent(budget)) {
		ssize_t r;
		uint64_t got;

		ret = engine_user_rx_take(q, &f, &filled);
		if (ret < 0)
			break;
		if (!f.nheads) {
			/* Out of buffers: starved only if a frame is waiting. */
			struct pollfd pfd = { .fd = q->tap_fd, .events = POLLIN };

			q->srx.syscalls++;
			*starved = poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN);
			break;
		}
		r = engine_user_rx_read(q, &f);
		if (r < 0) {
			vringfd_dev_discard(&q->rx, f.nheads);	/* give the chains back */
			if (r == -EBADFD)
				ret = -EPIPE;
			else if (r != -EAGAIN && r != -EWOULDBLOCK) {
				q->srx.drop_tap++;
				log_debug("user engine: tap read: %s", strerror((int)-r));
			}
			break;
		}
		frames++;
		got = (uint64_t)r - (q->hdr_len ? 0 : q->tap_hdr_len);
		/* the frame's bytes, without the tap's header (as tx charges) */
		engine_budget_take(budget, (uint64_t)r > q->tap_hdr_len ?
					   (uint64_t)r - q->tap_hdr_len : 0);
		if (q->log)	/* what readv() wrote into guest buffers */
			dirty_log_mark_iov(q->log, q->regions, q->nregions, q->iov + 1, f.niov - 1,
				      got < f.space ? got : f.space);
		if ((uint64_t)r < q->tap_hdr_len || got > f.space) {
			q->srx.drop_too_big++;
			for (k = 0; k < f.nheads; k++)
				vringfd_dev_put_used(&q->rx, f.heads[k], 0);
			filled += f.nheads;
			continue;
		}
		filled += engine_user_rx_complete(q, &f, got);
		q->srx.frames++;
		q->srx.bytes += got - q->hdr_len;
	}
	if (filled) {
		q->srx.batches++;
		engine_user_notify(&q->rx, q->rx_call_fd, &q->srx);
		engine_user_log_used(q, ENGINE_RX);
	}
	if (ret == -EPIPE)
		return ret;
	if (ret < 0)
		return -EIO;
	return (int)filled;
}

/**
 * engine_user_enable_notify() - ask the driver for a kick, then look again
 * @q: the queue
 * @dir: which ring
 *
 * Return: true when chains arrived meanwhile (walk again).
 */
static bool engine_user_enable_notify(struct engine_queue *q, enum engine_dir dir)
{
	bool more = vringfd_dev_enable_notify(dir == ENGINE_TX ? &q->tx : &q->rx);

	engine_user_log_used(q, dir);	/* avail_event or the used flags */
	return more;
}

/**
 * engine_user_rx_fd() - what to poll for rx work
 * @q: the queue
 *
 * Return: the tap fd (readable when a frame waits).
 */
static int engine_user_rx_fd(struct engine_queue *q)
{
	return q->tap_fd;
}

/**
 * engine_user_get_stats() - the counters
 * @q: the queue
 * @tx: tx counters out (may be NULL)
 * @rx: rx counters out (may be NULL)
 */
static void engine_user_get_stats(struct engine_queue *q, struct engine_stats *tx,
			   struct engine_stats *rx)
{
	if (tx)
		*tx = q->stx;
	if (rx)
		*rx = q->srx;
}

/**
 * engine_user_close() - free the queue (the tap fd and the rings stay)
 * @q: the queue or NULL
 * @last_avail: where the walks stopped in each avail ring (out; may be NULL)
 */
static void engine_user_close(struct engine_queue *q, uint16_t last_avail[2])
{
	if (!q)
		return;
	if (last_avail) {
		last_avail[ENGINE_TX] = q->tx.last_avail;
		last_avail[ENGINE_RX] = q->rx.last_avail;
	}
	free(q->regions);
	free(q);
}

const struct engine_ops engine_user_ops = {
	.name = "user",
	.open = engine_user_open,
	.tx = engine_user_tx,
	.rx = engine_user_rx,
	.enable_notify = engine_user_enable_notify,
	.rx_fd = engine_user_rx_fd,
	.get_stats = engine_user_get_stats,
	.close = engine_user_close,
};
