/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * handover_state.h - the state one vringnetd hands to its successor
 *
 * The format (native byte order and alignment: both ends are builds of
 * this daemon on one machine; every field has a fixed width):
 *
 *   struct hovs_header      magic HOVS_MAGIC, version HOVS_VERSION, length
 *                           (every byte, header included), nfds, nrecords
 *   uint32_t fds[nfds]      the fd table: fd numbers as the successor
 *                           finds them (inherited across execve, see
 *                           handover.c); in a restart's state (restart.c)
 *                           the stopping instance's numbers, which name
 *                           the fds in systemd's fd store
 *   records, nrecords of:   struct hovs_record (type, len) + len bytes,
 *                           len a multiple of 8
 *     HOVS_REC_NAMED_FD       struct hovs_named_fd: a tap queue
 *                             ("tap.IFNAME.Q"), a listening socket
 *                             ("listen.PORT") or the control socket
 *                             ("control"), names as fdstore.h makes them
 *     HOVS_REC_VHOST_USER     struct hovs_vhost_user: one connected
 *                             vhost-user front-end
 *     HOVS_REC_PEER           struct hovs_peer: the peer address a dgram
 *                             port learnt from its first sender
 *     HOVS_REC_STREAM         struct hovs_stream, then the bytes in
 *                             flight: one connected stream peer
 *     HOVS_REC_RINGFD         struct hovs_ringfd: one ring-fd client,
 *                             served (its SETUP as sent, its fds and
 *                             ring positions) or not yet set up (its
 *                             socket alone)
 *
 * Records name fds by their index in the fd table; every entry of the
 * table is named exactly once (else the state is refused: an fd nobody
 * takes, or one taken twice, is a bug of the writer).  The reader refuses
 * any other magic or version, a length that is not the buffer's, counts
 * above the HOVS_MAX_* limits, a record that runs past the end, of unknown
 * type or of the wrong size, and names that are not NUL-terminated.
 * A stream record's own fields must agree with each other and with its
 * size (handover_state_stream_check()).
 *
 * HOVS_REC_STREAM came after version 1 was out without a new version: a
 * reader that predates it refuses a state with one ("record N: type 4 ...
 * is not one this version reads"), which is the right answer (it could
 * not keep that peer), and every state it can read is still version 1.
 * HOVS_REC_RINGFD came the same way.
 * handover_state_parse() checks the form only; what the values mean
 * (ring sizes, addresses, features) is checked again by the code that
 * applies them, as if a front-end had sent them.
 */
#ifndef VRINGNET_HANDOVER_STATE_H
#define VRINGNET_HANDOVER_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "fdstore.h"
#include "frame_stream.h"
#include "ringfd_proto.h"
#include "vhost_user.h"

#define HOVS_MAGIC		0x484e5256u	/* "VRNH" in little endian */
#define HOVS_VERSION		1u
#define HOVS_MAX_FDS		8192u
#define HOVS_MAX_RECORDS	4096u
#define HOVS_MAX_LENGTH		(64u << 20)

enum hovs_record_type {
	HOVS_REC_NAMED_FD = 1,
	HOVS_REC_VHOST_USER = 2,
	HOVS_REC_PEER = 3,
	HOVS_REC_STREAM = 4,
	HOVS_REC_RINGFD = 5,
};

/**
 * struct hovs_header - the start of a state
 * @magic: HOVS_MAGIC
 * @version: HOVS_VERSION
 * @length: bytes of the whole state, this header included
 * @nfds: entries of the fd table after the header
 * @nrecords: records after the fd table
 * @reserved: zero
 */
struct hovs_header {
	uint32_t magic;
	uint32_t version;
	uint32_t length;
	uint32_t nfds;
	uint32_t nrecords;
	uint32_t reserved;
};

/**
 * struct hovs_record - the head of one record
 * @type: enum hovs_record_type
 * @len: bytes that follow
 */
struct hovs_record {
	uint32_t type;
	uint32_t len;
};

/**
 * struct hovs_named_fd - HOVS_REC_NAMED_FD
 * @fd: fd table index (after parsing: the fd)
 * @reserved: zero
 * @name: its name, NUL-terminated
 */
struct hovs_named_fd {
	int32_t fd;
	uint32_t reserved;
	char name[FDSTORE_NAME_MAX + 1];
};

/**
 * struct hovs_region - one region of a front-end's memory table
 * @guest_addr: guest-physical address
 * @size: bytes
 * @user_addr: front-end virtual address
 * @mmap_offset: offset in @fd
 * @fd: fd table index (after parsing: the fd)
 * @reserved: zero
 */
struct hovs_region {
	uint64_t guest_addr;
	uint64_t size;
	uint64_t user_addr;
	uint64_t mmap_offset;
	int32_t fd;
	uint32_t reserved;
};

