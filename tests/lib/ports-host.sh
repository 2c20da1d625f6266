# tests/lib/ports-host.sh - the common setup of the port suites
# (tests/suites/30-ports-*-host): vringnetd (user engine) in a private network
# namespace, QEMU 7.2 TCG guests booting the Debian kernel with a tiny busybox
# initramfs (scripts/guest-boot), and the helpers that judge them.  Sourced
# after tests/lib/suite.sh, by a suite that has set
#
#   SUITE          its name (log files are build/test-logs/$SUITE.*)
#   TESTS          its test names (SKIPped or FAILed all at once when the
#                  common setup cannot run or fails)
#   ports_conf()   a function printing its [tap ...] and [port ...] sections
#                  (sockets under $work)
#   ports_daemon_extra  (optional) more lines for the [daemon] section
#
# and then calls ports_setup.  Each guest brings its virtio-net interface up,
# pings the tap's address and reports through a VRN-RESULT-PASS/FAIL token on
# its serial port.
#
# QEMU 7.2 (Debian 1:7.2+dfsg-7) segfaults in msix_set_vector_notifiers()
# when a vhost-user virtio-net device starts under TCG with MSI-X; the guests
# use vectors=0 (INTx) for a vhost-user device.
#
# Needs root (network namespaces, taps), qemu-system-x86_64, busybox-static,
# /boot/vmlinuz-KVER with its modules, jq; SKIPs with the reason otherwise.
#
# After ports_setup: top work logs dlog ns dpid kver, and
#   ctl ARGS...                vringnetctl --json on the daemon
#   fdcount / fdcount_base     the daemon's open fds (lowest of 3 samples)
#   fds_back_to BASE           wait up to 5 s for the fd count BASE (sets now_fds)
#   port_conns PORT            a port's connection count
#   tap_state TAP              "IFINDEX STATE" of a tap
#   tap_rx TAP                 a tap's rx packets
#   wait_serial NAME TOKEN S   wait up to S s for TOKEN on a guest's serial port
#   daemon_start               start (or restart) vringnetd in the namespace
#   run_guest NAME IP PEER NETDEV DEVOPTS   boot a guest in the background
#   guest_verdict NAME         wait for it, set verdict ("" when it pinged)
#   guest_result TEST NAME     wait for it, PASS or FAIL TEST
#   judge TEST                 PASS when the array why is empty, else FAIL
#   iperf_server               an iperf3 server in the namespace (iperf_pid,
#                              iperf_extra: the guests' vrn.iperf=1), if installed
#   iperf_result NAME TEST TEST_REVERSE   judge a guest's iperf3 tokens

# ports_setup - check the prerequisites, build, start the daemon
ports_setup() {
	local b busybox why
	top=$PWD
	[ "$(id -u)" -eq 0 ] || skip_all "needs root (network namespace and taps)"
	command -v qemu-system-x86_64 >/dev/null || skip_all "qemu-system-x86_64 not installed (qemu-system-x86)"
	command -v ip >/dev/null || skip_all "ip (iproute2) not installed"
	command -v jq >/dev/null || skip_all "jq not installed"
	[ -c /dev/net/tun ] || skip_all "/dev/net/tun missing"
	. scripts/guest-boot
	busybox=$(guest_find_busybox 2>&1) || skip_all "$busybox"
	kver=$(guest_find_kver 2>&1) || skip_all "$kver"
	for b in build/vringnetd build/vringnetctl build/tests/host/vhost_user_evil \
		 build/tests/host/frame_evil build/tests/host/vu_frontend; do
		# always through make: a binary left from older sources must not be tested
		make -s "$b" >&2 || fail_all "$b does not build (see stderr)"
	done

	# one directory per run: concurrent runs in the same tree do not collide
	mkdir -p "$top/build/ports-vm" build/test-logs
	work=$(mktemp -d "$top/build/ports-vm/run.XXXXXX")
	logs=$top/build/test-logs
	ns=vrnports-$$
	qemu_pids=()
	declare -gA guest_pid_of guest_peer_of
	dpid=
	iperf_pid=
	iperf_extra=
	on_exit ports_cleanup

	# the guest's initramfs (scripts/guest-boot): busybox, virtio-net, /init
	why=$(guest_build_initramfs "$kver" "$busybox" "$work/initramfs.cpio" 2>&1) || skip_all "$why"

	ip netns add "$ns" || skip_all "ip netns add failed"
	ip -n "$ns" link set lo up
	{
		cat <<EOF
[daemon]
control-socket = $work/control.sock
engine = user
log-level = info
${ports_daemon_extra:-}

EOF
		ports_conf
	} >"$work/ports.conf"
	dlog=$logs/$SUITE.daemon.log
	: >"$dlog"
	if ! daemon_start; then
		cat "$dlog" >&2
		fail_all "vringnetd did not start (see $dlog)"
	fi
}

