#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""stream_seq_tapside.py - the tap side of tests/host/stream_seq

Usage: stream_seq_tapside.py IFNAME DIR

Sends numbered frames into tap IFNAME towards stream_seq's MAC
(52:54:00:5e:00:01; at most 200 the daemon has not taken from the tap yet;
while DIR/hold exists only a burst that leaves some in the daemon's queue
for the peer), captures the peer's frames on IFNAME and checks their
numbers (0, 1, 2, ... in order) and bytes.  Files of DIR as stream_seq.c
describes: tapside.ready once the sockets are open; after DIR/stop-tap it
writes DIR/tap.sent and waits for as many frames as DIR/peer.sent says
(or 10 s without one).  One line "tap side: sent K, received N of the
peer's M frames (...)"; exit 0 when every one arrived in order and
intact, 1 otherwise.  Used by tests/suites/36-upgrade-host and
60-vm-systemd.
"""
import os, socket, struct, sys, time
ifname, d = sys.argv[1], sys.argv[2]
peer, ours = bytes.fromhex("5254005e0001"), bytes.fromhex("5254005e0002")
pat = bytes(range(256)) * 6
def frame(k, n):
    s = (k * 7 + 18) % 256
    return peer + ours + b"\x88\xb5" + struct.pack(">I", k) + pat[s:s + n - 18]
def path(n): return os.path.join(d, n)
def num(n):
    try:
        with open(path(n)) as f: return int(f.read())
    except (OSError, ValueError): return None
def put(n, v):
    with open(path(n) + ".tmp", "w") as f: f.write("%d\n" % v)
    os.rename(path(n) + ".tmp", path(n))
cap = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
cap.setsockopt(socket.SOL_SOCKET, 33, 64 << 20)     # SO_RCVBUFFORCE
cap.bind((ifname, 0))
cap.setblocking(False)
tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
tx.bind((ifname, 0))
put("tapside.ready", 1)
stat = "/sys/class/net/%s/statistics/tx_packets" % ifname
def taken(): return int(open(stat).read()) - base
base = int(open(stat).read())
rx, bad, k, bursts, last, want = 0, "", 0, set(), time.time(), None
def until(cond):                        # bounded: a dead daemon or peer ends it
    end = time.time() + 10
    while not cond() and time.time() < end:
        capture(); time.sleep(0.002)
    return cond()
def capture():
    global rx, bad, last
    while True:
        try:
            f, a = cap.recvfrom(65536)
        except BlockingIOError:
            return
        if a[2] == 4 or f[6:12] != peer or f[12:14] != b"\x88\xb5":
            continue                    # ours going out, or not the peer's
        last = time.time()
        seq = struct.unpack(">I", f[14:18])[0]
        s = (seq * 7 + 18) % 256
        if not bad and seq != rx:
            bad = "peer frame %d where %d was due" % (seq, rx)
        if not bad and f[18:] != pat[s:s + len(f) - 18]:
            bad = "peer frame %d: bytes changed" % seq
        rx += 1
while True:
    capture()
    if want is None and os.path.exists(path("stop-tap")):
        put("tap.sent", k)
        want = -1
    if want is None:
        held = num("held")
        if os.path.exists(path("hold")) and not os.path.exists(path("tapidle")):
            until(lambda: taken() >= k)
            put("tapidle", k)
        if held and held not in bursts and os.path.exists(path("hold")):
            # frames of 1000 bytes, 10 at a time, until 16 KiB of them are
            # neither in the peer's socket (it is not reading) nor sent
            # (the daemon holds them), at most 240 (the daemon holds 256 KiB)
            n = 0
            while n < 240:
                for _ in range(10):
                    tx.send(frame(k, 1000)); k += 1; n += 1
                until(lambda: taken() >= k)
                time.sleep(0.02)
                try: os.unlink(path("inq"))
                except OSError: pass
                if not until(lambda: num("inq") is not None) or n * 1004 - num("inq") >= 16384:
                    break
            bursts.add(held)
            put("burst.%d" % held, n)
        elif not os.path.exists(path("hold")) and k - taken() < 200:
            if os.path.exists(path("tapidle")): os.unlink(path("tapidle"))
            for _ in range(4):
                tx.send(frame(k, 60 + (k * 53) % 1000)); k += 1
        time.sleep(0.001)
        continue
    if want < 0:
        want = num("peer.sent")
        if want is None: want = -1
    if want >= 0 and rx >= want or time.time() - last > 10:
        break
    time.sleep(0.01)
print("tap side: sent %d, received %d of the peer's %s frames (%s)" %
      (k, rx, want, bad or ("in order, intact" if rx == want else "some missing")))
sys.exit(0 if not bad and rx == want else 1)
