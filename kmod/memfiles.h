/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memfiles.h - a ring's memory held as pages of memory files
 * (VRINGFD_SET_MEM_FILES).
 */
#ifndef VRFD_MEMFILES_H
#define VRFD_MEMFILES_H

#include <linux/types.h>

struct vringfd_mem_files;
struct vrfd_memfiles;

/* The ring parts, in the order of struct vrfd_memfiles_parts.k. */
enum {
	VRFD_MEMFILES_DESC,
	VRFD_MEMFILES_AVAIL,
	VRFD_MEMFILES_USED,
	VRFD_MEMFILES_LAST_USED,
	VRFD_MEMFILES_NPARTS,
};

/**
 * struct vrfd_memfiles_parts - kernel addresses of a ring's parts
 * @k: descriptor table, avail ring, used ring, last_used (VRFD_MEMFILES_*)
 */
struct vrfd_memfiles_parts {
	void *k[VRFD_MEMFILES_NPARTS];
};

struct vrfd_memfiles *vrfd_memfiles_from_user(const struct vringfd_mem_files __user *arg,
					      const size_t sizes[VRFD_MEMFILES_NPARTS]);
void vrfd_memfiles_free(struct vrfd_memfiles *mf);
const struct vrfd_memfiles_parts *vrfd_memfiles_parts(const struct vrfd_memfiles *mf);
int vrfd_memfiles_xlate(const struct vrfd_memfiles *mf, u64 addr, u64 len,
			void **kaddr, u64 *contig);

#endif /* VRFD_MEMFILES_H */
