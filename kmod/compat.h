/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every kernel-version difference vringfd.ko and vringfd_echo.ko
 * care about; the other files have no LINUX_VERSION_CODE tests.
 *
 * The modules are built and tested on Debian's 6.1 only; the differences
 * below are those known to touch this code.  Kernels before 5.10 (no
 * pin_user_pages_fast(), compat_ptr_ioctl()) are not supported.
 */
#ifndef VRFD_COMPAT_H
#define VRFD_COMPAT_H

#include <linux/version.h>
#include <linux/eventfd.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/preempt.h>

/* in_hardirq() replaced in_irq() in 5.14. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 14, 0)
#define in_hardirq() in_irq()
#endif

/**
 * vrfd_eventfd_signal() - add 1 to an eventfd counter
 * @ctx: the eventfd
 *
 * eventfd_signal() lost its count argument in 6.8.
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

#endif /* VRFD_COMPAT_H */
