/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * evfd.h - eventfds handed to the daemon by a front-end (vhost-user kick and
 *	    call fds, ring-fd port fds).
 *
 * They belong to an untrusted process: a blocking one would stall the event
 * loop, an EFD_SEMAPHORE one would keep a read-until-empty loop busy for up
 * to 2^64 reads, a call counter kept full would block a write.  So every such
 * fd is switched to O_NONBLOCK when it arrives (evfd_adopt()), a kick is
 * consumed with one read per wakeup (evfd_consume(); epoll is level
 * triggered, so what is left wakes the loop again), and a signal that cannot
 * be delivered at once is dropped.  An fd that is not an eventfd (a regular
 * file, a pipe, a socket) is refused by evfd_adopt().
 */
#ifndef VRINGNET_EVFD_H
#define VRINGNET_EVFD_H

#include <stdbool.h>

bool evfd_is_eventfd(int fd);
int evfd_adopt(int fd);
void evfd_consume(int fd);
bool evfd_signal(int fd);

#endif /* VRINGNET_EVFD_H */
