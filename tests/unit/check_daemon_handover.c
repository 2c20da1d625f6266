// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_daemon_handover.c - handover_state.c: a state written and read back
 * is the same (fds renumbered through the fd table; a dgram port's peer
 * record too), it survives a sealed
 * memfd, and bad states are refused with the reason: truncated, padded,
 * another magic, another version, fd count mismatch (an fd named by no
 * record, an index outside the table, one named twice), oversized counts,
 * unknown or mis-sized records, unterminated names; a stream peer's record
 * keeps the bytes in flight, and one whose decoder state, sizes or bytes
 * disagree is refused; a ring-fd client's record (served: SETUP bytes, its
 * fds, ring positions; pending: the socket alone) reads back the same, and
 * one with counts beyond its arrays, fds set past its count, a pending
 * client with a SETUP or a served one without, unknown flags or fd
 * indexes outside the table is refused
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_daemon.h"
#include "runner.h"
#include "handover_state.h"

/**
 * hov_sample() - a state of two named fds and one front-end
 * @st: filled
 */
static void hov_sample(struct handover_state *st)
{
	struct hovs_vhost_user *v = calloc(1, sizeof(*v));
	unsigned int j;

	ck_assert_ptr_nonnull(v);
	handover_state_init(st);
	ck_assert_int_eq(handover_state_add_named(st, "tap.vnet0.0", 10), 0);
	ck_assert_int_eq(handover_state_add_named(st, "control", 11), 0);
	snprintf(v->port, sizeof(v->port), "vm1");
	v->sock = 12;
	v->flags = HOVS_VU_FEATURES_SET | HOVS_VU_OWNER;
	v->features = 1ULL << 32;
	v->nregions = 1;
	v->regions[0].size = 1 << 20;
	v->regions[0].fd = 13;
	v->nvrings = 2;
	for (j = 0; j < 2; j++) {
		v->vrings[j].num = 256;
		v->vrings[j].flags = HOVS_VRING_ADDR_SET | HOVS_VRING_KICK_SET | HOVS_VRING_STARTED;
		v->vrings[j].last_avail = 1000 + j;
		v->vrings[j].kick = 14 + 2 * (int)j;
		v->vrings[j].call = 15 + 2 * (int)j;
		v->vrings[j].err = -1;
	}
	ck_assert_int_eq(handover_state_add_vhost_user(st, v), 0);
	free(v);
}

/**
 * hov_encode() - the sample's bytes
 * @len: out: their count
 *
 * Return: the bytes (malloc()ed).
 */
static uint8_t *hov_encode(size_t *len)
{
	struct handover_state st;
	void *buf;

	hov_sample(&st);
	ck_assert_int_eq(handover_state_encode(&st, &buf, len), 0);
	handover_state_free(&st);
	return buf;
}

/* the sample's layout: header, fd table of 8 fds (32 bytes), records */
#define HOV_RECORDS	(sizeof(struct hovs_header) + 32)

/**
 * hov_named() - the sample's first named-fd record
 * @buf: the sample's bytes
 *
 * Return: its head (the payload follows it).
 */
static struct hovs_record *hov_named(uint8_t *buf)
{
	return (struct hovs_record *)(buf + HOV_RECORDS);
}

/**
 * hov_vu() - the sample's front-end record (after two named fds)
 * @buf: the sample's bytes
 *
 * Return: its head (the payload follows it).
 */
static struct hovs_record *hov_vu(uint8_t *buf)
{
	return (struct hovs_record *)(buf + HOV_RECORDS +
				      2 * (sizeof(struct hovs_record) + sizeof(struct hovs_named_fd)));
}

/**
 * hov_refused() - parse must refuse @buf with an error containing @want
 * @buf: the bytes
 * @len: their count
 * @want: a part of the error
 */
