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

#include "lib/result.h"

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
	int fd, r;

	if (posix_memalign(&buf, getpagesize(), size)) {
		result_fail("test_vring", "cannot allocate %zu bytes", size);
		return result_exit_status();
	}
	memset(buf, 0, size);
	vring_init(&vr, 256, buf, getpagesize());

	fd = vringfd(buf, 256, &used);
	if (fd < 0) {
		if (errno == ENOENT)
			result_skip("test_vring", "/dev/vringfd missing (module not loaded)");
		else
			result_fail("test_vring", "vringfd: %s", strerror(errno));
		return result_exit_status();
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	r = poll(&pfd, 1, 0);
	result_check(r == 0, "test_vring_poll_empty", "poll gave %d", r);
	vr.used->idx++;
	r = poll(&pfd, 1, 0);
	result_check(r == 1 && (pfd.revents & POLLIN), "test_vring_poll_used",
		     "poll after buf used gave %d revents %#x", r, pfd.revents);
	used++;
	r = poll(&pfd, 1, 0);
	result_check(r == 0, "test_vring_poll_consumed",
		     "poll after used incremented gave %d", r);
	close(fd);
	free(buf);
	return result_exit_status();
}
