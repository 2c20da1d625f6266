// SPDX-License-Identifier: GPL-2.0
/*
 * result.c - PASS/FAIL/SKIP lines and their counts (result.h)
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "lib/result.h"

/* Lines printed so far, by kind (updated by several threads: atomics). */
static unsigned int result_npass, result_nfail, result_nskip;
/* Printed before every name (result_set_prefix()). */
static const char *result_prefix = "";

/**
 * result_set_prefix() - print @prefix before every test name from now on
 * @prefix: e.g. "frame_evil/" (a string that lives as long as the program),
 *	or NULL for none
 */
void result_set_prefix(const char *prefix)
{
	result_prefix = prefix ? prefix : "";
}

/**
 * result_begin() - lock stdout and print "KIND: NAME"
 * @kind: "PASS", "FAIL" or "SKIP"
 * @name: test name
 */
static void result_begin(const char *kind, const char *name)
{
	flockfile(stdout);
	printf("%s: %s%s", kind, result_prefix, name);
}

/**
 * result_end() - end the line started by result_begin(), flush, count it
 * @counter: the count of the line's kind
 */
static void result_end(unsigned int *counter)
{
	putchar('\n');
	fflush(stdout);
	funlockfile(stdout);
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/**
 * result_pass() - print "PASS: @name"
 * @name: test name
 */
void result_pass(const char *name)
{
	result_begin("PASS", name);
	result_end(&result_npass);
}

/**
 * result_vfail() - print "FAIL: @name: reason"
 * @name: test name
 * @fmt: reason (printf format)
 * @ap: its arguments
 */
void result_vfail(const char *name, const char *fmt, va_list ap)
{
	result_begin("FAIL", name);
	fputs(": ", stdout);
	vprintf(fmt, ap);
	result_end(&result_nfail);
}

/**
 * result_vskip() - print "SKIP: @name: reason"
 * @name: test name
 * @fmt: why the test could not run here (printf format)
 * @ap: its arguments
 */
void result_vskip(const char *name, const char *fmt, va_list ap)
{
	result_begin("SKIP", name);
	fputs(": ", stdout);
	vprintf(fmt, ap);
	result_end(&result_nskip);
}

/**
 * result_fail() - print "FAIL: @name: reason"
 * @name: test name
 * @fmt: reason (printf format)
 */
void result_fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	result_vfail(name, fmt, ap);
	va_end(ap);
}

/**
 * result_skip() - print "SKIP: @name: reason"
 * @name: test name
 * @fmt: why the test could not run here (printf format)
 */
void result_skip(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	result_vskip(name, fmt, ap);
	va_end(ap);
}

/**
 * result_check() - print PASS when @ok, else FAIL with the reason
 * @ok: the test passed
 * @name: test name
 * @fmt: why it failed (printf format), used when !@ok
 *
 * Return: @ok.
 */
bool result_check(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		result_pass(name);
	} else {
		va_start(ap, fmt);
		result_vfail(name, fmt, ap);
		va_end(ap);
	}
	return ok;
}

/**
 * result_passed() - the number of PASS lines printed
 *
 * Return: the count.
 */
unsigned int result_passed(void)
{
	return __atomic_load_n(&result_npass, __ATOMIC_RELAXED);
}

/**
 * result_failed() - the number of FAIL lines printed
 *
 * Return: the count.
 */
unsigned int result_failed(void)
{
	return __atomic_load_n(&result_nfail, __ATOMIC_RELAXED);
}

/**
 * result_skipped() - the number of SKIP lines printed
 *
 * Return: the count.
 */
unsigned int result_skipped(void)
{
	return __atomic_load_n(&result_nskip, __ATOMIC_RELAXED);
}

/**
 * result_exit_status() - the program's exit status from its results
 *
 * Return: 0 when no FAIL line was printed, 1 otherwise.
 */
int result_exit_status(void)
{
	return result_failed() ? 1 : 0;
}
