/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vhost_user.h - the vhost-user back-end state machine of one connection
 *
 * struct vhost_user_dev holds what a front-end (QEMU) told us: negotiated features,
 * the guest memory table (mapped here, at once or when first needed), and per ring its size, addresses,
 * base and kick/call/err eventfds.  vhost_user_dev_handle() reads and answers every
 * message waiting on the connection.  The owner (the vhost-user port) learns
 * through vhost_user_ops.queue_state() when a queue pair becomes ready to run (both
 * rings started and enabled, a memory table) and when it must stop; on stop
 * it stores the engine's avail position with vhost_user_dev_set_last_avail() so
 * GET_VRING_BASE can report it.
 *
 * Any malformed, unknown or out-of-order message makes vhost_user_dev_handle()
 * return an error with a message in vhost_user_dev.err: the owner logs it and closes
 * the connection (vhost_user_dev_reset() releases every mapping and fd).
 */
#ifndef VRINGNET_VHOST_USER_H
#define VRINGNET_VHOST_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dirty_log.h"
#include "engine.h"
#include "vhost_user_msg.h"

#define VHOST_USER_MAX_QUEUE_PAIRS	16
#define VHOST_USER_MAX_VRINGS		(2 * VHOST_USER_MAX_QUEUE_PAIRS)
#define VHOST_USER_MAX_RING_NUM		32768u
#define VHOST_USER_ERR_MAX		256

/* Virtio feature bits offered (virtio-net, virtio ring, virtio 1.x). */
#define VU_NET_F_CSUM		0
#define VU_NET_F_GUEST_CSUM	1
#define VU_NET_F_MTU		3
#define VU_NET_F_GUEST_TSO4	7
#define VU_NET_F_GUEST_TSO6	8
#define VU_NET_F_HOST_TSO4	11
#define VU_NET_F_HOST_TSO6	12
#define VU_NET_F_MRG_RXBUF	15
#define VU_F_LOG_ALL		26	/* VHOST_F_LOG_ALL: migration's dirty logging */
#define VU_NET_F_MQ		22
#define VU_RING_F_INDIRECT_DESC	28
#define VU_RING_F_EVENT_IDX	29
#define VU_F_VERSION_1		32

/*
 * Features offered; MQ only when the port has more than one queue pair.
 * NET_F_MTU: the front-end may tell the guest an MTU (QEMU's host_mtu=);
 * with PROTOCOL_F_NET_MTU it sends that MTU in NET_SET_MTU, and the
 * back-end accepts it only when it is the tap's (vhost_user_ops.tap_mtu).
 */
#define VU_FEATURES_BASE \
	((1ULL << VU_NET_F_CSUM) | (1ULL << VU_NET_F_GUEST_CSUM) | \
	 (1ULL << VU_NET_F_MTU) | \
	 (1ULL << VU_NET_F_GUEST_TSO4) | (1ULL << VU_NET_F_GUEST_TSO6) | \
	 (1ULL << VU_NET_F_HOST_TSO4) | (1ULL << VU_NET_F_HOST_TSO6) | \
	 (1ULL << VU_NET_F_MRG_RXBUF) | (1ULL << VU_RING_F_INDIRECT_DESC) | \
	 (1ULL << VU_RING_F_EVENT_IDX) | (1ULL << VUM_F_PROTOCOL_FEATURES) | \
	 (1ULL << VU_F_VERSION_1) | (1ULL << VU_F_LOG_ALL))

/* Protocol features offered. */
#define VU_PROTOCOL_FEATURES \
	((1ULL << VUM_PROTOCOL_F_MQ) | (1ULL << VUM_PROTOCOL_F_REPLY_ACK) | \
	 (1ULL << VUM_PROTOCOL_F_LOG_SHMFD) | (1ULL << VUM_PROTOCOL_F_NET_MTU) | \
	 (1ULL << VUM_PROTOCOL_F_RARP))

/* The dirty log's number among the connection's guard mappings (guard.h);
 * the memory regions are 0..VUM_MAX_REGIONS-1. */
#define VHOST_USER_GUARD_LOG		VUM_MAX_REGIONS

/* The MTU range of NET_SET_MTU (virtio: 68, an Ethernet frame's limit). */
#define VHOST_USER_MTU_MIN	68u
#define VHOST_USER_MTU_MAX	65535u

