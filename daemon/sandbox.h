/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sandbox.h - vringnetd's seccomp filter (libseccomp)
 *
 * Installed once, at the end of start-up: after the taps, ports and
 * control socket exist and privileges are dropped.  An allow-list of the
 * system calls the daemon makes from then on (the event loop, its ports,
 * and what a reload does: config file, new taps on /dev/net/tun, netlink,
 * the kernel engine's /dev/vringfd ioctls); any other call kills the
 * process (seccomp = on, SCMP_ACT_KILL_PROCESS), is only logged by the
 * kernel (seccomp = log) or the filter is not installed (seccomp = off).
 * Fork and execve (vringnetctl upgrade) are allowed only with upgrade = yes.
 * See vringnetd(8), SECURITY.
 */
#ifndef VRINGNET_SANDBOX_H
#define VRINGNET_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

/* what a predecessor's filters allow of the calls newer than the first
 * filter: "kcmp" (sandbox_pass_on(), sandbox_inherit()) */
#define SANDBOX_ALLOWS_ENV "VRINGNETD_SANDBOX_ALLOWS"

int sandbox_install(enum config_seccomp mode, bool upgrade, char *err, size_t errlen);
void sandbox_inherit(void);
bool sandbox_allows_kcmp(void);
void sandbox_pass_on(void);
#ifdef VRINGNETD_TEST
void sandbox_test_forbidden(void);
#endif

#endif /* VRINGNET_SANDBOX_H */
