#!/bin/bash
# ports_kernel_memory.sh - (VM rig) a vhost-user port with kernel-rings =
# memory: the front-end's rings become rings of memory over its memfd.
#
# Run by tests/vm/guest-run inside the VM, where vringfd.ko is loaded.
# vringnetd runs with engine = kernel in a private network namespace (IPv6
# off, the tap without an address: nothing but the test's frames crosses
# it) with one vhost-user port, kernel-rings = memory.
# tests/host/vu_frontend (memfd sealed against shrinking, as QEMU's
# memory-backend-memfd) sends 20000 frames of 1000 bytes while a packet
# socket in the namespace sends 500 frames (EtherType 0x88b5) out of the tap
# to the front-end's rx ring:
#   ports-kernel-memory-rings      the daemon says both rings are rings of
#                                  memory (VRINGFD_SET_MEM_FILES took them)
#   ports-kernel-memory-tx         the tap received exactly 20000 frames, and
#                                  the port's tx counter says the same
#   ports-kernel-memory-rx         the front-end received exactly 500 frames,
#                                  and the port's rx counter says the same
#   ports-kernel-memory-again      a second front-end after the first hung up
#                                  (the pair stopped, GET_VRING_BASE answered
#                                  from the module's state, started again on
#                                  new rings of memory): exactly 20000
#   ports-kernel-memory-fallback   a front-end whose memfd can shrink (no
#                                  F_SEAL_SHRINK: the module refuses it with
#                                  EPERM) gets rings of the daemon's address
#                                  space, logged once, and exactly 2000
#                                  frames reach the tap
#   ports-kernel-memory-hugetlb    a hugetlbfs memfd (the module: EOPNOTSUPP)
#                                  falls back the same way: exactly 2000
#                                  (SKIP when the VM has no free huge pages)
# Printed, not judged: the daemon's voluntary context switches per frame
# over the first run (rings of memory change where the module finds the
# pages, not who drives the rings: the daemon still runs one write() per
# batch).
set -u
cd "$(dirname "$0")/../.." || exit 1
pfx=ports-kernel-memory
tests="rings tx rx again fallback hugetlb"
skip_all() {
	local t
	for t in $tests; do echo "SKIP: $pfx-$t: $1"; done
	exit 0
}
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -c /dev/vringfd ] || skip_all "/dev/vringfd missing (vringfd.ko not loaded)"
command -v jq >/dev/null || skip_all "jq not installed"
[ -x /usr/bin/python3 ] || skip_all "/usr/bin/python3 missing (sends the rx frames)"
for b in build/vringnetd build/vringnetctl build/tests/host/vu_frontend; do
	[ -x "$b" ] || skip_all "$b not built"
done

failed=0
pass() { echo "PASS: $pfx-$1"; }
fail() { echo "FAIL: $pfx-$1: $2"; failed=1; }
work=$(mktemp -d /tmp/ports-kernel-memory.XXXXXX)
ns=vrnm$$
dpid=
old_nr=$(cat /proc/sys/vm/nr_hugepages)
cleanup() {
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	echo "$old_nr" >/proc/sys/vm/nr_hugepages
	rm -rf "$work"
}
trap cleanup EXIT
ip netns add "$ns" || skip_all "ip netns add failed"
ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
cat >"$work/m.conf" <<EOF
[daemon]
control-socket = $work/control.sock
engine = kernel
log-level = info

[tap vrnm0]

[port vm]
tap = vrnm0
type = vhost-user
listen = $work/vm.sock
kernel-rings = memory
EOF
ip netns exec "$ns" build/vringnetd --config "$work/m.conf" >"$work/daemon.log" 2>&1 &
dpid=$!
for i in $(seq 150); do grep -q 'ready:' "$work/daemon.log" && break; sleep 0.2; done
if ! grep -q 'ready:' "$work/daemon.log"; then
	sed 's/^/# daemon: /' "$work/daemon.log"
	for t in $tests; do fail "$t" "vringnetd did not start"; done
	exit 1
fi
ctl() { build/vringnetctl -s "$work/control.sock" --json "$@"; }
tap_rx() { ip -n "$ns" -j -s link show vrnm0 | jq '.[0].stats64.rx.packets'; }
ctxt() { awk '/^voluntary_ctxt_switches:/ {print $2}' "/proc/$dpid/status"; }
# send_frames N - N broadcast frames of 60 bytes out of the tap (to the front-end)
send_frames() {
	ip netns exec "$ns" /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("vrnm0", 0))
for i in range(int(sys.argv[1])):
    s.send(b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + b"\x88\xb5" + i.to_bytes(4, "big") + bytes(42))
' "$1"
}

