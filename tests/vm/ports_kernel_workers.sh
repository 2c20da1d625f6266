#!/bin/bash
# ports_kernel_workers.sh - (VM rig) the kernel engine's queue pairs on two
# pump threads ([daemon] workers = 2).
#
# Run by tests/vm/guest-run inside the VM, where vringfd.ko is loaded.
# vringnetd runs with engine = kernel and workers = 2 in a private network
# namespace with two taps and two vhost-user ports; two tests/host/vu_frontend
# send 20000 frames of 64 bytes each at the same time, so the module walks
# two rings from two daemon threads at once:
#   ports-kernel-workers-threads   the daemon runs two pump threads
#   ports-kernel-workers-spread    the two ports' queue pairs run on
#                                  different workers, on the kernel engine
#   ports-kernel-workers-tx        each tap received exactly 20000 frames,
#                                  each port's counters (read through the
#                                  workers) say the same
#   ports-kernel-workers-restart   a second front-end on the first port
#                                  after the first hung up (the pair stopped
#                                  on its worker, the vring fds closed there,
#                                  a new pair started): exactly 20000 again
set -u
cd "$(dirname "$0")/../.."
pfx=ports-kernel-workers
tests="threads spread tx restart"
skip_all() {
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
work=$(mktemp -d /tmp/ports-kernel-workers.XXXXXX)
ns=vrnkw$$
dpid=
cleanup() {
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
ip netns add "$ns" || skip_all "ip netns add failed"
cat >"$work/k.conf" <<EOF
[daemon]
control-socket = $work/control.sock
engine = kernel
log-level = info
workers = 2

[tap vrnkw0]
[tap vrnkw1]

[port k0]
tap = vrnkw0
type = vhost-user
listen = $work/k0.sock

[port k1]
tap = vrnkw1
type = vhost-user
listen = $work/k1.sock
EOF
ip netns exec "$ns" build/vringnetd --config "$work/k.conf" >"$work/daemon.log" 2>&1 &
dpid=$!
for i in $(seq 150); do grep -q 'ready:' "$work/daemon.log" && break; sleep 0.2; done
if ! grep -q 'ready:' "$work/daemon.log"; then
	sed 's/^/# daemon: /' "$work/daemon.log"
	for t in $tests; do echo "FAIL: $pfx-$t: vringnetd did not start"; done
	exit 1
fi
ctl() { build/vringnetctl -s "$work/control.sock" --json "$@"; }
tap_rx() { ip -n "$ns" -j -s link show "$1" | jq '.[0].stats64.rx.packets'; }
fail() { echo "FAIL: $pfx-$1: $2"; failed=1; }

n=0
for t in /proc/"$dpid"/task/*; do
	case $(cat "$t/comm") in vringnetd-w*) n=$((n + 1)) ;; esac
done
if [ "$n" -eq 2 ] && grep -q 'workers: 2 pump threads' "$work/daemon.log"; then
	echo "PASS: $pfx-threads"
else
	fail threads "$n pump threads"
fi

b0=$(tap_rx vrnkw0)
b1=$(tap_rx vrnkw1)
build/tests/host/vu_frontend "$work/k0.sock" 20000 64 >"$work/fe0" 2>&1 &
p0=$!
build/tests/host/vu_frontend "$work/k1.sock" 20000 64 >"$work/fe1" 2>&1 &
p1=$!
wait "$p0"
r0=$?
wait "$p1"
r1=$?
sleep 0.5
d0=$(( $(tap_rx vrnkw0) - b0 ))
d1=$(( $(tap_rx vrnkw1) - b1 ))
s0=$(ctl stats k0 | jq '.stats[0].tx.frames')
s1=$(ctl stats k1 | jq '.stats[0].tx.frames')
echo "# front-ends: $(tr '\n' ' ' <"$work/fe0") (exit $r0); $(tr '\n' ' ' <"$work/fe1") (exit $r1)"
echo "# taps rx +$d0 +$d1, ports tx $s0 $s1"
w0=$(grep -o 'port k0: queue pair 0 running ([a-z]* engine, [^,]*' "$work/daemon.log" | tail -1 | sed 's/.*(//')
w1=$(grep -o 'port k1: queue pair 0 running ([a-z]* engine, [^,]*' "$work/daemon.log" | tail -1 | sed 's/.*(//')
if [[ $w0 == "kernel engine, worker "* ]] && [[ $w1 == "kernel engine, worker "* ]] && [ "$w0" != "$w1" ]; then
	echo "PASS: $pfx-spread: k0 $w0, k1 $w1"
else
	fail spread "k0 '$w0', k1 '$w1'"
fi
if [ "$r0" -eq 0 ] && [ "$r1" -eq 0 ] && [ "$d0" -eq 20000 ] && [ "$d1" -eq 20000 ] &&
   [ "$s0" = 20000 ] && [ "$s1" = 20000 ]; then
	echo "PASS: $pfx-tx"
else
	fail tx "exit $r0/$r1, taps rx +$d0/+$d1, ports tx $s0/$s1 (want 20000 each)"
	sed 's/^/# daemon: /' "$work/daemon.log" | tail -20
fi

b0=$(tap_rx vrnkw0)
out=$(build/tests/host/vu_frontend "$work/k0.sock" 20000 64 2>&1)
rc=$?
sleep 0.5
d0=$(( $(tap_rx vrnkw0) - b0 ))
if [ "$rc" -eq 0 ] && [ "$d0" -eq 20000 ]; then
	echo "PASS: $pfx-restart"
else
	fail restart "exit $rc ($out), tap rx +$d0 (want 20000)"
fi
kill -0 "$dpid" 2>/dev/null || fail restart "the daemon died"
exit "$failed"
