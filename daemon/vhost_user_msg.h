/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vhost_user_msg.h - the vhost-user wire protocol (QEMU docs/interop/vhost-user.rst)
 *
 * A message is a 12-byte header (request, flags, payload size; host byte
 * order) followed by @size payload bytes; file descriptors travel as
 * SCM_RIGHTS ancillary data with the header.  This file only frames and
 * checks messages: vhost_user_msg_recv() reads one incrementally from a non-blocking
 * stream socket, vhost_user_msg_check_size() and vhost_user_msg_check_fds() compare
 * its size and fd count with what its request takes, vhost_user_msg_send() writes a
 * reply.  What a request takes and what a message *means* is vhost_user.c's
 * business (its table of requests).
 */
#ifndef VRINGNET_VHOST_USER_MSG_H
#define VRINGNET_VHOST_USER_MSG_H

#include <stddef.h>
#include <stdint.h>

/* Requests (front-end to back-end), numbered as in the specification. */
enum vhost_user_msg_request {
	VUM_NONE = 0,
	VUM_GET_FEATURES = 1,
	VUM_SET_FEATURES = 2,
	VUM_SET_OWNER = 3,
	VUM_RESET_OWNER = 4,
	VUM_SET_MEM_TABLE = 5,
	VUM_SET_LOG_BASE = 6,
	VUM_SET_LOG_FD = 7,
	VUM_SET_VRING_NUM = 8,
	VUM_SET_VRING_ADDR = 9,
	VUM_SET_VRING_BASE = 10,
	VUM_GET_VRING_BASE = 11,
	VUM_SET_VRING_KICK = 12,
	VUM_SET_VRING_CALL = 13,
	VUM_SET_VRING_ERR = 14,
	VUM_GET_PROTOCOL_FEATURES = 15,
	VUM_SET_PROTOCOL_FEATURES = 16,
	VUM_GET_QUEUE_NUM = 17,
	VUM_SET_VRING_ENABLE = 18,
	VUM_SEND_RARP = 19,
	VUM_NET_SET_MTU = 20,
	VUM_SET_BACKEND_REQ_FD = 21,
	VUM_IOTLB_MSG = 22,
	VUM_SET_VRING_ENDIAN = 23,
	VUM_GET_CONFIG = 24,
	VUM_SET_CONFIG = 25,
	VUM_RESET_DEVICE = 34,
	VUM_GET_MAX_MEM_SLOTS = 36,
	VUM_ADD_MEM_REG = 37,
	VUM_REM_MEM_REG = 38,
	VUM_SET_STATUS = 39,
	VUM_GET_STATUS = 40,
	VUM_REQUEST_MAX = 41,
};

/* Header flags. */
#define VUM_VERSION_MASK	0x3u
#define VUM_VERSION		0x1u
#define VUM_FLAG_REPLY		(1u << 2)
#define VUM_FLAG_NEED_REPLY	(1u << 3)
#define VUM_FLAGS_KNOWN		(VUM_VERSION_MASK | VUM_FLAG_REPLY | VUM_FLAG_NEED_REPLY)

/* Protocol feature bits (GET/SET_PROTOCOL_FEATURES). */
#define VUM_PROTOCOL_F_MQ			0
#define VUM_PROTOCOL_F_LOG_SHMFD		1
#define VUM_PROTOCOL_F_RARP			2
#define VUM_PROTOCOL_F_REPLY_ACK		3
#define VUM_PROTOCOL_F_NET_MTU			4
#define VUM_PROTOCOL_F_BACKEND_REQ		5
#define VUM_PROTOCOL_F_CONFIG			9
#define VUM_PROTOCOL_F_CONFIGURE_MEM_SLOTS	15
#define VUM_PROTOCOL_F_STATUS			16

/* VHOST_USER_F_PROTOCOL_FEATURES: a virtio feature bit with vhost-user meaning. */
#define VUM_F_PROTOCOL_FEATURES	30

/* SET_VRING_KICK/CALL/ERR payload: ring index in bits 0-7, bit 8 = no fd. */
#define VUM_VRING_IDX_MASK	0xffu
#define VUM_VRING_NOFD		(1u << 8)

/* Limits. */
#define VUM_HDR_SIZE		12u
#define VUM_MAX_REGIONS		8u	/* VHOST_MEMORY_BASELINE_NREGIONS */
#define VUM_MAX_FDS		VUM_MAX_REGIONS
#define VUM_MAX_PAYLOAD		4096u	/* nothing we accept is larger */

/**
 * struct vhost_user_msg_hdr - message header
 * @request: enum vhost_user_msg_request
 * @flags: version (bits 0-1, must be 1), VUM_FLAG_REPLY, VUM_FLAG_NEED_REPLY
 * @size: payload bytes that follow
 */
