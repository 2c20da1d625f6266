// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stream_ping.c - a tiny "guest" on a vringnetd stream port: ARP, then ping
 *
 * Usage: stream_ping SOCKET TARGET_IP COUNT [OUR_IP]
 *
 * Connects to a stream port (QEMU "-netdev stream" framing: 4-byte
 * big-endian length, then the Ethernet frame), resolves TARGET_IP (the
 * tap's address) with ARP, sends COUNT ICMP echo requests from OUR_IP
 * (default: TARGET_IP + 1) and MAC 52:54:00:de:00:02, answers ARP requests
 * for OUR_IP, and prints one line per reply.  Frames go guest -> port ->
 * rings -> engine -> tap -> kernel and back.
 * Exit 0 when every request got its reply, 1 otherwise, 2 on usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static const uint8_t sp_mac[6] = { 0x52, 0x54, 0x00, 0xde, 0x00, 0x02 };
static uint8_t sp_peer_mac[6];
static uint32_t sp_ip, sp_target;	/* network byte order */
static uint8_t sp_buf[65536 + 4];
static size_t sp_have;

/**
 * sp_csum() - Internet checksum
 * @p: bytes
 * @len: their count
 *
 * Return: the checksum, ready to store.
 */
static uint16_t sp_csum(const void *p, size_t len)
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
 * sp_send() - send one frame with its length prefix
 * @fd: the stream
 * @f: the frame
 * @len: its length
 *
 * Return: 0, or -1.
 */
static int sp_send(int fd, const uint8_t *f, size_t len)
{
	uint8_t out[2048];
	uint32_t be = htonl((uint32_t)len);

	memcpy(out, &be, 4);
	memcpy(out + 4, f, len);
	return send(fd, out, len + 4, MSG_NOSIGNAL) == (ssize_t)(len + 4) ? 0 : -1;
}

/**
 * sp_arp() - send an ARP packet
 * @fd: the stream
 * @op: 1 request, 2 reply
 * @dst_mac: target MAC (NULL: broadcast / unknown)
 * @dst_ip: target IP
 *
 * Return: as sp_send().
 */
static int sp_arp(int fd, int op, const uint8_t *dst_mac, uint32_t dst_ip)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t f[42] = { 0 };

	memcpy(f, dst_mac ? dst_mac : bcast, 6);
	memcpy(f + 6, sp_mac, 6);
	f[12] = 0x08; f[13] = 0x06;			/* ARP */
	f[14] = 0; f[15] = 1; f[16] = 0x08; f[17] = 0;	/* Ethernet, IPv4 */
	f[18] = 6; f[19] = 4; f[20] = 0; f[21] = (uint8_t)op;
	memcpy(f + 22, sp_mac, 6);
	memcpy(f + 28, &sp_ip, 4);
	if (dst_mac)
		memcpy(f + 32, dst_mac, 6);
	memcpy(f + 38, &dst_ip, 4);
	return sp_send(fd, f, sizeof(f));
}

/**
 * sp_echo() - send an ICMP echo request
 * @fd: the stream
 * @seq: sequence number
 *
 * Return: as sp_send().
 */
static int sp_echo(int fd, uint16_t seq)
{
	uint8_t f[14 + 20 + 8 + 56] = { 0 };
	uint8_t *ip = f + 14, *icmp = ip + 20;
	uint16_t c, id = htons(0x7672), s = htons(seq), tot = htons(20 + 8 + 56);
	size_t i;

	memcpy(f, sp_peer_mac, 6);
	memcpy(f + 6, sp_mac, 6);
	f[12] = 0x08; f[13] = 0x00;
	ip[0] = 0x45; memcpy(ip + 2, &tot, 2); ip[8] = 64; ip[9] = 1;
	memcpy(ip + 12, &sp_ip, 4);
	memcpy(ip + 16, &sp_target, 4);
	c = sp_csum(ip, 20); memcpy(ip + 10, &c, 2);
	icmp[0] = 8;
	memcpy(icmp + 4, &id, 2);
	memcpy(icmp + 6, &s, 2);
	for (i = 0; i < 56; i++)
		icmp[8 + i] = (uint8_t)i;
	c = sp_csum(icmp, 8 + 56); memcpy(icmp + 2, &c, 2);
	return sp_send(fd, f, sizeof(f));
}

/**
 * sp_next_frame() - wait for the next frame from the port
 * @fd: the stream
 * @ms: how long to wait
 * @len: out: its length
 *
 * Return: pointer to the frame (valid until the next call), or NULL.
 */
