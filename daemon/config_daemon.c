// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * config_daemon.c - the [daemon] section of vringnetd.conf: its keys, and
 * the names of its enum settings (engine, log-level, seccomp).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "config_section.h"
#include "config_value.h"

static const struct config_enum config_daemon_engines[] = {
	{ "auto", CFG_ENGINE_AUTO },
	{ "kernel", CFG_ENGINE_KERNEL },
	{ "user", CFG_ENGINE_USER },
	{ NULL, 0 },
};

static const struct config_enum config_daemon_log_levels[] = {
	{ "err", CFG_LOG_ERR },
	{ "warning", CFG_LOG_WARNING },
	{ "notice", CFG_LOG_NOTICE },
	{ "info", CFG_LOG_INFO },
	{ "debug", CFG_LOG_DEBUG },
	{ NULL, 0 },
};

static const struct config_enum config_daemon_seccomp_modes[] = {
	{ "on", CFG_SECCOMP_ON },
	{ "off", CFG_SECCOMP_OFF },
	{ "log", CFG_SECCOMP_LOG },
	{ NULL, 0 },
};

/**
 * config_daemon_object() - where the [daemon] keys are stored
 * @p: the parser
 *
 * Return: the configuration itself.
 */
static void *config_daemon_object(struct config_parser *p)
{
	return p->cfg;
}

/**
 * config_daemon_control_mode() - the 'control-mode' key: a mode, and that
 *	it was given (it then applies to a socket-activated socket too)
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_daemon_control_mode(struct config_parser *p, const char *k, const char *v)
{
	p->cfg->control_mode_set = true;
	return config_value_mode(p, k, v, &p->cfg->control_mode);
}

/**
 * config_daemon_user() - the 'user' key: a user of the user database, its
 *	uid, primary group and name
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_daemon_user(struct config_parser *p, const char *k, const char *v)
{
	if (strlen(v) >= sizeof(p->cfg->user))
		return config_value_err(p, p->line, "user: name longer than %zu bytes",
					sizeof(p->cfg->user) - 1);
	if (config_value_user(p, k, v, &p->cfg->uid, &p->cfg->gid, true))
		return -EINVAL;
	strcpy(p->cfg->user, v);
	return 0;
}

/**
 * config_daemon_workers() - the 'workers' key: 1..CFG_MAX_WORKERS pump
 *	threads, or auto (stored as 0)
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_daemon_workers(struct config_parser *p, const char *k, const char *v)
{
	p->workers_line = p->line;
	if (!strcmp(v, "auto")) {
		p->cfg->workers = CFG_WORKERS_AUTO;
		return 0;
	}
	return config_value_uint(p, k, v, 1, CFG_MAX_WORKERS, &p->cfg->workers);
}

/**
 * config_daemon_cpus_text() - a CPU set as a list, e.g. "0-3,6"
 * @set: the set
 * @buf: output
 * @len: its size
 *
 * Return: @buf.
 */
static const char *config_daemon_cpus_text(const cpu_set_t *set, char *buf, size_t len)
{
	size_t off = 0;
	int c, end;

	buf[0] = '\0';
	for (c = 0; c < CPU_SETSIZE && off < len; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		for (end = c; end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, set); end++)
			;
		off += (size_t)snprintf(buf + off, len - off, end > c ? "%s%d-%d" : "%s%d",
					off ? "," : "", c, end);
		c = end;
	}
	return buf;
}

/**
 * config_daemon_worker_cpus() - the 'worker-cpus' key: a list of CPUs the
 *	daemon may run on (sched_getaffinity(): online and in its allowed
 *	set), one per pump thread
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_daemon_worker_cpus(struct config_parser *p, const char *k, const char *v)
{
	struct config *cfg = p->cfg;
	char allowed[256];
	cpu_set_t set;
	unsigned int i;

	p->worker_cpus_line = p->line;
	if (config_value_list(p, k, v, CFG_MAX_CPU, CFG_MAX_WORKERS, cfg->worker_cpus,
			      &cfg->nworker_cpus))
		return -EINVAL;
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return config_value_err(p, p->line, "%s: sched_getaffinity: %s", k,
					strerror(errno));
	for (i = 0; i < cfg->nworker_cpus; i++)
		if (!CPU_ISSET(cfg->worker_cpus[i], &set))
			return config_value_err(p, p->line,
						"%s: CPU %u is offline or not allowed to the daemon (its CPUs: %s)",
						k, cfg->worker_cpus[i],
						config_daemon_cpus_text(&set, allowed, sizeof(allowed)));
	return 0;
}

static const struct config_key config_daemon_keys[] = {
	CFG_PATH_KEY("control-socket", struct config, control_socket),
	CFG_FUNC_KEY("control-mode", config_daemon_control_mode),
	CFG_GROUP_KEY("control-group", struct config, control_gid),
	CFG_ENUM_KEY("engine", struct config, engine, config_daemon_engines),
	CFG_ENUM_KEY("log-level", struct config, log_level, config_daemon_log_levels),
	CFG_FUNC_KEY("user", config_daemon_user),
	CFG_UINT_KEY("handshake-timeout", struct config, handshake_timeout, 1, 3600),
	CFG_UINT_KEY("boot-timeout", struct config, boot_timeout, 1, 86400),
	CFG_UINT_KEY("message-timeout", struct config, message_timeout, 1, 3600),
	CFG_UINT_KEY("control-clients-per-uid", struct config, control_per_uid, 1, 15),
	CFG_ENUM_KEY("seccomp", struct config, seccomp, config_daemon_seccomp_modes),
	CFG_BOOL_KEY("upgrade", struct config, upgrade),
	CFG_FUNC_KEY("workers", config_daemon_workers),
	CFG_FUNC_KEY("worker-cpus", config_daemon_worker_cpus),
};

_Static_assert(CFG_ENTRIES(config_daemon_keys) <= CFG_SECTION_KEYS_MAX,
	       "struct config_parser's key_line[] is too small for [daemon]");

const struct config_section config_daemon_section = {
	.name = "daemon",
	.named = false,
	.keys = config_daemon_keys,
	.nkeys = CFG_ENTRIES(config_daemon_keys),
	.object = config_daemon_object,
	.end = NULL,
};

/**
 * config_engine_name() - name of an engine setting
 * @engine: the setting
 *
 * Return: "auto", "kernel" or "user" ("?" for a bad value).
 */
const char *config_engine_name(enum config_engine engine)
{
	return config_value_enum_name(config_daemon_engines, (int)engine);
}

/**
 * config_log_level_name() - name of a log level
 * @level: the level
 *
 * Return: "err", "warning", "notice", "info" or "debug" ("?" for a bad value).
 */
const char *config_log_level_name(enum config_log_level level)
{
	return config_value_enum_name(config_daemon_log_levels, (int)level);
}

/**
 * config_seccomp_name() - a seccomp mode as written in the file
 * @mode: the mode
 *
 * Return: "on", "off" or "log" ("?" for a bad value).
 */
const char *config_seccomp_name(enum config_seccomp mode)
{
	return config_value_enum_name(config_daemon_seccomp_modes, (int)mode);
}
