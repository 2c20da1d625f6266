// SPDX-License-Identifier: GPL-2.0
/*
 * check_lib_main.c - the suites of build/tests/unit/check_lib (libvringfd)
 */
#include "unit/runner.h"
#include "unit/check_lib.h"

Suite *(*const runner_suites[])(void) = {
	layout_suite,
	driver_suite,
	device_suite,
	fd_suite,
	stress_suite,
	NULL,
};
