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
#include <sys/types.h>
#include <sys/uio.h>
#include <linux/virtio_ring.h>
#include <linux/vringfd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 1. vring fd calls ------------------------------------------------ */

/** VRINGFD_DEVICE - the misc device; $VRINGFD_DEVICE overrides it. */
#define VRINGFD_DEVICE "/dev/vringfd"

/*
 * Every call of this part returns -1 with errno set on failure (errno is
 * the ioctl's, preserved across the library's own cleanup).  The calls that
 * need the misc device open it O_RDWR|O_CLOEXEC and close it after the
 * ioctl: ENOENT means the module is not loaded, EACCES no permission on
 * the device node.  Checks done here, before anything is opened: num not a
 * power of two in 1..VRINGFD_MAX_NUM -> EINVAL; a NULL struct pointer ->
 * EFAULT; more than VRINGFD_MAX_MEM_REGIONS regions -> EINVAL.  The other
 * errors are the module's, as documented per ioctl in <linux/vringfd.h>.
 */

/**
 * vringfd() - the seed's call: a vring fd over a legacy-layout ring
 * @addr: a ring laid out by vring_init(&vr, @num, @addr, getpagesize())
 * @num: ring size, a power of two from 1 to VRINGFD_MAX_NUM
 * @last_used: the caller's count of consumed used entries (poll() with
 *	nothing attached compares it with used->idx)
 * Return: the new fd (no features negotiated), or -1 with errno.
 */
int vringfd(void *addr, unsigned int num, uint16_t *last_used);

/**
 * vringfd_create() - a vring fd over three separate ring parts
 * @num: ring size
 * @desc: descriptor table (16-byte aligned)
 * @avail: avail ring (2-byte aligned)
 * @used: used ring (4-byte aligned)
 * @last_used: as for vringfd()
 * @features: 1ULL << VIRTIO_RING_F_INDIRECT_DESC / VIRTIO_RING_F_EVENT_IDX
 * Return: the new fd, or -1 with errno (VRINGFD_CREATE's errors).
 */
int vringfd_create(unsigned int num, void *desc, void *avail, void *used,
		   uint16_t *last_used, uint64_t features);

/**
 * vringfd_create_ex() - a vring fd from a full struct vringfd_create
 * @c: the request; e.g. VRINGFD_CREATE_F_AVAIL_BASE in @c->flags with the
 *	device's starting avail index in @c->avail_base (modules reporting
 *	VRINGFD_CAP_AVAIL_BASE); unused fields zero
 * Return: the new fd, or -1 with errno (EFAULT: @c NULL; VRINGFD_CREATE's
 * errors).
 */
int vringfd_create_ex(const struct vringfd_create *c);

/**
 * vringfd_get_version() - what the loaded module supports
 * @ver: filled in
 * Return: 0, or -1 with errno.
 */
int vringfd_get_version(struct vringfd_version *ver);

/**
 * vringfd_attach_tap() - attach a ring to a tap queue: plain frames
 * @ring_fd: vring fd
 * @tap_fd: fd of an IFF_TAP queue (or macvtap/ipvtap), configured by the
 *	caller: IFF_NO_PI, no IFF_VNET_HDR (the module checks nothing)
 * @dir: VRINGFD_DIR_TX or VRINGFD_DIR_RX
 *
 * vnet_hdr_len 0, no flags, no ifindex; vringfd_attach_tap_ex() for the
 * rest.
 * Return: 0, or -1 with errno (VRINGFD_ATTACH_TAP's errors).
 */
int vringfd_attach_tap(int ring_fd, int tap_fd, unsigned int dir);

/**
 * vringfd_attach_tap_ex() - attach a ring to a tap queue: all options
 * @ring_fd: vring fd
 * @tap: the attachment
 * Return: 0, or -1 with errno.
 */
int vringfd_attach_tap_ex(int ring_fd, const struct vringfd_tap *tap);

/**
 * vringfd_detach() - detach whatever is attached
 * @ring_fd: vring fd
 * Return: 0, or -1 with errno (ENOENT: nothing attached).
 */
int vringfd_detach(int ring_fd);

/**
 * vringfd_set_mem_table() - descriptor address translation
 * @ring_fd: vring fd
 * @regions: @nregions regions (NULL allowed when @nregions is 0)
 * @nregions: 0 removes the table; at most VRINGFD_MAX_MEM_REGIONS
 * Return: 0, or -1 with errno.
 */
int vringfd_set_mem_table(int ring_fd, const struct vringfd_mem_region *regions,
			  unsigned int nregions);