static void hov_refused(const void *buf, size_t len, const char *want)
{
	struct handover_state st;
	char err[256] = "";

	ck_assert_int_eq(handover_state_parse(buf, len, &st, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, want), "error \"%s\" lacks \"%s\"", err, want);
	ck_assert_uint_eq(st.nnamed + st.nvu + st.nfds, 0);
	handover_state_free(&st);
}

START_TEST(handover_round_trip)
{
	struct handover_state st;
	char err[256] = "";
	size_t len;
	uint8_t *buf = hov_encode(&len);

	ck_assert_int_eq(handover_state_parse(buf, len, &st, err, sizeof(err)), 0);
	ck_assert_uint_eq(st.nfds, 8);
	ck_assert_uint_eq(st.nnamed, 2);
	ck_assert_uint_eq(st.nvu, 1);
	ck_assert_int_eq(handover_state_take_named(&st, "control"), 11);
	ck_assert_int_eq(handover_state_take_named(&st, "control"), -1);
	ck_assert_int_eq(handover_state_take_named(&st, "tap.vnet0.0"), 10);
	ck_assert_str_eq(st.vu[0].port, "vm1");
	ck_assert_int_eq(st.vu[0].sock, 12);
	ck_assert_int_eq(st.vu[0].regions[0].fd, 13);
	ck_assert_int_eq(st.vu[0].vrings[1].kick, 16);
	ck_assert_int_eq(st.vu[0].vrings[1].call, 17);
	ck_assert_int_eq(st.vu[0].vrings[1].err, -1);
	ck_assert_uint_eq(st.vu[0].vrings[1].last_avail, 1001);
	ck_assert_uint_eq(st.vu[0].features, 1ULL << 32);
	handover_state_free(&st);
	free(buf);
}
END_TEST

START_TEST(handover_memfd_sealed)
{
	size_t len, len2;
	uint8_t *buf = hov_encode(&len);
	void *back;
	char err[256];
	int fd = handover_state_to_memfd(buf, len), pipefd[2];

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "x", 1), -1);	/* sealed */
	ck_assert_int_eq(handover_state_from_memfd(fd, &back, &len2, err, sizeof(err)), 0);
	ck_assert_uint_eq(len2, len);
	ck_assert_mem_eq(back, buf, len);
	free(back);
	close(fd);
	/* an fd without the seals is refused */
	ck_assert_int_eq(pipe(pipefd), 0);
	ck_assert_int_eq(handover_state_from_memfd(pipefd[0], &back, &len2, err, sizeof(err)), -1);
	ck_assert(strstr(err, "not a sealed memfd"));
	close(pipefd[0]);
	close(pipefd[1]);
	free(buf);
}
END_TEST

START_TEST(handover_truncated)
{
	size_t len, cut;
	uint8_t *buf = hov_encode(&len);

	hov_refused(buf, 3, "shorter than its header");
	/* every shorter prefix is refused (the length field says so) */
	for (cut = sizeof(struct hovs_header); cut < len; cut += 61)
		hov_refused(buf, cut, "truncated");
	/* and a prefix whose length field was rewritten to match it */
	for (cut = sizeof(struct hovs_header); cut < len; cut += 61) {
		struct hovs_header *h = (struct hovs_header *)buf;
		uint32_t keep = h->length;
		struct handover_state st;
		char err[256];

		h->length = (uint32_t)cut;
		ck_assert_int_eq(handover_state_parse(buf, cut, &st, err, sizeof(err)), -1);
		handover_state_free(&st);
		h->length = keep;
	}
	free(buf);
}
END_TEST

START_TEST(handover_bad_magic_version)
{
	size_t len;
	uint8_t *buf = hov_encode(&len);
	struct hovs_header *h = (struct hovs_header *)buf;

	h->magic ^= 1;
	hov_refused(buf, len, "not a vringnetd hand-over state");
	h->magic ^= 1;
	h->version = HOVS_VERSION + 1;
	hov_refused(buf, len, "state version 2, this vringnetd reads version 1");
	h->version = 0;
	hov_refused(buf, len, "state version 0");
	free(buf);
}
END_TEST

