/* SPDX-License-Identifier: GPL-2.0 */
/*
 * main.h - module-wide entry points of vringfd.ko (main.c)
 */
#ifndef VRFD_MAIN_H
#define VRFD_MAIN_H

#include <linux/compiler.h>

/**
 * vrfd_main_get_version() - VRINGFD_GET_VERSION: what this module supports
 * @uarg: user pointer to struct vringfd_version
 *
 * Return: 0 or -EFAULT.
 */
long vrfd_main_get_version(void __user *uarg);

#endif /* VRFD_MAIN_H */