/**
 * vringfd_set_mem_files() - make the ring a ring of memory: regions of
 *	memory files, any process holding the fd may drive it
 * @ring_fd: vring fd
 * @files: guest addresses of the ring parts and last_used (nregions ignored)
 * @regions: @nregions regions (sealed memfds)
 * @nregions: 1..VRINGFD_MAX_MEM_REGIONS
 * Return: 0, or -1 with errno (VRINGFD_SET_MEM_FILES's errors).
 */
int vringfd_set_mem_files(int ring_fd, const struct vringfd_mem_files *files,
			  const struct vringfd_mem_file_region *regions, unsigned int nregions);

/**
 * vringfd_create_of_memory() - a vring fd that is a ring of memory from the
 *	start (VRINGFD_CREATE_F_MEM_FILES): the caller need not map the memory
 * @c: num, features, flags (VRINGFD_CREATE_F_AVAIL_BASE with avail_base);
 *	its addresses 0
 * @files: guest addresses of the ring parts and last_used (nregions ignored)
 * @regions: @nregions regions (sealed memfds)
 * @nregions: 1..VRINGFD_MAX_MEM_REGIONS
 * Return: the vring fd, or -1 with errno (VRINGFD_CREATE's and
 *	VRINGFD_SET_MEM_FILES's errors; EINVAL from a module without
 *	VRINGFD_CAP_CREATE_MEM_FILES).
 */
int vringfd_create_of_memory(const struct vringfd_create *c, const struct vringfd_mem_files *files,
			     const struct vringfd_mem_file_region *regions, unsigned int nregions);

/**
 * vringfd_set_call_fd() - the eventfd the kernel signals on used entries
 * @ring_fd: vring fd
 * @eventfd: an eventfd, or -1 to remove it
 * Return: 0, or -1 with errno.
 */
int vringfd_set_call_fd(int ring_fd, int eventfd);

/**
 * vringfd_get_stats() - the ring's counters
 * @ring_fd: vring fd
 * @stats: filled in
 * Return: 0, or -1 with errno.
 */
int vringfd_get_stats(int ring_fd, struct vringfd_stats *stats);

/**
 * vringfd_get_state() - the kernel's private view of the ring
 * @ring_fd: vring fd
 * @state: filled in (reading clears VRINGFD_STATE_NOTIFY)
 * Return: 0, or -1 with errno.
 */
int vringfd_get_state(int ring_fd, struct vringfd_state *state);

/* ---- 2. driver side ---------------------------------------------------- */

/*
 * Conventions of parts 2 and 3: functions return 0 (or a count, or a head)
 * on success and a negative errno on failure; they never set errno.  Rings
 * are little-endian (virtio 1.x); feature words are bit masks
 * (1ULL << VIRTIO_RING_F_EVENT_IDX, 1ULL << VIRTIO_RING_F_INDIRECT_DESC);
 * bits other than those two are ignored.  One thread at a time per side of
 * a ring; the two sides may run in different threads or processes.
 *
 * Memory ordering (C11 atomics; see the comment at each barrier):
 *  - the driver writes descriptors and the avail entry, then stores
 *    avail->idx with release; the device loads avail->idx with acquire
 *    before it reads the entry and the descriptors;
 *  - the device writes used elements, then stores used->idx with release;
 *    the driver loads used->idx with acquire before it reads the element;
 *  - before deciding whether to notify (need_kick, need_notify) each side
 *    issues a full fence, so its index store is visible before it reads the
 *    other side's suppression flag or event index (store->load order).
 */

/**
 * struct vringfd_ring - the driver's (buffer poster's) view of a split ring
 * @vr: desc/avail/used pointers (struct vring from <linux/virtio_ring.h>)
 * @num: ring size
 * @event_idx: VIRTIO_RING_F_EVENT_IDX negotiated
 * @broken: the device returned a used entry naming a descriptor that is not
 *	an outstanding head; vringfd_ring_get_used() returns NULL from then on
 * @avail_shadow: next avail->idx to publish (entries added so far)
 * @last_used: used entries consumed; pass &ring->last_used to vringfd()
 * @free_head: first free descriptor
 * @num_free: free descriptors
 * @kicked: avail->idx at the last vringfd_ring_need_kick()
 * @tokens: per-head caller data returned by vringfd_ring_get_used()
 * @chain_len: per-head number of descriptors in the chain (0: not a head)
 * @next: private links: the free list, and each chain in flight (never
 *	read back from the shared descriptor table)
 * @free_tail: last free descriptor: freed chains go to the tail of the
 *	free list (FIFO), so that with in-order completion descriptors are
 *	reused in ring order (one-descriptor chains: head == avail index)
 *
 * The ring memory is the caller's; @tokens, @chain_len and @next are
 * allocated by vringfd_ring_init() and freed by vringfd_ring_fini().
 */
