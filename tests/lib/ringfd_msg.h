/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ringfd_msg.h - a test client's side of the ring-fd protocol, by hand
 *
 * For host helpers that build their own SETUP (tests/host/ringfd_evil:
 * malformed ones; tests/host/ringfd_shared_call: fds libvringfd's client
 * would not send): connect and send one message with its fds, then read
 * the daemon's answer.
 */
#ifndef TESTS_LIB_RINGFD_MSG_H
#define TESTS_LIB_RINGFD_MSG_H

#include <stddef.h>

#define RINGFD_MSG_MAX_FDS	64

int ringfd_msg_send(const char *path, const void *msg, size_t len, const int *fds,
		    unsigned int nfds);
int ringfd_msg_reply(int s, char *text, size_t len);

#endif /* TESTS_LIB_RINGFD_MSG_H */
