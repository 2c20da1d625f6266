// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * handover_state.c - write and read the hand-over state (format in
 * handover_state.h), and carry it in a sealed memfd
 *
 * The writer collects named fds and front-end records with the writer's
 * fd numbers; handover_state_encode() turns them into the fd table and
 * indices.  The reader (handover_state_parse()) trusts nothing: it is
 * given the bytes of another program, which may be another version.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "handover_state.h"

/* the seals a state memfd must carry: nobody changes it once written */
#define HOVS_SEALS	(F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

/**
 * handover_state_init() - an empty state
 * @st: the state
 */
void handover_state_init(struct handover_state *st)
{
	memset(st, 0, sizeof(*st));
}

/**
 * handover_state_free() - release a state's arrays (not its fds)
 * @st: the state
 */
void handover_state_free(struct handover_state *st)
{
	unsigned int i;

	for (i = 0; i < st->nstreams; i++)
		free(st->streams[i].bytes);
	free(st->streams);
	free(st->fds);
	free(st->named);
	free(st->vu);
	free(st->peers);
	free(st->ringfd);
	handover_state_init(st);
}

/**
 * handover_state_records() - records a state holds
 * @st: the state
 *
 * Return: the count.
 */
static unsigned int handover_state_records(const struct handover_state *st)
{
	return st->nnamed + st->nvu + st->npeers + st->nstreams + st->nringfd;
}

/**
 * handover_state_add_named() - add a named fd
 * @st: the state being written
 * @name: its name (at most FDSTORE_NAME_MAX bytes)
 * @fd: the fd
 *
 * Return: 0, -ENAMETOOLONG, -EMFILE past HOVS_MAX_RECORDS, or -ENOMEM.
 */
