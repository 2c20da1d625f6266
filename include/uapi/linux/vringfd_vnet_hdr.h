/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * vringfd_vnet_hdr.h - which virtio-net headers a frame may carry from a
 * TX ring into a tap: the one policy of vringfd.ko's tap attachment and of
 * vringnetd's user engine (both include this file; nothing else decides).
 *
 * A frame whose header fails is not handed to the tap: its chain is
 * completed with length 0 and counted in drop_bad_hdr (struct
 * vringfd_stats, and the daemon's stats); the verdict below says why.
 *
 * The policy is a superset of what Linux 6.1's tun/tap refuses
 * (tun_get_user(), virtio_net_hdr_to_skb()), so a header that passes here
 * is never refused by the tap afterwards (the module's batched path,
 * TUN_MSG_PTR, could not tell which frame of a batch tun refused), and it
 * also refuses what a virtio driver must not send to vringnetd, whose
 * vhost-user device offers VIRTIO_NET_F_CSUM and HOST_TSO4/6 only:
 *
 *   flags NEEDS_CSUM, DATA_VALID      accepted (DATA_VALID: ignored by tun;
 *                                     Linux 4.8/4.9 guests set it on TX)
 *   flags RSC_INFO                    VRINGFD_VNET_HDR_RSC_INFO (receive
 *                                     only; RSC_EXT is not offered; tun
 *                                     would ignore it)
 *   any other flag bit                VRINGFD_VNET_HDR_FLAGS
 *   hdr_len 1..13 or > frame          VRINGFD_VNET_HDR_HDR_LEN
 *   NEEDS_CSUM, csum_start < 14 or
 *   csum_start + csum_offset + 2 >
 *   frame                             VRINGFD_VNET_HDR_CSUM
 *   gso_type NONE with the ECN bit    VRINGFD_VNET_HDR_ECN
 *   gso_type TCPV4, TCPV6 (+ ECN)     accepted with NEEDS_CSUM,
 *                                     csum_offset 16, the TCP header
 *                                     inside the frame, gso_size 1..65534;
 *                                     else GSO_CSUM or GSO_SIZE
 *   gso_type UDP (UFO)                VRINGFD_VNET_HDR_GSO_UDP (6.1 tun
 *                                     takes it; HOST_UFO is not offered)
 *   gso_type UDP_L4 (USO, 5)          VRINGFD_VNET_HDR_GSO_UDP (6.1 tun
 *                                     refuses it; HOST_USO not offered)
 *   any other gso_type                VRINGFD_VNET_HDR_GSO_TYPE
 *   num_buffers (12-byte header)      ignored (tun skips it)
 *
 * Fields are read as little-endian (virtio 1.x; the module sets no
 * TUNSETVNETBE).  Only <linux/types.h> and the constants of
 * <linux/virtio_net.h>, which kernel and user space both have.
 */
#ifndef _UAPI_LINUX_VRINGFD_VNET_HDR_H
#define _UAPI_LINUX_VRINGFD_VNET_HDR_H

#include <linux/types.h>
#include <linux/virtio_net.h>

/* Not in 6.1's headers: virtio's USO type, GSO_UDP_L4. */
#define VRINGFD_VNET_GSO_UDP_L4		5
#define VRINGFD_VNET_ETH_HLEN		14	/* Ethernet header */
#define VRINGFD_VNET_TCP_HLEN		20	/* TCP header without options */
#define VRINGFD_VNET_TCP_CSUM_OFF	16	/* offsetof(struct tcphdr, check) */
#define VRINGFD_VNET_GSO_BY_FRAGS	0xffff	/* refused by the kernel */

/**
 * enum vringfd_vnet_hdr_verdict - may the frame go to the tap, or why not
 * @VRINGFD_VNET_HDR_OK: send it
 * @VRINGFD_VNET_HDR_SIZE: header length not 0, 10 or 12
 * @VRINGFD_VNET_HDR_FLAGS: a flag bit other than NEEDS_CSUM, DATA_VALID
 * @VRINGFD_VNET_HDR_RSC_INFO: RSC_INFO, a device-to-driver flag
 * @VRINGFD_VNET_HDR_HDR_LEN: hdr_len below an Ethernet header, or beyond
 *	the frame
 * @VRINGFD_VNET_HDR_CSUM: NEEDS_CSUM with csum_start inside the Ethernet
 *	header, or the checksum field beyond the frame
 * @VRINGFD_VNET_HDR_ECN: the ECN bit without a GSO type
 * @VRINGFD_VNET_HDR_GSO_TYPE: unknown GSO type
 * @VRINGFD_VNET_HDR_GSO_UDP: UDP GSO (UFO or USO): not offered
 * @VRINGFD_VNET_HDR_GSO_SIZE: gso_size 0 or 0xffff
 * @VRINGFD_VNET_HDR_GSO_CSUM: TCP GSO without NEEDS_CSUM at the TCP
 *	checksum, or without a whole TCP header in the frame
 *
 * Every verdict but OK is counted in drop_bad_hdr.
 */
enum vringfd_vnet_hdr_verdict {
	VRINGFD_VNET_HDR_OK = 0,
	VRINGFD_VNET_HDR_SIZE,
	VRINGFD_VNET_HDR_FLAGS,
	VRINGFD_VNET_HDR_RSC_INFO,
	VRINGFD_VNET_HDR_HDR_LEN,
	VRINGFD_VNET_HDR_CSUM,
	VRINGFD_VNET_HDR_ECN,
	VRINGFD_VNET_HDR_GSO_TYPE,
	VRINGFD_VNET_HDR_GSO_UDP,
	VRINGFD_VNET_HDR_GSO_SIZE,
	VRINGFD_VNET_HDR_GSO_CSUM,
};

/**
 * vringfd_vnet_hdr_le16() - a little-endian 16-bit field of the header
 * @p: the header
 * @off: byte offset of the field
 *
 * Return: the value.
 */
static inline __u32 vringfd_vnet_hdr_le16(const __u8 *p, unsigned int off)
{
	return (__u32)p[off] | (__u32)p[off + 1] << 8;
}

/**
 * vringfd_vnet_hdr_check() - may this frame be sent to a tap?
 * @hdr: the virtio-net header (struct virtio_net_hdr, or _mrg_rxbuf / _v1
 *	with num_buffers), a copy nobody else can change while it is checked
 * @hdr_size: its length: 0 (no header: the tap gets a zero one), 10 or 12
 * @frame_len: bytes of frame after the header
 *
 * Return: VRINGFD_VNET_HDR_OK, or the reason to drop the frame.
 */
static inline enum vringfd_vnet_hdr_verdict
vringfd_vnet_hdr_check(const void *hdr, unsigned int hdr_size, __u32 frame_len)
{
	const __u8 *p = (const __u8 *)hdr;
	__u32 flags, gso, hl, gs, cs, co;

	if (hdr_size == 0)
		return VRINGFD_VNET_HDR_OK;
	if (hdr_size != 10 && hdr_size != 12)
		return VRINGFD_VNET_HDR_SIZE;
	flags = p[0];
	gso = p[1];
	hl = vringfd_vnet_hdr_le16(p, 2);
	gs = vringfd_vnet_hdr_le16(p, 4);
	cs = vringfd_vnet_hdr_le16(p, 6);
	co = vringfd_vnet_hdr_le16(p, 8);

	if (flags & VIRTIO_NET_HDR_F_RSC_INFO)
		return VRINGFD_VNET_HDR_RSC_INFO;
	if (flags & ~(__u32)(VIRTIO_NET_HDR_F_NEEDS_CSUM | VIRTIO_NET_HDR_F_DATA_VALID))
		return VRINGFD_VNET_HDR_FLAGS;
	if (hl > frame_len || (hl && hl < VRINGFD_VNET_ETH_HLEN))
		return VRINGFD_VNET_HDR_HDR_LEN;
	if ((flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
	    (cs < VRINGFD_VNET_ETH_HLEN || cs + co + 2 > frame_len))
		return VRINGFD_VNET_HDR_CSUM;
	switch (gso & ~(__u32)VIRTIO_NET_HDR_GSO_ECN) {
	case VIRTIO_NET_HDR_GSO_NONE:
		if (gso & VIRTIO_NET_HDR_GSO_ECN)
			return VRINGFD_VNET_HDR_ECN;
		return VRINGFD_VNET_HDR_OK;
	case VIRTIO_NET_HDR_GSO_TCPV4:
	case VIRTIO_NET_HDR_GSO_TCPV6:
		break;
	case VIRTIO_NET_HDR_GSO_UDP:
	case VRINGFD_VNET_GSO_UDP_L4:
		return VRINGFD_VNET_HDR_GSO_UDP;
	default:
		return VRINGFD_VNET_HDR_GSO_TYPE;
	}
	if (!gs || gs == VRINGFD_VNET_GSO_BY_FRAGS)
		return VRINGFD_VNET_HDR_GSO_SIZE;
	if (!(flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) || co != VRINGFD_VNET_TCP_CSUM_OFF ||
	    cs + VRINGFD_VNET_TCP_HLEN > frame_len)
		return VRINGFD_VNET_HDR_GSO_CSUM;
	return VRINGFD_VNET_HDR_OK;
}

/**
 * vringfd_vnet_hdr_reason() - a verdict in words, for logs and tests
 * @v: the verdict
 *
 * Return: a constant string.
 */
static inline const char *vringfd_vnet_hdr_reason(enum vringfd_vnet_hdr_verdict v)
{
	switch (v) {
	case VRINGFD_VNET_HDR_OK:	return "ok";
	case VRINGFD_VNET_HDR_SIZE:	return "header length not 0, 10 or 12";
	case VRINGFD_VNET_HDR_FLAGS:	return "unknown flag";
	case VRINGFD_VNET_HDR_RSC_INFO:	return "RSC_INFO flag on transmit";
	case VRINGFD_VNET_HDR_HDR_LEN:	return "hdr_len below 14 or beyond the frame";
	case VRINGFD_VNET_HDR_CSUM:	return "checksum offsets outside the frame";
	case VRINGFD_VNET_HDR_ECN:	return "ECN without GSO";
	case VRINGFD_VNET_HDR_GSO_TYPE:	return "unknown GSO type";
	case VRINGFD_VNET_HDR_GSO_UDP:	return "UDP GSO not offered";
	case VRINGFD_VNET_HDR_GSO_SIZE:	return "gso_size 0 or 0xffff";
	case VRINGFD_VNET_HDR_GSO_CSUM:	return "TCP GSO without the TCP checksum";
	}
	return "?";
}

#endif /* _UAPI_LINUX_VRINGFD_VNET_HDR_H */
