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
 *   length prefix > FS_MAX_FRAME    -EMSGSIZE  (peer to be disconnected)
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

#define FS_HDR_SIZE	4u
#define FS_MAX_FRAME	65535u
#define FS_ENC_SIZE	(256u * 1024u)

/**
 * struct fs_decoder - incremental decoder state
 * @hdr: length prefix bytes received
 * @hdr_got: how many of them (0..4)
 * @len: length of the frame being received (valid when @hdr_got == 4)
 * @got: bytes of that frame received
 */
struct fs_decoder {
	uint8_t hdr[FS_HDR_SIZE];
	unsigned int hdr_got;
	uint32_t len;
	uint32_t got;
};

/**
 * struct fs_encoder - queued output
 * @buf: bytes not yet written
 * @head: first unwritten byte
 * @tail: end of queued bytes
 */
struct fs_encoder {
	uint8_t buf[FS_ENC_SIZE];
	size_t head;
	size_t tail;
};

void fs_decoder_init(struct fs_decoder *d);
bool fs_decoder_mid_frame(const struct fs_decoder *d);
int fs_decode(struct fs_decoder *d, uint8_t *dst, const uint8_t *in, size_t inlen,
	      size_t *consumed);
void fs_put_hdr(uint8_t out[FS_HDR_SIZE], uint32_t len);

void fs_encoder_init(struct fs_encoder *e);
size_t fs_encoder_queued(const struct fs_encoder *e);
int fs_encoder_push(struct fs_encoder *e, const void *frame, size_t len);
int fs_encoder_flush(struct fs_encoder *e, int fd);

#endif /* VRINGNET_FRAME_STREAM_H */
