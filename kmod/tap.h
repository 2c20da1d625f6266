/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - the tap attachment: a vring fd bound to one queue of a tun/tap
 * device (VRINGFD_ATTACH_TAP).
 */
#ifndef VRFD_TAP_H
#define VRFD_TAP_H

#include <linux/types.h>

struct vrfd_ring;
struct vringfd_tap;

long vrfd_tap_attach(struct vrfd_ring *ring, const struct vringfd_tap __user *arg);
long vrfd_tap_set_kick(struct vrfd_ring *ring, const __s32 __user *arg);
int vrfd_tap_init(void);
void vrfd_tap_exit(void);

#endif /* VRFD_TAP_H */
