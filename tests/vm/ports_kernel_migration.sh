#!/bin/bash
# ports_kernel_migration.sh - (VM rig) dirty logging under the kernel engine.
#
# Run by tests/vm/guest-run inside the VM, where vringfd.ko is loaded.
# vringfd.ko does not log dirty pages: while a vhost-user front-end has
# VHOST_F_LOG_ALL acked (a migration's source) its queue pairs run on the
# user engine, and return to the kernel engine when logging ends.
# vringnetd runs with engine = kernel in a private network namespace;
# tests/host/vu_frontend with VU_FRONTEND_MIGRATE=1 sends 500 frames, turns
# logging on (SET_LOG_BASE, SET_FEATURES with LOG_ALL, SET_VRING_ADDR with
# the log flag), sends 500, checks that the tx used ring's page was marked
# in its log, turns logging off and sends 500 more:
#   ports-kernel-migration-frames   1500 frames on the tap, exact, none lost
#                                   at the two engine switches
#   ports-kernel-migration-logged   the front-end found its page marked
#   ports-kernel-migration-engines  the queue pair ran on the kernel engine,
#                                   then on the user engine with the log,
#                                   then on the kernel engine again
set -u
cd "$(dirname "$0")/../.." || exit 1
pfx=ports-kernel-migration
tests="frames logged engines"
skip_all() {
	local t
	for t in $tests; do echo "SKIP: $pfx-$t: $1"; done
	exit 0
}
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -c /dev/vringfd ] || skip_all "/dev/vringfd missing (vringfd.ko not loaded)"
command -v jq >/dev/null || skip_all "jq not installed"
for b in build/vringnetd build/vringnetctl build/tests/host/vu_frontend; do
	[ -x "$b" ] || skip_all "$b not built"
done

failed=0
work=$(mktemp -d /tmp/ports-kernel-migration.XXXXXX)
ns=vrnkm$$
dpid=
cleanup() {
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
ip netns add "$ns" || skip_all "ip netns add failed"
cat >"$work/k.conf" <<EOF2
[daemon]
control-socket = $work/control.sock
engine = kernel
log-level = info

[tap vrnkm0]
address = 10.78.10.1/24

[port km]
tap = vrnkm0
type = vhost-user
listen = $work/km.sock
EOF2
dlog=$work/daemon.log
ip netns exec "$ns" build/vringnetd --config "$work/k.conf" >"$dlog" 2>&1 &
dpid=$!
for i in $(seq 150); do grep -q 'ready:' "$dlog" && break; sleep 0.2; done
if ! grep -q 'ready:' "$dlog" || ! grep -q 'engine: kernel' "$dlog"; then
	sed 's/^/# daemon: /' "$dlog"
	for t in $tests; do echo "FAIL: $pfx-$t: vringnetd did not start with engine = kernel"; done
	exit 1
fi
tap_rx() { ip -n "$ns" -j -s link show "$1" | jq '.[0].stats64.rx.packets'; }

b=$(tap_rx vrnkm0)
out=$(VU_FRONTEND_MIGRATE=1 build/tests/host/vu_frontend "$work/km.sock" 500 200 2>&1)
rc=$?
sleep 0.5
d=$(( $(tap_rx vrnkm0) - b ))
echo "# front-end: $(tr '\n' ' ' <<<"$out"); tap rx +$d"
if [ "$rc" -eq 0 ] && [ "$d" -eq 1500 ]; then
	echo "PASS: $pfx-frames"
else
	echo "FAIL: $pfx-frames: front-end exit $rc ($(tr '\n' ' ' <<<"$out")), tap rx +$d (want 1500)"
	failed=1
fi
if grep -q '^MIGRATE-OK' <<<"$out"; then
	echo "PASS: $pfx-logged"
else
	echo "FAIL: $pfx-logged: $(grep '^MIGRATE' <<<"$out" || echo 'the front-end did not reach the check')"
	failed=1
fi
# the engines of the queue pair's starts, in order
engines=$(sed -n 's/.*port km: queue pair 0 running (\([a-z]*\) engine.*/\1/p' "$dlog" | uniq | tr '\n' ' ')
grep 'port km: queue pair 0 running' "$dlog" | sed 's/^/# daemon: /'
if [ "$engines" = "kernel user kernel " ] &&
   grep -q 'port km: queue pair 0 running (user engine.*migrating: dirty pages logged' "$dlog"; then
	echo "PASS: $pfx-engines"
else
	echo "FAIL: $pfx-engines: the queue pair ran on '${engines% }' (want kernel, user with the log, kernel)"
	failed=1
fi
exit "$failed"
