/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * vringfd.h - user/kernel ABI of vringfd.ko, the vring file descriptor.
 *
 * A vring fd is a file descriptor over a virtio 1.x split virtqueue that lives
 * in the memory of the process that created it, or, as a ring of memory
 * (VRINGFD_SET_MEM_FILES, VRINGFD_CREATE_F_MEM_FILES), in memory files whose
 * pages the module holds:
 *
 *   write()  the kernel consumes available buffers (push); returns the number
 *            of buffer chains consumed (0: none were available).  The buffer
 *            and length passed to write() are ignored.
 *   poll()   the kernel fills posted buffers (pull) and reports the fd
 *            readable (POLLIN|POLLRDNORM) when buffers were used, or when
 *            used->idx in user memory differs from the user's *last_used.
 *            POLLERR: the ring is broken, or poll() was called from another
 *            address space (not for a ring of memory); POLLHUP: the attached tap went away.
 *   read()   on an RX ring attached to a tap: pull now; returns the number of
 *            buffers filled.  The buffer passed to read() is ignored.
 *   close()  the attached subsystem is detached and everything is released.
 *
 * The fd is made by VRINGFD_CREATE on the misc device /dev/vringfd.
 *
 * Errors that every ring operation may return:
 *   EPERM   the caller's address space is not the one that created the ring
 *           (the ring belongs to that mm; nothing was touched).  Not for a
 *           ring of memory (VRINGFD_SET_MEM_FILES): any process may use it.
 *   EIO     the ring is broken: user space broke the ring protocol (a
 *           descriptor loop, an index out of range, avail->idx moving by
 *           more than num, a nested indirect table, ...).  A broken ring stays
 *           broken; close it and create a new one.
 *   EFAULT  ring memory could not be read or written (unmapped, protected),
 *           also the used ring while a write() or read() completes chains
 *           (frames it already sent stay sent).  The ring is
 *           marked broken as well.
 *   EINTR   a fatal signal while the call waited for another call on the
 *           ring (one may wait on ring memory, e.g. a userfaultfd page, for
 *           as long as user space wants).  poll() cannot fail: it then
 *           reports POLLIN (a spurious readiness).
 *
 * Ioctl numbers: magic 0xB9; 0x00-0x0f on /dev/vringfd, 0x10-0x2f on a
 * vring fd.  Directions are from user space's view (_IOW: user writes).
 */
#ifndef _UAPI_LINUX_VRINGFD_H
#define _UAPI_LINUX_VRINGFD_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define VRINGFD_IOCTL_MAGIC	0xB9

/** VRINGFD_API_VERSION - bumped on any incompatible ABI change. */
#define VRINGFD_API_VERSION	1

/** VRINGFD_MAX_NUM - the largest ring (as in virtio: 32768 entries). */
#define VRINGFD_MAX_NUM		32768

/* Capability bits reported in struct vringfd_version.caps. */
#define VRINGFD_CAP_TAP		(1ULL << 0)	/* VRINGFD_ATTACH_TAP */
#define VRINGFD_CAP_MEM_TABLE	(1ULL << 1)	/* VRINGFD_SET_MEM_TABLE */
#define VRINGFD_CAP_STATS	(1ULL << 2)	/* VRINGFD_GET_STATS */
#define VRINGFD_CAP_CALL_FD	(1ULL << 3)	/* VRINGFD_SET_CALL_FD */
#define VRINGFD_CAP_READ	(1ULL << 4)	/* read() pulls an RX ring */
#define VRINGFD_CAP_AVAIL_BASE	(1ULL << 5)	/* VRINGFD_CREATE_F_AVAIL_BASE */
#define VRINGFD_CAP_TAP_IFINDEX	(1ULL << 6)	/* struct vringfd_tap.ifindex; the
						 * module configures nothing on the
						 * tap (see VRINGFD_ATTACH_TAP) */
#define VRINGFD_CAP_MEM_FILES	(1ULL << 7)	/* VRINGFD_SET_MEM_FILES */
#define VRINGFD_CAP_KICK	(1ULL << 8)	/* VRINGFD_SET_KICK */
#define VRINGFD_CAP_CREATE_MEM_FILES (1ULL << 9) /* VRINGFD_CREATE_F_MEM_FILES */