#define HOVS_VRING_ADDR_SET	(1u << 0)
#define HOVS_VRING_KICK_SET	(1u << 1)
#define HOVS_VRING_STARTED	(1u << 2)
#define HOVS_VRING_ENABLED	(1u << 3)

/**
 * struct hovs_vring - one virtqueue of a front-end
 * @num: size (0: never set)
 * @flags: HOVS_VRING_*
 * @addr: SET_VRING_ADDR's payload
 * @last_avail: the next avail index the back-end reads: where the
 *	predecessor's engine stopped (every entry before it is used)
 * @kick: kick eventfd, fd table index or -1
 * @call: call eventfd, fd table index or -1
 * @err: error eventfd, fd table index or -1
 * @reserved: zero (no implicit padding anywhere in the format)
 */
struct hovs_vring {
	uint32_t num;
	uint32_t flags;
	struct vhost_user_msg_vring_addr addr;
	uint32_t last_avail;
	int32_t kick;
	int32_t call;
	int32_t err;
	uint32_t reserved[2];
};

#define HOVS_VU_FEATURES_SET	(1u << 0)
#define HOVS_VU_OWNER		(1u << 1)
/* the ring positions are not exact (the state a running daemon keeps for
 * a crash, livestore.c): each ring resumes at its used index */
#define HOVS_VU_FROM_RINGS	(1u << 2)

/**
 * struct hovs_vhost_user - HOVS_REC_VHOST_USER: one connected front-end
 * @port: the port's name, NUL-terminated
 * @sock: the connection, fd table index
 * @flags: HOVS_VU_*
 * @features: features acked
 * @protocol_features: protocol features acked
 * @mtu: NET_SET_MTU accepted, 0 for none
 * @nregions: entries of @regions in use
 * @nvrings: entries of @vrings in use
 * @reserved: zero
 * @regions: the memory table
 * @vrings: the rings, index = virtqueue number
 */
struct hovs_vhost_user {
	char port[CFG_NAME_MAX];
	int32_t sock;
	uint32_t flags;
	uint64_t features;
	uint64_t protocol_features;
	uint32_t mtu;
	uint32_t nregions;
	uint32_t nvrings;
	uint32_t reserved;
	struct hovs_region regions[VUM_MAX_REGIONS];
	struct hovs_vring vrings[VHOST_USER_MAX_VRINGS];
};

/**
 * struct hovs_peer - HOVS_REC_PEER: a dgram port's learnt peer
 * @port: the port's name, NUL-terminated
 * @len: bytes of @addr in use (a socklen_t, at most sizeof(@addr))
 * @reserved: zero
 * @addr: the peer's struct sockaddr_un (AF_UNIX)
 */
struct hovs_peer {
	char port[CFG_NAME_MAX];
	uint32_t len;
	uint32_t reserved;
	uint8_t addr[112];
};

#define HOVS_STREAM_FRAMED	(1u << 0)	/* a complete frame arrived (boot-timeout over) */

/**
 * struct hovs_stream - HOVS_REC_STREAM: one connected stream peer
 * @port: the port's name, NUL-terminated
 * @sock: the connection, fd table index (after parsing: the fd)
 * @flags: HOVS_STREAM_*
 * @hdr: the length prefix bytes received of the frame being decoded
 * @hdr_got: how many (0..FRAME_STREAM_HDR_SIZE; all of them: @len is set)
 * @len: that frame's length (1..FRAME_STREAM_MAX_FRAME, @hdr as a
 *	big-endian number), 0 while the prefix is incomplete
 * @got: bytes of that frame received (below @len; 0 while the prefix is
 *	incomplete); they follow this struct
 * @out_len: bytes queued for the peer, not yet written (at most
 *	FRAME_STREAM_ENC_SIZE; the first may be in the middle of a frame the
 *	peer has the start of); they follow the @got bytes
 * @reserved: zero
 *
 * The record is sizeof(struct hovs_stream) + @got + @out_len bytes,
 * zero-padded to a multiple of 8.
 */
struct hovs_stream {
	char port[CFG_NAME_MAX];
	int32_t sock;
	uint32_t flags;
	uint8_t hdr[FRAME_STREAM_HDR_SIZE];
	uint32_t hdr_got;
	uint32_t len;
	uint32_t got;
	uint32_t out_len;
	uint32_t reserved;
};

#define HOVS_RINGFD_PENDING	(1u << 0)	/* connected, no SETUP accepted yet */