struct vringfd_ring {
	struct vring vr;
	unsigned int num;
	bool event_idx;
	bool broken;
	uint16_t avail_shadow;
	uint16_t last_used;
	uint16_t free_head;
	uint16_t num_free;
	uint16_t kicked;
	void **tokens;
	uint16_t *chain_len;
	uint16_t *next;
	uint16_t free_tail;
};

/**
 * vringfd_ring_size() - bytes of a legacy-layout ring
 * @num: ring size, a power of two from 1 to VRINGFD_MAX_NUM
 * @align: alignment of the used ring, a power of two >= 4 (the seed's
 *	vringfd() uses getpagesize())
 *
 * Return: vring_size(@num, @align) of <linux/virtio_ring.h>, or 0 when
 * @num or @align is invalid.
 */
size_t vringfd_ring_size(unsigned int num, unsigned long align);

/**
 * vringfd_ring_init() - set up a driver ring in one block of caller memory
 * @ring: filled in
 * @mem: vringfd_ring_size(@num, @align) bytes, 16-byte aligned; zeroed here
 * @num: ring size, a power of two from 1 to VRINGFD_MAX_NUM
 * @align: used-ring alignment, a power of two >= 4
 * @features: VIRTIO_RING_F_EVENT_IDX is honoured; indirect descriptors are
 *	never posted by these helpers
 *
 * Layout as vring_init(&vr, @num, @mem, @align).
 * Return: 0; -EINVAL (bad @num or @align, NULL or misaligned @mem);
 * -ENOMEM.
 */
int vringfd_ring_init(struct vringfd_ring *ring, void *mem, unsigned int num,
		      unsigned long align, uint64_t features);

/**
 * vringfd_ring_init_parts() - set up a driver ring from three separate parts
 * @ring: filled in
 * @num: ring size, a power of two from 1 to VRINGFD_MAX_NUM
 * @desc: 16 * @num bytes, 16-byte aligned
 * @avail: 6 + 2 * @num bytes, 2-byte aligned
 * @used: 6 + 8 * @num bytes, 4-byte aligned
 * @features: as for vringfd_ring_init()
 *
 * The three parts are zeroed.
 * Return: 0; -EINVAL (bad @num, NULL or misaligned part); -ENOMEM.
 */
int vringfd_ring_init_parts(struct vringfd_ring *ring, unsigned int num,
			    void *desc, void *avail, void *used,
			    uint64_t features);

/**
 * vringfd_ring_fini() - free what vringfd_ring_init() allocated
 * @ring: ring (the ring memory itself is left alone); may be called twice
 */
void vringfd_ring_fini(struct vringfd_ring *ring);

/**
 * vringfd_ring_add() - post one buffer chain (not yet visible to the device)
 * @ring: ring
 * @out: @nout device-readable segments, first in the chain
 * @nout: number of @out segments
 * @in: @nin device-writable segments, after the readable ones
 * @nin: number of @in segments
 * @token: caller data (non-NULL) given back by vringfd_ring_get_used()
 *
 * Writes the descriptors, then the avail entry; vringfd_ring_publish()
 * makes the chains added so far visible.
 * Return: the head descriptor index (>= 0); -EINVAL (no segment, more than
 * @ring->num segments, a segment longer than 4 GiB - 1, NULL @token or a
 * NULL array with a non-zero count); -ENOSPC (fewer free descriptors than
 * segments: collect used entries first); -EIO (@ring is broken).
 */
int vringfd_ring_add(struct vringfd_ring *ring,
		     const struct iovec *out, unsigned int nout,
		     const struct iovec *in, unsigned int nin, void *token);

/**
 * vringfd_ring_publish() - make the chains added so far visible
 * @ring: ring
 *
 * Stores avail->idx with release semantics, after every descriptor and
 * avail entry written by vringfd_ring_add().
 */
void vringfd_ring_publish(struct vringfd_ring *ring);

/**
 * vringfd_ring_need_kick() - must the device be told about new chains
 * @ring: ring
 *
 * Call after vringfd_ring_publish().  Full fence, then: false when nothing
 * was published since the last call; with VIRTIO_RING_F_EVENT_IDX,
 * vring_need_event(avail_event, published, published at the last call);
 * otherwise true unless the device set VRING_USED_F_NO_NOTIFY.
 * Return: true when the caller should kick (write() on the vring fd, or
 * signal the kick eventfd).
 */
