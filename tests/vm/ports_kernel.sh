#!/bin/bash
# ports_kernel.sh - (VM rig) a vhost-user front-end's rings served by the kernel engine.
#
# Run by tests/vm/guest-run inside the VM, where vringfd.ko is loaded.
# vringnetd runs with engine = kernel in a private network namespace with
# one tap and one vhost-user port; tests/host/vu_frontend (a front-end on
# libvringfd: memfd guest memory, eventfd kicks) sends 20000 frames of
# 1000 bytes through it while the namespace pings an address behind the
# port (ARP requests come back on the front-end's rx ring).  The module
# walks the guest rings (the daemon never touches a frame):
#   ports-kernel-vhost-user-engine  the daemon chose the kernel engine
#   ports-kernel-vhost-user-tx      the tap received exactly 20000 frames, and
#                                   the port's counters say the same
#   ports-kernel-vhost-user-rx      frames from the tap reached the front-end
#   ports-kernel-vhost-user-batch   fewer tx system calls than frames
#   ports-kernel-vhost-user-call-swap  a second front-end gives both rings
#                                   new call eventfds halfway through 20000
#                                   frames (SET_VRING_CALL while they run,
#                                   as QEMU does when a guest masks an
#                                   MSI-X vector): the new ones are
#                                   signalled, and the tap gets all 20000
# A stream port (the daemon drives its own ring pair) gets 5000 frames
# from tests/host/frame_evil stream-send:
#   ports-kernel-stream-tx          the tap received exactly 5000 frames
# The kernel engine creates its vring fds with VRINGFD_CREATE_F_AVAIL_BASE
# at SET_VRING_BASE's index (engine_ring.last_avail, 0 here): rx buffers the
# front-end posted before its queue started are served (without the flag
# the module would start at avail->idx and skip them).
# Then a second daemon with workers = 2 (pump threads) and two vhost-user
# ports; two front-ends send 20000 frames of 64 bytes each at the same
# time, so the module walks two rings from two daemon threads at once:
#   ports-kernel-workers-threads   the daemon runs two pump threads
#   ports-kernel-workers-spread    the two ports' queue pairs run on
#                                  different workers
#   ports-kernel-workers-tx        each tap received exactly 20000 frames,
#                                  each port's counters (read through the
#                                  workers) say the same
#   ports-kernel-workers-restart   a new front-end on the first port after
#                                  the first hung up (its pair stopped on its
#                                  worker, started again): exactly 20000
set -u
cd "$(dirname "$0")/../.." || exit 1
pfx=ports-kernel-vhost-user
tests="engine tx rx batch call-swap"
stests="stream-tx"
wtests="threads spread tx restart"
skip_all() {
	local t
	for t in $tests; do echo "SKIP: $pfx-$t: $1"; done
	for t in $stests; do echo "SKIP: ports-kernel-$t: $1"; done
	for t in $wtests; do echo "SKIP: ports-kernel-workers-$t: $1"; done
	exit 0
}
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -c /dev/vringfd ] || skip_all "/dev/vringfd missing (vringfd.ko not loaded)"
command -v jq >/dev/null || skip_all "jq not installed"
for b in build/vringnetd build/vringnetctl build/tests/host/vu_frontend build/tests/host/frame_evil; do
	[ -x "$b" ] || skip_all "$b not built"
done

failed=0
work=$(mktemp -d /tmp/ports-kernel.XXXXXX)
ns=vrnk$$
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
engine = ${VRINGNET_PORTS_ENGINE:-kernel}
log-level = info

[tap vrnk0]
address = 10.78.0.1/24

[tap vrnk1]
address = 10.78.1.1/24

[port vk]
tap = vrnk0
type = vhost-user
listen = $work/vk.sock

[port sk]
tap = vrnk1
type = stream
listen = $work/sk.sock
EOF
ip netns exec "$ns" build/vringnetd --config "$work/k.conf" >"$work/daemon.log" 2>&1 &
dpid=$!
for i in $(seq 150); do grep -q 'ready:' "$work/daemon.log" && break; sleep 0.2; done
if ! grep -q 'ready:' "$work/daemon.log"; then
	sed 's/^/# daemon: /' "$work/daemon.log"
	for t in $tests; do echo "FAIL: $pfx-$t: vringnetd did not start with engine = kernel"; done
	exit 1
