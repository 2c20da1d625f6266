/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_daemon.h - suites of the daemon unit tests (one per check_daemon_*.c)
 */
#ifndef CHECK_DAEMON_H
#define CHECK_DAEMON_H

#include <check.h>

Suite *config_suite(void);	/* check_daemon_config.c: good and bad files */
Suite *config_doc_suite(void);	/* check_daemon_config_doc.c: key tables vs vringnetd.conf(5) */
Suite *reload_suite(void);	/* check_daemon_reload.c: reload_diff() */
Suite *ctlproto_suite(void);	/* check_daemon_ctlproto.c: codec, malformed input */
Suite *ctlclient_suite(void);	/* check_daemon_ctlclient.c: vringnetctl vs a fake server */
Suite *vhost_user_suite(void);	/* check_daemon_vhost_user.c: vhost-user back-end, malformed messages */
Suite *loop_suite(void);	/* check_daemon_loop.c: event loop dispatch, timers, signals */
Suite *engine_suite(void);	/* check_daemon_engine.c: user engine vs a tap and bad rings */
Suite *frame_stream_suite(void);	/* check_daemon_frame_stream.c: stream framing codec */
Suite *frame_rings_suite(void);	/* check_daemon_frame_rings.c: daemon-driven ring pair */
Suite *ringfd_suite(void);	/* check_daemon_ringfd.c: ring-fd port protocol, malformed SETUPs */
Suite *limits_suite(void);	/* check_daemon_limits.c: log rate limits, deadlines, _errno log forms */
Suite *port_peer_suite(void);	/* check_daemon_port_peer.c: one-peer ports, client-mode retry */
Suite *guard_suite(void);	/* check_daemon_guard.c: faults in front-end memory */
Suite *fdstore_suite(void);	/* check_daemon_fdstore.c: fd names, fds passed by systemd */
Suite *handover_suite(void);	/* check_daemon_handover.c: hand-over state, bad states */
Suite *livestore_suite(void);	/* check_daemon_livestore.c: the fd store kept current for a crash */
Suite *worker_suite(void);	/* check_daemon_worker.c: pump threads, their mailboxes */

#endif /* CHECK_DAEMON_H */
