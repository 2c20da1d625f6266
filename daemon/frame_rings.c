// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * frame_rings.c - the daemon as virtio driver of its own ring pair
 *
 * See frame_rings.h.  Buffer i of a direction is FRAME_RINGS_STRIDE bytes at
 * i * FRAME_RINGS_STRIDE: the header at its start, the frame right after it.
 * vq_push() consumes every chain it is given before it returns (each is one
 * frame to the tap), and calls frame_rings_used() for the tx ring, so after
 * a flush every tx buffer is free again; rx buffers are reposted as soon as
 * their frame has been delivered, from inside the pump's rx walk.
 *
 * Kick and call are direct calls (vq.h: self-driven pairs): the port's
 * socket and the pair are served by the same (main) thread, and an
 * eventfd would cost three system calls a batch where a call costs none.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "frame_rings.h"
#include "port.h"

#define FRAME_RINGS_ALIGN	4096u
#define FRAME_RINGS_COLLECT	64u	/* used entries collected per vringfd_ring_get_used_many() */

/**
 * frame_rings_token() - the token of buffer @i (never NULL)
 * @i: buffer index
 *
 * Return: the token.
 */
static void *frame_rings_token(unsigned int i)
{
	return (void *)(uintptr_t)(i + 1);
}

/**
 * frame_rings_index() - buffer index of a token
 * @tok: token from vringfd_ring_get_used()
 *
 * Return: the index.
 */
static unsigned int frame_rings_index(void *tok)
{
	return (unsigned int)((uintptr_t)tok - 1);
}

/**
 * frame_rings_post_rx() - post rx buffer @i
 * @fp: the pair
 * @i: buffer index
 *
 * Return: 0 or a negative errno.
 */
static int frame_rings_post_rx(struct frame_rings_pair *fp, unsigned int i)
{
	struct iovec in = { .iov_base = fp->rx_bufs + (size_t)i * FRAME_RINGS_STRIDE,
			    .iov_len = FRAME_RINGS_HDR + FRAME_RINGS_BUF_SIZE - 1 };
	int ret = vringfd_ring_add(&fp->rx, NULL, 0, &in, 1, frame_rings_token(i));

	return ret < 0 ? ret : 0;
}

/**
 * frame_rings_take_tx() - vq_ops.used for the tx ring: every buffer the engine used is free
 * @fp: the pair
 *
 * Return: 0, or -EIO when the ring is broken.
 */
static int frame_rings_take_tx(struct frame_rings_pair *fp)
{
	void *toks[FRAME_RINGS_COLLECT];
	unsigned int k, got;

	while ((got = vringfd_ring_get_used_many(&fp->tx, toks, NULL, FRAME_RINGS_COLLECT)))
		for (k = 0; k < got; k++)
			fp->tx_free[fp->tx_nfree++] = (uint16_t)frame_rings_index(toks[k]);
	return fp->tx.broken ? -EIO : 0;
}

/**
 * frame_rings_take_rx() - vq_ops.used for the rx ring: deliver the frames, repost
 * @fp: the pair
 *
 * Return: 0, or -EIO when the ring is broken.
 */
static int frame_rings_take_rx(struct frame_rings_pair *fp)
{
	uint32_t lens[FRAME_RINGS_COLLECT];
	void *toks[FRAME_RINGS_COLLECT];
	unsigned int k, m, got = 0;

	/* used->idx read once per FRAME_RINGS_COLLECT entries */
	while ((m = vringfd_ring_get_used_many(&fp->rx, toks, lens, FRAME_RINGS_COLLECT))) {
		for (k = 0; k < m; k++) {
			unsigned int i = frame_rings_index(toks[k]);

			if (lens[k] > FRAME_RINGS_HDR)
				fp->ops->deliver(fp->opaque,
						 fp->rx_bufs + (size_t)i * FRAME_RINGS_STRIDE + FRAME_RINGS_HDR,
						 lens[k] - FRAME_RINGS_HDR);
			got++;
			if (frame_rings_post_rx(fp, i) < 0)
				return -EIO;
		}
	}
	vringfd_ring_publish(&fp->rx);
	if (got && fp->ops->delivered)
		fp->ops->delivered(fp->opaque);
	return fp->rx.broken ? -EIO : 0;
}

