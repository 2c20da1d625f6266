// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stream_seq.c - a stream peer streaming numbered frames both ways, with
 * frames held half-sent on request (for hand-over tests)
 *
 * Usage: stream_seq SOCKET DIR
 *
 * Connects once to a stream port (QEMU "-netdev stream" framing), or
 * with STREAM_SEQ_LISTEN=1 listens at SOCKET and takes the first
 * connection of a client-mode port (connect = SOCKET; waiting up to 20 s),
 * and
 * sends frames until DIR/stop exists: frame k is 60..1059 bytes, from
 * 52:54:00:5e:00:01 to the broadcast address, ethertype 0x88b5, the
 * number k (4 bytes, big endian), then bytes (k * 7 + i) & 0xff; each frame
 * goes out in writes of 1 to 97 bytes.  Meanwhile it reads what the port
 * sends: every frame is counted, and those of ethertype 0x88b5 must carry
 * the numbers 0, 1, 2, ... in order, each with its bytes intact (the
 * tap side's sender, tests/host/stream_seq_tapside.py, makes them the
 * same way).
 *
 * Holding: when DIR/hold exists, the peer reads until it has every
 * numbered frame the tap side sent (DIR/tapidle: their count), then sends
 * the next frame only in part (the first hold: 2 bytes of its length
 * prefix; the next ones: the prefix and 10 bytes of the frame) and stops
 * reading; once the daemon has read those bytes (SIOCOUTQ is 0) DIR/held
 * is written with the hold's number, and DIR/inq with the bytes waiting
 * in the socket whenever it is missing; the rest of the frame is sent
 * one byte per write after DIR/hold is gone (DIR/held is removed then),
 * reading again.
 *
 * Stopping: after DIR/stop appears, the number of frames sent is written
 * to DIR/peer.sent; reading goes on until DIR/tap.sent exists and as many
 * numbered frames arrived, or nothing arrived for 10 s.  Then one line:
 *   "sent N received M numbered (in order, intact) of T frames, connection kept"
 * Listening, the listener stays open and a second line follows:
 *   "server: 1 connection accepted, N more made"
 * (the connections waiting in its backlog).
 * Exit 0 when every numbered frame the tap side sent arrived in order and
 * intact, the connection stayed open and (listening) no other connection
 * was made; 1 otherwise (the line says why); 2 on usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/sockios.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "lib/peer_server.h"

#define SQ_ETHERTYPE	0x88b5
#define SQ_MAX_FRAME	1059

static const char *sq_dir;
static int sq_fd;
static uint8_t sq_in[1 << 17];
static size_t sq_in_len;
static unsigned long sq_rx_all, sq_rx_seq;
static char sq_bad[256];
static int sq_closed;

/**
 * sq_path() - a file of DIR
 * @name: its name
 *
 * Return: the path (a static buffer, valid until the next call).
 */
static const char *sq_path(const char *name)
{
	static char p[4096];

	snprintf(p, sizeof(p), "%s/%s", sq_dir, name);
	return p;
}

/**
 * sq_exists() - whether a file of DIR exists
 * @name: its name
 *
 * Return: true when it does.
 */
static int sq_exists(const char *name)
{
	return access(sq_path(name), F_OK) == 0;
}

/**
 * sq_write_file() - write a number to a file of DIR
 * @name: its name
 * @v: the number
 */
static void sq_write_file(const char *name, unsigned long v)
{
	char tmp[4200];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", sq_path(name));
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "%lu\n", v);
	fclose(f);
	rename(tmp, sq_path(name));
}

/**
 * sq_frame() - frame @k with its length prefix
 * @k: its number
 * @out: at least 4 + SQ_MAX_FRAME bytes
 *
 * Return: bytes in @out.
 */
static size_t sq_frame(unsigned long k, uint8_t *out)
{
	size_t len = 60 + (k * 37) % 1000, i;
	uint32_t be = htonl((uint32_t)len), seq = htonl((uint32_t)k);
	uint8_t *f = out + 4;

	memcpy(out, &be, 4);
	memset(f, 0xff, 6);
	memcpy(f + 6, "\x52\x54\x00\x5e\x00\x01", 6);
	f[12] = SQ_ETHERTYPE >> 8;
	f[13] = SQ_ETHERTYPE & 0xff;
	memcpy(f + 14, &seq, 4);
	for (i = 18; i < len; i++)
		f[i] = (uint8_t)(k * 7 + i);
	return 4 + len;
}

