// SPDX-License-Identifier: GPL-2.0
/*
 * check_daemon_frame_stream.c - QEMU stream framing (daemon/frame_stream.c)
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "unit/runner.h"
#include "frame_stream.h"

Suite *frame_stream_suite(void);

static uint8_t dst[FRAME_STREAM_MAX_FRAME];

START_TEST(one_frame_one_read)
{
	const uint8_t in[] = { 0, 0, 0, 3, 'a', 'b', 'c' };
	struct frame_stream_decoder d;
	size_t used;

	frame_stream_decoder_init(&d);
	ck_assert_int_eq(frame_stream_decode(&d, dst, in, sizeof(in), &used), 3);
	ck_assert_uint_eq(used, sizeof(in));
	ck_assert_int_eq(memcmp(dst, "abc", 3), 0);
	ck_assert(!frame_stream_decoder_mid_frame(&d));
}
END_TEST

START_TEST(byte_by_byte)
{
	const uint8_t in[] = { 0, 0, 0, 2, 'x', 'y', 0, 0, 0, 1, 'z' };
	struct frame_stream_decoder d;
	int frames = 0, ret;
	size_t i, used;

	frame_stream_decoder_init(&d);
	for (i = 0; i < sizeof(in); i++) {
		ret = frame_stream_decode(&d, dst, in + i, 1, &used);
		ck_assert_uint_eq(used, 1);
		if (i == 5) {
			ck_assert_int_eq(ret, 2);
			ck_assert_int_eq(memcmp(dst, "xy", 2), 0);
			frames++;
		} else if (i == 10) {
			ck_assert_int_eq(ret, 1);
			ck_assert_int_eq(dst[0], 'z');
			frames++;
		} else {
			ck_assert_int_eq(ret, 0);
			ck_assert(frame_stream_decoder_mid_frame(&d));
		}
	}
	ck_assert_int_eq(frames, 2);
	ck_assert(!frame_stream_decoder_mid_frame(&d));
}
END_TEST

START_TEST(two_frames_one_read)
{
	const uint8_t in[] = { 0, 0, 0, 1, 'p', 0, 0, 0, 2, 'q', 'r', 0, 0 };
	struct frame_stream_decoder d;
	size_t used;

	frame_stream_decoder_init(&d);
	ck_assert_int_eq(frame_stream_decode(&d, dst, in, sizeof(in), &used), 1);
	ck_assert_uint_eq(used, 5);
	ck_assert_int_eq(frame_stream_decode(&d, dst, in + 5, sizeof(in) - 5, &used), 2);
	ck_assert_uint_eq(used, 6);
	ck_assert_int_eq(memcmp(dst, "qr", 2), 0);
	ck_assert_int_eq(frame_stream_decode(&d, dst, in + 11, 2, &used), 0);
	ck_assert_uint_eq(used, 2);
	ck_assert(frame_stream_decoder_mid_frame(&d));	/* a hang-up now is mid-frame */
}
END_TEST

START_TEST(max_frame_accepted)
{
	static uint8_t in[FRAME_STREAM_HDR_SIZE + FRAME_STREAM_MAX_FRAME];
	struct frame_stream_decoder d;
	size_t used;

	frame_stream_put_hdr(in, FRAME_STREAM_MAX_FRAME);
	ck_assert_int_eq(in[1], 0);
	ck_assert_int_eq(in[2], 0xff);
	ck_assert_int_eq(in[3], 0xff);
	memset(in + FRAME_STREAM_HDR_SIZE, 0x5a, FRAME_STREAM_MAX_FRAME);
	frame_stream_decoder_init(&d);
	ck_assert_int_eq(frame_stream_decode(&d, dst, in, 1000, &used), 0);
	ck_assert_int_eq(frame_stream_decode(&d, dst, in + 1000, sizeof(in) - 1000, &used),
			 (int)FRAME_STREAM_MAX_FRAME);
	ck_assert_int_eq(dst[FRAME_STREAM_MAX_FRAME - 1], 0x5a);
}
END_TEST

START_TEST(bad_zero_length)
{
	const uint8_t in[] = { 0, 0, 0, 0, 'a' };
	struct frame_stream_decoder d;
	size_t used;

	frame_stream_decoder_init(&d);
	ck_assert_int_eq(frame_stream_decode(&d, dst, in, sizeof(in), &used), -EBADMSG);
	ck_assert_uint_eq(used, 4);
}
END_TEST

