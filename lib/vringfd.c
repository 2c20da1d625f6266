// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * vringfd.c - the vring fd calls of libvringfd: thin wrappers over the
 * ioctls of <linux/vringfd.h>.
 *
 * Each call opens the misc device (/dev/vringfd, or $VRINGFD_DEVICE) only
 * when it needs it, closes it after the ioctl, and returns -1 with errno set
 * on failure; errno is the ioctl's (or open's) and is preserved across the
 * cleanup.  Arguments that can be checked here are checked before anything
 * is opened, with the errno the module would give.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "vringfd.h"

/**
 * vringfd_num_valid() - is @num a ring size the module accepts
 * @num: ring size
 *
 * Return: true for a power of two from 1 to VRINGFD_MAX_NUM.
 */
static bool vringfd_num_valid(unsigned int num)
{
	return num >= 1 && num <= VRINGFD_MAX_NUM && (num & (num - 1)) == 0;
}

/**
 * vringfd_open_device() - open the vringfd misc device
 *
 * Opens $VRINGFD_DEVICE when set and non-empty, else VRINGFD_DEVICE, with
 * O_RDWR|O_CLOEXEC.
 *
 * Return: the fd, or -1 with errno from open() (ENOENT: the module is not
 * loaded; EACCES: no permission on the device node).
 */
static int vringfd_open_device(void)
{
	const char *path = getenv("VRINGFD_DEVICE");

	if (!path || !*path)
		path = VRINGFD_DEVICE;
	return open(path, O_RDWR | O_CLOEXEC);
}

/**
 * vringfd_device_ioctl() - one ioctl on a freshly opened misc device
 * @req: ioctl request
 * @arg: its argument
 *
 * Return: the ioctl's result, or -1 with errno of open() or ioctl(),
 * preserved across close().
 */
static int vringfd_device_ioctl(unsigned long req, void *arg)
{
	int dev, ret, saved;

	dev = vringfd_open_device();
	if (dev < 0)
		return -1;
	ret = ioctl(dev, req, arg);
	saved = errno;
	close(dev);
	errno = saved;
	return ret;
}

/**
 * vringfd_create() - create a vring fd over a split ring in caller memory
 * @num: ring size, a power of two from 1 to VRINGFD_MAX_NUM
 * @desc: descriptor table (16-byte aligned)
 * @avail: avail ring (2-byte aligned)
 * @used: used ring (4-byte aligned)
 * @last_used: the caller's count of consumed used entries (2-byte aligned)
 * @features: 1ULL << VIRTIO_RING_F_INDIRECT_DESC / VIRTIO_RING_F_EVENT_IDX
 *
 * Return: the new vring fd (O_CLOEXEC), or -1 with errno: EINVAL (bad
 * @num, checked before the device is opened; misaligned part, unknown
 * feature: from the module), EFAULT, ENOENT (no /dev/vringfd: the module
 * is not loaded), EACCES, ENOMEM, EMFILE.
 */
int vringfd_create(unsigned int num, void *desc, void *avail, void *used,
		   uint16_t *last_used, uint64_t features)
{
	struct vringfd_create c;

	if (!vringfd_num_valid(num)) {
		errno = EINVAL;
		return -1;
	}
	memset(&c, 0, sizeof(c));
	c.num = num;
	c.features = features;
	c.desc_addr = (uintptr_t)desc;
	c.avail_addr = (uintptr_t)avail;
	c.used_addr = (uintptr_t)used;
	c.last_used_addr = (uintptr_t)last_used;
	return vringfd_device_ioctl(VRINGFD_CREATE, &c);
}

/**
 * vringfd_create_ex() - create a vring fd from a full VRINGFD_CREATE request
 * @c: the request (flags such as VRINGFD_CREATE_F_AVAIL_BASE, avail_base)
 *
 * Return: the new vring fd (O_CLOEXEC), or -1 with errno: EFAULT (@c
 * NULL), EINVAL (bad @c->num, checked before the device is opened; the
 * rest from the module), and the errors of vringfd_create().
 */
int vringfd_create_ex(const struct vringfd_create *c)
{
	struct vringfd_create copy;

	if (!c) {
		errno = EFAULT;
		return -1;
	}
	if (!vringfd_num_valid(c->num)) {
		errno = EINVAL;
		return -1;
	}
	copy = *c;
	return vringfd_device_ioctl(VRINGFD_CREATE, &copy);
}

/**
 * vringfd() - the seed's call: a vring fd over a legacy-layout ring
 * @addr: start of a ring laid out by vring_init(&vr, @num, @addr,
 *	getpagesize()) of <linux/virtio_ring.h> (vring_size() bytes)
 * @num: ring size, a power of two from 1 to VRINGFD_MAX_NUM
 * @last_used: the caller's count of consumed used entries
 *
 * Return: the vring fd (no features negotiated), or -1 with errno as for
 * vringfd_create().
 */