# --- rings of memory: tx and rx with exact counts
before=$(tap_rx)
c0=$(ctxt)
build/tests/host/vu_frontend "$work/vm.sock" 20000 1000 500 >"$work/fe.out" 2>&1 &
fe_pid=$!
for i in $(seq 100); do grep -q 'queue pair 0 running' "$work/daemon.log" && break; sleep 0.1; done
send_frames 500
wait "$fe_pid"
rc=$?
c1=$(ctxt)
out=$(cat "$work/fe.out")
sleep 0.5
after=$(tap_rx)
st=$(ctl stats vm)
txf=$(jq '.stats[0].tx.frames' <<<"$st")
rxf=$(jq '.stats[0].rx.frames' <<<"$st")
echo "# vu_frontend: $out (exit $rc); tap rx +$((after - before)); port tx $(jq -c '.stats[0].tx | {frames, syscalls, batches}' <<<"$st") rx $(jq -c '.stats[0].rx | {frames, syscalls, batches}' <<<"$st")"
echo "# daemon voluntary context switches over 20000 tx + 500 rx frames: $((c1 - c0))"
line=$(grep -m1 'rings of memory' "$work/daemon.log")
if [[ "$line" == *"tx yes, rx yes"* ]]; then
	pass rings
else
	fail rings "daemon said '${line:-nothing about rings of memory}'"
	sed 's/^/# daemon: /' "$work/daemon.log" | tail -20
fi
if grep -q 'completed 20000 ' <<<"$out" && [ $((after - before)) -eq 20000 ] && [ "$txf" = 20000 ]; then
	pass tx
else
	fail tx "front-end exit $rc ($out), tap rx +$((after - before)), port tx frames $txf (want 20000)"
fi
if grep -q 'received 500 ' <<<"$out" && [ "$rxf" = 500 ]; then
	pass rx
else
	fail rx "front-end exit $rc ($out), port rx frames $rxf (want 500)"
fi

# --- the pair stopped and started again for the next front-end
before=$(tap_rx)
out=$(build/tests/host/vu_frontend "$work/vm.sock" 20000 64 2>&1)
rc=$?
sleep 0.5
d=$(( $(tap_rx) - before ))
n=$(grep -c 'rings of memory: tx yes, rx yes' "$work/daemon.log")
if [ "$rc" -eq 0 ] && [ "$d" -eq 20000 ] && [ "$n" -eq 2 ]; then
	pass again
else
	fail again "exit $rc ($out), tap rx +$d (want 20000), rings of memory made $n times (want 2)"
fi

# --- memory the module refuses: the daemon's own rings, logged once
before=$(tap_rx)
out=$(VU_FRONTEND_MEM=memfd build/tests/host/vu_frontend "$work/vm.sock" 2000 64 2>&1)
rc=$?
sleep 0.5
d=$(( $(tap_rx) - before ))
fb=$(grep 'VRINGFD_SET_MEM_FILES refused' "$work/daemon.log")
if [ "$rc" -eq 0 ] && [ "$d" -eq 2000 ] && [ "$(grep -c . <<<"$fb")" -eq 1 ] &&
   [[ "$fb" == *"Operation not permitted"* ]] &&
   [ "$(grep -c 'rings of memory: tx' "$work/daemon.log")" -eq 2 ]; then
	pass fallback
else
	fail fallback "exit $rc ($out), tap rx +$d (want 2000), log: ${fb:-no fall-back logged}"
fi

echo $((old_nr + 8)) >/proc/sys/vm/nr_hugepages
free=$(awk '/^HugePages_Free:/ {print $2}' /proc/meminfo)
if [ "$free" -lt 2 ]; then
	echo "SKIP: $pfx-hugetlb: the VM's kernel gave $free free huge pages"
else
	before=$(tap_rx)
	out=$(VU_FRONTEND_MEM=hugetlb-memfd build/tests/host/vu_frontend "$work/vm.sock" 2000 64 2>&1)
	rc=$?
	sleep 0.5
	d=$(( $(tap_rx) - before ))
	if [ "$rc" -eq 0 ] && [ "$d" -eq 2000 ] &&
	   [ "$(grep -c 'rings of memory: tx' "$work/daemon.log")" -eq 2 ] &&
	   [ "$(grep -c 'VRINGFD_SET_MEM_FILES refused' "$work/daemon.log")" -eq 1 ]; then
		pass hugetlb
	else
		fail hugetlb "exit $rc ($out), tap rx +$d (want 2000)"
	fi
fi
kill -0 "$dpid" 2>/dev/null || fail again "the daemon died"
[ "$failed" -eq 0 ] || sed 's/^/# daemon: /' "$work/daemon.log" | tail -30
exit "$failed"
