/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vnet_hdr_cases.h - the one table of virtio-net TX headers that every
 * engine must judge alike (<linux/vringfd_vnet_hdr.h>), and the frames
 * they ride on.
 *
 * Used by the daemon's engine unit tests (tests/unit/check_daemon_engine.c:
 * the user engine on the host and in the VM, the kernel engine in the VM,
 * tests/suites/61-vm-engine-kernel) and by the module's own tap test
 * (tests/vm/tap_txrx.c).  Each case is a header and a frame; the verdict
 * is what vringfd_vnet_hdr_check() must answer, and so whether the frame
 * reaches the tap (frames + 1, and the tap's rx_packets + 1: tun took it)
 * or is dropped (drop_bad_hdr + 1).  A header the policy lets through must
 * never be refused by tun afterwards: the module's batched sendmsg()
 * cannot tell which frame tun refused and counts it sent, so the policy
 * refuses all that Linux's tun refuses (rx_packets shows the difference).
 *
 * Frames go to a MAC address nobody has: the tap counts them, then the
 * stack drops them as PACKET_OTHERHOST, so no test frame causes a reply.
 */
#ifndef VRINGNET_TESTS_VNET_HDR_CASES_H
#define VRINGNET_TESTS_VNET_HDR_CASES_H

#include <stdint.h>
#include <string.h>
#include <linux/vringfd_vnet_hdr.h>

#define VHC_MAX_FRAME	6000	/* largest frame of the table */

/* frame kinds */
enum vhc_frame { VHC_TCP4, VHC_TCP6, VHC_UDP4 };

/**
 * struct vhc_case - one header and its frame
 * @name: test name (no spaces)
 * @flags: virtio-net header fields ...
 * @gso_type: ...
 * @hdr_len: ...
 * @gso_size: ...
 * @csum_start: ...
 * @csum_offset: ...
 * @num_buffers: ... (in a 12-byte header only)
 * @frame: the frame's kind
 * @len: the frame's length (after the virtio-net header)
 * @want: the verdict
 */
struct vhc_case {
	const char *name;
	uint8_t flags, gso_type;
	uint16_t hdr_len, gso_size, csum_start, csum_offset, num_buffers;
	enum vhc_frame frame;
	uint16_t len;
	enum vringfd_vnet_hdr_verdict want;
};

#define VHC_NC		1	/* VIRTIO_NET_HDR_F_NEEDS_CSUM */
#define VHC_DV		2	/* VIRTIO_NET_HDR_F_DATA_VALID */
#define VHC_RSC		4	/* VIRTIO_NET_HDR_F_RSC_INFO */
#define VHC_OK		VRINGFD_VNET_HDR_OK

/* Ethernet 14 + IPv4 20: TCP/UDP at 34; Ethernet 14 + IPv6 40: TCP at 54. */
static const struct vhc_case vhc_cases[] = {
	/* name                     flags gso  hlen gsize  cs   co  nbuf frame    len   verdict */
	{ "plain",                  0,    0,    0,    0,   0,   0,  0, VHC_TCP4, 100,  VHC_OK },
	{ "data_valid",             VHC_DV, 0,  0,    0,   0,   0,  0, VHC_TCP4, 100,  VHC_OK },
	{ "csum_tcp4",              VHC_NC, 0,  0,    0,  34,  16,  0, VHC_TCP4, 100,  VHC_OK },
	{ "csum_and_data_valid",    VHC_NC | VHC_DV, 0, 0, 0, 34, 16, 0, VHC_TCP4, 100, VHC_OK },
	{ "csum_udp4",              VHC_NC, 0,  0,    0,  34,   6,  0, VHC_UDP4, 100,  VHC_OK },
	{ "csum_field_at_end",      VHC_NC, 0,  0,    0,  34,  64,  0, VHC_TCP4, 100,  VHC_OK },
	{ "hdr_len_eth",            0,    0,   14,    0,   0,   0,  0, VHC_TCP4, 100,  VHC_OK },
	{ "hdr_len_whole_frame",    0,    0,  100,    0,   0,   0,  0, VHC_TCP4, 100,  VHC_OK },
	{ "num_buffers_ignored",    0,    0,    0,    0,   0,   0, 0xffff, VHC_TCP4, 100, VHC_OK },
	{ "tso4",                   VHC_NC, 1, 54, 1000,  34,  16,  0, VHC_TCP4, 3000, VHC_OK },
	{ "tso4_ecn",               VHC_NC, 0x81, 54, 1000, 34, 16, 0, VHC_TCP4, 3000, VHC_OK },
	{ "tso4_hdr_len_0",         VHC_NC, 1,  0, 1000,  34,  16,  0, VHC_TCP4, 3000, VHC_OK },
	{ "tso4_beyond_a_page",     VHC_NC, 1, 54, 1448,  34,  16,  0, VHC_TCP4, 6000, VHC_OK },
	{ "tso4_shorter_than_gso",  VHC_NC, 1, 54, 1448,  34,  16,  0, VHC_TCP4, 100,  VHC_OK },
	{ "tso4_gso_size_65534",    VHC_NC, 1, 54, 65534, 34,  16,  0, VHC_TCP4, 3000, VHC_OK },
	{ "tso6",                   VHC_NC, 4, 74, 1000,  54,  16,  0, VHC_TCP6, 3000, VHC_OK },
	{ "tso6_ecn",               VHC_NC, 0x84, 74, 1000, 54, 16, 0, VHC_TCP6, 3000, VHC_OK },
	{ "flag_0x08",              0x08, 0,    0,    0,   0,   0,  0, VHC_TCP4, 100,  VRINGFD_VNET_HDR_FLAGS },
	{ "flag_0x80",              0x80, 0,    0,    0,   0,   0,  0, VHC_TCP4, 100,  VRINGFD_VNET_HDR_FLAGS },
	{ "rsc_info",               VHC_RSC, 0, 0,    0,   2,   0,  0, VHC_TCP4, 100,  VRINGFD_VNET_HDR_RSC_INFO },
	{ "rsc_info_with_tso4",     VHC_RSC | VHC_NC, 1, 54, 1000, 34, 16, 0, VHC_TCP4, 3000, VRINGFD_VNET_HDR_RSC_INFO },
	{ "hdr_len_1",              0,    0,    1,    0,   0,   0,  0, VHC_TCP4, 100,  VRINGFD_VNET_HDR_HDR_LEN },
	{ "hdr_len_13",             0,    0,   13,    0,   0,   0,  0, VHC_TCP4, 100,  VRINGFD_VNET_HDR_HDR_LEN },
	{ "hdr_len_beyond_frame",   0,    0,  101,    0,   0,   0,  0, VHC_TCP4, 100,  VRINGFD_VNET_HDR_HDR_LEN },
	{ "tso4_hdr_len_beyond",    VHC_NC, 1, 3001, 1000, 34, 16,  0, VHC_TCP4, 3000, VRINGFD_VNET_HDR_HDR_LEN },
	{ "csum_start_in_eth",      VHC_NC, 0,  0,    0,   2,   2,  0, VHC_TCP4, 100,  VRINGFD_VNET_HDR_CSUM },
	{ "csum_start_beyond",      VHC_NC, 0,  0,    0, 1000,  6,  0, VHC_TCP4, 100,  VRINGFD_VNET_HDR_CSUM },
	{ "csum_offset_beyond",     VHC_NC, 0,  0,    0,  14,  90,  0, VHC_TCP4, 100,  VRINGFD_VNET_HDR_CSUM },
	{ "csum_field_past_end",    VHC_NC, 0,  0,    0,  34,  65,  0, VHC_TCP4, 100,  VRINGFD_VNET_HDR_CSUM },
	{ "csum_offsets_max",       VHC_NC, 0,  0,    0, 0xffff, 0xffff, 0, VHC_TCP4, 100, VRINGFD_VNET_HDR_CSUM },
	{ "ecn_without_gso",        0,  0x80,   0,    0,   0,   0,  0, VHC_TCP4, 100,  VRINGFD_VNET_HDR_ECN },
	{ "gso_type_2",             VHC_NC, 2, 54, 1000,  34,  16,  0, VHC_TCP4, 3000, VRINGFD_VNET_HDR_GSO_TYPE },
	{ "gso_type_6",             VHC_NC, 6, 54, 1000,  34,  16,  0, VHC_TCP4, 3000, VRINGFD_VNET_HDR_GSO_TYPE },
	{ "gso_type_0x7f",          VHC_NC, 0x7f, 54, 1000, 34, 16, 0, VHC_TCP4, 3000, VRINGFD_VNET_HDR_GSO_TYPE },
	{ "ufo",                    VHC_NC, 3, 42, 1000,  34,   6,  0, VHC_UDP4, 3000, VRINGFD_VNET_HDR_GSO_UDP },
	{ "ufo_without_csum",       0,    3,   42, 1000,   0,   0,  0, VHC_UDP4, 3000, VRINGFD_VNET_HDR_GSO_UDP },
	{ "uso_udp_l4",             VHC_NC, 5, 42, 1000,  34,   6,  0, VHC_UDP4, 3000, VRINGFD_VNET_HDR_GSO_UDP },
	{ "tso4_gso_size_0",        VHC_NC, 1, 54,    0,  34,  16,  0, VHC_TCP4, 3000, VRINGFD_VNET_HDR_GSO_SIZE },
	{ "tso4_gso_size_65535",    VHC_NC, 1, 54, 65535, 34,  16,  0, VHC_TCP4, 3000, VRINGFD_VNET_HDR_GSO_SIZE },
	{ "tso4_without_csum",      0,    1,   54, 1000,   0,   0,  0, VHC_TCP4, 3000, VRINGFD_VNET_HDR_GSO_CSUM },
	{ "tso4_udp_csum_offset",   VHC_NC, 1, 54, 1000,  34,   6,  0, VHC_TCP4, 3000, VRINGFD_VNET_HDR_GSO_CSUM },
	{ "tso4_tcp_hdr_past_end",  VHC_NC, 1,  0, 1000,  36,  16,  0, VHC_TCP4, 54,   VRINGFD_VNET_HDR_GSO_CSUM },
	{ "tso4_in_eth_start",      VHC_NC, 1, 54, 1000,  12,  16,  0, VHC_TCP4, 3000, VRINGFD_VNET_HDR_CSUM },
};

#define VHC_NCASES	(sizeof(vhc_cases) / sizeof(vhc_cases[0]))

/* The destination nobody has, and our source. */
static const uint8_t vhc_dst[6] = { 0x52, 0x54, 0x00, 0x00, 0x0b, 0xad };
static const uint8_t vhc_src[6] = { 0x52, 0x54, 0x00, 0xaa, 0xbb, 0x02 };

/**
 * vhc_put16() - store a 16-bit value
 * @p: where
 * @v: value
 * @le: little-endian (virtio-net header) rather than network order
 */
static inline void vhc_put16(uint8_t *p, unsigned int v, int le)
{
	p[le ? 0 : 1] = (uint8_t)v;
	p[le ? 1 : 0] = (uint8_t)(v >> 8);
}

/**
 * vhc_build() - the case's virtio-net header and frame, back to back
 * @c: the case
 * @hdr_size: virtio-net header length, 10 or 12
 * @out: at least @hdr_size + VHC_MAX_FRAME bytes
 *
 * IPv4 carries a correct header checksum; TCP/UDP checksums are left 0
 * (NEEDS_CSUM cases: the tap's partial checksum; others are dropped by
 * the stack as PACKET_OTHERHOST before anyone checks).
 * Return: bytes written (@hdr_size + @c->len).
 */
static inline size_t vhc_build(const struct vhc_case *c, unsigned int hdr_size, uint8_t *out)
{
	uint8_t *f = out + hdr_size;
	unsigned int l3, i;
	uint32_t sum = 0;

	memset(out, 0, hdr_size + (size_t)c->len);
	out[0] = c->flags;
	out[1] = c->gso_type;
	vhc_put16(out + 2, c->hdr_len, 1);
	vhc_put16(out + 4, c->gso_size, 1);
	vhc_put16(out + 6, c->csum_start, 1);
	vhc_put16(out + 8, c->csum_offset, 1);
	if (hdr_size >= 12)
		vhc_put16(out + 10, c->num_buffers, 1);
	memcpy(f, vhc_dst, 6);
	memcpy(f + 6, vhc_src, 6);
	for (i = 74; i < c->len; i++)			/* payload */
		f[i] = (uint8_t)i;
	if (c->frame == VHC_TCP6) {
		vhc_put16(f + 12, 0x86dd, 0);
		f[14] = 0x60;
		vhc_put16(f + 18, c->len - 54u, 0);		/* payload length */
		f[20] = 6;					/* TCP */
		f[21] = 64;
		f[22] = 0xfd;					/* fd00::1 -> fd00::2 */
		f[37] = 1;
		f[38] = 0xfd;
		f[53] = 2;
		l3 = 54;
	} else {
		vhc_put16(f + 12, 0x0800, 0);
		f[14] = 0x45;
		vhc_put16(f + 16, c->len - 14u, 0);		/* total length */
		f[22] = 64;
		f[23] = c->frame == VHC_UDP4 ? 17 : 6;
		memcpy(f + 26, "\x0a\x63\x00\x02\x0a\x63\x00\x03", 8);
		for (i = 14; i < 34; i += 2)
			sum += (uint32_t)f[i] << 8 | f[i + 1];
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		vhc_put16(f + 24, ~sum & 0xffff, 0);
		l3 = 34;
	}
	if (c->len >= l3 + 8) {
		vhc_put16(f + l3, 12345, 0);			/* ports */
		vhc_put16(f + l3 + 2, 9, 0);
	}
	if (c->frame == VHC_UDP4 && c->len >= l3 + 8)
		vhc_put16(f + l3 + 4, c->len - l3, 0);		/* UDP length */
	else if (c->frame != VHC_UDP4 && c->len >= l3 + 14) {
		f[l3 + 12] = 0x50;				/* data offset 5 */
		f[l3 + 13] = 0x18;				/* PSH ACK */
	}
	return hdr_size + (size_t)c->len;
}

#endif /* VRINGNET_TESTS_VNET_HDR_CASES_H */
