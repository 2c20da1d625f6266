// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * frame_stream.c - QEMU "-netdev stream" framing: 4-byte big-endian length + frame
 *
 * See frame_stream.h for the table of bad input.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "frame_stream.h"

/**
 * frame_stream_decoder_init() - prepare a decoder for a new peer
 * @d: decoder
 */
void frame_stream_decoder_init(struct frame_stream_decoder *d)
{
	memset(d, 0, sizeof(*d));
}

/**
 * frame_stream_decoder_mid_frame() - whether a frame (or its prefix) is half received
 * @d: decoder
 *
 * Return: true when the peer would hang up in the middle of a frame.
 */
bool frame_stream_decoder_mid_frame(const struct frame_stream_decoder *d)
{
	return d->hdr_got > 0;
}

/**
 * frame_stream_decode() - consume stream bytes until one frame is complete
 * @d: decoder
 * @dst: where the current frame's bytes go (FRAME_STREAM_MAX_FRAME bytes); pass the
 *	same buffer until the frame is complete
 * @in: bytes read from the stream
 * @inlen: their number
 * @consumed: set to the bytes of @in used (the rest belongs to the next call)
 *
 * Return: the frame's length (> 0) when a frame is complete in @dst, 0 when
 * @in was used up without completing one, -EBADMSG for a zero length prefix,
 * -EMSGSIZE for one above FRAME_STREAM_MAX_FRAME (the stream cannot be resynchronised:
 * disconnect the peer).
 */
int frame_stream_decode(struct frame_stream_decoder *d, uint8_t *dst, const uint8_t *in, size_t inlen,
	      size_t *consumed)
{
	size_t pos = 0, n;

	while (d->hdr_got < FRAME_STREAM_HDR_SIZE) {
		if (pos == inlen) {
			*consumed = pos;
			return 0;
		}
		d->hdr[d->hdr_got++] = in[pos++];
		if (d->hdr_got == FRAME_STREAM_HDR_SIZE) {
			d->len = (uint32_t)d->hdr[0] << 24 | (uint32_t)d->hdr[1] << 16 |
				 (uint32_t)d->hdr[2] << 8 | d->hdr[3];
			d->got = 0;
			*consumed = pos;
			if (d->len == 0)
				return -EBADMSG;
			if (d->len > FRAME_STREAM_MAX_FRAME)
				return -EMSGSIZE;
		}
	}
	n = d->len - d->got;
	if (n > inlen - pos)
		n = inlen - pos;
	memcpy(dst + d->got, in + pos, n);
	d->got += n;
	pos += n;
	*consumed = pos;
	if (d->got < d->len)
		return 0;
	d->hdr_got = 0;
	return (int)d->len;
}

/**
 * frame_stream_put_hdr() - write a length prefix
 * @out: 4 bytes
 * @len: frame length
 */
void frame_stream_put_hdr(uint8_t out[FRAME_STREAM_HDR_SIZE], uint32_t len)
{
	out[0] = len >> 24;
	out[1] = len >> 16;
	out[2] = len >> 8;
	out[3] = len;
}

/**
 * frame_stream_encoder_init() - empty an encoder
 * @e: encoder
 */
void frame_stream_encoder_init(struct frame_stream_encoder *e)
{
	e->head = e->tail = 0;
}

/**
 * frame_stream_encoder_queued() - bytes waiting to be written
 * @e: encoder
 *
 * Return: the count.
 */
size_t frame_stream_encoder_queued(const struct frame_stream_encoder *e)
{
	return e->tail - e->head;
}

/**
 * frame_stream_encoder_push() - queue one frame with its prefix
 * @e: encoder
 * @frame: the frame
 * @len: its length (1..FRAME_STREAM_MAX_FRAME)
 *
 * Return: 0, -EMSGSIZE for a length the framing cannot carry, -ENOBUFS when
 * the queue has no room (the frame is not queued).
 */
int frame_stream_encoder_push(struct frame_stream_encoder *e, const void *frame, size_t len)
{
	if (len == 0 || len > FRAME_STREAM_MAX_FRAME)
		return -EMSGSIZE;
	if (FRAME_STREAM_ENC_SIZE - e->tail < FRAME_STREAM_HDR_SIZE + len && e->head) {
		memmove(e->buf, e->buf + e->head, e->tail - e->head);
		e->tail -= e->head;
		e->head = 0;
	}
	if (FRAME_STREAM_ENC_SIZE - e->tail < FRAME_STREAM_HDR_SIZE + len)
		return -ENOBUFS;
	frame_stream_put_hdr(e->buf + e->tail, (uint32_t)len);
	memcpy(e->buf + e->tail + FRAME_STREAM_HDR_SIZE, frame, len);
	e->tail += FRAME_STREAM_HDR_SIZE + len;
	return 0;
}

/**
 * frame_stream_encoder_restore() - queue bytes another encoder had queued
 * @e: an empty encoder
 * @bytes: that encoder's unwritten bytes (frame_stream_encoder_queued()
 *	of them from its first one: a hand-over's successor, handover.c)
 * @len: their count
 *
 * Return: 0, or -ENOBUFS when they do not fit (nothing queued).
 */
int frame_stream_encoder_restore(struct frame_stream_encoder *e, const void *bytes, size_t len)
{
	if (len > FRAME_STREAM_ENC_SIZE)
		return -ENOBUFS;
	memcpy(e->buf, bytes, len);
	e->head = 0;
	e->tail = len;
	return 0;
}

/**
 * frame_stream_encoder_flush() - write queued bytes to a non-blocking socket
 * @e: encoder
 * @fd: the stream socket
 *
 * Return: bytes still queued (0: all written; > 0: wait for EPOLLOUT), or
 * a negative errno when the socket failed (peer gone).
 */
int frame_stream_encoder_flush(struct frame_stream_encoder *e, int fd)
{
	while (e->head < e->tail) {
		ssize_t n = send(fd, e->buf + e->head, e->tail - e->head,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			return -errno;
		}
		e->head += (size_t)n;
	}
	if (e->head == e->tail)
		e->head = e->tail = 0;
	return (int)(e->tail - e->head);
}
