# tests/lib/suite.sh - shared shell helpers of the test suites (tests/suites/*)
# and the VM test scripts (tests/vm/*.sh).  Sourced, not run:
#
#   SUITE_PREFIX=ports/        # optional: put before every test name
#   . tests/lib/suite.sh
#
#   pass NAME [NOTE]           PASS: <prefix>NAME[: NOTE]
#   fail NAME WHY              FAIL: <prefix>NAME: WHY    (and sets failed=1)
#   skip NAME WHY              SKIP: <prefix>NAME: WHY
#   skip_all WHY               SKIP every name in $TESTS with WHY, exit 0
#   fail_all WHY               FAIL every name in $TESTS with WHY, exit 1
#   wait_for SECONDS WHAT CMD [ARG...]
#                              run CMD until it succeeds, at most SECONDS
#   not CMD [ARG...]           true when CMD fails (for wait_for)
#   pid_gone PID               true when process PID no longer exists
#   on_exit CMD                run CMD when the suite's own shell exits
#
# The line format is the one tests/run-all counts.  A suite ends with
# "exit $failed" (0 when nothing failed).

failed=0

# pass NAME [NOTE] - report a passed test
pass() { echo "PASS: ${SUITE_PREFIX:-}$1${2:+: $2}"; }

# fail NAME WHY - report a failed test; the suite's exit status becomes 1
fail() { echo "FAIL: ${SUITE_PREFIX:-}$1: $2"; failed=1; }

# skip NAME WHY - report a test that cannot run here
skip() { echo "SKIP: ${SUITE_PREFIX:-}$1: $2"; }

# skip_all WHY - every test of $TESTS cannot run here: SKIP each, exit 0
skip_all() {
	local t
	for t in ${TESTS:-}; do skip "$t" "$1"; done
	exit 0
}

# fail_all WHY - the common setup of $TESTS failed: FAIL each, exit 1
fail_all() {
	local t
	for t in ${TESTS:-}; do fail "$t" "$1"; done
	exit 1
}

# not CMD [ARG...] - succeed when CMD fails (wait_for 5 "no socket" not test -S F)
not() { ! "$@"; }

# pid_gone PID - process PID has exited (wait_for 10 "PID to exit" pid_gone PID)
pid_gone() { ! kill -0 "$1" 2>/dev/null; }

# on_exit CMD - run CMD (a function name, or a command line) when the suite
# exits, like trap CMD EXIT, but only in the suite's own shell: bash 5.2 runs
# the EXIT trap in a background child that is killed before it has exec'd
# (kill "$!" right after "cmd &" on a loaded machine), which would tear the
# suite's namespaces and daemons down while the suite goes on.
on_exit() {
	suite_pid=$BASHPID
	# shellcheck disable=SC2064
	trap "[ \"\$BASHPID\" = $suite_pid ] && { $1; }" EXIT
}

# wait_for SECONDS WHAT CMD [ARG...] - poll a condition with a bound
#
# Runs CMD (in this shell: a function may set variables) every
# WAIT_FOR_INTERVAL seconds (default 0.1) until it succeeds.  Returns 0 as
# soon as it does; after SECONDS (whole seconds, CMD run once more at the
# end) returns 1 with wait_for_error set to "timed out after SECONDS s
# waiting for WHAT", also printed on stderr.
wait_for() {
	local secs=$1 what=$2 end
	shift 2
	if ! [[ "$secs" =~ ^[0-9]+$ ]] || [ $# -eq 0 ]; then
		echo "wait_for: usage: wait_for SECONDS WHAT CMD [ARG...] (got '$secs' '$what' $*)" >&2
		wait_for_error="wait_for called wrongly"
		return 2
	fi
	wait_for_error=
	end=$(( ${EPOCHREALTIME//[.,]/} + secs * 1000000 ))
	while :; do
		"$@" && return 0
		if [ "${EPOCHREALTIME//[.,]/}" -ge "$end" ]; then
			wait_for_error="timed out after $secs s waiting for $what"
			echo "# wait_for: $wait_for_error" >&2
			return 1
		fi
		sleep "${WAIT_FOR_INTERVAL:-0.1}"
	done
}
