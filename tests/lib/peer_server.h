/* SPDX-License-Identifier: GPL-2.0 */
/*
 * peer_server.h - the server side of a test peer
 *
 * A test peer (tests/host/vu_frontend, tests/host/stream_seq) that plays a
 * hypervisor listening for the daemon's client-mode port (connect = PATH):
 * it listens at PATH, takes the first connection, and keeps the listener
 * open so that any further connection attempt of the daemon waits in its
 * backlog, where the peer counts it at the end.
 */
#ifndef TESTS_LIB_PEER_SERVER_H
#define TESTS_LIB_PEER_SERVER_H

int peer_server_accept(const char *path, int *listen_fd, int timeout_ms);
int peer_server_more(int listen_fd);

#endif /* TESTS_LIB_PEER_SERVER_H */