START_TEST(bad_length_65536)
{
	const uint8_t in[] = { 0, 1, 0, 0 };
	struct frame_stream_decoder d;
	size_t used;

	frame_stream_decoder_init(&d);
	ck_assert_int_eq(frame_stream_decode(&d, dst, in, 2, &used), 0);
	ck_assert_int_eq(frame_stream_decode(&d, dst, in + 2, 2, &used), -EMSGSIZE);
}
END_TEST

START_TEST(bad_length_huge)
{
	const uint8_t in[] = { 0xff, 0xff, 0xff, 0xff };
	struct frame_stream_decoder d;
	size_t used;

	frame_stream_decoder_init(&d);
	ck_assert_int_eq(frame_stream_decode(&d, dst, in, 4, &used), -EMSGSIZE);
}
END_TEST

START_TEST(encoder_roundtrip)
{
	static struct frame_stream_encoder e;
	struct frame_stream_decoder d;
	uint8_t buf[64];
	size_t used;
	int sv[2];
	ssize_t n;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	frame_stream_encoder_init(&e);
	ck_assert_int_eq(frame_stream_encoder_push(&e, "hello", 5), 0);
	ck_assert_int_eq(frame_stream_encoder_push(&e, "w", 1), 0);
	ck_assert_uint_eq(frame_stream_encoder_queued(&e), 14);
	ck_assert_int_eq(frame_stream_encoder_flush(&e, sv[0]), 0);
	n = read(sv[1], buf, sizeof(buf));
	ck_assert_int_eq(n, 14);
	frame_stream_decoder_init(&d);
	ck_assert_int_eq(frame_stream_decode(&d, dst, buf, n, &used), 5);
	ck_assert_int_eq(memcmp(dst, "hello", 5), 0);
	ck_assert_int_eq(frame_stream_decode(&d, dst, buf + used, n - used, &used), 1);
}
END_TEST

START_TEST(encoder_bad_lengths)
{
	static struct frame_stream_encoder e;
	static uint8_t big[FRAME_STREAM_MAX_FRAME + 1];

	frame_stream_encoder_init(&e);
	ck_assert_int_eq(frame_stream_encoder_push(&e, big, 0), -EMSGSIZE);
	ck_assert_int_eq(frame_stream_encoder_push(&e, big, FRAME_STREAM_MAX_FRAME + 1), -EMSGSIZE);
	ck_assert_uint_eq(frame_stream_encoder_queued(&e), 0);
}
END_TEST

START_TEST(encoder_peer_not_reading)
{
	static struct frame_stream_encoder e;
	static uint8_t frame[60000];
	int sv[2], pushed = 0, ret, i;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	frame_stream_encoder_init(&e);
	for (i = 0; i < 1000; i++) {
		ret = frame_stream_encoder_push(&e, frame, sizeof(frame));
		if (ret == -ENOBUFS)
			break;
		ck_assert_int_eq(ret, 0);
		pushed++;
		ret = frame_stream_encoder_flush(&e, sv[0]);
		ck_assert_int_ge(ret, 0);
	}
	/* the socket and the queue fill up; the caller sees -ENOBUFS */
	ck_assert_int_lt(i, 1000);
	ck_assert_int_gt(frame_stream_encoder_queued(&e), 0);
	close(sv[1]);
	ck_assert_int_eq(frame_stream_encoder_flush(&e, sv[0]), -EPIPE);
	close(sv[0]);
	(void)pushed;
}
END_TEST

/**
 * frame_stream_suite() - the stream framing suite
 *
 * Return: the suite.
 */
Suite *frame_stream_suite(void)
{
	Suite *s = runner_suite_create("frame_stream");

	RUNNER_ADD_TEST(s, one_frame_one_read);
	RUNNER_ADD_TEST(s, byte_by_byte);
	RUNNER_ADD_TEST(s, two_frames_one_read);
	RUNNER_ADD_TEST(s, max_frame_accepted);
	RUNNER_ADD_TEST(s, bad_zero_length);
	RUNNER_ADD_TEST(s, bad_length_65536);
	RUNNER_ADD_TEST(s, bad_length_huge);
	RUNNER_ADD_TEST(s, encoder_roundtrip);
	RUNNER_ADD_TEST(s, encoder_bad_lengths);
	RUNNER_ADD_TEST(s, encoder_peer_not_reading);
	return s;
}