/**
 * struct vhost_user_region - one region of the guest memory table
 * @guest_addr: guest-physical address of the first byte
 * @size: bytes
 * @user_addr: front-end virtual address of the first byte
 * @mmap_offset: offset in the fd
 * @map: what mmap() returned (page-aligned start), NULL while the region
 *	is not mapped here (vhost_user_dev_map_lazily())
 * @map_len: length of the mapping
 * @host: where @guest_addr is mapped here (inside @map), or NULL
 * @file_dev: st_dev of the fd (to recognise a repeated table)
 * @file_ino: st_ino of the fd
 * @fd: the fd, kept open for a hand-over to a successor (handover.c)
 */
struct vhost_user_region {
	uint64_t guest_addr;
	uint64_t size;
	uint64_t user_addr;
	uint64_t mmap_offset;
	void *map;
	size_t map_len;
	void *host;
	uint64_t file_dev;
	uint64_t file_ino;
	int fd;
};

/**
 * struct vhost_user_vring - one virtqueue as the front-end described it
 * @num: size (0 until SET_VRING_NUM)
 * @addr: front-end virtual addresses from SET_VRING_ADDR
 * @addr_set: SET_VRING_ADDR seen
 * @desc: descriptor table, mapped here (valid while @addr_set; NULL while
 *	its region is not mapped)
 * @avail: avail ring, mapped here (or NULL)
 * @used: used ring, mapped here (or NULL)
 * @last_avail: next avail index the device reads (SET/GET_VRING_BASE)
 * @kick_fd: kick eventfd, -1 for none
 * @call_fd: call eventfd, -1 for none
 * @err_fd: error eventfd, -1 for none
 * @kick_set: SET_VRING_KICK seen (with an fd or the polling bit)
 * @started: kick set and not stopped by GET_VRING_BASE since
 * @enabled: SET_VRING_ENABLE 1 (or no PROTOCOL_FEATURES negotiated)
 * @log: SET_VRING_ADDR had VHOST_VRING_F_LOG: writes to the used ring are
 *	logged at @addr.log (log_guest_addr) while VHOST_F_LOG_ALL is acked
 */
struct vhost_user_vring {
	unsigned int num;
	struct vhost_user_msg_vring_addr addr;
	bool addr_set;
	void *desc;
	void *avail;
	void *used;
	uint16_t last_avail;
	int kick_fd;
	int call_fd;
	int err_fd;
	bool kick_set;
	bool started;
	bool enabled;
	bool log;
};

struct vhost_user_dev;

/**
 * struct vhost_user_ops - what the owner of a connection is told
 * @queue_state: queue pair @qp became ready (@ready true: its rings may be
 *	walked now; vhost_user_dev_queue_config() describes them) or must stop at once
 *	(@ready false: stop walking, store the engine's positions with
 *	vhost_user_dev_set_last_avail()).  Return 0, or -errno when a ready queue
 *	could not be started (the connection is then closed).
 * @tap_mtu: the current MTU of the tap behind the connection, for
 *	NET_SET_MTU; return the MTU, or -errno when it cannot be read (the
 *	request is then refused).  May be NULL: NET_SET_MTU is refused.
 * @announce: send a RARP frame for the guest's MAC @mac from the tap
 *	(SEND_RARP, after a migration, so that switches learn where the
 *	guest now is); return 0, or -errno (the request is then refused).
 *	May be NULL: SEND_RARP is refused.
 * @changed: a message was handled (the connection's state may differ:
 *	livestore.c writes it for a crash); called after each one, outside
 *	the message, when nothing of it is half received.  May be NULL.
 *
 * A call fd replaced while its queue pair runs is replaced in place (same
 * fd number): the running engine signals the new eventfd without being
 * told.
 */
struct vhost_user_ops {
	int (*queue_state)(struct vhost_user_dev *dev, unsigned int qp, bool ready);
	int (*tap_mtu)(struct vhost_user_dev *dev);
	int (*announce)(struct vhost_user_dev *dev, const uint8_t mac[6]);
	void (*changed)(struct vhost_user_dev *dev);
};