/**
 * frame_rings_used() - vq_ops.used: the in-process call of the pump
 * @vq: the pair's vq
 * @dir: which ring has used entries
 *
 * Return: 0, or -EIO when that ring is broken.
 */
static int frame_rings_used(struct vq *vq, enum engine_dir dir)
{
	struct frame_rings_pair *fp = vq->owner;

	return dir == ENGINE_TX ? frame_rings_take_tx(fp) : frame_rings_take_rx(fp);
}

/**
 * frame_rings_broken() - vq_ops.broken: tell the port
 * @vq: the pair's vq
 * @why: the reason
 */
static void frame_rings_broken(struct vq *vq, const char *why)
{
	struct frame_rings_pair *fp = vq->owner;

	fp->ops->broken(fp->opaque, why);
}

static const struct vq_ops frame_rings_vq_ops = {
	.broken = frame_rings_broken,
	.used = frame_rings_used,
};

/**
 * frame_rings_open() - make the rings and buffers and start them on the pump
 * @fp: the pair (filled in)
 * @p: the port: its engine, loop and tap's first queue
 * @ops: the port's callbacks
 * @opaque: their data
 * @err: message buffer
 * @errlen: its size
 *
 * The pair runs on the main thread (vq.h: self-driven pairs), its rx fd
 * watched from now on.
 * Return: 0, or -1 with @err filled.
 */