/**
 * sq_check() - look at one frame from the port
 * @f: the frame
 * @len: its length
 */
static void sq_check(const uint8_t *f, size_t len)
{
	uint32_t seq;
	size_t i;

	sq_rx_all++;
	if (len < 18 || f[12] != SQ_ETHERTYPE >> 8 || f[13] != (SQ_ETHERTYPE & 0xff))
		return;
	memcpy(&seq, f + 14, 4);
	seq = ntohl(seq);
	if (seq != sq_rx_seq && !sq_bad[0])
		snprintf(sq_bad, sizeof(sq_bad), "numbered frame %u where %lu was due", seq, sq_rx_seq);
	for (i = 18; i < len && !sq_bad[0]; i++)
		if (f[i] != (uint8_t)(seq * 7 + i))
			snprintf(sq_bad, sizeof(sq_bad), "numbered frame %u: byte %zu changed", seq, i);
	sq_rx_seq++;
}

/**
 * sq_read() - read what is there (nothing blocks) and check whole frames
 *
 * Return: bytes read.
 */
static size_t sq_read(void)
{
	size_t total = 0, off;
	ssize_t n;

	for (;;) {
		n = recv(sq_fd, sq_in + sq_in_len, sizeof(sq_in) - sq_in_len, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			sq_closed = 1;
			return total;
		}
		if (n < 0)
			return total;
		sq_in_len += (size_t)n;
		total += (size_t)n;
		off = 0;
		while (sq_in_len - off >= 4) {
			uint32_t be, l;

			memcpy(&be, sq_in + off, 4);
			l = ntohl(be);
			if (l == 0 || l > 65535) {
				snprintf(sq_bad, sizeof(sq_bad), "length prefix %u from the port", l);
				sq_closed = 1;
				return total;
			}
			if (sq_in_len - off < 4 + l)
				break;
			sq_check(sq_in + off + 4, l);
			off += 4 + l;
		}
		memmove(sq_in, sq_in + off, sq_in_len - off);
		sq_in_len -= off;
	}
}

/**
 * sq_send_all() - write bytes, reading the port while the socket is full
 * @p: the bytes
 * @len: their count
 * @read_too: read the port meanwhile (not while holding)
 *
 * Return: 0, or -1 when the connection failed.
 */
