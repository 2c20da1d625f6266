// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vhost_user.c - vhost-user back-end: what each request does to one connection
 *
 * Follows QEMU's docs/interop/vhost-user.rst for a virtio-net device.  A ring
 * is *started* by SET_VRING_KICK and stopped by GET_VRING_BASE; it is
 * *enabled* by SET_VRING_ENABLE 1 when VHOST_USER_F_PROTOCOL_FEATURES was
 * negotiated, and from the start otherwise.  A queue pair is handed to the
 * owner (vhost_user_ops.queue_state) once both its rings are started and enabled,
 * have a size and addresses, and there is a memory table.  Before anything a
 * running queue depends on changes (memory table, ring size/addresses/base,
 * kick, features) the queue pair is stopped, and started again afterwards
 * when it is still ready.
 *
 * Requests are served from one table, vhost_user_requests[]: per request
 * its handler, the payload size and fds it takes, the ring it names, the
 * protocol feature it needs and whether it has a reply of its own (then no
 * REPLY_ACK).  vhost_user_do() makes those checks once, in that order,
 * before the handler runs; a request not in the table is refused.
 *
 * Bad input and the answer (vhost_user_dev_handle() returns the errno, vhost_user_dev.err
 * says why; a NEED_REPLY request also gets a non-zero REPLY_ACK first; the
 * owner closes the connection):
 *   framing/size/fd-count errors                 see vhost_user_msg.c
 *   SET_FEATURES with bits not offered           -EINVAL
 *   SET_PROTOCOL_FEATURES with bits not offered  -EINVAL
 *   ring index >= 2 * queue pairs                -ERANGE
 *   SET_VRING_NUM not a power of two 1..32768    -EINVAL
 *   SET_VRING_BASE >= 65536                      -EINVAL
 *   SET_VRING_ADDR before SET_VRING_NUM or
 *     SET_MEM_TABLE, flags other than the log flag,
 *     a misaligned log_guest_addr, misaligned,
 *     or any ring part outside mapped memory     -EINVAL / -EFAULT
 *   SET_LOG_BASE without LOG_SHMFD negotiated    -EINVAL
 *   SET_LOG_BASE: size 0 or above 1 GiB, offset
 *     + size wrapping, fd not a memory file,
 *     log beyond its fd's size (fstat)           -EINVAL / -EFAULT
 *   SET_LOG_FD with an fd that is not an eventfd -ENOTSUP
 *   SET_VRING_ENABLE with a value other than 0/1 -EINVAL
 *   SET_VRING_KICK/CALL/ERR fd not an eventfd    -ENOTSUP
 *   SET_MEM_TABLE: empty region, address ranges that wrap or overlap,
 *     region beyond its fd's size (fstat), fd not a
 *     regular file/memfd, mmap failure           -EINVAL / -EFAULT / errno
 *   SET_MEM_TABLE: hugetlbfs fd with too few free
 *     huge pages to reserve the region           -ENOMEM (mmap; not
 *     when the owner maps lazily: see below)
 *
 * Memory accepted: any regular file the front-end can share: memfds sealed
 * or not, hugetlbfs files and hugetlb memfds, tmpfs (/dev/shm) files, disk
 * files.  Seals are not looked at: F_SEAL_SHRINK would only protect
 * against truncation, the kernel reports F_SEAL_SEAL (no seals possible)
 * for every tmpfs/hugetlbfs file and unsealable memfd, and a hugetlb page
 * can fail to fault in whatever the seals.  Instead each region is mapped
 * without MAP_NORESERVE (a hugetlbfs mapping then reserves its huge pages
 * at mmap, so an exhausted pool is refused when the region is mapped
 * instead of faulting later), registered with guard.c, and every access to it is guarded: a
 * front-end that truncates its memory anyway closes only its own
 * connection (port_vhost_user.c).
 *
 * When guest memory is mapped: at SET_MEM_TABLE by default.  An owner
 * whose engine reaches the memory through its files (the kernel engine's
 * rings of memory) asks for vhost_user_dev_map_lazily(): SET_MEM_TABLE
 * then makes every check above but the mmap() (sizes against fstat(),
 * file type, wrap-around, overlap, the mapping's length and alignment;
 * hugetlbfs regions too: vringfd.ko holds huge pages, and a mapping made
 * later for a fall-back reserves them then), ring addresses are checked against
 * the table arithmetically, and the owner maps the table with
 * vhost_user_dev_map() when something needs it (a queue on the user
 * engine, a fall-back to rings of this process).  GET_VRING_BASE reads
 * no guest memory (the engine reports its positions), and a hand-over
 * passes the fds, not mappings.
 *   a new memory table that no longer holds a
 *     configured ring                            -EFAULT
 *   NET_SET_MTU without PROTOCOL_F_NET_MTU acked -EINVAL
 *   NET_SET_MTU outside 68..65535                -EINVAL
 *   NET_SET_MTU that is not the tap's MTU (or
 *     the tap's MTU cannot be read)              -EINVAL (or that errno)
 *
 * MTU: VIRTIO_NET_F_MTU and VHOST_USER_PROTOCOL_F_NET_MTU are offered.  QEMU
 * (virtio-net-pci,host_mtu=N) then tells the guest N in the device's config
 * space and sends N in NET_SET_MTU before the device starts.  The back-end
 * does not change the tap for a guest: the tap's MTU is the configuration's
 * (`mtu =` in its [tap] section, shared by every port on the tap and by the
 * host side), so N must equal the tap's current MTU; any other value is
 * refused (REPLY_ACK 1, QEMU reports "N Bytes MTU not supported by the
 * backend" and does not start the device) and the connection is closed
 * with a message that names both values.
 *
 * Migration (QEMU's vhost.c): SET_LOG_BASE hands over the dirty log (a
 * memfd, mapped here and registered with guard.c like guest memory; a new
 * one replaces it, reset and RESET_OWNER unmap it) and is answered with a
 * u64 0; SET_FEATURES with VHOST_F_LOG_ALL turns logging on and
 * SET_VRING_ADDR with VHOST_VRING_F_LOG gives each ring's used-ring
 * guest address; the features change stops the queue pairs and restarts
 * them with the log (the owner picks an engine that logs).  At the end,
 * GET_VRING_BASE stops the rings and reports where the device stopped,
 * which QEMU migrates and gives the destination with SET_VRING_BASE.
 * SEND_RARP (PROTOCOL_F_RARP): QEMU asks the destination's back-end to
 * announce the guest (it does when the guest has no GUEST_ANNOUNCE, which
 * is not offered); the owner writes one RARP frame with the guest's MAC
 * into the tap, so a bridge or switch learns the guest's new port at once.
 *   SEND_RARP without PROTOCOL_F_RARP acked, or
 *     with a multicast or all-zero MAC           -EINVAL
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "dirty_log.h"
#include "evfd.h"
#include "guard.h"
#include "log.h"
#include "handover_state.h"
#include "vhost_user.h"

#define VHOST_USER_MAX_MSGS_PER_CALL	256

/**
 * vhost_user_fail() - record why a request failed
 * @dev: the connection
 * @ret: negative errno to return
 * @fmt: printf format
 *
 * Return: @ret.
 */
static int __attribute__((format(printf, 3, 4)))
vhost_user_fail(struct vhost_user_dev *dev, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dev->err, sizeof(dev->err), fmt, ap);
	va_end(ap);
	return ret;
}

/**
 * vhost_user_vring_init() - a ring as a fresh connection has it
 * @vr: the ring
 */
static void vhost_user_vring_init(struct vhost_user_vring *vr)
{
	memset(vr, 0, sizeof(*vr));
	vr->kick_fd = -1;
	vr->call_fd = -1;
	vr->err_fd = -1;
}

/**
 * vhost_user_vring_close_fds() - close a ring's eventfds
 * @vr: the ring
 */
static void vhost_user_vring_close_fds(struct vhost_user_vring *vr)
{
	if (vr->kick_fd >= 0)
		close(vr->kick_fd);
	if (vr->call_fd >= 0)
		close(vr->call_fd);
	if (vr->err_fd >= 0)
		close(vr->err_fd);
	vr->kick_fd = vr->call_fd = vr->err_fd = -1;
}

/**
 * vhost_user_dev_init() - prepare the state of a new connection
 * @dev: the state
 * @fd: the connection socket (non-blocking; not owned)
 * @queue_pairs: queue pairs to offer (clamped to 1..VHOST_USER_MAX_QUEUE_PAIRS)
 * @ops: owner callbacks, or NULL
 * @opaque: owner data
 */
void vhost_user_dev_init(struct vhost_user_dev *dev, int fd, unsigned int queue_pairs,
		 const struct vhost_user_ops *ops, void *opaque)
{
	unsigned int i;

	memset(dev, 0, sizeof(*dev));
	dev->fd = fd;
	dev->ops = ops;
	dev->opaque = opaque;
	if (queue_pairs < 1)
		queue_pairs = 1;
	if (queue_pairs > VHOST_USER_MAX_QUEUE_PAIRS)
		queue_pairs = VHOST_USER_MAX_QUEUE_PAIRS;
	dev->queue_pairs = queue_pairs;
	dev->features_offered = VU_FEATURES_BASE | (1ULL << VU_NET_F_MQ);
	for (i = 0; i < VHOST_USER_MAX_VRINGS; i++)
		vhost_user_vring_init(&dev->vrings[i]);
	dirty_log_init(&dev->log);
	dev->log_fd = -1;
	vhost_user_msg_rx_init(&dev->rx);
}

/**
 * vhost_user_stop_qp() - tell the owner a running queue pair must stop now
 * @dev: the connection
 * @qp: queue pair
 */
static void vhost_user_stop_qp(struct vhost_user_dev *dev, unsigned int qp)
{
	if (!dev->active[qp])
		return;
	dev->active[qp] = false;
	if (dev->ops && dev->ops->queue_state)
		dev->ops->queue_state(dev, qp, false);
}

/**
 * vhost_user_stop_all() - stop every running queue pair
 * @dev: the connection
 */
