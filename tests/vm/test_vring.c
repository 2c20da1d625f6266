// SPDX-License-Identifier: GPL-2.0
/*
 * test_vring.c - the seed's Documentation/test_vring.c sequence through
 * vringfd() of libvringfd, with a correctly sized and aligned ring:
 * poll 0 -> used->idx++ -> poll 1 -> last_used++ -> poll 0.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/virtio_ring.h>
#include <vringfd.h>

/**
 * main() - run the sequence
 *
 * Return: 0 when every step held, 1 otherwise.
 */
int main(void)
{
	struct pollfd pfd;
	struct vring vr;
	uint16_t used = 0;
	size_t size = vring_size(256, getpagesize());
	void *buf = NULL;
	int fd, r, fails = 0;

	if (posix_memalign(&buf, getpagesize(), size)) {
		printf("FAIL: test_vring: cannot allocate %zu bytes\n", size);
		return 1;
	}
	memset(buf, 0, size);
	vring_init(&vr, 256, buf, getpagesize());

	fd = vringfd(buf, 256, &used);
	if (fd < 0) {
		if (errno == ENOENT)
			printf("SKIP: test_vring: /dev/vringfd missing (module not loaded)\n");
		else
			printf("FAIL: test_vring: vringfd: %s\n", strerror(errno));
		return errno == ENOENT ? 0 : 1;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	r = poll(&pfd, 1, 0);
	if (r != 0) {
		printf("FAIL: test_vring_poll_empty: poll gave %d\n", r);
		fails++;
	} else {
		printf("PASS: test_vring_poll_empty\n");
	}
	vr.used->idx++;
	r = poll(&pfd, 1, 0);
	if (r != 1 || !(pfd.revents & POLLIN)) {
		printf("FAIL: test_vring_poll_used: poll after buf used gave %d revents %#x\n",
		       r, pfd.revents);
		fails++;
	} else {
		printf("PASS: test_vring_poll_used\n");
	}
	used++;
	r = poll(&pfd, 1, 0);
	if (r != 0) {
		printf("FAIL: test_vring_poll_consumed: poll after used incremented gave %d\n",
		       r);
		fails++;
	} else {
		printf("PASS: test_vring_poll_consumed\n");
	}
	close(fd);
	free(buf);
	return fails ? 1 : 0;
}
