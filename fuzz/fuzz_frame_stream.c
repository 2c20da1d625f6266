// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_frame_stream.c - libFuzzer target for the stream framing decoder
 *
 * The input's first byte picks a read-size pattern; the rest is the stream.
 * It is fed to frame_stream_decode() in chunks of those sizes and the frames (or the
 * error) must be exactly what a one-shot reference parse of the whole
 * stream gives.  Seeds: fuzz/corpus/frame_stream/.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frame_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t fz_dst[FRAME_STREAM_MAX_FRAME];

/**
 * LLVMFuzzerTestOneInput() - decode one stream in pieces, compare
 * @data: chunk pattern byte, then the stream
 * @size: bytes
 *
 * Return: 0.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frame_stream_decoder d;
	const uint8_t *s;
	size_t n, pos = 0, ref = 0;
	unsigned int pattern;

	if (size < 1)
		return 0;
	pattern = data[0];
	s = data + 1;
	n = size - 1;
	frame_stream_decoder_init(&d);
	while (pos < n) {
		size_t chunk = 1 + ((pattern + pos) % ((pattern & 0x3f) + 1)), used;
		int ret;

		if (chunk > n - pos)
			chunk = n - pos;
		ret = frame_stream_decode(&d, fz_dst, s + pos, chunk, &used);
		if (used > chunk)
			abort();
		pos += used;
		if (ret == 0) {
			if (used != chunk)
				abort();
			continue;
		}
		/* reference: the frame at offset ref */
		{
			uint32_t len;

			if (n - ref < 4)
				abort();
			len = (uint32_t)s[ref] << 24 | (uint32_t)s[ref + 1] << 16 |
			      (uint32_t)s[ref + 2] << 8 | s[ref + 3];
			if (ret < 0) {
				if ((len == 0 && ret != -EBADMSG) ||
				    (len > FRAME_STREAM_MAX_FRAME && ret != -EMSGSIZE) ||
				    (len && len <= FRAME_STREAM_MAX_FRAME) || pos != ref + 4)
					abort();
				return 0;
			}
			if ((uint32_t)ret != len || n - ref - 4 < len ||
			    memcmp(fz_dst, s + ref + 4, len) || pos != ref + 4 + len)
				abort();
			ref += 4 + len;
		}
	}
	/* what is left is an incomplete frame, as the decoder says */
	if (frame_stream_decoder_mid_frame(&d) != (ref < n))
		abort();
	return 0;
}
