// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ringfd-client.c - a tiny "guest" on a vringnetd ring-fd port: ARP, then ping
 *
 * Usage: ringfd-client [-i MS] [-w MS] [-e] [-r] SOCKET TARGET_IP COUNT [OUR_IP]
 *
 * Hands its rings to the port with vringnet_connect() (libvringfd), or
 * with -r passes ready rings: vringnet_connect_rings() makes both rings
 * rings of memory (VRINGFD_SET_MEM_FILES, needs vringfd.ko here) and sends
 * their vring fds, so the daemon never maps this program's memory.  Resolves
 * TARGET_IP (the tap's address) with ARP, sends COUNT ICMP echo requests
 * from OUR_IP (default: TARGET_IP + 1) and MAC 52:54:00:de:00:03, one
 * every MS milliseconds (default 100), waits up to -w MS milliseconds for
 * each one's reply (default 2000), answers ARP requests for OUR_IP and
 * prints one line per reply, then "GOT/COUNT replies, N frames sent, M
 * received" (every frame, ARP included).  -e asks for VIRTIO_RING_F_EVENT_IDX.
 * Exit 0 when every request got its reply, 1 otherwise, 2 on usage.
 *
 * Build: cc -Iinclude -Iinclude/uapi ringfd-client.c -Lbuild -lvringfd
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <vringfd.h>

static const uint8_t rc_mac[6] = { 0x52, 0x54, 0x00, 0xde, 0x00, 0x03 };
static uint8_t rc_peer_mac[6];
static uint32_t rc_ip, rc_target;	/* network byte order */
static unsigned long rc_sent, rc_received;	/* frames, every kind */

/**
 * rc_csum() - Internet checksum
 * @p: bytes
 * @len: their count
 *
 * Return: the checksum, ready to store.
 */
static uint16_t rc_csum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		s += (uint32_t)b[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return htons((uint16_t)~s);
}

/**
 * rc_send() - send a frame, retrying while every tx buffer is in flight
 * @c: client
 * @f: frame
 * @len: its length
 *
 * Return: 0 or a negative errno.
 */
static int rc_send(struct vringnet_client *c, const uint8_t *f, size_t len)
{
	int tries, ret = -EAGAIN;

	for (tries = 0; tries < 100 && ret == -EAGAIN; tries++) {
		ret = vringnet_send(c, f, len);
		if (ret == -EAGAIN)
			usleep(1000);
	}
	if (ret >= 0)
		rc_sent++;
	return ret;
}

/**
 * rc_arp() - send an ARP packet
 * @c: client
 * @op: 1 request, 2 reply
 * @dst_mac: target MAC (NULL: broadcast)
 * @dst_ip: target IP
 *
 * Return: as rc_send().
 */
static int rc_arp(struct vringnet_client *c, int op, const uint8_t *dst_mac, uint32_t dst_ip)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t f[42] = { 0 };

	memcpy(f, dst_mac ? dst_mac : bcast, 6);
	memcpy(f + 6, rc_mac, 6);
	f[12] = 0x08; f[13] = 0x06;
	f[15] = 1; f[16] = 0x08;
	f[18] = 6; f[19] = 4; f[21] = (uint8_t)op;
	memcpy(f + 22, rc_mac, 6);
	memcpy(f + 28, &rc_ip, 4);
	if (dst_mac)
		memcpy(f + 32, dst_mac, 6);
	memcpy(f + 38, &dst_ip, 4);
	return rc_send(c, f, sizeof(f));
}

/**
 * rc_echo() - send an ICMP echo request
 * @c: client
 * @seq: sequence number
 *
 * Return: as rc_send().
 */
static int rc_echo(struct vringnet_client *c, uint16_t seq)
{
	uint8_t f[14 + 20 + 8 + 56] = { 0 };
	uint8_t *ip = f + 14, *icmp = ip + 20;
	uint16_t sum, id = htons(0x7673), s = htons(seq), tot = htons(20 + 8 + 56);
	size_t i;

	memcpy(f, rc_peer_mac, 6);
	memcpy(f + 6, rc_mac, 6);
	f[12] = 0x08;
	ip[0] = 0x45; memcpy(ip + 2, &tot, 2); ip[8] = 64; ip[9] = 1;
	memcpy(ip + 12, &rc_ip, 4);
	memcpy(ip + 16, &rc_target, 4);
	sum = rc_csum(ip, 20); memcpy(ip + 10, &sum, 2);
	icmp[0] = 8;
	memcpy(icmp + 4, &id, 2);
	memcpy(icmp + 6, &s, 2);
	for (i = 0; i < 56; i++)
		icmp[8 + i] = (uint8_t)i;
	sum = rc_csum(icmp, 8 + 56); memcpy(icmp + 2, &sum, 2);
	return rc_send(c, f, sizeof(f));
}

/**
 * rc_handle() - look at one received frame
 * @c: client (to answer ARP requests)
 * @f: the frame
 * @len: its length
 * @seq: out: sequence number of an echo reply from the target
 *
 * Return: 1 ARP reply from the target, 2 echo reply, 0 anything else.
 */
