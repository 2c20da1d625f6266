#!/bin/bash
# ports_kernel_dpdk.sh - (VM rig) DPDK virtio_user through the kernel engine.
#
# Run by tests/vm/guest-run inside the VM, where vringfd.ko is loaded.
# vringnetd runs with engine = kernel in a private network namespace with one
# tap and one vhost-user port; dpdk-testpmd (--vdev=net_virtio_user0, txonly,
# 64 B frames, --single-file-segments on hugetlbfs, then the same with
# --in-memory) sends until the tap counted 2000 frames; the module walks
# DPDK's rings in its hugepage memory:
#   ports-kernel-dpdk-single-file  tap rx and port tx grew by the same count,
#                                  at least 2000, at most testpmd's TX-packets
#   ports-kernel-dpdk-in-memory    the same with --in-memory
# One variant per run (each boot of testpmd under TCG takes a good part of
# guest-run's 120 s per script): DPDK_MODE=single-file (the default) or
# in-memory; ports_kernel_dpdk_in_memory.sh runs the second.
# Huge pages: the script raises vm.nr_hugepages by 64 inside the VM and
# mounts its own hugetlbfs, and gives both back.
set -u
cd "$(dirname "$0")/../.." || exit 1
pfx=ports-kernel-dpdk
mode=${DPDK_MODE:-single-file}
tests=$mode
skip_all() {
	local t
	for t in $tests; do echo "SKIP: $pfx-$t: $1"; done
	exit 0
}
fail_all() {
	local t
	for t in $tests; do echo "FAIL: $pfx-$t: $1"; done
	exit 1
}
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -c /dev/vringfd ] || skip_all "/dev/vringfd missing (vringfd.ko not loaded)"
command -v jq >/dev/null || skip_all "jq not installed"
command -v dpdk-testpmd >/dev/null || fail_all "dpdk-testpmd not installed (scripts/install-deps installs dpdk-dev)"
for b in build/vringnetd build/vringnetctl; do
	[ -x "$b" ] || skip_all "$b not built"
done
[ "$(nproc)" -ge 2 ] || skip_all "testpmd needs 2 CPUs (main and forwarding lcore), the VM has $(nproc)"

failed=0
work=$(mktemp -d /tmp/ports-kernel-dpdk.XXXXXX)
ns=vrnkd$$
dpid=
old_nr=$(cat /proc/sys/vm/nr_hugepages)
cleanup() {
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	mountpoint -q "$work/huge" && umount "$work/huge"
	echo "$old_nr" >/proc/sys/vm/nr_hugepages
	rm -rf "$work"
}
trap cleanup EXIT
echo $((old_nr + 64)) >/proc/sys/vm/nr_hugepages
mkdir -p "$work/huge"
free=$(awk '/^HugePages_Free:/ {print $2}' /proc/meminfo)
[ "$free" -ge 64 ] || skip_all "the VM's kernel gave $free free huge pages of 64"
mount -t hugetlbfs -o pagesize=2M none "$work/huge" || skip_all "hugetlbfs does not mount"
ip netns add "$ns" || skip_all "ip netns add failed"
cat >"$work/k.conf" <<EOF2
[daemon]
control-socket = $work/control.sock
engine = kernel
log-level = info

[tap vrnkd0]
address = 10.78.10.1/24

[port kd]
tap = vrnkd0
type = vhost-user
listen = $work/kd.sock
EOF2
dlog=$work/daemon.log
ip netns exec "$ns" build/vringnetd --config "$work/k.conf" >"$dlog" 2>&1 &
dpid=$!
for i in $(seq 150); do grep -q 'ready:' "$dlog" && break; sleep 0.2; done
if ! grep -q 'ready:' "$dlog" || ! grep -q 'engine: kernel' "$dlog"; then
	sed 's/^/# daemon: /' "$dlog"
	fail_all "vringnetd did not start with engine = kernel"
fi
ctl() { build/vringnetctl -s "$work/control.sock" --json "$@"; }
tap_rx() { ip netns exec "$ns" cat /sys/class/net/vrnkd0/statistics/rx_packets; }
port_tx() { ctl stats kd | jq '.stats[0].tx.frames'; }
port_conns() { ctl status | jq '.ports[] | select(.name == "kd") | .connections'; }

# run TEST EXTRA... - testpmd until the tap counted 2000 more frames
run() {
	local t=$1 b_tap b_port d_tap d_port tp sent i
	shift
	b_tap=$(tap_rx)
	b_port=$(port_tx)
	dpdk-testpmd -l 0,1 --no-pci --single-file-segments "$@" --huge-dir "$work/huge" \
		--file-prefix "vrnkd$$" -m 64 --vdev="net_virtio_user0,path=$work/kd.sock,queues=1" -- \
		--forward-mode=txonly --txpkts=64 --nb-cores=1 --total-num-mbufs=2048 \
		--stats-period=1 >"$work/$t.testpmd.log" 2>&1 &
	tp=$!
	for i in $(seq 600); do
		kill -0 "$tp" 2>/dev/null || break
		[ $(( $(tap_rx) - b_tap )) -ge 2000 ] && break
		sleep 0.2
	done
	kill -INT "$tp" 2>/dev/null
	wait "$tp"
	for i in $(seq 25); do [ "$(port_conns)" = 0 ] && break; sleep 0.2; done
	sent=$(awk '/Accumulated forward statistics/ {a=1} a && /TX-packets:/ {print $2; exit}' "$work/$t.testpmd.log")
	d_tap=$(( $(tap_rx) - b_tap ))
	d_port=$(( $(port_tx) - b_port ))
	echo "# $t: testpmd TX-packets ${sent:-?}; tap rx +$d_tap; port tx +$d_port; $(grep -m1 'queue pair 0 running' "$dlog" | sed 's/.*running //')"
	if [ -n "$sent" ] && [ "$d_tap" -ge 2000 ] && [ "$d_tap" -eq "$d_port" ] && [ "$d_tap" -le "$sent" ]; then
		echo "PASS: $pfx-$t"
	else
		echo "FAIL: $pfx-$t: testpmd TX-packets ${sent:-none}, tap rx +$d_tap, port tx +$d_port (want >= 2000, equal, at most sent)"
		sed 's/^/# testpmd: /' "$work/$t.testpmd.log" | tail -15
		sed 's/^/# daemon: /' "$dlog" | tail -10
		failed=1
	fi
}
case $mode in
(single-file) run single-file ;;
(in-memory) run in-memory --in-memory ;;
(*) fail_all "DPDK_MODE=$mode: single-file or in-memory" ;;
esac
exit "$failed"
