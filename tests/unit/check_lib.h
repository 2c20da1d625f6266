/* SPDX-License-Identifier: GPL-2.0 */
/*
 * check_lib.h - suites of the libvringfd unit tests (one per check_lib_*.c)
 */
#ifndef CHECK_LIB_H
#define CHECK_LIB_H

#include <check.h>

Suite *layout_suite(void);	/* check_lib_layout.c: ring layout vs <linux/virtio_ring.h> */
Suite *driver_suite(void);	/* check_lib_driver.c: vringfd_ring_* */
Suite *device_suite(void);	/* check_lib_device.c: vringfd_dev_* and malicious rings */
Suite *fd_suite(void);		/* check_lib_fd.c: vring fd calls without the module */
Suite *stress_suite(void);	/* check_lib_stress.c: two-thread ordering stress */

#endif /* CHECK_LIB_H */
