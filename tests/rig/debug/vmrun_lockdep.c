// SPDX-License-Identifier: GPL-2.0
/*
 * vmrun_lockdep.c - take two mutexes in both orders when loaded.
 *
 * A rig self-test for the debug kernel (scripts/vm-debug-kernel, lockdep on):
 * one thread, so nothing deadlocks, but lockdep reports "possible circular
 * locking dependency detected", which scripts/vm-run must count as a
 * failure.  Never load it on a machine you care about.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>
#include <linux/mutex.h>

static DEFINE_MUTEX(vmrun_lock_a);
static DEFINE_MUTEX(vmrun_lock_b);

/**
 * vmrun_lockdep_init() - A then B, then B then A
 *
 * Return: -EINVAL (the module never stays loaded)
 */
static int __init vmrun_lockdep_init(void)
{
	pr_info("taking two mutexes in both orders for the rig self-test\n");
	mutex_lock(&vmrun_lock_a);
	mutex_lock(&vmrun_lock_b);
	mutex_unlock(&vmrun_lock_b);
	mutex_unlock(&vmrun_lock_a);
	mutex_lock(&vmrun_lock_b);
	mutex_lock(&vmrun_lock_a);
	mutex_unlock(&vmrun_lock_a);
	mutex_unlock(&vmrun_lock_b);
	return -EINVAL;
}
module_init(vmrun_lockdep_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("vm-run self-test: a lock order inversion for lockdep");
