// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * notify_sink.c - a NOTIFY_SOCKET for tests: print what sd_notify() sends
 *
 * Usage: notify_sink PATH SECONDS
 * Binds an AF_UNIX SOCK_DGRAM socket at PATH, prints every assignment of
 * every datagram on its own line (flushed), and exits 0 after SECONDS or on
 * SIGTERM; removes PATH on exit.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t sink_stop;

/**
 * sink_on_term() - SIGTERM handler
 * @sig: unused
 */
static void sink_on_term(int sig)
{
	sink_stop = 1;
}

/**
 * main() - bind, print, exit
 * @argc: 3
 * @argv: PATH SECONDS
 *
 * Return: 0, 1 on a setup error, 2 on usage.
 */
int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[4097];
	time_t end;
	int fd;

	if (argc != 3 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: notify_sink PATH SECONDS\n");
		return 2;
	}
	signal(SIGTERM, sink_on_term);
	strcpy(sa.sun_path, argv[1]);
	unlink(argv[1]);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "notify_sink: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	end = time(NULL) + atoi(argv[2]);
	while (!sink_stop && time(NULL) < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		char *line, *save;

		if (poll(&p, 1, 200) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			printf("%s\n", line);
		fflush(stdout);
	}
	unlink(argv[1]);
	return 0;
}
