/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ringfd_proto.h - the ring-fd port's wire protocol: SETUP decoding, checks
 * of the passed fds, the reply (vringnetd-ringfd(7); structs in <vringfd.h>)
 *
 * Every ringfd_proto_* check returns 0 or a negative errno and writes the reason
 * into @err; the port sends -ret and that text back to the client.
 */
#ifndef VRINGNET_RINGFD_PROTO_H
#define VRINGNET_RINGFD_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vringfd.h>

/* fds of a SETUP: memfd + 4 eventfds per queue pair, or (VRINGNET_RFD_F_RINGS)
 * 2 vring fds + 4 eventfds per queue pair. */
#define RINGFD_PROTO_NFDS(nqp)		(1 + 4 * (nqp))
#define RINGFD_PROTO_RINGS_NFDS(nqp)	(6 * (nqp))
#define RINGFD_PROTO_MAX_FDS		RINGFD_PROTO_RINGS_NFDS(VRINGNET_RFD_MAX_QP)
_Static_assert(RINGFD_PROTO_RINGS_NFDS(VRINGNET_RFD_MAX_QP) >= RINGFD_PROTO_NFDS(VRINGNET_RFD_MAX_QP),
	       "RINGFD_PROTO_MAX_FDS covers both SETUPs");
#define RINGFD_PROTO_MAX_MSG	(sizeof(struct vringnet_rfd_setup) + \
			 VRINGNET_RFD_MAX_QP * sizeof(struct vringnet_rfd_qp))

/**
 * struct ringfd_proto_setup - a decoded SETUP
 * @nqp: queue pairs
 * @features: ring features
 * @mrg_rxbuf: VRINGNET_RFD_F_MRG_RXBUF
 * @rings: VRINGNET_RFD_F_RINGS: fds are vring fds, then eventfds
 * @qp: the rings of each queue pair
 */
struct ringfd_proto_setup {
	unsigned int nqp;
	uint64_t features;
	bool mrg_rxbuf;
	bool rings;
	struct vringnet_rfd_qp qp[VRINGNET_RFD_MAX_QP];
};

int ringfd_proto_decode_setup(const void *buf, size_t len, unsigned int nfds,
		     struct ringfd_proto_setup *out, char *err, size_t errlen);
int ringfd_proto_check_layout(const struct ringfd_proto_setup *s, uint64_t mem_size,
		     char *err, size_t errlen);
int ringfd_proto_check_memfd(int fd, uint64_t *size, char *err, size_t errlen);
void ringfd_proto_detach_ring_fds(const struct ringfd_proto_setup *s, const int *fds);
int ringfd_proto_check_ring_fds(const struct ringfd_proto_setup *s, const int *fds,
		       char *err, size_t errlen);
int ringfd_proto_check_eventfds(const struct ringfd_proto_setup *s, const int *fds,
			char *err, size_t errlen);
/**
 * ringfd_proto_nfds() - the fds a SETUP carries
 * @s: a decoded SETUP
 *
 * Return: RINGFD_PROTO_NFDS() or, with passed rings, RINGFD_PROTO_RINGS_NFDS().
 */
static inline unsigned int ringfd_proto_nfds(const struct ringfd_proto_setup *s)
{
	return s->rings ? RINGFD_PROTO_RINGS_NFDS(s->nqp) : RINGFD_PROTO_NFDS(s->nqp);
}

/**
 * ringfd_proto_evfd_base() - index of the first eventfd (queue pair 0's tx kick)
 * @s: a decoded SETUP
 *
 * Return: 1 after the memfd, or 2 * nqp after the passed vring fds.
 */
static inline unsigned int ringfd_proto_evfd_base(const struct ringfd_proto_setup *s)
{
	return s->rings ? 2 * s->nqp : 1;
}

ssize_t ringfd_proto_recv(int sock, void *buf, size_t len, int *fds, unsigned int *nfds,
		 char *err, size_t errlen);
void ringfd_proto_close_fds(int *fds, unsigned int nfds);
void ringfd_proto_make_reply(struct vringnet_rfd_reply *r, int error, uint64_t features,
		    const char *text);
int ringfd_proto_send_reply(int sock, int error, uint64_t features, const char *text);

#endif /* VRINGNET_RINGFD_PROTO_H */