static void vhost_user_stop_all(struct vhost_user_dev *dev)
{
	unsigned int qp;

	for (qp = 0; qp < dev->queue_pairs; qp++)
		vhost_user_stop_qp(dev, qp);
}

/**
 * vhost_user_region_unmap() - unmap one region of guest memory, if mapped
 * @r: the region (its fd stays open)
 */
static void vhost_user_region_unmap(struct vhost_user_region *r)
{
	if (!r->map)
		return;
	guard_map_del(r->host);
	munmap(r->map, r->map_len);
	r->map = NULL;
	r->map_len = 0;
	r->host = NULL;
}

/**
 * vhost_user_unmap_all() - release the memory table
 * @dev: the connection
 */
static void vhost_user_unmap_all(struct vhost_user_dev *dev)
{
	unsigned int i;

	for (i = 0; i < dev->nregions; i++) {
		vhost_user_region_unmap(&dev->regions[i]);
		if (dev->regions[i].fd >= 0)
			close(dev->regions[i].fd);
	}
	dev->nregions = 0;
}

/**
 * vhost_user_log_release() - unmap the dirty log and close the log fd
 * @dev: the connection (no queue pair running: they may mark the log)
 */
static void vhost_user_log_release(struct vhost_user_dev *dev)
{
	dirty_log_unmap(&dev->log);
	if (dev->log_fd >= 0)
		close(dev->log_fd);
	dev->log_fd = -1;
}

/**
 * vhost_user_dev_reset() - release everything a connection holds
 * @dev: the connection
 *
 * Stops running queues (the owner is told), unmaps guest memory, closes
 * every eventfd and any fd of a half-received message.  @dev is then as
 * vhost_user_dev_init() left it (same fd, owner, queue count and
 * vhost_user_dev_map_lazily() choice).
 */
void vhost_user_dev_reset(struct vhost_user_dev *dev)
{
	unsigned int i;
	bool lazily;

	vhost_user_stop_all(dev);
	vhost_user_unmap_all(dev);
	vhost_user_log_release(dev);
	for (i = 0; i < VHOST_USER_MAX_VRINGS; i++)
		vhost_user_vring_close_fds(&dev->vrings[i]);
	vhost_user_msg_rx_reset(&dev->rx);
	lazily = dev->map_lazily;
	vhost_user_dev_init(dev, dev->fd, dev->queue_pairs, dev->ops, dev->opaque);
	dev->map_lazily = lazily;
}

/**
 * vhost_user_find_user() - the region holding a front-end virtual address range
 * @dev: the connection
 * @ua: front-end address
 * @len: bytes that must be contiguous in one region
 * @off: where @ua is in the region (out)
 *
 * Arithmetic on the memory table only: the region need not be mapped.
 * Return: the region, or NULL when [ua, ua+len) is not inside one region.
 */
static const struct vhost_user_region *vhost_user_find_user(const struct vhost_user_dev *dev,
							    uint64_t ua, uint64_t len, uint64_t *off)
{
	unsigned int i;

	for (i = 0; i < dev->nregions; i++) {
		const struct vhost_user_region *r = &dev->regions[i];

		if (ua < r->user_addr)
			continue;
		*off = ua - r->user_addr;
		if (*off >= r->size || len > r->size - *off)
			continue;
		return r;
	}
	return NULL;
}

/**
 * vhost_user_user_to_guest() - front-end virtual address to guest-physical address
 * @dev: the connection
 * @ua: front-end address (of a ring part vhost_user_vring_translate() found
 *	inside one region)
 *
 * Return: the guest-physical address, or 0 when @ua is in no region.
 */
static uint64_t vhost_user_user_to_guest(const struct vhost_user_dev *dev, uint64_t ua)
{
	unsigned int i;

	for (i = 0; i < dev->nregions; i++) {
		const struct vhost_user_region *r = &dev->regions[i];

		if (ua >= r->user_addr && ua - r->user_addr < r->size)
			return r->guest_addr + (ua - r->user_addr);
	}
	return 0;
}

/**
 * vhost_user_vring_translate() - find a ring's three parts in the memory table
 * @dev: the connection
 * @idx: ring index
 *
 * Each part must lie inside one region and be aligned as virtio requires
 * (descriptors 16, avail 2, used 4); the event-index fields are always
 * included in the sizes.  The checks are arithmetic on the table; the
 * parts' pointers here are set when the regions of all three are mapped,
 * else all NULL (vhost_user_dev_map() sets them later).
 *
 * Return: 0, -EINVAL (misaligned) or -EFAULT (outside guest memory).
 */
static int vhost_user_vring_translate(struct vhost_user_dev *dev, unsigned int idx)
{
	struct vhost_user_vring *vr = &dev->vrings[idx];
	const struct vhost_user_region *desc, *avail, *used;
	uint64_t num = vr->num, doff = 0, aoff = 0, uoff = 0;

	if ((vr->addr.desc & 15) || (vr->addr.avail & 1) || (vr->addr.used & 3))
		return vhost_user_fail(dev, -EINVAL,
			       "ring %u: misaligned addresses desc 0x%llx avail 0x%llx used 0x%llx",
			       idx, (unsigned long long)vr->addr.desc,
			       (unsigned long long)vr->addr.avail,
			       (unsigned long long)vr->addr.used);
	desc = vhost_user_find_user(dev, vr->addr.desc, 16 * num, &doff);
	avail = vhost_user_find_user(dev, vr->addr.avail, 6 + 2 * num, &aoff);
	used = vhost_user_find_user(dev, vr->addr.used, 6 + 8 * num, &uoff);
	if (!desc || !avail || !used)
		return vhost_user_fail(dev, -EFAULT,
			       "ring %u: %s (0x%llx, %u entries) is outside guest memory",
			       idx, !desc ? "descriptor table" : !avail ? "avail ring" : "used ring",
			       (unsigned long long)(!desc ? vr->addr.desc :
						    !avail ? vr->addr.avail : vr->addr.used),
			       vr->num);
	/* all three or none: a ring is mapped here or it is not (a map
	 * that failed half-way must not leave some parts NULL) */
	if (desc->host && avail->host && used->host) {
		vr->desc = (uint8_t *)desc->host + doff;
		vr->avail = (uint8_t *)avail->host + aoff;
		vr->used = (uint8_t *)used->host + uoff;
	} else {
		vr->desc = vr->avail = vr->used = NULL;
	}
	return 0;
}

/**
 * vhost_user_vrings_translate() - find every ring with addresses in the memory table again
 * @dev: the connection (its table changed, or was mapped)
 *
 * Return: 0, or the first ring's error (vhost_user_vring_translate()).
 */
static int vhost_user_vrings_translate(struct vhost_user_dev *dev)
{
	unsigned int i;
	int ret;

	for (i = 0; i < VHOST_USER_MAX_VRINGS; i++) {
		if (!dev->vrings[i].addr_set)
			continue;
		ret = vhost_user_vring_translate(dev, i);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/**
 * vhost_user_ring_enabled() - whether a ring may be processed as far as enabling goes
 * @dev: the connection
 * @vr: the ring
 *
 * Return: true when enabled (always, if PROTOCOL_FEATURES was not acked).
 */
static bool vhost_user_ring_enabled(const struct vhost_user_dev *dev, const struct vhost_user_vring *vr)
{
	if (!(dev->features & (1ULL << VUM_F_PROTOCOL_FEATURES)))
		return true;
	return vr->enabled;
}

/**
 * vhost_user_qp_ready() - whether both rings of a queue pair can run
 * @dev: the connection
 * @qp: queue pair
 *
 * Return: true when ready.
 */
static bool vhost_user_qp_ready(const struct vhost_user_dev *dev, unsigned int qp)
{
	unsigned int i;

	if (!dev->features_set || !dev->nregions)
		return false;
	for (i = 2 * qp; i < 2 * qp + 2; i++) {
		const struct vhost_user_vring *vr = &dev->vrings[i];

		if (!vr->num || !vr->addr_set || !vr->kick_set || !vr->started ||
		    !vhost_user_ring_enabled(dev, vr))
			return false;
	}
	return true;
}

/**
 * vhost_user_sync() - tell the owner about queue pairs that became ready or not
 * @dev: the connection
 *
 * Return: 0, or the owner's error for a queue it could not start.
 */
static int vhost_user_sync(struct vhost_user_dev *dev)
{
	unsigned int qp;
	int ret;

	for (qp = 0; qp < dev->queue_pairs; qp++) {
		bool ready = vhost_user_qp_ready(dev, qp);

		if (ready == dev->active[qp])
			continue;
		if (!ready) {
			vhost_user_stop_qp(dev, qp);
			continue;
		}
		dev->active[qp] = true;
		if (dev->ops && dev->ops->queue_state) {
			ret = dev->ops->queue_state(dev, qp, true);
			if (ret < 0) {
				dev->active[qp] = false;
				if (!dev->err[0])
					vhost_user_fail(dev, ret, "queue pair %u could not start: %s",
						qp, strerror(-ret));
				return ret;
			}
		}
	}
	return 0;
}

/**
 * vhost_user_regions_same() - whether a new memory table equals the mapped one
 * @dev: the connection
 * @mem: the new table
 * @st: fstat() of each new region's fd
 *
 * Return: true when every region has the same addresses, size, offset and
 * file (device and inode).
 */
static bool vhost_user_regions_same(const struct vhost_user_dev *dev, const struct vhost_user_msg_mem *mem,
			    const struct stat *st)
{
	unsigned int i;

	if (mem->nregions != dev->nregions)
		return false;
	for (i = 0; i < mem->nregions; i++) {
		const struct vhost_user_msg_region *n = &mem->regions[i];
		const struct vhost_user_region *o = &dev->regions[i];

		if (n->guest_addr != o->guest_addr || n->size != o->size ||
		    n->user_addr != o->user_addr || n->mmap_offset != o->mmap_offset ||
		    (uint64_t)st[i].st_dev != o->file_dev ||
		    (uint64_t)st[i].st_ino != o->file_ino)
			return false;
	}
	return true;
}

/**
 * vhost_user_ranges_overlap() - whether [a, a+alen) and [b, b+blen) intersect
 * @a: start of the first range
 * @alen: its length (> 0, no wrap)
 * @b: start of the second range
 * @blen: its length (> 0, no wrap)
 *
 * Return: true when they share a byte.
 */
static bool vhost_user_ranges_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/**
 * vhost_user_map_align() - the alignment a mapping of an fd needs
 * @fd: guest memory fd
 * @page: the base page size
 *
 * Return: the huge page size for a hugetlbfs file or hugetlb memfd (its
 * mmap offset and length must be multiples of it), else @page.
 */
static uint64_t vhost_user_map_align(int fd, uint64_t page)
{
	struct statfs sf;

	if (fstatfs(fd, &sf) == 0 && sf.f_type == HUGETLBFS_MAGIC &&
	    sf.f_bsize > 0 && !((uint64_t)sf.f_bsize & ((uint64_t)sf.f_bsize - 1)) &&
	    (uint64_t)sf.f_bsize > page)
		return (uint64_t)sf.f_bsize;
	return page;
}

/**
 * vhost_user_map_len() - the length of a mapping of a region
 * @offset: the region's offset in its fd
 * @size: its bytes
 * @align: the mapping's alignment (vhost_user_map_align())
 * @len: bytes to map from @offset rounded down to @align (out)
 *
 * Return: 0, or -EINVAL when the mapping's length would wrap or not fit
 * this address space.
 */
static int vhost_user_map_len(uint64_t offset, uint64_t size, uint64_t align, uint64_t *len)
{
	uint64_t delta = offset & (align - 1);

	*len = (size + delta + align - 1) & ~(align - 1);
	return *len < size || *len > SIZE_MAX ? -EINVAL : 0;
}

/**
 * vhost_user_region_map() - map one region of guest memory here
 * @dev: the connection (guard owner; @dev->err on failure)
 * @r: the region (@r->fd, its offset and size); @r->map, @r->map_len and
 *	@r->host are set
 * @index: its number in the table (guard.c reports it)
 * @what: the request or reason, for the message
 *
 * No MAP_NORESERVE: on hugetlbfs the mapping reserves its huge pages at
 * once.  The mapping is registered with guard.c.
 *
 * Return: 0 or a negative errno.
 */
static int vhost_user_region_map(struct vhost_user_dev *dev, struct vhost_user_region *r,
				 unsigned int index, const char *what)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t align = vhost_user_map_align(r->fd, page);
	uint64_t aligned = r->mmap_offset & ~(align - 1);
	uint64_t len;
	void *p;
	int ret;

	if (vhost_user_map_len(r->mmap_offset, r->size, align, &len) < 0)
		return vhost_user_fail(dev, -EINVAL, "%s: region %u: 0x%llx bytes cannot be mapped",
				       what, index, (unsigned long long)r->size);
	p = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, (off_t)aligned);
	if (p == MAP_FAILED)
		return vhost_user_fail(dev, -errno,
				       "%s: region %u: mmap of 0x%llx bytes at offset 0x%llx: %s%s",
				       what, index, (unsigned long long)len,
				       (unsigned long long)aligned, strerror(errno),
				       errno == ENOMEM && align > page ?
				       " (not enough free huge pages to reserve it)" : "");
	ret = guard_map_add((uint8_t *)p + (r->mmap_offset - aligned), r->size, dev, index);
	if (ret < 0) {
		munmap(p, (size_t)len);
		return vhost_user_fail(dev, ret, "%s: region %u: guard: %s", what, index,
				       strerror(-ret));
	}
	r->map = p;
	r->map_len = (size_t)len;
	r->host = (uint8_t *)p + (r->mmap_offset - aligned);
	return 0;
}

