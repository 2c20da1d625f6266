// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_config.c - libFuzzer target for the configuration parser.
 *
 * Parses the input as a vringnetd.conf; a valid result is diffed against
 * an empty configuration and against itself (reload.c), which must report
 * every tap/port added, and then nothing changed.  Seeds: fuzz/corpus/config/.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "reload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/**
 * LLVMFuzzerTestOneInput() - parse one input
 * @data: the bytes
 * @size: their number
 *
 * Return: 0 (aborts on a broken invariant).
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config cfg, empty;
	struct reload_diff d;
	char err[CFG_ERR_MAX];
	int ret;

	if (size > CFG_FILE_MAX)
		return 0;
	ret = config_parse_buffer("fuzz.conf", (const char *)data, size, &cfg, err, sizeof(err));
	if (ret) {
		/* Every error is "FILE:LINE: message". */
		if (strncmp(err, "fuzz.conf:", 10) || !strchr(err + 10, ':'))
			abort();
		if (cfg.taps || cfg.ports || cfg.ntaps || cfg.nports)
			abort();
		return 0;
	}
	if (config_parse_buffer("empty.conf", "", 0, &empty, err, sizeof(err)))
		abort();
	if (reload_diff(&empty, &cfg, &d) == 0) {
		if (d.taps_added != cfg.ntaps || d.ports_added != cfg.nports)
			abort();
		reload_diff_free(&d);
	}
	if (reload_diff(&cfg, &cfg, &d) == 0) {
		if (!reload_diff_empty(&d))
			abort();
		reload_diff_free(&d);
	}
	config_free(&empty);
	config_free(&cfg);
	return 0;
}
