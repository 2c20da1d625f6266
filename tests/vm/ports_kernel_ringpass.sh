#!/bin/bash
# ports_kernel_ringpass.sh - (VM rig) a client passes ready rings of memory to
# a ring-fd port on the kernel engine (issue 22 item 2).
#
# Run by tests/vm/guest-run inside the VM, where vringfd.ko is loaded.
# vringnetd runs with engine = kernel in a private network namespace with
# one tap (10.83.0.1/24, IPv6 off) and one ring-fd port.
# examples/ringfd-client -r makes its two rings rings of memory
# (VRINGFD_SET_MEM_FILES over its memfd) and passes their vring fds
# (vringnet_connect_rings()); the daemon attaches them to the tap:
#   ringpass-ping           20/20 echo replies: ARP and ICMP cross the
#                           passed rings both ways
#   ringpass-ping-event-idx the same with VIRTIO_RING_F_EVENT_IDX
#   ringpass-counts         port tx frames = tap rx packets and port rx
#                           frames = tap tx packets (deltas over both pings;
#                           tx at least 2 ARP + 40 echo requests, rx at
#                           least 40 echo replies), nothing dropped
#   ringpass-logged         the daemon says it serves passed rings
#   ringpass-no-mapping     while a passed-ring client is served, the
#                           daemon's /proc/PID/maps has no mapping of the
#                           client's memfd (neither its name nor its inode)
#   ringpass-mapping-seen   control: a memfd client (no -r) at the same
#                           time in the same check is seen mapped, so the
#                           check above can fail
#   ringpass-released       after the client quits: no connection and no
#                           vring fd left in the daemon
#   ringpass-bad-rings      tests/host/ringfd_evil -r: a non-vring fd, a
#                           ring of an address space, a ring of another
#                           tap, a ring of the wrong size, one ring twice:
#                           each answered with its errno
#   ringpass-next-works     a passed-ring client after all of it: 5/5
#   ringpass-upgrade        vringnetctl upgrade while a passed-ring client
#                           (port rp) and a memfd client (port rm, rings
#                           made again by the successor from the stored
#                           positions) ping: both get every reply, each
#                           tap received exactly the frames its client
#                           sent and sent exactly those it received, one
#                           connection each throughout, the pid changed
set -u
cd "$(dirname "$0")/../.." || exit 1
pfx=ringpass
tests="ping ping-event-idx counts logged no-mapping mapping-seen released bad-rings next-works upgrade"
skip_all() {
	local t
	for t in $tests; do echo "SKIP: $pfx-$t: $1"; done
	exit 0
}
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -c /dev/vringfd ] || skip_all "/dev/vringfd missing (vringfd.ko not loaded)"
command -v jq >/dev/null || skip_all "jq not installed"
for b in build/vringnetd build/vringnetctl build/examples/ringfd-client build/tests/host/ringfd_evil; do
	[ -x "$b" ] || skip_all "$b not built"
done

