// SPDX-License-Identifier: GPL-2.0
/*
 * tap_forward.c - two network namespaces joined only through two taps
 * whose rings examples/vringfd-forward connects (RX ring of one tap feeding
 * the TX ring of the other, both ways): ping over IPv4 and IPv6 and an
 * iperf3 TCP stream pass, TSO frames above the MTU go through when
 * offloads are on, and the frame counters of the forwarder's rings and of
 * the taps match.
 */
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <sys/wait.h>

#include "tap_common.h"

#define NSA "vrfa"
#define NSB "vrfb"

/**
 * struct fwd_counts - one "fwd" line of the forwarder
 * @rx: frames the source's RX ring filled
 * @tx: frames the sink's TX ring sent
 * @dropped: drops of both rings
 * @max_frame: largest frame forwarded
 */
struct fwd_counts {
	unsigned long long rx, tx, dropped, max_frame;
};

/**
 * ns_stat() - a counter of an interface inside a namespace
 * @ns: namespace
 * @ifname: interface
 * @counter: statistics file name
 *
 * Return: the value or -1.
 */
static long long ns_stat(const char *ns, const char *ifname, const char *counter)
{
	char cmd[256];
	long long v = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ip netns exec %s cat /sys/class/net/%s/statistics/%s",
		 ns, ifname, counter);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (fscanf(p, "%lld", &v) != 1)
		v = -1;
	pclose(p);
	return v;
}

/**
 * run_forward() - the whole scenario
 * @fwd: path of vringfd-forward
 * @offload: with TSO/checksum offloads
 * @tag: prefix of the test names
 */
