// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * engine.c - choose the engine: kernel (vringfd.ko) or user
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "log.h"
#include "vringfd.h"

/**
 * engine_probe_kernel() - whether vringfd.ko is loaded and can attach taps
 * @why: on false, why not
 * @whylen: its size
 *
 * Return: true when /dev/vringfd opens and reports VRINGFD_CAP_TAP.
 */
bool engine_probe_kernel(char *why, size_t whylen)
{
	struct vringfd_version ver;

	if (vringfd_get_version(&ver) < 0) {
		if (errno == ENOENT || errno == ENXIO || errno == ENODEV)
			snprintf(why, whylen, "%s: %s (is vringfd.ko loaded? modprobe vringfd)",
				 VRINGFD_DEVICE, strerror(errno));
		else
			log_buf_errno(why, whylen, errno, "%s", VRINGFD_DEVICE);
		return false;
	}
	if (ver.api_version != VRINGFD_API_VERSION) {
		snprintf(why, whylen, "vringfd.ko speaks API version %u, this daemon %u",
			 ver.api_version, VRINGFD_API_VERSION);
		return false;
	}
	if (!(ver.caps & VRINGFD_CAP_TAP)) {
		snprintf(why, whylen, "vringfd.ko does not offer tap attachment (caps 0x%llx)",
			 (unsigned long long)ver.caps);
		return false;
	}
	return true;
}

/**
 * engine_select() - the engine to run with
 * @want: the configuration's engine key
 * @err: message buffer
 * @errlen: its size
 *
 * auto: kernel when the module is there with tap attachment, else user;
 * the choice and the reason are logged.  kernel without the module is an
 * error.  user is always possible.
 *
 * Return: the engine, or NULL with @err filled.
 */
const struct engine_ops *engine_select(enum config_engine want, char *err, size_t errlen)
{
	char why[256];

	switch (want) {
	case CFG_ENGINE_USER:
		log_info("engine: user (configured)");
		return &engine_user_ops;
	case CFG_ENGINE_KERNEL:
		if (!engine_probe_kernel(why, sizeof(why))) {
			snprintf(err, errlen, "engine = kernel, but %s", why);
			return NULL;
		}
		log_info("engine: kernel (configured)");
		return &engine_kernel_ops;
	case CFG_ENGINE_AUTO:
		if (engine_probe_kernel(why, sizeof(why))) {
			log_info("engine: kernel (auto: vringfd.ko with tap attachment found)");
			return &engine_kernel_ops;
		}
		log_info("engine: user (auto: %s)", why);
		return &engine_user_ops;
	}
	snprintf(err, errlen, "engine: unknown value %d", (int)want);
	return NULL;
}

/**
 * engine_for_queue() - the engine a queue runs on
 * @port_eng: the port's engine (engine_select())
 * @dirty_log: the front-end logs dirty pages (a migration's source)
 *
 * Only the user engine marks the pages it writes in a dirty log
 * (vringfd.ko refuses a queue with a log): a logging guest's queues run
 * on it until logging stops.
 * Return: the engine.
 */
const struct engine_ops *engine_for_queue(const struct engine_ops *port_eng, bool dirty_log)
{
	return dirty_log ? &engine_user_ops : port_eng;
}
