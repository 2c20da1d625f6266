/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config_value.h - values of vringnetd.conf: parse one, store it by its key
 * type, report an error as "FILE:LINE: message" (internal to the parser).
 */
#ifndef VRINGNET_CONFIG_VALUE_H
#define VRINGNET_CONFIG_VALUE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "config_section.h"

int config_value_err(struct config_parser *p, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *config_value_name_problem(const char *s);
int config_value_uint(struct config_parser *p, const char *key, const char *v,
		      unsigned long min, unsigned long max, unsigned int *out);
int config_value_list(struct config_parser *p, const char *key, const char *v,
		      unsigned int max, unsigned int maxn, unsigned int *out, unsigned int *n);
int config_value_mode(struct config_parser *p, const char *key, const char *v, mode_t *out);
int config_value_user(struct config_parser *p, const char *key, const char *v,
		      uid_t *uid, gid_t *gid, bool need_entry);
int config_value_mac(struct config_parser *p, const char *v, uint8_t mac[6]);
int config_value_address(struct config_parser *p, const char *v, struct config_address *a);
const char *config_value_enum_name(const struct config_enum *names, int value);
int config_value_set(struct config_parser *p, const struct config_key *k, void *object,
		     const char *v);

#endif /* VRINGNET_CONFIG_VALUE_H */