/**
 * vhost_user_dev_map_lazily() - choose when guest memory is mapped here
 * @dev: the connection
 * @lazily: true: SET_MEM_TABLE validates the table without mapping it
 *	(hugetlbfs regions too), and vhost_user_dev_map() maps it when the
 *	owner first needs it; false (the default): SET_MEM_TABLE maps it
 *
 * For an owner whose engine reaches guest memory through the memory
 * files (the kernel engine's rings of memory): the daemon then never maps
 * the guest's memory unless a queue falls back to rings of this process,
 * runs on the user engine (a migration's dirty logging) or the owner
 * reads guest memory itself.  Kept across vhost_user_dev_reset().
 */
void vhost_user_dev_map_lazily(struct vhost_user_dev *dev, bool lazily)
{
	dev->map_lazily = lazily;
}

/**
 * vhost_user_dev_mapped() - whether every region of the memory table is mapped here
 * @dev: the connection
 *
 * Return: true when all are (also with no table), false when one is not.
 */
bool vhost_user_dev_mapped(const struct vhost_user_dev *dev)
{
	unsigned int i;

	for (i = 0; i < dev->nregions; i++)
		if (!dev->regions[i].map)
			return false;
	return true;
}

/**
 * vhost_user_dev_mapped_bytes() - guest memory mapped here
 * @dev: the connection
 * @total: bytes of the whole memory table (out, may be NULL)
 *
 * Return: bytes of the regions mapped (their sizes, not the mappings'
 * rounded lengths).
 */
uint64_t vhost_user_dev_mapped_bytes(const struct vhost_user_dev *dev, uint64_t *total)
{
	uint64_t mapped = 0, all = 0;
	unsigned int i;

	for (i = 0; i < dev->nregions; i++) {
		all += dev->regions[i].size;
		if (dev->regions[i].map)
			mapped += dev->regions[i].size;
	}
	if (total)
		*total = all;
	return mapped;
}

/**
 * vhost_user_dev_map() - map every region of the memory table not mapped yet
 * @dev: the connection
 * @why: what needs the mapping, for the message
 *
 * Stops nothing: a running queue pair does not use the mapping (it was
 * opened without it).  The rings' pointers here are set from the new
 * mappings.  Regions mapped before a failure stay mapped (released with
 * the table).
 *
 * Return: 0, or a negative errno with @dev->err saying why.
 */
int vhost_user_dev_map(struct vhost_user_dev *dev, const char *why)
{
	unsigned int i;
	int ret;

	for (i = 0; i < dev->nregions; i++) {
		if (dev->regions[i].map)
			continue;
		ret = vhost_user_region_map(dev, &dev->regions[i], i, why);
		if (ret < 0)
			return ret;
		dev->eng_regions[i].uaddr = dev->regions[i].host;
	}
	return vhost_user_vrings_translate(dev);
}

/**
 * vhost_user_set_mem_table() - SET_MEM_TABLE: validate, map, swap in the new table
 * @dev: the connection
 * @msg: the (shape-checked) message; its fds are consumed
 *
 * Return: 0 or a negative errno.
 */
static int vhost_user_set_mem_table(struct vhost_user_dev *dev, struct vhost_user_msg *msg)
{
	const struct vhost_user_msg_mem *mem = &msg->payload.mem;
	struct vhost_user_region fresh[VUM_MAX_REGIONS];
	uint64_t fresh_align[VUM_MAX_REGIONS];
	struct stat st[VUM_MAX_REGIONS];
	long page = sysconf(_SC_PAGESIZE);
	unsigned int i, j, mapped = 0;
	int ret;

	if (mem->padding)
		return vhost_user_fail(dev, -EINVAL, "SET_MEM_TABLE: padding is not zero");
	for (i = 0; i < mem->nregions; i++) {
		const struct vhost_user_msg_region *r = &mem->regions[i];

		if (!r->size)
			return vhost_user_fail(dev, -EINVAL, "SET_MEM_TABLE: region %u is empty", i);
		if (r->guest_addr + r->size < r->guest_addr ||
		    r->user_addr + r->size < r->user_addr ||
		    r->mmap_offset + r->size < r->mmap_offset ||
		    r->size > SIZE_MAX - (size_t)page)
			return vhost_user_fail(dev, -EINVAL,
				       "SET_MEM_TABLE: region %u (guest 0x%llx, size 0x%llx) wraps the address space",
				       i, (unsigned long long)r->guest_addr,
				       (unsigned long long)r->size);
		for (j = 0; j < i; j++) {
			const struct vhost_user_msg_region *q = &mem->regions[j];

			if (vhost_user_ranges_overlap(r->guest_addr, r->size, q->guest_addr, q->size))
				return vhost_user_fail(dev, -EINVAL,
					       "SET_MEM_TABLE: regions %u and %u overlap in guest memory",
					       j, i);
			if (vhost_user_ranges_overlap(r->user_addr, r->size, q->user_addr, q->size))
				return vhost_user_fail(dev, -EINVAL,
					       "SET_MEM_TABLE: regions %u and %u overlap in front-end memory",
					       j, i);
		}
		if (fstat(msg->fds[i], &st[i]) < 0)
			return log_buf_errno(dev->err, sizeof(dev->err), errno,
					     "SET_MEM_TABLE: region %u: fstat", i);
		if (!S_ISREG(st[i].st_mode))
			return vhost_user_fail(dev, -EINVAL,
				       "SET_MEM_TABLE: region %u: fd is not a memory file (memfd or regular file)",
				       i);
		if (st[i].st_size < 0 || r->mmap_offset + r->size > (uint64_t)st[i].st_size)
			return vhost_user_fail(dev, -EFAULT,
				       "SET_MEM_TABLE: region %u (offset 0x%llx, size 0x%llx) extends past the end of its fd (0x%llx bytes)",
				       i, (unsigned long long)r->mmap_offset,
				       (unsigned long long)r->size,
				       (unsigned long long)st[i].st_size);
	}

	/* QEMU sends the same table once per queue pair: keep what is mapped. */
	if (vhost_user_regions_same(dev, mem, st)) {
		vhost_user_msg_close_fds(msg);
		return 0;
	}

	for (i = 0; i < mem->nregions; i++) {
		const struct vhost_user_msg_region *r = &mem->regions[i];
		uint64_t align = vhost_user_map_align(msg->fds[i], (uint64_t)page);
		uint64_t len;

		if (vhost_user_map_len(r->mmap_offset, r->size, align, &len) < 0) {
			ret = vhost_user_fail(dev, -EINVAL,
				      "SET_MEM_TABLE: region %u: 0x%llx bytes cannot be mapped",
				      i, (unsigned long long)r->size);
			goto err_unmap;
		}
		memset(&fresh[i], 0, sizeof(fresh[i]));
		fresh[i].guest_addr = r->guest_addr;
		fresh[i].size = r->size;
		fresh[i].user_addr = r->user_addr;
		fresh[i].mmap_offset = r->mmap_offset;
		fresh[i].file_dev = (uint64_t)st[i].st_dev;
		fresh[i].file_ino = (uint64_t)st[i].st_ino;
		fresh[i].fd = msg->fds[i];
		fresh_align[i] = align > (uint64_t)page ? align : 0;
		/*
		 * Mapped now unless the owner maps on demand (a hugetlbfs
		 * region too: vringfd.ko holds its huge pages, allocating
		 * what is missing; on a fall-back the mapping reserves them).
		 */
		if (dev->map_lazily)
			continue;
		ret = vhost_user_region_map(dev, &fresh[i], i, "SET_MEM_TABLE");
		if (ret < 0)
			goto err_unmap;
		mapped = i + 1;
	}
	/* the fds stay open: a successor (hand-over) maps them again */
	for (i = 0; i < mem->nregions; i++)
		fresh[i].fd = vhost_user_msg_take_fd(msg, i);
	vhost_user_msg_close_fds(msg);

	vhost_user_stop_all(dev);
	vhost_user_unmap_all(dev);
	for (i = 0; i < mem->nregions; i++) {
		dev->regions[i] = fresh[i];
		dev->eng_regions[i].guest_addr = fresh[i].guest_addr;
		dev->eng_regions[i].size = fresh[i].size;
		dev->eng_regions[i].uaddr = fresh[i].host;
		dev->eng_regions[i].fd = fresh[i].fd;
		dev->eng_regions[i].offset = fresh[i].mmap_offset;
		dev->eng_regions[i].map_align = fresh_align[i];
	}
	dev->nregions = mem->nregions;
	return vhost_user_vrings_translate(dev);

err_unmap:
	for (i = 0; i < mapped; i++)
		vhost_user_region_unmap(&fresh[i]);
	return ret;
}

