/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dirty_log.h - the dirty-page log of a migrating guest (vhost-user LOG_SHMFD)
 *
 * While a guest migrates, the front-end (QEMU) copies guest memory to the
 * destination and must copy again every page changed since.  Pages the
 * guest's CPU writes it tracks itself; pages the back-end writes (used
 * rings, received frames) the back-end marks in a bitmap the front-end
 * shares with it (SET_LOG_BASE with an fd): bit N of the bitmap (byte N/8,
 * bit N%8) stands for guest-physical page N of DLOG_PAGE bytes.  The
 * front-end takes the bits with an atomic exchange, so each bit is set
 * with an atomic OR, after the write it stands for.
 *
 * The mapping is registered with guard.c like guest memory: a front-end
 * that truncates the log file under it faults inside the walk's guard
 * scope and only its connection closes.
 */
#ifndef VRINGNET_DIRTY_LOG_H
#define VRINGNET_DIRTY_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "engine.h"

#define DLOG_PAGE_SHIFT	12
#define DLOG_PAGE	(1ULL << DLOG_PAGE_SHIFT)	/* VHOST_LOG_PAGE */
#define DLOG_MAX_SIZE	(1ULL << 30)	/* bytes of bitmap: 32 TiB of guest memory */

/**
 * struct dlog - one mapped dirty log
 * @bits: the bitmap (inside @map), NULL while none is mapped
 * @size: bytes of bitmap
 * @map: what mmap() returned
 * @map_len: length of the mapping
 * @pages: bits set so far (pages marked, repeats included)
 * @beyond: pages marked outside the bitmap (ignored; a front-end whose
 *	log does not cover its memory)
 */
struct dlog {
	uint8_t *bits;
	uint64_t size;
	void *map;
	size_t map_len;
	uint64_t pages;
	uint64_t beyond;
};

void dlog_init(struct dlog *l);
int dlog_map(struct dlog *l, int fd, uint64_t size, uint64_t offset, const void *owner,
	     unsigned int guard_index, char *err, size_t errlen);
void dlog_unmap(struct dlog *l);
void dlog_mark(struct dlog *l, uint64_t gpa, uint64_t len);
void dlog_mark_iov(struct dlog *l, const struct eng_mem_region *regions,
		   unsigned int nregions, const struct iovec *iov, unsigned int niov,
		   uint64_t len);

/**
 * dlog_mapped() - whether a log is mapped
 * @l: the log
 *
 * Return: true when dlog_mark() marks anything.
 */
static inline bool dlog_mapped(const struct dlog *l)
{
	return l->bits != NULL;
}

#endif /* VRINGNET_DIRTY_LOG_H */
