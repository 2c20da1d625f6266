/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * frame_stream.h - QEMU's "-netdev stream" framing
 *
 * Each Ethernet frame on the stream is preceded by its length as a 4-byte
 * big-endian integer.  The decoder assembles frames from reads of any size
 * (a length prefix or a frame may be split anywhere); the encoder queues
 * length-prefixed frames for a non-blocking socket and writes as much as the
 * socket takes.
 *
 * Bad input and the answer:
 *   length prefix 0                 -EBADMSG   (peer to be disconnected)
 *   length prefix > FRAME_STREAM_MAX_FRAME    -EMSGSIZE  (peer to be disconnected)
 *   encoder queue full              -ENOBUFS   (frame dropped and counted by
 *                                               the caller; the peer that
 *                                               does not read is disconnected
 *                                               when nothing drains)
 */
#ifndef VRINGNET_FRAME_STREAM_H
#define VRINGNET_FRAME_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FRAME_STREAM_HDR_SIZE	4u
#define FRAME_STREAM_MAX_FRAME	65535u
#define FRAME_STREAM_ENC_SIZE	(256u * 1024u)

/**
 * struct frame_stream_decoder - incremental decoder state
 * @hdr: length prefix bytes received
 * @hdr_got: how many of them (0..4)
 * @len: length of the frame being received (valid when @hdr_got == 4)
 * @got: bytes of that frame received
 */
struct frame_stream_decoder {
	uint8_t hdr[FRAME_STREAM_HDR_SIZE];
	unsigned int hdr_got;
	uint32_t len;
	uint32_t got;
};

/**
 * struct frame_stream_encoder - queued output
 * @buf: bytes not yet written
 * @head: first unwritten byte
 * @tail: end of queued bytes
 */
struct frame_stream_encoder {
	uint8_t buf[FRAME_STREAM_ENC_SIZE];
	size_t head;
	size_t tail;
};

void frame_stream_decoder_init(struct frame_stream_decoder *d);
bool frame_stream_decoder_mid_frame(const struct frame_stream_decoder *d);
int frame_stream_decode(struct frame_stream_decoder *d, uint8_t *dst, const uint8_t *in, size_t inlen,
	      size_t *consumed);
void frame_stream_put_hdr(uint8_t out[FRAME_STREAM_HDR_SIZE], uint32_t len);

void frame_stream_encoder_init(struct frame_stream_encoder *e);
size_t frame_stream_encoder_queued(const struct frame_stream_encoder *e);
int frame_stream_encoder_push(struct frame_stream_encoder *e, const void *frame, size_t len);
int frame_stream_encoder_restore(struct frame_stream_encoder *e, const void *bytes, size_t len);
int frame_stream_encoder_flush(struct frame_stream_encoder *e, int fd);

#endif /* VRINGNET_FRAME_STREAM_H */