int frame_rings_open(struct frame_rings_pair *fp, struct port *p, const struct frame_rings_ops *ops,
		     void *opaque, char *err, size_t errlen)
{
	size_t bufs = (size_t)FRAME_RINGS_NUM * FRAME_RINGS_STRIDE;
	struct engine_queue_config *cfg;
	struct vq_desc d;
	unsigned int i;
	int ret;

	memset(fp, 0, sizeof(*fp));
	fp->ops = ops;
	fp->opaque = opaque;
	fp->cur = -1;
	fp->ring_bytes = vringfd_ring_size(FRAME_RINGS_NUM, FRAME_RINGS_ALIGN);
	fp->ring_bytes = (fp->ring_bytes + FRAME_RINGS_ALIGN - 1) & ~(size_t)(FRAME_RINGS_ALIGN - 1);
	fp->ring_mem = aligned_alloc(FRAME_RINGS_ALIGN, 2 * fp->ring_bytes);
	/* Buffers are touched only as far as frames fill them. */
	fp->tx_bufs = mmap(NULL, 2 * bufs, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (!fp->ring_mem || fp->tx_bufs == MAP_FAILED) {
		snprintf(err, errlen, "ring memory: %s", strerror(ENOMEM));
		fp->tx_bufs = NULL;
		goto fail;
	}
	fp->rx_bufs = fp->tx_bufs + bufs;
	ret = vringfd_ring_init(&fp->tx, fp->ring_mem, FRAME_RINGS_NUM, FRAME_RINGS_ALIGN, 0);
	if (ret == 0)
		ret = vringfd_ring_init(&fp->rx, (uint8_t *)fp->ring_mem + fp->ring_bytes,
					FRAME_RINGS_NUM, FRAME_RINGS_ALIGN, 0);
	if (ret < 0) {
		snprintf(err, errlen, "ring init: %s", strerror(-ret));
		goto fail;
	}
	for (i = 0; i < FRAME_RINGS_NUM; i++)
		fp->tx_free[i] = (uint16_t)(FRAME_RINGS_NUM - 1 - i);
	fp->tx_nfree = FRAME_RINGS_NUM;
	for (i = 0; i < FRAME_RINGS_NUM; i++) {
		ret = frame_rings_post_rx(fp, i);
		if (ret < 0) {
			snprintf(err, errlen, "posting rx buffer %u: %s", i, strerror(-ret));
			goto fail;
		}
	}
	vringfd_ring_publish(&fp->rx);

	memset(&d, 0, sizeof(d));
	d.self_driven = true;
	d.tx_kick_fd = -1;
	d.rx_kick_fd = -1;
	cfg = &d.cfg;
	cfg->tap_fd = p->tap->fds[0];
	cfg->tap_ifindex = p->tap->ifindex;
	cfg->vnet_hdr_len = FRAME_RINGS_HDR;
	cfg->tx.num = FRAME_RINGS_NUM;
	cfg->tx.desc = fp->tx.vr.desc;
	cfg->tx.avail = fp->tx.vr.avail;
	cfg->tx.used = fp->tx.vr.used;
	cfg->rx.num = FRAME_RINGS_NUM;
	cfg->rx.desc = fp->rx.vr.desc;
	cfg->rx.avail = fp->rx.vr.avail;
	cfg->rx.used = fp->rx.vr.used;
	cfg->tx_call_fd = -1;
	cfg->rx_call_fd = -1;
	cfg->tx_kick_fd = -1;
	cfg->rx_kick_fd = -1;
	if (vq_start(&fp->vq, p, 0, &d, &frame_rings_vq_ops, fp, err, errlen) < 0)
		goto fail;
	return 0;
fail:
	frame_rings_close(fp, NULL, NULL);
	return -1;
}

/**
 * frame_rings_stop() - stop the pair on the pump, delivering what the engine left
 * @fp: a running pair, nothing posted on tx since the last flush
 * @tx_total: its tx counters are added here (may be NULL)
 * @rx_total: same for rx
 *
 * After it the tap is no longer read for this pair: its frames wait in
 * the tap's queue.  Frames the engine put into rx buffers but the pump
 * has not handed over yet (the kernel engine fills them when its fd is
 * polled) go to the port (frame_rings_ops.deliver, .delivered) now.
 * The rings and buffers stay until frame_rings_close(); the current tx
 * buffer (frame_rings_tx_buf()) keeps its bytes.
 */
void frame_rings_stop(struct frame_rings_pair *fp, struct engine_stats *tx_total,
		      struct engine_stats *rx_total)
{
	vq_stop(&fp->vq, tx_total, rx_total, NULL);
	if (fp->rx.tokens)
		frame_rings_take_rx(fp);
}

/**
 * frame_rings_close() - stop the pair on the pump, free rings and buffers
 * @fp: the pair (may be partly set up, or closed already)
 * @tx_total: its tx counters are added here (may be NULL)
 * @rx_total: same for rx
 *
 * Also from frame_rings_ops.broken, inside the pump (vq_stop() allows it).
 */
void frame_rings_close(struct frame_rings_pair *fp, struct engine_stats *tx_total,
		       struct engine_stats *rx_total)
{
	vq_stop(&fp->vq, tx_total, rx_total, NULL);
	if (fp->tx.tokens)
		vringfd_ring_fini(&fp->tx);
	if (fp->rx.tokens)
		vringfd_ring_fini(&fp->rx);
	memset(&fp->tx, 0, sizeof(fp->tx));
	memset(&fp->rx, 0, sizeof(fp->rx));
	if (fp->tx_bufs)
		munmap(fp->tx_bufs, 2 * (size_t)FRAME_RINGS_NUM * FRAME_RINGS_STRIDE);
	fp->tx_bufs = fp->rx_bufs = NULL;
	free(fp->ring_mem);
	fp->ring_mem = NULL;
}

/**
 * frame_rings_tx_buf() - where the next frame goes
 * @fp: the pair
 *
 * The same buffer is returned until frame_rings_tx_commit().
 *
 * Return: FRAME_RINGS_BUF_SIZE - 1 bytes of frame room, or NULL when every buffer
 * is posted (flush).
 */
uint8_t *frame_rings_tx_buf(struct frame_rings_pair *fp)
{
	if (fp->cur < 0) {
		if (!fp->tx_nfree)
			return NULL;
		fp->cur = fp->tx_free[--fp->tx_nfree];
	}
	return fp->tx_bufs + (size_t)fp->cur * FRAME_RINGS_STRIDE + FRAME_RINGS_HDR;
}

/**
 * frame_rings_tx_commit() - post the frame in the current buffer
 * @fp: the pair
 * @len: its length (1..FRAME_RINGS_BUF_SIZE - 1)
 *
 * The buffer's header is zeroed (no offload requested).
 *
 * Return: 0, or a negative errno (the buffer stays current).
 */
int frame_rings_tx_commit(struct frame_rings_pair *fp, size_t len)
{
	struct iovec out;
	int ret;

	if (fp->cur < 0 || len == 0 || len >= FRAME_RINGS_BUF_SIZE)
		return -EINVAL;
	out.iov_base = fp->tx_bufs + (size_t)fp->cur * FRAME_RINGS_STRIDE;
	out.iov_len = FRAME_RINGS_HDR + len;
	memset(out.iov_base, 0, FRAME_RINGS_HDR);
	ret = vringfd_ring_add(&fp->tx, &out, 1, NULL, 0, frame_rings_token((unsigned int)fp->cur));
	if (ret < 0)
		return ret;
	fp->cur = -1;
	fp->tx_pending++;
	return 0;
}

/**
 * frame_rings_tx_free() - tx buffers available (for frame_rings_tx_peek())
 * @fp: the pair
 *
 * Return: the count (the current frame_rings_tx_buf() buffer excluded).
 */
unsigned int frame_rings_tx_free(const struct frame_rings_pair *fp)
{
	return fp->tx_nfree;
}

/**
 * frame_rings_tx_peek() - the @k-th next free tx buffer, for filling several at once
 * @fp: the pair
 * @k: 0..frame_rings_tx_free() - 1
 *
 * Return: FRAME_RINGS_BUF_SIZE - 1 bytes of frame room, or NULL when @k is out of
 * range.
 */
uint8_t *frame_rings_tx_peek(struct frame_rings_pair *fp, unsigned int k)
{
	if (k >= fp->tx_nfree)
		return NULL;
	return fp->tx_bufs + (size_t)fp->tx_free[fp->tx_nfree - 1 - k] * FRAME_RINGS_STRIDE + FRAME_RINGS_HDR;
}

/**
 * frame_rings_tx_commit_n() - post the first @n peeked buffers
 * @fp: the pair
 * @n: how many were peeked and filled
 * @lens: frame length of each; 0 = nothing to send (the buffer stays free)
 *
 * Return: chains posted, or a negative errno.
 */
int frame_rings_tx_commit_n(struct frame_rings_pair *fp, unsigned int n, const size_t *lens)
{
	uint16_t keep[FRAME_RINGS_NUM];
	unsigned int k, nkeep = 0, posted = 0;
	int ret = 0;

	if (n > fp->tx_nfree)
		return -EINVAL;
	for (k = 0; k < n; k++) {
		uint16_t idx = fp->tx_free[fp->tx_nfree - 1 - k];
		struct iovec out = { .iov_base = fp->tx_bufs + (size_t)idx * FRAME_RINGS_STRIDE,
				     .iov_len = FRAME_RINGS_HDR + lens[k] };

		if (lens[k] == 0 || lens[k] >= FRAME_RINGS_BUF_SIZE || ret < 0) {
			keep[nkeep++] = idx;
			continue;
		}
		memset(out.iov_base, 0, FRAME_RINGS_HDR);
		ret = vringfd_ring_add(&fp->tx, &out, 1, NULL, 0, frame_rings_token(idx));
		if (ret < 0) {
			keep[nkeep++] = idx;
			continue;
		}
		posted++;
	}
	fp->tx_nfree -= n;
	for (k = 0; k < nkeep; k++)
		fp->tx_free[fp->tx_nfree++] = keep[k];
	fp->tx_pending += posted;
	return ret < 0 ? ret : (int)posted;
}

/**
 * frame_rings_tx_flush() - the in-process kick: send the posted frames now
 * @fp: a running pair
 *
 * vq_push(): one tx() per batch (more only when the engine stopped at its
 * weight: the port bounds what it posts per service with a budget of its
 * own); every tx buffer is free again when it returns.
 * Return: frames the engine consumed, or -EIO when the pair broke: the
 * port was told (frame_rings_ops.broken) and may have closed it; touch
 * nothing of it.
 */
int frame_rings_tx_flush(struct frame_rings_pair *fp)
{
	if (!fp->tx_pending)
		return 0;
	vringfd_ring_publish(&fp->tx);
	fp->tx_pending = 0;
	return vq_push(&fp->vq);
}

/**
 * frame_rings_get_stats() - the pump's counters of this pair
 * @fp: the pair
 * @tx: out (zero when closed)
 * @rx: out
 */
void frame_rings_get_stats(struct frame_rings_pair *fp, struct engine_stats *tx, struct engine_stats *rx)
{
	vq_get_stats(&fp->vq, tx, rx);
}