START_TEST(handover_fd_count_mismatch)
{
	size_t len;
	uint8_t *buf = hov_encode(&len);
	struct hovs_header *h = (struct hovs_header *)buf;
	struct hovs_named_fd *nf;
	struct hovs_vhost_user *v;

	/* one fd fewer in the table: the last ring's call fd (index 7) is
	 * outside it (the records start 8-byte aligned: 7 or 8 fds -> 32 bytes) */
	h->nfds = 7;
	hov_refused(buf, len, "outside the fd table");
	h->nfds = 8;
	/* an entry of the table nobody names */
	v = (struct hovs_vhost_user *)(hov_vu(buf) + 1);
	v->vrings[1].call = -1;
	hov_refused(buf, len, "named by no record");
	v->vrings[1].call = 7;
	/* the first record names index 1 too: taken twice */
	nf = (struct hovs_named_fd *)(hov_named(buf) + 1);
	nf->fd = 1;
	hov_refused(buf, len, "named twice");
	nf->fd = -1;
	hov_refused(buf, len, "outside the fd table");
	free(buf);
}
END_TEST

START_TEST(handover_oversized)
{
	size_t len;
	uint8_t *buf = hov_encode(&len);
	struct hovs_header *h = (struct hovs_header *)buf;
	struct hovs_vhost_user *v;
	struct hovs_record *rec;

	h->nfds = HOVS_MAX_FDS + 1;
	hov_refused(buf, len, "at most");
	h->nfds = 0xffffffffu;
	hov_refused(buf, len, "at most");
	h->nfds = 8;
	h->nrecords = HOVS_MAX_RECORDS + 1;
	hov_refused(buf, len, "at most");
	h->nrecords = 4;
	hov_refused(buf, len, "past the end");
	h->nrecords = 2;
	hov_refused(buf, len, "after the last record");
	h->nrecords = 3;
	/* the front-end record: too many regions, then rings */
	rec = hov_vu(buf);
	v = (struct hovs_vhost_user *)(rec + 1);
	v->nregions = VUM_MAX_REGIONS + 1;
	hov_refused(buf, len, "memory regions");
	v->nregions = 1;
	v->nvrings = 0x80000000u;
	hov_refused(buf, len, "memory regions");
	v->nvrings = 2;
	v->vrings[0].last_avail = 0x10000;
	hov_refused(buf, len, "does not fit 16 bits");
	v->vrings[0].last_avail = 1;
	/* a record longer than what is left */
	rec->len = 0x7fffffff;
	hov_refused(buf, len, "past the end of the state");
	free(buf);
}
END_TEST

START_TEST(handover_bad_records)
{
	size_t len;
	uint8_t *buf = hov_encode(&len);
	struct hovs_record *r = hov_named(buf);
	struct hovs_named_fd *nf = (struct hovs_named_fd *)(r + 1);
	struct hovs_vhost_user *v;

	r->type = 99;
	hov_refused(buf, len, "type 99");
	r->type = HOVS_REC_VHOST_USER;	/* the size of another type */
	hov_refused(buf, len, "not one this version reads");
	r->type = HOVS_REC_NAMED_FD;
	memset(nf->name, 'a', sizeof(nf->name));
	hov_refused(buf, len, "not terminated");
	snprintf(nf->name, sizeof(nf->name), "tap.vnet0.0");
	v = (struct hovs_vhost_user *)(hov_vu(buf) + 1);
	memset(v->port, 'p', sizeof(v->port));
	hov_refused(buf, len, "port name not terminated");
	free(buf);
}
END_TEST