/**
 * struct vringfd_version - what the loaded module supports
 * @api_version: VRINGFD_API_VERSION of the module
 * @max_num: largest ring size accepted by VRINGFD_CREATE
 * @ring_features: feature bits (1ULL << VIRTIO_RING_F_*, VIRTIO_F_*) that
 *	VRINGFD_CREATE understands; any other bit is refused with EINVAL
 * @caps: VRINGFD_CAP_* bits
 * @max_mem_regions: most regions VRINGFD_SET_MEM_TABLE accepts
 * @reserved: zero
 */
struct vringfd_version {
	__u32 api_version;
	__u32 max_num;
	__u64 ring_features;
	__u64 caps;
	__u32 max_mem_regions;
	__u32 reserved[9];
};

/**
 * VRINGFD_GET_VERSION - struct vringfd_version (out)
 *
 * Valid on /dev/vringfd and on any vring fd.  Never fails with a valid
 * pointer; EFAULT otherwise.
 */
#define VRINGFD_GET_VERSION	_IOR(VRINGFD_IOCTL_MAGIC, 0x00, struct vringfd_version)

/* Flags for struct vringfd_create.flags. */
#define VRINGFD_CREATE_F_AVAIL_BASE	(1U << 0)	/* start at @avail_base */
#define VRINGFD_CREATE_F_MEM_FILES	(1U << 1)	/* a ring of memory: @mem_files */

/**
 * struct vringfd_create - describe a split virtqueue in the caller's memory,
 *	or in memory files (VRINGFD_CREATE_F_MEM_FILES)
 * @num: number of entries; a power of two from 1 to VRINGFD_MAX_NUM
 * @flags: VRINGFD_CREATE_F_* (any other bit: EINVAL)
 * @features: 1ULL << VIRTIO_RING_F_INDIRECT_DESC and/or
 *	1ULL << VIRTIO_RING_F_EVENT_IDX (and VIRTIO_F_VERSION_1, accepted
 *	and ignored: the ring is always little-endian)
 * @desc_addr: user address of the descriptor table (16-byte aligned);
 *	0 with VRINGFD_CREATE_F_MEM_FILES (the table names the ring parts)
 * @avail_addr: user address of the avail ring (2-byte aligned), or 0
 * @used_addr: user address of the used ring (4-byte aligned), or 0
 * @last_used_addr: user address of a __u16 the user keeps equal to the
 *	number of used entries it has consumed (2-byte aligned); poll() with
 *	nothing attached compares it with used->idx; or 0
 * @avail_base: with VRINGFD_CREATE_F_AVAIL_BASE, the first avail entry the
 *	kernel reads (a virtio device's starting position: vhost-user's
 *	SET_VRING_BASE, 0 for a fresh ring); must be 0 without the flag
 *	(carved out of the former reserved[0]: size and offsets unchanged)
 * @padding: zero
 * @mem_files: with VRINGFD_CREATE_F_MEM_FILES, a user pointer to a struct
 *	vringfd_mem_files and its regions (as VRINGFD_SET_MEM_FILES takes);
 *	0 without the flag (the former @reserved, which still names it)
 */
struct vringfd_create {
	__u32 num;
	__u32 flags;
	__u64 features;
	__u64 desc_addr;
	__u64 avail_addr;
	__u64 used_addr;
	__u64 last_used_addr;
	__u16 avail_base;
	__u16 padding[3];
	union {
		__u64 mem_files;
		__u64 reserved;
	};
};

