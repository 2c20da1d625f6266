/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fdstore.h - systemd's file descriptor store: tap queues and listening
 *	       sockets that survive systemctl restart and a crash
 *
 * Under systemd (NOTIFY_SOCKET set, FileDescriptorStoreMax= in the unit)
 * each tap queue fd is stored as "tap.IFNAME.Q" and each port's socket
 * (listening, or a dgram port's bound one) as "listen.PORT".  The next
 * instance gets them back through LISTEN_FDS/LISTEN_FDNAMES: fdstore_load()
 * takes them all at start, fdstore_take() hands one out by name,
 * fdstore_close_unused() closes and logs the rest.  Without systemd every
 * call is a no-op.
 */
#ifndef VRINGNET_FDSTORE_H
#define VRINGNET_FDSTORE_H

#include <stdbool.h>
#include <stddef.h>

/* systemd's limit on an FDNAME= value, without the NUL */
#define FDSTORE_NAME_MAX	255
/* the names restart.c and livestore.c store under: the states and the
 * connection fds */
#define FDSTORE_RESTART_PREFIX	"restart."

int fdstore_name_tap(char *buf, size_t len, const char *ifname, unsigned int queue);
int fdstore_name_listen(char *buf, size_t len, const char *port);
bool fdstore_name_valid(const char *name);
bool fdstore_is_stored_name(const char *name);
void fdstore_load(void);
int fdstore_add_passed(const char *name, int fd);
int fdstore_take(const char *name);
bool fdstore_passed_twice(const char *name);
int fdstore_take_prefix(const char *prefix, char *name, size_t len);
int fdstore_take_other(int *fd);
void fdstore_close_unused(void);
bool fdstore_put(const char *name, int fd);
void fdstore_remove(const char *name);
bool fdstore_sync(int pipefd[2], int timeout_ms);

#endif /* VRINGNET_FDSTORE_H */