fi
if grep -q 'engine: kernel' "$work/daemon.log"; then
	echo "PASS: $pfx-engine"
else
	echo "FAIL: $pfx-engine: $(grep -m1 'engine' "$work/daemon.log")"
	failed=1
fi
ctl() { build/vringnetctl -s "$work/control.sock" --json "$@"; }
tap_rx() { ip -n "$ns" -j -s link show vrnk0 | jq '.[0].stats64.rx.packets'; }
before=$(tap_rx)
build/tests/host/vu_frontend "$work/vk.sock" 20000 1000 1 >"$work/fe.out" 2>&1 &
fe_pid=$!
# frames for the front-end (ARP requests) while it is connected
sleep 1
ip netns exec "$ns" ping -c 10 -i 0.3 10.78.0.2 >/dev/null 2>&1
wait "$fe_pid"
rc=$?
out=$(cat "$work/fe.out")
sleep 0.5
after=$(tap_rx)
echo "# tap: $(ip -n "$ns" -j -s link show vrnk0 | jq -c '.[0].stats64.tx')"
echo "# tap link: $(ip -n "$ns" -o link show vrnk0)"
echo "# neigh: $(ip -n "$ns" neigh show dev vrnk0 | tr '\n' ' ')"
st=$(ctl stats vk)
frames=$(jq '.stats[0].tx.frames' <<<"$st")
sys=$(jq '.stats[0].tx.syscalls' <<<"$st")
rxf=$(jq '.stats[0].rx.frames' <<<"$st")
echo "# port rx counters: $(jq -c '.stats[0].rx' <<<"$st")"
echo "# vu_frontend: $out (exit $rc); tap rx +$((after - before)); port tx frames $frames, tx syscalls $sys, rx frames $rxf"
if grep -q 'completed 20000 ' <<<"$out" && [ $((after - before)) -eq 20000 ] && [ "$frames" = 20000 ]; then
	echo "PASS: $pfx-tx"
else
	failed=1
	echo "FAIL: $pfx-tx: front-end exit $rc ($out), tap rx +$((after - before)), port tx frames $frames (want 20000)"
	sed 's/^/# daemon: /' "$work/daemon.log" | tail -20
fi
if grep -q 'received [1-9]' <<<"$out"; then
	echo "PASS: $pfx-rx"
else
	echo "FAIL: $pfx-rx: the front-end received nothing ($out)"
	failed=1
fi
if [[ "$sys" =~ ^[0-9]+$ ]] && [ "$sys" -gt 0 ] && [ "$sys" -lt 20000 ]; then
	echo "PASS: $pfx-batch"
else
	echo "FAIL: $pfx-batch: $sys tx system calls for 20000 frames"
	failed=1
fi

# new call eventfds while the rings run: the kernel engine signals them
before=$(tap_rx)
out=$(VU_FRONTEND_SWAP_CALL=1 build/tests/host/vu_frontend "$work/vk.sock" 20000 1000 2>&1)
rc=$?
sleep 0.5
after=$(tap_rx)
echo "# vu_frontend (call swap): $(tr '\n' ' ' <<<"$out")(exit $rc); tap rx +$((after - before))"
if [ "$rc" -eq 0 ] && grep -q 'SWAP-CALL-OK' <<<"$out" && [ $((after - before)) -eq 20000 ]; then
	echo "PASS: $pfx-call-swap"
else
	failed=1
	echo "FAIL: $pfx-call-swap: exit $rc, $(grep -o 'SWAP-CALL-[A-Z]*: .*' <<<"$out" | head -n 1), tap rx +$((after - before)) (want 20000)"
fi

tap1_rx() { ip -n "$ns" -j -s link show vrnk1 | jq '.[0].stats64.rx.packets'; }
before=$(tap1_rx)
build/tests/host/frame_evil stream-send "$work/sk.sock" 5000
rc=$?
sleep 0.5
after=$(tap1_rx)
st=$(ctl stats sk)
echo "# stream: tap rx +$((after - before)); port tx $(jq -c '.stats[0].tx | {frames, syscalls, batches, drop_bad_chain}' <<<"$st")"
if [ "$rc" -eq 0 ] && [ $((after - before)) -eq 5000 ]; then
	echo "PASS: ports-kernel-stream-tx"