/**
 * vhost_user_set_ring_fd() - SET_VRING_KICK/CALL/ERR
 * @dev: the connection
 * @msg: the message (ring index checked; its fd, if any, is consumed)
 *
 * A fd replaced while its queue runs stops the queue pair; the sync after
 * the message starts it again with the new fd, from where it stopped.
 * (Keeping the call fd's number with dup2 is not enough: the kernel
 * engine gave the eventfd itself to vringfd.ko, VRINGFD_SET_CALL_FD, which
 * would go on signalling the old one, and so would kick mode.)
 *
 * Return: 0 or a negative errno.
 */
static int vhost_user_set_ring_fd(struct vhost_user_dev *dev, struct vhost_user_msg *msg)
{
	unsigned int idx = msg->payload.u64 & VUM_VRING_IDX_MASK;
	bool nofd = msg->payload.u64 & VUM_VRING_NOFD;
	struct vhost_user_vring *vr = &dev->vrings[idx];
	int ret, fd;

	fd = nofd ? -1 : vhost_user_msg_take_fd(msg, 0);
	if (fd >= 0) {
		ret = evfd_adopt(fd);
		if (ret < 0) {
			close(fd);
			return vhost_user_fail(dev, ret, "%s: ring %u: %s", vhost_user_msg_request_name(msg->hdr.request),
				       idx, ret == -ENOTSUP ? "fd is not an eventfd" : strerror(-ret));
		}
	}

	switch (msg->hdr.request) {
	case VUM_SET_VRING_KICK:
		vhost_user_stop_qp(dev, idx / 2);
		if (vr->kick_fd >= 0)
			close(vr->kick_fd);
		vr->kick_fd = fd;
		vr->kick_set = true;
		vr->started = true;
		break;
	case VUM_SET_VRING_CALL:
		if (fd < 0 && vr->call_fd < 0)
			break;	/* none before, none now */
		vhost_user_stop_qp(dev, idx / 2);
		if (vr->call_fd >= 0)
			close(vr->call_fd);
		vr->call_fd = fd;
		break;
	default:
		if (vr->err_fd >= 0)
			close(vr->err_fd);
		vr->err_fd = fd;
		break;
	}
	return 0;
}

/**
 * vhost_user_set_log_base() - SET_LOG_BASE: map the dirty log, answer
 * @dev: the connection
 * @msg: the (shape-checked: 16 bytes, one fd; LOG_SHMFD negotiated)
 *	message; its fd is consumed
 *
 * A log mapped before is replaced (QEMU resizes the log when guest memory
 * changes); running queues mark the new one from their next write, as
 * they reach it through @dev->log.  The reply is a u64 0 (QEMU waits for
 * a reply with LOG_SHMFD and reads its header and any payload).
 *
 * Return: 0 or a negative errno.
 */
static int vhost_user_set_log_base(struct vhost_user_dev *dev, struct vhost_user_msg *msg)
{
	const struct vhost_user_msg_log lg = msg->payload.log;
	uint64_t zero = 0;
	char why[200];
	int fd, ret;

	fd = vhost_user_msg_take_fd(msg, 0);
	ret = dirty_log_map(&dev->log, fd, lg.mmap_size, lg.mmap_offset, dev, VHOST_USER_GUARD_LOG,
		       why, sizeof(why));
	close(fd);
	if (ret < 0)
		return vhost_user_fail(dev, ret, "SET_LOG_BASE: %s", why);
	return vhost_user_msg_send(dev->fd, msg->hdr.request, &zero, sizeof(zero), dev->err,
			sizeof(dev->err));
}

/**
 * vhost_user_set_log_fd() - SET_LOG_FD: keep the log eventfd
 * @dev: the connection
 * @msg: the (shape-checked: one fd) message; its fd is consumed
 *
 * Return: 0 or a negative errno (-ENOTSUP: not an eventfd).
 */
static int vhost_user_set_log_fd(struct vhost_user_dev *dev, struct vhost_user_msg *msg)
{
	int fd = vhost_user_msg_take_fd(msg, 0);
	int ret = evfd_adopt(fd);

	if (ret < 0) {
		close(fd);
		return vhost_user_fail(dev, ret, "SET_LOG_FD: %s",
			       ret == -ENOTSUP ? "fd is not an eventfd" : strerror(-ret));
	}
	if (dev->log_fd >= 0)
		close(dev->log_fd);
	dev->log_fd = fd;
	return 0;
}

/**
 * vhost_user_reply_u64() - answer a GET request with a u64
 * @dev: the connection
 * @request: the request
 * @value: the answer
 *
 * Return: 0 or a negative errno.
 */
static int vhost_user_reply_u64(struct vhost_user_dev *dev, uint32_t request, uint64_t value)
{
	return vhost_user_msg_send(dev->fd, request, &value, sizeof(value), dev->err, sizeof(dev->err));
}

/**
 * vhost_user_net_set_mtu() - NET_SET_MTU: the MTU the front-end gives the guest
 * @dev: the connection
 * @msg: the message (PROTOCOL_F_NET_MTU negotiated); its u64 is the MTU
 *
 * Accepted only when the value is the tap's current MTU (see the file
 * comment).
 *
 * Return: 0 or a negative errno (with @dev->err set).
 */
static int vhost_user_net_set_mtu(struct vhost_user_dev *dev, struct vhost_user_msg *msg)
{
	uint64_t mtu = msg->payload.u64;
	int tap_mtu;

	if (mtu < VHOST_USER_MTU_MIN || mtu > VHOST_USER_MTU_MAX)
		return vhost_user_fail(dev, -EINVAL, "NET_SET_MTU: MTU %llu is outside %u..%u",
			       (unsigned long long)mtu, VHOST_USER_MTU_MIN, VHOST_USER_MTU_MAX);
	if (!dev->ops || !dev->ops->tap_mtu)
		return vhost_user_fail(dev, -EOPNOTSUPP, "NET_SET_MTU: this port cannot check an MTU");
	tap_mtu = dev->ops->tap_mtu(dev);
	if (tap_mtu < 0)
		return vhost_user_fail(dev, tap_mtu, "NET_SET_MTU: reading the tap's MTU: %s",
			       strerror(-tap_mtu));
	if ((uint64_t)tap_mtu != mtu)
		return vhost_user_fail(dev, -EINVAL,
			       "NET_SET_MTU: the front-end's MTU %llu is not the tap's MTU %d "
			       "(give QEMU host_mtu=%d, or set mtu = %llu in the tap's section)",
			       (unsigned long long)mtu, tap_mtu, tap_mtu, (unsigned long long)mtu);
	dev->mtu = (unsigned int)mtu;
	return 0;
}

/**
 * vhost_user_send_rarp() - SEND_RARP: announce the guest's MAC after a migration
 * @dev: the connection
 * @msg: the message (PROTOCOL_F_RARP negotiated); the first six bytes of
 *	its u64 are the MAC
 *
 * QEMU sends it to the destination's back-end when the guest cannot
 * announce itself (no VIRTIO_NET_F_GUEST_ANNOUNCE): the owner sends one
 * RARP frame with the guest's MAC as its source out of the tap, as the
 * guest would.  One frame per request: a front-end could send as many
 * broadcast frames through its TX ring.
 *
 * Return: 0 or a negative errno (with @dev->err set).
 */
static int vhost_user_send_rarp(struct vhost_user_dev *dev, struct vhost_user_msg *msg)
{
	uint8_t mac[6];
	int ret;

	memcpy(mac, &msg->payload.u64, sizeof(mac));
	if ((mac[0] & 1) || !(mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]))
		return vhost_user_fail(dev, -EINVAL,
			       "SEND_RARP: %02x:%02x:%02x:%02x:%02x:%02x is not a unicast MAC",
			       mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	if (!dev->ops || !dev->ops->announce)
		return vhost_user_fail(dev, -EOPNOTSUPP, "SEND_RARP: this port has no tap to announce on");
	ret = dev->ops->announce(dev, mac);
	if (ret < 0)
		return vhost_user_fail(dev, ret, "SEND_RARP: writing the RARP frame to the tap: %s",
			       strerror(-ret));
	return 0;
}