bool vringfd_ring_need_kick(struct vringfd_ring *ring);

/**
 * vringfd_ring_more_used() - are there used entries not yet collected
 * @ring: ring
 *
 * Return: true when used->idx (loaded with acquire) differs from
 * @ring->last_used.
 */
bool vringfd_ring_more_used(const struct vringfd_ring *ring);

/**
 * vringfd_ring_get_used() - collect one used entry
 * @ring: ring
 * @len: where to store the length the device wrote (may be NULL)
 *
 * Loads used->idx with acquire, reads the element, checks that its id is an
 * outstanding head (< num, posted, not yet collected), frees the chain,
 * advances @ring->last_used and, with VIRTIO_RING_F_EVENT_IDX, stores
 * used_event = last_used (interrupt me at the next entry).
 * A device that publishes more than num entries, or an element naming a
 * descriptor that is not an outstanding head, marks @ring broken: NULL is
 * returned, nothing is freed and last_used does not move.
 * Return: the token given to vringfd_ring_add(), or NULL (nothing used, or
 * broken).
 */
void *vringfd_ring_get_used(struct vringfd_ring *ring, uint32_t *len);

/**
 * vringfd_ring_add_many() - post @n one-segment chains and publish them once
 * @ring: ring
 * @iov: @n segments, one chain each
 * @n: number of chains
 * @device_writable: true: the segments are device-writable (RX buffers);
 *	false: device-readable (TX frames)
 * @tokens: @n tokens (non-NULL) given back by vringfd_ring_get_used() and
 *	vringfd_ring_get_used_many(), or NULL: each chain's token is its
 *	segment's iov_base (which must then be non-NULL)
 *
 * The batch form of vringfd_ring_add() + vringfd_ring_publish(): the
 * arguments are checked once, descriptors and avail entries written in one
 * pass, avail->idx stored (release) once at the end, after every chain
 * added before (also by vringfd_ring_add()).  With fewer free descriptors
 * than @n, as many chains as fit are added.
 * Return: chains added (0 when the ring is full or @n is 0); -EINVAL (NULL
 * @iov with @n > 0, a segment longer than 4 GiB - 1, a NULL token);
 * -EIO (@ring is broken).  Nothing is added when an error is returned.
 */
int vringfd_ring_add_many(struct vringfd_ring *ring, const struct iovec *iov,
			  unsigned int n, bool device_writable, void *const *tokens);

/**
 * vringfd_ring_get_used_many() - collect up to @max used entries
 * @ring: ring
 * @tokens: where to store the tokens (@max entries)
 * @lens: where to store the lengths the device wrote (@max entries, or NULL)
 * @max: at most this many
 *
 * The batch form of vringfd_ring_get_used(): used->idx is loaded (acquire)
 * once, every entry up to it (at most @max) is checked and its chain freed
 * as vringfd_ring_get_used() does, then @ring->last_used is stored
 * (release) once and, with VIRTIO_RING_F_EVENT_IDX, used_event once
 * (followed by a full fence).  An entry naming a descriptor that is not an
 * outstanding head, or a used->idx more than num ahead, marks @ring broken:
 * the entries before it are returned, nothing after.
 * Return: entries collected (0: none, or broken).
 */
unsigned int vringfd_ring_get_used_many(struct vringfd_ring *ring, void **tokens,
					uint32_t *lens, unsigned int max);

/**
 * vringfd_ring_set_no_interrupt() - ask the device not to interrupt
 * @ring: ring
 * @no_interrupt: set (true) or clear VRING_AVAIL_F_NO_INTERRUPT
 *
 * Without VIRTIO_RING_F_EVENT_IDX only (with it, used_event rules).
 */
void vringfd_ring_set_no_interrupt(struct vringfd_ring *ring, bool no_interrupt);

/* ---- 3. device side ---------------------------------------------------- */

/**
 * vringfd_dev_xlate_fn - translate a descriptor address to a pointer
 * @opaque: caller data
 * @addr: address from a descriptor (guest-physical or user)
 * @len: length wanted; on return, length contiguous at the result (<= len,
 *	> 0 when the result is not NULL)
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
 *
 * Set @xlate and @xlate_opaque after vringfd_dev_init() to translate
 * descriptor and indirect-table addresses (the ring parts themselves are
 * always pointers).
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
 * @nout: number of readable segments at @out
 * @nin: number of writable segments at @in
 * @out_len: bytes in the readable segments
 * @in_len: bytes in the writable segments
 * @out: readable segments (the start of the caller's iovec array)
 * @in: writable segments (right after the readable ones)
 */
