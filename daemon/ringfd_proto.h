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

/* Most fds one SETUP may carry (memfd + 4 per queue pair). */
#define RINGFD_PROTO_NFDS(nqp)	(1 + 4 * (nqp))
#define RINGFD_PROTO_MAX_FDS	RINGFD_PROTO_NFDS(VRINGNET_RFD_MAX_QP)
#define RINGFD_PROTO_MAX_MSG	(sizeof(struct vringnet_rfd_setup) + \
			 VRINGNET_RFD_MAX_QP * sizeof(struct vringnet_rfd_qp))

/**
 * struct ringfd_proto_setup - a decoded SETUP
 * @nqp: queue pairs
 * @features: ring features
 * @mrg_rxbuf: VRINGNET_RFD_F_MRG_RXBUF
 * @qp: the rings of each queue pair
 */
struct ringfd_proto_setup {
	unsigned int nqp;
	uint64_t features;
	bool mrg_rxbuf;
	struct vringnet_rfd_qp qp[VRINGNET_RFD_MAX_QP];
};

int ringfd_proto_decode_setup(const void *buf, size_t len, unsigned int nfds,
		     struct ringfd_proto_setup *out, char *err, size_t errlen);
int ringfd_proto_check_layout(const struct ringfd_proto_setup *s, uint64_t mem_size,
		     char *err, size_t errlen);
int ringfd_proto_check_memfd(int fd, uint64_t *size, char *err, size_t errlen);
int ringfd_proto_check_eventfds(const int *fds, unsigned int nqp, char *err, size_t errlen);
ssize_t ringfd_proto_recv(int sock, void *buf, size_t len, int *fds, unsigned int *nfds,
		 char *err, size_t errlen);
void ringfd_proto_close_fds(int *fds, unsigned int nfds);
void ringfd_proto_make_reply(struct vringnet_rfd_reply *r, int error, uint64_t features,
		    const char *text);
int ringfd_proto_send_reply(int sock, int error, uint64_t features, const char *text);

#endif /* VRINGNET_RINGFD_PROTO_H */