/**
 * VRINGFD_CREATE - struct vringfd_create (in); returns a new vring fd
 *
 * On /dev/vringfd.  The new fd is O_CLOEXEC and is opened for read and
 * write.  The kernel's view of the avail ring starts at the avail->idx found
 * now (as in the seed), or, with VRINGFD_CREATE_F_AVAIL_BASE, at
 * @avail_base: chains the driver made available before the ring was
 * created (avail entries @avail_base .. avail->idx - 1) are then consumed
 * by the first walk.  The used index always starts at the used->idx found
 * now (as vhost does when a ring starts): the kernel's used index is private
 * from then on.
 *
 * With the flag, avail->idx - @avail_base (mod 2^16) must be at most @num
 * now (EINVAL otherwise); the walker's rule "avail->idx - last_avail > num
 * breaks the ring" applies from the first walk on, as for any ring.
 * VRINGFD_GET_VERSION reports VRINGFD_CAP_AVAIL_BASE when the flag is
 * understood (an older module refuses it with EINVAL).
 *
 * With VRINGFD_CREATE_F_MEM_FILES the ring is a ring of memory from the
 * start: @mem_files is taken as VRINGFD_SET_MEM_FILES takes it, the ring
 * parts are the table's guest addresses, and the indices are read there
 * (through the pages the module holds).  The caller need not have mapped
 * the memory at all, and the four addresses of this struct must be 0.
 * Errors then also those of VRINGFD_SET_MEM_FILES.  VRINGFD_GET_VERSION
 * reports VRINGFD_CAP_CREATE_MEM_FILES (an older module: EINVAL).
 *
 * Errors: EINVAL (num not a power of two in 1..32768, misaligned address,
 * unknown feature or flag, non-zero @padding or @mem_files without
 * VRINGFD_CREATE_F_MEM_FILES, a non-zero address with it, non-zero
 * @avail_base without VRINGFD_CREATE_F_AVAIL_BASE, avail->idx more than @num entries ahead
 * of @avail_base), EFAULT (a ring part is not readable, or the used ring is not
 * writable, now), ENOMEM, EMFILE.
 */
#define VRINGFD_CREATE		_IOW(VRINGFD_IOCTL_MAGIC, 0x01, struct vringfd_create)

/* Directions for struct vringfd_tap.dir. */
#define VRINGFD_DIR_TX		0	/* ring -> tap: write() transmits */
#define VRINGFD_DIR_RX		1	/* tap -> ring: poll()/read() receive */

/* Flags for struct vringfd_tap.flags. */
#define VRINGFD_TAP_F_MRG_RXBUF	(1U << 0)	/* RX: a frame may span heads */

/**
 * struct vringfd_tap - attach a ring to one queue of a tun/tap device
 * @tap_fd: an fd for which the kernel's tun_get_socket() or
 *	tap_get_socket() gives a socket (as vhost-net's VHOST_NET_SET_BACKEND):
 *	an fd of /dev/net/tun attached to a device (a queue of a multi-queue
 *	device), or of a macvtap/ipvtap character device.  The module does
 *	not look at the device's configuration.
 * @dir: VRINGFD_DIR_TX or VRINGFD_DIR_RX
 * @vnet_hdr_len: the caller's declaration of the virtio-net header the tap
 *	puts in front of each frame: 0 (none), 10 (struct virtio_net_hdr) or
 *	12 (struct virtio_net_hdr_v1 / _mrg_rxbuf).  The caller configures
 *	the tap to match (IFF_VNET_HDR, TUNSETVNETHDRSZ), as a vhost-net user
 *	does; the module neither checks nor sets it.
 * @flags: VRINGFD_TAP_F_*
 * @ifindex: optional: the ifindex of the tap's device in the caller's
 *	network namespace, used only to copy the device's own drop counter
 *	into struct vringfd_stats.tap_rx_dropped.  0: not counted (that
 *	stat stays 0).  Not checked against @tap_fd (a wrong one gives the
 *	wrong device's counter, which the caller can read anyway).  Carved
 *	out of the former reserved[0] (with @padding): size and offsets
 *	unchanged, a caller that zeroes the struct gets the old behaviour.
 *	VRINGFD_GET_VERSION reports VRINGFD_CAP_TAP_IFINDEX when supported.
 * @padding: zero
 * @reserved: zero
 */
struct vringfd_tap {
	__s32 tap_fd;
	__u32 dir;
	__u32 vnet_hdr_len;
	__u32 flags;
	__s32 ifindex;
	__u32 padding;
	__u64 reserved;
};

