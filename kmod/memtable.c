// SPDX-License-Identifier: GPL-2.0
/*
 * memtable.c - guest-physical to user address translation of one ring
 * (VRINGFD_SET_MEM_TABLE).
 *
 * A table is a sorted array of non-overlapping guest regions; each maps
 * [guest_addr, guest_addr + size) to [user_addr, user_addr + size) of the
 * caller's address space.  Lookups are a binary search.  A table is
 * immutable once built: replacing it is the caller's business (the ring core
 * swaps the pointer under the ring's walker lock).
 *
 * Bad input of vrfd_memtable_from_user():
 *   nregions > VRINGFD_MAX_MEM_REGIONS   -EINVAL
 *   padding or a region's reserved != 0  -EINVAL
 *   a region of size 0                    -EINVAL
 *   guest or user range wrapping 2^64     -EINVAL
 *   user range beyond the user address space  -EINVAL
 *   two guest ranges overlapping          -EINVAL
 *   unreadable table                      -EFAULT
 *   nregions == 0                         NULL (no table: addresses are
 *                                         user addresses again)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/errno.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/overflow.h>
#include <linux/vringfd.h>
#include "memtable.h"

/**
 * struct vrfd_memregion - one translated region
 * @gpa: first guest-physical address
 * @last: last guest-physical address (inclusive, so a region may end at 2^64-1)
 * @uaddr: user address of @gpa
 */
struct vrfd_memregion {
	u64 gpa;
	u64 last;
	u64 uaddr;
};

/**
 * struct vrfd_memtable - a validated memory table
 * @nregions: entries in @r
 * @r: regions sorted by @gpa
 */
struct vrfd_memtable {
	u32 nregions;
	struct vrfd_memregion r[];
};

/**
 * vrfd_memtable_cmp() - order two regions by guest address (for sort())
 * @a: a region
 * @b: another region
 *
 * Return: <0, 0 or >0.
 */
static int vrfd_memtable_cmp(const void *a, const void *b)
{
	const struct vrfd_memregion *ra = a, *rb = b;

	if (ra->gpa < rb->gpa)
		return -1;
	return ra->gpa > rb->gpa;
}

/**
 * vrfd_memtable_new() - an empty table of @nregions regions, to be filled
 * with vrfd_memtable_set() and finished with vrfd_memtable_seal()
 * @nregions: number of regions, 1..VRINGFD_MAX_MEM_REGIONS
 *
 * Return: the table, or NULL (no memory).
 */
struct vrfd_memtable *vrfd_memtable_new(u32 nregions)
{
	struct vrfd_memtable *mt;

	mt = kzalloc(struct_size(mt, r, nregions), GFP_KERNEL_ACCOUNT);
	if (mt)
		mt->nregions = nregions;
	return mt;
}

/**
 * vrfd_memtable_set() - fill in one region of a new table
 * @mt: the table from vrfd_memtable_new()
 * @i: the region's index (< nregions)
 * @gpa: its first guest-physical address
 * @size: its length, non-zero
 * @base: the address @gpa translates to
 *
 * Return: 0, or -EINVAL (zero size, or the guest or translated range
 * wraps 2^64).
 */
int vrfd_memtable_set(struct vrfd_memtable *mt, u32 i, u64 gpa, u64 size,
		      u64 base)
{
	u64 glast, blast;

	if (!size || check_add_overflow(gpa, size - 1, &glast) ||
	    check_add_overflow(base, size - 1, &blast))
		return -EINVAL;
	mt->r[i].gpa = gpa;
	mt->r[i].last = glast;
	mt->r[i].uaddr = base;
	return 0;
}

/**
 * vrfd_memtable_seal() - sort a filled table and refuse overlapping regions
 * @mt: the table, every region set
 *
 * Return: 0, or -EINVAL (two guest ranges overlap).
 */
