// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sock_hold.c - slow and idle peers of vringnetd's sockets, for the limits tests
 *
 * Usage:
 *   sock_hold [-u UID] [-t MS] [-T HEX] [-p HEX] [-r] stream|seqpacket PATH N SECONDS
 *	Connect N sockets to PATH (as UID when -u is given), print
 *	"connected K" (K = connections made), then hold them for up to SECONDS:
 *	with -p, send the bytes HEX on each first; with -t, send one byte on
 *	each open socket every MS milliseconds (a trickling peer), the bytes of
 *	-T HEX in turn (default 01); with -r, send one control "status"
 *	request on each first and read its reply (a client that then stalls).
 *	Exits as soon as every connection was closed by the other end, or
 *	when SECONDS have passed; prints "closed C of K after S s" (C the
 *	connections the other end closed).
 *   sock_hold dgram PATH N FROM
 *	Bind a datagram socket at FROM, send N 60-byte frames to PATH, print
 *	"sent N".
 * Exit 0 when the connections or datagrams could be made, 1 otherwise.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define SH_MAX	64

/**
 * sh_now_ms() - monotonic milliseconds
 *
 * Return: the time.
 */
static long long sh_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/**
 * sh_addr() - a unix socket address
 * @sa: out
 * @path: the path
 *
 * Return: the address length.
 */
static socklen_t sh_addr(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	snprintf(sa->sun_path, sizeof(sa->sun_path), "%s", path);
	return (socklen_t)sizeof(*sa);
}

/**
 * sh_dgram() - send @n frames from a socket bound at @from
 * @path: the port's socket
 * @n: frames
 * @from: our address
 *
 * Return: 0, or 1 on failure.
 */
static int sh_dgram(const char *path, int n, const char *from)
{
	struct sockaddr_un sa, me;
	unsigned char frame[60];
	socklen_t len = sh_addr(&sa, path);
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0), i;

	unlink(from);
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sh_addr(&me, from)) < 0) {
		fprintf(stderr, "sock_hold: bind %s: %s\n", from, strerror(errno));
		return 1;
	}
	memset(frame, 0, sizeof(frame));
	memset(frame, 0xff, 6);				/* broadcast */
	memcpy(frame + 6, "\x02\x00\x00\x00\x0b\xad", 6);
	frame[12] = 0x88;				/* local experimental */
	frame[13] = 0xb5;
	for (i = 0; i < n; i++) {
		if (sendto(fd, frame, sizeof(frame), 0, (struct sockaddr *)&sa, len) < 0) {
			fprintf(stderr, "sock_hold: sendto %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	printf("sent %d\n", n);
	unlink(from);
	return 0;
}

/**
 * sh_hex() - decode a hex string
 * @hex: the string
 * @out: the bytes
 * @max: room in @out
 *
 * Return: bytes decoded (0 for a bad string).
 */
static size_t sh_hex(const char *hex, unsigned char *out, size_t max)
{
	size_t n = 0;
	unsigned int b;

	while (hex[0] && hex[1] && n < max && sscanf(hex, "%2x", &b) == 1) {
		out[n++] = (unsigned char)b;
		hex += 2;
	}
	return hex[0] ? 0 : n;
}

/**
 * main() - see the file comment
 * @argc: argument count
 * @argv: arguments
 *
 * Return: exit status.
 */
int main(int argc, char **argv)
{
	static const char status_req[] = "status version=1\n";
	int fds[SH_MAX], n, i, k = 0, closed = 0, opt, type, trickle = 0, req = 0;
	long long start, end, next;
	struct sockaddr_un sa;
	unsigned char pre[4096], pat[256] = { 1 };
	size_t npre = 0, npat = 1, tpos = 0;
	char buf[65536];
	long uid = -1;

	while ((opt = getopt(argc, argv, "u:t:T:p:r")) != -1) {
		switch (opt) {
		case 'u': uid = atol(optarg); break;
		case 't': trickle = atoi(optarg); break;
		case 'T': npat = sh_hex(optarg, pat, sizeof(pat)); if (!npat) return 2; break;
		case 'p': npre = sh_hex(optarg, pre, sizeof(pre)); if (!npre) return 2; break;
		case 'r': req = 1; break;
		default: return 2;
		}
	}
	if (argc - optind != 4) {
		fprintf(stderr, "usage: sock_hold [-u UID] [-t MS] [-r] stream|seqpacket|dgram PATH N SECONDS|FROM\n");
		return 2;
	}
	n = atoi(argv[optind + 2]);
	if (!strcmp(argv[optind], "dgram"))
		return sh_dgram(argv[optind + 1], n, argv[optind + 3]);
	type = !strcmp(argv[optind], "stream") ? SOCK_STREAM : SOCK_SEQPACKET;
	if (n < 1 || n > SH_MAX)
		return 2;
	if (uid >= 0 && (setgid((gid_t)uid) < 0 || setuid((uid_t)uid) < 0)) {
		fprintf(stderr, "sock_hold: setuid %ld: %s\n", uid, strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		int fd = socket(AF_UNIX, type, 0);

		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sh_addr(&sa, argv[optind + 1])) < 0) {
			fprintf(stderr, "sock_hold: connect %s: %s\n", argv[optind + 1], strerror(errno));
			if (fd >= 0)
				close(fd);
			continue;
		}
		if (npre && send(fd, pre, npre, MSG_NOSIGNAL) != (ssize_t)npre) {
			close(fd);
			continue;
		}
		if (req) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			if (send(fd, status_req, sizeof(status_req) - 1, 0) < 0 ||
			    poll(&p, 1, 5000) != 1 || recv(fd, buf, sizeof(buf), 0) <= 0) {
				close(fd);
				continue;
			}
		}
		fds[k++] = fd;
	}
	printf("connected %d\n", k);
	fflush(stdout);
	if (!k)
		return 1;
	start = sh_now_ms();
	end = start + atoi(argv[optind + 3]) * 1000LL;
	next = trickle ? start : end;
	while (closed < k && sh_now_ms() < end) {
		struct pollfd p[SH_MAX];
		long long now = sh_now_ms();
		int wait = (int)((next < end ? next : end) - now);

		for (i = 0; i < k; i++) {
			p[i].fd = fds[i];
			p[i].events = POLLIN;
			p[i].revents = 0;
		}
		if (poll(p, k, wait > 0 ? wait : 0) < 0)
			break;
		for (i = 0; i < k; i++) {
			if (fds[i] < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (recv(fds[i], buf, sizeof(buf), MSG_DONTWAIT) > 0)
				continue;
			close(fds[i]);
			fds[i] = -1;
			closed++;
		}
		if (trickle && sh_now_ms() >= next) {
			for (i = 0; i < k; i++) {
				if (fds[i] >= 0 && send(fds[i], &pat[tpos], 1, MSG_NOSIGNAL) < 0) {
					close(fds[i]);
					fds[i] = -1;
					closed++;
				}
			}
			tpos = (tpos + 1) % npat;
			next += trickle;
		}
	}
	printf("closed %d of %d after %lld s\n", closed, k, (sh_now_ms() - start) / 1000);
	return 0;
}