/**
 * VRINGFD_ATTACH_TAP - struct vringfd_tap (in)
 *
 * The tap fd is looked up once and its file kept until detach or close
 * (closing the caller's tap fd does not end the attachment).  The module
 * issues no ioctl on the tap and reads none of its settings: the caller
 * configures it (IFF_TAP, IFF_NO_PI, IFF_VNET_HDR and TUNSETVNETHDRSZ to
 * match @vnet_hdr_len, TUNSETOFFLOAD), as for vhost-net.  A tap configured
 * otherwise (IFF_TUN, packet information, another header size) gives
 * garbage or short frames, or drops (counted in the stats), never a fault:
 * the module copies only within the ring's buffers.  Both rings of one
 * queue must declare the same @vnet_hdr_len.
 * Errors: EBADF (tap_fd is not an open fd), EINVAL (not a tun/tap fd, a bad
 * direction/header length/flag, non-zero @padding/@reserved, a negative
 * @ifindex, a @vnet_hdr_len other than the one the queue's other ring
 * declared), EBUSY (this ring is already attached, or that queue already
 * has a ring of this direction), ENODEV (the tap fd is not attached to a
 * device, or no device has @ifindex in the caller's network namespace).
 *
 * Attached: write() on a TX ring sends every available chain (returns the
 * chains consumed, sent or dropped, at most a bounded number per call; 0
 * only when no chain is available); read() or write()
 * on an RX ring fills posted buffers (returns the buffers used; after
 * posting buffers, kick with read() or write()); poll() fills them too.
 * Once the tap device is gone, write() and read() fail with EPIPE and
 * poll() reports EPOLLERR|EPOLLHUP (VRINGFD_STATE_HUP).
 */
#define VRINGFD_ATTACH_TAP	_IOW(VRINGFD_IOCTL_MAGIC, 0x10, struct vringfd_tap)

/**
 * VRINGFD_DETACH - no argument
 *
 * Detach whatever subsystem is attached (a tap, or an in-kernel user of the
 * exported API).  Errors: ENOENT (nothing attached), EINTR (a fatal signal
 * while waiting for a running write()/read()/poll() of the ring).
 */
#define VRINGFD_DETACH		_IO(VRINGFD_IOCTL_MAGIC, 0x11)

/**
 * struct vringfd_mem_region - one region of a guest's memory
 * @guest_addr: guest-physical address of the region's first byte
 * @size: length in bytes (non-zero)
 * @user_addr: where the region is mapped in the caller's address space
 * @reserved: zero
 */
struct vringfd_mem_region {
	__u64 guest_addr;
	__u64 size;
	__u64 user_addr;
	__u64 reserved;
};

/** VRINGFD_MAX_MEM_REGIONS - most regions in one memory table. */
#define VRINGFD_MAX_MEM_REGIONS	64

/**
 * struct vringfd_mem_table - translation of descriptor addresses
 * @nregions: number of entries in @regions (0 removes the table)
 * @padding: zero
 * @regions: non-overlapping guest regions
 */
struct vringfd_mem_table {
	__u32 nregions;
	__u32 padding;
	struct vringfd_mem_region regions[];
};

/**
 * VRINGFD_SET_MEM_TABLE - struct vringfd_mem_table followed by its regions (in)
 *
 * With a table, descriptor addresses (and indirect table addresses) are
 * guest-physical and translated through it; a buffer crossing regions is
 * split; an address outside every region drops the chain (counted in
 * drop_bad_addr).  The ring parts themselves are always at the user
 * addresses given to VRINGFD_CREATE.  Without a table, descriptor addresses
 * are the caller's user addresses.
 * Errors: EINVAL (too many regions, zero size, overlap, wrap-around,
 * non-zero reserved), EFAULT, ENOMEM.
 */
#define VRINGFD_SET_MEM_TABLE	_IOW(VRINGFD_IOCTL_MAGIC, 0x12, struct vringfd_mem_table)

/**
 * struct vringfd_stats - counters of one ring since it was created
 * @frames: chains completed with data (TX: sent to the tap; RX: filled)
 * @bytes: bytes of frame data moved (virtio-net headers excluded)
 * @batches: those calls (and worker runs) that moved at least one chain
 * @calls: write()/read()/poll() calls, and runs of the kick-mode worker
 *	(VRINGFD_SET_KICK)
 * @drop_bad_chain: chains of the wrong direction or empty (completed, len 0)
 * @drop_too_big: chains over 64 KiB + header (completed, len 0)
 * @drop_bad_hdr: frames with an invalid virtio-net header
 * @drop_bad_addr: chains with an address outside the memory table or
 *	unreadable/unwritable user memory
 * @drop_tap: frames the tap refused (TX) or that failed to copy (RX)
 * @tap_rx_dropped: the tap device's own drop counter for this direction
 *	(tun's drops): rx_dropped for a TX ring, tx_dropped (its queue to
 *	user space overflowing) for an RX ring, of the device the caller
 *	named in struct vringfd_tap.ifindex; 0 when it named none
 * @notifies: times the kernel signalled the call eventfd
 * @reserved: zero
 */