struct vringfd_chain {
	uint16_t head;
	unsigned int nout, nin;
	uint64_t out_len, in_len;
	struct iovec *out, *in;
};

/**
 * vringfd_dev_init() - set up the device view of a ring
 * @dev: filled in
 * @num: ring size, a power of two from 1 to VRINGFD_MAX_NUM
 * @desc: descriptor table (16-byte aligned)
 * @avail: avail ring (2-byte aligned)
 * @used: used ring (4-byte aligned)
 * @features: VIRTIO_RING_F_INDIRECT_DESC / _EVENT_IDX bits (others ignored)
 *
 * The ring memory is not touched.  last_avail and the used index start at
 * 0 (a fresh ring); vringfd_dev_set_base() sets other values.
 * Return: 0, or -EINVAL (bad @num, NULL or misaligned part).
 */
int vringfd_dev_init(struct vringfd_dev *dev, unsigned int num, void *desc,
		     void *avail, void *used, uint64_t features);

/**
 * vringfd_dev_set_base() - set where the device resumes
 * @dev: device ring
 * @last_avail: next avail entry to read
 * @used_idx: next used index to write
 *
 * For vhost-user's SET_VRING_BASE, or to start at the indexes found in the
 * ring now (as the module does at VRINGFD_CREATE).  Clears the broken state
 * and the notification history.
 */
void vringfd_dev_set_base(struct vringfd_dev *dev, uint16_t last_avail,
			  uint16_t used_idx);

/**
 * vringfd_dev_get_chain() - take the next available buffer chain
 * @dev: device ring
 * @chain: filled in
 * @iov: array for the segments (readable ones first)
 * @max_iov: entries in @iov
 *
 * Validation (the module's rules; a violation marks the ring broken):
 * avail->idx - last_avail > num; head or next >= num; a chain longer than
 * num descriptors (a loop); an indirect descriptor without
 * VIRTIO_RING_F_INDIRECT_DESC, with NEXT, with a length that is zero or not
 * a multiple of 16 or over VRINGFD_MAX_NUM entries, or inside an indirect
 * table; an indirect table's next >= its size or a chain longer than it; a
 * readable descriptor after a writable one; a buffer or indirect table
 * whose end (address + length) does not fit in 64 bits; a chain of more
 * than 4 GiB - 1 bytes in total.
 * Zero-length descriptors are allowed and give no segment (a chain of only
 * those is taken with no segment at all).  An indirect descriptor may end a
 * chain of direct ones; its own VRING_DESC_F_WRITE flag is ignored (virtio
 * 2.7.5.3.2).  Indirect tables may be misaligned or cross regions.
 * With @dev->xlate, a buffer crossing regions gives several segments.
 * Every value the driver can change is read once, so a driver rewriting the
 * ring meanwhile cannot make the walk see two different values.
 *
 * Return:
 *  1        a chain was taken: @chain describes it, its segments are in @iov
 *  0        no chain available
 *  -EIO     the ring is broken (now or before); nothing was taken and every
 *           later call returns -EIO
 *  -EFAULT  an address (buffer or indirect table) outside every region: the
 *           chain was consumed, @chain->head is valid and the caller must
 *           complete it with vringfd_dev_put_used(dev, head, 0)
 *  -E2BIG   more segments than @max_iov: consumed, complete as for -EFAULT
 *  -EINVAL  @chain or @iov NULL (nothing taken)
 */
int vringfd_dev_get_chain(struct vringfd_dev *dev, struct vringfd_chain *chain,
			  struct iovec *iov, unsigned int max_iov);

/**
 * vringfd_dev_put_used() - complete a chain (not yet visible to the driver)
 * @dev: device ring
 * @head: the chain's head
 * @len: bytes written into its writable segments
 *
 * Writes the used element at the private used index and advances it;
 * vringfd_dev_publish_used() makes it visible.
 * Return: 0; -EINVAL (@head >= num); -EIO (broken).
 */
int vringfd_dev_put_used(struct vringfd_dev *dev, uint16_t head, uint32_t len);

/**
 * vringfd_dev_publish_used() - make the completed chains visible
 * @dev: device ring
 *
 * Stores used->idx with release semantics, after every used element.
 */
void vringfd_dev_publish_used(struct vringfd_dev *dev);

/**
 * vringfd_dev_need_notify() - must the driver be interrupted
 * @dev: device ring
 *
 * Call after vringfd_dev_publish_used().  Full fence, then: false when
 * nothing was published since the last call; with
 * VIRTIO_RING_F_EVENT_IDX, vring_need_event(used_event, new, old) over the
 * entries published since the last call (true on the first call);
 * otherwise true unless the driver set VRING_AVAIL_F_NO_INTERRUPT.
 * Return: true when the caller should signal the driver.
 */
