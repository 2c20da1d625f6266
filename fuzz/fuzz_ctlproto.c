// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_ctlproto.c - libFuzzer target for the control protocol codec.
 *
 * The input is decoded as a request and as a reply.  A request that
 * decodes is re-encoded and must decode to the same request; a reply that
 * decodes is rebuilt with the reply writer and must decode to the same
 * records.  Seeds: fuzz/corpus/ctlproto/.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctlproto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fz_buf[CTLPROTO_REPLY_MAX];

/**
 * fz_same_records() - whether two decoded replies carry the same records
 * @a: one
 * @b: the other
 *
 * Return: true if equal.
 */
static bool fz_same_records(const struct ctlproto_reply *a, const struct ctlproto_reply *b)
{
	unsigned int i, j;

	if (a->status != b->status || strcmp(a->error, b->error) ||
	    a->nrecords != b->nrecords)
		return false;
	for (i = 0; i < a->nrecords; i++) {
		const struct ctlproto_record *x = &a->records[i], *y = &b->records[i];

		if (strcmp(x->type, y->type) || x->nkv != y->nkv)
			return false;
		for (j = 0; j < x->nkv; j++)
			if (strcmp(x->kv[j].key, y->kv[j].key) ||
			    strcmp(x->kv[j].value, y->kv[j].value))
				return false;
	}
	return true;
}

/**
 * LLVMFuzzerTestOneInput() - decode one input both ways
 * @data: the bytes
 * @size: their number
 *
 * Return: 0 (aborts on a broken invariant).
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctlproto_request req, req2;
	struct ctlproto_reply rep, rep2;
	char err[CTLPROTO_ERROR_MAX];
	enum ctlproto_status st;
	int n;

	st = ctlproto_decode_request(data, size, &req, err, sizeof(err));
	if (st == CTLPROTO_OK) {
		n = ctlproto_encode_request(&req, fz_buf, CTLPROTO_REQUEST_MAX);
		if (n <= 0 || ctlproto_decode_request(fz_buf, (size_t)n, &req2, err,
						      sizeof(err)) != CTLPROTO_OK ||
		    memcmp(&req, &req2, sizeof(req)))
			abort();
	} else {
		/* The error text always makes a valid error reply. */
		n = ctlproto_reply_error(fz_buf, sizeof(fz_buf), st, "%s", err);
		if (n <= 0 || ctlproto_decode_reply(fz_buf, (size_t)n, &rep, err, sizeof(err)))
			abort();
		if (rep.status != st)
			abort();
		ctlproto_reply_free(&rep);
	}

	if (ctlproto_decode_reply(data, size, &rep, err, sizeof(err)))
		return 0;
	if (rep.status == CTLPROTO_OK) {
		struct ctlproto_writer w;
		unsigned int i, j;

		ctlproto_reply_init(&w, fz_buf, sizeof(fz_buf));
		for (i = 0; i < rep.nrecords; i++) {
			ctlproto_reply_record(&w, rep.records[i].type);
			for (j = 0; j < rep.records[i].nkv; j++)
				ctlproto_reply_str(&w, rep.records[i].kv[j].key,
						   rep.records[i].kv[j].value);
		}
		n = ctlproto_reply_finish(&w);
	} else {
		n = ctlproto_reply_error(fz_buf, sizeof(fz_buf), rep.status, "%s", rep.error);
	}
	if (n <= 0 || ctlproto_decode_reply(fz_buf, (size_t)n, &rep2, err, sizeof(err)))
		abort();
	/* A success whose header had extra keys re-encodes without them: equal records. */
	if (!fz_same_records(&rep, &rep2))
		abort();
	ctlproto_reply_free(&rep2);
	ctlproto_reply_free(&rep);
	return 0;
}
