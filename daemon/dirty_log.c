// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dirty_log.c - the dirty-page log of a migrating guest (see dirty_log.h)
 *
 * Bad input and the answer (dirty_log_map() returns the errno with @err filled;
 * vhost_user.c closes the connection):
 *   size 0, or more than DIRTY_LOG_MAX_SIZE bytes          -EINVAL
 *   offset + size wraps                               -EINVAL
 *   fd not a regular file or memfd                    -EINVAL
 *   offset + size beyond the fd's size (fstat)        -EFAULT
 *   mmap() or guard registration fails                its errno
 * A log truncated after it was mapped faults when marked: guard.c jumps
 * back to the walk, which closes the connection (port_vhost_user.c).
 *
 * Work per call is bounded by the caller's range: the engine marks at
 * most one frame's buffers (64 KiB and a header: 17 pages) or one used
 * ring (at most 32768 entries: 65 pages) at a time.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dirty_log.h"
#include "guard.h"
#include "log.h"

/**
 * dirty_log_init() - a log with nothing mapped
 * @l: the log
 */
void dirty_log_init(struct dirty_log *l)
{
	memset(l, 0, sizeof(*l));
}

/**
 * dirty_log_map() - map the bitmap a front-end shares (SET_LOG_BASE)
 * @l: the log; a log mapped before is replaced only when the new one maps
 * @fd: the front-end's log file (not consumed)
 * @size: bytes of bitmap
 * @offset: where the bitmap starts in @fd
 * @owner: guard owner (the connection) of the mapping
 * @guard_index: the owner's number for it in a guard fault
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or a negative errno with @err filled (@l unchanged).
 */
int dirty_log_map(struct dirty_log *l, int fd, uint64_t size, uint64_t offset, const void *owner,
	     unsigned int guard_index, char *err, size_t errlen)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t aligned, delta, len;
	struct stat st;
	void *p;
	int ret;

	if (size == 0 || size > DIRTY_LOG_MAX_SIZE) {
		snprintf(err, errlen, "log of 0x%llx bytes (1..0x%llx)", (unsigned long long)size,
			 (unsigned long long)DIRTY_LOG_MAX_SIZE);
		return -EINVAL;
	}
	if (offset + size < offset) {
		snprintf(err, errlen, "log offset 0x%llx + size 0x%llx wraps",
			 (unsigned long long)offset, (unsigned long long)size);
		return -EINVAL;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		log_buf_errno(err, errlen, errno, "log fd: fstat");
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "log fd is not a memory file (memfd or regular file)");
		return -EINVAL;
	}
	if (st.st_size < 0 || offset + size > (uint64_t)st.st_size) {
		snprintf(err, errlen, "log (offset 0x%llx, size 0x%llx) extends past the end of its fd (0x%llx bytes)",
			 (unsigned long long)offset, (unsigned long long)size,
			 (unsigned long long)st.st_size);
		return -EFAULT;
	}
	aligned = offset & ~(page - 1);
	delta = offset - aligned;
	len = (size + delta + page - 1) & ~(page - 1);
	p = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)aligned);
	if (p == MAP_FAILED) {
		ret = -errno;
		log_buf_errno(err, errlen, errno, "log: mmap of 0x%llx bytes at offset 0x%llx",
			 (unsigned long long)len, (unsigned long long)aligned);
		return ret;
	}
	ret = guard_map_add((uint8_t *)p + delta, (size_t)size, owner, guard_index);
	if (ret < 0) {
		munmap(p, (size_t)len);
		snprintf(err, errlen, "log: guard: %s", strerror(-ret));
		return ret;
	}
	dirty_log_unmap(l);
	l->map = p;
	l->map_len = (size_t)len;
	l->bits = (uint8_t *)p + delta;
	l->size = size;
	return 0;
}

/**
 * dirty_log_unmap() - release the mapping (nothing is marked afterwards)
 * @l: the log (mapped or not)
 *
 * The counters stay.
 */
void dirty_log_unmap(struct dirty_log *l)
{
	if (!l->bits)
		return;
	guard_map_del(l->bits);
	munmap(l->map, l->map_len);
	l->bits = NULL;
	l->map = NULL;
	l->map_len = 0;
	l->size = 0;
}

/**
 * dirty_log_mark() - mark the pages of a guest-physical range dirty
 * @l: the log (nothing happens when none is mapped)
 * @gpa: first byte written
 * @len: bytes written (0: nothing)
 *
 * Call after the write, inside the guard scope of the log's owner.  Pages
 * beyond the bitmap are counted in @l->beyond and otherwise ignored.
 */
void dirty_log_mark(struct dirty_log *l, uint64_t gpa, uint64_t len)
{
	uint64_t first, last, pg;

	if (!l->bits || !len)
		return;
	first = gpa >> DIRTY_LOG_PAGE_SHIFT;
	last = (gpa + len - 1 < gpa ? UINT64_MAX : gpa + len - 1) >> DIRTY_LOG_PAGE_SHIFT;
	for (pg = first; pg <= last; pg++) {
		if (pg / 8 >= l->size) {
			l->beyond += last - pg + 1;
			return;
		}
		__atomic_fetch_or(&l->bits[pg / 8], (uint8_t)(1u << (pg % 8)), __ATOMIC_RELEASE);
		l->pages++;
	}
}

/**
 * dirty_log_mark_iov() - mark the guest pages behind the first bytes of buffers
 * @l: the log
 * @regions: the memory table the buffers were translated through
 * @nregions: its entries
 * @iov: the buffers (pointers into @regions' mappings)
 * @niov: entries in @iov
 * @len: bytes written from the start of @iov
 *
 * A buffer outside every region (not guest memory) is skipped.
 */
void dirty_log_mark_iov(struct dirty_log *l, const struct engine_mem_region *regions,
		   unsigned int nregions, const struct iovec *iov, unsigned int niov,
		   uint64_t len)
{
	unsigned int i, j;

	if (!l->bits)
		return;
	for (i = 0; i < niov && len; i++) {
		uintptr_t p = (uintptr_t)iov[i].iov_base;
		uint64_t k = iov[i].iov_len < len ? iov[i].iov_len : len;

		for (j = 0; j < nregions; j++) {
			uintptr_t base = (uintptr_t)regions[j].uaddr;

			if (p >= base && p - base < regions[j].size) {
				dirty_log_mark(l, regions[j].guest_addr + (p - base), k);
				break;
			}
		}
		len -= k;
	}
}