/**
 * vhost_user_get_features() - GET_FEATURES: the device features offered
 * @dev: the connection
 * @msg: the message
 *
 * Return: 0 or a negative errno.
 */
static int vhost_user_get_features(struct vhost_user_dev *dev, struct vhost_user_msg *msg)
{
	return vhost_user_reply_u64(dev, msg->hdr.request, dev->features_offered);
}

/**
 * vhost_user_set_features() - SET_FEATURES: the device features acked
 * @dev: the connection
 * @msg: the message; its u64 is the features
 *
 * A change after the first SET_FEATURES stops every queue pair (they are
 * started again with the new features when still ready).
 *
 * Return: 0, or -EINVAL for bits not offered.
 */
static int vhost_user_set_features(struct vhost_user_dev *dev, struct vhost_user_msg *msg)
{
	uint64_t v = msg->payload.u64;

	if (v & ~dev->features_offered)
		return vhost_user_fail(dev, -EINVAL, "SET_FEATURES: 0x%llx not offered (offered 0x%llx)",
			       (unsigned long long)(v & ~dev->features_offered),
			       (unsigned long long)dev->features_offered);
	if (dev->features_set && v != dev->features)
		vhost_user_stop_all(dev);
	dev->features = v;
	dev->features_set = true;
	return 0;
}

/**
 * vhost_user_get_protocol_features() - GET_PROTOCOL_FEATURES: those offered
 * @dev: the connection
 * @msg: the message
 *
 * Return: 0 or a negative errno.
 */
static int vhost_user_get_protocol_features(struct vhost_user_dev *dev, struct vhost_user_msg *msg)
{
	return vhost_user_reply_u64(dev, msg->hdr.request, VU_PROTOCOL_FEATURES);
}

/**
 * vhost_user_set_protocol_features() - SET_PROTOCOL_FEATURES: those acked
 * @dev: the connection
 * @msg: the message; its u64 is the protocol features
 *
 * Return: 0, or -EINVAL for bits not offered.
 */
static int vhost_user_set_protocol_features(struct vhost_user_dev *dev, struct vhost_user_msg *msg)
{
	uint64_t v = msg->payload.u64;

	if (v & ~VU_PROTOCOL_FEATURES)
		return vhost_user_fail(dev, -EINVAL,
			       "SET_PROTOCOL_FEATURES: 0x%llx not offered (offered 0x%llx)",
			       (unsigned long long)(v & ~VU_PROTOCOL_FEATURES),
			       (unsigned long long)VU_PROTOCOL_FEATURES);
	dev->protocol_features = v;
	return 0;
}

/**
 * vhost_user_set_owner() - SET_OWNER: the front-end takes the device
 * @dev: the connection
 * @msg: the message
 *
 * Sent once per queue pair by QEMU: idempotent.
 *
 * Return: 0.
 */
static int vhost_user_set_owner(struct vhost_user_dev *dev, struct vhost_user_msg *msg)
{
	(void)msg;
	dev->owner = true;
	return 0;
}

/**
 * vhost_user_reset_owner() - RESET_OWNER: back to a fresh connection's state
 * @dev: the connection
 * @msg: the message
 *
 * Stops every queue pair, unmaps guest memory and the dirty log, closes
 * every ring's fds and forgets the features.
 *
 * Return: 0.
 */
static int vhost_user_reset_owner(struct vhost_user_dev *dev, struct vhost_user_msg *msg)
{
	unsigned int i;

	(void)msg;
	vhost_user_stop_all(dev);
	vhost_user_unmap_all(dev);
	vhost_user_log_release(dev);
	for (i = 0; i < VHOST_USER_MAX_VRINGS; i++) {
		vhost_user_vring_close_fds(&dev->vrings[i]);
		vhost_user_vring_init(&dev->vrings[i]);
	}
	dev->features = 0;
	dev->features_set = false;
	dev->protocol_features = 0;
	dev->owner = false;
	dev->mtu = 0;
	return 0;
}

/**
 * vhost_user_get_queue_num() - GET_QUEUE_NUM: the queue pairs offered
 * @dev: the connection
 * @msg: the message
 *
 * Return: 0 or a negative errno.
 */
static int vhost_user_get_queue_num(struct vhost_user_dev *dev, struct vhost_user_msg *msg)
{
	return vhost_user_reply_u64(dev, msg->hdr.request, dev->queue_pairs);
}

/**
 * vhost_user_get_max_mem_slots() - GET_MAX_MEM_SLOTS: the memory regions taken
 * @dev: the connection
 * @msg: the message
 *
 * Return: 0 or a negative errno.
 */
static int vhost_user_get_max_mem_slots(struct vhost_user_dev *dev, struct vhost_user_msg *msg)
{
	return vhost_user_reply_u64(dev, msg->hdr.request, VUM_MAX_REGIONS);
}

/**
 * vhost_user_set_vring_num() - SET_VRING_NUM: a ring's size
 * @dev: the connection
 * @msg: the message (ring index checked)
 *
 * Return: 0, -EINVAL for a size that is not a power of two in
 * 1..VHOST_USER_MAX_RING_NUM, or the error of translating the ring's
 * addresses again.
 */
static int vhost_user_set_vring_num(struct vhost_user_dev *dev, struct vhost_user_msg *msg)
{
	const struct vhost_user_msg_vring_state st = msg->payload.state;
	struct vhost_user_vring *vr = &dev->vrings[st.index];

	if (st.num < 1 || st.num > VHOST_USER_MAX_RING_NUM || (st.num & (st.num - 1)))
		return vhost_user_fail(dev, -EINVAL,
			       "SET_VRING_NUM: ring %u: size %u is not a power of two in 1..%u",
			       st.index, st.num, VHOST_USER_MAX_RING_NUM);
	vhost_user_stop_qp(dev, st.index / 2);
	vr->num = st.num;
	if (vr->addr_set)
		return vhost_user_vring_translate(dev, st.index);
	return 0;
}

/**
 * vhost_user_set_vring_base() - SET_VRING_BASE: where the device starts reading
 * @dev: the connection
 * @msg: the message (ring index checked)
 *
 * Return: 0, or -EINVAL for a base that does not fit 16 bits.
 */
static int vhost_user_set_vring_base(struct vhost_user_dev *dev, struct vhost_user_msg *msg)
{
	const struct vhost_user_msg_vring_state st = msg->payload.state;

	if (st.num > 0xffff)
		return vhost_user_fail(dev, -EINVAL,
			       "SET_VRING_BASE: ring %u: base %u does not fit 16 bits",
			       st.index, st.num);
	vhost_user_stop_qp(dev, st.index / 2);
	dev->vrings[st.index].last_avail = (uint16_t)st.num;
	return 0;
}

/**
 * vhost_user_get_vring_base() - GET_VRING_BASE: stop a ring, say where it stopped
 * @dev: the connection
 * @msg: the message (ring index checked)
 *
 * Return: 0 or a negative errno.
 */
static int vhost_user_get_vring_base(struct vhost_user_dev *dev, struct vhost_user_msg *msg)
{
	struct vhost_user_msg_vring_state st = msg->payload.state;
	struct vhost_user_vring *vr = &dev->vrings[st.index];

	/* Stopping the pair stores the engine's positions in last_avail. */
	vhost_user_stop_qp(dev, st.index / 2);
	vr->started = false;
	vr->kick_set = false;
	if (vr->kick_fd >= 0)
		close(vr->kick_fd);
	vr->kick_fd = -1;
	st.num = vr->last_avail;
	return vhost_user_msg_send(dev->fd, msg->hdr.request, &st, sizeof(st),
			dev->err, sizeof(dev->err));
}

/**
 * vhost_user_set_vring_addr() - SET_VRING_ADDR: where a ring's parts are
 * @dev: the connection
 * @msg: the message (ring index checked)
 *
 * Return: 0, -EINVAL for unknown flags, a misaligned log address or a
 * request before SET_VRING_NUM or SET_MEM_TABLE, or the error of
 * translating the addresses (the ring then has none).
 */
static int vhost_user_set_vring_addr(struct vhost_user_dev *dev, struct vhost_user_msg *msg)
{
	const struct vhost_user_msg_vring_addr a = msg->payload.addr;
	struct vhost_user_vring *vr = &dev->vrings[a.index];
	int ret;

	if (a.flags & ~VUM_VRING_F_LOG)
		return vhost_user_fail(dev, -EINVAL,
			       "SET_VRING_ADDR: ring %u: unknown flags 0x%x",
			       a.index, a.flags & ~VUM_VRING_F_LOG);
	if ((a.flags & VUM_VRING_F_LOG) && (a.log & 3))
		return vhost_user_fail(dev, -EINVAL,
			       "SET_VRING_ADDR: ring %u: used ring log address 0x%llx is not 4-byte aligned",
			       a.index, (unsigned long long)a.log);
	if (!vr->num)
		return vhost_user_fail(dev, -EINVAL,
			       "SET_VRING_ADDR: ring %u: sent before SET_VRING_NUM", a.index);
	if (!dev->nregions)
		return vhost_user_fail(dev, -EINVAL,
			       "SET_VRING_ADDR: ring %u: sent before SET_MEM_TABLE", a.index);
	vhost_user_stop_qp(dev, a.index / 2);
	vr->addr = a;
	vr->addr_set = true;
	vr->log = a.flags & VUM_VRING_F_LOG;
	ret = vhost_user_vring_translate(dev, a.index);
	if (ret < 0) {
		vr->addr_set = false;
		return ret;
	}
	return 0;
}

/**
 * vhost_user_set_vring_enable() - SET_VRING_ENABLE: a ring may run or not
 * @dev: the connection
 * @msg: the message (ring index checked)
 *
 * Return: 0, or -EINVAL for a value other than 0 and 1.
 */
static int vhost_user_set_vring_enable(struct vhost_user_dev *dev, struct vhost_user_msg *msg)
{
	const struct vhost_user_msg_vring_state st = msg->payload.state;

	if (st.num > 1)
		return vhost_user_fail(dev, -EINVAL,
			       "SET_VRING_ENABLE: ring %u: value %u (0 or 1)", st.index, st.num);
	dev->vrings[st.index].enabled = st.num;
	return 0;
}

