// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * evfd.c - eventfds from front-ends: never block on them (see evfd.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "evfd.h"

/**
 * evfd_is_eventfd() - whether @fd is an eventfd
 * @fd: the fd
 *
 * An eventfd's /proc/self/fd link reads "anon_inode:[eventfd]"; a regular
 * file, a pipe, a socket or a device reads otherwise.
 *
 * Return: true for an eventfd.
 */
bool evfd_is_eventfd(int fd)
{
	static const char want[] = "anon_inode:[eventfd]";
	char path[64], link[sizeof(want) + 1];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link));
	return n == (ssize_t)sizeof(want) - 1 && !memcmp(link, want, sizeof(want) - 1);
}

/**
 * evfd_adopt() - check a front-end's eventfd and make it safe for the loop
 * @fd: the fd
 *
 * Refuses anything but an eventfd (the daemon would otherwise write
 * counters into a client's regular file or block on its pipe), then sets
 * O_NONBLOCK on it.  The flag belongs to the open file, which the
 * front-end shares: it must poll its call eventfds rather than block in read
 * (QEMU creates them non-blocking anyway).
 *
 * Return: 0, -ENOTSUP when @fd is not an eventfd, or another negative errno
 * (EBADF for a closed fd).
 */
int evfd_adopt(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0 && !evfd_is_eventfd(fd))
		return -ENOTSUP;

	if (fl < 0)
		return -errno;
	if (!(fl & O_NONBLOCK) && fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

/**
 * evfd_consume() - take a kick off an eventfd
 * @fd: the fd (adopted)
 *
 * One read: it empties a normal eventfd and takes one off an EFD_SEMAPHORE
 * one, whose remaining count wakes the loop again later instead of holding
 * it here.
 */
void evfd_consume(int fd)
{
	uint64_t v;
	ssize_t n = read(fd, &v, sizeof(v));

	(void)n;	/* EAGAIN: nothing there; the other errors are the owner's */
}

/**
 * evfd_signal() - add one to an eventfd
 * @fd: the fd (adopted)
 *
 * Return: true if it was signalled; false if its counter is full (the
 * front-end does not read it: the interrupt is lost, nothing blocks) or the
 * write failed.
 */
bool evfd_signal(int fd)
{
	uint64_t one = 1;

	return write(fd, &one, sizeof(one)) == sizeof(one);
}
