// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * frame_rings.c - the daemon as virtio driver of its own ring pair
 *
 * See frame_rings.h.  Buffer i of a direction is FR_STRIDE bytes at
 * i * FR_STRIDE: the header at its start, the frame right after it.  The
 * engine's tx() consumes every chain it is given
 * before it returns (each is one frame to the tap), so after a flush every
 * tx buffer is free again; rx buffers are reposted as soon as their frame
 * has been delivered.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "frame_rings.h"

#define FR_ALIGN	4096u
#define FR_COLLECT	64u	/* used entries collected per vringfd_ring_get_used_many() */

/**
 * fr_token() - the token of buffer @i (never NULL)
 * @i: buffer index
 *
 * Return: the token.
 */
static void *fr_token(unsigned int i)
{
	return (void *)(uintptr_t)(i + 1);
}

/**
 * fr_index() - buffer index of a token
 * @tok: token from vringfd_ring_get_used()
 *
 * Return: the index.
 */
static unsigned int fr_index(void *tok)
{
	return (unsigned int)((uintptr_t)tok - 1);
}

/**
 * fr_post_rx() - post rx buffer @i
 * @fp: the pair
 * @i: buffer index
 *
 * Return: 0 or a negative errno.
 */
static int fr_post_rx(struct fr_pair *fp, unsigned int i)
{
	struct iovec in = { .iov_base = fp->rx_bufs + (size_t)i * FR_STRIDE,
			    .iov_len = FR_HDR + FR_BUF_SIZE - 1 };
	int ret = vringfd_ring_add(&fp->rx, NULL, 0, &in, 1, fr_token(i));

	return ret < 0 ? ret : 0;
}

/**
 * fr_open() - make the rings and buffers and open them on the engine
 * @fp: the pair (filled in)
 * @eng: the engine
 * @tap_fd: the tap queue
 * @tap_ifindex: the tap's ifindex, or 0 (see eng_queue_config)
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 with @err filled.
 */