/* Where a request names its ring (checked against the rings offered). */
enum vhost_user_ring_arg {
	VU_RING_NONE = 0,	/* names no ring */
	VU_RING_STATE,		/* payload.state.index (= payload.addr.index) */
	VU_RING_U64,		/* bits 0-7 of payload.u64 (SET_VRING_KICK/CALL/ERR) */
};

/* How a request's payload size and fd count are found. */
enum vhost_user_shape {
	VU_SHAPE_FIXED = 0,	/* exactly .size bytes and .fds fds */
	VU_SHAPE_OPT_U64,	/* .size bytes or a u64 (SET_LOG_FD), .fds fds */
	VU_SHAPE_MEM_TABLE,	/* at least .size bytes: a region and an fd per nregions */
	VU_SHAPE_RING_FD,	/* a u64 of a ring index and VUM_VRING_NOFD; an fd
				 * unless NOFD is set; other bits reserved */
};

/**
 * struct vhost_user_request - what the back-end serves of one request
 * @handle: carries it out, once the checks below passed; returns 0 or a
 *	negative errno with @dev->err set
 * @size: payload bytes it takes (see @shape)
 * @fds: file descriptors it takes (see @shape)
 * @shape: how @size and @fds apply
 * @ring: where it names a ring, if it does
 * @reply: answered with its own reply (a GET, SET_LOG_BASE): never a
 *	REPLY_ACK
 * @protocol: protocol feature bits that must have been negotiated, 0 for none
 * @protocol_missing: the refusal when they were not ("PROTOCOL_F_RARP was
 *	not negotiated"), after the request's name
 */
struct vhost_user_request {
	int (*handle)(struct vhost_user_dev *dev, struct vhost_user_msg *msg);
	uint32_t size;
	uint8_t fds;
	uint8_t shape;
	uint8_t ring;
	bool reply;
	uint64_t protocol;
	const char *protocol_missing;
};

/* The requests served; every other number is refused with -EOPNOTSUPP. */
static const struct vhost_user_request vhost_user_requests[VUM_REQUEST_MAX] = {
	[VUM_GET_FEATURES] = {
		.handle = vhost_user_get_features, .reply = true,
	},
	[VUM_SET_FEATURES] = {
		.handle = vhost_user_set_features, .size = VUM_SIZE_U64,
	},
	[VUM_SET_OWNER] = {
		.handle = vhost_user_set_owner,
	},
	[VUM_RESET_OWNER] = {
		.handle = vhost_user_reset_owner,
	},
	[VUM_SET_MEM_TABLE] = {
		.handle = vhost_user_set_mem_table, .size = VUM_SIZE_MEM(0),
		.shape = VU_SHAPE_MEM_TABLE,
	},
	[VUM_SET_LOG_BASE] = {
		.handle = vhost_user_set_log_base, .size = VUM_SIZE_LOG, .fds = 1,
		.reply = true, .protocol = 1ULL << VUM_PROTOCOL_F_LOG_SHMFD,
		.protocol_missing = "LOG_SHMFD was not negotiated (no log the back-end can map)",
	},
	[VUM_SET_LOG_FD] = {
		/* no payload in the specification; a u64 is tolerated */
		.handle = vhost_user_set_log_fd, .fds = 1, .shape = VU_SHAPE_OPT_U64,
	},
	[VUM_SET_VRING_NUM] = {
		.handle = vhost_user_set_vring_num, .size = VUM_SIZE_STATE, .ring = VU_RING_STATE,
	},
	[VUM_SET_VRING_ADDR] = {
		.handle = vhost_user_set_vring_addr, .size = VUM_SIZE_ADDR, .ring = VU_RING_STATE,
	},
	[VUM_SET_VRING_BASE] = {
		.handle = vhost_user_set_vring_base, .size = VUM_SIZE_STATE, .ring = VU_RING_STATE,
	},
	[VUM_GET_VRING_BASE] = {
		.handle = vhost_user_get_vring_base, .size = VUM_SIZE_STATE, .ring = VU_RING_STATE,
		.reply = true,
	},
	[VUM_SET_VRING_KICK] = {
		.handle = vhost_user_set_ring_fd, .size = VUM_SIZE_U64, .fds = 1,
		.shape = VU_SHAPE_RING_FD, .ring = VU_RING_U64,
	},
	[VUM_SET_VRING_CALL] = {
		.handle = vhost_user_set_ring_fd, .size = VUM_SIZE_U64, .fds = 1,
		.shape = VU_SHAPE_RING_FD, .ring = VU_RING_U64,
	},
	[VUM_SET_VRING_ERR] = {
		.handle = vhost_user_set_ring_fd, .size = VUM_SIZE_U64, .fds = 1,
		.shape = VU_SHAPE_RING_FD, .ring = VU_RING_U64,
	},
	[VUM_GET_PROTOCOL_FEATURES] = {
		.handle = vhost_user_get_protocol_features, .reply = true,
	},
	[VUM_SET_PROTOCOL_FEATURES] = {
		.handle = vhost_user_set_protocol_features, .size = VUM_SIZE_U64,
	},
	[VUM_GET_QUEUE_NUM] = {
		.handle = vhost_user_get_queue_num, .reply = true,
	},
	[VUM_SET_VRING_ENABLE] = {
		.handle = vhost_user_set_vring_enable, .size = VUM_SIZE_STATE, .ring = VU_RING_STATE,
	},
	[VUM_SEND_RARP] = {
		.handle = vhost_user_send_rarp, .size = VUM_SIZE_U64,
		.protocol = 1ULL << VUM_PROTOCOL_F_RARP,
		.protocol_missing = "PROTOCOL_F_RARP was not negotiated",
	},
	[VUM_NET_SET_MTU] = {
		.handle = vhost_user_net_set_mtu, .size = VUM_SIZE_U64,
		.protocol = 1ULL << VUM_PROTOCOL_F_NET_MTU,
		.protocol_missing = "PROTOCOL_F_NET_MTU was not negotiated",
	},
	[VUM_GET_MAX_MEM_SLOTS] = {
		.handle = vhost_user_get_max_mem_slots, .reply = true,
	},
};

/**
 * vhost_user_request() - the table entry of a request
 * @request: the request number from a header
 *
 * Return: the entry, or NULL for a request that is not served.
 */
static const struct vhost_user_request *vhost_user_request(uint32_t request)
{
	if (request >= VUM_REQUEST_MAX || !vhost_user_requests[request].handle)
		return NULL;
	return &vhost_user_requests[request];
}

/**
 * vhost_user_check_shape() - a message's payload size and fd count against its request's
 * @dev: the connection
 * @req: the request's entry
 * @msg: the message
 *
 * Checked in this order: SET_MEM_TABLE's region count, the payload size,
 * SET_VRING_KICK/CALL/ERR's reserved bits, the fd count.
 *
 * Return: 0, -EBADMSG for a payload of the wrong size or shape, -EBADF for
 * a wrong fd count (with @dev->err set).
 */
static int vhost_user_check_shape(struct vhost_user_dev *dev, const struct vhost_user_request *req,
				  const struct vhost_user_msg *msg)
{
	const char *name = vhost_user_msg_request_name(msg->hdr.request);
	uint32_t size = req->size;
	unsigned int fds = req->fds;
	int ret;

	if (req->shape == VU_SHAPE_MEM_TABLE && msg->hdr.size >= VUM_SIZE_MEM(0)) {
		fds = msg->payload.mem.nregions;
		if (fds == 0 || fds > VUM_MAX_REGIONS)
			return vhost_user_fail(dev, -EBADMSG, "%s: %u regions (1..%u allowed)",
					       name, fds, VUM_MAX_REGIONS);
		size = VUM_SIZE_MEM(fds);
	}
	if (req->shape == VU_SHAPE_OPT_U64 && msg->hdr.size == VUM_SIZE_U64)
		size = VUM_SIZE_U64;
	ret = vhost_user_msg_check_size(msg, size, dev->err, sizeof(dev->err));
	if (ret < 0)
		return ret;
	if (req->shape == VU_SHAPE_RING_FD) {
		if (msg->payload.u64 & ~(uint64_t)(VUM_VRING_IDX_MASK | VUM_VRING_NOFD))
			return vhost_user_fail(dev, -EBADMSG, "%s: reserved bits set in 0x%llx", name,
					       (unsigned long long)msg->payload.u64);
		if (msg->payload.u64 & VUM_VRING_NOFD)
			fds = 0;
	}
	return vhost_user_msg_check_fds(msg, fds, dev->err, sizeof(dev->err));
}

/**
 * vhost_user_do() - check one complete message against its request and carry it out
 * @dev: the connection
 * @req: the request's entry
 * @msg: the message
 *
 * The checks every request shares, in this order: its shape
 * (vhost_user_check_shape()), the ring it names, the protocol feature it
 * needs; then its handler.
 *
 * Return: 0 or a negative errno (with @dev->err set).
 */
static int vhost_user_do(struct vhost_user_dev *dev, const struct vhost_user_request *req,
			 struct vhost_user_msg *msg)
{
	const char *name = vhost_user_msg_request_name(msg->hdr.request);
	uint32_t ring;
	int ret;

	ret = vhost_user_check_shape(dev, req, msg);
	if (ret < 0)
		return ret;
	if (req->ring != VU_RING_NONE) {
		ring = req->ring == VU_RING_U64 ? msg->payload.u64 & VUM_VRING_IDX_MASK :
						  msg->payload.state.index;
		if (ring >= 2 * dev->queue_pairs)
			return vhost_user_fail(dev, -ERANGE, "%s: ring %u does not exist (%u rings)",
					       name, ring, 2 * dev->queue_pairs);
	}
	if ((dev->protocol_features & req->protocol) != req->protocol)
		return vhost_user_fail(dev, -EINVAL, "%s: %s", name, req->protocol_missing);
	return req->handle(dev, msg);
}

