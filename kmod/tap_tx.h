/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap_tx.h - the TX direction of the tap attachment (tap_tx.c)
 */
#ifndef VRFD_TAP_TX_H
#define VRFD_TAP_TX_H

struct vrfd_tap;

/**
 * vrfd_tap_tx_push() - write() on a TX ring: send every available chain
 * @t: the attachment (TX)
 *
 * Return: chains consumed, or -errno.
 */
int vrfd_tap_tx_push(struct vrfd_tap *t);

/**
 * vrfd_tap_tx_free() - drop the TX frames an attachment still holds
 * @t: the attachment, being freed
 */
void vrfd_tap_tx_free(struct vrfd_tap *t);

#endif /* VRFD_TAP_TX_H */
