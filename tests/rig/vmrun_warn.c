// SPDX-License-Identifier: GPL-2.0
/*
 * vmrun_warn.c - a module whose only job is to WARN when it is loaded.
 *
 * The VM rig's self-test (tests/suites/05-rig) loads it in the guest to check
 * that a kernel WARNING is caught: the rig boots with panic_on_warn=1, so the
 * guest panics and scripts/vm-run must report a failure.  Never load it on a
 * machine you care about.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/init.h>
#include <linux/module.h>

/**
 * vmrun_warn_init() - trigger a WARN so the rig can detect it
 *
 * Return: -EINVAL (the module never stays loaded)
 */
static int __init vmrun_warn_init(void)
{
	pr_info("triggering a WARNING for the rig self-test\n");
	WARN(1, "vmrun_warn: rig self-test warning\n");
	return -EINVAL;
}
module_init(vmrun_warn_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("vm-run self-test: WARN on load");
