/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runner.h - the shared Check runner of the unit-test binaries
 *
 * A binary links runner.c and defines the NULL-terminated table
 *
 *	Suite *(*const runner_suites[])(void) = { foo_suite, bar_suite, NULL };
 *
 * runner.c's main() runs every suite with srunner_run_all(.., CK_ENV) (so
 * CK_VERBOSITY, CK_FORK, CK_RUN_SUITE and CK_RUN_CASE work as usual), then
 * prints one line per test, the test named suite/tcase:
 *
 *	PASS: suite/test
 *	FAIL: suite/test: message (file:line)
 *	SKIP: suite/test: why
 *
 * (through tests/lib/result.h) and exits 0 iff nothing failed.  Create
 * suites with runner_suite_create() (Check keeps a suite's name private; the
 * runner needs it for the report; a suite made with plain suite_create() is
 * reported as "suiteN").  Give each test its own TCase (the name printed is
 * the TCase's): RUNNER_ADD_TEST() does that.  A test that cannot run here
 * (no permission, no device, no tool) calls runner_skip(); it never passes
 * silently.
 */
#ifndef RUNNER_H
#define RUNNER_H

#include <check.h>

/** runner_suites - each unit-test binary's table of suite constructors */
extern Suite *(*const runner_suites[])(void);

/**
 * runner_skip() - end the current test as skipped
 * @...: printf-style reason
 *
 * The runner prints "SKIP: suite/test: reason".  Check has no skip result:
 * with CK_FORK (the default) the test ends as a Check pass (Check's own
 * summary counts no failure) and the runner reports it as SKIP; with
 * CK_FORK=no it ends as a Check failure (the only way to leave a test
 * early there), still reported as SKIP by the runner.
 */
#define runner_skip(...) runner_skip_test(__FILE__, __LINE__, __VA_ARGS__)

/**
 * RUNNER_ADD_TEST() - add @fn to suite @s in a TCase of its own, named @fn
 * @s: Suite
 * @fn: START_TEST function
 */
#define RUNNER_ADD_TEST(s, fn) runner_add_test((s), (fn), #fn, 0)

/**
 * RUNNER_ADD_TEST_TIMEOUT() - as RUNNER_ADD_TEST(), with a timeout
 * @s: Suite
 * @fn: START_TEST function
 * @secs: timeout in seconds (Check's default is 4)
 */
#define RUNNER_ADD_TEST_TIMEOUT(s, fn, secs) runner_add_test((s), (fn), #fn, (secs))

Suite *runner_suite_create(const char *name);
void runner_skip_test(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
void runner_add_test(Suite *s, const TTest *fn, const char *name, double timeout);
void runner_in_child(int (*fn)(void));

#endif /* RUNNER_H */