bool vringfd_dev_need_notify(struct vringfd_dev *dev);

/**
 * vringfd_dev_set_no_notify() - ask the driver not to kick (or to kick again)
 * @dev: device ring
 * @no_notify: true to suppress kicks, false to ask for them
 *
 * Without VIRTIO_RING_F_EVENT_IDX sets or clears VRING_USED_F_NO_NOTIFY;
 * with it, enabling stores avail_event = last_avail (kick me at the next
 * chain) and disabling does nothing.  Enabling ends with a full fence: the
 * caller must then check vringfd_dev_pending() again, since chains
 * published before the driver saw the change got no kick.
 */
void vringfd_dev_set_no_notify(struct vringfd_dev *dev, bool no_notify);

/**
 * vringfd_dev_enable_notify() - ask for a kick, then look once more
 * @dev: device ring
 *
 * vringfd_dev_set_no_notify(@dev, false) (with EVENT_IDX: avail_event =
 * last_avail), full fence, then vringfd_dev_pending(): the contract of
 * vhost's vhost_enable_notify().  Call when a walk found the ring empty;
 * when it returns true, chains were published before the driver could see
 * the request and no kick will come for them: walk again.
 * Return: true when chains are available (or the driver broke the index:
 * the next vringfd_dev_get_chain() says so).
 */
bool vringfd_dev_enable_notify(struct vringfd_dev *dev);

/**
 * vringfd_dev_discard() - give back the last chains taken
 * @dev: device ring
 * @n: how many of the chains taken last (not completed) to give back
 *
 * The next vringfd_dev_get_chain() returns them again, in order (vhost's
 * vhost_discard_vq_desc()).  For a receiver that took buffers for a frame
 * that did not come, or more than the frame needed.
 * Return: 0, or -EINVAL when @n is more than the ring holds.
 */
int vringfd_dev_discard(struct vringfd_dev *dev, unsigned int n);

/**
 * vringfd_dev_pending() - chains available and not yet taken
 * @dev: device ring
 *
 * Return: avail->idx - last_avail (loaded with acquire), 0 when broken.  A
 * value > num means the driver broke the ring (get_chain will say so).
 */
unsigned int vringfd_dev_pending(const struct vringfd_dev *dev);


/* ---- 4. vringnetd ring-fd client --------------------------------------- */

/*
 * The wire protocol of a vringnetd "type = ringfd" port (vringnetd-ringfd(7)).
 * All fields are host byte order (the socket is a local unix socket).  The
 * client sends one struct vringnet_rfd_setup (with its queue pairs) and,
 * as SCM_RIGHTS of the same message, 1 + 4 * nqp fds: the memfd holding
 * rings and buffers, then per queue pair the tx kick, tx call, rx kick and
 * rx call eventfds.  Ring offsets and descriptor addresses are offsets in
 * the memfd.  The daemon answers with one struct vringnet_rfd_reply.
 *
 * With VRINGNET_RFD_F_RINGS in @flags the client passes ready rings
 * instead of a memfd: 6 * nqp fds, first the vring fds of each queue pair
 * (tx, rx; rings of memory, VRINGFD_SET_MEM_FILES, not attached), then the
 * same four eventfds per queue pair.  The daemon attaches the rings to its
 * tap and serves them with the kernel engine; it never maps the memory.
 */
#define VRINGNET_RFD_MAGIC	0x44465256u	/* "VRFD" little-endian */
#define VRINGNET_RFD_VERSION	1
#define VRINGNET_RFD_SETUP	1	/* client -> daemon */
#define VRINGNET_RFD_OK		2	/* daemon -> client */
#define VRINGNET_RFD_ERROR	3	/* daemon -> client */
#define VRINGNET_RFD_MAX_QP	8
#define VRINGNET_RFD_MAX_NUM	32768
#define VRINGNET_RFD_VNET_HDR_LEN 12	/* struct virtio_net_hdr_mrg_rxbuf */
#define VRINGNET_RFD_F_MRG_RXBUF 0x1u	/* flags: mergeable rx buffers */
#define VRINGNET_RFD_F_RINGS	0x2u	/* flags: ready vring fds, no memfd */
/* features: VIRTIO_RING_F_EVENT_IDX and VIRTIO_RING_F_INDIRECT_DESC bits */
#define VRINGNET_RFD_FEATURES	((1ULL << VIRTIO_RING_F_EVENT_IDX) | \
				 (1ULL << VIRTIO_RING_F_INDIRECT_DESC))

