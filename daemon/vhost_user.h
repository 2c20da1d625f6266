/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vhost_user.h - the vhost-user back-end state machine of one connection
 *
 * struct vu_dev holds what a front-end (QEMU) told us: negotiated features,
 * the guest memory table (mapped here), and per ring its size, addresses,
 * base and kick/call/err eventfds.  vu_dev_handle() reads and answers every
 * message waiting on the connection.  The owner (the vhost-user port) learns
 * through vu_ops.queue_state() when a queue pair becomes ready to run (both
 * rings started and enabled, memory mapped) and when it must stop; on stop
 * it stores the engine's avail position with vu_dev_set_last_avail() so
 * GET_VRING_BASE can report it.
 *
 * Any malformed, unknown or out-of-order message makes vu_dev_handle()
 * return an error with a message in vu_dev.err: the owner logs it and closes
 * the connection (vu_dev_reset() releases every mapping and fd).
 */
#ifndef VRINGNET_VHOST_USER_H
#define VRINGNET_VHOST_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dirty_log.h"
#include "engine.h"
#include "vhost_user_msg.h"

#define VU_MAX_QUEUE_PAIRS	16
#define VU_MAX_VRINGS		(2 * VU_MAX_QUEUE_PAIRS)
#define VU_MAX_RING_NUM		32768u
#define VU_ERR_MAX		256

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
 * back-end accepts it only when it is the tap's (vu_ops.tap_mtu).
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
#define VU_GUARD_LOG		VUM_MAX_REGIONS

/* The MTU range of NET_SET_MTU (virtio: 68, an Ethernet frame's limit). */
#define VU_MTU_MIN		68u
#define VU_MTU_MAX		65535u

/**
 * struct vu_region - one mapped region of the guest memory table
 * @guest_addr: guest-physical address of the first byte
 * @size: bytes
 * @user_addr: front-end virtual address of the first byte
 * @mmap_offset: offset in the fd
 * @map: what mmap() returned (page-aligned start)
 * @map_len: length of the mapping
 * @host: where @guest_addr is mapped here (inside @map)
 * @file_dev: st_dev of the fd (to recognise a repeated table)
 * @file_ino: st_ino of the fd
 */
struct vu_region {
	uint64_t guest_addr;
	uint64_t size;
	uint64_t user_addr;
	uint64_t mmap_offset;
	void *map;
	size_t map_len;
	void *host;
	uint64_t file_dev;
	uint64_t file_ino;
};

/**
 * struct vu_vring - one virtqueue as the front-end described it
 * @num: size (0 until SET_VRING_NUM)
 * @addr: front-end virtual addresses from SET_VRING_ADDR
 * @addr_set: SET_VRING_ADDR seen
 * @desc: descriptor table, mapped here (valid while @addr_set)
 * @avail: avail ring, mapped here
 * @used: used ring, mapped here
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
struct vu_vring {
	unsigned int num;
	struct vum_vring_addr addr;
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

struct vu_dev;

/**
 * struct vu_ops - what the owner of a connection is told
 * @queue_state: queue pair @qp became ready (@ready true: its rings may be
 *	walked now; vu_dev_queue_config() describes them) or must stop at once
 *	(@ready false: stop walking, store the engine's positions with
 *	vu_dev_set_last_avail()).  Return 0, or -errno when a ready queue
 *	could not be started (the connection is then closed).
 * @tap_mtu: the current MTU of the tap behind the connection, for
 *	NET_SET_MTU; return the MTU, or -errno when it cannot be read (the
 *	request is then refused).  May be NULL: NET_SET_MTU is refused.
 * @announce: send a RARP frame for the guest's MAC @mac from the tap
 *	(SEND_RARP, after a migration, so that switches learn where the
 *	guest now is); return 0, or -errno (the request is then refused).
 *	May be NULL: SEND_RARP is refused.
 *
 * A call fd replaced while its queue pair runs is replaced in place (same
 * fd number): the running engine signals the new eventfd without being
 * told.
 */
struct vu_ops {
	int (*queue_state)(struct vu_dev *dev, unsigned int qp, bool ready);
	int (*tap_mtu)(struct vu_dev *dev);
	int (*announce)(struct vu_dev *dev, const uint8_t mac[6]);
};

/**
 * struct vu_dev - one vhost-user connection
 * @fd: the connection socket (not owned)
 * @ops: owner callbacks (may be NULL: nothing is told)
 * @opaque: owner data
 * @queue_pairs: queue pairs offered (1..VU_MAX_QUEUE_PAIRS)
 * @features_offered: device features offered
 * @features: features acked by SET_FEATURES
 * @features_set: SET_FEATURES seen
 * @protocol_features: protocol features acked
 * @owner: SET_OWNER seen
 * @regions: mapped memory table
 * @nregions: entries in @regions
 * @eng_regions: @regions in the engine's form (guest address, size, here)
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
struct vu_dev {
	int fd;
	const struct vu_ops *ops;
	void *opaque;
	unsigned int queue_pairs;
	uint64_t features_offered;
	uint64_t features;
	bool features_set;
	uint64_t protocol_features;
	bool owner;
	struct vu_region regions[VUM_MAX_REGIONS];
	unsigned int nregions;
	struct eng_mem_region eng_regions[VUM_MAX_REGIONS];
	struct vu_vring vrings[VU_MAX_VRINGS];
	bool active[VU_MAX_QUEUE_PAIRS];
	struct dlog log;
	int log_fd;
	struct vum_rx rx;
	uint64_t messages;
	unsigned int mtu;
	char err[VU_ERR_MAX];
};

void vu_dev_init(struct vu_dev *dev, int fd, unsigned int queue_pairs,
		 const struct vu_ops *ops, void *opaque);
void vu_dev_reset(struct vu_dev *dev);
int vu_dev_handle(struct vu_dev *dev);
int vu_dev_process(struct vu_dev *dev, struct vum_msg *msg);
unsigned int vu_dev_vnet_hdr_len(const struct vu_dev *dev);
void vu_dev_queue_config(struct vu_dev *dev, unsigned int qp,
			 struct eng_queue_config *cfg);
void vu_dev_set_last_avail(struct vu_dev *dev, unsigned int vring, uint16_t last_avail);

/**
 * vu_dev_logging() - whether the front-end asked for dirty logging
 * @dev: the connection
 *
 * Return: true while VHOST_F_LOG_ALL is acked (a migration runs): the
 * queues must run on an engine that logs (the user engine).
 */
static inline bool vu_dev_logging(const struct vu_dev *dev)
{
	return dev->features & (1ULL << VU_F_LOG_ALL);
}

#endif /* VRINGNET_VHOST_USER_H */