static void run_forward(const char *fwd, int offload, const char *tag)
{
	struct fwd_counts ab = { 0 }, ba = { 0 };
	char name[128], line[256];
	int out[2], r, ok;
	long long a_rx, b_rx;
	FILE *f;
	pid_t pid;

	tc_sh("ip netns del " NSA " 2>/dev/null; ip netns del " NSB " 2>/dev/null");
	if (tc_sh("ip netns add " NSA " && ip netns add " NSB) || pipe(out)) {
		result_fail(tag, "cannot create namespaces");
		return;
	}
	pid = fork();
	if (pid == 0) {
		dup2(out[1], 1);
		close(out[0]);
		execl(fwd, fwd, offload ? "vfa" : "-n", offload ? "vfb" : "vfa",
		      offload ? NULL : "vfb", (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	f = fdopen(out[0], "r");
	if (!fgets(line, sizeof(line), f) || strncmp(line, "ready", 5)) {
		result_fail(tag, "forwarder did not start");
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fclose(f);
		return;
	}
	r = tc_sh("ip link set vfa netns " NSA " && ip link set vfb netns " NSB " && "
		  "ip -n " NSA " link set lo up && ip -n " NSB " link set lo up && "
		  "ip -n " NSA " addr add 10.77.0.1/24 dev vfa && "
		  "ip -n " NSB " addr add 10.77.0.2/24 dev vfb && "
		  "ip -n " NSA " addr add fd77::1/64 dev vfa nodad && "
		  "ip -n " NSB " addr add fd77::2/64 dev vfb nodad && "
		  "ip -n " NSA " link set vfa up && ip -n " NSB " link set vfb up");
	if (r) {
		result_fail(tag, "cannot configure the namespaces");
		goto out;
	}
	snprintf(name, sizeof(name), "%s_ping4", tag);
	result_check(tc_sh("ip netns exec " NSA " ping -q -c 3 -i 0.2 -W 5 10.77.0.2 >/dev/null") == 0,
		  name, "no reply");
	snprintf(name, sizeof(name), "%s_ping6", tag);
	result_check(tc_sh("ip netns exec " NSA " ping -6 -q -c 3 -i 0.2 -W 5 fd77::2 >/dev/null") == 0,
		  name, "no reply");
	snprintf(name, sizeof(name), "%s_ping_1400_bytes", tag);
	result_check(tc_sh("ip netns exec " NSA " ping -q -c 2 -s 1400 -W 5 10.77.0.2 >/dev/null") == 0,
		  name, "no reply");
	snprintf(name, sizeof(name), "%s_iperf3_tcp", tag);
	if (access("/usr/bin/iperf3", X_OK)) {
		result_skip(name, "iperf3 not installed");
	} else {
		tc_sh("ip netns exec " NSB " iperf3 -s -1 -D -B 10.77.0.2 >/dev/null 2>&1");
		usleep(700000);
		r = tc_sh("ip netns exec " NSA " iperf3 -c 10.77.0.2 -t 2 -f m 2>&1 | "
			  "grep -E 'sender|receiver' | sed 's/^/# %s iperf3: /'", tag);
		result_check(r == 0, name, "iperf3 failed");
	}
out:
	/* quiesce: no new frames from either stack, let the last ones through */
	tc_sh("ip -n " NSA " link set vfa down; ip -n " NSB " link set vfb down");
	usleep(500000);
	a_rx = ns_stat(NSA, "vfa", "rx_packets");
	b_rx = ns_stat(NSB, "vfb", "rx_packets");
	kill(pid, SIGTERM);
	while (fgets(line, sizeof(line), f)) {
		struct fwd_counts c;
		char dir[16];

		if (sscanf(line, "fwd %15s rx_frames %llu tx_frames %llu dropped %llu max_frame %llu",
			   dir, &c.rx, &c.tx, &c.dropped, &c.max_frame) != 5)
			continue;
		printf("# %s %s", tag, line);
		if (!strcmp(dir, "A->B"))
			ab = c;
		else
			ba = c;
	}
	fclose(f);
	waitpid(pid, &r, 0);
	snprintf(name, sizeof(name), "%s_forwarder_clean_exit", tag);
	result_check(WIFEXITED(r) && WEXITSTATUS(r) == 0, name, "status %#x", r);
	snprintf(name, sizeof(name), "%s_counters_match", tag);
	ok = ab.rx > 0 && ba.rx > 0 && ab.rx == ab.tx && ba.rx == ba.tx &&
	     ab.dropped == 0 && ba.dropped == 0 &&
	     (long long)ab.tx == b_rx && (long long)ba.tx == a_rx;
	result_check(ok, name, "A->B rx %llu tx %llu drop %llu (vfb rx %lld); B->A rx %llu tx %llu drop %llu (vfa rx %lld)",
		  ab.rx, ab.tx, ab.dropped, b_rx, ba.rx, ba.tx, ba.dropped, a_rx);
	snprintf(name, sizeof(name), "%s_frames_above_mtu", tag);
	if (offload)
		result_check(ab.max_frame > 1514 || ba.max_frame > 1514, name,
			  "largest frame %llu/%llu: no TSO frame forwarded", ab.max_frame, ba.max_frame);
	else
		result_check(ab.max_frame <= 1514 && ba.max_frame <= 1514, name,
			  "largest frame %llu/%llu with offloads off", ab.max_frame, ba.max_frame);
	tc_sh("ip netns del " NSA "; ip netns del " NSB);
	snprintf(name, sizeof(name), "%s_kernel_clean", tag);
	result_check(tc_kmsg_clean(), name, "WARN/BUG/oops in dmesg");
}

int main(int argc, char **argv)
{
	char exe[PATH_MAX], fwd[PATH_MAX + 64];
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		result_fail("forward", "readlink /proc/self/exe");
		return 1;
	}
	exe[n] = 0;
	/* build/tests/vm/tap_forward -> build/examples/vringfd-forward */
	snprintf(fwd, sizeof(fwd), "%s/../../examples/vringfd-forward", dirname(exe));
	if (access(fwd, X_OK)) {
		result_fail("forward", "%s not built", fwd);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	run_forward(fwd, 1, "forward_tso");
	run_forward(fwd, 0, "forward_no_offload");
	return result_exit_status();
}