struct vhost_user_msg_hdr {
	uint32_t request;
	uint32_t flags;
	uint32_t size;
} __attribute__((packed));

/**
 * struct vhost_user_msg_vring_state - SET_VRING_NUM/BASE/ENABLE, GET_VRING_BASE
 * @index: ring index
 * @num: the value (size, base index, enable flag)
 */
struct vhost_user_msg_vring_state {
	uint32_t index;
	uint32_t num;
};

/**
 * struct vhost_user_msg_vring_addr - SET_VRING_ADDR
 * @index: ring index
 * @flags: VUM_VRING_F_LOG: @log is valid, log writes to the used ring
 * @desc: descriptor table, front-end virtual address
 * @used: used ring, front-end virtual address
 * @avail: avail ring, front-end virtual address
 * @log: guest-physical address of the used ring (log_guest_addr)
 */
struct vhost_user_msg_vring_addr {
	uint32_t index;
	uint32_t flags;
	uint64_t desc;
	uint64_t used;
	uint64_t avail;
	uint64_t log;
};

/* SET_VRING_ADDR flags: VHOST_VRING_F_LOG (log writes to the used ring). */
#define VUM_VRING_F_LOG		(1u << 0)

/**
 * struct vhost_user_msg_log - SET_LOG_BASE payload (with LOG_SHMFD: the log's fd with it)
 * @mmap_size: bytes of bitmap
 * @mmap_offset: where the bitmap starts in the fd
 */
struct vhost_user_msg_log {
	uint64_t mmap_size;
	uint64_t mmap_offset;
};

/**
 * struct vhost_user_msg_region - one memory region of SET_MEM_TABLE
 * @guest_addr: guest-physical address of the first byte
 * @size: bytes
 * @user_addr: front-end virtual address of the first byte
 * @mmap_offset: offset of the first byte in the region's fd
 */
struct vhost_user_msg_region {
	uint64_t guest_addr;
	uint64_t size;
	uint64_t user_addr;
	uint64_t mmap_offset;
};

/**
 * struct vhost_user_msg_mem - SET_MEM_TABLE payload
 * @nregions: regions that follow (one fd each, in order)
 * @padding: zero
 * @regions: @nregions regions
 */
struct vhost_user_msg_mem {
	uint32_t nregions;
	uint32_t padding;
	struct vhost_user_msg_region regions[VUM_MAX_REGIONS];
};

/**
 * struct vhost_user_msg - one message and its file descriptors
 * @hdr: header
 * @payload: payload, @hdr.size bytes of it valid
 * @fds: descriptors received with it; owned by the message
 * @nfds: entries in @fds
 */
struct vhost_user_msg {
	struct vhost_user_msg_hdr hdr;
	union {
		uint64_t u64;
		struct vhost_user_msg_vring_state state;
		struct vhost_user_msg_vring_addr addr;
		struct vhost_user_msg_log log;
		struct vhost_user_msg_mem mem;
		uint8_t raw[VUM_MAX_PAYLOAD];
	} payload;
	int fds[VUM_MAX_FDS];
	unsigned int nfds;
};

/**
 * struct vhost_user_msg_rx - incremental receiver state of one connection
 * @msg: the message being assembled
 * @got: bytes of header + payload received so far
 */
struct vhost_user_msg_rx {
	struct vhost_user_msg msg;
	size_t got;
};

/* Payload sizes. */
#define VUM_SIZE_U64		sizeof(uint64_t)
#define VUM_SIZE_STATE		sizeof(struct vhost_user_msg_vring_state)
#define VUM_SIZE_ADDR		sizeof(struct vhost_user_msg_vring_addr)
#define VUM_SIZE_LOG		sizeof(struct vhost_user_msg_log)
#define VUM_SIZE_MEM(n)		(offsetof(struct vhost_user_msg_mem, regions) + (n) * sizeof(struct vhost_user_msg_region))

void vhost_user_msg_rx_init(struct vhost_user_msg_rx *rx);
void vhost_user_msg_rx_reset(struct vhost_user_msg_rx *rx);
int vhost_user_msg_recv(int fd, struct vhost_user_msg_rx *rx, char *err, size_t errlen);
int vhost_user_msg_check_size(const struct vhost_user_msg *msg, uint32_t size, char *err, size_t errlen);
int vhost_user_msg_check_fds(const struct vhost_user_msg *msg, unsigned int nfds, char *err, size_t errlen);
int vhost_user_msg_send(int fd, uint32_t request, const void *payload, uint32_t size,
	     char *err, size_t errlen);
void vhost_user_msg_close_fds(struct vhost_user_msg *msg);
int vhost_user_msg_take_fd(struct vhost_user_msg *msg, unsigned int i);
const char *vhost_user_msg_request_name(uint32_t request);

#endif /* VRINGNET_VHOST_USER_MSG_H */
