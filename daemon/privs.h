/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * privs.h - capabilities of the running daemon (libcap-ng)
 */
#ifndef VRINGNET_PRIVS_H
#define VRINGNET_PRIVS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

int privs_drop(const char *user, uid_t uid, gid_t gid, bool keep_chown, bool upgrade,
	       char *err, size_t errlen);
void privs_describe(char *buf, size_t len);

#endif /* VRINGNET_PRIVS_H */
