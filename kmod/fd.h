/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fd.h - the vring fd (fd.c): creation and the file that holds a ring
 */
#ifndef VRFD_FD_H
#define VRFD_FD_H

#include <linux/compiler.h>

struct file;
struct vrfd_ring;
struct vringfd_create;

/**
 * vrfd_fd_get_version() - VRINGFD_GET_VERSION: what this module supports
 * @uarg: user pointer to struct vringfd_version
 *
 * Return: 0 or -EFAULT.
 */
long vrfd_fd_get_version(void __user *uarg);

/**
 * vrfd_fd_create() - VRINGFD_CREATE: validate, create a ring, install an fd
 * @uarg: user pointer to struct vringfd_create
 *
 * Return: the new fd (O_CLOEXEC, O_RDWR), or -errno (see VRINGFD_CREATE).
 */
long vrfd_fd_create(const struct vringfd_create __user *uarg);

/**
 * vrfd_fd_ring() - the ring behind a file, if it is a vring fd
 * @file: any file
 *
 * Return: the ring (no reference taken), or NULL when @file is not a vring fd.
 */
struct vrfd_ring *vrfd_fd_ring(struct file *file);

#endif /* VRFD_FD_H */
