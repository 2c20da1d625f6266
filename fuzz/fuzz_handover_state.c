// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_handover_state.c - libFuzzer target for the hand-over state reader.
 *
 * The input is parsed as a predecessor's state (handover_state_parse()).
 * A state that parses is encoded again from what was read and must parse
 * to the same named fds, front-end and peer records.  Seeds:
 * fuzz/corpus/handover_state/.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "handover_state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
		    again.npeers != st.npeers ||
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
