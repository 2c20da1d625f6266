// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_daemon_config_doc.c - the parser's key tables (daemon/config_section.h)
 * against vringnetd.conf(5): every key of every section type is documented
 * in that section of the man page, and every key the man page documents
 * there is one the parser knows, so tables and documentation cannot drift.
 *
 * A key is documented as a tagged paragraph whose tag starts with the key:
 *
 *	.SH "[port NAME] SECTION"
 *	...
 *	.TP
 *	.BI "reconnect = " SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config_section.h"
#include "unit/runner.h"
#include "unit/check_daemon.h"

#define MAN_PAGE	"man/vringnetd.conf.5"
#define MAN_KEYS_MAX	64	/* keys documented in one section */

static const struct config_section *const doc_sections[] = {
	&config_daemon_section, &config_tap_section, &config_port_section,
};
#define N_SECTIONS (sizeof(doc_sections) / sizeof(doc_sections[0]))

/**
 * struct man_section - the keys the man page documents for a section type
 * @found: the page has the section's heading
 * @nkeys: keys in @keys
 * @keys: the keys, in page order
 */
struct man_section {
	bool found;
	unsigned int nkeys;
	char keys[MAN_KEYS_MAX][64];
};

/**
 * man_heading() - the .SH line of a section type in vringnetd.conf(5)
 * @sec: the section type
 * @buf: output
 * @len: its size
 *
 * Return: @buf, e.g. '.SH "[tap NAME] SECTION"'.
 */
static const char *man_heading(const struct config_section *sec, char *buf, size_t len)
{
	snprintf(buf, len, ".SH \"[%s%s] SECTION\"", sec->name, sec->named ? " NAME" : "");
	return buf;
}

/**
 * man_tag_key() - the key a paragraph tag documents
 * @line: the line after a .TP, without its line feed
 * @key: output, 64 bytes
 *
 * Return: true if @line is a font macro whose first quoted word is
 * "KEY = " (.B, .BI or .BR), with KEY copied to @key.
 */
static bool man_tag_key(const char *line, char *key)
{
	const char *q, *end;
	size_t n;

	if (strncmp(line, ".B ", 3) && strncmp(line, ".BI ", 4) && strncmp(line, ".BR ", 4))
		return false;
	q = strchr(line, '"');
	if (!q)
		return false;
	end = strstr(q + 1, " = \"");
	if (!end)
		return false;
	n = (size_t)(end - (q + 1));
	if (n == 0 || n >= 64 || strspn(q + 1, "abcdefghijklmnopqrstuvwxyz0123456789-") != n)
		return false;
	memcpy(key, q + 1, n);
	key[n] = '\0';
	return true;
}

/**
 * man_read() - the keys vringnetd.conf(5) documents for each section type
 * @man: output, one per doc_sections[] entry
 *
 * Skips the test when the page is not found (not run from the source tree).
 */
static void man_read(struct man_section man[N_SECTIONS])
{
	char line[1024], heading[64];
	bool after_tp = false;
	int cur = -1;
	unsigned int i;
	FILE *f;

	memset(man, 0, N_SECTIONS * sizeof(*man));
	if (access(MAN_PAGE, R_OK))
		runner_skip("%s not found (run from the source tree)", MAN_PAGE);
	f = fopen(MAN_PAGE, "r");
	ck_assert_msg(f != NULL, "cannot open %s", MAN_PAGE);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, ".SH", 3)) {
			cur = -1;
			for (i = 0; i < N_SECTIONS; i++) {
				if (!strcmp(line, man_heading(doc_sections[i], heading,
							      sizeof(heading)))) {
					cur = (int)i;
					man[i].found = true;
				}
			}
		} else if (cur >= 0 && after_tp) {
			struct man_section *m = &man[cur];

			ck_assert_uint_lt(m->nkeys, MAN_KEYS_MAX);
			if (man_tag_key(line, m->keys[m->nkeys]))
				m->nkeys++;
		}
		after_tp = !strcmp(line, ".TP");
	}
	fclose(f);
}

START_TEST(config_doc_keys_in_man)
{
	struct man_section man[N_SECTIONS];
	char missing[1024] = "", heading[64];
	unsigned int i, j, k;

	man_read(man);
	for (i = 0; i < N_SECTIONS; i++) {
		const struct config_section *sec = doc_sections[i];

		ck_assert_msg(man[i].found, "%s has no heading %s", MAN_PAGE,
			      man_heading(sec, heading, sizeof(heading)));
		for (j = 0; j < sec->nkeys; j++) {
			for (k = 0; k < man[i].nkeys; k++)
				if (!strcmp(man[i].keys[k], sec->keys[j].name))
					break;
			if (k == man[i].nkeys)
				snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
					 " [%s] %s", sec->name, sec->keys[j].name);
		}
	}
	ck_assert_msg(!missing[0], "keys the parser knows but %s does not document:%s",
		      MAN_PAGE, missing);
}
END_TEST

START_TEST(config_doc_man_in_keys)
{
	struct man_section man[N_SECTIONS];
	char unknown[1024] = "";
	unsigned int i, j, k, total = 0;

	man_read(man);
	for (i = 0; i < N_SECTIONS; i++) {
		const struct config_section *sec = doc_sections[i];

		total += man[i].nkeys;
		for (k = 0; k < man[i].nkeys; k++) {
			for (j = 0; j < sec->nkeys; j++)
				if (!strcmp(man[i].keys[k], sec->keys[j].name))
					break;
			if (j == sec->nkeys)
				snprintf(unknown + strlen(unknown), sizeof(unknown) - strlen(unknown),
					 " [%s] %s", sec->name, man[i].keys[k]);
		}
	}
	ck_assert_msg(total > 0, "%s documents no key at all (its format changed?)", MAN_PAGE);
	ck_assert_msg(!unknown[0], "keys %s documents but the parser does not know:%s",
		      MAN_PAGE, unknown);
}
END_TEST

/**
 * config_doc_suite() - the key tables against the man page
 *
 * Return: the suite.
 */
Suite *config_doc_suite(void)
{
	Suite *s = runner_suite_create("config_doc");

	RUNNER_ADD_TEST(s, config_doc_keys_in_man);
	RUNNER_ADD_TEST(s, config_doc_man_in_keys);
	return s;
}
