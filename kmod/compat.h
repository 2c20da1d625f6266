/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every kernel-version difference vringfd.ko and vringfd_echo.ko
 * care about; the other files have no LINUX_VERSION_CODE tests.
 *
 * The modules are built and tested for two kernel series: 6.1 (Debian 12's
 * linux-image-amd64) and 6.12 (Debian 13's, and Debian 12's
 * linux-image-6.12-amd64 from bookworm-security), each in the VM rig
 * (tests/suites/50-vm-kernel, 51-vm-kernel-6.12).  kmod/dkms.conf's
 * BUILD_EXCLUSIVE_KERNEL names the same two.  A test below is here only when
 * one of those two kernels needs it, with the kernel change it follows;
 * kernels before 6.1 are refused at build time.
 */
#ifndef VRFD_COMPAT_H
#define VRFD_COMPAT_H

#include <linux/version.h>
#include <linux/eventfd.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/hugetlb.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/preempt.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "vringfd supports Linux 6.1 and later (tested: 6.1, 6.12)"
#endif

/**
 * vrfd_eventfd_signal() - add 1 to an eventfd counter
 * @ctx: the eventfd
 *
 * eventfd_signal() lost its count argument in 6.8 ("eventfd: simplify
 * eventfd_signal()"): 6.1 takes (ctx, 1), 6.12 takes (ctx).
 */
static inline void vrfd_eventfd_signal(struct eventfd_ctx *ctx)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
	eventfd_signal(ctx);
#else
	eventfd_signal(ctx, 1);
#endif
}

/**
 * vrfd_pin_user_pages_locked() - pin user pages for long-term kernel writes
 * @start: page-aligned user address (current->mm, its mmap lock held)
 * @nr_pages: number of pages
 * @pages: filled with the pinned pages
 *
 * pin_user_pages() lost its vmas argument in 6.5.
 * Return: number of pages pinned, or -errno.
 */
static inline long vrfd_pin_user_pages_locked(unsigned long start, int nr_pages,
					      struct page **pages)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	return pin_user_pages(start, nr_pages, FOLL_WRITE | FOLL_LONGTERM, pages);
#else
	return pin_user_pages(start, nr_pages, FOLL_WRITE | FOLL_LONGTERM, pages,
			      NULL);
#endif
}

#ifdef CONFIG_HUGETLBFS
/**
 * vrfd_hugetlb_folio_get() - the huge page a hugetlbfs file has at @pos
 * @file: a hugetlbfs file
 * @pos: byte offset in it
 *
 * hugetlbfs indexed its page cache in huge pages until 6.7 ("mm/filemap:
 * remove hugetlb special casing in filemap.c"; 6.12 looks a huge page up
 * at its first base page's index, as filemap_lock_hugetlb_folio() does),
 * and filemap_get_folio() answers a miss with NULL until 6.3 ("mm: return
 * an ERR_PTR from __filemap_get_folio"), ERR_PTR(-ENOENT) since.
 * Return: the folio (a reference), or NULL (a hole).
 */
static inline struct folio *vrfd_hugetlb_folio_get(struct file *file, loff_t pos)
{
	struct hstate *h = hstate_file(file);
	pgoff_t index = pos >> huge_page_shift(h);
	struct folio *folio;

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	index <<= huge_page_order(h);
#endif
	folio = filemap_get_folio(file->f_mapping, index);
	return IS_ERR(folio) ? NULL : folio;
}
#endif

#endif /* VRFD_COMPAT_H */
