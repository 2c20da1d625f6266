// SPDX-License-Identifier: GPL-2.0
/*
 * runner.c - main() of the unit-test binaries: run the suites of
 * runner_suites[] and print one PASS/FAIL/SKIP line per test (runner.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit/runner.h"

#define RUNNER_MAX_SUITES 128

/* Names of the suites made by runner_suite_create(), by Suite pointer. */
static struct {
	Suite *suite;
	const char *name;
} runner_names[RUNNER_MAX_SUITES];
static unsigned int runner_nnames;

/**
 * runner_suite_create() - suite_create() that lets the runner know the name
 * @name: suite name (a string that lives as long as the program)
 *
 * Return: the new suite.
 */
Suite *runner_suite_create(const char *name)
{
	Suite *s = suite_create(name);

	if (runner_nnames < RUNNER_MAX_SUITES) {
		runner_names[runner_nnames].suite = s;
		runner_names[runner_nnames].name = name;
		runner_nnames++;
	}
	return s;
}

/**
 * runner_suite_name() - the name of a suite made by runner_suite_create()
 * @s: suite
 * @idx: its index in runner_suites[] (for the fallback name)
 * @buf: room for the fallback name
 * @len: size of @buf
 *
 * Return: the name, or "suiteN" when @s was made by plain suite_create().
 */
static const char *runner_suite_name(Suite *s, int idx, char *buf, size_t len)
{
	unsigned int i;

	for (i = 0; i < runner_nnames; i++)
		if (runner_names[i].suite == s) {
			/* srunner_free() frees @s: forget it after this report */
			runner_names[i].suite = NULL;
			return runner_names[i].name;
		}
	snprintf(buf, len, "suite%d", idx);
	return buf;
}

/**
 * runner_add_test() - add a test in a TCase of its own
 * @s: suite
 * @fn: test (the TTest of a START_TEST function)
 * @name: TCase name, printed as the test's name
 * @timeout: seconds, or 0 for Check's default
 */
void runner_add_test(Suite *s, const TTest *fn, const char *name, double timeout)
{
	TCase *tc = tcase_create(name);

	if (timeout > 0)
		tcase_set_timeout(tc, timeout);
	tcase_add_test(tc, fn);
	suite_add_tcase(s, tc);
}

/**
 * runner_report() - print one line per result of a finished runner
 * @sr: the runner
 * @suite: its suite's name
 * @failed: incremented per failure
 */
static void runner_report(SRunner *sr, const char *suite, int *failed)
{
	TestResult **res = srunner_results(sr);
	int i, n = srunner_ntests_run(sr);

	for (i = 0; i < n; i++) {
		TestResult *tr = res[i];
		const char *msg = tr_msg(tr) ? tr_msg(tr) : "(no message)";

		if (tr_rtype(tr) == CK_PASS) {
			printf("PASS: %s/%s\n", suite, tr_tcname(tr));
		} else if (!strncmp(msg, RUNNER_SKIP_PREFIX, strlen(RUNNER_SKIP_PREFIX))) {
			printf("SKIP: %s/%s: %s\n", suite, tr_tcname(tr),
			       msg + strlen(RUNNER_SKIP_PREFIX));
		} else {
			printf("FAIL: %s/%s: %s%s (%s:%d)\n", suite, tr_tcname(tr),
			       tr_rtype(tr) == CK_ERROR ? "error: " : "", msg,
			       tr_lfile(tr) ? tr_lfile(tr) : "?", tr_lno(tr));
			(*failed)++;
		}
	}
	free(res);
}

/**
 * main() - run every suite of runner_suites[]
 *
 * Return: 0 when no test failed, 1 otherwise.
 */
int main(void)
{
	int failed = 0, i;

	for (i = 0; runner_suites[i]; i++) {
		Suite *s = runner_suites[i]();
		SRunner *sr = srunner_create(s);
		char buf[32];

		srunner_run_all(sr, CK_ENV);
		fflush(stdout);
		runner_report(sr, runner_suite_name(s, i, buf, sizeof(buf)), &failed);
		fflush(stdout);
		srunner_free(sr);
	}
	return failed ? 1 : 0;
}