# ports_cleanup - stop the guests, iperf3 and the daemon, delete the namespace
ports_cleanup() {
	local p
	for p in "${qemu_pids[@]}"; do kill "$p" 2>/dev/null; done
	[ -n "$iperf_pid" ] && kill "$iperf_pid" 2>/dev/null
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$work"
}

# ready_lines N - the daemon's log has N "ready:" lines (N starts)
ready_lines() { [ "$(grep -c 'ready:' "$dlog")" -ge "$1" ]; }

# daemon_start - start vringnetd in the namespace (again: after a kill) and
# wait up to 10 s for its ready line
daemon_start() {
	local n
	n=$(( $(grep -c 'ready:' "$dlog") + 1 ))
	ip netns exec "$ns" build/vringnetd --config "$work/ports.conf" >>"$dlog" 2>&1 &
	dpid=$!
	wait_for 10 "vringnetd's ready line in $dlog" ready_lines "$n"
}

ctl() { build/vringnetctl -s "$work/control.sock" --json "$@"; }
fdcount() { ls "/proc/$dpid/fd" 2>/dev/null | wc -l; }
# fdcount_base - the lowest of 3 samples (a client-mode port's retry holds a
# socket for a moment)
fdcount_base() {
	local i n min=
	for i in 1 2 3; do
		n=$(fdcount)
		{ [ -z "$min" ] || [ "$n" -lt "$min" ]; } && min=$n
		sleep 0.1
	done
	echo "$min"
}
# fds_are BASE - the daemon's fd count is BASE (sets now_fds)
fds_are() { now_fds=$(fdcount); [ -n "$1" ] && [ "$now_fds" -eq "$1" ]; }
# fds_back_to BASE - wait up to 5 s for the daemon's fd count to be BASE;
# sets now_fds to the last count
fds_back_to() { wait_for 5 "the daemon's fd count to return to $1" fds_are "$1"; }
# port_conns PORT - its connection count in vringnetctl --json status
port_conns() { ctl status | jq --arg p "$1" '.ports[] | select(.name == $p) | .connections'; }
# port_conns_are PORT N - PORT has N connections (sets conns)
port_conns_are() { conns=$(port_conns "$1"); [ "$conns" = "$2" ]; }
# tap_state TAP - "IFINDEX STATE" of a tap in vringnetctl --json status
tap_state() { ctl status | jq -r --arg t "$1" '.taps[] | select(.name == $t) | "\(.ifindex) \(.state)"'; }
# tap_rx TAP - the tap's rx packets
tap_rx() { ip -n "$ns" -j -s link show "$1" | jq '.[0].stats64.rx.packets'; }
# serial_has NAME TOKEN - the guest's serial port printed TOKEN
serial_has() { grep -q "$2" "$work/$1.serial" 2>/dev/null; }
# wait_serial NAME TOKEN SECONDS - wait for TOKEN on the guest's serial port
wait_serial() { wait_for "$3" "$2 on the serial port of guest $1" serial_has "$1" "$2"; }

