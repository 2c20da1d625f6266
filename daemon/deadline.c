// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * deadline.c - per-connection deadlines (see deadline.h)
 */
#include <errno.h>
#include <unistd.h>

#include "config.h"
#include "deadline.h"

static unsigned int deadline_hs = CFG_DEFAULT_HANDSHAKE_TIMEOUT;
static unsigned int deadline_boot = CFG_DEFAULT_BOOT_TIMEOUT;
static unsigned int deadline_msg = CFG_DEFAULT_MESSAGE_TIMEOUT;

/**
 * deadline_set_limits() - the configured limits
 * @handshake_sec: handshake-timeout (0: keep the current value)
 * @boot_sec: boot-timeout (0: keep the current value)
 * @message_sec: message-timeout (0: keep the current value)
 */
void deadline_set_limits(unsigned int handshake_sec, unsigned int boot_sec,
			 unsigned int message_sec)
{
	if (handshake_sec)
		deadline_hs = handshake_sec;
	if (boot_sec)
		deadline_boot = boot_sec;
	if (message_sec)
		deadline_msg = message_sec;
}

/**
 * deadline_handshake_sec() - seconds a ring-fd client has to send SETUP
 *
 * Return: the configured handshake-timeout.
 */
unsigned int deadline_handshake_sec(void)
{
	return deadline_hs;
}

/**
 * deadline_boot_sec() - seconds a guest has from connecting until its
 *			 network runs (vhost-user rings, a stream's first frame)
 *
 * Return: the configured boot-timeout.
 */
unsigned int deadline_boot_sec(void)
{
	return deadline_boot;
}

/**
 * deadline_message_sec() - seconds a peer has to finish a started message
 *
 * Return: the configured message-timeout.
 */
unsigned int deadline_message_sec(void)
{
	return deadline_msg;
}

/**
 * deadline_fired() - loop handler of the timerfd
 * @loop: the loop
 * @ref: the timer's ref
 * @events: epoll events
 *
 * The callback may free the connection that embeds the deadline: nothing
 * here touches @dl after it.
 */
static void deadline_fired(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct deadline *dl = container_of(ref, struct deadline, ref);

	if (!loop_timer_ack(ref) || !dl->armed)
		return;
	dl->armed = false;
	dl->fn(dl);
}

/**
 * deadline_init() - create a connection's deadline, not armed
 * @dl: the deadline
 * @loop: the loop
 * @fn: called when it passes
 *
 * Return: 0, or -1 with errno set (timerfd or epoll failure); @dl can be
 * given to deadline_fini() either way.
 */
int deadline_init(struct deadline *dl, struct loop *loop, deadline_fn fn)
{
	dl->loop = loop;
	dl->fn = fn;
	dl->armed = false;
	dl->ref.fd = -1;
	return loop_timer_init(loop, &dl->ref, deadline_fired);
}

/**
 * deadline_arm() - start counting @sec seconds, unless already counting
 * @dl: the deadline
 * @sec: seconds
 *
 * An armed deadline is not pushed back: a peer cannot extend it by
 * sending a little more.
 */
void deadline_arm(struct deadline *dl, unsigned int sec)
{
	if (dl->armed || dl->ref.fd < 0)
		return;
	if (loop_timer_set(&dl->ref, (uint64_t)sec * 1000000000ULL, 0) == 0)
		dl->armed = true;
}

/**
 * deadline_stop() - what the deadline bounded is done
 * @dl: the deadline
 */
void deadline_stop(struct deadline *dl)
{
	if (!dl->armed || dl->ref.fd < 0)
		return;
	loop_timer_set(&dl->ref, 0, 0);
	dl->armed = false;
}

/**
 * deadline_fini() - release the timerfd
 * @dl: the deadline (initialised, successfully or not)
 */
void deadline_fini(struct deadline *dl)
{
	dl->armed = false;
	if (dl->loop)
		loop_timer_fini(dl->loop, &dl->ref);
}