/**
 * struct vhost_user_dev - one vhost-user connection
 * @fd: the connection socket (not owned)
 * @ops: owner callbacks (may be NULL: nothing is told)
 * @opaque: owner data
 * @queue_pairs: queue pairs offered (1..VHOST_USER_MAX_QUEUE_PAIRS)
 * @features_offered: device features offered
 * @features: features acked by SET_FEATURES
 * @features_set: SET_FEATURES seen
 * @protocol_features: protocol features acked
 * @owner: SET_OWNER seen
 * @regions: the memory table (mapped, or not: @map_lazily)
 * @nregions: entries in @regions
 * @eng_regions: @regions in the engine's form (guest address, size, here;
 *	uaddr NULL while not mapped)
 * @map_lazily: SET_MEM_TABLE does not map (vhost_user_dev_map_lazily())
 * @vrings: rings, index = virtqueue number (even: rx, odd: tx)
 * @active: per queue pair: the owner was told it is ready
 * @log: the dirty log (SET_LOG_BASE), marked while VHOST_F_LOG_ALL is acked
 * @log_fd: SET_LOG_FD's eventfd, -1 for none (kept, not signalled: the
 *	front-end reads the shared log)
 * @rx: message receiver
 * @messages: messages handled
 * @mtu: the MTU of the last NET_SET_MTU accepted, 0 for none
 * @err: why the last call failed
 */
struct vhost_user_dev {
	int fd;
	const struct vhost_user_ops *ops;
	void *opaque;
	unsigned int queue_pairs;
	uint64_t features_offered;
	uint64_t features;
	bool features_set;
	uint64_t protocol_features;
	bool owner;
	struct vhost_user_region regions[VUM_MAX_REGIONS];
	unsigned int nregions;
	struct engine_mem_region eng_regions[VUM_MAX_REGIONS];
	bool map_lazily;
	struct vhost_user_vring vrings[VHOST_USER_MAX_VRINGS];
	bool active[VHOST_USER_MAX_QUEUE_PAIRS];
	struct dirty_log log;
	int log_fd;
	struct vhost_user_msg_rx rx;
	uint64_t messages;
	unsigned int mtu;
	char err[VHOST_USER_ERR_MAX];
};

void vhost_user_dev_init(struct vhost_user_dev *dev, int fd, unsigned int queue_pairs,
		 const struct vhost_user_ops *ops, void *opaque);
void vhost_user_dev_reset(struct vhost_user_dev *dev);
int vhost_user_dev_handle(struct vhost_user_dev *dev);
int vhost_user_dev_process(struct vhost_user_dev *dev, struct vhost_user_msg *msg);
unsigned int vhost_user_dev_vnet_hdr_len(const struct vhost_user_dev *dev);
void vhost_user_dev_queue_config(struct vhost_user_dev *dev, unsigned int qp,
			 struct engine_queue_config *cfg);
void vhost_user_dev_set_last_avail(struct vhost_user_dev *dev, unsigned int vring, uint16_t last_avail);
void vhost_user_dev_map_lazily(struct vhost_user_dev *dev, bool lazily);
int vhost_user_dev_map(struct vhost_user_dev *dev, const char *why);
bool vhost_user_dev_mapped(const struct vhost_user_dev *dev);
uint64_t vhost_user_dev_mapped_bytes(const struct vhost_user_dev *dev, uint64_t *total);

struct hovs_vhost_user;
void vhost_user_dev_pause(struct vhost_user_dev *dev);
int vhost_user_dev_resume(struct vhost_user_dev *dev);
int vhost_user_dev_save(struct vhost_user_dev *dev, struct hovs_vhost_user *v);
int vhost_user_dev_restore(struct vhost_user_dev *dev, const struct hovs_vhost_user *v);
int vhost_user_dev_restore_kicks(struct vhost_user_dev *dev, const struct hovs_vhost_user *v);

/**
 * vhost_user_dev_logging() - whether the front-end asked for dirty logging
 * @dev: the connection
 *
 * Return: true while VHOST_F_LOG_ALL is acked (a migration runs): the
 * queues must run on an engine that logs (the user engine).
 */
static inline bool vhost_user_dev_logging(const struct vhost_user_dev *dev)
{
	return dev->features & (1ULL << VU_F_LOG_ALL);
}

#endif /* VRINGNET_VHOST_USER_H */