int vrfd_memtable_seal(struct vrfd_memtable *mt)
{
	u32 i;

	sort(mt->r, mt->nregions, sizeof(mt->r[0]), vrfd_memtable_cmp, NULL);
	for (i = 1; i < mt->nregions; i++)
		if (mt->r[i].gpa <= mt->r[i - 1].last)
			return -EINVAL;
	return 0;
}

/**
 * vrfd_memtable_from_user() - copy and validate a memory table from user space
 * @arg: user pointer to struct vringfd_mem_table and its regions
 *
 * Return: a new table, NULL when the table has no region (remove the
 * table), or ERR_PTR(-errno): -EINVAL (see the table at the top of this
 * file), -EFAULT, -ENOMEM.
 */
struct vrfd_memtable *vrfd_memtable_from_user(const struct vringfd_mem_table __user *arg)
{
	struct vringfd_mem_table head;
	struct vringfd_mem_region ureg;
	struct vrfd_memtable *mt;
	u32 i;
	int err;

	if (copy_from_user(&head, arg, sizeof(head)))
		return ERR_PTR(-EFAULT);
	if (head.padding)
		return ERR_PTR(-EINVAL);
	if (head.nregions > VRINGFD_MAX_MEM_REGIONS)
		return ERR_PTR(-EINVAL);
	if (!head.nregions)
		return NULL;

	mt = vrfd_memtable_new(head.nregions);
	if (!mt)
		return ERR_PTR(-ENOMEM);

	for (i = 0; i < head.nregions; i++) {
		if (copy_from_user(&ureg, &arg->regions[i], sizeof(ureg))) {
			err = -EFAULT;
			goto err_free;
		}
		err = -EINVAL;
		if (ureg.reserved)
			goto err_free;
		err = vrfd_memtable_set(mt, i, ureg.guest_addr, ureg.size,
					ureg.user_addr);
		if (err)
			goto err_free;
		err = -EINVAL;
		if (ureg.user_addr > TASK_SIZE_MAX ||
		    ureg.user_addr + (ureg.size - 1) >= TASK_SIZE_MAX)
			goto err_free;
	}
	err = vrfd_memtable_seal(mt);
	if (err)
		goto err_free;
	return mt;

err_free:
	kfree(mt);
	return ERR_PTR(err);
}

/**
 * vrfd_memtable_free() - free a table from vrfd_memtable_from_user()
 * @mt: the table, or NULL
 */
void vrfd_memtable_free(struct vrfd_memtable *mt)
{
	kfree(mt);
}

/**
 * vrfd_memtable_nregions() - number of regions of a table
 * @mt: the table, or NULL
 *
 * Return: the number of regions (0 for NULL).
 */
u32 vrfd_memtable_nregions(const struct vrfd_memtable *mt)
{
	return mt ? mt->nregions : 0;
}

/**
 * vrfd_memtable_xlate() - translate the start of a guest buffer
 * @mt: the table
 * @addr: guest-physical address
 * @len: length of the buffer
 * @uaddr: user address of @addr (out)
 * @contig: bytes contiguous at @uaddr, at most @len (out); a buffer that
 *	crosses into the next region needs another call at @addr + *@contig
 *
 * Return: 0, or -EFAULT when @addr is outside every region.
 */
int vrfd_memtable_xlate(const struct vrfd_memtable *mt, u64 addr, u64 len,
			u64 *uaddr, u64 *contig)
{
	u32 lo = 0, hi = mt->nregions;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;
		const struct vrfd_memregion *r = &mt->r[mid];

		if (addr < r->gpa) {
			hi = mid;
		} else if (addr > r->last) {
			lo = mid + 1;
		} else {
			u64 room = r->last - addr;	/* bytes after addr */

			*uaddr = r->uaddr + (addr - r->gpa);
			/* room + 1 may be 2^64: compare without adding */
			*contig = (len && len - 1 > room) ? room + 1 : len;
			return 0;
		}
	}
	return -EFAULT;
}