/**
 * struct vringnet_rfd_hdr - first bytes of every message
 * @magic: VRINGNET_RFD_MAGIC
 * @version: VRINGNET_RFD_VERSION
 * @size: bytes of the whole message, this header included
 * @type: VRINGNET_RFD_SETUP, _OK or _ERROR
 */
struct vringnet_rfd_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t size;
	uint32_t type;
};

/**
 * struct vringnet_rfd_ring - where one split ring lies in the memfd
 * @num: entries, a power of two from 1 to VRINGNET_RFD_MAX_NUM (with
 *	VRINGNET_RFD_F_RINGS: the passed ring's size, checked)
 * @reserved: 0
 * @desc: offset of the descriptor table (16-byte aligned, 16 * num bytes);
 *	0 with VRINGNET_RFD_F_RINGS, as @avail and @used
 * @avail: offset of the avail ring (2-byte aligned, 6 + 2 * num bytes)
 * @used: offset of the used ring (4-byte aligned, 6 + 8 * num bytes)
 */
struct vringnet_rfd_ring {
	uint32_t num;
	uint32_t reserved;
	uint64_t desc;
	uint64_t avail;
	uint64_t used;
};

/**
 * struct vringnet_rfd_qp - one queue pair
 * @tx: the ring the client sends frames on
 * @rx: the ring the client posts receive buffers on
 */
struct vringnet_rfd_qp {
	struct vringnet_rfd_ring tx;
	struct vringnet_rfd_ring rx;
};

/**
 * struct vringnet_rfd_setup - SETUP: the client's rings
 * @hdr: type VRINGNET_RFD_SETUP, size sizeof(this) + nqp * sizeof(qp[0])
 * @nqp: queue pairs, 1 to VRINGNET_RFD_MAX_QP (and at most the tap's
 *	queues)
 * @features: subset of VRINGNET_RFD_FEATURES
 * @vnet_hdr_len: VRINGNET_RFD_VNET_HDR_LEN (each frame in the rings is
 *	preceded by a 12-byte virtio-net header)
 * @flags: subset of VRINGNET_RFD_F_MRG_RXBUF | VRINGNET_RFD_F_RINGS
 * @qp: @nqp queue pairs
 *
 * 32 bytes without the queue pairs (no implicit padding), 64 per pair.
 */
struct vringnet_rfd_setup {
	struct vringnet_rfd_hdr hdr;
	uint32_t nqp;
	uint64_t features;
	uint32_t vnet_hdr_len;
	uint32_t flags;
	struct vringnet_rfd_qp qp[];
};

/**
 * struct vringnet_rfd_reply - the daemon's answer
 * @hdr: type VRINGNET_RFD_OK or VRINGNET_RFD_ERROR, size sizeof(this)
 * @error: 0 for OK, else a positive errno value
 * @features: OK: the ring features the daemon serves (VRINGNET_RFD_FEATURES)
 * @text: NUL-terminated reason (error) or the daemon's engine name (OK)
 *
 * 184 bytes, no implicit padding.
 */
struct vringnet_rfd_reply {
	struct vringnet_rfd_hdr hdr;
	int32_t error;
	uint64_t features;
	char text[160];
};

/**
 * struct vringnet_client_config - what vringnet_connect() sets up
 * @num: ring size of both rings (power of two, 1..32768; 0: 256)
 * @buf_size: bytes per buffer, header included (0: 2048; 64..65550)
 * @features: ring features to ask for (subset of VRINGNET_RFD_FEATURES;
 *	the client helpers never post indirect descriptors)
 */
struct vringnet_client_config {
	unsigned int num;
	unsigned int buf_size;
	uint64_t features;
};

struct vringnet_client;

/*
 * Conventions of part 4: 0 or a count on success, a negative errno on
 * failure; errno is not used.  One queue pair, no mergeable rx buffers.
 * A client is used by one thread at a time.
 */

/**
 * vringnet_connect() - connect to a ring-fd port and hand it the rings
 * @path: the port's unix socket (SOCK_SEQPACKET)
 * @cfg: sizes (NULL: defaults)
 * @out: the new client
 *
 * Makes a sealed memfd with both rings and num buffers per ring, posts
 * every rx buffer, sends SETUP and waits (5 s at most) for the answer.
 * Return: 0; -EINVAL (bad @cfg, NULL @path or @out, path too long);
 * -ENOMEM; the socket's -errno (-ENOENT, -ECONNREFUSED, ...); -ETIMEDOUT;
 * -EPROTO (a malformed answer); the daemon's refusal as -error (its text:
 * vringnet_connect_err()).
 */
