/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap_rx.h - the RX direction of the tap attachment (tap_rx.c)
 */
#ifndef VRFD_TAP_RX_H
#define VRFD_TAP_RX_H

struct vrfd_tap;

/**
 * vrfd_tap_rx_pull() - fill posted buffers with the frames the tap queued
 * @t: the attachment (RX)
 * @more: if not NULL, set when the call stopped at its weight (frames may
 *	wait although no buffer was used: all were dropped)
 *
 * Return: buffers used, or -errno.
 */
int vrfd_tap_rx_pull(struct vrfd_tap *t, bool *more);

/**
 * vrfd_tap_rx_unbatch() - give frames taken from the tap's queue back to it
 * @t: the attachment
 */
void vrfd_tap_rx_unbatch(struct vrfd_tap *t);

#endif /* VRFD_TAP_RX_H */