START_TEST(handover_peer_record)
{
	struct hovs_peer peer = { .port = "dg1", .len = 20 }, *back;
	struct handover_state st;
	struct hovs_record *r;
	char err[256] = "";
	size_t len;
	void *buf;

	memcpy(peer.addr, "\x01\x00/run/peer.sock", 17);
	handover_state_init(&st);
	ck_assert_int_eq(handover_state_add_peer(&st, &peer), 0);
	peer.len = sizeof(peer.addr) + 1;
	ck_assert_int_eq(handover_state_add_peer(&st, &peer), -EINVAL);
	ck_assert_int_eq(handover_state_encode(&st, &buf, &len), 0);
	handover_state_free(&st);
	ck_assert_int_eq(handover_state_parse(buf, len, &st, err, sizeof(err)), 0);
	ck_assert_uint_eq(st.npeers, 1);
	ck_assert_str_eq(st.peers[0].port, "dg1");
	ck_assert_uint_eq(st.peers[0].len, 20);
	ck_assert_mem_eq(st.peers[0].addr, "\x01\x00/run/peer.sock", 17);
	handover_state_free(&st);
	/* an address longer than the record's, and an unterminated port name */
	r = (struct hovs_record *)((uint8_t *)buf + sizeof(struct hovs_header));
	back = (struct hovs_peer *)(r + 1);
	back->len = sizeof(back->addr) + 1;
	hov_refused(buf, len, "address of 113 bytes");
	back->len = 20;
	memset(back->port, 'p', sizeof(back->port));
	hov_refused(buf, len, "port name not terminated");
	free(buf);
}
END_TEST

START_TEST(handover_empty)
{
	struct handover_state st;
	char err[256];
	void *buf;
	size_t len;

	handover_state_init(&st);
	ck_assert_int_eq(handover_state_encode(&st, &buf, &len), 0);
	ck_assert_uint_eq(len, sizeof(struct hovs_header));
	ck_assert_int_eq(handover_state_parse(buf, len, &st, err, sizeof(err)), 0);
	ck_assert_uint_eq(st.nfds + st.nnamed + st.nvu, 0);
	handover_state_free(&st);
	free(buf);
}
END_TEST

/**
 * hov_stream_encode() - a state of one stream peer in the middle of a frame
 * @len: out: the bytes' count
 *
 * The peer (fd 20) sent the length prefix of a 256-byte frame and 5 of its
 * bytes; 11 bytes wait to be written to it.
 *
 * Return: the bytes (malloc()ed).
 */
static uint8_t *hov_stream_encode(size_t *len)
{
	struct hovs_stream s = { .port = "st1", .sock = 20, .flags = HOVS_STREAM_FRAMED,
				 .hdr = { 0, 0, 1, 0 }, .hdr_got = 4, .len = 256, .got = 5,
				 .out_len = 11 };
	struct handover_state st;
	void *buf;

	handover_state_init(&st);
	ck_assert_int_eq(handover_state_add_stream(&st, &s, "hello", "\0\0\0\x07frame!!"), 0);
	ck_assert_int_eq(handover_state_encode(&st, &buf, len), 0);
	handover_state_free(&st);
	return buf;
}

/* its one record: after the header and a fd table of one fd (8 bytes) */
#define HOV_STREAM(buf) ((struct hovs_stream *)((buf) + sizeof(struct hovs_header) + 8 + \
						sizeof(struct hovs_record)))

START_TEST(handover_stream_record)
{
	struct handover_state st;
	const struct hovs_stream *s;
	char err[256] = "";
	size_t len;
	uint8_t *buf = hov_stream_encode(&len);

	/* header, fd table, record head, struct, 16 bytes in flight */
	ck_assert_uint_eq(len, sizeof(struct hovs_header) + 8 + sizeof(struct hovs_record) +
			  sizeof(struct hovs_stream) + 16);
	ck_assert_int_eq(handover_state_parse(buf, len, &st, err, sizeof(err)), 0);
	ck_assert_uint_eq(st.nfds, 1);
	ck_assert_uint_eq(st.nstreams, 1);
	s = &st.streams[0].rec;
	ck_assert_str_eq(s->port, "st1");
	ck_assert_int_eq(s->sock, 20);
	ck_assert_uint_eq(s->flags, HOVS_STREAM_FRAMED);
	ck_assert_uint_eq(s->hdr_got, 4);
	ck_assert_uint_eq(s->len, 256);
	ck_assert_uint_eq(s->got, 5);
	ck_assert_uint_eq(s->out_len, 11);
	ck_assert_mem_eq(st.streams[0].bytes, "hello\0\0\0\x07frame!!", 16);
	handover_state_free(&st);
	free(buf);
}
END_TEST