# run_guest NAME IP PEER NETDEV DEVOPTS - boot one guest in the background
# (guest_smp: its CPUs, default 1; guest_extra: more of its kernel command line)
run_guest() {
	local name=$1 ip=$2 peer=$3 netdev=$4 devopts=$5 mem=()
	rm -f "$work/$name.serial"
	case "$netdev" in
	(*vhost-user*) mem=(-object memory-backend-memfd,id=mem,size=256M,share=on -numa node,memdev=mem) ;;
	esac
	guest_qemu_argv "$kver" "$work/initramfs.cpio" "$work/$name.serial" 256 "${guest_smp:-1}" \
		"vrn.ip=$ip vrn.peer=$peer ${guest_extra:-}"
	# shellcheck disable=SC2086
	timeout 300 "${GUEST_QEMU[@]}" "${mem[@]}" $netdev -device "virtio-net-pci,netdev=n0$devopts" \
		>"$logs/$SUITE.$name.qemu.log" 2>&1 &
	qemu_pids+=($!)
	guest_pid=$!
	guest_pid_of[$name]=$!
	guest_peer_of[$name]=$peer
}

# guest_verdict NAME - wait for the guest NAME and judge its token: sets
# verdict to "" (it pinged its peer) or to what went wrong
guest_verdict() {
	local name=$1 peer=${guest_peer_of[$1]} rc
	wait "${guest_pid_of[$name]}"
	rc=$?
	cp "$work/$name.serial" "$logs/$SUITE.$name.serial" 2>/dev/null
	if grep -q VRN-RESULT-PASS "$work/$name.serial" 2>/dev/null; then
		verdict=
	elif grep -q VRN-RESULT-FAIL "$work/$name.serial" 2>/dev/null; then
		verdict="guest $name could not ping $peer (see build/test-logs/$SUITE.$name.serial)"
	else
		verdict="no result token from the guest $name (qemu exit $rc; see build/test-logs/$SUITE.$name.*)"
	fi
}

# guest_result TEST NAME - wait for the guest and judge its token
guest_result() {
	guest_verdict "$2"
	if [ -z "$verdict" ]; then pass "$1"; else fail "$1" "$verdict"; fi
}

# judge TEST - pass when the array why is empty, else fail with its entries
judge() {
	local m
	if [ ${#why[@]} -eq 0 ]; then
		pass "$1"
	else
		m=$(printf '%s; ' "${why[@]}")
		fail "$1" "${m%; }"
	fi
}

# iperf_server - one iperf3 server in the namespace for the guests booted
# with $iperf_extra (one at a time); nothing when iperf3 is not installed
iperf_server() {
	command -v iperf3 >/dev/null || return 0
	ip netns exec "$ns" iperf3 -s >"$logs/$SUITE.iperf3-server.log" 2>&1 &
	iperf_pid=$!
	iperf_extra=vrn.iperf=1
}

# iperf_result NAME TEST TEST_REVERSE - judge the iperf3 tokens of a guest
# booted with vrn.iperf=1 (guest -> tap, then tap -> guest)
iperf_result() {
	local name=$1
	if [ -z "$iperf_pid" ]; then
		skip "$2" "iperf3 not installed"
		skip "$3" "iperf3 not installed"
		return
	fi
	grep -a 'sender\|receiver' "$work/$name.serial" | sed "s/^/# guest $name iperf3 (guest->tap, then tap->guest): /"
	if grep -q VRN-IPERF-PASS "$work/$name.serial"; then
		pass "$2"
	else
		fail "$2" "iperf3 TCP from the guest to the tap failed (see build/test-logs/$SUITE.$name.serial)"
	fi
	if grep -q VRN-IPERF-R-PASS "$work/$name.serial"; then
		pass "$3"
	else
		fail "$3" "iperf3 TCP from the tap to the guest failed (see build/test-logs/$SUITE.$name.serial)"
	fi
}
