/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * frame_rings.h - a ring pair the daemon drives itself, for frame-socket ports
 *
 * Stream and datagram ports have no guest rings: the daemon owns a tx and an
 * rx split ring in its own memory and plays the virtio *driver* on them with
 * libvringfd's vringfd_ring_*, while the engine plays the device.  Frames
 * from the socket are written straight into tx buffers (one buffer per
 * frame, FRAME_RINGS_BUF_SIZE bytes each), posted as chains and sent to the tap with
 * one eng tx() per batch; rx buffers stay posted, and eng rx() fills them
 * with frames from the tap, which the port then writes to its peer.  Each
 * buffer starts with a 12-byte virtio-net header (zero on tx, ignored on
 * rx), which both engines pass to and from the tap's IFF_VNET_HDR as is;
 * callers only see the frame after it.
 */
#ifndef VRINGNET_FRAME_RINGS_H
#define VRINGNET_FRAME_RINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "vringfd.h"

#define FRAME_RINGS_NUM		256u		/* entries per ring */
#define FRAME_RINGS_BUF_SIZE	65536u		/* frame room per buffer (a frame <= 65535) */
#define FRAME_RINGS_HDR		12u		/* virtio-net header in front of each frame */
#define FRAME_RINGS_STRIDE	(FRAME_RINGS_BUF_SIZE + 4096u)	/* header + frame room, page multiple */

/**
 * frame_rings_deliver_fn - called for each frame the engine received from the tap
 * @opaque: caller data
 * @frame: the frame (plain Ethernet)
 * @len: its length
 */
typedef void (*frame_rings_deliver_fn)(void *opaque, const uint8_t *frame, size_t len);

/**
 * struct frame_rings_pair - the daemon's own ring pair on one tap queue
 * @eng: the engine
 * @eq: the engine queue
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
	const struct engine_ops *eng;
	struct engine_queue *eq;
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

int frame_rings_open(struct frame_rings_pair *fp, const struct engine_ops *eng, int tap_fd,
	    int tap_ifindex, char *err, size_t errlen);
void frame_rings_close(struct frame_rings_pair *fp);
uint8_t *frame_rings_tx_buf(struct frame_rings_pair *fp);
int frame_rings_tx_commit(struct frame_rings_pair *fp, size_t len);
uint8_t *frame_rings_tx_peek(struct frame_rings_pair *fp, unsigned int k);
unsigned int frame_rings_tx_free(const struct frame_rings_pair *fp);
int frame_rings_tx_commit_n(struct frame_rings_pair *fp, unsigned int n, const size_t *lens);
int frame_rings_tx_flush(struct frame_rings_pair *fp);
int frame_rings_rx(struct frame_rings_pair *fp, frame_rings_deliver_fn deliver, void *opaque);
int frame_rings_rx_fd(struct frame_rings_pair *fp);
void frame_rings_get_stats(struct frame_rings_pair *fp, struct engine_stats *tx, struct engine_stats *rx);

#endif /* VRINGNET_FRAME_RINGS_H */
