/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memtable.h - guest-physical to user address translation of one ring
 * (VRINGFD_SET_MEM_TABLE).
 */
#ifndef VRFD_MEMTABLE_H
#define VRFD_MEMTABLE_H

#include <linux/types.h>

struct vringfd_mem_table;
struct vrfd_memtable;

struct vrfd_memtable *vrfd_memtable_new(u32 nregions);
int vrfd_memtable_set(struct vrfd_memtable *mt, u32 i, u64 gpa, u64 size,
		      u64 base);
int vrfd_memtable_seal(struct vrfd_memtable *mt);
struct vrfd_memtable *vrfd_memtable_from_user(const struct vringfd_mem_table __user *arg);
void vrfd_memtable_free(struct vrfd_memtable *mt);
u32 vrfd_memtable_nregions(const struct vrfd_memtable *mt);
int vrfd_memtable_xlate(const struct vrfd_memtable *mt, u64 addr, u64 len,
			u64 *uaddr, u64 *contig);

#endif /* VRFD_MEMTABLE_H */
