// SPDX-License-Identifier: GPL-2.0
/*
 * vmrun_kasan.c - read one byte past a kmalloc'ed buffer when loaded.
 *
 * A rig self-test for the debug kernel (scripts/vm-debug-kernel, KASAN and
 * KFENCE on): KASAN (or KFENCE, when it sampled this allocation) reports the
 * out-of-bounds read, and with panic_on_warn=1 the guest panics; either way
 * scripts/vm-run must count it as a failure.  Never load it on a machine you
 * care about.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>
#include <linux/slab.h>

/* Not a constant, so the compiler neither warns nor folds the bad index. */
static size_t vmrun_kasan_index = 16;
module_param(vmrun_kasan_index, ulong, 0444);

/**
 * vmrun_kasan_init() - kmalloc 16 bytes and read byte @vmrun_kasan_index
 *
 * Return: -EINVAL (the module never stays loaded)
 */
static int __init vmrun_kasan_init(void)
{
	char *p = kmalloc(16, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	pr_info("reading past a 16-byte buffer for the rig self-test\n");
	pr_info("byte %zu is %d\n", vmrun_kasan_index, READ_ONCE(p[vmrun_kasan_index]));
	kfree(p);
	return -EINVAL;
}
module_init(vmrun_kasan_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("vm-run self-test: an out-of-bounds read for KASAN");