struct vringfd_stats {
	__u64 frames;
	__u64 bytes;
	__u64 batches;
	__u64 calls;
	__u64 drop_bad_chain;
	__u64 drop_too_big;
	__u64 drop_bad_hdr;
	__u64 drop_bad_addr;
	__u64 drop_tap;
	__u64 tap_rx_dropped;
	__u64 notifies;
	__u64 reserved[5];
};

/**
 * VRINGFD_GET_STATS - struct vringfd_stats (out)
 */
#define VRINGFD_GET_STATS	_IOR(VRINGFD_IOCTL_MAGIC, 0x13, struct vringfd_stats)

/* Bits of struct vringfd_state.flags. */
#define VRINGFD_STATE_BROKEN	(1U << 0)	/* every call fails with EIO */
#define VRINGFD_STATE_ATTACHED	(1U << 1)	/* a subsystem is attached */
#define VRINGFD_STATE_NOTIFY	(1U << 2)	/* virtio asks for an interrupt */
#define VRINGFD_STATE_HUP	(1U << 3)	/* the attached tap went away */
#define VRINGFD_STATE_MEM_FILES	(1U << 4)	/* a ring of memory
						 * (VRINGFD_SET_MEM_FILES): any
						 * process may drive it */
#define VRINGFD_STATE_KICK	(1U << 5)	/* in kick mode
						 * (VRINGFD_SET_KICK): the
						 * module serves it itself */

/**
 * struct vringfd_state - the kernel's private view of the ring
 * @last_avail: next avail entry the kernel will read
 * @used_idx: the kernel-private used index (what it last wrote to used->idx)
 * @flags: VRINGFD_STATE_*; reading clears VRINGFD_STATE_NOTIFY
 * @num: ring size
 * @reserved: zero
 *
 * VRINGFD_STATE_NOTIFY is set when entries were added to the used ring and
 * virtio's rules ask for an interrupt: with VIRTIO_RING_F_EVENT_IDX when
 * used_event was crossed, otherwise unless VRING_AVAIL_F_NO_INTERRUPT is
 * set.  A caller that gave VRINGFD_SET_CALL_FD need not look: the kernel
 * signals the eventfd itself.
 *
 * VRINGFD_STATE_MEM_FILES lets a process that was passed a vring fd tell a
 * ring of memory, which it may drive, from a ring of another address space,
 * whose every walk would fail with EPERM (vringnetd's ring-fd port refuses
 * the latter before it attaches anything).
 *
 * VRINGFD_STATE_KICK: the ring is in kick mode (VRINGFD_SET_KICK with an
 * eventfd): the module's worker serves it on kicks and tap events, so a
 * process holding it need not call write() or read() (they still work).
 * Cleared when kick mode ends: VRINGFD_SET_KICK -1 or VRINGFD_DETACH.  A
 * deleted tap (VRINGFD_STATE_HUP) leaves it set: the worker then has
 * nothing to serve, and DETACH ends it.
 */
struct vringfd_state {
	__u16 last_avail;
	__u16 used_idx;
	__u32 flags;
	__u32 num;
	__u32 reserved[5];
};

/**
 * VRINGFD_GET_STATE - struct vringfd_state (out)
 */
#define VRINGFD_GET_STATE	_IOR(VRINGFD_IOCTL_MAGIC, 0x14, struct vringfd_state)

/**
 * VRINGFD_SET_CALL_FD - __s32 eventfd (in), or -1 to remove
 *
 * The kernel signals this eventfd whenever virtio's notification rules ask
 * for an interrupt after it added used entries (as vhost's call fd).
 * Errors: EBADF, EINVAL (not an eventfd).
 */
