// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * privs.c - keep CAP_NET_ADMIN and nothing else
 *
 * Why CAP_NET_ADMIN stays: a reload may add a [tap] section, and creating a
 * tap (TUNSETIFF on a new name, TUNSETPERSIST, TUNSETOWNER) needs it, as do
 * the rtnetlink changes a reload makes (MTU, MAC, addresses, creating and
 * enslaving to a bridge, deleting a removed tap).  Nothing else is needed
 * once the taps and sockets exist: the daemon never binds privileged ports,
 * never reads other users' files and, by default, never executes anything,
 * so the bounding set is emptied too (no execve() can regain a capability).
 *
 * With [daemon] upgrade = yes it executes one program: its own binary, for
 * "vringnetctl upgrade" (handover.c), and that successor needs the same
 * capabilities; so the bounding set keeps exactly the kept ones, and they
 * are also inheritable and ambient (the successor starts with them
 * whatever its uid; NoNewPrivileges= in the unit still forbids any gain).
 * No execve() can gain a capability the daemon does not hold, but anything
 * the daemon can be made to execute starts with CAP_NET_ADMIN: the reason
 * it is off by default.
 *
 * CAP_CHOWN is the one exception: when a port has socket-owner or
 * socket-group (or [daemon] control-group is set), giving the socket to
 * another user or to a group the daemon is not in needs CAP_CHOWN, at start
 * and again when a reload changes those keys.  It is kept only then, and only
 * if the daemon was started with it (the shipped unit grants it).
 */
#include <cap-ng.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "log.h"
#include "privs.h"

/**
 * privs_drop() - reduce the capability sets to CAP_NET_ADMIN (+ CAP_CHOWN)
 * @user: "" = stay uid 0; else switch to this user
 * @uid: @user's uid
 * @gid: @user's primary gid
 * @keep_chown: keep CAP_CHOWN too, if the process has it (sockets given
 *		to another owner or group)
 * @upgrade: a successor will be executed (upgrade = yes): keep them across
 *	execve() too
 * @err: message buffer
 * @errlen: its size
 *
 * Effective and permitted keep only CAP_NET_ADMIN (and CAP_CHOWN with
 * @keep_chown).  Without @upgrade, inheritable and ambient are emptied and
 * the bounding set is cleared.  With @upgrade, inheritable, ambient and the
 * bounding set keep the same ones (with @user the bounding set is cleared
 * by capng_change_id(), the ambient set still carries them).  With @user,
 * capng_change_id() switches uid/gid, drops supplementary groups and keeps
 * CAP_NET_ADMIN across the change.  A process that is not root and lacks CAP_SETPCAP
 * cannot clear its bounding set: it then keeps what it has and says so.
 *
 * Return: 0, or -1 with @err filled.
 */
int privs_drop(const char *user, uid_t uid, gid_t gid, bool keep_chown, bool upgrade,
	       char *err, size_t errlen)
{
	capng_select_t sel = CAPNG_SELECT_BOTH;
	capng_type_t kept = CAPNG_EFFECTIVE | CAPNG_PERMITTED;
	int ret;

	capng_get_caps_process();
	if (!capng_have_capability(CAPNG_EFFECTIVE, CAP_NET_ADMIN)) {
		snprintf(err, errlen, "capabilities: CAP_NET_ADMIN is not in the effective set (run as root or with AmbientCapabilities=CAP_NET_ADMIN)");
		return -1;
	}
	if (!capng_have_capability(CAPNG_EFFECTIVE, CAP_SETPCAP)) {
		log_notice("capabilities: no CAP_SETPCAP, the bounding set is left as it is");
		sel = CAPNG_SELECT_CAPS;
	}
	if (keep_chown && !capng_have_capability(CAPNG_EFFECTIVE, CAP_CHOWN)) {
		log_notice("capabilities: no CAP_CHOWN, a reload cannot change socket-owner/socket-group");
		keep_chown = false;
	}
	if (upgrade)
		kept |= CAPNG_INHERITABLE | CAPNG_BOUNDING_SET;
	capng_clear(sel);
	capng_update(CAPNG_ADD, kept, CAP_NET_ADMIN);
	if (keep_chown)
		capng_update(CAPNG_ADD, kept, CAP_CHOWN);
	/* capng_* do not always set errno: clear it, so a stale one is not reported */
	errno = 0;
	if (user && user[0]) {
		ret = capng_change_id((int)uid, (int)gid,
				      CAPNG_DROP_SUPP_GRP |
				      (sel == CAPNG_SELECT_BOTH ? CAPNG_CLEAR_BOUNDING : 0));
		if (ret < 0) {
			snprintf(err, errlen, "switching to user %s (uid %ld gid %ld): capng_change_id failed (%d)%s%s; this needs CAP_SETUID and CAP_SETGID (under systemd, use User= in the unit instead of user =)",
				 user, (long)uid, (long)gid, ret,
				 errno ? ": " : "", errno ? strerror(errno) : "");
			return -1;
		}
	} else {
		ret = capng_apply(sel);
		if (ret < 0) {
			snprintf(err, errlen, "capabilities: capng_apply failed (%d)%s%s", ret,
				 errno ? ": " : "", errno ? strerror(errno) : "");
			return -1;
		}
	}
#ifdef PR_CAP_AMBIENT
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL) {
		log_buf_errno(err, errlen, errno, "capabilities: clearing the ambient set");
		return -1;
	}
	/* the upgrade's successor (execve of our binary) starts with these */
	if (upgrade && (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_ADMIN, 0, 0) < 0 ||
	    (keep_chown && prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_CHOWN, 0, 0) < 0)))
		log_notice_errno(errno, "capabilities: ambient CAP_NET_ADMIN: an upgrade's successor will lack it");
#endif
	return 0;
}

/**
 * privs_describe() - the effective set as text, e.g. "net_admin"
 * @buf: output
 * @len: its size
 */
void privs_describe(char *buf, size_t len)
{
	char *text;

	capng_get_caps_process();
	if (capng_have_capabilities(CAPNG_SELECT_CAPS) == CAPNG_NONE) {
		snprintf(buf, len, "none");
		return;
	}
	text = capng_print_caps_text(CAPNG_PRINT_BUFFER, CAPNG_EFFECTIVE);
	snprintf(buf, len, "%s", text ? text : "?");
	free(text);
}
