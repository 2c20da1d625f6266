/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * vringfd.h - libvringfd, the user-space side of vringfd.ko
 *
 * Three parts:
 *  1. the vring fd calls: vringfd() (the seed's call), vringfd_create(),
 *     vringfd_attach_tap(), ... thin wrappers over the ioctls of
 *     <linux/vringfd.h>; each returns -1 with errno set on failure;
 *  2. the driver side of a split ring (vringfd_ring_*): what a program that
 *     posts buffers does (add a chain, publish it, collect used entries),
 *     with the virtio memory barriers;
 *  3. the device side of a split ring (vringfd_dev_*): what the kernel does,
 *     done in user space with the same validation rules (the daemon's user
 *     engine and its vhost-user backend walk guest rings with it).
 */
#ifndef VRINGFD_H
#define VRINGFD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <linux/virtio_ring.h>
#include <linux/vringfd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 1. vring fd calls ------------------------------------------------ */

/** VRINGFD_DEVICE - the misc device; $VRINGFD_DEVICE overrides it. */
#define VRINGFD_DEVICE "/dev/vringfd"

int vringfd(void *addr, unsigned int num, uint16_t *last_used);
int vringfd_create(unsigned int num, void *desc, void *avail, void *used,
		   uint16_t *last_used, uint64_t features);
int vringfd_get_version(struct vringfd_version *ver);
int vringfd_attach_tap(int ring_fd, int tap_fd, unsigned int dir);
int vringfd_attach_tap_ex(int ring_fd, const struct vringfd_tap *tap);
int vringfd_detach(int ring_fd);
int vringfd_set_mem_table(int ring_fd, const struct vringfd_mem_region *regions,
			  unsigned int nregions);
int vringfd_set_call_fd(int ring_fd, int eventfd);
int vringfd_get_stats(int ring_fd, struct vringfd_stats *stats);
int vringfd_get_state(int ring_fd, struct vringfd_state *state);

/* ---- 2. driver side ---------------------------------------------------- */

/**
 * struct vringfd_ring - the driver's (buffer poster's) view of a split ring
 * @vr: desc/avail/used pointers (struct vring from <linux/virtio_ring.h>)
 * @num: ring size
 * @event_idx: VIRTIO_RING_F_EVENT_IDX negotiated
 * @avail_shadow: next avail->idx to publish
 * @last_used: used entries consumed; pass &ring->last_used to vringfd()
 * @free_head: first free descriptor (free list linked through desc.next)
 * @num_free: free descriptors
 * @published: avail->idx at the last vringfd_ring_publish()
 * @tokens: per-head caller data returned by vringfd_ring_get_used()
 * @chain_len: per-head number of descriptors in the chain
 */
struct vringfd_ring {
	struct vring vr;
	unsigned int num;
	bool event_idx;
	uint16_t avail_shadow;
	uint16_t last_used;
	uint16_t free_head;
	uint16_t num_free;
	uint16_t published;
	void **tokens;
	uint16_t *chain_len;
};

size_t vringfd_ring_size(unsigned int num, unsigned long align);
int vringfd_ring_init(struct vringfd_ring *ring, void *mem, unsigned int num,
		      unsigned long align, uint64_t features);
void vringfd_ring_fini(struct vringfd_ring *ring);
int vringfd_ring_add(struct vringfd_ring *ring,
		     const struct iovec *out, unsigned int nout,
		     const struct iovec *in, unsigned int nin, void *token);
void vringfd_ring_publish(struct vringfd_ring *ring);
bool vringfd_ring_need_kick(const struct vringfd_ring *ring);
void *vringfd_ring_get_used(struct vringfd_ring *ring, uint32_t *len);

/* ---- 3. device side ---------------------------------------------------- */

/**
 * vringfd_dev_xlate_fn - translate a descriptor address to a pointer
 * @opaque: caller data
 * @addr: address from a descriptor (guest-physical or user)
 * @len: length wanted; on return, length contiguous at the result (<= len)
 * Return: pointer, or NULL when @addr is outside every region.
 */
typedef void *(*vringfd_dev_xlate_fn)(void *opaque, uint64_t addr, uint64_t *len);

/**
 * struct vringfd_dev - the device's (buffer consumer's) view of a split ring
 * @vr: desc/avail/used pointers
 * @num: ring size
 * @features: VIRTIO_RING_F_* bits negotiated
 * @last_avail: next avail entry to read
 * @used_idx: private used index (never read back from the ring)
 * @signalled_used: used_idx at the last notification (event-index rules)
 * @signalled_used_valid: @signalled_used is meaningful
 * @broken: protocol violation seen; every call fails with -EIO
 * @xlate: address translation (NULL: addresses are pointers)
 * @xlate_opaque: passed to @xlate
 */
struct vringfd_dev {
	struct vring vr;
	unsigned int num;
	uint64_t features;
	uint16_t last_avail;
	uint16_t used_idx;
	uint16_t signalled_used;
	bool signalled_used_valid;
	bool broken;
	vringfd_dev_xlate_fn xlate;
	void *xlate_opaque;
};

/**
 * struct vringfd_chain - one buffer chain taken from the avail ring
 * @head: head descriptor index (what vringfd_dev_put_used() wants)
 * @out: readable segments; @nout of them, @out_len bytes
 * @in: writable segments; @nin of them, @in_len bytes
 */
struct vringfd_chain {
	uint16_t head;
	unsigned int nout, nin;
	uint64_t out_len, in_len;
	struct iovec *out, *in;
};

int vringfd_dev_init(struct vringfd_dev *dev, unsigned int num, void *desc,
		     void *avail, void *used, uint64_t features);
int vringfd_dev_get_chain(struct vringfd_dev *dev, struct vringfd_chain *chain,
			  struct iovec *iov, unsigned int max_iov);
int vringfd_dev_put_used(struct vringfd_dev *dev, uint16_t head, uint32_t len);
void vringfd_dev_publish_used(struct vringfd_dev *dev);
bool vringfd_dev_need_notify(struct vringfd_dev *dev);
void vringfd_dev_set_no_notify(struct vringfd_dev *dev, bool no_notify);
unsigned int vringfd_dev_pending(const struct vringfd_dev *dev);

#ifdef __cplusplus
}
#endif

#endif /* VRINGFD_H */