#define VRINGFD_SET_CALL_FD	_IOW(VRINGFD_IOCTL_MAGIC, 0x15, __s32)

/**
 * struct vringfd_mem_file_region - one region of a guest's memory, in a file
 * @guest_addr: guest-physical address of the region's first byte
 * @size: length in bytes (non-zero; @offset + @size within the file's size)
 * @offset: where the region starts in the file (a multiple of the page size)
 * @fd: a memfd sealed with F_SEAL_SHRINK (shmem, or hugetlbfs: MFD_HUGETLB)
 * @reserved: zero
 */
struct vringfd_mem_file_region {
	__u64 guest_addr;
	__u64 size;
	__u64 offset;
	__s32 fd;
	__u32 reserved;
};

/**
 * VRINGFD_MAX_MEM_FILE_PAGES - most pages one VRINGFD_SET_MEM_FILES table
 * pins, all regions together (262144 4 KiB pages: 1 GiB).
 */
#define VRINGFD_MAX_MEM_FILE_PAGES	262144

/**
 * struct vringfd_mem_files - a memory table of memory files, with the ring
 * @nregions: number of entries in @regions (1..VRINGFD_MAX_MEM_REGIONS)
 * @flags: zero
 * @desc_addr: guest address of the descriptor table (16-byte aligned)
 * @avail_addr: guest address of the avail ring (2-byte aligned)
 * @used_addr: guest address of the used ring (4-byte aligned)
 * @last_used_addr: guest address of the __u16 that VRINGFD_CREATE's
 *	@last_used_addr names (2-byte aligned)
 * @reserved: zero
 * @regions: non-overlapping guest regions
 */
struct vringfd_mem_files {
	__u32 nregions;
	__u32 flags;
	__u64 desc_addr;
	__u64 avail_addr;
	__u64 used_addr;
	__u64 last_used_addr;
	__u64 reserved[2];
	struct vringfd_mem_file_region regions[];
};

/**
 * VRINGFD_SET_MEM_FILES - struct vringfd_mem_files and its regions (in)
 *
 * Makes the ring a ring of memory: its parts (descriptor table, avail and
 * used rings, last_used) and every buffer are guest addresses in memory
 * files, and the module reaches them through pages it holds, not through
 * an address space.  The ring then belongs to no process: write(), read(),
 * poll() and the ioctls work in any process that holds the fd (passed
 * with SCM_RIGHTS, inherited over fork()); the EPERM of another address
 * space no longer applies.  The ring parts must be the memory given to
 * VRINGFD_CREATE (the kernel's indices continue from there).  Each part
 * must lie inside one region.
 *
 * Each file is held (a file reference) and every page of each region is
 * looked up (allocated if it was a hole) and held with a page reference at
 * this call (a hugetlbfs region's holes get huge pages from the pool, as
 * fallocate() gives them, and are charged below in base pages), until the table is replaced or the ring is freed; the pages
 * are accounted to the caller's user in locked_vm and limited by
 * RLIMIT_MEMLOCK unless the caller has CAP_IPC_LOCK.  Pages are charged
 * once per user however many rings hold them: a region whose file,
 * offset and size are those of a region another ring of the same user
 * holds, and whose pages are the very pages held there, is not charged
 * again.  A replacing table is built before the old one is released:
 * its regions that hold other pages need room for both for that moment.
 * Only memfds sealed
 * with F_SEAL_SHRINK are accepted (shmem and hugetlbfs ones): the file cannot shrink, so a page the
 * module holds is always a page of the file.  A hole punched with
 * fallocate() replaces the file's pages: the module keeps the old ones
 * (memory-safe; the ring then no longer sees the file's new contents).
 *
 * A ring of memory stays one: a later VRINGFD_SET_MEM_FILES replaces the
 * table (under the walker lock), VRINGFD_SET_MEM_TABLE is refused.  Not
 * for rings used by the in-kernel API in atomic mode, nor by an in-kernel
 * client that takes buffers as user addresses (vringfd_echo).
 *
 * Errors: EBADF (an fd is not open), EOPNOTSUPP (an fd is neither shmem
 * nor hugetlbfs: a regular file of a disk or network file system, a
 * socket), EACCES (an fd not open for reading and writing: the module
 * writes the pages), EPERM (without F_SEAL_SHRINK: a memfd not sealed
 * so, a tmpfs or hugetlbfs file not made by memfd_create(), which cannot
 * be sealed; or a memfd sealed
 * with F_SEAL_WRITE or F_SEAL_FUTURE_WRITE), EINVAL (no region, too many, zero size, an
 * offset not page-aligned, beyond the file's size, overlap, wrap-around,
 * a ring part outside one region or misaligned (its guest address, or
 * its place in the file: a region whose guest address is not page-aligned
 * can put a part that is aligned in guest addresses off its alignment in
 * the file), non-zero @flags or
 * reserved fields, the ring has a VRINGFD_SET_MEM_TABLE table), E2BIG
 * (more than VRINGFD_MAX_MEM_FILE_PAGES pages), ENOMEM (RLIMIT_MEMLOCK
 * exceeded, or no memory), EINTR (a fatal signal while pages were looked
 * up; another signal restarts the call), ENOSPC (hugetlbfs: no free huge
 * page for a hole), ENXIO (hugetlbfs: a hole punched again while the call
 * looked pages up), EOVERFLOW (a huge page referenced too often),
 * EBUSY (the ring is attached in atomic mode, or to an in-kernel
 * client that takes buffers as user addresses: vringfd_echo), EFAULT.
 */