int handover_state_add_named(struct handover_state *st, const char *name, int fd)
{
	struct hovs_named_fd *n;

	if (strlen(name) > FDSTORE_NAME_MAX)
		return -ENAMETOOLONG;
	if (handover_state_records(st) >= HOVS_MAX_RECORDS)
		return -EMFILE;
	n = realloc(st->named, (st->nnamed + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	st->named = n;
	n = &st->named[st->nnamed++];
	memset(n, 0, sizeof(*n));
	n->fd = fd;
	snprintf(n->name, sizeof(n->name), "%s", name);
	return 0;
}

/**
 * handover_state_add_vhost_user() - add a connected vhost-user front-end
 * @st: the state being written
 * @vu: the record, every fd field an fd of the writer or -1 (copied)
 *
 * Return: 0, -EINVAL for counts beyond the arrays, -EMFILE past
 * HOVS_MAX_RECORDS, or -ENOMEM.
 */
int handover_state_add_vhost_user(struct handover_state *st, const struct hovs_vhost_user *vu)
{
	struct hovs_vhost_user *v;

	if (vu->nregions > VUM_MAX_REGIONS || vu->nvrings > VHOST_USER_MAX_VRINGS)
		return -EINVAL;
	if (handover_state_records(st) >= HOVS_MAX_RECORDS)
		return -EMFILE;
	v = realloc(st->vu, (st->nvu + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	st->vu = v;
	st->vu[st->nvu++] = *vu;
	return 0;
}

/**
 * handover_state_add_peer() - add a dgram port's learnt peer
 * @st: the state
 * @peer: the record (copied)
 *
 * Return: 0, -EINVAL for a length beyond the address, -EMFILE past
 * HOVS_MAX_RECORDS, or -ENOMEM.
 */
int handover_state_add_peer(struct handover_state *st, const struct hovs_peer *peer)
{
	struct hovs_peer *n;

	if (peer->len > sizeof(peer->addr))
		return -EINVAL;
	if (handover_state_records(st) >= HOVS_MAX_RECORDS)
		return -EMFILE;
	n = realloc(st->peers, (st->npeers + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	st->peers = n;
	st->peers[st->npeers++] = *peer;
	return 0;
}

/**
 * handover_state_stream_bytes() - bytes a stream record carries after its struct
 * @s: the record (checked: no overflow)
 *
 * Return: @s->got + @s->out_len, rounded up to 8.
 */
static size_t handover_state_stream_bytes(const struct hovs_stream *s)
{
	return ((size_t)s->got + s->out_len + 7) & ~(size_t)7;
}

/**
 * handover_state_stream_check() - whether a stream record's fields agree
 * @s: the record
 * @err: message buffer
 * @errlen: its size
 *
 * The decoder's state as frame_stream_decode() leaves it between calls:
 * a prefix of 0..3 bytes and nothing of the frame, or a whole prefix
 * whose number (1..FRAME_STREAM_MAX_FRAME) is @s->len and fewer bytes of
 * the frame than that; at most FRAME_STREAM_ENC_SIZE bytes of output.
 *
 * Return: 0, or -1 with @err filled.
 */
int handover_state_stream_check(const struct hovs_stream *s, char *err, size_t errlen)
{
	uint32_t len = (uint32_t)s->hdr[0] << 24 | (uint32_t)s->hdr[1] << 16 |
		       (uint32_t)s->hdr[2] << 8 | s->hdr[3];

	if (!memchr(s->port, '\0', sizeof(s->port))) {
		snprintf(err, errlen, "stream record: port name not terminated");
		return -1;
	}
	if (s->hdr_got > FRAME_STREAM_HDR_SIZE) {
		snprintf(err, errlen, "port %s: %u bytes of a %u-byte length prefix", s->port,
			 s->hdr_got, FRAME_STREAM_HDR_SIZE);
		return -1;
	}
	if (s->hdr_got < FRAME_STREAM_HDR_SIZE && (s->len || s->got)) {
		snprintf(err, errlen, "port %s: frame of %u bytes (%u received) before its length prefix is complete",
			 s->port, s->len, s->got);
		return -1;
	}
	if (s->hdr_got == FRAME_STREAM_HDR_SIZE &&
	    (s->len != len || !len || len > FRAME_STREAM_MAX_FRAME || s->got >= len)) {
		snprintf(err, errlen, "port %s: length prefix %u, frame of %u bytes, %u received (want 1..%u, prefix = frame, received below it)",
			 s->port, len, s->len, s->got, FRAME_STREAM_MAX_FRAME);
		return -1;
	}
	if (s->out_len > FRAME_STREAM_ENC_SIZE) {
		snprintf(err, errlen, "port %s: %u bytes queued for the peer (at most %u)", s->port,
			 s->out_len, FRAME_STREAM_ENC_SIZE);
		return -1;
	}
	return 0;
}

/**
 * handover_state_add_stream() - add a connected stream peer
 * @st: the state being written
 * @s: the record, @s->sock the writer's fd (copied)
 * @partial: @s->got bytes of the frame being decoded
 * @out: @s->out_len bytes queued for the peer
 *
 * Return: 0, -EINVAL for a record handover_state_stream_check() refuses,
 * -EMFILE past HOVS_MAX_RECORDS, or -ENOMEM.
 */
int handover_state_add_stream(struct handover_state *st, const struct hovs_stream *s,
			      const void *partial, const void *out)
{
	struct handover_stream *n;
	uint8_t *bytes = NULL;
	char err[160];

	if (handover_state_stream_check(s, err, sizeof(err)) < 0)
		return -EINVAL;
	if (handover_state_records(st) >= HOVS_MAX_RECORDS)
		return -EMFILE;
	if (s->got + s->out_len) {
		bytes = malloc((size_t)s->got + s->out_len);
		if (!bytes)
			return -ENOMEM;
		if (s->got)
			memcpy(bytes, partial, s->got);
		if (s->out_len)
			memcpy(bytes + s->got, out, s->out_len);
	}
	n = realloc(st->streams, (st->nstreams + 1) * sizeof(*n));
	if (!n) {
		free(bytes);
		return -ENOMEM;
	}
	st->streams = n;
	n = &st->streams[st->nstreams++];
	n->rec = *s;
	n->bytes = bytes;
	return 0;
}

/**
 * handover_state_ringfd_check() - whether a ring-fd record's counts are in bounds
 * @rf: the record
 * @err: message buffer
 * @errlen: its size
 *
 * The port name terminated; @rf->nfds and @rf->msg_len within the
 * arrays, both 0 for a pending client and both non-zero for a served one;
 * the unused entries of @rf->fds -1.  What the SETUP says is checked by
 * the port that takes the client, as for a fresh one.
 *
 * Return: 0, or -1 with @err filled.
 */
static int handover_state_ringfd_check(const struct hovs_ringfd *rf, char *err, size_t errlen)
{
	bool pending = rf->flags & HOVS_RINGFD_PENDING;
	unsigned int i;

	if (!memchr(rf->port, '\0', sizeof(rf->port))) {
		snprintf(err, errlen, "ring-fd record: port name not terminated");
		return -1;
	}
	if (rf->flags & ~HOVS_RINGFD_PENDING) {
		snprintf(err, errlen, "port %s: ring-fd record flags 0x%x unknown", rf->port, rf->flags);
		return -1;
	}
	if (rf->nfds > RINGFD_PROTO_MAX_FDS || rf->msg_len > RINGFD_PROTO_MAX_MSG) {
		snprintf(err, errlen, "port %s: ring-fd client with %u fds and a SETUP of %u bytes (at most %u, %zu)",
			 rf->port, rf->nfds, rf->msg_len, RINGFD_PROTO_MAX_FDS, RINGFD_PROTO_MAX_MSG);
		return -1;
	}
	if (pending ? rf->nfds || rf->msg_len : !rf->nfds || !rf->msg_len) {
		snprintf(err, errlen, "port %s: %s ring-fd client with %u fds and a SETUP of %u bytes",
			 rf->port, pending ? "pending" : "served", rf->nfds, rf->msg_len);
		return -1;
	}
	for (i = rf->nfds; i < RINGFD_PROTO_MAX_FDS; i++)
		if (rf->fds[i] != -1) {
			snprintf(err, errlen, "port %s: ring-fd fd %u set beyond its %u fds", rf->port,
				 i, rf->nfds);
			return -1;
		}
	return 0;
}

/**
 * handover_state_add_ringfd() - add a ring-fd client
 * @st: the state being written
 * @rf: the record, its fd fields the writer's fds (copied)
 *
 * Return: 0, -EINVAL for a record handover_state_ringfd_check() refuses,
 * -EMFILE past HOVS_MAX_RECORDS, or -ENOMEM.
 */
int handover_state_add_ringfd(struct handover_state *st, const struct hovs_ringfd *rf)
{
	struct hovs_ringfd *n;
	char err[160];

	if (handover_state_ringfd_check(rf, err, sizeof(err)) < 0)
		return -EINVAL;
	if (handover_state_records(st) >= HOVS_MAX_RECORDS)
		return -EMFILE;
	n = realloc(st->ringfd, (st->nringfd + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	st->ringfd = n;
	st->ringfd[st->nringfd++] = *rf;
	return 0;
}

/**
 * handover_state_index() - put an fd into the fd table
 * @tab: the table
 * @n: its entries (incremented)
 * @fd: the fd, or -1
 *
 * Return: its index, or -1 for @fd -1.
 */
static int32_t handover_state_index(uint32_t *tab, uint32_t *n, int fd)
{
	if (fd < 0)
		return -1;
	tab[*n] = (uint32_t)fd;
	return (int32_t)(*n)++;
}

/**
 * handover_state_vu_fds() - fds a front-end record carries
 * @v: the record
 *
 * Return: the count (the socket, one per region, up to three per ring).
 */
static unsigned int handover_state_vu_fds(const struct hovs_vhost_user *v)
{
	unsigned int i, n = 1 + v->nregions;

	for (i = 0; i < v->nvrings; i++)
		n += (v->vrings[i].kick >= 0) + (v->vrings[i].call >= 0) + (v->vrings[i].err >= 0);
	return n;
}

/**
 * handover_state_encode() - the bytes of a state
 * @st: the state, as written (fds are the writer's)
 * @buf: out: the bytes (malloc()ed; the caller frees)
 * @len: out: their count
 *
 * Return: 0, -E2BIG beyond the HOVS_MAX_* limits, or -ENOMEM.
 */
int handover_state_encode(const struct handover_state *st, void **buf, size_t *len)
{
	size_t nfds = st->nnamed + st->nstreams + st->nringfd, size;
	struct hovs_header *h;
	struct hovs_record *r;
	uint32_t *tab, n = 0;
	unsigned int i, j;
	uint8_t *p;

	for (i = 0; i < st->nvu; i++)
		nfds += handover_state_vu_fds(&st->vu[i]);
	for (i = 0; i < st->nringfd; i++)
		nfds += st->ringfd[i].nfds;
	size = sizeof(*h) + ((nfds * sizeof(uint32_t) + 7) & ~(size_t)7) +
	       st->nnamed * (sizeof(*r) + sizeof(struct hovs_named_fd)) +
	       st->nvu * (sizeof(*r) + sizeof(struct hovs_vhost_user)) +
	       st->npeers * (sizeof(*r) + sizeof(struct hovs_peer)) +
	       st->nringfd * (sizeof(*r) + sizeof(struct hovs_ringfd));
	for (i = 0; i < st->nstreams; i++)
		size += sizeof(*r) + sizeof(struct hovs_stream) +
			handover_state_stream_bytes(&st->streams[i].rec);
	if (nfds > HOVS_MAX_FDS || size > HOVS_MAX_LENGTH)
		return -E2BIG;
	p = calloc(1, size);
	if (!p)
		return -ENOMEM;
	h = (struct hovs_header *)p;
	h->magic = HOVS_MAGIC;
	h->version = HOVS_VERSION;
	h->length = (uint32_t)size;
	h->nfds = (uint32_t)nfds;
	h->nrecords = handover_state_records(st);
	tab = (uint32_t *)(h + 1);
	r = (struct hovs_record *)(p + sizeof(*h) + ((nfds * sizeof(uint32_t) + 7) & ~(size_t)7));
	for (i = 0; i < st->nnamed; i++) {
		struct hovs_named_fd *nf = (struct hovs_named_fd *)(r + 1);

		r->type = HOVS_REC_NAMED_FD;
		r->len = sizeof(*nf);
		*nf = st->named[i];
		nf->fd = handover_state_index(tab, &n, st->named[i].fd);
		r = (struct hovs_record *)(nf + 1);
	}
	for (i = 0; i < st->nvu; i++) {
		struct hovs_vhost_user *v = (struct hovs_vhost_user *)(r + 1);

		r->type = HOVS_REC_VHOST_USER;
		r->len = sizeof(*v);
		*v = st->vu[i];
		v->sock = handover_state_index(tab, &n, v->sock);
		for (j = 0; j < v->nregions; j++)
			v->regions[j].fd = handover_state_index(tab, &n, v->regions[j].fd);
		for (j = 0; j < v->nvrings; j++) {
			v->vrings[j].kick = handover_state_index(tab, &n, v->vrings[j].kick);
			v->vrings[j].call = handover_state_index(tab, &n, v->vrings[j].call);
			v->vrings[j].err = handover_state_index(tab, &n, v->vrings[j].err);
		}
		r = (struct hovs_record *)(v + 1);
	}
	for (i = 0; i < st->npeers; i++) {
		r->type = HOVS_REC_PEER;
		r->len = sizeof(struct hovs_peer);
		memcpy(r + 1, &st->peers[i], sizeof(struct hovs_peer));
		r = (struct hovs_record *)((uint8_t *)(r + 1) + sizeof(struct hovs_peer));
	}
	for (i = 0; i < st->nstreams; i++) {
		const struct handover_stream *hs = &st->streams[i];
		struct hovs_stream *s = (struct hovs_stream *)(r + 1);

		r->type = HOVS_REC_STREAM;
		r->len = (uint32_t)(sizeof(*s) + handover_state_stream_bytes(&hs->rec));
		*s = hs->rec;
		s->sock = handover_state_index(tab, &n, hs->rec.sock);
		if (hs->rec.got + hs->rec.out_len)
			memcpy(s + 1, hs->bytes, (size_t)hs->rec.got + hs->rec.out_len);
		r = (struct hovs_record *)((uint8_t *)(r + 1) + r->len);
	}
	for (i = 0; i < st->nringfd; i++) {
		struct hovs_ringfd *rf = (struct hovs_ringfd *)(r + 1);

		r->type = HOVS_REC_RINGFD;
		r->len = sizeof(*rf);
		*rf = st->ringfd[i];
		rf->sock = handover_state_index(tab, &n, rf->sock);
		for (j = 0; j < rf->nfds; j++)
			rf->fds[j] = handover_state_index(tab, &n, rf->fds[j]);
		r = (struct hovs_record *)(rf + 1);
	}
	*buf = p;
	*len = size;
	return 0;
}

/**
 * handover_state_resolve() - turn an fd table index into the fd
 * @idx: in: the index (or -1 where @optional); out: the fd (or -1)
 * @optional: -1 is allowed
 * @tab: the fd table
 * @used: per entry: taken already
 * @nfds: entries
 * @what: for the error
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 with @err filled.
 */
static int handover_state_resolve(int32_t *idx, bool optional, const uint32_t *tab, bool *used,
				  uint32_t nfds, const char *what, char *err, size_t errlen)
{
	if (*idx == -1 && optional)
		return 0;
	if (*idx < 0 || (uint32_t)*idx >= nfds) {
		snprintf(err, errlen, "%s: fd index %d outside the fd table (%u fds)", what,
			 (int)*idx, nfds);
		return -1;
	}
	if (used[*idx]) {
		snprintf(err, errlen, "%s: fd index %d named twice", what, (int)*idx);
		return -1;
	}
	used[*idx] = true;
	*idx = (int32_t)tab[*idx];
	return 0;
}

/**
 * handover_state_parse_vu() - check and resolve one front-end record
 * @v: the record (a copy: changed in place)
 * @tab: the fd table
 * @used: per entry: taken already
 * @nfds: entries
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 with @err filled.
 */
static int handover_state_parse_vu(struct hovs_vhost_user *v, const uint32_t *tab, bool *used,
				   uint32_t nfds, char *err, size_t errlen)
{
	char what[64];
	unsigned int j;

	if (!memchr(v->port, '\0', sizeof(v->port))) {
		snprintf(err, errlen, "vhost-user record: port name not terminated");
		return -1;
	}
	if (v->nregions > VUM_MAX_REGIONS || v->nvrings > VHOST_USER_MAX_VRINGS) {
		snprintf(err, errlen, "port %s: %u memory regions, %u rings (at most %u, %u)",
			 v->port, v->nregions, v->nvrings, VUM_MAX_REGIONS, VHOST_USER_MAX_VRINGS);
		return -1;
	}
	snprintf(what, sizeof(what), "port %s: socket", v->port);
	if (handover_state_resolve(&v->sock, false, tab, used, nfds, what, err, errlen) < 0)
		return -1;
	for (j = 0; j < v->nregions; j++) {
		snprintf(what, sizeof(what), "port %s: region %u", v->port, j);
		if (handover_state_resolve(&v->regions[j].fd, false, tab, used, nfds, what,
					   err, errlen) < 0)
			return -1;
	}
	for (j = 0; j < v->nvrings; j++) {
		struct hovs_vring *vr = &v->vrings[j];

		snprintf(what, sizeof(what), "port %s: ring %u", v->port, j);
		if (vr->last_avail > 0xffff) {
			snprintf(err, errlen, "%s: avail index %u does not fit 16 bits", what,
				 vr->last_avail);
			return -1;
		}
		if (handover_state_resolve(&vr->kick, true, tab, used, nfds, what, err, errlen) < 0 ||
		    handover_state_resolve(&vr->call, true, tab, used, nfds, what, err, errlen) < 0 ||
		    handover_state_resolve(&vr->err, true, tab, used, nfds, what, err, errlen) < 0)
			return -1;
	}
	return 0;
}

/**
 * handover_state_parse_stream() - check, resolve and keep one stream record
 * @p: the record's bytes
 * @len: their count (at least sizeof(struct hovs_stream))
 * @tab: the fd table
 * @used: per entry: taken already
 * @nfds: entries
 * @st: the record is added here
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 with @err filled.
 */
static int handover_state_parse_stream(const uint8_t *p, uint32_t len, const uint32_t *tab,
				       bool *used, uint32_t nfds, struct handover_state *st,
				       char *err, size_t errlen)
{
	const uint8_t *bytes = p + sizeof(struct hovs_stream);
	struct hovs_stream s;
	char what[64];
	int ret;

	memcpy(&s, p, sizeof(s));
	if (handover_state_stream_check(&s, err, errlen) < 0)
		return -1;
	if (len != sizeof(s) + handover_state_stream_bytes(&s)) {
		snprintf(err, errlen, "port %s: stream record of %u bytes, its %u + %u bytes in flight make %zu",
			 s.port, len, s.got, s.out_len, sizeof(s) + handover_state_stream_bytes(&s));
		return -1;
	}
	snprintf(what, sizeof(what), "port %s: stream socket", s.port);
	if (handover_state_resolve(&s.sock, false, tab, used, nfds, what, err, errlen) < 0)
		return -1;
	ret = handover_state_add_stream(st, &s, bytes, bytes + s.got);
	if (ret < 0) {
		snprintf(err, errlen, "%s", strerror(-ret));
		return -1;
	}
	return 0;
}

/**
 * handover_state_parse_ringfd() - check, resolve and keep one ring-fd record
 * @p: the record's bytes (sizeof(struct hovs_ringfd))
 * @tab: the fd table
 * @used: per entry: taken already
 * @nfds: entries
 * @st: the record is added here
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 with @err filled.
 */
static int handover_state_parse_ringfd(const uint8_t *p, const uint32_t *tab, bool *used,
				       uint32_t nfds, struct handover_state *st, char *err,
				       size_t errlen)
{
	struct hovs_ringfd rf;
	char what[64];
	unsigned int j;
	int ret;

	memcpy(&rf, p, sizeof(rf));
	if (handover_state_ringfd_check(&rf, err, errlen) < 0)
		return -1;
	snprintf(what, sizeof(what), "port %s: ring-fd socket", rf.port);
	if (handover_state_resolve(&rf.sock, false, tab, used, nfds, what, err, errlen) < 0)
		return -1;
	for (j = 0; j < rf.nfds; j++) {
		snprintf(what, sizeof(what), "port %s: ring-fd SETUP fd %u", rf.port, j);
		if (handover_state_resolve(&rf.fds[j], false, tab, used, nfds, what, err, errlen) < 0)
			return -1;
	}
	ret = handover_state_add_ringfd(st, &rf);
	if (ret < 0) {
		snprintf(err, errlen, "%s", strerror(-ret));
		return -1;
	}
	return 0;
}

/**
 * handover_state_parse_records() - read and resolve every record
 * @p: the first record
 * @end: the end of the state
 * @nrecords: records announced
 * @tab: the fd table
 * @used: per entry: taken already
 * @nfds: entries
 * @st: filled
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 with @err filled.
 */
static int handover_state_parse_records(const uint8_t *p, const uint8_t *end, uint32_t nrecords,
					const uint32_t *tab, bool *used, uint32_t nfds,
					struct handover_state *st, char *err, size_t errlen)
{
	struct hovs_record r;
	uint32_t i;

	for (i = 0; i < nrecords; i++) {
		if ((size_t)(end - p) < sizeof(r)) {
			snprintf(err, errlen, "record %u of %u: past the end of the state", i, nrecords);
			return -1;
		}
		memcpy(&r, p, sizeof(r));
		p += sizeof(r);
		if (r.len > (size_t)(end - p)) {
			snprintf(err, errlen, "record %u (type %u): %u bytes, past the end of the state",
				 i, r.type, r.len);
			return -1;
		}
		if (r.type == HOVS_REC_NAMED_FD && r.len == sizeof(struct hovs_named_fd)) {
			struct hovs_named_fd nf;

			memcpy(&nf, p, sizeof(nf));
			if (!memchr(nf.name, '\0', sizeof(nf.name))) {
				snprintf(err, errlen, "record %u: fd name not terminated", i);
				return -1;
			}
			if (handover_state_resolve(&nf.fd, false, tab, used, nfds, nf.name,
						   err, errlen) < 0 ||
			    handover_state_add_named(st, nf.name, nf.fd) < 0)
				return -1;
		} else if (r.type == HOVS_REC_VHOST_USER && r.len == sizeof(struct hovs_vhost_user)) {
			struct hovs_vhost_user *v = malloc(sizeof(*v));
			int ret;

			if (!v) {
				snprintf(err, errlen, "%s", strerror(ENOMEM));
				return -1;
			}
			memcpy(v, p, sizeof(*v));
			ret = handover_state_parse_vu(v, tab, used, nfds, err, errlen);
			if (!ret && handover_state_add_vhost_user(st, v) < 0) {
				snprintf(err, errlen, "%s", strerror(ENOMEM));
				ret = -1;
			}
			free(v);
			if (ret < 0)
				return -1;
		} else if (r.type == HOVS_REC_PEER && r.len == sizeof(struct hovs_peer)) {
			struct hovs_peer pe;

			memcpy(&pe, p, sizeof(pe));
			if (!memchr(pe.port, '\0', sizeof(pe.port)) || pe.len > sizeof(pe.addr)) {
				snprintf(err, errlen, "record %u: peer: port name not terminated or address of %u bytes",
					 i, pe.len);
				return -1;
			}
			if (handover_state_add_peer(st, &pe) < 0) {
				snprintf(err, errlen, "%s", strerror(ENOMEM));
				return -1;
			}
		} else if (r.type == HOVS_REC_STREAM && r.len >= sizeof(struct hovs_stream)) {
			if (handover_state_parse_stream(p, r.len, tab, used, nfds, st, err, errlen) < 0)
				return -1;
		} else if (r.type == HOVS_REC_RINGFD && r.len == sizeof(struct hovs_ringfd)) {
			if (handover_state_parse_ringfd(p, tab, used, nfds, st, err, errlen) < 0)
				return -1;
		} else {
			snprintf(err, errlen, "record %u: type %u of %u bytes is not one this version reads",
				 i, r.type, r.len);
			return -1;
		}
		p += r.len;
	}
	if (p != end) {
		snprintf(err, errlen, "%zu bytes after the last record", (size_t)(end - p));
		return -1;
	}
	return 0;
}

/**
 * handover_state_parse() - read a state
 * @buf: its bytes
 * @len: their count
 * @st: filled (handover_state_free() it, also after an error)
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 with @err filled (another version: "state version N,
 * this vringnetd reads version M").
 */
int handover_state_parse(const void *buf, size_t len, struct handover_state *st,
			 char *err, size_t errlen)
{
	const uint8_t *p = buf;
	struct hovs_header h;
	uint32_t *tab = NULL;
	bool *used = NULL;
	size_t tab_len;
	uint32_t i;
	int ret = -1;

	handover_state_init(st);
	if (len < sizeof(h)) {
		snprintf(err, errlen, "state of %zu bytes: shorter than its header", len);
		return -1;
	}
	memcpy(&h, p, sizeof(h));
	if (h.magic != HOVS_MAGIC) {
		snprintf(err, errlen, "not a vringnetd hand-over state (magic 0x%08x)", h.magic);
		return -1;
	}
	if (h.version != HOVS_VERSION) {
		snprintf(err, errlen, "state version %u, this vringnetd reads version %u",
			 h.version, HOVS_VERSION);
		return -1;
	}
	if (h.length != len) {
		snprintf(err, errlen, "state says %u bytes, %zu received (truncated or padded)",
			 h.length, len);
		return -1;
	}
	if (h.nfds > HOVS_MAX_FDS || h.nrecords > HOVS_MAX_RECORDS) {
		snprintf(err, errlen, "%u fds, %u records (at most %u, %u)", h.nfds, h.nrecords,
			 HOVS_MAX_FDS, HOVS_MAX_RECORDS);
		return -1;
	}
	tab_len = (h.nfds * sizeof(uint32_t) + 7) & ~(size_t)7;
	if (len - sizeof(h) < tab_len) {
		snprintf(err, errlen, "fd table of %u fds: past the end of the state", h.nfds);
		return -1;
	}
	tab = malloc(tab_len + sizeof(uint32_t));
	used = calloc(h.nfds + 1, sizeof(*used));
	if (!tab || !used) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		goto out;
	}
	memcpy(tab, p + sizeof(h), h.nfds * sizeof(uint32_t));
	for (i = 0; i < h.nfds; i++)
		if (tab[i] > (uint32_t)INT32_MAX) {
			snprintf(err, errlen, "fd table entry %u: fd %u", i, tab[i]);
			goto out;
		}
	if (handover_state_parse_records(p + sizeof(h) + tab_len, p + len, h.nrecords, tab, used,
					 h.nfds, st, err, errlen) < 0)
		goto out;
	for (i = 0; i < h.nfds; i++)
		if (!used[i]) {
			snprintf(err, errlen, "fd table has %u fds, entry %u (fd %u) is named by no record",
				 h.nfds, i, tab[i]);
			goto out;
		}
	st->fds = (int *)tab;	/* uint32_t below INT32_MAX: the same bits */
	st->nfds = h.nfds;
	tab = NULL;
	ret = 0;
out:
	free(tab);
	free(used);
	if (ret < 0) {
		handover_state_free(st);
	}
	return ret;
}

/**
 * handover_state_memfd_new() - an empty memfd for a state, not yet sealed
 *
 * restart.c makes it at start, before the seccomp filter (which allows
 * memfd_create only with upgrade = yes), and fills it at SIGTERM.
 *
 * Return: the memfd (close-on-exec), or a negative errno.
 */
int handover_state_memfd_new(void)
{
	int fd = memfd_create("vringnetd-handover", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	return fd < 0 ? -errno : fd;
}

/**
 * handover_state_memfd_fill() - write @buf into an empty state memfd and
 *				 seal it
 * @fd: from handover_state_memfd_new()
 * @buf: the bytes
 * @len: their count
 *
 * Return: 0, or a negative errno (@fd stays open).
 */
int handover_state_memfd_fill(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t off = 0;
	ssize_t n;

	while (off < len) {
		n = write(fd, p + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += (size_t)n;
	}
	if (fcntl(fd, F_ADD_SEALS, HOVS_SEALS) < 0)
		return -errno;
	return 0;
}

/**
 * handover_state_to_memfd() - a sealed memfd holding @buf
 * @buf: the bytes
 * @len: their count
 *
 * Return: the memfd (close-on-exec), or a negative errno.
 */
int handover_state_to_memfd(const void *buf, size_t len)
{
	int fd = handover_state_memfd_new(), ret;

	if (fd < 0)
		return fd;
	ret = handover_state_memfd_fill(fd, buf, len);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	return fd;
}

/**
 * handover_state_from_memfd() - the bytes of a state memfd
 * @fd: the memfd (must carry the write, shrink and grow seals)
 * @buf: out: the bytes (malloc()ed)
 * @len: out: their count
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 with @err filled.
 */
int handover_state_from_memfd(int fd, void **buf, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	size_t off = 0;
	uint8_t *p;
	ssize_t n;
	int seals;

	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & HOVS_SEALS) != HOVS_SEALS) {
		snprintf(err, errlen, "state fd %d is not a sealed memfd", fd);
		return -1;
	}
	if (fstat(fd, &st) < 0 || st.st_size < 0 || (uint64_t)st.st_size > HOVS_MAX_LENGTH) {
		snprintf(err, errlen, "state fd %d: size unreadable or above %u bytes", fd,
			 HOVS_MAX_LENGTH);
		return -1;
	}
	p = malloc((size_t)st.st_size + 1);
	if (!p) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	while (off < (size_t)st.st_size) {
		n = pread(fd, p + off, (size_t)st.st_size - off, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "state fd %d: read: %s", fd,
				 n < 0 ? strerror(errno) : "short");
			free(p);
			return -1;
		}
		off += (size_t)n;
	}
	*buf = p;
	*len = off;
	return 0;
}

/**
 * handover_state_vring_close() - close a parsed ring record's eventfds
 * @vr: the ring (its kick, call and err fds, those that are not -1)
 */
void handover_state_vring_close(const struct hovs_vring *vr)
{
	if (vr->kick >= 0)
		close(vr->kick);
	if (vr->call >= 0)
		close(vr->call);
	if (vr->err >= 0)
		close(vr->err);
}

/**
 * handover_state_vu_close() - close every fd of a parsed front-end record
 * @v: the record (socket, regions, ring eventfds; those that are not -1)
 */
void handover_state_vu_close(const struct hovs_vhost_user *v)
{
	unsigned int i;

	if (v->sock >= 0)
		close(v->sock);
	for (i = 0; i < v->nregions; i++)
		if (v->regions[i].fd >= 0)
			close(v->regions[i].fd);
	for (i = 0; i < v->nvrings; i++)
		handover_state_vring_close(&v->vrings[i]);
}

/**
 * handover_state_ringfd_close() - close every fd of a parsed ring-fd record
 * @rf: the record (socket and SETUP fds; those that are not -1)
 */
void handover_state_ringfd_close(const struct hovs_ringfd *rf)
{
	unsigned int i;

	if (rf->sock >= 0)
		close(rf->sock);
	for (i = 0; i < rf->nfds && i < RINGFD_PROTO_MAX_FDS; i++)
		if (rf->fds[i] >= 0)
			close(rf->fds[i]);
}

/**
 * handover_state_take_named() - the fd of a named entry, taken out
 * @st: a parsed state
 * @name: the name
 *
 * Return: the fd (the entry forgets it), or -1 when none has that name.
 */
int handover_state_take_named(struct handover_state *st, const char *name)
{
	unsigned int i;
	int fd;

	for (i = 0; i < st->nnamed; i++)
		if (st->named[i].fd >= 0 && !strcmp(st->named[i].name, name)) {
			fd = st->named[i].fd;
			st->named[i].fd = -1;
			return fd;
		}
	return -1;
}