static int sq_send_all(const uint8_t *p, size_t len, int read_too)
{
	while (len) {
		ssize_t n = send(sq_fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		struct pollfd pfd = { .fd = sq_fd, .events = POLLOUT | (read_too ? POLLIN : 0) };

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
		poll(&pfd, 1, 100);
		if (read_too && (pfd.revents & POLLIN))
			sq_read();
		if (sq_closed)
			return -1;
	}
	return 0;
}

/**
 * sq_hold() - send frame @k in part, wait, send the rest byte by byte
 * @buf: the frame with its prefix
 * @len: their count
 * @nhold: this hold's number (1: stop inside the prefix)
 *
 * First every numbered frame the tap side sent is read (it says how many
 * in DIR/tapidle once it stopped); then reading stops.  While DIR/hold
 * exists the bytes waiting in the socket are written to DIR/inq whenever
 * that file is missing (the tap side removes it to ask again).
 *
 * Return: 0, or -1 when the connection failed.
 */
static int sq_hold(const uint8_t *buf, size_t len, unsigned int nhold)
{
	size_t first = nhold == 1 ? 2 : 14, i;
	unsigned long idle = 0;
	int outq = 1, inq, known = 0, tries;
	FILE *f;

	/* each wait below is bounded (10 s): a dead daemon or tap side ends it */
	for (tries = 0; !sq_closed && !known && tries < 2000; tries++) {
		if ((f = fopen(sq_path("tapidle"), "r"))) {
			known = fscanf(f, "%lu", &idle) == 1;
			fclose(f);
		}
		sq_read();
		poll(NULL, 0, 5);
	}
	for (tries = 0; !sq_closed && sq_rx_seq < idle && tries < 100; tries++) {
		struct pollfd pfd = { .fd = sq_fd, .events = POLLIN };

		poll(&pfd, 1, 100);
		sq_read();
	}
	if (!known || sq_rx_seq < idle) {
		snprintf(sq_bad, sizeof(sq_bad), "hold %u: %s", nhold,
			 known ? "the tap side's frames did not all arrive" : "no DIR/tapidle");
		return -1;
	}
	if (sq_closed || sq_send_all(buf, first, 0) < 0)
		return -1;
	for (tries = 0; outq > 0; tries++) {
		if (ioctl(sq_fd, SIOCOUTQ, &outq) < 0 || (outq > 0 && tries == 1000)) {
			snprintf(sq_bad, sizeof(sq_bad), "hold %u: the daemon did not read the half frame",
				 nhold);
			return -1;
		}
		if (outq > 0)
			poll(NULL, 0, 10);
	}
	sq_write_file("held", nhold);
	while (sq_exists("hold")) {
		if (!sq_exists("inq") && ioctl(sq_fd, SIOCINQ, &inq) == 0)
			sq_write_file("inq", (unsigned long)inq);
		poll(NULL, 0, 5);
	}
	unlink(sq_path("held"));
	for (i = first; i < len; i++)
		if (sq_send_all(buf + i, 1, 1) < 0)
			return -1;
	return 0;
}

/**
 * main() - connect, stream, report
 * @argc: 3
 * @argv: SOCKET DIR
 *
 * Return: 0 all good, 1 otherwise, 2 usage.
 */
int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static uint8_t buf[4 + SQ_MAX_FRAME];
	unsigned long k = 0, want = 0, quiet = 0;
	int known = 0;
	unsigned int nhold = 0;
	size_t len, off, piece;
	const char *ls = getenv("STREAM_SEQ_LISTEN");
	int ok, listen_fd = -1, more = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: stream_seq SOCKET DIR\n");
		return 2;
	}
	sq_dir = argv[2];
	if (ls && !strcmp(ls, "1")) {
		sq_fd = peer_server_accept(argv[1], &listen_fd, 20000);
		if (sq_fd < 0) {
			printf("listen at %s: %s\n", argv[1], strerror(errno));
			return 1;
		}
	} else {
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[1]);
		sq_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (sq_fd < 0 || connect(sq_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			printf("connect %s: %s\n", argv[1], strerror(errno));
			return 1;
		}
	}
	while (!sq_exists("stop") && !sq_closed) {
		len = sq_frame(k, buf);
		if (sq_exists("hold") && !sq_exists("held")) {
			if (sq_hold(buf, len, ++nhold) < 0)
				break;
		} else {
			for (off = 0; off < len; off += piece) {
				piece = 1 + (k * 13 + off) % 97;
				if (piece > len - off)
					piece = len - off;
				if (sq_send_all(buf + off, piece, 1) < 0)
					break;
			}
			if (off < len)
				break;
		}
		k++;
		sq_read();
		if (k % 8 == 0)
			poll(NULL, 0, 1);	/* leave the tap side's capture some room */
	}
	sq_write_file("peer.sent", k);
	/* read until the tap side's count arrived, or 10 s of silence */
	while (!sq_closed && quiet < 100) {
		struct pollfd pfd = { .fd = sq_fd, .events = POLLIN };
		FILE *f;

		if (!known && (f = fopen(sq_path("tap.sent"), "r"))) {
			known = fscanf(f, "%lu", &want) == 1;
			fclose(f);
		}
		if (known && sq_rx_seq >= want)
			break;
		if (poll(&pfd, 1, 100) > 0 && sq_read() > 0)
			quiet = 0;
		else
			quiet++;
	}
	ok = !sq_closed && !sq_bad[0] && known && sq_rx_seq == want;
	printf("sent %lu received %lu numbered (%s) of %lu frames, %s%s\n", k, sq_rx_seq,
	       sq_bad[0] ? sq_bad : known && sq_rx_seq == want ? "in order, intact" : "some missing",
	       sq_rx_all, sq_closed ? "connection closed" : "connection kept",
	       known ? "" : "; no tap.sent");
	if (listen_fd >= 0) {
		more = peer_server_more(listen_fd);
		printf("server: 1 connection accepted, %d more made\n", more);
	}
	close(sq_fd);
	return ok && !more ? 0 : 1;
}
