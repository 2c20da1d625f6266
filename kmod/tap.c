// SPDX-License-Identifier: GPL-2.0
/*
 * tap.c - the tap attachment (placeholder: VRINGFD_ATTACH_TAP is not
 * supported yet).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/compiler.h>
#include <uapi/linux/vringfd.h>
#include "tap.h"

/**
 * vrfd_tap_attach() - attach @ring to the tap queue described at @arg
 * @ring: an unattached vring
 * @arg: user pointer to struct vringfd_tap
 *
 * Return: 0, or -errno (see VRINGFD_ATTACH_TAP).
 */
long vrfd_tap_attach(struct vrfd_ring *ring, const struct vringfd_tap __user *arg)
{
	return -EOPNOTSUPP;
}