START_TEST(handover_stream_mid_prefix)
{
	struct hovs_stream s = { .port = "st1", .sock = 3, .hdr = { 0, 1 }, .hdr_got = 2 };
	struct handover_state st;
	char err[256] = "";
	size_t len;
	void *buf;

	/* two bytes of a prefix, nothing queued: no bytes after the struct */
	handover_state_init(&st);
	ck_assert_int_eq(handover_state_add_stream(&st, &s, NULL, NULL), 0);
	ck_assert_int_eq(handover_state_encode(&st, &buf, &len), 0);
	handover_state_free(&st);
	ck_assert_int_eq(handover_state_parse(buf, len, &st, err, sizeof(err)), 0);
	ck_assert_uint_eq(st.nstreams, 1);
	ck_assert_uint_eq(st.streams[0].rec.hdr_got, 2);
	ck_assert_ptr_null(st.streams[0].bytes);
	handover_state_free(&st);
	free(buf);
	/* the writer refuses what the reader would */
	handover_state_init(&st);
	s.got = 1;
	ck_assert_int_eq(handover_state_add_stream(&st, &s, "x", NULL), -EINVAL);
	s.got = 0;
	s.hdr_got = 4;
	ck_assert_int_eq(handover_state_add_stream(&st, &s, NULL, NULL), -EINVAL);
	s.hdr_got = 0;
	s.out_len = FRAME_STREAM_ENC_SIZE + 1;
	ck_assert_int_eq(handover_state_add_stream(&st, &s, NULL, NULL), -EINVAL);
	ck_assert_uint_eq(st.nstreams, 0);
	handover_state_free(&st);
}
END_TEST

START_TEST(handover_stream_bad)
{
	size_t len;
	uint8_t *buf = hov_stream_encode(&len);
	struct hovs_stream *s = HOV_STREAM(buf);
	struct hovs_record *r = (struct hovs_record *)s - 1;

	s->hdr_got = 5;
	hov_refused(buf, len, "5 bytes of a 4-byte length prefix");
	s->hdr_got = 3;		/* frame bytes before the prefix is whole */
	hov_refused(buf, len, "before its length prefix is complete");
	s->hdr_got = 4;
	s->len = 257;		/* not what the prefix says */
	hov_refused(buf, len, "length prefix 256, frame of 257 bytes");
	s->len = 0;
	s->hdr[2] = 0;		/* a zero prefix */
	hov_refused(buf, len, "length prefix 0");
	s->hdr[1] = 1;		/* 65536: above the largest frame */
	s->len = 65536;
	hov_refused(buf, len, "length prefix 65536");
	s->hdr[1] = 0;
	s->hdr[2] = 1;
	s->len = 256;
	s->got = 256;		/* a whole frame is no frame in flight */
	hov_refused(buf, len, "256 received");
	s->got = 5;
	s->out_len = FRAME_STREAM_ENC_SIZE + 1;
	hov_refused(buf, len, "queued for the peer");
	/* sizes that do not add up to the record's: more bytes, fewer */
	s->out_len = 19;
	hov_refused(buf, len, "in flight make");
	s->out_len = 3;
	hov_refused(buf, len, "in flight make");
	s->out_len = 11;
	/* a record too short for the struct: refused by its size */
	r->len = sizeof(struct hovs_stream) - 8;
	hov_refused(buf, len, "not one this version reads");
	r->len = sizeof(struct hovs_stream) + 16;
	s->sock = 1;
	hov_refused(buf, len, "stream socket: fd index 1 outside the fd table");
	s->sock = 0;
	memset(s->port, 'p', sizeof(s->port));
	hov_refused(buf, len, "port name not terminated");
	free(buf);
}
END_TEST

