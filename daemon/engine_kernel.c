// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * engine_kernel.c - the kernel engine: vringfd.ko walks the rings
 *
 * A thin layer over libvringfd: one vring fd per ring (VRINGFD_CREATE),
 * attached to the tap queue (TX: ring -> tap, RX: tap -> ring), with the
 * memory table and the call eventfds handed to the module.  tx() is one
 * write() on the TX ring fd per batch, rx() one read() on the RX ring fd;
 * the RX ring fd is what the event loop polls.
 *
 * The tap is ours to configure, as for vhost-net: vringfd.ko issues no
 * ioctl on it and takes the rings' header length as our declaration of
 * what the tap uses, so engine_kernel_open() sets the tap's header size
 * (tap_set_vnet_hdr_len(), as the user engine does) before attaching.  The tap's
 * ifindex goes to the module (VRINGFD_CAP_TAP_IFINDEX) for the drop
 * counter of the device itself (tap_rx_dropped).
 *
 * Kick requests are the module's: before write() or read() returns having
 * found a ring empty, it publishes avail_event (EVENT_IDX) and looks at
 * avail->idx once more, so a chain the driver posts later is kicked.  The
 * daemon only has to know whether write() stopped at the module's weight
 * with chains left: it counts the chains write() consumed from the ring's
 * starting position and compares with avail->idx (a load, no system call).
 *
 * With engine_queue_config.mem_files (a vhost-user port's kernel-rings =
 * memory) the rings are made as above, then turned into rings of memory
 * over the front-end's memory files (VRINGFD_SET_MEM_FILES, the rings'
 * guest addresses) instead of given this address space's memory table:
 * the module then reaches the guest's pages itself, not through the
 * daemon's mappings.  Memory the module refuses gets today's rings.
 * When the daemon has not mapped the guest's memory at all (the rings'
 * desc/avail/used are NULL: vhost_user_dev_map_lazily()), the rings are
 * made with VRINGFD_CREATE_F_MEM_FILES (an older module: the pages under
 * the ring parts are mapped only around VRINGFD_CREATE and
 * VRINGFD_SET_MEM_FILES), and a refusal fails the open (the owner maps the
 * memory and opens again); without a mapping of the tx avail ring the
 * daemon-driven write() loop asks once more after a write() that
 * consumed chains, as for passed rings.
 * With engine_queue_config.kick_mode as well, both rings of memory go
 * into kick mode (VRINGFD_SET_KICK with the front-end's kick eventfds):
 * the module serves them from its worker, engine_kernel_kicked() tells the
 * pump to leave them alone, and engine_kernel_close() leaves kick mode
 * before it reads where the rings stopped.
 *
 * Rings a front-end passed (engine_queue_config.ring_fds: rings of memory,
 * VRINGFD_SET_MEM_FILES) are attached as they are: no VRINGFD_CREATE, no
 * memory table, and no mapping of the ring here, so avail->idx cannot be
 * loaded: after a write() that consumed chains, one more write() looks
 * (one system call per batch more; a write() that consumes nothing ends
 * the round).  Such rings stay the front-end's: closing the queue detaches
 * them and removes the call eventfd, whoever else holds them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <endian.h>
#include <linux/virtio_ring.h>

#include "engine.h"
#include "log.h"
#include "tap.h"
#include "vringfd.h"

/**
 * struct engine_queue - a ring pair bound to a tap queue (kernel engine)
 * @tx_fd: vring fd of the tx ring
 * @rx_fd: vring fd of the rx ring
 * @tx_avail: the tx ring's avail ring (read for avail->idx only)
 * @tx_taken: avail entries of the tx ring consumed: its start position plus
 *	the chains every write() reported
 * @tx_last: what the last write() consumed
 * @passed: the rings are the front-end's (engine_queue_config.ring_fds);
 *	@tx_avail is then NULL, as for rings of memory not mapped here
 * @kick: both rings are in kick mode (VRINGFD_SET_KICK)
 */
struct engine_queue {
	int tx_fd;
	int rx_fd;
	bool passed;
	bool kick;
	const struct vring_avail *tx_avail;
	uint16_t tx_taken;
	int tx_last;
};

/**
 * engine_kernel_create() - VRINGFD_CREATE for one ring, starting at its avail base
 * @ring: the ring (@ring->last_avail: where the device starts reading avail)
 * @features: ring features
 * @base_ok: the module understands VRINGFD_CREATE_F_AVAIL_BASE
 * @what: "tx" or "rx", for the log
 *
 * With VRINGFD_CAP_AVAIL_BASE the module starts at @ring->last_avail (chains
 * the driver posted before the queue started are served); an older module
 * starts at avail->idx, which skips them (logged when they differ).
 *
 * The last_used word VRINGFD_CREATE wants is the ring's own used->idx: the
 * module's poll() reports a ring readable while used->idx differs from
 * *last_used, and the consumer of the used ring is the driver (the guest),
 * not the daemon; a private word left at 0 would keep the rx fd readable
 * for good once a frame was delivered (the event loop would spin).
 *
 * Return: the vring fd, or -1 with errno.
 */
static int engine_kernel_create(const struct engine_ring *ring, uint64_t features, bool base_ok, const char *what)
{
	struct vringfd_create c;
	uint16_t idx;

	memset(&c, 0, sizeof(c));
	c.num = ring->num;
	c.features = features;
	c.desc_addr = (uint64_t)(uintptr_t)ring->desc;
	c.avail_addr = (uint64_t)(uintptr_t)ring->avail;
	c.used_addr = (uint64_t)(uintptr_t)ring->used;
	c.last_used_addr = (uint64_t)(uintptr_t)&((struct vring_used *)ring->used)->idx;
	if (base_ok) {
		c.flags = VRINGFD_CREATE_F_AVAIL_BASE;
		c.avail_base = ring->last_avail;
	} else {
		idx = __atomic_load_n(&((struct vring_avail *)ring->avail)->idx,
				      __ATOMIC_ACQUIRE);
		if (idx != ring->last_avail)
			log_warn("kernel engine: %s ring starts at avail %u but this vringfd.ko has no VRINGFD_CAP_AVAIL_BASE: it starts at avail->idx %u",
				 what, ring->last_avail, idx);
	}
	return vringfd_create_ex(&c);
}

/**
 * engine_kernel_set_mem_table() - VRINGFD_SET_MEM_TABLE: the regions as mapped here
 * @fd: the vring fd
 * @cfg: the queue's configuration (its memory table)
 * @what: "tx" or "rx"
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 with @err filled.
 */
static int engine_kernel_set_mem_table(int fd, const struct engine_queue_config *cfg,
			       const char *what, char *err, size_t errlen)
{
	struct vringfd_mem_region *regions;
	unsigned int i;
	int ret = 0;

	regions = calloc(cfg->nregions, sizeof(*regions));
	if (!regions) {
		snprintf(err, errlen, "kernel engine: %s", strerror(ENOMEM));
		return -1;
	}
	for (i = 0; i < cfg->nregions; i++) {
		regions[i].guest_addr = cfg->regions[i].guest_addr;
		regions[i].size = cfg->regions[i].size;
		regions[i].user_addr = (uint64_t)(uintptr_t)cfg->regions[i].uaddr;
	}
	if (vringfd_set_mem_table(fd, regions, cfg->nregions) < 0) {
		log_buf_errno(err, errlen, errno, "kernel engine: %s ring: VRINGFD_SET_MEM_TABLE (%u regions)",
			 what, cfg->nregions);
		ret = -1;
	}
	free(regions);
	return ret;
}

/**
 * engine_kernel_mem_files() - the table of memory files of one ring
 * @cfg: the queue's configuration (@cfg->regions with their fds and offsets)
 * @ring: which ring (its guest addresses)
 * @files: the ring parts' guest addresses (out)
 * @regions: VRINGFD_MAX_MEM_REGIONS entries, @cfg->nregions filled (out)
 *
 * The ring's last_used word is its own used->idx (engine_kernel_create()).
 * Return: 0, or -1 with errno E2BIG (more regions than the module takes).
 */
static int engine_kernel_mem_files(const struct engine_queue_config *cfg,
				   const struct engine_ring *ring, struct vringfd_mem_files *files,
				   struct vringfd_mem_file_region *regions)
{
	unsigned int i;

	if (cfg->nregions > VRINGFD_MAX_MEM_REGIONS) {
		errno = E2BIG;
		return -1;
	}
	memset(files, 0, sizeof(*files));
	files->desc_addr = ring->desc_gpa;
	files->avail_addr = ring->avail_gpa;
	files->used_addr = ring->used_gpa;
	files->last_used_addr = ring->used_gpa + offsetof(struct vring_used, idx);
	memset(regions, 0, VRINGFD_MAX_MEM_REGIONS * sizeof(*regions));
	for (i = 0; i < cfg->nregions; i++) {
		regions[i].guest_addr = cfg->regions[i].guest_addr;
		regions[i].size = cfg->regions[i].size;
		regions[i].offset = cfg->regions[i].offset;
		regions[i].fd = cfg->regions[i].fd;
	}
	return 0;
}

/**
 * engine_kernel_set_mem_files() - VRINGFD_SET_MEM_FILES: a ring of the regions' files
 * @fd: the vring fd (made over the same ring, mapped here)
 * @cfg: the queue's configuration (@cfg->regions with their fds and offsets)
 * @ring: which ring (its guest addresses)
 *
 * Return: 0, or -1 with errno (VRINGFD_SET_MEM_FILES's: EPERM for a
 * memfd without F_SEAL_SHRINK, EOPNOTSUPP for a disk file, ...).
 */
static int engine_kernel_set_mem_files(int fd, const struct engine_queue_config *cfg,
			       const struct engine_ring *ring)
{
	struct vringfd_mem_file_region regions[VRINGFD_MAX_MEM_REGIONS];
	struct vringfd_mem_files files;

	if (engine_kernel_mem_files(cfg, ring, &files, regions) < 0)
		return -1;
	return vringfd_set_mem_files(fd, &files, regions, cfg->nregions);
}

/**
 * engine_kernel_create_of_memory() - VRINGFD_CREATE_F_MEM_FILES: a ring of
 * the regions' files from the start, nothing of it mapped here
 * @cfg: the queue's configuration (@cfg->regions with their fds and offsets)
 * @ring: which ring (its guest addresses; @ring->last_avail: where the
 *	device starts reading avail)
 *
 * Return: the vring fd, or -1 with errno (VRINGFD_CREATE's and
 * VRINGFD_SET_MEM_FILES's).
 */
static int engine_kernel_create_of_memory(const struct engine_queue_config *cfg,
					  const struct engine_ring *ring)
{
	struct vringfd_mem_file_region regions[VRINGFD_MAX_MEM_REGIONS];
	struct vringfd_mem_files files;
	struct vringfd_create c;

	if (engine_kernel_mem_files(cfg, ring, &files, regions) < 0)
		return -1;
	memset(&c, 0, sizeof(c));
	c.num = ring->num;
	c.features = cfg->ring_features;
	c.flags = VRINGFD_CREATE_F_AVAIL_BASE;
	c.avail_base = ring->last_avail;
	return vringfd_create_of_memory(&c, &files, regions, cfg->nregions);
}

/* Whether the fall-back from rings of memory was logged (once per process). */
static bool engine_kernel_fallback_logged;

/**
 * engine_kernel_log_fallback() - log the first refusal of rings of memory
 * @what: "tx" or "rx"
 * @nregions: regions offered
 * @err: VRINGFD_SET_MEM_FILES's errno
 */
static void engine_kernel_log_fallback(const char *what, unsigned int nregions, int err)
{
	if (!__atomic_exchange_n(&engine_kernel_fallback_logged, true, __ATOMIC_RELAXED))
		log_warn_errno(err, "kernel engine: %s ring: VRINGFD_SET_MEM_FILES refused the front-end's memory (%u regions): rings of this process instead (logged once)",
			       what, nregions);
}

/**
 * struct engine_kernel_window - a short mapping of the pages under one ring part
 * @map: what mmap() returned, or NULL
 * @len: its length
 */
struct engine_kernel_window {
	void *map;
	size_t len;
};

/**
 * engine_kernel_window_map() - map the memory file's pages under a ring part
 * @cfg: the queue's configuration (@cfg->regions: fds and offsets)
 * @gpa: guest address of the part
 * @len: its bytes
 * @w: the mapping (out; unmapped with engine_kernel_window_unmap())
 *
 * The window is aligned as the file needs (@r->map_align: a huge page of a
 * hugetlbfs file).
 * Return: where @gpa is mapped here, or NULL with errno (EFAULT: in no
 * region; mmap()'s).
 */
static void *engine_kernel_window_map(const struct engine_queue_config *cfg, uint64_t gpa,
				      uint64_t len, struct engine_kernel_window *w)
{
	uint64_t align = (uint64_t)sysconf(_SC_PAGESIZE), have = len, off, delta;
	const struct engine_mem_region *r = engine_region_find(cfg->regions, cfg->nregions, gpa, &have);
	void *p;

	w->map = NULL;
	if (!r || have < len) {
		errno = EFAULT;
		return NULL;
	}
	if (r->map_align > align)
		align = r->map_align;
	off = r->offset + (gpa - r->guest_addr);
	delta = off & (align - 1);
	w->len = (size_t)((len + delta + align - 1) & ~(align - 1));
	p = mmap(NULL, w->len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, (off_t)(off - delta));
	if (p == MAP_FAILED)
		return NULL;
	w->map = p;
	return (uint8_t *)p + delta;
}

/**
 * engine_kernel_window_unmap() - end a window of engine_kernel_window_map()
 * @w: the window (unmapped or never mapped: nothing)
 */
static void engine_kernel_window_unmap(struct engine_kernel_window *w)
{
	if (w->map)
		munmap(w->map, w->len);
	w->map = NULL;
}

/**
 * engine_kernel_make_unmapped() - a ring of memory over memory not mapped here
 * @cfg: the queue's configuration (@cfg->mem_files; regions without uaddr)
 * @ring: which ring (its guest addresses; desc/avail/used NULL)
 * @what: "tx" or "rx"
 * @caps: the module's VRINGFD_CAP_* bits
 * @err: message buffer
 * @errlen: its size
 *
 * With VRINGFD_CAP_CREATE_MEM_FILES the ring is made a ring of memory by
 * VRINGFD_CREATE itself: nothing of the guest's memory is mapped here.
 * An older module's VRINGFD_CREATE wants the ring's parts readable (the
 * used ring writable) in this process and reads avail->idx and used->idx
 * there (the daemon itself reads nothing of them: VRINGFD_CAP_AVAIL_BASE
 * is required): the pages
 * under the three parts are mapped for that call and until
 * VRINGFD_SET_MEM_FILES has turned the ring into a ring of memory, then
 * unmapped (the module no longer uses the addresses).  Nothing else of
 * the guest's memory is mapped.  When the module refuses the files there
 * is no fall-back here: the owner maps the memory and opens the queue
 * again.
 *
 * Return: the vring fd, or -1 with @err filled.
 */
static int engine_kernel_make_unmapped(const struct engine_queue_config *cfg,
				       const struct engine_ring *ring, const char *what,
				       uint64_t caps, char *err, size_t errlen)
{
	struct engine_kernel_window w[3] = { { NULL, 0 } };
	bool base_ok = caps & VRINGFD_CAP_AVAIL_BASE;
	struct engine_ring r = *ring;
	uint64_t num = ring->num;
	int fd = -1, e;

	if (!cfg->mem_files || !cfg->nregions) {
		snprintf(err, errlen, "kernel engine: %s ring: guest memory is not mapped here", what);
		return -1;
	}
	if (caps & VRINGFD_CAP_CREATE_MEM_FILES) {
		fd = engine_kernel_create_of_memory(cfg, ring);
		if (fd < 0) {
			e = errno;
			/* the memory refused, not the process's limits */
			if (e != EMFILE && e != ENFILE && e != EINTR)
				engine_kernel_log_fallback(what, cfg->nregions, e);
			log_buf_errno(err, errlen, e, "kernel engine: %s ring of %u (avail base %u): VRINGFD_CREATE of memory (guest memory not mapped here)",
				      what, ring->num, ring->last_avail);
		}
		return fd;
	}
	/* without AVAIL_BASE the daemon would read avail->idx itself, and
	 * only a guarded mapping may be read (guard.c); such a module has
	 * no VRINGFD_SET_MEM_FILES anyway */
	if (!base_ok) {
		snprintf(err, errlen, "kernel engine: %s ring: vringfd.ko has no VRINGFD_CAP_AVAIL_BASE: guest memory must be mapped here",
			 what);
		return -1;
	}
	r.desc = engine_kernel_window_map(cfg, ring->desc_gpa, 16 * num, &w[0]);
	r.avail = r.desc ? engine_kernel_window_map(cfg, ring->avail_gpa, 6 + 2 * num, &w[1]) : NULL;
	r.used = r.avail ? engine_kernel_window_map(cfg, ring->used_gpa, 6 + 8 * num, &w[2]) : NULL;
	if (!r.used) {
		log_buf_errno(err, errlen, errno, "kernel engine: %s ring: mapping its parts for VRINGFD_CREATE",
			      what);
		goto out;
	}
	fd = engine_kernel_create(&r, cfg->ring_features, base_ok, what);
	if (fd < 0) {
		log_buf_errno(err, errlen, errno, "kernel engine: %s ring of %u (avail base %u): VRINGFD_CREATE",
			      what, ring->num, ring->last_avail);
		goto out;
	}
	if (engine_kernel_set_mem_files(fd, cfg, ring) < 0) {
		e = errno;
		engine_kernel_log_fallback(what, cfg->nregions, e);
		log_buf_errno(err, errlen, e, "kernel engine: %s ring: VRINGFD_SET_MEM_FILES (guest memory not mapped here)",
			      what);
		close(fd);
		fd = -1;
	}
out:
	engine_kernel_window_unmap(&w[2]);
	engine_kernel_window_unmap(&w[1]);
	engine_kernel_window_unmap(&w[0]);
	return fd;
}

/**
 * engine_kernel_make() - create one vring fd over a ring
 * @cfg: the queue's configuration (its memory table)
 * @ring: which ring
 * @what: "tx" or "rx"
 * @caps: the module's VRINGFD_CAP_* bits
 * @of_memory: set when the ring became a ring of memory (@cfg->mem_files)
 * @err: message buffer
 * @errlen: its size
 *
 * With @cfg->mem_files the ring is made a ring of memory over the regions'
 * files; when the module refuses them (a memfd not sealed against
 * shrinking: EPERM; a disk file or, before hugetlbfs support, a hugetlb
 * memfd: EOPNOTSUPP; an older module: ENOTTY; ...) the ring
 * gets the memory table of this address space instead, as without
 * mem_files, and the first such fall-back of the process is logged.  A
 * ring not mapped here (@ring->desc NULL) can only become a ring of memory
 * (engine_kernel_make_unmapped()).
 * Return: the vring fd, or -1 with @err filled.
 */
static int engine_kernel_make(const struct engine_queue_config *cfg, const struct engine_ring *ring,
		     const char *what, uint64_t caps, bool *of_memory, char *err, size_t errlen)
{
	bool base_ok = caps & VRINGFD_CAP_AVAIL_BASE;
	int fd;

	*of_memory = false;
	if (!ring->desc) {
		fd = engine_kernel_make_unmapped(cfg, ring, what, caps, err, errlen);
		*of_memory = fd >= 0;
		return fd;
	}
	fd = engine_kernel_create(ring, cfg->ring_features, base_ok, what);
	if (fd < 0) {
		log_buf_errno(err, errlen, errno, "kernel engine: %s ring of %u (avail base %u): VRINGFD_CREATE",
			 what, ring->num, ring->last_avail);
		return -1;
	}
	if (!cfg->nregions)
		return fd;
	if (cfg->mem_files) {
		if (engine_kernel_set_mem_files(fd, cfg, ring) == 0) {
			*of_memory = true;
			return fd;
		}
		engine_kernel_log_fallback(what, cfg->nregions, errno);
	}
	if (engine_kernel_set_mem_table(fd, cfg, what, err, errlen) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/**
 * engine_kernel_release() - let go of one vring fd of a queue
 * @fd: the vring fd
 * @passed: it is a front-end's ring: detach it and remove the call
 *	eventfd first (closing this fd does not end a file others hold)
 */
static void engine_kernel_release(int fd, bool passed)
{
	if (passed) {
		vringfd_detach(fd);
		vringfd_set_call_fd(fd, -1);
	}
	close(fd);
}

/**
 * engine_kernel_ring() - create (or take the passed) vring fd and attach it
 * @cfg: the queue's configuration
 * @ring: which ring
 * @dir: VRINGFD_DIR_TX or VRINGFD_DIR_RX (also the index in @cfg->ring_fds)
 * @call_fd: eventfd or -1
 * @caps: the module's VRINGFD_CAP_* bits (VRINGFD_CAP_TAP_IFINDEX: it
 *	understands struct vringfd_tap.ifindex)
 * @of_memory: set when the ring was made a ring of memory here
 * @err: message buffer
 * @errlen: its size
 *
 * A passed ring is dup()ed: the queue owns its own fd of it; on failure
 * the ring is left detached and without a call eventfd.
 * Return: the vring fd, or -1 with @err filled.
 */
static int engine_kernel_ring(const struct engine_queue_config *cfg, const struct engine_ring *ring,
		     unsigned int dir, int call_fd,
		     uint64_t caps, bool *of_memory, char *err, size_t errlen)
{
	bool ifindex_ok = caps & VRINGFD_CAP_TAP_IFINDEX;
	const char *what = dir == VRINGFD_DIR_TX ? "tx" : "rx";
	struct vringfd_tap tap = {
		.tap_fd = cfg->tap_fd,
		.dir = dir,
		.vnet_hdr_len = cfg->vnet_hdr_len,
		.flags = (dir == VRINGFD_DIR_RX && cfg->mrg_rxbuf) ? VRINGFD_TAP_F_MRG_RXBUF : 0,
		.ifindex = ifindex_ok && cfg->tap_ifindex > 0 ? cfg->tap_ifindex : 0,
	};
	int fd;

	*of_memory = false;
	if (cfg->ring_fds) {
		fd = fcntl(cfg->ring_fds[dir], F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			log_buf_errno(err, errlen, errno, "kernel engine: passed %s ring: dup", what);
	} else {
		fd = engine_kernel_make(cfg, ring, what, caps, of_memory, err, errlen);
	}
	if (fd < 0)
		return -1;
	if (call_fd >= 0 && vringfd_set_call_fd(fd, call_fd) < 0) {
		log_buf_errno(err, errlen, errno, "kernel engine: %s ring: VRINGFD_SET_CALL_FD", what);
		goto fail;
	}
	if (vringfd_attach_tap_ex(fd, &tap) < 0) {
		log_buf_errno(err, errlen, errno, "kernel engine: %s ring: VRINGFD_ATTACH_TAP", what);
		goto fail;
	}
	return fd;
fail:
	engine_kernel_release(fd, cfg->ring_fds != NULL);
	return -1;
}

/**
 * engine_kernel_set_kick() - VRINGFD_SET_KICK on one ring
 * @fd: the vring fd
 * @kick_fd: the front-end's kick eventfd, or -1 to leave kick mode
 *
 * Return: 0, or -1 with errno.
 */
static int engine_kernel_set_kick(int fd, int kick_fd)
{
	int32_t efd = kick_fd;

	return ioctl(fd, VRINGFD_SET_KICK, &efd);
}

/**
 * engine_kernel_kick_mode() - put both rings of memory in kick mode
 * @q: the queue (both rings attached, rings of memory)
 * @cfg: its configuration (the kick fds)
 *
 * All or nothing: when a ring refuses (an older module: ENOTTY), the other
 * leaves kick mode again, the refusal is logged and the queue is driven by
 * the daemon as without kick mode.
 */
static void engine_kernel_kick_mode(struct engine_queue *q, const struct engine_queue_config *cfg)
{
	if (engine_kernel_set_kick(q->tx_fd, cfg->tx_kick_fd) < 0) {
		log_warn_errno(errno, "kernel engine: tx ring: VRINGFD_SET_KICK: the daemon drives the queue");
		return;
	}
	if (engine_kernel_set_kick(q->rx_fd, cfg->rx_kick_fd) < 0) {
		log_warn_errno(errno, "kernel engine: rx ring: VRINGFD_SET_KICK: the daemon drives the queue");
		engine_kernel_set_kick(q->tx_fd, -1);
		return;
	}
	q->kick = true;
}

/**
 * engine_kernel_open() - create both vring fds and attach them to the tap queue
 * @cfg: rings, tap, header length, memory table, call fds
 * @err: message buffer
 * @errlen: its size
 *
 * Return: the queue, or NULL with @err filled.
 */
static struct engine_queue *engine_kernel_open(const struct engine_queue_config *cfg,
				   char *err, size_t errlen)
{
	struct vringfd_version ver;
	struct engine_queue *q;
	bool base_ok, tx_mem, rx_mem;

	/* vringfd.ko takes the ring's header straight as the tap's
	 * IFF_VNET_HDR header; vringnetd's taps always have one. */
	if (cfg->vnet_hdr_len != 10 && cfg->vnet_hdr_len != 12) {
		snprintf(err, errlen, "kernel engine: rings need a 10- or 12-byte virtio-net header on an IFF_VNET_HDR tap (got %u)",
			 cfg->vnet_hdr_len);
		return NULL;
	}
	/* vringfd.ko does not mark dirty pages: a migrating guest's queues
	 * run on the user engine (port_vhost_user.c). */
	if (cfg->log) {
		snprintf(err, errlen, "kernel engine: cannot log dirty pages (a migrating guest runs on the user engine)");
		return NULL;
	}
	if (vringfd_get_version(&ver) < 0) {
		log_buf_errno(err, errlen, errno, "kernel engine: VRINGFD_GET_VERSION");
		return NULL;
	}
	base_ok = ver.caps & VRINGFD_CAP_AVAIL_BASE;
	/* the module's declaration must be true: the tap's header size */
	if (tap_set_vnet_hdr_len(cfg->tap_fd, cfg->vnet_hdr_len, "kernel engine", err, errlen) < 0)
		return NULL;
	q = calloc(1, sizeof(*q));
	if (!q) {
		snprintf(err, errlen, "kernel engine: %s", strerror(ENOMEM));
		return NULL;
	}
	q->passed = cfg->ring_fds != NULL;
	if (!q->passed) {
		/* NULL when guest memory is not mapped here (rings of memory) */
		q->tx_avail = cfg->tx.avail;
		q->tx_taken = base_ok || !q->tx_avail ? cfg->tx.last_avail :
			      le16toh(__atomic_load_n(&q->tx_avail->idx, __ATOMIC_ACQUIRE));
	}
	q->tx_fd = engine_kernel_ring(cfg, &cfg->tx, VRINGFD_DIR_TX,
			     cfg->tx_call_fd, ver.caps, &tx_mem, err, errlen);
	if (q->tx_fd < 0)
		goto fail;
	q->rx_fd = engine_kernel_ring(cfg, &cfg->rx, VRINGFD_DIR_RX,
			     cfg->rx_call_fd, ver.caps, &rx_mem, err, errlen);
	if (q->rx_fd < 0) {
		engine_kernel_release(q->tx_fd, q->passed);
		goto fail;
	}
	if (cfg->kick_mode && tx_mem && rx_mem && cfg->tx_kick_fd >= 0 && cfg->rx_kick_fd >= 0)
		engine_kernel_kick_mode(q, cfg);
	if (cfg->mem_files && (tx_mem || rx_mem))
		log_info("kernel engine: rings of memory: tx %s, rx %s (%u memory files)%s",
			 tx_mem ? "yes" : "no", rx_mem ? "yes" : "no", cfg->nregions,
			 q->kick ? ", kick mode: vringfd.ko serves them" : "");
	return q;
fail:
	free(q);
	return NULL;
}

/**
 * engine_kernel_tx_left() - whether the last write() left chains in the tx ring
 * @q: the queue
 *
 * True when the last write() consumed chains and avail->idx is past what
 * all write()s consumed (it stopped at its weight, or the driver posted
 * more after it looked).  A write() that consumed nothing: false.
 * Rings not mapped here (passed, or of memory the daemon did not map):
 * true after any write() that consumed chains.
 * Return: true when chains are left.
 */
static bool engine_kernel_tx_left(const struct engine_queue *q)
{
	uint16_t idx;

	if (q->tx_last <= 0)
		return false;
	if (!q->tx_avail)
		return true;
	idx = le16toh(__atomic_load_n(&q->tx_avail->idx, __ATOMIC_ACQUIRE));
	return idx != q->tx_taken;
}

/**
 * engine_kernel_tx() - one write() on the tx ring fd
 * @q: the queue
 * @budget: charged a frame per chain consumed; spent when the write()
 *	stopped with chains left (vringfd.ko stops at the same weights as
 *	a service's budget, ENGINE_WEIGHT_*, and does not say how many bytes
 *	it sent); for rings not mapped here only charged (chains left are
 *	not known: the next write() of the same service finds them)
 *
 * Return: chains consumed, or -errno.
 */
static int engine_kernel_tx(struct engine_queue *q, struct engine_budget *budget)
{
	char dummy = 0;
	ssize_t n;

	n = write(q->tx_fd, &dummy, 1);
	if (n < 0)
		return q->tx_last = -errno;
	q->tx_taken += (uint16_t)n;
	q->tx_last = (int)n;
	budget->frames = (unsigned int)n < budget->frames ? budget->frames - (unsigned int)n : 0;
	/* passed rings: not known to be left, enable_notify() asks again */
	if (q->tx_avail && engine_kernel_tx_left(q))
		budget->frames = 0;
	return q->tx_last;
}

/**
 * engine_kernel_enable_notify() - whether write() stopped with chains left
 * @q: the queue
 * @dir: which ring
 *
 * The module asks for kicks itself (see the top of this file).  TX: true
 * when the last write() consumed chains and avail->idx is past what all
 * write()s consumed (it stopped at its weight, or the driver posted more
 * after it looked: one more write() is then harmless).  A write() that
 * consumed nothing ends the round: nothing can make this spin.  RX: false
 * (the rx fd is polled level-triggered; the module's poll() pulls).
 * Return: true when tx() should be called again.
 */
static bool engine_kernel_enable_notify(struct engine_queue *q, enum engine_dir dir)
{
	return dir == ENGINE_TX && engine_kernel_tx_left(q);
}

/**
 * engine_kernel_rx() - one read() on the rx ring fd
 * @q: the queue
 * @budget: spent by the read() (vringfd.ko bounds one read() by the same
 *	weights as a service's budget; the rx fd stays readable when it
 *	stopped with frames left, so the loop comes back)
 * @starved: always false: the module waits for buffers itself
 *
 * Return: buffers filled, or -errno (-EAGAIN counts as 0).
 */
static int engine_kernel_rx(struct engine_queue *q, struct engine_budget *budget, bool *starved)
{
	char dummy;
	ssize_t n;

	*starved = false;
	budget->frames = 0;
	n = read(q->rx_fd, &dummy, 1);
	if (n < 0)
		return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -errno;
	return (int)n;
}

/**
 * engine_kernel_rx_fd() - the rx ring fd (readable when the module filled buffers)
 * @q: the queue
 *
 * Return: the fd.
 */
static int engine_kernel_rx_fd(struct engine_queue *q)
{
	return q->rx_fd;
}

/**
 * engine_kernel_kicked() - whether vringfd.ko serves the queue by itself
 * @q: the queue
 * @err_fds: the tx and rx ring fds, to watch for EPOLLERR/EPOLLHUP (out)
 *
 * Return: true in kick mode.
 */
static bool engine_kernel_kicked(struct engine_queue *q, int err_fds[2])
{
	err_fds[ENGINE_TX] = q->tx_fd;
	err_fds[ENGINE_RX] = q->rx_fd;
	return q->kick;
}

/**
 * engine_kernel_copy_stats() - module counters to engine counters
 * @fd: a vring fd
 * @st: output
 */
static void engine_kernel_copy_stats(int fd, struct engine_stats *st)
{
	struct vringfd_stats ks;

	memset(st, 0, sizeof(*st));
	if (vringfd_get_stats(fd, &ks) < 0)
		return;
	st->frames = ks.frames;
	st->bytes = ks.bytes;
	st->batches = ks.batches;
	st->syscalls = ks.calls;
	st->drop_bad_chain = ks.drop_bad_chain;
	st->drop_too_big = ks.drop_too_big;
	st->drop_bad_hdr = ks.drop_bad_hdr;
	st->drop_bad_addr = ks.drop_bad_addr;
	st->drop_tap = ks.drop_tap + ks.tap_rx_dropped;
	st->notifies = ks.notifies;
}

/**
 * engine_kernel_get_stats() - the module's counters of both rings
 * @q: the queue
 * @tx: tx counters out (may be NULL)
 * @rx: rx counters out (may be NULL)
 */
static void engine_kernel_get_stats(struct engine_queue *q, struct engine_stats *tx,
			   struct engine_stats *rx)
{
	if (tx)
		engine_kernel_copy_stats(q->tx_fd, tx);
	if (rx)
		engine_kernel_copy_stats(q->rx_fd, rx);
}

/**
 * engine_kernel_close() - close both vring fds (the module detaches them)
 * @q: the queue or NULL
 * @last_avail: where the module stopped in each avail ring (out; may be NULL)
 *
 * Rings in kick mode leave it first, so that no worker run moves them
 * after their positions were read (GET_VRING_BASE).
 */
static void engine_kernel_close(struct engine_queue *q, uint16_t last_avail[2])
{
	struct vringfd_state st;

	if (!q)
		return;
	if (q->kick) {
		engine_kernel_set_kick(q->tx_fd, -1);
		engine_kernel_set_kick(q->rx_fd, -1);
	}
	if (last_avail) {
		last_avail[ENGINE_TX] = vringfd_get_state(q->tx_fd, &st) == 0 ? st.last_avail : q->tx_taken;
		last_avail[ENGINE_RX] = vringfd_get_state(q->rx_fd, &st) == 0 ? st.last_avail : 0;
	}
	engine_kernel_release(q->tx_fd, q->passed);
	engine_kernel_release(q->rx_fd, q->passed);
	free(q);
}

const struct engine_ops engine_kernel_ops = {
	.name = "kernel",
	.ring_fds = true,
	.open = engine_kernel_open,
	.tx = engine_kernel_tx,
	.rx = engine_kernel_rx,
	.enable_notify = engine_kernel_enable_notify,
	.rx_fd = engine_kernel_rx_fd,
	.kicked = engine_kernel_kicked,
	.get_stats = engine_kernel_get_stats,
	.close = engine_kernel_close,
};