int vringnet_connect(const char *path, const struct vringnet_client_config *cfg,
		     struct vringnet_client **out);

/**
 * vringnet_connect_err() - vringnet_connect() with the daemon's reason
 * @path: as for vringnet_connect()
 * @cfg: as for vringnet_connect()
 * @out: as for vringnet_connect()
 * @err: the daemon's text on refusal, or a local reason
 * @errlen: size of @err
 * Return: as vringnet_connect().
 */
int vringnet_connect_err(const char *path, const struct vringnet_client_config *cfg,
			 struct vringnet_client **out, char *err, size_t errlen);

/**
 * vringnet_connect_rings() - vringnet_connect_err(), passing ready rings
 * @path: as for vringnet_connect()
 * @cfg: as for vringnet_connect()
 * @out: as for vringnet_connect()
 * @err: as for vringnet_connect_err()
 * @errlen: its size
 *
 * The same memfd and rings, but the client makes them rings of memory
 * itself (VRINGFD_CREATE, then VRINGFD_SET_MEM_FILES over the whole memfd
 * at guest address 0: needs vringfd.ko with VRINGFD_CAP_MEM_FILES and the
 * memfd's pages within RLIMIT_MEMLOCK, twice: each ring holds them) and
 * sends their vring fds (SETUP flag VRINGNET_RFD_F_RINGS) instead of the
 * memfd: the daemon attaches them to its tap and never maps the memory.
 * The client's copies of the vring fds are closed once the daemon answered;
 * the rest is as for a client of vringnet_connect().
 * Return: as vringnet_connect_err(); also -ENOENT (no /dev/vringfd),
 * -EOPNOTSUPP (the module has no VRINGFD_CAP_MEM_FILES), and the errors of
 * VRINGFD_CREATE and VRINGFD_SET_MEM_FILES (-ENOMEM: RLIMIT_MEMLOCK).
 */
int vringnet_connect_rings(const char *path, const struct vringnet_client_config *cfg,
			   struct vringnet_client **out, char *err, size_t errlen);

/**
 * vringnet_tx_ring() - the driver view of the tx ring
 * @c: client
 * Return: the ring (descriptor addresses are memfd offsets).
 */
struct vringfd_ring *vringnet_tx_ring(struct vringnet_client *c);

/**
 * vringnet_rx_ring() - the driver view of the rx ring
 * @c: client
 * Return: the ring.
 */
struct vringfd_ring *vringnet_rx_ring(struct vringnet_client *c);

/**
 * vringnet_mem() - the shared memory
 * @c: client
 * @size: its size (may be NULL)
 * Return: where the memfd is mapped; offset X in a descriptor is mem + X.
 */
void *vringnet_mem(struct vringnet_client *c, size_t *size);

/**
 * vringnet_rx_call_fd() - eventfd the daemon signals when rx buffers are used
 * @c: client
 * Return: the fd (poll it for POLLIN).
 */
int vringnet_rx_call_fd(struct vringnet_client *c);

/**
 * vringnet_kick() - signal a ring's kick eventfd
 * @c: client
 * @rx: true for the rx ring, false for tx
 * Return: 0 or -errno of write().
 */
int vringnet_kick(struct vringnet_client *c, bool rx);

/**
 * vringnet_send() - send one Ethernet frame
 * @c: client
 * @frame: the frame (no virtio-net header: a zero one is put in front)
 * @len: its length, 14 .. buf_size - 12
 *
 * Collects completed tx buffers, copies the frame into a free one, posts
 * and kicks when the ring asks for it.
 * Return: 0; -EINVAL (bad length); -EAGAIN (every tx buffer in flight);
 * -EIO (the daemon broke the ring); -EPIPE (the daemon hung up).
 */
int vringnet_send(struct vringnet_client *c, const void *frame, size_t len);

/**
 * vringnet_recv() - take one received frame
 * @c: client
 * @buf: where to copy it (without its virtio-net header)
 * @len: size of @buf
 * @timeout_ms: how long to wait for one (0: do not wait, -1: forever)
 *
 * The buffer is posted again afterwards.
 * Return: the frame's length (truncated to @len when longer); -EAGAIN
 * (nothing within @timeout_ms); -EIO (broken ring); -EPIPE (hang-up).
 */
ssize_t vringnet_recv(struct vringnet_client *c, void *buf, size_t len, int timeout_ms);

/**
 * vringnet_close() - hang up and free everything
 * @c: client (NULL allowed)
 */
void vringnet_close(struct vringnet_client *c);

#ifdef __cplusplus
}
#endif

#endif /* VRINGFD_H */