else
	echo "FAIL: ports-kernel-stream-tx: sender exit $rc, tap rx +$((after - before)) (want 5000)"
	failed=1
fi

# --- workers = 2: two rings walked from two pump threads at once
kill "$dpid"
wait "$dpid" 2>/dev/null
wpfx=ports-kernel-workers
wfail() { echo "FAIL: $wpfx-$1: $2"; failed=1; }
cat >"$work/w.conf" <<EOF
[daemon]
control-socket = $work/control.sock
engine = ${VRINGNET_PORTS_ENGINE:-kernel}
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
ip netns exec "$ns" build/vringnetd --config "$work/w.conf" >"$work/wdaemon.log" 2>&1 &
dpid=$!
for i in $(seq 150); do grep -q 'ready:' "$work/wdaemon.log" && break; sleep 0.2; done
if ! grep -q 'ready:' "$work/wdaemon.log"; then
	sed 's/^/# daemon: /' "$work/wdaemon.log"
	for t in $wtests; do wfail "$t" "vringnetd did not start with workers = 2"; done
	exit 1
fi
wtap_rx() { ip -n "$ns" -j -s link show "$1" | jq '.[0].stats64.rx.packets'; }
n=0
for t in /proc/"$dpid"/task/*; do
	case $(cat "$t/comm") in vringnetd-w*) n=$((n + 1)) ;; esac
done
if [ "$n" -eq 2 ] && grep -q 'workers: 2 pump threads' "$work/wdaemon.log"; then
	echo "PASS: $wpfx-threads"
else
	wfail threads "$n pump threads"
fi
b0=$(wtap_rx vrnkw0)
b1=$(wtap_rx vrnkw1)
build/tests/host/vu_frontend "$work/k0.sock" 20000 64 >"$work/fe0" 2>&1 &
p0=$!
build/tests/host/vu_frontend "$work/k1.sock" 20000 64 >"$work/fe1" 2>&1 &
p1=$!
wait "$p0"
r0=$?
wait "$p1"
r1=$?
sleep 0.5
d0=$(( $(wtap_rx vrnkw0) - b0 ))
d1=$(( $(wtap_rx vrnkw1) - b1 ))
s0=$(ctl stats k0 | jq '.stats[0].tx.frames')
s1=$(ctl stats k1 | jq '.stats[0].tx.frames')
echo "# workers = 2: front-ends $(tr '\n' ' ' <"$work/fe0") (exit $r0); $(tr '\n' ' ' <"$work/fe1") (exit $r1); taps rx +$d0 +$d1, ports tx $s0 $s1"
w0=$(grep -o 'port k0: queue pair 0 running ([a-z]* engine, [^,]*' "$work/wdaemon.log" | tail -1 | sed 's/.*(//')
w1=$(grep -o 'port k1: queue pair 0 running ([a-z]* engine, [^,]*' "$work/wdaemon.log" | tail -1 | sed 's/.*(//')
if [[ $w0 == *", worker "* ]] && [[ $w1 == *", worker "* ]] && [ "$w0" != "$w1" ]; then
	echo "PASS: $wpfx-spread: k0 $w0, k1 $w1"
else
	wfail spread "k0 '$w0', k1 '$w1'"
fi
if [ "$r0" -eq 0 ] && [ "$r1" -eq 0 ] && [ "$d0" -eq 20000 ] && [ "$d1" -eq 20000 ] &&
   [ "$s0" = 20000 ] && [ "$s1" = 20000 ]; then
	echo "PASS: $wpfx-tx"
else
	wfail tx "exit $r0/$r1, taps rx +$d0/+$d1, ports tx $s0/$s1 (want 20000 each)"
	sed 's/^/# daemon: /' "$work/wdaemon.log" | tail -20
fi
b0=$(wtap_rx vrnkw0)
out=$(build/tests/host/vu_frontend "$work/k0.sock" 20000 64 2>&1)
rc=$?
sleep 0.5
d0=$(( $(wtap_rx vrnkw0) - b0 ))
if [ "$rc" -eq 0 ] && [ "$d0" -eq 20000 ] && kill -0 "$dpid" 2>/dev/null; then
	echo "PASS: $wpfx-restart"
else
	wfail restart "exit $rc ($out), tap rx +$d0 (want 20000), daemon $(kill -0 "$dpid" 2>/dev/null && echo alive || echo gone)"
fi
exit "$failed"
