// SPDX-License-Identifier: GPL-2.0
/*
 * memtable.c - guest-physical to user address translation (placeholder:
 * VRINGFD_SET_MEM_TABLE is not supported yet).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/errno.h>
#include <uapi/linux/vringfd.h>
#include "memtable.h"

/**
 * vrfd_memtable_from_user() - copy and validate a memory table from user space
 * @arg: user pointer to struct vringfd_mem_table and its regions
 *
 * Return: a new table, or ERR_PTR(-errno).
 */
struct vrfd_memtable *vrfd_memtable_from_user(const struct vringfd_mem_table __user *arg)
{
	return ERR_PTR(-EOPNOTSUPP);
}

/**
 * vrfd_memtable_free() - free a table from vrfd_memtable_from_user()
 * @mt: the table, or NULL
 */
void vrfd_memtable_free(struct vrfd_memtable *mt)
{
}

/**
 * vrfd_memtable_xlate() - translate the start of a guest buffer
 * @mt: the table
 * @addr: guest-physical address
 * @len: length of the buffer
 * @uaddr: user address of @addr (out)
 * @contig: bytes contiguous at @uaddr, at most @len (out)
 *
 * Return: 0, or -EFAULT when @addr is outside every region.
 */
int vrfd_memtable_xlate(const struct vrfd_memtable *mt, u64 addr, u64 len,
			u64 *uaddr, u64 *contig)
{
	return -EFAULT;
}
