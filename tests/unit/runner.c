// SPDX-License-Identifier: GPL-2.0
/*
 * runner.c - main() of the unit-test binaries: run the suites of
 * runner_suites[] and print one PASS/FAIL/SKIP line per test (runner.h).
 *
 * Skips: runner_skip() appends "TCASE<TAB>reason<LF>" to runner_skip_fd, a
 * file the runner truncates before each suite and reads after it, then
 * ends the test as a Check pass (_exit(0) in the forked test process).  The
 * report matches the records to the results in run order: a result with a
 * record is a SKIP.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/result.h"
#include "unit/runner.h"

#define RUNNER_MAX_SUITES 128
#define RUNNER_SKIP_MAX 512	/* bytes of one skip record */

/* Check failure messages in CK_FORK=no mode that are skips (runner_skip_test()). */
#define RUNNER_SKIP_PREFIX "SKIP: "

/* The skip records of the running suite (an O_APPEND memfd), and its mode. */
static int runner_skip_fd = -1;
static bool runner_forked;

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
 * runner_skip_test() - end the current test as skipped (runner_skip())
 * @file: source file of the call
 * @line: its line
 * @fmt: reason (printf format)
 *
 * Records the skip for the report, then ends the test: with CK_FORK the
 * test process exits 0 (a Check pass; _exit(), so no atexit handler such as
 * LeakSanitizer's judges a test left half-way), with CK_FORK=no through a
 * Check failure carrying RUNNER_SKIP_PREFIX.
 */
void runner_skip_test(const char *file, int line, const char *fmt, ...)
{
	char reason[RUNNER_SKIP_MAX - 64], rec[RUNNER_SKIP_MAX];
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	for (p = reason; *p; p++)
		if (*p == '\t' || *p == '\n')
			*p = ' ';
	n = snprintf(rec, sizeof(rec), "%s\t%s\n", tcase_name(), reason);
	if (n >= (int)sizeof(rec)) {
		n = sizeof(rec) - 1;
		rec[n - 1] = '\n';
	}
	if (runner_skip_fd < 0 || write(runner_skip_fd, rec, (size_t)n) != n)
		_ck_assert_failed(file, line, "Failed",
				  "runner_skip(): cannot record the skip (%s): %s",
				  strerror(errno), reason);
	if (runner_forked) {
		fflush(stdout);
		fflush(stderr);
		_exit(0);
	}
	_ck_assert_failed(file, line, "Failed", RUNNER_SKIP_PREFIX "%s", reason);
}

/**
 * runner_skips_reset() - forget the skip records before a suite runs
 * @sr: the suite's runner (its fork mode decides how runner_skip() ends a test)
 *
 * Return: 0, or -1 with errno set.
 */
static int runner_skips_reset(SRunner *sr)
{
	runner_forked = srunner_fork_status(sr) == CK_FORK;
	if (runner_skip_fd < 0) {
		runner_skip_fd = memfd_create("runner-skips", MFD_CLOEXEC);
		/* every test process writes at the end, whatever the offset */
		if (runner_skip_fd < 0 || fcntl(runner_skip_fd, F_SETFL, O_APPEND) < 0)
			return -1;
	}
	if (ftruncate(runner_skip_fd, 0) < 0)
		return -1;
	return 0;
}

/**
 * runner_skips_read() - the skip records of the suite that just ran
 * @len: set to the length
 *
 * Return: the records (NUL-terminated, to be freed), or NULL with errno set.
 */
static char *runner_skips_read(size_t *len)
{
	off_t end = lseek(runner_skip_fd, 0, SEEK_END);
	char *buf;
	ssize_t n;

	if (end < 0)
		return NULL;
	buf = malloc((size_t)end + 1);
	if (!buf)
		return NULL;
	n = pread(runner_skip_fd, buf, (size_t)end, 0);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

/**
 * runner_next_skip() - the reason of the next skip record, if it is @tcase's
 * @pos: cursor into the records (advanced past a matching record)
 * @tcase: the result's TCase name
 *
 * Return: the reason (NUL-terminated in place), or NULL when the next record
 * is another test's or there is none.
 */
static char *runner_next_skip(char **pos, const char *tcase)
{
	char *tab, *nl, *rec = *pos;
	size_t len = strlen(tcase);

	if (!rec || !*rec)
		return NULL;
	tab = strchr(rec, '\t');
	if (!tab || (size_t)(tab - rec) != len || strncmp(rec, tcase, len))
		return NULL;
	nl = strchr(tab, '\n');
	if (nl) {
		*nl = '\0';
		*pos = nl + 1;
	} else {
		*pos = tab + strlen(tab);
	}
	return tab + 1;
}

/**
 * runner_report() - print one line per result of a finished runner
 * @sr: the runner
 * @suite: its suite's name
 */
static void runner_report(SRunner *sr, const char *suite)
{
	TestResult **res = srunner_results(sr);
	int i, n = srunner_ntests_run(sr);
	char name[256], *skips, *pos, *why;
	size_t len = 0;

	pos = skips = runner_skips_read(&len);
	if (!skips)
		result_fail(suite, "cannot read the skip records: %s", strerror(errno));
	for (i = 0; i < n; i++) {
		TestResult *tr = res[i];
		const char *msg = tr_msg(tr) ? tr_msg(tr) : "(no message)";
		bool skip_msg = !strncmp(msg, RUNNER_SKIP_PREFIX, strlen(RUNNER_SKIP_PREFIX));

		snprintf(name, sizeof(name), "%s/%s", suite, tr_tcname(tr));
		/* a skip record, and Check saw the test end the way a skip ends it */
		why = (tr_rtype(tr) == CK_PASS || skip_msg) ? runner_next_skip(&pos, tr_tcname(tr)) : NULL;
		if (why)
			result_skip(name, "%s", why);
		else if (tr_rtype(tr) == CK_PASS)
			result_pass(name);
		else
			result_fail(name, "%s%s (%s:%d)", tr_rtype(tr) == CK_ERROR ? "error: " : "",
				    msg, tr_lfile(tr) ? tr_lfile(tr) : "?", tr_lno(tr));
	}
	if (pos && *pos)
		result_fail(suite, "skip records left unmatched: %.200s", pos);
	free(skips);
	free(res);
}

/**
 * main() - run every suite of runner_suites[]
 *
 * Return: 0 when no test failed, 1 otherwise.
 */
int main(void)
{
	int i;

	for (i = 0; runner_suites[i]; i++) {
		Suite *s = runner_suites[i]();
		SRunner *sr = srunner_create(s);
		const char *name;
		char buf[32];

		name = runner_suite_name(s, i, buf, sizeof(buf));
		if (runner_skips_reset(sr) < 0) {
			result_fail(name, "cannot set up the skip records: %s", strerror(errno));
			srunner_free(sr);
			continue;
		}
		fflush(stdout);
		srunner_run_all(sr, CK_ENV);
		fflush(stdout);
		runner_report(sr, name);
		srunner_free(sr);
	}
	return result_exit_status();
}

/**
 * runner_in_child() - run @fn in a child and assert that it answered 0
 * @fn: the child's test (its exit status: 0, else the failed step)
 *
 * For code whose state is per process (fdstore.c, livestore.c) or that
 * needs fds at fixed numbers: the child's changes leave the test alone.
 */
void runner_in_child(int (*fn)(void))
{
	pid_t pid = fork();
	int st;

	ck_assert_int_ge(pid, 0);
	if (!pid)
		_exit(fn());
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status 0x%x", st);
}
