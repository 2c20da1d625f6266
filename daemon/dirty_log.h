/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dirty_log.h - the dirty-page log of a migrating guest (vhost-user LOG_SHMFD)
 *
 * While a guest migrates, the front-end (QEMU) copies guest memory to the
 * destination and must copy again every page changed since.  Pages the
 * guest's CPU writes it tracks itself; pages the back-end writes (used
 * rings, received frames) the back-end marks in a bitmap the front-end
 * shares with it (SET_LOG_BASE with an fd): bit N of the bitmap (byte N/8,
 * bit N%8) stands for guest-physical page N of DIRTY_LOG_PAGE bytes.  The
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

#define DIRTY_LOG_PAGE_SHIFT	12
#define DIRTY_LOG_PAGE		(1ULL << DIRTY_LOG_PAGE_SHIFT)	/* VHOST_LOG_PAGE */
#define DIRTY_LOG_MAX_SIZE	(1ULL << 30)	/* bytes of bitmap: 32 TiB of guest memory */

/**
 * struct dirty_log - one mapped dirty log
 * @bits: the bitmap (inside @map), NULL while none is mapped
 * @size: bytes of bitmap
 * @map: what mmap() returned
 * @map_len: length of the mapping
 * @pages: bits set so far (pages marked, repeats included)
 * @beyond: pages marked outside the bitmap (ignored; a front-end whose
 *	log does not cover its memory)
 */
struct dirty_log {
	uint8_t *bits;
	uint64_t size;
	void *map;
	size_t map_len;
	uint64_t pages;
	uint64_t beyond;
};

void dirty_log_init(struct dirty_log *l);
int dirty_log_map(struct dirty_log *l, int fd, uint64_t size, uint64_t offset, const void *owner,
	     unsigned int guard_index, char *err, size_t errlen);
void dirty_log_unmap(struct dirty_log *l);
void dirty_log_mark(struct dirty_log *l, uint64_t gpa, uint64_t len);
void dirty_log_mark_iov(struct dirty_log *l, const struct engine_mem_region *regions,
		   unsigned int nregions, const struct iovec *iov, unsigned int niov,
		   uint64_t len);

/**
 * dirty_log_mapped() - whether a log is mapped
 * @l: the log
 *
 * Return: true when dirty_log_mark() marks anything.
 */
static inline bool dirty_log_mapped(const struct dirty_log *l)
{
	return l->bits != NULL;
}

#endif /* VRINGNET_DIRTY_LOG_H */