#define VRINGFD_SET_MEM_FILES	_IOW(VRINGFD_IOCTL_MAGIC, 0x16, struct vringfd_mem_files)

/**
 * VRINGFD_SET_KICK - __s32 eventfd (in), or -1 to leave kick mode
 *
 * Kick mode: the module serves the ring by itself, as vhost-net does.  A
 * write to this eventfd (the front-end's kick) runs the ring as write()
 * would on a TX ring: every available chain is sent to the tap; on an RX
 * ring it fills posted buffers (a kick there says buffers were posted).
 * Frames arriving on the tap fill an RX ring's posted buffers as read()
 * would.  The work runs in a kernel worker (a workqueue item per ring)
 * with the weight of one write()/read() per run; a run that did work
 * runs again, so a busy ring or a storm of kicks cannot hold a CPU.
 * Completions are signalled on the call eventfd (VRINGFD_SET_CALL_FD)
 * under virtio's rules, as always; no process is woken per frame.  The
 * eventfd's count is consumed by the module.  Each worker run counts in
 * struct vringfd_stats.calls (and .batches when it moved a chain).
 *
 * Only for a ring of memory (VRINGFD_SET_MEM_FILES) attached to a tap
 * (VRINGFD_ATTACH_TAP): the worker belongs to no process.  write(),
 * read() and poll() keep working in kick mode (serialised with the
 * worker by the ring's lock): a call serves the ring at once.  Errors
 * the worker meets are the ring's, as for write(): a broken ring reports
 * EPOLLERR to poll() (EIO to every call), a deleted tap EPOLLHUP
 * (VRINGFD_STATE_HUP); the worker then waits for the next kick.
 *
 * The module holds the eventfd (a file reference) until kick mode ends:
 * closing the front-end's copy ends nothing.  Kick mode ends with -1,
 * with another SET_KICK (which replaces the eventfd), with
 * VRINGFD_DETACH, with the close of the ring's last fd (whichever
 * process holds it: kick mode survives the process that set it up when
 * its fd is kept, e.g. passed with SCM_RIGHTS).  The module cannot be
 * unloaded while a ring fd is open.  -1 with kick mode off: 0.
 *
 * Errors: EFAULT, EIO (the ring is broken), EOPNOTSUPP (not a ring of
 * memory), EINVAL (the ring is not attached to a tap: nothing attached,
 * or another subsystem; or the fd is not an eventfd), EBADF (the fd is
 * not open), EINTR (a fatal signal while waiting for a running call on
 * the ring).  VRINGFD_GET_VERSION reports VRINGFD_CAP_KICK.
 */
#define VRINGFD_SET_KICK	_IOW(VRINGFD_IOCTL_MAGIC, 0x17, __s32)

#endif /* _UAPI_LINUX_VRINGFD_H */
