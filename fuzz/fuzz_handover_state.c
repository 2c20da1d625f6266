// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_handover_state.c - libFuzzer target for the hand-over state reader.
 *
 * The input is parsed as a predecessor's state (handover_state_parse()).
 * A state that parses is encoded again from what was read and must parse
 * to the same named fds, front-end, peer, stream and ring-fd records (a
 * stream's bytes in flight included).  Seeds: fuzz/corpus/handover_state/.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "handover_state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/**
 * fuzz_streams_differ() - whether two parsed states' stream records differ
 * @a: one state
 * @b: the other, with as many stream records
 *
 * Return: true when a record or its bytes in flight differ.
 */
static bool fuzz_streams_differ(const struct handover_state *a, const struct handover_state *b)
{
	unsigned int i;

	for (i = 0; i < a->nstreams; i++) {
		const struct handover_stream *x = &a->streams[i], *y = &b->streams[i];
		size_t n = (size_t)x->rec.got + x->rec.out_len;

		if (memcmp(&x->rec, &y->rec, sizeof(x->rec)) || (n && memcmp(x->bytes, y->bytes, n)))
			return true;
	}
	return false;
}

/**
 * LLVMFuzzerTestOneInput() - parse one input, round-trip what parses
 * @data: the bytes
 * @size: their number
 *
 * Return: 0.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct handover_state st, again;
	char err[256];
	size_t len;
	void *buf;

	if (handover_state_parse(data, size, &st, err, sizeof(err)) < 0) {
		handover_state_free(&st);
		return 0;
	}
	if (handover_state_encode(&st, &buf, &len) == 0) {
		if (handover_state_parse(buf, len, &again, err, sizeof(err)) < 0)
			abort();
		if (again.nnamed != st.nnamed || again.nvu != st.nvu || again.nfds != st.nfds ||
		    again.npeers != st.npeers || again.nstreams != st.nstreams ||
		    again.nringfd != st.nringfd ||
		    (st.nringfd && memcmp(again.ringfd, st.ringfd, st.nringfd * sizeof(*st.ringfd))) ||
		    fuzz_streams_differ(&st, &again) ||
		    (st.npeers && memcmp(again.peers, st.peers, st.npeers * sizeof(*st.peers))) ||
		    (st.nnamed && memcmp(again.named, st.named, st.nnamed * sizeof(*st.named))) ||
		    (st.nvu && memcmp(again.vu, st.vu, st.nvu * sizeof(*st.vu))))
			abort();
		handover_state_free(&again);
		free(buf);
	}
	handover_state_free(&st);
	return 0;
}