static const uint8_t *sp_next_frame(int fd, int ms, size_t *len)
{
	static size_t consumed;

	if (consumed) {
		memmove(sp_buf, sp_buf + consumed, sp_have - consumed);
		sp_have -= consumed;
		consumed = 0;
	}
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint32_t be, l;
		ssize_t n;

		if (sp_have >= 4) {
			memcpy(&be, sp_buf, 4);
			l = ntohl(be);
			if (l > 65536)
				return NULL;
			if (sp_have >= 4 + l) {
				consumed = 4 + l;
				*len = l;
				return sp_buf + 4;
			}
		}
		if (poll(&p, 1, ms) <= 0)
			return NULL;
		n = recv(fd, sp_buf + sp_have, sizeof(sp_buf) - sp_have, 0);
		if (n <= 0)
			return NULL;
		sp_have += (size_t)n;
	}
}

/**
 * sp_handle() - look at one received frame
 * @fd: the stream (to answer ARP requests)
 * @f: the frame
 * @len: its length
 * @seq: out: sequence number of an echo reply from the target
 *
 * Return: 1 ARP reply from the target (sp_peer_mac set), 2 echo reply,
 * 0 anything else.
 */
static int sp_handle(int fd, const uint8_t *f, size_t len, uint16_t *seq)
{
	if (len >= 42 && f[12] == 0x08 && f[13] == 0x06) {
		if (f[21] == 1 && !memcmp(f + 38, &sp_ip, 4))
			sp_arp(fd, 2, f + 22, *(const uint32_t *)(f + 28));
		if (f[21] == 2 && !memcmp(f + 28, &sp_target, 4)) {
			memcpy(sp_peer_mac, f + 22, 6);
			return 1;
		}
		return 0;
	}
	if (len >= 14 + 20 + 8 && f[12] == 0x08 && f[13] == 0x00 && f[14 + 9] == 1 &&
	    !memcmp(f + 14 + 12, &sp_target, 4)) {
		const uint8_t *icmp = f + 14 + (f[14] & 15) * 4;

		if (icmp + 8 <= f + len && icmp[0] == 0 && icmp[4] == 0x76 && icmp[5] == 0x72) {
			*seq = (uint16_t)(icmp[6] << 8 | icmp[7]);
			return 2;
		}
	}
	return 0;
}

/**
 * main() - connect, resolve, ping
 * @argc: 4 or 5
 * @argv: SOCKET TARGET_IP COUNT [OUR_IP]
 *
 * Return: 0 all replies, 1 otherwise, 2 usage.
 */
int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct in_addr a;
	int fd, count, i, got = 0, tries;
	const uint8_t *f;
	uint16_t seq;
	size_t len;

	if (argc < 4 || inet_pton(AF_INET, argv[2], &a) != 1 || (count = atoi(argv[3])) <= 0) {
		fprintf(stderr, "usage: stream_ping SOCKET TARGET_IP COUNT [OUR_IP]\n");
		return 2;
	}
	sp_target = a.s_addr;
	if (argc > 4) {
		if (inet_pton(AF_INET, argv[4], &a) != 1)
			return 2;
		sp_ip = a.s_addr;
	} else {
		sp_ip = htonl(ntohl(sp_target) + 1);
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[1]);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "stream_ping: connect %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (tries = 0; tries < 5; tries++) {
		sp_arp(fd, 1, NULL, sp_target);
		while ((f = sp_next_frame(fd, 1000, &len)))
			if (sp_handle(fd, f, len, &seq) == 1)
				goto resolved;
	}
	fprintf(stderr, "stream_ping: no ARP reply from %s\n", argv[2]);
	return 1;
resolved:
	printf("ARP: %s is at %02x:%02x:%02x:%02x:%02x:%02x\n", argv[2], sp_peer_mac[0],
	       sp_peer_mac[1], sp_peer_mac[2], sp_peer_mac[3], sp_peer_mac[4], sp_peer_mac[5]);
	for (i = 1; i <= count; i++) {
		struct timespec t0, t1;
		int ok = 0;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		sp_echo(fd, (uint16_t)i);
		while (!ok && (f = sp_next_frame(fd, 2000, &len)))
			if (sp_handle(fd, f, len, &seq) == 2 && seq == i)
				ok = 1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (ok) {
			got++;
			printf("%zu bytes from %s: icmp_seq=%d time=%.3f ms\n", len - 34, argv[2], i,
			       (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
		} else {
			printf("no reply for icmp_seq=%d\n", i);
		}
		fflush(stdout);
	}
	printf("%d packets transmitted, %d received\n", count, got);
	close(fd);
	return got == count ? 0 : 1;
}