/**
 * hov_ringfd_encode() - a state of one served ring-fd client and one pending
 * @len: out: the bytes' count
 *
 * The served client (socket 30) sent a SETUP of 96 bytes with five fds
 * (31..35: memfd and four eventfds); its pair stopped at tx avail 700 and
 * rx avail 65535.  The pending one's socket is 40.
 *
 * Return: the bytes (malloc()ed).
 */
static uint8_t *hov_ringfd_encode(size_t *len)
{
	struct hovs_ringfd rf = { .port = "rf1", .sock = 30, .nfds = 5, .msg_len = 96 };
	struct handover_state st;
	unsigned int i;
	void *buf;

	for (i = 0; i < RINGFD_PROTO_MAX_FDS; i++)
		rf.fds[i] = i < 5 ? 31 + (int)i : -1;
	for (i = 0; i < rf.msg_len; i++)
		rf.msg[i] = (uint8_t)(i * 3);
	rf.last_avail[0][0] = 700;
	rf.last_avail[0][1] = 65535;
	handover_state_init(&st);
	ck_assert_int_eq(handover_state_add_ringfd(&st, &rf), 0);
	memset(&rf, 0, sizeof(rf));
	snprintf(rf.port, sizeof(rf.port), "rf2");
	rf.sock = 40;
	rf.flags = HOVS_RINGFD_PENDING;
	for (i = 0; i < RINGFD_PROTO_MAX_FDS; i++)
		rf.fds[i] = -1;
	ck_assert_int_eq(handover_state_add_ringfd(&st, &rf), 0);
	ck_assert_int_eq(handover_state_encode(&st, &buf, len), 0);
	handover_state_free(&st);
	return buf;
}

/* its records: after the header and a fd table of 7 fds (32 bytes) */
#define HOV_RINGFD(buf, i) ((struct hovs_ringfd *)((buf) + sizeof(struct hovs_header) + 32 + \
	(i) * (sizeof(struct hovs_record) + sizeof(struct hovs_ringfd)) + sizeof(struct hovs_record)))

START_TEST(handover_ringfd_record)
{
	struct handover_state st;
	const struct hovs_ringfd *rf;
	char err[256] = "";
	unsigned int i;
	size_t len;
	uint8_t *buf = hov_ringfd_encode(&len);

	ck_assert_uint_eq(len, sizeof(struct hovs_header) + 32 +
			  2 * (sizeof(struct hovs_record) + sizeof(struct hovs_ringfd)));
	ck_assert_int_eq(handover_state_parse(buf, len, &st, err, sizeof(err)), 0);
	ck_assert_uint_eq(st.nfds, 7);
	ck_assert_uint_eq(st.nringfd, 2);
	rf = &st.ringfd[0];
	ck_assert_str_eq(rf->port, "rf1");
	ck_assert_int_eq(rf->sock, 30);
	ck_assert_uint_eq(rf->flags, 0);
	ck_assert_uint_eq(rf->nfds, 5);
	for (i = 0; i < RINGFD_PROTO_MAX_FDS; i++)
		ck_assert_int_eq(rf->fds[i], i < 5 ? 31 + (int)i : -1);
	ck_assert_uint_eq(rf->msg_len, 96);
	for (i = 0; i < 96; i++)
		ck_assert_uint_eq(rf->msg[i], (uint8_t)(i * 3));
	ck_assert_uint_eq(rf->last_avail[0][0], 700);
	ck_assert_uint_eq(rf->last_avail[0][1], 65535);
	rf = &st.ringfd[1];
	ck_assert_str_eq(rf->port, "rf2");
	ck_assert_int_eq(rf->sock, 40);
	ck_assert_uint_eq(rf->flags, HOVS_RINGFD_PENDING);
	ck_assert_uint_eq(rf->nfds + rf->msg_len, 0);
	handover_state_free(&st);
	free(buf);
}
END_TEST

