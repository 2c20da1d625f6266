#!/bin/bash
# ports_kernel_kick.sh - (VM rig) vhost-user ports on the kernel engine with
# rings of memory: kernel-rings = kick (vringfd.ko serves the front-end's
# rings of memory on its kicks) and kernel-rings = memory (the daemon drives
# them).
#
# Run by tests/vm/guest-run inside the VM, where vringfd.ko is loaded.
# vringnetd runs with engine = kernel in a private network namespace (IPv6
# off, taps without addresses: nothing but the test's frames crosses them)
# with two vhost-user ports: kq (kernel-rings = kick) and mq (kernel-rings
# = memory, also the control of the wake-up count).
# tests/host/vu_frontend (memfd sealed against shrinking, as QEMU's
# memory-backend-memfd) sends 20000 frames of 1000 bytes while a packet
# socket in the namespace sends 500 frames out of the tap to its rx ring;
# with VU_FRONTEND_CHECK_BASE it then stops both rings (GET_VRING_BASE) and
# checks the positions the daemon answers:
#   ports-kernel-kick-mode       the daemon says the pair runs in kick mode
#   ports-kernel-kick-tx         the tap received exactly 20000 frames, the
#                                port's tx counter says the same
#   ports-kernel-kick-rx         the front-end received exactly 500 frames,
#                                the port's rx counter says the same
#   ports-kernel-kick-base       GET_VRING_BASE after frames flowed in kick
#                                mode: tx = frames sent, rx = buffers used
#   ports-kernel-memory-rings    on mq: both rings are rings of memory
#                                (VRINGFD_SET_MEM_FILES took them), not in
#                                kick mode
#   ports-kernel-memory-tx       on mq: exactly 20000 frames, and the counter
#   ports-kernel-memory-rx       on mq: exactly 500 frames, and the counter
#   ports-kernel-kick-wakeups    while a front-end streams 64-byte frames
#                                (VU_FRONTEND_UNTIL), over a window after its
#                                set-up: the daemon's threads made fewer
#                                voluntary context switches than 1 per 100
#                                frames the tap received; the same window on
#                                mq (the daemon drives the rings) is printed
#                                beside it
#   ports-kernel-kick-again      a second front-end after the first stopped
#                                its rings: exactly 20000, positions right
#   ports-kernel-kick-migrate    VU_FRONTEND_MIGRATE: dirty logging on moves
#                                the pair to the user engine (the daemon
#                                drives and logs), off brings it back to kick
#                                mode: exactly 3 x 2000 frames, the log page
#                                marked
#   ports-kernel-memory-fallback a front-end on mq whose memfd can shrink (no
#                                F_SEAL_SHRINK: the module refuses it with
#                                EPERM) gets rings of the daemon's address
#                                space, logged once: the tap counts exactly
#                                the frames it sent
#   ports-kernel-memory-hugetlb  a front-end in a hugetlbfs memfd (sealed,
#                                as QEMU's memory-backend-memfd,hugetlb=on)
#                                on kq: rings of memory in kick mode, the
#                                run of kick-tx/rx (exactly 20000 and 500),
#                                no mapping of it in the daemon, status 4
#                                MiB, 0 mapped, no refusal logged (SKIP
#                                without 2 free huge pages)
#   ports-kernel-memory-hugetlbfs-file  a front-end in a file on hugetlbfs
#                                (cannot be sealed: the module says EPERM)
#                                on mq: the daemon maps it at the fall-back
#                                (a mapping logged, status 4 MiB mapped),
#                                exactly 20000 and 500
#   ports-kernel-memory-memlock-once  the daemon's RLIMIT_MEMLOCK set to
#                                6 MiB (prlimit): a 4 MiB front-end on mq
#                                still gets two rings of memory (the
#                                module charges the pages both hold once),
#                                exactly 2000 frames, no refusal logged
#   ports-kernel-kick-nomap      while the front-end's frames flow on kq (the
#                                exact run above): /proc/PID/maps of the
#                                daemon has no mapping of its memfd
#                                (vringfd.ko reaches it through the file),
#                                and vringnetctl status says 4 MiB of guest
#                                memory, 0 mapped
#   ports-kernel-kick-nomap-setup  strace (-y) on the daemon while a
#                                front-end connects to kq and sends 2000
#                                frames: no mmap() of its memfd at all,
#                                not even around VRINGFD_CREATE (the rings
#                                are made with VRINGFD_CREATE_F_MEM_FILES)
#                                (SKIP without strace)
#   ports-kernel-memory-nomap    the same on mq (the daemon drives the rings)
#   ports-kernel-memory-fallback-maps  the same run: the daemon mapped that
#                                memfd (a mapping of it while frames flow,
#                                the log line that says why, status: 4 MiB
#                                mapped)
#   ports-kernel-kick-upgrade    vringnetctl upgrade while a front-end streams
#                                on kq: the pair leaves kick mode on the
#                                hand-over and the successor starts it in kick
#                                mode again; the tap counts exactly the frames
#                                sent, the connection is kept
set -u
cd "$(dirname "$0")/../.." || exit 1
pfx=ports-kernel-kick
tests="mode tx rx base nomap nomap-setup wakeups again migrate upgrade"
mtests="rings tx rx nomap fallback fallback-maps hugetlb hugetlbfs-file memlock-once"
skip_all() {
	local t
	for t in $tests; do echo "SKIP: $pfx-$t: $1"; done
	for t in $mtests; do echo "SKIP: ports-kernel-memory-$t: $1"; done
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
mpass() { echo "PASS: ports-kernel-memory-$1"; }
mfail() { echo "FAIL: ports-kernel-memory-$1: $2"; failed=1; }
work=$(mktemp -d /tmp/ports-kernel-kick.XXXXXX)
ns=vrnq$$
dpid=
old_nr=$(cat /proc/sys/vm/nr_hugepages)
cleanup() {
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	mountpoint -q "$work/huge" 2>/dev/null && umount "$work/huge"
	echo "$old_nr" >/proc/sys/vm/nr_hugepages
	rm -rf "$work"
}
trap cleanup EXIT
ip netns add "$ns" || skip_all "ip netns add failed"
ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
cat >"$work/q.conf" <<EOF
[daemon]
control-socket = $work/control.sock
engine = kernel
log-level = info
upgrade = yes

[tap vrnq0]
[tap vrnq1]

[port kq]
tap = vrnq0
type = vhost-user
listen = $work/kq.sock
kernel-rings = kick

[port mq]
tap = vrnq1
type = vhost-user
listen = $work/mq.sock
kernel-rings = memory
EOF
ip netns exec "$ns" build/vringnetd --config "$work/q.conf" >"$work/daemon.log" 2>&1 &
dpid=$!
for i in $(seq 150); do grep -q 'ready:' "$work/daemon.log" && break; sleep 0.2; done
if ! grep -q 'ready:' "$work/daemon.log"; then
	sed 's/^/# daemon: /' "$work/daemon.log"
	for t in $tests; do fail "$t" "vringnetd did not start"; done
	for t in $mtests; do mfail "$t" "vringnetd did not start"; done
	exit 1
fi
ctl() { build/vringnetctl -s "$work/control.sock" --json "$@"; }
tap_rx() { ip -n "$ns" -j -s link show "$1" | jq '.[0].stats64.rx.packets'; }
# ctxt - voluntary context switches of all the daemon's threads
ctxt() { cat /proc/"$dpid"/task/*/status | awk '/^voluntary_ctxt_switches:/ {n += $2} END {print n}'; }
# memfd_maps - the daemon's mappings of a front-end's guest memory (the
# memfd vu_frontend names so)
memfd_maps() { grep -c 'memfd:vu-frontend-guest' /proc/"$dpid"/maps; }
# port_memory PORT - "guest_memory guest_memory_mapped" of PORT's status
port_memory() { ctl status | jq -r --arg p "$1" '.ports[] | select(.name == $p) | "\(.guest_memory) \(.guest_memory_mapped)"'; }
# vm_line - the daemon's VmSize and VmRSS, and the Rss of its memfd mappings
vm_line() {
	echo "$(awk '/^Vm(Size|RSS):/ {printf "%s %s kB ", $1, $2}' /proc/"$dpid"/status)memfd Rss $(awk '/memfd:vu-frontend-guest/ {m = 1; next} /^[0-9a-f]+-/ {m = 0} m && /^Rss:/ {n += $2} END {print n + 0}' /proc/"$dpid"/smaps) kB"
}
# engine_lines - how many times the kernel engine made rings of memory (its
# line is not rate-limited, the port's "running" line is)
engine_lines() { grep -c 'kernel engine: rings of memory' "$work/daemon.log"; }
# send_frames TAP N - N broadcast frames of 60 bytes out of TAP (to its front-end)
send_frames() {
	ip netns exec "$ns" /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
for i in range(int(sys.argv[2])):
    s.send(b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + b"\x88\xb5" + i.to_bytes(4, "big") + bytes(42))
' "$1" "$2"
}
# run PORT TAP [STARTED] - one front-end run: 20000 frames out, 500 in; sets
# out rc d c, maps (the daemon's mappings of the front-end's memory while it
# runs), vm and mst (the port's guest memory in status).  The 500 frames are
# sent once the daemon logged one more line matching STARTED (default: the
# engine made rings of memory), or after 10 s.
run() {
	local before c0 fe_pid n0 started=${3:-'kernel engine: rings of memory'}
	before=$(tap_rx "$2")
	n0=$(grep -c "$started" "$work/daemon.log")
	c0=$(ctxt)
	VU_FRONTEND_CHECK_BASE=1 build/tests/host/vu_frontend "$work/$1.sock" 20000 1000 500 >"$work/fe.out" 2>&1 &
	fe_pid=$!
	for i in $(seq 100); do
		[ "$(grep -c "$started" "$work/daemon.log")" -gt "$n0" ] && break
		sleep 0.1
	done
	# the front-end waits for the 500 frames below: its memory is in use
	maps=$(memfd_maps)
	vm=$(vm_line)
	mst=$(port_memory "$1")
	send_frames "$2" 500
	wait "$fe_pid"
	rc=$?
	c=$(( $(ctxt) - c0 ))
	out=$(cat "$work/fe.out")
	sleep 0.5
	d=$(( $(tap_rx "$2") - before ))
}

run kq vrnq0
st=$(ctl stats kq)
txf=$(jq '.stats[0].tx.frames' <<<"$st")
rxf=$(jq '.stats[0].rx.frames' <<<"$st")
echo "# kick: $(tr '\n' ' ' <<<"$out")(exit $rc); tap rx +$d; port tx $(jq -c '.stats[0].tx | {frames, syscalls, batches, notifies}' <<<"$st") rx $(jq -c '.stats[0].rx | {frames, syscalls, batches, notifies}' <<<"$st"); daemon voluntary context switches $c"
line=$(grep -m1 'port kq: queue pair 0 running' "$work/daemon.log")
if [[ "$line" == *"kernel engine in kick mode"* ]] && grep -q 'kick mode: vringfd.ko serves them' "$work/daemon.log"; then
	pass mode
else
	fail mode "daemon said '${line:-nothing}'"
	sed 's/^/# daemon: /' "$work/daemon.log" | tail -20
fi
if grep -q 'completed 20000 ' <<<"$out" && [ "$d" -eq 20000 ] && [ "$txf" = 20000 ]; then
	pass tx
else
	fail tx "front-end exit $rc ($out), tap rx +$d, port tx frames $txf (want 20000)"
fi
if grep -q 'received 500 ' <<<"$out" && [ "$rxf" = 500 ]; then
	pass rx
else
	fail rx "front-end exit $rc ($out), port rx frames $rxf (want 500)"
fi
if [ "$rc" -eq 0 ] && grep -q '^vring base tx 20000 rx \([0-9]*\) (want 20000 \1)' <<<"$out"; then
	pass base
else
	fail base "front-end exit $rc: $(grep 'vring base' <<<"$out")"
fi
echo "# kick: daemon while the front-end ran: $vm; status guest_memory, guest_memory_mapped: $mst"
if [ "$maps" -eq 0 ] && [ "$d" -eq 20000 ] && [ "$mst" = "4194304 0" ] &&
   grep -q 'port kq: queue pair 0 running.*guest memory not mapped' "$work/daemon.log"; then
	pass nomap
else
	fail nomap "$maps mappings of the front-end's memfd in the daemon while frames flowed (want 0), tap rx +$d, status $mst (want 4194304 0); $(grep -m1 'port kq: queue pair 0 running' "$work/daemon.log")"
	grep 'memfd:vu-frontend-guest' /proc/"$dpid"/maps | sed 's/^/# maps: /'
fi

# --- set-up maps nothing either: every mmap() of the daemon's threads
# while a front-end connects and its rings become rings of memory (strace
# names each fd); VRINGFD_CREATE_F_MEM_FILES needs no window on the ring
if ! command -v strace >/dev/null; then
	echo "SKIP: $pfx-nomap-setup: strace is not installed"
else
	strace -f -y -qq -e trace=mmap,ioctl -p "$dpid" -o "$work/mmap.log" 2>"$work/strace.err" &
	st_pid=$!
	# every thread traced (a worker thread makes the rings)
	for i in $(seq 50); do
		[ -z "$(awk '/^TracerPid:/ && $2 == 0 {print FILENAME}' /proc/"$dpid"/task/*/status)" ] && break
		sleep 0.1
	done
	n0=$(engine_lines)
	before=$(tap_rx vrnq0)
	out=$(build/tests/host/vu_frontend "$work/kq.sock" 2000 64 2>&1)
	rc=$?
	sleep 0.5
	d=$(( $(tap_rx vrnq0) - before ))
	kill "$st_pid" 2>/dev/null
	wait "$st_pid" 2>/dev/null
	nm=$(grep -c 'memfd:vu-frontend-guest' "$work/mmap.log")
	na=$(grep -c 'mmap(' "$work/mmap.log")
	# the set-up was traced: both rings' VRINGFD_CREATE (magic 0xb9, nr 1)
	ni=$(grep -c 'ioctl([0-9]*</dev/vringfd>, _IOC(_IOC_WRITE, 0xb9, 0x1,' "$work/mmap.log")
	line=$(grep 'kernel engine: rings of memory' "$work/daemon.log" | tail -1)
	echo "# nomap-setup: $(tr '\n' ' ' <<<"$out")(exit $rc); tap rx +$d; $na mmap() calls and $ni VRINGFD_CREATE traced, $nm mmap() of the front-end's memfd"
	if [ "$rc" -eq 0 ] && [ "$d" -eq 2000 ] && [ "$(engine_lines)" -gt "$n0" ] &&
	   [[ "$line" == *"kick mode"* ]] && [ "$nm" -eq 0 ] && [ "$ni" -ge 2 ] &&
	   ! grep -q . "$work/strace.err"; then
		pass nomap-setup
	else
		fail nomap-setup "exit $rc, tap rx +$d (want 2000), $ni VRINGFD_CREATE traced (want >= 2), $nm mmap() of the memfd (want 0): $(grep -m3 'memfd:vu-frontend-guest' "$work/mmap.log" | tr '\n' ' '), strace: $(head -c 200 "$work/strace.err")"
	fi
fi

run mq vrnq1
st=$(ctl stats mq)
txf=$(jq '.stats[0].tx.frames' <<<"$st")
rxf=$(jq '.stats[0].rx.frames' <<<"$st")
echo "# memory (daemon-driven): $(tr '\n' ' ' <<<"$out")(exit $rc); tap rx +$d; port tx $(jq -c '.stats[0].tx | {frames, syscalls, batches}' <<<"$st") rx $(jq -c '.stats[0].rx | {frames, syscalls, batches}' <<<"$st"); daemon voluntary context switches $c"
line=$(grep 'kernel engine: rings of memory' "$work/daemon.log" | tail -1)
if [[ "$line" == *"tx yes, rx yes (1 memory files)" ]]; then
	mpass rings
else
	mfail rings "daemon said '${line:-nothing about rings of memory}'"
fi
if grep -q 'completed 20000 ' <<<"$out" && [ "$d" -eq 20000 ] && [ "$txf" = 20000 ]; then
	mpass tx
else
	mfail tx "front-end exit $rc ($out), tap rx +$d, port tx frames $txf (want 20000)"
fi
if grep -q 'received 500 ' <<<"$out" && [ "$rxf" = 500 ] && [ "$rc" -eq 0 ]; then
	mpass rx
else
	mfail rx "front-end exit $rc ($out), port rx frames $rxf (want 500)"
fi
echo "# memory: daemon while the front-end ran: $vm; status $mst"
if [ "$maps" -eq 0 ] && [ "$d" -eq 20000 ] && [ "$mst" = "4194304 0" ]; then
	mpass nomap
else
	mfail nomap "$maps mappings of the front-end's memfd in the daemon while frames flowed (want 0), tap rx +$d, status $mst (want 4194304 0)"
fi

# stream PORT TAP - context switches (sw) and tap frames (fr) over a window
# of a stream of 64-byte frames, after the pair started, and the daemon's
# mappings of the front-end's memory at the window's end (mp)
stream() {
	local n0 b0 c0 fe_pid
	rm -f "$work/stop"
	n0=$(engine_lines)
	VU_FRONTEND_UNTIL="$work/stop" build/tests/host/vu_frontend "$work/$1.sock" 1 64 >"$work/st.out" 2>&1 &
	fe_pid=$!
	for i in $(seq 100); do
		[ "$(engine_lines)" -gt "$n0" ] && break
		sleep 0.1
	done
	sleep 1
	b0=$(tap_rx "$2")
	c0=$(ctxt)
	sleep 3
	mp=$(memfd_maps)
	vm=$(vm_line)
	sw=$(( $(ctxt) - c0 ))
	fr=$(( $(tap_rx "$2") - b0 ))
	touch "$work/stop"
	wait "$fe_pid"
	echo "# stream on $1: $(cat "$work/st.out") (exit $?): $sw daemon context switches for $fr frames in the window; $mp mappings of its memory; daemon $vm"
}
stream kq vrnq0
ksw=$sw kfr=$fr
stream mq vrnq1
if [ "$kfr" -gt 0 ] && [ $((ksw * 100)) -lt "$kfr" ]; then
	pass "wakeups: $ksw context switches for $kfr frames in kick mode; daemon-driven $sw for $fr"
else
	fail wakeups "$ksw context switches for $kfr frames in kick mode (want < 1 per 100); daemon-driven $sw for $fr"
fi

run kq vrnq0
if [ "$rc" -eq 0 ] && [ "$d" -eq 20000 ] &&
   grep -q '^vring base tx 20000 rx \([0-9]*\) (want 20000 \1)' <<<"$out" &&
   [[ "$(grep 'kernel engine: rings of memory' "$work/daemon.log" | tail -1)" == *"kick mode"* ]]; then
	pass again
else
	fail again "exit $rc ($out), tap rx +$d (want 20000)"
fi

before=$(tap_rx vrnq0)
out=$(VU_FRONTEND_MIGRATE=1 build/tests/host/vu_frontend "$work/kq.sock" 2000 64 2>&1)
rc=$?
sleep 0.5
d=$(( $(tap_rx vrnq0) - before ))
users=$(grep -c 'port kq: queue pair 0 running (user engine' "$work/daemon.log")
# the last start (the "running" lines are rate-limited; the engine's are not)
last=$(grep 'port kq: queue pair 0 running (user engine\|kick mode: vringfd.ko serves them' "$work/daemon.log" | tail -1)
if [ "$rc" -eq 0 ] && [ "$d" -eq 6000 ] && [ "$users" -ge 1 ] && [[ "$last" == *"kick mode"* ]]; then
	pass migrate
else
	fail migrate "exit $rc ($(tr '\n' ' ' <<<"$out")), tap rx +$d (want 6000), pair started $users times on the user engine, last start: $last"
fi
# --- memory the module refuses: the daemon maps it and uses its own rings,
# logged once; a stream, so that the mapping is looked at while frames flow
n0=$(engine_lines)
mapped_line='port mq: guest memory mapped (1 regions, 4096 KiB): queue pair 0: rings of memory over unmapped memory failed'
m0=$(grep -c "$mapped_line" "$work/daemon.log")
before=$(tap_rx vrnq1)
rm -f "$work/stop"
VU_FRONTEND_MEM=memfd VU_FRONTEND_UNTIL="$work/stop" build/tests/host/vu_frontend "$work/mq.sock" 1 64 >"$work/fb.out" 2>&1 &
fe_pid=$!
for i in $(seq 100); do
	[ "$(grep -c "$mapped_line" "$work/daemon.log")" -gt "$m0" ] && break
	sleep 0.1
done
sleep 0.5
mp=$(memfd_maps)
vm=$(vm_line)
mst=$(port_memory mq)
touch "$work/stop"
wait "$fe_pid"
rc=$?
sleep 0.5
d=$(( $(tap_rx vrnq1) - before ))
out=$(tr '\n' ' ' <"$work/fb.out")
sent=$(sed -n 's/.*completed \([0-9]*\) .*/\1/p' <<<"$out")
m1=$(grep -c "$mapped_line" "$work/daemon.log")
fb=$(grep 'VRINGFD_SET_MEM_FILES refused' "$work/daemon.log")
echo "# fallback: $out(exit $rc); tap rx +$d; $mp mappings of its memory; daemon $vm; status $mst"
if [ "$rc" -eq 0 ] && [ -n "$sent" ] && [ "$sent" -gt 0 ] && [ "$d" -eq "$sent" ] &&
   [ "$(grep -c . <<<"$fb")" -eq 1 ] &&
   [[ "$fb" == *"Operation not permitted"* ]] && [ "$(engine_lines)" -eq "$n0" ]; then
	mpass fallback
else
	mfail fallback "exit $rc ($out), tap rx +$d (want ${sent:-the frames sent}), log: ${fb:-no fall-back logged}"
fi
if [ "$mp" -ge 1 ] && [ "$m1" -gt "$m0" ] && [ -n "$sent" ] && [ "$d" -eq "$sent" ] &&
   [ "$mst" = "4194304 4194304" ]; then
	mpass fallback-maps
else
	mfail fallback-maps "$mp mappings of the front-end's memfd while frames flowed (want >= 1), tap rx +$d of ${sent:-?}, status $mst (want 4194304 4194304), log: $(grep -m1 'port mq: guest memory mapped' "$work/daemon.log")"
fi

echo $((old_nr + 8)) >/proc/sys/vm/nr_hugepages
free=$(awk '/^HugePages_Free:/ {print $2}' /proc/meminfo)
if [ "$free" -lt 2 ]; then
	echo "SKIP: ports-kernel-memory-hugetlb: the VM's kernel gave $free free huge pages"
	echo "SKIP: ports-kernel-memory-hugetlbfs-file: the VM's kernel gave $free free huge pages"
else
	n0=$(engine_lines)
	f0=$(grep -c 'VRINGFD_SET_MEM_FILES refused' "$work/daemon.log")
	export VU_FRONTEND_MEM=hugetlb-memfd
	run kq vrnq0
	unset VU_FRONTEND_MEM
	line=$(grep 'kernel engine: rings of memory' "$work/daemon.log" | tail -1)
	f1=$(grep -c 'VRINGFD_SET_MEM_FILES refused' "$work/daemon.log")
	echo "# hugetlb: $(tr '\n' ' ' <<<"$out")(exit $rc); tap rx +$d; daemon $vm; status $mst; $line"
	if [ "$rc" -eq 0 ] && [ "$d" -eq 20000 ] && grep -q 'received 500 ' <<<"$out" &&
	   [ "$(engine_lines)" -gt "$n0" ] && [[ "$line" == *"kick mode"* ]] &&
	   [ "$maps" -eq 0 ] && [ "$mst" = "4194304 0" ] && [ "$f1" -eq "$f0" ]; then
		mpass hugetlb
	else
		mfail hugetlb "exit $rc ($out), tap rx +$d (want 20000), $maps mappings of its memory (want 0), status $mst (want 4194304 0), refusals logged $f0 then $f1, last: ${line:-no rings of memory}"
	fi
	# a file on hugetlbfs cannot be sealed: the module refuses it (EPERM),
	# the pair falls back and the daemon maps it then (huge-page aligned)
	mkdir -p "$work/huge"
	if ! mount -t hugetlbfs -o pagesize=2M none "$work/huge"; then
		echo "SKIP: ports-kernel-memory-hugetlbfs-file: hugetlbfs does not mount"
	else
		n0=$(grep -c "port mq: guest memory mapped" "$work/daemon.log")
		export VU_FRONTEND_MEM="file:$work/huge/guest"
		run mq vrnq1 'port mq: guest memory mapped'
		unset VU_FRONTEND_MEM
		n1=$(grep -c "port mq: guest memory mapped" "$work/daemon.log")
		echo "# hugetlbfs file: $(tr '\n' ' ' <<<"$out")(exit $rc); tap rx +$d; status $mst"
		if [ "$rc" -eq 0 ] && [ "$d" -eq 20000 ] && grep -q 'received 500 ' <<<"$out" &&
		   [ "$mst" = "4194304 4194304" ] && [ "$n1" -gt "$n0" ]; then
			mpass hugetlbfs-file
		else
			mfail hugetlbfs-file "exit $rc ($out), tap rx +$d (want 20000), status $mst (want 4194304 4194304), mappings logged $n0 then $n1"
		fi
	fi
fi
# --- RLIMIT_MEMLOCK: the daemon's limit set to 6 MiB.  Both rings of a
# 4 MiB front-end hold the same pages, which vringfd.ko charges once (4
# MiB): both are rings of memory.  Charged per ring (8 MiB), the second
# would be refused (ENOMEM) and fall back.
n0=$(engine_lines)
r0=$(grep -c 'VRINGFD_SET_MEM_FILES refused' "$work/daemon.log")
before=$(tap_rx vrnq1)
lim=$(prlimit --pid "$dpid" --memlock --raw --noheadings -o SOFT,HARD | awk '{print $1 ":" $2}')
if ! prlimit --pid "$dpid" --memlock=6291456:6291456; then
	mfail memlock-once "prlimit --pid $dpid failed (was $lim)"
else
	out=$(build/tests/host/vu_frontend "$work/mq.sock" 2000 64 2>&1)
	rc=$?
	sleep 0.5
	prlimit --pid "$dpid" --memlock="$lim"
	d=$(( $(tap_rx vrnq1) - before ))
	line=$(grep 'kernel engine: rings of memory' "$work/daemon.log" | tail -1)
	r1=$(grep -c 'VRINGFD_SET_MEM_FILES refused' "$work/daemon.log")
	echo "# memlock 6 MiB (was $lim): $(tr '\n' ' ' <<<"$out")(exit $rc); tap rx +$d; $line"
	if [ "$rc" -eq 0 ] && [ "$d" -eq 2000 ] && [ "$(engine_lines)" -gt "$n0" ] &&
	   [[ "$line" == *"tx yes, rx yes (1 memory files)" ]] && [ "$r1" -eq "$r0" ]; then
		mpass memlock-once
	else
		mfail memlock-once "exit $rc, tap rx +$d (want 2000), last engine line '$line', refusals logged $((r1 - r0))"
		grep 'VRINGFD_SET_MEM_FILES refused' "$work/daemon.log" | tail -2 | sed 's/^/# daemon: /'
	fi
fi
# --- upgrade (hand-over) under a stream in kick mode
rm -f "$work/stop"
n0=$(grep -c 'kick mode: vringfd.ko serves them' "$work/daemon.log")
before=$(tap_rx vrnq0)
VU_FRONTEND_CHECK_END=1 VU_FRONTEND_UNTIL="$work/stop" build/tests/host/vu_frontend "$work/kq.sock" 1 64 >"$work/up.out" 2>&1 &
fe_pid=$!
for i in $(seq 100); do
	[ "$(grep -c 'kick mode: vringfd.ko serves them' "$work/daemon.log")" -gt "$n0" ] && break
	sleep 0.1
done
sleep 1
up=$(ctl upgrade 2>&1)
up_rc=$?
sleep 1
touch "$work/stop"
wait "$fe_pid"
rc=$?
sleep 0.5
d=$(( $(tap_rx vrnq0) - before ))
out=$(tr '\n' ' ' <"$work/up.out")
pid1=$(jq -r '.upgrade.pid' <<<"$up" 2>/dev/null)
[[ "$pid1" =~ ^[0-9]+$ ]] && dpid=$pid1
n1=$(grep -c 'kick mode: vringfd.ko serves them' "$work/daemon.log")
sent=$(sed -n 's/.*completed \([0-9]*\) .*/\1/p' <<<"$out")
echo "# upgrade: $(jq -c . <<<"$up" 2>/dev/null || echo "$up") (exit $up_rc); front-end: $out(exit $rc); tap rx +$d; rings put in kick mode $((n1 - n0)) times"
if [ "$up_rc" -eq 0 ] && [ "$rc" -eq 0 ] && [ -n "$sent" ] && [ "$d" -eq "$sent" ] &&
   [[ "$out" == *"connection kept"* ]] && [ $((n1 - n0)) -ge 2 ]; then
	pass upgrade
else
	fail upgrade "upgrade exit $up_rc, front-end exit $rc ($out), tap rx +$d, kick mode entered $((n1 - n0)) times (want 2: before and after)"
fi
kill -0 "$dpid" 2>/dev/null || fail again "the daemon died"
[ "$failed" -eq 0 ] || sed 's/^/# daemon: /' "$work/daemon.log" | tail -40
exit "$failed"