static int rc_handle(struct vringnet_client *c, const uint8_t *f, size_t len, uint16_t *seq)
{
	uint32_t sender;

	if (len >= 42 && f[12] == 0x08 && f[13] == 0x06) {
		memcpy(&sender, f + 28, 4);
		if (f[21] == 1 && !memcmp(f + 38, &rc_ip, 4))
			rc_arp(c, 2, f + 22, sender);
		if (f[21] == 2 && sender == rc_target) {
			memcpy(rc_peer_mac, f + 22, 6);
			return 1;
		}
		return 0;
	}
	if (len >= 14 + 20 + 8 && f[12] == 0x08 && f[13] == 0x00 && f[14 + 9] == 1 &&
	    !memcmp(f + 14 + 12, &rc_target, 4)) {
		const uint8_t *icmp = f + 14 + (f[14] & 15) * 4;

		if (icmp + 8 <= f + len && icmp[0] == 0 && icmp[4] == 0x76 && icmp[5] == 0x73) {
			*seq = (uint16_t)(icmp[6] << 8 | icmp[7]);
			return 2;
		}
	}
	return 0;
}

/**
 * rc_wait() - receive frames until one of @kind arrives or @ms pass
 * @c: client
 * @kind: 1 ARP reply, 2 echo reply
 * @ms: time limit
 * @seq: out: the echo reply's sequence number
 *
 * Return: 1 when it came, 0 on time-out, a negative errno on failure.
 */
static int rc_wait(struct vringnet_client *c, int kind, int ms, uint16_t *seq)
{
	struct timespec t0, t;
	uint8_t f[2048];
	ssize_t n;
	int left = ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (left > 0) {
		n = vringnet_recv(c, f, sizeof(f), left);
		if (n < 0 && n != -EAGAIN)
			return (int)n;
		if (n > 0)
			rc_received++;
		if (n > 0 && rc_handle(c, f, (size_t)n, seq) == kind)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = ms - (int)((t.tv_sec - t0.tv_sec) * 1000 +
				  (t.tv_nsec - t0.tv_nsec) / 1000000);
	}
	return 0;
}

/**
 * main() - connect, resolve, ping
 * @argc: argument count
 * @argv: [-i MS] [-w MS] [-e] [-r] SOCKET TARGET_IP COUNT [OUR_IP]
 *
 * Return: 0 all replies, 1 otherwise, 2 usage.
 */
int main(int argc, char **argv)
{
	struct vringnet_client_config cfg = { 0 };
	struct vringnet_client *c;
	struct in_addr a;
	int opt, count, i, got = 0, ret, interval = 100, reply_ms = 2000;
	bool rings = false;
	uint16_t seq;
	char err[200];

	while ((opt = getopt(argc, argv, "i:w:er")) != -1) {
		if (opt == 'i')
			interval = atoi(optarg);
		else if (opt == 'w' && atoi(optarg) > 0)
			reply_ms = atoi(optarg);
		else if (opt == 'e')
			cfg.features |= 1ULL << VIRTIO_RING_F_EVENT_IDX;
		else if (opt == 'r')
			rings = true;
		else
			goto usage;
	}
	if (argc - optind < 3 || argc - optind > 4 ||
	    !inet_aton(argv[optind + 1], &a) || (count = atoi(argv[optind + 2])) <= 0)
		goto usage;
	rc_target = a.s_addr;
	if (argc - optind == 4) {
		if (!inet_aton(argv[optind + 3], &a))
			goto usage;
		rc_ip = a.s_addr;
	} else {
		rc_ip = htonl(ntohl(rc_target) + 1);
	}
	if (rings)
		ret = vringnet_connect_rings(argv[optind], &cfg, &c, err, sizeof(err));
	else
		ret = vringnet_connect_err(argv[optind], &cfg, &c, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ringfd-client: %s: %s (%s)\n", argv[optind], strerror(-ret), err);
		return 1;
	}
	for (i = 0; i < 5; i++) {
		if (rc_arp(c, 1, NULL, rc_target) < 0)
			break;
		ret = rc_wait(c, 1, 1000, &seq);
		if (ret)
			break;
	}
	if (ret != 1) {
		fprintf(stderr, "ringfd-client: no ARP reply from %s%s%s\n", argv[optind + 1],
			ret < 0 ? ": " : "", ret < 0 ? strerror(-ret) : "");
		vringnet_close(c);
		return 1;
	}
	printf("arp reply from %s\n", argv[optind + 1]);
	for (i = 0; i < count; i++) {
		if (rc_echo(c, (uint16_t)i) < 0)
			break;
		ret = rc_wait(c, 2, reply_ms, &seq);
		if (ret < 0)
			break;
		if (ret == 1 && seq == (uint16_t)i) {
			got++;
			printf("echo reply seq %d\n", i);
			fflush(stdout);
		}
		if (interval > 0 && i + 1 < count)
			usleep((useconds_t)interval * 1000);
	}
	printf("%d/%d replies, %lu frames sent, %lu received\n", got, count, rc_sent, rc_received);
	vringnet_close(c);
	return got == count ? 0 : 1;
usage:
	fprintf(stderr, "usage: ringfd-client [-i MS] [-w MS] [-e] [-r] SOCKET TARGET_IP COUNT [OUR_IP]\n");
	return 2;
}