int vringfd(void *addr, unsigned int num, uint16_t *last_used)
{
	struct vring vr;

	if (!vringfd_num_valid(num)) {
		errno = EINVAL;
		return -1;
	}
	vring_init(&vr, num, addr, getpagesize());
	return vringfd_create(num, vr.desc, vr.avail, vr.used, last_used, 0);
}

/**
 * vringfd_get_version() - what the loaded module supports
 * @ver: filled in
 *
 * Return: 0, or -1 with errno (ENOENT: module not loaded; EFAULT: @ver
 * NULL).
 */
int vringfd_get_version(struct vringfd_version *ver)
{
	if (!ver) {
		errno = EFAULT;
		return -1;
	}
	return vringfd_device_ioctl(VRINGFD_GET_VERSION, ver);
}

/**
 * vringfd_attach_tap_ex() - attach a ring to a tap queue, all options
 * @ring_fd: vring fd
 * @tap: attachment (see struct vringfd_tap)
 *
 * Return: 0, or -1 with errno from VRINGFD_ATTACH_TAP (EFAULT: @tap NULL).
 */
int vringfd_attach_tap_ex(int ring_fd, const struct vringfd_tap *tap)
{
	if (!tap) {
		errno = EFAULT;
		return -1;
	}
	return ioctl(ring_fd, VRINGFD_ATTACH_TAP, tap);
}

/**
 * vringfd_attach_tap() - attach a ring to a tap queue, plain frames
 * @ring_fd: vring fd
 * @tap_fd: fd of an IFF_TAP device queue (or macvtap/ipvtap)
 * @dir: VRINGFD_DIR_TX or VRINGFD_DIR_RX
 *
 * Attaches with vnet_hdr_len 0 (frames carry no virtio-net header), no
 * flags and no ifindex; use vringfd_attach_tap_ex() for headers, mergeable
 * RX buffers or the tap's drop counter.  The module configures nothing on
 * the tap: it must be IFF_TAP|IFF_NO_PI without IFF_VNET_HDR for the
 * frames to make sense (a tap configured otherwise is accepted and gives
 * garbage frames).
 *
 * Return: 0, or -1 with errno from VRINGFD_ATTACH_TAP.
 */
int vringfd_attach_tap(int ring_fd, int tap_fd, unsigned int dir)
{
	struct vringfd_tap tap;

	memset(&tap, 0, sizeof(tap));
	tap.tap_fd = tap_fd;
	tap.dir = dir;
	return vringfd_attach_tap_ex(ring_fd, &tap);
}

/**
 * vringfd_detach() - detach whatever is attached to a ring
 * @ring_fd: vring fd
 *
 * Return: 0, or -1 with errno (ENOENT: nothing attached).
 */
int vringfd_detach(int ring_fd)
{
	return ioctl(ring_fd, VRINGFD_DETACH);
}

/**
 * vringfd_ioctl_free() - an ioctl with an allocated argument, which is freed
 * @ring_fd: vring fd
 * @req: the request
 * @arg: its argument (malloc()ed; freed here)
 *
 * Return: the ioctl's answer, errno kept across free().
 */
static int vringfd_ioctl_free(int ring_fd, unsigned long req, void *arg)
{
	int ret, saved;

	ret = ioctl(ring_fd, req, arg);
	saved = errno;
	free(arg);
	errno = saved;
	return ret;
}

/**
 * vringfd_set_mem_table() - set how descriptor addresses are translated
 * @ring_fd: vring fd
 * @regions: @nregions guest regions (may be NULL when @nregions is 0)
 * @nregions: 0 (remove the table) to VRINGFD_MAX_MEM_REGIONS
 *
 * Builds the variable-size struct vringfd_mem_table and passes it on.
 *
 * Return: 0, or -1 with errno: EINVAL (@nregions too large, checked here;
 * zero size, overlap, ...: from the module), EFAULT (@regions NULL with
 * @nregions > 0), ENOMEM.
 */
int vringfd_set_mem_table(int ring_fd, const struct vringfd_mem_region *regions,
			  unsigned int nregions)
{
	struct vringfd_mem_table *t;

	if (nregions > VRINGFD_MAX_MEM_REGIONS) {
		errno = EINVAL;
		return -1;
	}
	if (nregions && !regions) {
		errno = EFAULT;
		return -1;
	}
	t = calloc(1, sizeof(*t) + (size_t)nregions * sizeof(t->regions[0]));
	if (!t)
		return -1;
	t->nregions = nregions;
	if (nregions)
		memcpy(t->regions, regions, nregions * sizeof(t->regions[0]));
	return vringfd_ioctl_free(ring_fd, VRINGFD_SET_MEM_TABLE, t);
}

/**
 * vringfd_mem_files_new() - the variable-size struct vringfd_mem_files
 * @files: the ring parts' guest addresses (@files->nregions is ignored)
 * @regions: @nregions regions of memory files
 * @nregions: 1..VRINGFD_MAX_MEM_REGIONS
 *
 * Return: the table (free() it), or NULL with errno (EINVAL, EFAULT,
 * ENOMEM).
 */
