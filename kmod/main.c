// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - vringfd.ko: the misc device /dev/vringfd that makes vring fds.
 */
#define pr_fmt(fmt) "vringfd: " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vringfd.h>
#include "fd.h"

/**
 * vrfd_main_ioctl() - ioctls on /dev/vringfd
 * @file: the open misc device
 * @cmd: VRINGFD_GET_VERSION or VRINGFD_CREATE
 * @arg: user pointer
 *
 * Return: 0 or a new fd, or -errno; -ENOTTY for any other @cmd.
 */
static long vrfd_main_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case VRINGFD_GET_VERSION:
		return vrfd_fd_get_version(uarg);
	case VRINGFD_CREATE:
		return vrfd_fd_create(uarg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations vrfd_main_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= vrfd_main_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice vrfd_main_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "vringfd",
	.fops	= &vrfd_main_fops,
	.mode	= 0660,
};

/**
 * vrfd_main_init() - register /dev/vringfd
 *
 * Return: 0 or -errno.
 */
static int __init vrfd_main_init(void)
{
	int err;

	err = misc_register(&vrfd_main_misc);
	if (err) {
		pr_err("cannot register the misc device /dev/vringfd: error %d\n",
		       err);
		goto err_misc;
	}
	pr_debug("loaded, api version %u\n", VRINGFD_API_VERSION);
	return 0;

err_misc:
	return err;
}

/**
 * vrfd_main_exit() - unregister /dev/vringfd (no vring fd can be open: each
 * holds a module reference)
 */
static void __exit vrfd_main_exit(void)
{
	misc_deregister(&vrfd_main_misc);
}

module_init(vrfd_main_init);
module_exit(vrfd_main_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("vring fd: a file descriptor over a virtio split ring in user memory");
