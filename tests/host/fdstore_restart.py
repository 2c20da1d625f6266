#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""fdstore_restart.py - systemd's fd store and "systemctl restart", for host tests

Usage: fdstore_restart.py NOTIFY_PATH DIR -- COMMAND [ARG...]

Binds a NOTIFY_SOCKET at NOTIFY_PATH and runs COMMAND with it, as systemd
runs a Type=notify service with FileDescriptorStoreMax= set: the fds of an
FDSTORE=1 message are kept under its FDNAME=, FDSTOREREMOVE=1 closes
every fd of that name, the fd of BARRIER=1 is closed once the message is
read, the fds of any other message are closed.  As systemd, it drops an
fd whose open file it holds already (kcmp(KCMP_FILE); without kcmp()
it keeps every copy, as systemd keeps copies of anything but regular
files then).

A restart: when DIR/restart exists, COMMAND gets SIGTERM; once it has
exited (status in DIR/exited, one line per exit) and every message it
sent is read, DIR/restart is removed and COMMAND runs again with the
stored fds as 3, 4, ... and LISTEN_FDS, LISTEN_FDNAMES and LISTEN_PID
set (sd_listen_fds_with_names()), as systemd starts the next instance
(the store stays as it is; the new instance removes what it takes).
DIR/pid holds COMMAND's current pid.  SIGTERM: COMMAND gets SIGTERM,
the store is closed, exit 0.  One line per start and exit on stdout.
"""
import array, ctypes, fcntl, os, signal, socket, sys, time

libc = ctypes.CDLL(None, use_errno=True)
SYS_kcmp, KCMP_FILE = 312, 0    # x86_64

notify, d = sys.argv[1], sys.argv[2]
if len(sys.argv) < 5 or sys.argv[3] != "--":
    sys.exit("usage: fdstore_restart.py NOTIFY_PATH DIR -- COMMAND [ARG...]")
cmd = sys.argv[4:]
store = []          # (name, fd), in the order stored
stop = False


def on_term(*_):
    global stop
    stop = True


def start():
    """run cmd with the store passed as LISTEN_FDS; return its pid"""
    pid = os.fork()
    if pid == 0:
        # copies above every target number first, then down to 3, 4, ...
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3 + len(store)) for _, fd in store]
        for i, fd in enumerate(high):
            os.dup2(fd, 3 + i, inheritable=True)
        env = dict(os.environ, NOTIFY_SOCKET=notify)
        if store:
            env.update(LISTEN_FDS=str(len(store)), LISTEN_PID=str(os.getpid()),
                       LISTEN_FDNAMES=":".join(n for n, _ in store))
        os.closerange(3 + len(store), 65536)
        os.execvpe(cmd[0], cmd, env)
    with open(os.path.join(d, "pid"), "w") as f:
        f.write(str(pid))
    print("started %d with %d stored fds" % (pid, len(store)), flush=True)
    return pid


def held(fd):
    """whether the store holds fd's open file already (systemd: kcmp())"""
    me = os.getpid()
    return any(libc.syscall(SYS_kcmp, me, me, KCMP_FILE, fd, e[1]) == 0 for e in store)


def read_messages(sock):
    """take every message waiting: store, remove, answer barriers"""
    while True:
        try:
            msg, anc, _, _ = sock.recvmsg(4096, socket.CMSG_SPACE(253 * 4))
        except BlockingIOError:
            return
        fds = array.array("i")
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
        kv = dict(l.split("=", 1) for l in msg.decode(errors="replace").split("\n") if "=" in l)
        name = kv.get("FDNAME", "stored")
        if kv.get("FDSTOREREMOVE") == "1":
            for e in [e for e in store if e[0] == name]:
                os.close(e[1])
                store.remove(e)
        if kv.get("FDSTORE") == "1":
            for fd in fds:
                if held(fd):
                    print("%s: a copy of an open file the store holds: dropped" % name, flush=True)
                    os.close(fd)
                else:
                    store.append((name, fd))
        else:
            for fd in fds:
                os.close(fd)


signal.signal(signal.SIGTERM, on_term)
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC)
if os.path.exists(notify):
    os.unlink(notify)
sock.bind(notify)
restart = os.path.join(d, "restart")
pid = start()
termed = False
while not stop:
    read_messages(sock)
    if os.path.exists(restart) and not termed:
        os.kill(pid, signal.SIGTERM)
        termed = True
    done, status = os.waitpid(pid, os.WNOHANG)
    if not done:
        time.sleep(0.02)
        continue
    read_messages(sock)
    code = os.waitstatus_to_exitcode(status)
    with open(os.path.join(d, "exited"), "a") as f:
        f.write("%d\n" % code)
    print("%d exited %d; stored: %s" % (pid, code, " ".join(n for n, _ in store)), flush=True)
    if not termed:
        break
    termed = False
    os.unlink(restart)
    pid = start()
if stop:
    os.kill(pid, signal.SIGTERM)
    os.waitpid(pid, 0)
os.unlink(notify)