static struct vringfd_mem_files *vringfd_mem_files_new(const struct vringfd_mem_files *files,
						       const struct vringfd_mem_file_region *regions,
						       unsigned int nregions)
{
	struct vringfd_mem_files *t;

	if (!nregions || nregions > VRINGFD_MAX_MEM_REGIONS) {
		errno = EINVAL;
		return NULL;
	}
	if (!files || !regions) {
		errno = EFAULT;
		return NULL;
	}
	t = calloc(1, sizeof(*t) + (size_t)nregions * sizeof(t->regions[0]));
	if (!t)
		return NULL;
	*t = *files;
	t->nregions = nregions;
	memcpy(t->regions, regions, nregions * sizeof(t->regions[0]));
	return t;
}

/**
 * vringfd_set_mem_files() - make a ring a ring of memory (VRINGFD_SET_MEM_FILES)
 * @ring_fd: vring fd
 * @files: the ring parts' guest addresses (@files->nregions is ignored)
 * @regions: @nregions regions of memory files
 * @nregions: 1..VRINGFD_MAX_MEM_REGIONS
 *
 * Builds the variable-size struct vringfd_mem_files and passes it on.
 *
 * Return: 0, or -1 with errno: EINVAL (@nregions 0 or too large, checked
 * here; the rest from the module), EFAULT (@files or @regions NULL),
 * ENOMEM, and VRINGFD_SET_MEM_FILES's errors.
 */
int vringfd_set_mem_files(int ring_fd, const struct vringfd_mem_files *files,
			  const struct vringfd_mem_file_region *regions, unsigned int nregions)
{
	struct vringfd_mem_files *t = vringfd_mem_files_new(files, regions, nregions);

	return t ? vringfd_ioctl_free(ring_fd, VRINGFD_SET_MEM_FILES, t) : -1;
}

/**
 * vringfd_create_of_memory() - a ring of memory from the start
 * (VRINGFD_CREATE_F_MEM_FILES): no address of this process is used
 * @c: the request (num, features, flags such as VRINGFD_CREATE_F_AVAIL_BASE
 *	with avail_base; its addresses 0, its mem_files ignored)
 * @files: the ring parts' guest addresses (@files->nregions is ignored)
 * @regions: @nregions regions of memory files
 * @nregions: 1..VRINGFD_MAX_MEM_REGIONS
 *
 * Return: the new vring fd (O_CLOEXEC), or -1 with errno: EINVAL, EFAULT
 * (checked here), ENOMEM, and the errors of VRINGFD_CREATE and
 * VRINGFD_SET_MEM_FILES (an older module: EINVAL).
 */
int vringfd_create_of_memory(const struct vringfd_create *c, const struct vringfd_mem_files *files,
			     const struct vringfd_mem_file_region *regions, unsigned int nregions)
{
	struct vringfd_mem_files *t;
	struct vringfd_create copy;
	int fd, saved;

	if (!c) {
		errno = EFAULT;
		return -1;
	}
	t = vringfd_mem_files_new(files, regions, nregions);
	if (!t)
		return -1;
	copy = *c;
	copy.flags |= VRINGFD_CREATE_F_MEM_FILES;
	copy.mem_files = (uint64_t)(uintptr_t)t;
	fd = vringfd_create_ex(&copy);
	saved = errno;
	free(t);
	errno = saved;
	return fd;
}

/**
 * vringfd_set_call_fd() - set the eventfd the kernel signals on used entries
 * @ring_fd: vring fd
 * @eventfd: an eventfd, or -1 to remove it
 *
 * Return: 0, or -1 with errno (EBADF, EINVAL: not an eventfd).
 */
int vringfd_set_call_fd(int ring_fd, int eventfd)
{
	int32_t efd = eventfd;

	return ioctl(ring_fd, VRINGFD_SET_CALL_FD, &efd);
}

/**
 * vringfd_get_stats() - the ring's counters
 * @ring_fd: vring fd
 * @stats: filled in
 *
 * Return: 0, or -1 with errno (EFAULT: @stats NULL).
 */
int vringfd_get_stats(int ring_fd, struct vringfd_stats *stats)
{
	if (!stats) {
		errno = EFAULT;
		return -1;
	}
	return ioctl(ring_fd, VRINGFD_GET_STATS, stats);
}

/**
 * vringfd_get_state() - the kernel's private view of the ring
 * @ring_fd: vring fd
 * @state: filled in (reading clears VRINGFD_STATE_NOTIFY)
 *
 * Return: 0, or -1 with errno (EFAULT: @state NULL).
 */
int vringfd_get_state(int ring_fd, struct vringfd_state *state)
{
	if (!state) {
		errno = EFAULT;
		return -1;
	}
	return ioctl(ring_fd, VRINGFD_GET_STATE, state);
}
