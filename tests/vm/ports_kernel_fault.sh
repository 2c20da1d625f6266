#!/bin/bash
# ports_kernel_fault.sh - (VM rig) a front-end truncates its guest memory
# under the kernel engine.
#
# Run by tests/vm/guest-run inside the VM, where vringfd.ko is loaded.
# vringnetd runs with engine = kernel in a private network namespace with two
# vhost-user ports.  tests/host/vu_frontend sends 2000 frames through port
# kg; then a hostile vu_frontend (VU_FRONTEND_EVIL=truncate, unsealed memfd)
# on port kf queues a frame, truncates its memfd to 0 and kicks: the module
# meets the missing pages as EFAULT (the daemon's own guarded accesses as
# SIGBUS), and the daemon must close that connection, neither spin nor die:
#   ports-kernel-fault-closed     the front-end saw its connection closed, the
#                                 daemon logged why for port kf, naming guest
#                                 memory region 0, kf has 0 connections, the
#                                 daemon still runs
#   ports-kernel-fault-other-port 2000 more frames through port kg, exact
#   ports-kernel-fault-same-port  a well-behaved front-end on kf afterwards,
#                                 2000 frames, exact
set -u
cd "$(dirname "$0")/../.." || exit 1
pfx=ports-kernel-fault
tests="closed other-port same-port"
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
work=$(mktemp -d /tmp/ports-kernel-fault.XXXXXX)
ns=vrnkf$$
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

[tap vrnkf0]
address = 10.78.8.1/24
[tap vrnkf1]
address = 10.78.9.1/24

[port kg]
tap = vrnkf0
type = vhost-user
listen = $work/kg.sock

[port kf]
tap = vrnkf1
type = vhost-user
listen = $work/kf.sock
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
ctl() { build/vringnetctl -s "$work/control.sock" --json "$@"; }
tap_rx() { ip -n "$ns" -j -s link show "$1" | jq '.[0].stats64.rx.packets'; }
port_conns() { ctl status | jq --arg p "$1" '.ports[] | select(.name == $p) | .connections'; }

# frames PORT TAP - 2000 frames through PORT: sets why to "" or what went wrong
frames() {
	local b out rc d
	b=$(tap_rx "$2")
	out=$(build/tests/host/vu_frontend "$work/$1.sock" 2000 200 2>&1)
	rc=$?
	for i in $(seq 25); do [ "$(port_conns "$1")" = 0 ] && break; sleep 0.2; done
	d=$(( $(tap_rx "$2") - b ))
	echo "# port $1: $out; tap rx +$d"
	why=
	[ "$rc" -eq 0 ] && [ "$d" -eq 2000 ] || why="front-end exit $rc ($out), tap rx +$d (want 2000)"
}

frames kg vrnkf0
[ -z "$why" ] || echo "# before the fault, port kg: $why"

out=$(VU_FRONTEND_MEM=memfd VU_FRONTEND_EVIL=truncate build/tests/host/vu_frontend "$work/kf.sock" 10 200 2>&1)
rc=$?
for i in $(seq 25); do conns=$(port_conns kf); [ "$conns" = 0 ] && break; sleep 0.2; done
line=$(grep 'port kf: vhost-user connection closed: .*guest memory region 0 ' "$dlog" | tail -n 1)
echo "# front-end: $(tail -n 1 <<<"$out")"
echo "# daemon: $line"
if [ "$rc" -eq 0 ] && grep -q '^EVIL-OK' <<<"$out" && [ -n "$line" ] && [ "$conns" = 0 ] &&
   kill -0 "$dpid" 2>/dev/null; then
	echo "PASS: $pfx-closed"
else
	echo "FAIL: $pfx-closed: front-end exit $rc ($(tr '\n' ' ' <<<"$out")), log line '${line:-none}', kf connections ${conns:-?}, daemon $(kill -0 "$dpid" 2>/dev/null && echo running || echo gone)"
	sed 's/^/# daemon: /' "$dlog" | tail -20
	failed=1
fi

frames kg vrnkf0
if [ -z "$why" ]; then echo "PASS: $pfx-other-port"; else echo "FAIL: $pfx-other-port: $why"; failed=1; fi
frames kf vrnkf1
if [ -z "$why" ]; then echo "PASS: $pfx-same-port"; else echo "FAIL: $pfx-same-port: $why"; failed=1; fi
exit "$failed"
