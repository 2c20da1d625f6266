// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_ringfd_proto.c - libFuzzer target for the ring-fd SETUP decoder
 *
 * Input: one byte of fd count, four bytes of memfd size (little-endian,
 * scaled by 16), then the message.  The message goes through
 * ringfd_proto_decode_setup() and, when accepted, ringfd_proto_check_layout(); an accepted
 * layout must really be inside the memory and free of overlaps (checked
 * here again, independently), and every reason must be a terminated,
 * non-empty string.  An accepted SETUP of passed rings (VRINGNET_RFD_F_RINGS)
 * must have 6 fds per pair and all offsets 0; its ring fd check runs on
 * closed fds (-1) and must refuse them with EBADF and a reason.
 * Seeds: fuzz/corpus/ringfd_proto/.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ringfd_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/**
 * fz_part() - one ring part's extent, checked against the memory size
 * @start: offset
 * @len: bytes
 * @mem: memory size
 */
static void fz_part(uint64_t start, uint64_t len, uint64_t mem)
{
	if (start > mem || start + len > mem || start + len < start)
		abort();
}

/**
 * fz_rings() - an accepted SETUP of passed rings
 * @s: it
 *
 * Return: 0.
 */
static int fz_rings(const struct ringfd_proto_setup *s)
{
	int fds[RINGFD_PROTO_MAX_FDS];
	char err[256];
	unsigned int i;

	if (ringfd_proto_nfds(s) != 6 * s->nqp || ringfd_proto_evfd_base(s) != 2 * s->nqp)
		abort();
	for (i = 0; i < s->nqp; i++) {
		if (s->qp[i].tx.desc || s->qp[i].tx.avail || s->qp[i].tx.used ||
		    s->qp[i].rx.desc || s->qp[i].rx.avail || s->qp[i].rx.used)
			abort();
	}
	for (i = 0; i < RINGFD_PROTO_MAX_FDS; i++)
		fds[i] = -1;
	err[0] = '\0';
	if (ringfd_proto_check_ring_fds(s, fds, err, sizeof(err)) != -EBADF || !err[0])
		abort();
	return 0;
}

/**
 * LLVMFuzzerTestOneInput() - decode one SETUP
 * @data: fd count, memfd size, message
 * @size: bytes
 *
 * Return: 0.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ringfd_proto_setup s;
	struct vringnet_rfd_reply r;
	char err[256];
	uint64_t mem;
	uint32_t m32;
	unsigned int nfds, i;
	int ret;

	if (size < 5)
		return 0;
	nfds = data[0];
	memcpy(&m32, data + 1, 4);
	mem = (uint64_t)m32 * 16;
	err[0] = '\0';
	ret = ringfd_proto_decode_setup(data + 5, size - 5, nfds, &s, err, sizeof(err));
	if (ret > 0 || (ret < 0 && (!err[0] || !memchr(err, 0, sizeof(err)))))
		abort();
	if (ret)
		return 0;
	if (s.nqp < 1 || s.nqp > VRINGNET_RFD_MAX_QP || nfds != ringfd_proto_nfds(&s))
		abort();
	if (s.rings)
		return fz_rings(&s);
	err[0] = '\0';
	ret = ringfd_proto_check_layout(&s, mem, err, sizeof(err));
	if (ret < 0) {
		if (!err[0])
			abort();
		ringfd_proto_make_reply(&r, -ret, 0, err);
		if (r.text[sizeof(r.text) - 1])
			abort();
		return 0;
	}
	for (i = 0; i < s.nqp; i++) {
		const struct vringnet_rfd_ring *rg[2] = { &s.qp[i].tx, &s.qp[i].rx };
		unsigned int j;

		for (j = 0; j < 2; j++) {
			uint64_t n = rg[j]->num;

			if (!n || (n & (n - 1)) || n > VRINGNET_RFD_MAX_NUM ||
			    rg[j]->desc % 16 || rg[j]->avail % 2 || rg[j]->used % 4)
				abort();
			fz_part(rg[j]->desc, 16 * n, mem);
			fz_part(rg[j]->avail, 6 + 2 * n, mem);
			fz_part(rg[j]->used, 6 + 8 * n, mem);
			if (rg[j]->desc < rg[j]->avail + 6 + 2 * n &&
			    rg[j]->avail < rg[j]->desc + 16 * n)
				abort();
		}
	}
	return 0;
}