int fr_open(struct fr_pair *fp, const struct eng_ops *eng, int tap_fd,
	    int tap_ifindex, char *err, size_t errlen)
{
	struct eng_queue_config cfg;
	size_t bufs = (size_t)FR_NUM * FR_STRIDE;
	char why[200];
	unsigned int i;
	int ret;

	memset(fp, 0, sizeof(*fp));
	fp->eng = eng;
	fp->cur = -1;
	fp->ring_bytes = vringfd_ring_size(FR_NUM, FR_ALIGN);
	fp->ring_bytes = (fp->ring_bytes + FR_ALIGN - 1) & ~(size_t)(FR_ALIGN - 1);
	fp->ring_mem = aligned_alloc(FR_ALIGN, 2 * fp->ring_bytes);
	/* Buffers are touched only as far as frames fill them. */
	fp->tx_bufs = mmap(NULL, 2 * bufs, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (!fp->ring_mem || fp->tx_bufs == MAP_FAILED) {
		snprintf(err, errlen, "ring memory: %s", strerror(ENOMEM));
		fp->tx_bufs = NULL;
		goto fail;
	}
	fp->rx_bufs = fp->tx_bufs + bufs;
	ret = vringfd_ring_init(&fp->tx, fp->ring_mem, FR_NUM, FR_ALIGN, 0);
	if (ret == 0)
		ret = vringfd_ring_init(&fp->rx, (uint8_t *)fp->ring_mem + fp->ring_bytes,
					FR_NUM, FR_ALIGN, 0);
	if (ret < 0) {
		snprintf(err, errlen, "ring init: %s", strerror(-ret));
		goto fail;
	}
	for (i = 0; i < FR_NUM; i++)
		fp->tx_free[i] = (uint16_t)(FR_NUM - 1 - i);
	fp->tx_nfree = FR_NUM;
	for (i = 0; i < FR_NUM; i++) {
		ret = fr_post_rx(fp, i);
		if (ret < 0) {
			snprintf(err, errlen, "posting rx buffer %u: %s", i, strerror(-ret));
			goto fail;
		}
	}
	vringfd_ring_publish(&fp->rx);

	memset(&cfg, 0, sizeof(cfg));
	cfg.tap_fd = tap_fd;
	cfg.tap_ifindex = tap_ifindex;
	cfg.vnet_hdr_len = FR_HDR;
	cfg.tx.num = FR_NUM;
	cfg.tx.desc = fp->tx.vr.desc;
	cfg.tx.avail = fp->tx.vr.avail;
	cfg.tx.used = fp->tx.vr.used;
	cfg.rx.num = FR_NUM;
	cfg.rx.desc = fp->rx.vr.desc;
	cfg.rx.avail = fp->rx.vr.avail;
	cfg.rx.used = fp->rx.vr.used;
	cfg.tx_call_fd = -1;
	cfg.rx_call_fd = -1;
	fp->eq = eng->open(&cfg, why, sizeof(why));
	if (!fp->eq) {
		snprintf(err, errlen, "%s", why);
		goto fail;
	}
	return 0;
fail:
	fr_close(fp);
	return -1;
}

/**
 * fr_close() - close the engine queue, free rings and buffers
 * @fp: the pair (may be partly set up)
 */
void fr_close(struct fr_pair *fp)
{
	if (fp->eq)
		fp->eng->close(fp->eq, NULL);
	fp->eq = NULL;
	if (fp->tx.tokens)
		vringfd_ring_fini(&fp->tx);
	if (fp->rx.tokens)
		vringfd_ring_fini(&fp->rx);
	memset(&fp->tx, 0, sizeof(fp->tx));
	memset(&fp->rx, 0, sizeof(fp->rx));
	if (fp->tx_bufs)
		munmap(fp->tx_bufs, 2 * (size_t)FR_NUM * FR_STRIDE);
	fp->tx_bufs = fp->rx_bufs = NULL;
	free(fp->ring_mem);
	fp->ring_mem = NULL;
}

/**
 * fr_tx_buf() - where the next frame goes
 * @fp: the pair
 *
 * The same buffer is returned until fr_tx_commit().
 *
 * Return: FR_BUF_SIZE - 1 bytes of frame room, or NULL when every buffer
 * is posted (flush).
 */
uint8_t *fr_tx_buf(struct fr_pair *fp)
{
	if (fp->cur < 0) {
		if (!fp->tx_nfree)
			return NULL;
		fp->cur = fp->tx_free[--fp->tx_nfree];
	}
	return fp->tx_bufs + (size_t)fp->cur * FR_STRIDE + FR_HDR;
}

/**
 * fr_tx_commit() - post the frame in the current buffer
 * @fp: the pair
 * @len: its length (1..FR_BUF_SIZE - 1)
 *
 * The buffer's header is zeroed (no offload requested).
 *
 * Return: 0, or a negative errno (the buffer stays current).
 */
int fr_tx_commit(struct fr_pair *fp, size_t len)
{
	struct iovec out;
	int ret;

	if (fp->cur < 0 || len == 0 || len >= FR_BUF_SIZE)
		return -EINVAL;
	out.iov_base = fp->tx_bufs + (size_t)fp->cur * FR_STRIDE;
	out.iov_len = FR_HDR + len;
	memset(out.iov_base, 0, FR_HDR);
	ret = vringfd_ring_add(&fp->tx, &out, 1, NULL, 0, fr_token((unsigned int)fp->cur));
	if (ret < 0)
		return ret;
	fp->cur = -1;
	fp->tx_pending++;
	return 0;
}

/**
 * fr_tx_free() - tx buffers available (for fr_tx_peek())
 * @fp: the pair
 *
 * Return: the count (the current fr_tx_buf() buffer excluded).
 */
unsigned int fr_tx_free(const struct fr_pair *fp)
{
	return fp->tx_nfree;
}

/**
 * fr_tx_peek() - the @k-th next free tx buffer, for filling several at once
 * @fp: the pair
 * @k: 0..fr_tx_free() - 1
 *
 * Return: FR_BUF_SIZE - 1 bytes of frame room, or NULL when @k is out of
 * range.
 */
uint8_t *fr_tx_peek(struct fr_pair *fp, unsigned int k)
{
	if (k >= fp->tx_nfree)
		return NULL;
	return fp->tx_bufs + (size_t)fp->tx_free[fp->tx_nfree - 1 - k] * FR_STRIDE + FR_HDR;
}

/**
 * fr_tx_commit_n() - post the first @n peeked buffers
 * @fp: the pair
 * @n: how many were peeked and filled
 * @lens: frame length of each; 0 = nothing to send (the buffer stays free)
 *
 * Return: chains posted, or a negative errno.
 */
int fr_tx_commit_n(struct fr_pair *fp, unsigned int n, const size_t *lens)
{
	uint16_t keep[FR_NUM];
	unsigned int k, nkeep = 0, posted = 0;
	int ret = 0;

	if (n > fp->tx_nfree)
		return -EINVAL;
	for (k = 0; k < n; k++) {
		uint16_t idx = fp->tx_free[fp->tx_nfree - 1 - k];
		struct iovec out = { .iov_base = fp->tx_bufs + (size_t)idx * FR_STRIDE,
				     .iov_len = FR_HDR + lens[k] };

		if (lens[k] == 0 || lens[k] >= FR_BUF_SIZE || ret < 0) {
			keep[nkeep++] = idx;
			continue;
		}
		memset(out.iov_base, 0, FR_HDR);
		ret = vringfd_ring_add(&fp->tx, &out, 1, NULL, 0, fr_token(idx));
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
 * fr_tx_flush() - hand the posted frames to the engine: one tx() per batch
 * @fp: the pair
 *
 * The engine's enable_notify() says when tx() stopped with chains left
 * (the kernel engine's weight: 512 KiB per write()); tx() is called again
 * then, so no frame waits for the next batch.  Each further call consumes
 * at least one chain: at most FR_NUM calls.
 * Return: frames the engine consumed, or -EIO when the ring broke.
 */
int fr_tx_flush(struct fr_pair *fp)
{
	void *toks[FR_COLLECT];
	unsigned int k, got, rounds = 0;
	int n, sum = 0;

	if (!fp->tx_pending)
		return 0;
	vringfd_ring_publish(&fp->tx);
	do {
		n = fp->eng->tx(fp->eq);
		if (n < 0)
			break;
		sum += n;
	} while (++rounds < FR_NUM && fp->eng->enable_notify(fp->eq, ENG_TX));
	if (n >= 0)
		n = sum;
	fp->tx_pending = 0;
	while ((got = vringfd_ring_get_used_many(&fp->tx, toks, NULL, FR_COLLECT)))
		for (k = 0; k < got; k++)
			fp->tx_free[fp->tx_nfree++] = (uint16_t)fr_index(toks[k]);
	if (fp->tx.broken)
		return -EIO;
	return n < 0 ? -EIO : n;
}

/**
 * fr_rx() - let the engine fill rx buffers, deliver the frames, repost
 * @fp: the pair
 * @deliver: called per frame
 * @opaque: its data
 *
 * Return: frames delivered, or -EIO when the ring broke.
 */
int fr_rx(struct fr_pair *fp, fr_deliver_fn deliver, void *opaque)
{
	uint32_t lens[FR_COLLECT];
	void *toks[FR_COLLECT];
	unsigned int k, m;
	bool starved;
	int n, got = 0;

	n = fp->eng->rx(fp->eq, &starved);
	/* used->idx read once per FR_COLLECT entries */
	while ((m = vringfd_ring_get_used_many(&fp->rx, toks, lens, FR_COLLECT))) {
		for (k = 0; k < m; k++) {
			unsigned int i = fr_index(toks[k]);

			if (lens[k] > FR_HDR)
				deliver(opaque, fp->rx_bufs + (size_t)i * FR_STRIDE + FR_HDR,
					lens[k] - FR_HDR);
			got++;
			if (fr_post_rx(fp, i) < 0)
				return -EIO;
		}
	}
	vringfd_ring_publish(&fp->rx);
	if (n < 0 || fp->rx.broken)
		return -EIO;
	return got;
}

/**
 * fr_rx_fd() - what to poll for frames from the tap
 * @fp: the pair
 *
 * Return: the fd.
 */
int fr_rx_fd(struct fr_pair *fp)
{
	return fp->eng->rx_fd(fp->eq);
}

/**
 * fr_get_stats() - the engine's counters of this pair
 * @fp: the pair
 * @tx: out
 * @rx: out
 */
void fr_get_stats(struct fr_pair *fp, struct eng_stats *tx, struct eng_stats *rx)
{
	memset(tx, 0, sizeof(*tx));
	memset(rx, 0, sizeof(*rx));
	if (fp->eq)
		fp->eng->get_stats(fp->eq, tx, rx);
}
