/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmod_load.h - load the project's modules again from a VM test (after an
 * rmmod): from the directory scripts/vm-run loaded them from
 * (VMRUN_KMOD_DIR: kmod/, or build/kmod-debug/kmod under the debug
 * kernel), else from TOP/kmod.
 */
#ifndef KMOD_LOAD_H
#define KMOD_LOAD_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/**
 * kl_path() - where a module file of the project is
 * @top: the project's top directory (used without VMRUN_KMOD_DIR)
 * @file: e.g. "vringfd.ko"
 * @buf: filled with the path
 * @len: size of @buf
 */
static inline void kl_path(const char *top, const char *file, char *buf, size_t len)
{
	const char *dir = getenv("VMRUN_KMOD_DIR");

	if (dir && *dir)
		snprintf(buf, len, "%s/%s", dir, file);
	else
		snprintf(buf, len, "%s/kmod/%s", top, file);
}

/**
 * kl_load() - finit_module() of a module file of the project
 * @top: as kl_path()
 * @file: e.g. "vringfd.ko"
 *
 * Return: 0, or -1 with errno.
 */
static inline int kl_load(const char *top, const char *file)
{
	char path[PATH_MAX + 32];
	int fd, r, e;

	kl_path(top, file, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = (int)syscall(SYS_finit_module, fd, "", 0);
	e = errno;
	close(fd);
	errno = e;
	return r;
}

#endif /* KMOD_LOAD_H */