/**
 * vhost_user_dev_process() - validate and carry out one complete message
 * @dev: the connection
 * @msg: the message; fds it still owns afterwards are the caller's to close
 *
 * Sends the request's reply, or with REPLY_ACK negotiated and NEED_REPLY
 * set, the acknowledgement (0 for success, 1 for failure).
 *
 * Return: 0, or a negative errno with @dev->err saying why; the caller
 * must then close the connection.
 */
int vhost_user_dev_process(struct vhost_user_dev *dev, struct vhost_user_msg *msg)
{
	const struct vhost_user_request *req = vhost_user_request(msg->hdr.request);
	bool ack = (dev->protocol_features & (1ULL << VUM_PROTOCOL_F_REPLY_ACK)) &&
		   (msg->hdr.flags & VUM_FLAG_NEED_REPLY) && !(req && req->reply);
	int ret;

	dev->err[0] = '\0';
	dev->messages++;
	if (req)
		ret = vhost_user_do(dev, req, msg);
	else
		ret = vhost_user_fail(dev, -EOPNOTSUPP, "unsupported request %s (%u)",
				      vhost_user_msg_request_name(msg->hdr.request), msg->hdr.request);
	if (ret == 0)
		ret = vhost_user_sync(dev);
	if (ack) {
		uint64_t status = ret < 0 ? 1 : 0;
		char err2[VHOST_USER_ERR_MAX];
		int r2;

		r2 = vhost_user_msg_send(dev->fd, msg->hdr.request, &status, sizeof(status),
			      err2, sizeof(err2));
		if (r2 < 0 && ret == 0) {
			memcpy(dev->err, err2, sizeof(dev->err));
			ret = r2;
		}
	}
	return ret;
}

/**
 * vhost_user_dev_handle() - read and answer the messages waiting on the connection
 * @dev: the connection
 *
 * Call when the socket is readable (level-triggered: at most
 * VHOST_USER_MAX_MSGS_PER_CALL messages are handled per call).
 *
 * Return: 0 when every complete message was handled, -ENOTCONN when the
 * front-end closed the connection cleanly, another negative errno for a
 * protocol error (@dev->err says which); on any error the caller closes the
 * connection and calls vhost_user_dev_reset().
 */
int vhost_user_dev_handle(struct vhost_user_dev *dev)
{
	unsigned int n;
	int ret;

	for (n = 0; n < VHOST_USER_MAX_MSGS_PER_CALL; n++) {
		ret = vhost_user_msg_recv(dev->fd, &dev->rx, dev->err, sizeof(dev->err));
		if (ret == 0)
			return 0;
		if (ret < 0)
			return ret;
		ret = vhost_user_dev_process(dev, &dev->rx.msg);
		vhost_user_msg_rx_reset(&dev->rx);
		if (ret < 0)
			return ret;
		if (dev->ops && dev->ops->changed)
			dev->ops->changed(dev);
	}
	return 0;
}

/**
 * vhost_user_dev_vnet_hdr_len() - size of the virtio-net header in the rings
 * @dev: the connection (after SET_FEATURES)
 *
 * Return: 12 with VERSION_1 or MRG_RXBUF, else 10.
 */
unsigned int vhost_user_dev_vnet_hdr_len(const struct vhost_user_dev *dev)
{
	if (dev->features & ((1ULL << VU_F_VERSION_1) | (1ULL << VU_NET_F_MRG_RXBUF)))
		return 12;
	return 10;
}

/**
 * vhost_user_dev_queue_config() - describe a ready queue pair for engine_ops.open()
 * @dev: the connection
 * @qp: queue pair (ready)
 * @cfg: filled in; @cfg->tap_fd is set to -1 for the caller to fill
 */
void vhost_user_dev_queue_config(struct vhost_user_dev *dev, unsigned int qp,
			 struct engine_queue_config *cfg)
{
	const struct vhost_user_vring *rx = &dev->vrings[2 * qp];
	const struct vhost_user_vring *tx = &dev->vrings[2 * qp + 1];

	memset(cfg, 0, sizeof(*cfg));
	cfg->tap_fd = -1;
	cfg->vnet_hdr_len = vhost_user_dev_vnet_hdr_len(dev);
	cfg->mrg_rxbuf = dev->features & (1ULL << VU_NET_F_MRG_RXBUF);
	cfg->ring_features = dev->features &
		((1ULL << VU_RING_F_EVENT_IDX) | (1ULL << VU_RING_F_INDIRECT_DESC));
	cfg->regions = dev->eng_regions;
	cfg->nregions = dev->nregions;
	cfg->tx.num = tx->num;
	cfg->tx.desc = tx->desc;
	cfg->tx.avail = tx->avail;
	cfg->tx.used = tx->used;
	cfg->tx.last_avail = tx->last_avail;
	cfg->rx.num = rx->num;
	cfg->rx.desc = rx->desc;
	cfg->rx.avail = rx->avail;
	cfg->rx.used = rx->used;
	cfg->rx.last_avail = rx->last_avail;
	cfg->tx.desc_gpa = vhost_user_user_to_guest(dev, tx->addr.desc);
	cfg->tx.avail_gpa = vhost_user_user_to_guest(dev, tx->addr.avail);
	cfg->tx.used_gpa = vhost_user_user_to_guest(dev, tx->addr.used);
	cfg->rx.desc_gpa = vhost_user_user_to_guest(dev, rx->addr.desc);
	cfg->rx.avail_gpa = vhost_user_user_to_guest(dev, rx->addr.avail);
	cfg->rx.used_gpa = vhost_user_user_to_guest(dev, rx->addr.used);
	cfg->tx_call_fd = tx->call_fd;
	cfg->rx_call_fd = rx->call_fd;
	if (vhost_user_dev_logging(dev)) {
		cfg->log = &dev->log;
		cfg->tx.log_used = tx->log;
		cfg->tx.used_gpa = tx->addr.log;
		cfg->rx.log_used = rx->log;
		cfg->rx.used_gpa = rx->addr.log;
	}
}

/**
 * vhost_user_dev_set_last_avail() - store where the device stopped reading a ring
 * @dev: the connection
 * @vring: ring index
 * @last_avail: the engine's avail position
 */
void vhost_user_dev_set_last_avail(struct vhost_user_dev *dev, unsigned int vring, uint16_t last_avail)
{
	if (vring < VHOST_USER_MAX_VRINGS)
		dev->vrings[vring].last_avail = last_avail;
}

/**
 * vhost_user_dev_pause() - stop every running queue pair (a hand-over)
 * @dev: the connection
 *
 * The owner stores each engine's avail positions (queue_state false);
 * vhost_user_dev_resume() starts them again from there.
 */
void vhost_user_dev_pause(struct vhost_user_dev *dev)
{
	vhost_user_stop_all(dev);
}

/**
 * vhost_user_dev_save() - describe a paused connection for a successor
 * @dev: the connection (vhost_user_dev_pause()d: last_avail is current)
 * @v: filled; its fd fields are @dev's fds (not duplicated)
 *
 * Return: 0, or -EBUSY with @dev->err saying why this connection cannot
 * be handed over now: a message half received (its rest would reach the
 * successor out of context) or dirty logging on (a migration runs).
 */
int vhost_user_dev_save(struct vhost_user_dev *dev, struct hovs_vhost_user *v)
{
	unsigned int i;

	if (dev->rx.got)
		return vhost_user_fail(dev, -EBUSY, "a message is half received (%zu bytes)",
				       dev->rx.got);
	if (vhost_user_dev_logging(dev) || dirty_log_mapped(&dev->log) || dev->log_fd >= 0)
		return vhost_user_fail(dev, -EBUSY, "a migration runs (dirty log)");
	memset(v, 0, sizeof(*v));
	v->sock = dev->fd;
	v->flags = (dev->features_set ? HOVS_VU_FEATURES_SET : 0) | (dev->owner ? HOVS_VU_OWNER : 0);
	v->features = dev->features;
	v->protocol_features = dev->protocol_features;
	v->mtu = dev->mtu;
	v->nregions = dev->nregions;
	for (i = 0; i < dev->nregions; i++) {
		const struct vhost_user_region *r = &dev->regions[i];

		v->regions[i].guest_addr = r->guest_addr;
		v->regions[i].size = r->size;
		v->regions[i].user_addr = r->user_addr;
		v->regions[i].mmap_offset = r->mmap_offset;
		v->regions[i].fd = r->fd;
	}
	v->nvrings = 2 * dev->queue_pairs;
	for (i = 0; i < v->nvrings; i++) {
		const struct vhost_user_vring *vr = &dev->vrings[i];
		struct hovs_vring *h = &v->vrings[i];

		h->num = vr->num;
		h->flags = (vr->addr_set ? HOVS_VRING_ADDR_SET : 0) |
			   (vr->kick_set ? HOVS_VRING_KICK_SET : 0) |
			   (vr->started ? HOVS_VRING_STARTED : 0) |
			   (vr->enabled ? HOVS_VRING_ENABLED : 0);
		h->addr = vr->addr;
		h->last_avail = vr->last_avail;
		h->kick = vr->kick_fd;
		h->call = vr->call_fd;
		h->err = vr->err_fd;
	}
	return 0;
}

/**
 * vhost_user_replay() - carry out one message the predecessor's state implies
 * @dev: the connection
 * @request: VUM_*
 * @payload: its payload
 * @size: its bytes
 * @fds: fds it carries (taken over: closed on error)
 * @nfds: their count
 *
 * The same checks as a front-end's message; no reply is sent (no
 * NEED_REPLY, no GET).
 *
 * Return: 0 or a negative errno (@dev->err).
 */
static int vhost_user_replay(struct vhost_user_dev *dev, uint32_t request, const void *payload,
			     uint32_t size, const int *fds, unsigned int nfds)
{
	struct vhost_user_msg *msg = calloc(1, sizeof(*msg));
	int ret;

	if (!msg) {
		for (; nfds; nfds--)
			close(fds[nfds - 1]);
		return vhost_user_fail(dev, -ENOMEM, "%s", strerror(ENOMEM));
	}
	msg->hdr.request = request;
	msg->hdr.flags = 1;
	msg->hdr.size = size;
	if (size)
		memcpy(&msg->payload, payload, size);
	if (nfds)
		memcpy(msg->fds, fds, nfds * sizeof(int));
	msg->nfds = nfds;
	ret = vhost_user_dev_process(dev, msg);
	vhost_user_msg_close_fds(msg);
	free(msg);
	if (ret < 0 && !strstr(dev->err, "hand-over")) {
		char why[VHOST_USER_ERR_MAX];

		snprintf(why, sizeof(why), "%s", dev->err);
		snprintf(dev->err, sizeof(dev->err), "hand-over: %.*s",
			 (int)sizeof(dev->err) - 12, why);
	}
	return ret;
}

