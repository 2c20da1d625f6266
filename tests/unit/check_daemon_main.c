// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_daemon_main.c - the suites of build/tests/unit/check_daemon
 */
#include "unit/runner.h"
#include "unit/check_daemon.h"

Suite *(*const runner_suites[])(void) = {
	config_suite,
	config_doc_suite,
	reload_suite,
	ctlproto_suite,
	ctlclient_suite,
	vhost_user_suite,
	frame_stream_suite,
	frame_rings_suite,
	ringfd_suite,
	port_peer_suite,
	limits_suite,
	engine_suite,
	loop_suite,
	guard_suite,
	fdstore_suite,
	handover_suite,
	livestore_suite,
	worker_suite,
	NULL,
};
