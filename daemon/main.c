// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * main.c - vringnetd: command line, then the daemon in the foreground
 *
 * Exit status: 0 after SIGTERM/SIGINT, a valid --check-config or a
 * hand-over to a successor (vringnetctl upgrade); 1 when the configuration
 * is invalid or the daemon could not start or failed (a successor that
 * refuses its predecessor's state, too); 2 for a bad command line.
 *
 * With VRINGNETD_HANDOVER in the environment the process is a successor
 * started by "vringnetctl upgrade" (handover.c).  Under systemd a SIGTERM
 * keeps the connections (front-ends, stream peers, ring-fd clients; either
 * mode) in the fd store for the next instance, which resumes them
 * (restart.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "daemon.h"
#include "fdstore.h"
#include "handover.h"
#include "handover_state.h"
#include "log.h"
#include "restart.h"
#include "sandbox.h"
#include "sdnotify.h"

/**
 * main_usage() - print the usage text
 * @f: where
 */
static void main_usage(FILE *f)
{
	fprintf(f,
		"Usage: vringnetd [--config FILE]\n"
		"       vringnetd --check-config [FILE]\n"
		"\n"
		"Create the tap devices and ports of FILE and move packets between them\n"
		"(in the foreground; SIGHUP reloads FILE, SIGTERM stops).\n"
		"\n"
		"  -c, --config FILE        configuration file (default %s)\n"
		"  -t, --check-config[=FILE] only validate the configuration and exit 0/1\n"
		"  -h, --help               this text\n"
		"  -V, --version            print the version\n",
		CFG_DEFAULT_PATH);
}

/**
 * main_check() - --check-config: validate and report
 * @path: the file
 *
 * The error goes to stderr as "FILE:LINE: message"; under systemd (stderr
 * connected to the journal, e.g. as the unit's ExecStartPre=) it carries
 * the "<3>" prefix, so the journal records it at priority err, not info.
 *
 * Return: the exit status (0 valid, 1 invalid).
 */
static int main_check(const char *path)
{
	char err[CFG_ERR_MAX];
	struct config cfg;

	memset(&cfg, 0, sizeof(cfg));
	if (config_load(path, &cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s%s\n", log_to_journal() ? "<3>" : "", err);
		config_free(&cfg);
		return 1;
	}
	printf("%s: valid (%u tap%s, %u port%s)\n", path, cfg.ntaps,
	       cfg.ntaps == 1 ? "" : "s", cfg.nports, cfg.nports == 1 ? "" : "s");
	config_free(&cfg);
	return 0;
}

/**
 * main() - parse the command line and run
 * @argc: argument count
 * @argv: arguments
 *
 * Return: the exit status.
 */
int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", optional_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = CFG_DEFAULT_PATH, *check = NULL;
	bool check_only = false, successor;
	struct handover_state hs;
	unsigned int kept = 0;
	char err[CFG_ERR_MAX];
	struct config cfg;
	struct daemon *d;
	int c, ret;

	log_init("vringnetd");
	handover_init(argc, argv);
	successor = handover_is_successor();
	while ((c = getopt_long(argc, argv, "c:thV", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			path = optarg;
			break;
		case 't':
			check_only = true;
			check = optarg;
			break;
		case 'h':
			main_usage(stdout);
			return 0;
		case 'V':
			printf("vringnetd %s\n", VRINGNETD_VERSION);
			return 0;
		default:
			main_usage(stderr);
			return 2;
		}
	}
	/* "--check-config FILE" (separate word) as well as "--check-config=FILE" */
	if (check_only && !check && optind < argc)
		check = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "vringnetd: unexpected argument \"%s\"\n", argv[optind]);
		main_usage(stderr);
		return 2;
	}
	if (check_only)
		return main_check(check ? check : path);

	memset(&cfg, 0, sizeof(cfg));
	if (config_load(path, &cfg, err, sizeof(err)) < 0) {
		if (successor)
			handover_successor_fail(err);
		log_err("%s", err);
		config_free(&cfg);
		return 1;
	}
	/* fds systemd passed: the control socket, stored taps and sockets,
	 * a restart's state */
	fdstore_load();
	restart_init();
	if (successor) {
		log_info("vringnetd %s taking over from its previous instance, with %s",
			 VRINGNETD_VERSION, path);
		sandbox_inherit();
		if (handover_receive(&hs, err, sizeof(err)) < 0)
			handover_successor_fail(err);
		/* with upgrade = no its own filter would refuse what a successor
		 * still does (pipe2 of sd_notify_barrier() after MAINPID=) */
		if (!cfg.upgrade) {
			snprintf(err, sizeof(err), "%s has upgrade = no: restart the daemon instead",
				 path);
			handover_successor_fail(err);
		}
	} else {
		log_info("vringnetd %s starting with %s", VRINGNETD_VERSION, path);
		kept = restart_receive(&hs);
	}
	/* connections to adopt (handover.c, restart.c): client-mode ports
	 * connect from the loop, READY=1 once the adopted ones run */
	d = daemon_start(&cfg, successor, successor || kept, err, sizeof(err));
	if (!d && successor)
		handover_successor_fail(err);
	if (!d) {
		log_err("cannot start: %s", err);
		return 1;
	}
	/* from now on the fd store holds every front-end, for a crash */
	restart_live(d, successor);
	if (successor)
		handover_adopt(d, &hs);
	else if (kept)
		restart_adopt(d, &hs);
	ret = daemon_run(d);
	if (daemon_handed_over(d)) {
		/* everything is the successor's now: close nothing, delete nothing */
		log_info("handed over: exiting");
		return 0;
	}
	if (!ret && restart_keep(d)) {
		/* the fd store holds the connections: close nothing, delete nothing */
		sdnotify_stopping();
		log_info("stopped; the front-ends wait in systemd's fd store for the next instance");
		return 0;
	}
	daemon_stop(d);
	log_info("stopped");
	return ret < 0 ? 1 : 0;
}
