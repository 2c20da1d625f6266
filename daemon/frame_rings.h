/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * frame_rings.h - a ring pair the daemon drives itself, for frame-socket ports
 *
 * Stream and datagram ports have no guest rings: the daemon owns a tx and an
 * rx split ring in its own memory and plays the virtio *driver* on them with
 * libvringfd's vringfd_ring_*, while the queue-pair pump (vq.c, the same
 * one vhost-user and ring-fd front-ends' rings run on) and its engine play
 * the device: the pair is a self-driven vq (vq.h).  Frames from the socket
 * are written straight into tx buffers (one buffer per frame,
 * FRAME_RINGS_BUF_SIZE bytes each), posted as chains and sent to the tap
 * by frame_rings_tx_flush(): one vq_push(), one eng tx() per batch.  rx
 * buffers stay posted; the pump's rx walk fills them with frames from the
 * tap and calls back here, which hands each frame to the port
 * (frame_rings_ops.deliver) and posts the buffer again.  Each buffer starts
 * with a 12-byte virtio-net header (zero on tx, ignored on rx), which both
 * engines pass to and from the tap's IFF_VNET_HDR as is; callers only see
 * the frame after it.
 *
 * The port names no engine: the pair runs on the port's (vq_start()).
 */
#ifndef VRINGNET_FRAME_RINGS_H
#define VRINGNET_FRAME_RINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "vq.h"
#include "vringfd.h"

#define FRAME_RINGS_NUM		256u		/* entries per ring */
#define FRAME_RINGS_BUF_SIZE	65536u		/* frame room per buffer (a frame <= 65535) */
#define FRAME_RINGS_HDR		12u		/* virtio-net header in front of each frame */
#define FRAME_RINGS_STRIDE	(FRAME_RINGS_BUF_SIZE + 4096u)	/* header + frame room, page multiple */

struct port;

/**
 * struct frame_rings_ops - what the port is told
 * @deliver: a frame the engine received from the tap (plain Ethernet),
 *	for the peer.  Called inside the pump's rx walk: it must not close
 *	the pair
 * @delivered: optional: a batch of @deliver calls is over (the port
 *	writes to its peer now); inside the rx walk too
 * @broken: the pair cannot go on (@why says why): the port closes it
 *	(frame_rings_close() here is allowed, the pump touches nothing after)
 */
struct frame_rings_ops {
	void (*deliver)(void *opaque, const uint8_t *frame, size_t len);
	void (*delivered)(void *opaque);
	void (*broken)(void *opaque, const char *why);
};

/**
 * struct frame_rings_pair - the daemon's own ring pair on one tap queue
 * @vq: the queue pair on the pump (self-driven; running while open)
 * @ops: the port's callbacks
 * @opaque: their data
 * @tx: driver view of the tx ring (frames to the tap)
 * @rx: driver view of the rx ring (frames from the tap)
 * @ring_mem: both rings' memory
 * @ring_bytes: size of one ring in @ring_mem
 * @tx_bufs: FRAME_RINGS_NUM tx buffers
 * @rx_bufs: FRAME_RINGS_NUM rx buffers
 * @tx_free: free tx buffer indexes (a stack)
 * @tx_nfree: entries in @tx_free
 * @cur: tx buffer being filled, or -1
 * @tx_pending: chains added since the last flush
 */
struct frame_rings_pair {
	struct vq vq;
	const struct frame_rings_ops *ops;
	void *opaque;
	struct vringfd_ring tx;
	struct vringfd_ring rx;
	void *ring_mem;
	size_t ring_bytes;
	uint8_t *tx_bufs;
	uint8_t *rx_bufs;
	uint16_t tx_free[FRAME_RINGS_NUM];
	unsigned int tx_nfree;
	int cur;
	unsigned int tx_pending;
};

int frame_rings_open(struct frame_rings_pair *fp, struct port *p, const struct frame_rings_ops *ops,
		     void *opaque, char *err, size_t errlen);
void frame_rings_stop(struct frame_rings_pair *fp, struct engine_stats *tx_total,
		      struct engine_stats *rx_total);
void frame_rings_close(struct frame_rings_pair *fp, struct engine_stats *tx_total,
		       struct engine_stats *rx_total);
uint8_t *frame_rings_tx_buf(struct frame_rings_pair *fp);
int frame_rings_tx_commit(struct frame_rings_pair *fp, size_t len);
uint8_t *frame_rings_tx_peek(struct frame_rings_pair *fp, unsigned int k);
unsigned int frame_rings_tx_free(const struct frame_rings_pair *fp);
int frame_rings_tx_commit_n(struct frame_rings_pair *fp, unsigned int n, const size_t *lens);
int frame_rings_tx_flush(struct frame_rings_pair *fp);
void frame_rings_get_stats(struct frame_rings_pair *fp, struct engine_stats *tx, struct engine_stats *rx);

#endif /* VRINGNET_FRAME_RINGS_H */