/**
 * struct hovs_ringfd - HOVS_REC_RINGFD: one ring-fd client
 * @port: the port's name, NUL-terminated
 * @sock: the connection, fd table index (after parsing: the fd)
 * @flags: HOVS_RINGFD_*
 * @nfds: entries of @fds in use: the fds the SETUP came with (0 for a
 *	pending client; at most RINGFD_PROTO_MAX_FDS)
 * @msg_len: bytes of @msg in use (0 for a pending client; at most
 *	RINGFD_PROTO_MAX_MSG)
 * @fds: the SETUP's fds in the order the client sent them, fd table
 *	indexes (after parsing: the fds); entries from @nfds on are -1
 * @last_avail: per queue pair, where the predecessor's engine stopped in
 *	the tx ([0]) and the rx ([1]) avail ring (every entry before it is
 *	used); unused for passed rings (VRINGNET_RFD_F_RINGS: the positions
 *	are the rings' own) and after the SETUP's queue pairs
 * @msg: the SETUP as the client sent it: the successor decodes and
 *	checks it again as a fresh one (ringfd_proto.c)
 */
struct hovs_ringfd {
	char port[CFG_NAME_MAX];
	int32_t sock;
	uint32_t flags;
	uint32_t nfds;
	uint32_t msg_len;
	int32_t fds[RINGFD_PROTO_MAX_FDS];
	uint16_t last_avail[VRINGNET_RFD_MAX_QP][2];
	uint8_t msg[RINGFD_PROTO_MAX_MSG];
};

/* the format's sizes: a change here is a new HOVS_VERSION */
_Static_assert(sizeof(struct hovs_header) == 24, "hovs_header");
_Static_assert(sizeof(struct hovs_named_fd) == 264, "hovs_named_fd");
_Static_assert(sizeof(struct hovs_region) == 40, "hovs_region");
_Static_assert(sizeof(struct hovs_vring) == 72, "hovs_vring");
_Static_assert(sizeof(struct hovs_peer) == 136, "hovs_peer");
_Static_assert(sizeof(struct hovs_stream) == 48, "hovs_stream");
_Static_assert(sizeof(struct hovs_ringfd) == 800, "hovs_ringfd");
_Static_assert(sizeof(struct hovs_vhost_user) == 56 + VUM_MAX_REGIONS * 40 +
	       VHOST_USER_MAX_VRINGS * 72, "hovs_vhost_user");

/**
 * struct handover_stream - a stream peer's record and its bytes in flight
 * @rec: the record (writing: @rec.sock is the writer's fd; parsed: the fd)
 * @bytes: @rec.got bytes of the frame being decoded, then @rec.out_len
 *	bytes for the peer (malloc()ed; NULL when both are 0)
 */
struct handover_stream {
	struct hovs_stream rec;
	uint8_t *bytes;
};

/**
 * struct handover_state - a state being written, or one parsed
 * @fds: the fd table (writing: the writer's fds; parsed: the fds)
 * @nfds: its entries
 * @named: the named fds (parsed: @fd is the fd)
 * @nnamed: their number
 * @vu: the vhost-user front-ends (parsed: every fd field is the fd or -1)
 * @nvu: their number
 * @peers: the dgram ports' learnt peers
 * @npeers: their number
 * @streams: the connected stream peers
 * @nstreams: their number
 * @ringfd: the ring-fd clients (parsed: every fd field is the fd or -1)
 * @nringfd: their number
 */
struct handover_state {
	int *fds;
	unsigned int nfds;
	struct hovs_named_fd *named;
	unsigned int nnamed;
	struct hovs_vhost_user *vu;
	unsigned int nvu;
	struct hovs_peer *peers;
	unsigned int npeers;
	struct handover_stream *streams;
	unsigned int nstreams;
	struct hovs_ringfd *ringfd;
	unsigned int nringfd;
};

void handover_state_init(struct handover_state *st);
void handover_state_free(struct handover_state *st);
int handover_state_add_named(struct handover_state *st, const char *name, int fd);
int handover_state_add_vhost_user(struct handover_state *st, const struct hovs_vhost_user *vu);
int handover_state_add_peer(struct handover_state *st, const struct hovs_peer *peer);
int handover_state_stream_check(const struct hovs_stream *s, char *err, size_t errlen);
int handover_state_add_stream(struct handover_state *st, const struct hovs_stream *s,
			      const void *partial, const void *out);
int handover_state_add_ringfd(struct handover_state *st, const struct hovs_ringfd *rf);
int handover_state_encode(const struct handover_state *st, void **buf, size_t *len);
int handover_state_parse(const void *buf, size_t len, struct handover_state *st,
			 char *err, size_t errlen);
int handover_state_memfd_new(void);
int handover_state_memfd_fill(int fd, const void *buf, size_t len);
int handover_state_to_memfd(const void *buf, size_t len);
int handover_state_from_memfd(int fd, void **buf, size_t *len, char *err, size_t errlen);
int handover_state_take_named(struct handover_state *st, const char *name);
void handover_state_vring_close(const struct hovs_vring *vr);
void handover_state_vu_close(const struct hovs_vhost_user *v);
void handover_state_ringfd_close(const struct hovs_ringfd *rf);

#endif /* VRINGNET_HANDOVER_STATE_H */
