/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine.h - how vringnetd moves packets between a ring pair and a tap queue.
 *
 * A queue binds two split rings to one queue of a tap:
 *   tx ring: the driver (a guest, or the daemon for frame-socket ports) posts
 *            readable chains; engine_ops.tx() sends each as one frame to the tap;
 *   rx ring: the driver posts writable chains; engine_ops.rx() fills them with
 *            frames read from the tap.
 * The engine plays the virtio *device* for both rings.  Two implementations:
 *   kernel  vringfd.ko walks the rings (one write()/read() per batch)
 *   user    the daemon walks them (libvringfd's vringfd_dev_*) and does one
 *           write()/read() on the tap fd per frame.
 */
#ifndef VRINGNET_ENGINE_H
#define VRINGNET_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

struct dirty_log;

/**
 * struct engine_ring - a split ring mapped in this process
 * @num: entries (power of two, 1..32768)
 * @desc: descriptor table
 * @avail: avail ring
 * @used: used ring
 * @last_avail: where the device starts reading avail (vhost-user
 *	SET_VRING_BASE; 0 for a fresh ring)
 * @log_used: with engine_queue_config.log: mark the used ring's pages in the
 *	dirty log after writing it (vhost-user VHOST_VRING_F_LOG)
 * @used_gpa: guest-physical address of the used ring (log_guest_addr with
 *	engine_queue_config.log; with engine_queue_config.mem_files, where
 *	@used lies in the guest's memory)
 * @desc_gpa: with engine_queue_config.mem_files: guest-physical address of
 *	the descriptor table
 * @avail_gpa: the same for the avail ring
 */
struct engine_ring {
	unsigned int num;
	void *desc;
	void *avail;
	void *used;
	uint16_t last_avail;
	bool log_used;
	uint64_t used_gpa;
	uint64_t desc_gpa;
	uint64_t avail_gpa;
};

/**
 * struct engine_mem_region - guest memory mapped in this process
 * @guest_addr: guest-physical address of the first byte
 * @size: bytes
 * @uaddr: where it is mapped here
 * @fd: with engine_queue_config.mem_files: the memory file the region is
 *	in (not owned)
 * @offset: with engine_queue_config.mem_files: where @guest_addr is in @fd
 * @map_align: what a mapping of @fd needs its offset and length aligned to:
 *	the huge page size of a hugetlbfs file, 0 for the base page
 */
struct engine_mem_region {
	uint64_t guest_addr;
	uint64_t size;
	void *uaddr;
	int fd;
	uint64_t offset;
	uint64_t map_align;
};

/**
 * struct engine_queue_config - what engine_ops.open() needs
 * @tap_fd: a queue of the tap (IFF_TAP|IFF_NO_PI|IFF_VNET_HDR); not owned
 * @tap_ifindex: the tap's ifindex in the daemon's network namespace, or 0
 *	(the kernel engine then reports no drops of the tap device itself)
 * @vnet_hdr_len: 0, 10 or 12: size of the virtio-net header before each
 *	frame in the rings (the engine sets the tap's TUNSETVNETHDRSZ to
 *	match before it starts the queue)
 * @mrg_rxbuf: VIRTIO_NET_F_MRG_RXBUF: a received frame may span heads
 * @ring_features: 1ULL << VIRTIO_RING_F_EVENT_IDX / _INDIRECT_DESC
 * @regions: descriptor addresses are guest-physical, translated through
 *	these; NULL: descriptor addresses are pointers in this process
 * @nregions: entries in @regions
 * @tx: the ring whose chains go to the tap
 * @rx: the ring whose chains are filled from the tap
 * @tx_call_fd: eventfd to signal when virtio asks for a tx interrupt, or -1
 * @rx_call_fd: same for rx
 * @ring_fds: NULL, or ready vring fds the front-end passed ([0] tx, [1]
 *	rx; rings of memory, not attached; not owned): the kernel engine
 *	attaches them instead of making rings from @tx and @rx, of which only
 *	num counts (this process does not map the ring memory; @regions
 *	unused).  The user engine refuses such a queue
 * @mem_files: the kernel engine makes rings of memory (VRINGFD_SET_MEM_FILES)
 *	over @regions' fds, with the rings' guest addresses (engine_ring's
 *	*_gpa), instead of rings of this address space; a module or memory
 *	it cannot do so with (no F_SEAL_SHRINK, a disk file) gets the usual
 *	rings (logged once).  The user engine ignores it
 * @kick_mode: with @mem_files, when both rings became rings of memory and
 *	both kick fds are set: the kernel engine puts them in kick mode
 *	(VRINGFD_SET_KICK): vringfd.ko serves them on the front-end's kicks
 *	and the tap's frames by itself (engine_ops.kicked() says so)
 * @tx_kick_fd: the tx ring's kick eventfd for @kick_mode, or -1 (not owned)
 * @rx_kick_fd: the rx ring's, or -1
 * @log: dirty log of a migrating guest (dirty_log.h), or NULL: every
 *	guest page the engine writes is marked there (only the user engine
 *	logs; the kernel engine refuses a queue with a log).  The log may be
 *	mapped, replaced or unmapped while the queue runs
 */
struct engine_queue_config {
	int tap_fd;
	int tap_ifindex;
	unsigned int vnet_hdr_len;
	bool mrg_rxbuf;
	uint64_t ring_features;
	const struct engine_mem_region *regions;
	unsigned int nregions;
	struct engine_ring tx;
	struct engine_ring rx;
	int tx_call_fd;
	int rx_call_fd;
	const int *ring_fds;
	bool mem_files;
	bool kick_mode;
	int tx_kick_fd;
	int rx_kick_fd;
	struct dirty_log *log;
};

/**
 * struct engine_stats - counters of one direction of a queue
 * @frames: frames moved
 * @bytes: bytes moved (headers excluded)
 * @batches: tx()/rx() calls that moved at least one frame
 * @syscalls: system calls the engine made for this direction
 * @drop_bad_chain: chains of the wrong shape (completed with len 0)
 * @drop_too_big: frames too big for the tap or for the posted buffer
 * @drop_bad_hdr: invalid virtio-net headers
 * @drop_bad_addr: addresses outside guest memory
 * @drop_tap: frames the tap refused or failed to give
 * @notifies: call eventfd signals
 * @drop_peer: frames from a sender that is not the port's peer (dgram)
 */
struct engine_stats {
	uint64_t frames;
	uint64_t bytes;
	uint64_t batches;
	uint64_t syscalls;
	uint64_t drop_bad_chain;
	uint64_t drop_too_big;
	uint64_t drop_bad_hdr;
	uint64_t drop_bad_addr;
	uint64_t drop_tap;
	uint64_t notifies;
	uint64_t drop_peer;
};

struct engine_queue;

/*
 * Fair shares: one service of a queue (a kick, a readable rx fd, a
 * readable frame socket) moves at most ENGINE_WEIGHT_FRAMES frames or
 * ENGINE_WEIGHT_BYTES bytes (whichever comes first, the frame that crosses
 * the byte weight still goes) in each direction, then gives the loop back
 * so that other ready queues run before it comes again: vhost-net's
 * VHOST_NET_PKT_WEIGHT and VHOST_NET_WEIGHT, and vringfd.ko's own weights
 * per write()/read() (kmod/vringfd_api.h).  A guest that keeps its ring
 * full then waits its turn like the others.
 */
#define ENGINE_WEIGHT_FRAMES	256u
#define ENGINE_WEIGHT_BYTES	0x80000u

/**
 * struct engine_budget - what one service of a queue may still move
 * @frames: frames left
 * @bytes: bytes left (frame bytes, headers excluded)
 *
 * Lives on the stack of one service (or in the queue that serves); the
 * engine's tx()/rx() take from it as they move frames.
 */
struct engine_budget {
	unsigned int frames;
	uint64_t bytes;
};

/**
 * engine_budget_init() - a full budget for one service
 * @b: the budget
 */
static inline void engine_budget_init(struct engine_budget *b)
{
	b->frames = ENGINE_WEIGHT_FRAMES;
	b->bytes = ENGINE_WEIGHT_BYTES;
}

/**
 * engine_budget_take() - charge one frame to a budget
 * @b: the budget
 * @bytes: the frame's bytes
 */
static inline void engine_budget_take(struct engine_budget *b, uint64_t bytes)
{
	if (b->frames)
		b->frames--;
	b->bytes = bytes < b->bytes ? b->bytes - bytes : 0;
}

/**
 * engine_budget_spent() - whether a service has moved its share
 * @b: the budget
 *
 * Return: true when no frame or no byte is left.
 */
static inline bool engine_budget_spent(const struct engine_budget *b)
{
	return !b->frames || !b->bytes;
}

/**
 * enum engine_dir - one ring of a queue
 * @ENGINE_TX: the ring whose chains go to the tap
 * @ENGINE_RX: the ring filled from the tap
 */
enum engine_dir {
	ENGINE_TX,
	ENGINE_RX,
};

/**
 * struct engine_ops - one engine
 * @name: "kernel" or "user"
 * @ring_fds: attaches ready vring fds a front-end passed
 *	(engine_queue_config.ring_fds); an engine without it refuses them
 * @open: bind a ring pair to a tap queue; NULL with @err filled on failure
 * @tx: send available tx chains, charging each frame to @budget and
 *	stopping when it is spent (the kernel engine: one write(), which
 *	vringfd.ko bounds by the same weights; a write() that stopped with
 *	chains left spends the budget); returns chains consumed, or -errno
 *	(-EIO: the ring is broken)
 * @rx: fill posted rx buffers from the tap, charging @budget the same
 *	way; returns buffers filled or -errno; sets *starved when frames
 *	wait but no buffer is posted (the caller stops polling the rx fd
 *	until the driver posts more)
 * @enable_notify: after @tx or a starved @rx: ask the driver to kick for
 *	the next chain of that ring, then look again (vhost's
 *	vhost_enable_notify() contract); true when more work arrived (or the
 *	engine stopped at its weight): call @tx/@rx again.  The kernel engine
 *	leaves the kick request to vringfd.ko, which publishes avail_event and
 *	looks again itself before write()/read() return.
 * @rx_fd: fd that becomes readable (EPOLLIN) when rx() has work
 * @kicked: optional (NULL: never): true when the engine serves the queue
 *	on the front-end's kicks by itself (kernel kick mode): the caller then
 *	watches no kick and does not call @tx/@rx, only watches
 *	@err_fds[ENGINE_TX/ENGINE_RX] for EPOLLERR/EPOLLHUP (a broken ring, a
 *	deleted tap), after which @tx/@rx say what broke
 * @get_stats: counters of both directions
 * @close: unbind and free; the tap fd and the rings stay.  Stores where
 *	the device stopped in each avail ring in @last_avail[ENGINE_TX/ENGINE_RX]
 *	(vhost-user GET_VRING_BASE) when not NULL
 */
struct engine_ops {
	const char *name;
	bool ring_fds;
	struct engine_queue *(*open)(const struct engine_queue_config *cfg,
				  char *err, size_t errlen);
	int (*tx)(struct engine_queue *q, struct engine_budget *budget);
	int (*rx)(struct engine_queue *q, struct engine_budget *budget, bool *starved);
	bool (*enable_notify)(struct engine_queue *q, enum engine_dir dir);
	int (*rx_fd)(struct engine_queue *q);
	bool (*kicked)(struct engine_queue *q, int err_fds[2]);
	void (*get_stats)(struct engine_queue *q, struct engine_stats *tx,
			  struct engine_stats *rx);
	void (*close)(struct engine_queue *q, uint16_t last_avail[2]);
};

extern const struct engine_ops engine_user_ops;
extern const struct engine_ops engine_kernel_ops;

bool engine_probe_kernel(char *why, size_t whylen);
const struct engine_ops *engine_select(enum config_engine want, char *err, size_t errlen);
const struct engine_ops *engine_for_queue(const struct engine_ops *port_eng, bool dirty_log);

/**
 * engine_region_find() - the region holding a guest address range
 * @regions: the guest's memory regions
 * @n: their number
 * @gpa: guest-physical address of the first byte
 * @len: wanted bytes; on return, the bytes the region holds from @gpa on
 *	(at most the wanted ones)
 *
 * Inline: the user engine translates every descriptor through it.
 * Return: the region holding @gpa, or NULL when none does.
 */
static inline const struct engine_mem_region *
engine_region_find(const struct engine_mem_region *regions, unsigned int n, uint64_t gpa,
		   uint64_t *len)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct engine_mem_region *r = &regions[i];

		if (gpa < r->guest_addr || gpa - r->guest_addr >= r->size)
			continue;
		if (*len > r->size - (gpa - r->guest_addr))
			*len = r->size - (gpa - r->guest_addr);
		return r;
	}
	return NULL;
}

#endif /* VRINGNET_ENGINE_H */