failed=0
pass() { echo "PASS: $pfx-$1"; }
fail() { echo "FAIL: $pfx-$1: $2"; failed=1; }
work=$(mktemp -d /tmp/ringpass.XXXXXX)
ns=vrnp$$
dpid=
cpid=
mpid=
cleanup() {
	[ -n "$cpid" ] && kill -9 "$cpid" 2>/dev/null
	[ -n "$mpid" ] && kill -9 "$mpid" 2>/dev/null
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
ip netns add "$ns" || skip_all "ip netns add failed"
ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
cat >"$work/p.conf" <<EOF
[daemon]
control-socket = $work/control.sock
engine = kernel
log-level = info
upgrade = yes

[tap vrnp0]
address = 10.83.0.1/24

[port rp]
tap = vrnp0
type = ringfd
listen = $work/rp.sock

[tap vrnp1]
address = 10.83.1.1/24

[port rm]
tap = vrnp1
type = ringfd
listen = $work/rm.sock
EOF
ip netns exec "$ns" build/vringnetd --config "$work/p.conf" >"$work/daemon.log" 2>&1 &
dpid=$!
for i in $(seq 150); do grep -q 'ready:' "$work/daemon.log" && break; sleep 0.2; done
if ! grep -q 'ready:' "$work/daemon.log"; then
	sed 's/^/# daemon: /' "$work/daemon.log"
	for t in $tests; do echo "FAIL: $pfx-$t: vringnetd did not start with engine = kernel"; done
	exit 1
fi
ctl() { build/vringnetctl -s "$work/control.sock" --json "$@"; }
conns() { ctl status | jq ".ports[] | select(.name == \"$1\") | .connections"; }
tap_stat() { ip -n "$ns" -j -s link show "${2:-vrnp0}" | jq ".[0].stats64.$1"; }
port_stat() { ctl stats rp | jq ".stats[0].$1"; }
vring_fds() { ls -l "/proc/$dpid/fd" 2>/dev/null | grep -c 'anon_inode:\[vringfd\]'; }
client() { timeout 60 build/examples/ringfd-client "$@"; }
# memfd_ino PID: the inode of the ringfd client's memfd mapped in PID
memfd_ino() { awk '/memfd:vringnet-client/ { print $5; exit }' "/proc/$1/maps"; }
# wait_grep FILE PATTERN: up to 20 s
wait_grep() {
	local i
	for i in $(seq 100); do grep -q "$2" "$1" && return 0; sleep 0.2; done
	return 1
}

vfd0=$(vring_fds)
ptx0=$(port_stat tx.frames); prx0=$(port_stat rx.frames)
trx0=$(tap_stat rx.packets); ttx0=$(tap_stat tx.packets)
out=$(client -r -i 20 "$work/rp.sock" 10.83.0.1 20 2>&1)
rc=$?
echo "# ping: $(tail -1 <<<"$out")"
if [ $rc -eq 0 ] && grep -q '^20/20 replies' <<<"$out"; then
	pass ping
else
	fail ping "ringfd-client -r exit $rc: $(tail -2 <<<"$out" | tr '\n' ' ')"
	sed 's/^/# daemon: /' "$work/daemon.log" | tail -20
fi
out=$(client -r -e -i 20 "$work/rp.sock" 10.83.0.1 20 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q '^20/20 replies' <<<"$out"; then
	pass ping-event-idx
else
	fail ping-event-idx "ringfd-client -r -e exit $rc: $(tail -2 <<<"$out" | tr '\n' ' ')"
fi
sleep 0.5
ptx=$(( $(port_stat tx.frames) - ptx0 )); prx=$(( $(port_stat rx.frames) - prx0 ))
trx=$(( $(tap_stat rx.packets) - trx0 )); ttx=$(( $(tap_stat tx.packets) - ttx0 ))
drops="tap rx_dropped $(tap_stat rx.dropped), tx_dropped $(tap_stat tx.dropped); port $(ctl stats rp | jq -c '[.stats[0].tx.drop_tap, .stats[0].rx.drop_tap, .stats[0].tx.drop_bad_chain]')"
echo "# port tx frames +$ptx, tap rx packets +$trx; port rx frames +$prx, tap tx packets +$ttx; $drops"
if [ "$ptx" -eq "$trx" ] && [ "$prx" -eq "$ttx" ] && [ "$ptx" -ge 42 ] && [ "$prx" -ge 40 ] &&
   [ "$(tap_stat rx.dropped)" -eq 0 ] && [ "$(tap_stat tx.dropped)" -eq 0 ]; then
	pass counts
else
	fail counts "port tx +$ptx vs tap rx +$trx, port rx +$prx vs tap tx +$ttx (want equal, tx >= 42, rx >= 40); $drops"
fi
if grep -q 'ring-fd client running (kernel engine, queue pair 0 on [^,]*, 1 queue pairs of passed rings, no memory mapped' "$work/daemon.log"; then
	pass logged
else
	fail logged "no 'passed rings' line: $(grep -m1 'ring-fd client' "$work/daemon.log")"
fi

# --- the daemon's mappings while a passed-ring and a memfd client run ---
build/examples/ringfd-client -r -i 100 "$work/rp.sock" 10.83.0.1 40 >"$work/long.out" 2>&1 &
cpid=$!
build/examples/ringfd-client -i 100 "$work/rm.sock" 10.83.1.1 40 >"$work/mem.out" 2>&1 &
mpid=$!
if wait_grep "$work/long.out" 'echo reply seq 3' && wait_grep "$work/mem.out" 'echo reply seq 3'; then
	pino=$(memfd_ino "$cpid"); mino=$(memfd_ino "$mpid")
	pc=$(conns rp); mc=$(conns rm)
	dmaps=$(cat "/proc/$dpid/maps")
	pseen=$(awk -v i="$pino" '$5 == i' <<<"$dmaps" | wc -l)
	mseen=$(awk -v i="$mino" '$5 == i' <<<"$dmaps" | wc -l)
	named=$(grep -c 'memfd:vringnet-client' <<<"$dmaps")
	echo "# passed-ring client memfd inode $pino (daemon maps it $pseen times), memfd client inode $mino (daemon maps it $mseen times), daemon mappings named memfd:vringnet-client $named, connections rp $pc rm $mc, daemon vring fds $(vring_fds)"
	if [ -z "$pino" ] || [ -z "$mino" ] || [ "$pc" != 1 ] || [ "$mc" != 1 ]; then
		fail no-mapping "clients not both served (inodes '$pino' '$mino', connections $pc $mc)"
		fail mapping-seen "clients not both served"
	else
		if [ "$pseen" -eq 0 ] && [ "$named" -eq "$mseen" ]; then
			pass no-mapping
		else
			fail no-mapping "the daemon maps the passed-ring client's memfd $pseen times ($named named mappings, $mseen of the memfd client)"
		fi
		if [ "$mseen" -ge 1 ]; then
			pass mapping-seen
		else
			fail mapping-seen "the memfd client's memfd (inode $mino) is not in the daemon's maps: the check cannot see a mapping"
		fi
	fi
else
	fail no-mapping "the clients never got going: $(tail -1 "$work/long.out"); $(tail -1 "$work/mem.out")"
	fail mapping-seen "the clients never got going"
fi
wait "$cpid"; crc=$?; cpid=
wait "$mpid"; mrc=$?; mpid=
echo "# long clients: passed rings exit $crc ($(tail -1 "$work/long.out")), memfd exit $mrc ($(tail -1 "$work/mem.out"))"
# information, not a test: tx system calls per frame, passed rings (one
# more write() per batch) against the memfd way, over the whole run
for p in rp rm; do
	echo "# port $p tx since start: $(ctl stats "$p" | jq -c '.stats[0].tx | {frames, batches, syscalls}')"
done
for i in $(seq 25); do [ "$(conns rp)" = 0 ] && [ "$(vring_fds)" -eq "$vfd0" ] && break; sleep 0.2; done
if [ "$crc" -eq 0 ] && [ "$(conns rp)" = 0 ] && [ "$(vring_fds)" -eq "$vfd0" ]; then
	pass released
else
	fail released "client exit $crc, connections $(conns rp), daemon vring fds $(vring_fds) (before: $vfd0)"
fi

# --- bad rings ---
out=$(build/tests/host/ringfd_evil -r vrnpx "$work/rp.sock" 2>&1)
rc=$?
sed 's/^/# evil: /' <<<"$out"
if [ $rc -eq 0 ] && [ "$(grep -c '^ok rings_' <<<"$out")" -eq 5 ]; then
	pass bad-rings
else
	fail bad-rings "exit $rc: $(grep -m1 -v '^ok' <<<"$out")"
fi
out=$(client -r -i 20 "$work/rp.sock" 10.83.0.1 5 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q '^5/5 replies' <<<"$out" && [ "$(vring_fds)" -eq "$vfd0" ] &&
   kill -0 "$dpid" 2>/dev/null; then
	pass next-works
else
	fail next-works "ringfd-client -r exit $rc: $(tail -1 <<<"$out"); daemon vring fds $(vring_fds)"
fi

# --- an upgrade under a passed-ring client and a memfd client ---
why=()
for t in vrnp0 vrnp1; do	# no ARP probes: the taps send only replies
	ip -n "$ns" neigh replace "10.83.${t#vrnp}.2" lladdr 52:54:00:de:00:03 dev "$t" nud permanent
done
up_rx0=$(tap_stat rx.packets vrnp0); up_tx0=$(tap_stat tx.packets vrnp0)
um_rx0=$(tap_stat rx.packets vrnp1); um_tx0=$(tap_stat tx.packets vrnp1)
build/examples/ringfd-client -r -i 10 "$work/rp.sock" 10.83.0.1 300 >"$work/up.out" 2>&1 &
cpid=$!
build/examples/ringfd-client -i 10 "$work/rm.sock" 10.83.1.1 300 >"$work/um.out" 2>&1 &
mpid=$!
pid0=$dpid
if wait_grep "$work/up.out" 'echo reply seq 20' && wait_grep "$work/um.out" 'echo reply seq 20'; then
	out=$(ctl upgrade 2>&1)
	rc=$?
	dpid=$(ctl status | jq -r '.daemon.pid')
	echo "# upgrade: exit $rc, pid $pid0 -> $dpid, handover_us $(jq -r '.upgrade.handover_us' <<<"$out" 2>/dev/null), connections $(jq -r '.upgrade.connections' <<<"$out" 2>/dev/null)"
	[ "$rc" -eq 0 ] || why+=("upgrade exit $rc ($(tr '\n' ' ' <<<"$out"))")
	[ -n "$dpid" ] && [ "$dpid" != "$pid0" ] || { why+=("pid $pid0 -> $dpid"); dpid=$pid0; }
	[ "$(conns rp)" = 1 ] && [ "$(conns rm)" = 1 ] || why+=("connections rp $(conns rp) rm $(conns rm) after the upgrade")
else
	why+=("the clients never got going: $(tail -1 "$work/up.out"); $(tail -1 "$work/um.out")")
fi
wait "$cpid"; crc=$?; cpid=
wait "$mpid"; mrc=$?; mpid=
for c in up:vrnp0:"$up_rx0":"$up_tx0":$crc um:vrnp1:"$um_rx0":"$um_tx0":$mrc; do
	IFS=: read -r n t rx0 tx0 rc <<<"$c"
	text=$(tail -1 "$work/$n.out")
	rx=$(( $(tap_stat rx.packets "$t") - rx0 )); tx=$(( $(tap_stat tx.packets "$t") - tx0 ))
	echo "# $n client: $text; tap $t rx +$rx tx +$tx"
	sent=-1 recv=-1
	[[ $text =~ ([0-9]+)\ frames\ sent,\ ([0-9]+)\ received ]] && sent=${BASH_REMATCH[1]} recv=${BASH_REMATCH[2]}
	[ "$rc" -eq 0 ] && [[ $text == 300/300\ replies* ]] || why+=("$n client exit $rc ($text)")
	[ "$rx" -eq "$sent" ] && [ "$tx" -eq "$recv" ] || why+=("$n: tap rx +$rx tx +$tx, client sent $sent received $recv")
done
sed 's/^/# daemon: /' "$work/daemon.log" | grep -E 'upgrade|hand-over|handed over|taken over|ring-fd client (dropped|hung up)' | tail -12
grep -q 'port r[pm]: ring-fd client dropped' "$work/daemon.log" && why+=("$(grep -m1 'ring-fd client dropped' "$work/daemon.log")")
[ "$(grep -c 'ring-fd client taken over from the previous instance' "$work/daemon.log")" -eq 2 ] ||
	why+=("the log does not show both clients taken over")
if [ ${#why[@]} -eq 0 ]; then
	pass upgrade
else
	fail upgrade "$(IFS=';'; echo "${why[*]}")"
fi
exit "$failed"
