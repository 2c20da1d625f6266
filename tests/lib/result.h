/* SPDX-License-Identifier: GPL-2.0 */
/*
 * result.h - the one result printer of the C test programs
 *
 * Every test program (tests/host/, tests/vm/, the Check runner in
 * tests/unit/runner.c) reports each test with one line on stdout, the
 * format tests/run-all, the suites and CI parse:
 *
 *	PASS: name
 *	FAIL: name: reason
 *	SKIP: name: reason
 *
 * Each line is written whole (stdout locked, then flushed), so lines of
 * several threads do not mix and a line printed before a crash is not lost.
 * result_set_prefix() puts a program's own prefix before every name
 * ("vhost_user_evil/" gives "PASS: vhost_user_evil/NAME").  The functions
 * count what they printed; result_exit_status() is the
 * program's exit status: 0 iff no FAIL line was printed.
 *
 * Not for a child forked from a threaded program (stdio's lock may be held
 * by a thread that does not exist in the child): write(2) the line there.
 */
#ifndef TESTS_LIB_RESULT_H
#define TESTS_LIB_RESULT_H

#include <stdarg.h>
#include <stdbool.h>

#define RESULT_PRINTF(f, a) __attribute__((format(printf, f, a)))

void result_set_prefix(const char *prefix);
void result_pass(const char *name);
void RESULT_PRINTF(2, 3) result_fail(const char *name, const char *fmt, ...);
void RESULT_PRINTF(2, 3) result_skip(const char *name, const char *fmt, ...);
void RESULT_PRINTF(2, 0) result_vfail(const char *name, const char *fmt, va_list ap);
void RESULT_PRINTF(2, 0) result_vskip(const char *name, const char *fmt, va_list ap);
bool RESULT_PRINTF(3, 4) result_check(bool ok, const char *name, const char *fmt, ...);

unsigned int result_passed(void);
unsigned int result_failed(void);
unsigned int result_skipped(void);
int result_exit_status(void);

#endif /* TESTS_LIB_RESULT_H */
