/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmod_load.h - the project's modules seen from a VM test: their reference
 * counts, and loading them again (after an rmmod) from the directory scripts/vm-run loaded them from
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
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/**
 * kl_find_top() - the source tree: four path components above this program
 * (TOP/build/tests/vm/PROGRAM)
 * @top: PATH_MAX bytes, filled in
 *
 * Return: 0, or -1.
 */
static inline int kl_find_top(char *top)
{
	char *p;
	int i;

	if (!realpath("/proc/self/exe", top))
		return -1;
	for (i = 0; i < 4; i++) {
		p = strrchr(top, '/');
		if (!p)
			return -1;
		*p = 0;
	}
	return 0;
}

/**
 * kl_refcnt() - /sys/module/NAME/refcnt
 * @name: module name
 *
 * Return: the count, or -1 when the module is not loaded.
 */
static inline int kl_refcnt(const char *name)
{
	char path[128];
	FILE *f;
	int n = -1;

	snprintf(path, sizeof(path), "/sys/module/%s/refcnt", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

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