/**
 * vhost_user_replay_ring_fd() - SET_VRING_KICK/CALL/ERR for a restored ring
 * @dev: the connection
 * @request: which
 * @ring: ring index
 * @fd: the fd, -1 for the no-fd bit
 *
 * Return: 0 or a negative errno.
 */
static int vhost_user_replay_ring_fd(struct vhost_user_dev *dev, uint32_t request,
				     unsigned int ring, int fd)
{
	uint64_t u = ring | (fd < 0 ? VUM_VRING_NOFD : 0);

	return vhost_user_replay(dev, request, &u, sizeof(u), &fd, fd >= 0);
}

/**
 * vhost_user_used_idx() - a ring's used index, as the front-end sees it
 * @dev: the connection
 * @idx: ring index (its addresses set: SET_VRING_ADDR replayed)
 * @used: out: used->idx
 *
 * A mapped ring is read under a guard scope: a front-end that shrank its
 * memory meanwhile faults here, not the daemon.  A ring whose region is
 * not mapped (rings of memory, vhost_user_dev_map_lazily()) is read from
 * the region's file with pread(): nothing is mapped for it.
 *
 * Return: 0, or -EFAULT (@dev->err).
 */
static int vhost_user_used_idx(struct vhost_user_dev *dev, unsigned int idx, uint16_t *used)
{
	const volatile uint16_t *p = dev->vrings[idx].used;
	const struct vhost_user_region *r;
	struct guard_scope gs;
	uint64_t off = 0;
	uint16_t v;

	if (!p) {
		/* struct vring_used: flags, idx, ring[] */
		r = vhost_user_find_user(dev, dev->vrings[idx].addr.used + 2, sizeof(v), &off);
		if (!r || pread(r->fd, &v, sizeof(v), (off_t)(r->mmap_offset + off)) != sizeof(v))
			return vhost_user_fail(dev, -EFAULT,
					       "hand-over: ring %u: its used index cannot be read from the memory file",
					       idx);
		*used = v;
		return 0;
	}
	guard_enter(&gs, dev);
	if (sigsetjmp(gs.jb, 0))
		return vhost_user_fail(dev, -EFAULT, "hand-over: ring %u: its used ring faulted",
				       idx);
	*used = p[1];	/* struct vring_used: flags, idx, ring[] */
	guard_leave(&gs);
	return 0;
}

/**
 * vhost_user_dev_resume() - start every queue pair that is ready again
 * @dev: the connection (vhost_user_dev_pause()d; the hand-over failed)
 *
 * Each ring starts at its used index, not where the pause stored it: at
 * the pause every entry before that position was used, so they are equal
 * unless a successor ran the rings before it failed (it started some
 * pairs, then a later start failed or it was too slow); then the used
 * index is where it stopped (a chain it took but did not complete is done
 * again), and the stored position would send its frames again and write
 * the used ring backwards.
 *
 * Return: 0, or the error of a queue pair that could not start (@dev->err).
 */
int vhost_user_dev_resume(struct vhost_user_dev *dev)
{
	unsigned int i;
	uint16_t used;
	int ret;

	for (i = 0; i < VHOST_USER_MAX_VRINGS; i++) {
		if (!dev->vrings[i].addr_set || !dev->vrings[i].num)
			continue;
		ret = vhost_user_used_idx(dev, i, &used);
		if (ret < 0)
			return ret;
		dev->vrings[i].last_avail = used;
	}
	return vhost_user_sync(dev);
}

/**
 * vhost_user_dev_restore() - rebuild a connection from a predecessor's record
 * @dev: a fresh connection (vhost_user_dev_init())
 * @v: the record (parsed: its fds are ours; every one but the kick fds is
 *	taken, also on error)
 *
 * Replays what the front-end had said, as messages through the checks of
 * vhost_user_dev_process(): features, protocol features, owner, MTU,
 * memory table, then per ring its size, addresses, base (where the
 * predecessor's engine stopped), enable, call and err fds.  The kicks
 * (the rings' start) are vhost_user_dev_restore_kicks()'s: no ring runs
 * yet, and the record's kick fds are left to it.
 *
 * A record with HOVS_VU_FROM_RINGS (the state a running daemon kept for a
 * crash, livestore.c) has no exact positions: each ring with addresses
 * starts at its used index instead (last_avail = used->idx): a chain the
 * dead instance took but did not complete is done again.
 *
 * Return: 0 or a negative errno (@dev->err).
 */
int vhost_user_dev_restore(struct vhost_user_dev *dev, const struct hovs_vhost_user *v)
{
	struct vhost_user_msg_mem mem;
	unsigned int i, n = v->nvrings < 2 * dev->queue_pairs ? v->nvrings : 2 * dev->queue_pairs;
	int fds[VUM_MAX_REGIONS], ret = 0;
	uint64_t u;

	for (i = n; i < v->nvrings; i++) {	/* rings this port no longer has */
		handover_state_vring_close(&v->vrings[i]);
		if (v->vrings[i].num)
			ret = vhost_user_fail(dev, -ERANGE, "hand-over: ring %u: the port has %u rings now",
					      i, 2 * dev->queue_pairs);
	}
	memset(&mem, 0, sizeof(mem));
	mem.nregions = v->nregions;
	for (i = 0; i < v->nregions; i++) {
		mem.regions[i].guest_addr = v->regions[i].guest_addr;
		mem.regions[i].size = v->regions[i].size;
		mem.regions[i].user_addr = v->regions[i].user_addr;
		mem.regions[i].mmap_offset = v->regions[i].mmap_offset;
		fds[i] = v->regions[i].fd;
	}
	if (ret == 0 && (v->flags & HOVS_VU_FEATURES_SET)) {
		u = v->features;
		ret = vhost_user_replay(dev, VUM_SET_FEATURES, &u, sizeof(u), NULL, 0);
	}
	if (ret == 0 && v->protocol_features) {
		u = v->protocol_features;
		ret = vhost_user_replay(dev, VUM_SET_PROTOCOL_FEATURES, &u, sizeof(u), NULL, 0);
	}
	if (ret == 0 && (v->flags & HOVS_VU_OWNER))
		ret = vhost_user_replay(dev, VUM_SET_OWNER, NULL, 0, NULL, 0);
	if (ret == 0 && v->mtu) {
		u = v->mtu;
		ret = vhost_user_replay(dev, VUM_NET_SET_MTU, &u, sizeof(u), NULL, 0);
	}
	if (v->nregions) {
		if (ret == 0)
			ret = vhost_user_replay(dev, VUM_SET_MEM_TABLE, &mem, VUM_SIZE_MEM(v->nregions),
						fds, v->nregions);
		else
			for (i = 0; i < v->nregions; i++)
				close(fds[i]);
	}
	for (i = 0; i < n; i++) {
		const struct hovs_vring *h = &v->vrings[i];
		struct vhost_user_msg_vring_state st = { .index = i };
		struct vhost_user_msg_vring_addr a = h->addr;

		if (ret == 0 && h->num) {
			st.num = h->num;
			ret = vhost_user_replay(dev, VUM_SET_VRING_NUM, &st, sizeof(st), NULL, 0);
		}
		if (ret == 0 && (h->flags & HOVS_VRING_ADDR_SET)) {
			a.index = i;
			ret = vhost_user_replay(dev, VUM_SET_VRING_ADDR, &a, sizeof(a), NULL, 0);
		}
		if (ret == 0) {
			uint16_t used = (uint16_t)h->last_avail;

			if ((v->flags & HOVS_VU_FROM_RINGS) && dev->vrings[i].addr_set)
				ret = vhost_user_used_idx(dev, i, &used);
			st.num = used;
			if (ret == 0)
				ret = vhost_user_replay(dev, VUM_SET_VRING_BASE, &st, sizeof(st),
							NULL, 0);
		}
		if (ret == 0 && (h->flags & HOVS_VRING_ENABLED)) {
			st.num = 1;
			ret = vhost_user_replay(dev, VUM_SET_VRING_ENABLE, &st, sizeof(st), NULL, 0);
		}
		if (h->call >= 0) {
			if (ret == 0)
				ret = vhost_user_replay_ring_fd(dev, VUM_SET_VRING_CALL, i, h->call);
			else
				close(h->call);
		}
		if (h->err >= 0) {
			if (ret == 0)
				ret = vhost_user_replay_ring_fd(dev, VUM_SET_VRING_ERR, i, h->err);
			else
				close(h->err);
		}
	}
	return ret;
}

/**
 * vhost_user_dev_restore_kicks() - start a restored connection's rings
 * @dev: the connection (vhost_user_dev_restore() done)
 * @v: the same record (its kick fds are taken, also on error)
 *
 * A kick starts its ring; a queue pair runs (queue_state) once both of
 * its rings are started.  Kept apart so that every front-end is rebuilt
 * before any ring is walked: until then the predecessor can take over
 * again from its own positions.
 *
 * Return: 0 or a negative errno (@dev->err).
 */
int vhost_user_dev_restore_kicks(struct vhost_user_dev *dev, const struct hovs_vhost_user *v)
{
	unsigned int i, n = v->nvrings < 2 * dev->queue_pairs ? v->nvrings : 2 * dev->queue_pairs;
	int ret = 0;

	for (i = 0; i < n; i++) {
		const struct hovs_vring *h = &v->vrings[i];

		if (ret == 0 && (h->flags & HOVS_VRING_KICK_SET))
			ret = vhost_user_replay_ring_fd(dev, VUM_SET_VRING_KICK, i, h->kick);
		else if (h->kick >= 0)
			close(h->kick);
	}
	return ret;
}