START_TEST(handover_ringfd_bad)
{
	size_t len;
	uint8_t *buf = hov_ringfd_encode(&len);
	struct hovs_ringfd *rf = HOV_RINGFD(buf, 0), *pend = HOV_RINGFD(buf, 1);
	struct hovs_record *r = (struct hovs_record *)rf - 1;
	struct handover_state st;
	char err[256] = "";

	rf->nfds = RINGFD_PROTO_MAX_FDS + 1;
	hov_refused(buf, len, "ring-fd client with 49 fds");
	rf->nfds = 5;
	rf->msg_len = RINGFD_PROTO_MAX_MSG + 1;
	hov_refused(buf, len, "a SETUP of 545 bytes");
	rf->msg_len = 0;	/* served, no SETUP */
	hov_refused(buf, len, "served ring-fd client with 5 fds and a SETUP of 0 bytes");
	rf->msg_len = 96;
	rf->fds[5] = 0;		/* an fd past its count */
	hov_refused(buf, len, "ring-fd fd 5 set beyond its 5 fds");
	rf->fds[5] = -1;
	rf->fds[4] = 7;		/* an index outside the table */
	hov_refused(buf, len, "ring-fd SETUP fd 4: fd index 7 outside the fd table");
	rf->fds[4] = 0;		/* the socket's index again */
	hov_refused(buf, len, "ring-fd SETUP fd 4: fd index 0 named twice");
	rf->fds[4] = 5;
	rf->flags = 2;
	hov_refused(buf, len, "flags 0x2 unknown");
	rf->flags = 0;
	pend->nfds = 1;		/* a pending client with a SETUP's fds */
	pend->fds[0] = 6;
	hov_refused(buf, len, "pending ring-fd client with 1 fds");
	pend->nfds = 0;
	pend->fds[0] = -1;
	pend->sock = -1;
	hov_refused(buf, len, "ring-fd socket: fd index -1 outside the fd table");
	pend->sock = 6;
	memset(rf->port, 'p', sizeof(rf->port));
	hov_refused(buf, len, "ring-fd record: port name not terminated");
	snprintf(rf->port, sizeof(rf->port), "rf1");
	r->len = sizeof(struct hovs_ringfd) - 8;
	hov_refused(buf, len, "not one this version reads");
	r->len = sizeof(struct hovs_ringfd);
	/* and the state is good again */
	ck_assert_msg(handover_state_parse(buf, len, &st, err, sizeof(err)) == 0, "%s", err);
	handover_state_free(&st);
	free(buf);
}
END_TEST

/**
 * handover_suite() - the suite
 *
 * Return: it.
 */
Suite *handover_suite(void)
{
	Suite *s = runner_suite_create("handover");

	RUNNER_ADD_TEST(s, handover_round_trip);
	RUNNER_ADD_TEST(s, handover_memfd_sealed);
	RUNNER_ADD_TEST(s, handover_truncated);
	RUNNER_ADD_TEST(s, handover_bad_magic_version);
	RUNNER_ADD_TEST(s, handover_fd_count_mismatch);
	RUNNER_ADD_TEST(s, handover_oversized);
	RUNNER_ADD_TEST(s, handover_bad_records);
	RUNNER_ADD_TEST(s, handover_peer_record);
	RUNNER_ADD_TEST(s, handover_empty);
	RUNNER_ADD_TEST(s, handover_stream_record);
	RUNNER_ADD_TEST(s, handover_stream_mid_prefix);
	RUNNER_ADD_TEST(s, handover_stream_bad);
	RUNNER_ADD_TEST(s, handover_ringfd_record);
	RUNNER_ADD_TEST(s, handover_ringfd_bad);
	return s;
}
