"""Grade the white-box red team's attacks (notebooks 05 and 01) and decide, per attack, ESCAPED or CONTAINED.

python tests/redteam_whitebox/run_attacks.py [--repo REPO] [--python PY] [--out DIR] [--only NAME ...]
                                             [--as-user ACCOUNT] [--jobs 2] [--grader-memory-mb 6144] [--no-browser]

Stdlib only (it runs the repository's Python once, to read the hidden cases out of the instructors' notebook).
Must run as root: it reads and restores host state. With --as-user the grader runs as that account
(``setpriv --reuid --regid --clear-groups``); the runner stays root, and where the interpreter lives in a
folder the account cannot enter it re-runs itself in a private mount namespace that shows the account only
that folder (tests/grading/test_exchange.py's view_script).

What it does:

1. builds every attack (build_attacks.py) into OUT/attacks with its own settings: scratch paths, the port of a
   local HTTP server that counts requests from pages, an IPC token, the token of the marker each attack's first
   cell prints (proof that its code ran), a vsock port and a Unix socket it holds (s01, e05);
2. plants canaries and records host state: every writable /proc/sys value (listed in OUT/sysctl-list.txt),
   System V IPC objects and /dev/shm, a canary key in a session keyring of its own (the grader inherits it),
   canary files in its scratch, the names under /root, /tmp and the grader's HOME, every file of /etc,
   /proc/vmstat's drop counters, the host's cgroup folders;
3. grades one batch per notebook (05: its attacks, x04's oddly named files, a blank and a wrong-answer control;
   01: the large-request attacks and the two controls) with ``--jobs 2 --timeout 8 --wall-seconds 45
   --cpu-seconds 20``, the grader's TMPDIR and HOME in its scratch, its address space capped at
   --grader-memory-mb (a stand-in for a container's memory limit, so that a flood cannot take the host down);
   meanwhile a sampler (every 0.25 s) finds each kernel's processes by the rtwb-whoami its attack wrote into its
   working folder (/proc/PID/cwd/rtwb-whoami: a jailed kernel's folder is its own tmpfs), tells an attack's kernels
   apart (a submission whose kernel stopped before its hidden cases gets a second one, the replay: each kernel is its
   farthest ancestor of the same attack), and records host disk, inodes and memory, the grading workers' memory per
   submission (RSS, and the peak VmHWM, which it resets through /proc/PID/clear_refs when a worker takes the next
   submission), deleted files and memfds the kernels hold, the CPU time of each kernel's processes, what each kernel
   reports (/proc/PID/cwd/rtwb-results.txt; the first kernel's word wins over a replay's), the sysctls attacks flip
   for a moment, and drains a FIFO the grader stays stuck on;
4. runs ``autograder report`` and ``autograder feedback`` on the results, opens every feedback page in headless
   Chromium (did a payload run?), compares host state with what it recorded, puts back what changed
   (sysctls, IPC objects, cgroups, files), and prints one row per attack: ESCAPED with the evidence; CONTAINED
   when there is none and its code provably ran (its first cell's marker on its page, or its kernel seen by the
   sampler, or its host marker); NOT RUN when there is no such proof (a CONTAINED that rests on an empty page
   proves nothing);
   then ``escaped: N of M``. OUT/verdicts.json holds the rows.
"""
import argparse
import csv
import ctypes
import glob
import hashlib
import html
import html.parser
import http.server
import json
import os
import pwd
import re
import resource
import secrets
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import build_attacks  # noqa: E402

NAMES = {"05": "05_self_attention", "01": "01_ngrams"}
TIMEOUT, WALL, CPU, PROCESSES, DISK_MB, MEMORY_MB = 8, 45, 20, 64, 512, 4096
TMP_MB = 64                    # the grader's default --tmp-mb (the kernel's private /tmp, and again /dev/shm)
#: what a kernel's whole tree may hold in memory, its processes, files in its tmpfs folders and shared memory together:
#: the cgroup limit the sandbox sets as root (autograder.sandbox._kernel_cgroup)
KERNEL_MEMORY_MB = MEMORY_MB + DISK_MB + 2 * TMP_MB
BATCH_BOUND_S = 480            # one grading batch, then it is killed
FEEDBACK_CAP = 8 << 20         # the grader's cap on a notebook's output
WORKER_GROWTH_MB = 1024        # what a worker may grow by for one submission before it counts
FIFO_RESCUE_S = 10             # after the kernel of a folder is gone this long, a FIFO there is drained
VOLATILE_SYSCTLS = ("kernel/ns_last_pid", "kernel/random/", "fs/dentry-state", "kernel/pty/nr")
WATCHED_SYSCTLS = ("kernel/core_pattern", "kernel/hostname", "kernel/domainname", "kernel/printk_ratelimit",
                   "kernel/core_uses_pid", "kernel/modprobe")
RTWB_KEY_PREFIX = 0x5257        # every IPC key an attack uses: 0x5257xxxx
UNREADABLE = re.compile(r"NbGraderException|Traceback|BrokenProcessPool|grader failed on this submission|"
                        r"unknown error|autograding failed", re.I)
KEYCTL, ADD_KEY = 250, 248
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long


#: attributes whose URL a browser follows on a click, a submit or a load (on any element: <a>, <area>, SVG's <a>,
#: forms, buttons, frames, objects)
URL_ATTRIBUTES = ("href", "xlink:href", "src", "action", "formaction", "data")


class _Urls(html.parser.HTMLParser):
    """The URL attributes of every real element of a page (text that only looks like a tag, escaped, is not one)."""

    def __init__(self):
        super().__init__()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        self.urls += [value or "" for key, value in attrs if key in URL_ATTRIBUTES]

    handle_startendtag = handle_starttag


def script_url(url):
    """Whether a browser runs ``url`` as code: it drops leading spaces and controls and every tab and newline inside
    a URL before reading its scheme (``java&#9;script:`` is ``javascript:``)."""
    cleaned = re.sub(r"[\t\n\r]", "", url).lstrip("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f"
                                                     "\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c"
                                                     "\x1d\x1e\x1f ").lower()
    return cleaned.startswith(("javascript:", "vbscript:"))


def javascript_links(raw):
    """How many real elements of the page carry a URL that runs code when followed (javascript:, in any URL
    attribute of any element)."""
    parser = _Urls()
    parser.feed(raw)
    return sum(script_url(url) for url in parser.urls)


def unquoted(text):
    """``text`` without what the grader quotes as the student's own words (between \u00ab and \u00bb)."""
    return re.sub("\u00ab[^\u00bb]*\u00bb", "", text)


def log(msg):
    print(msg, flush=True)


def ran_marker(token, name):
    """What an attack's first cell prints when it runs (build_attacks.PRELUDE): in no notebook's source."""
    return "RTWB-RAN-" + hashlib.sha256((token + ":" + name).encode()).hexdigest()[:16]


def host_markers_of(markers, name):
    """The host markers an attack's own code writes (a01's core_pattern helper)."""
    return [k for k in markers if k.startswith(name.split("_")[0])]


class SocketCanary(threading.Thread):
    """A Unix socket of the runner's that nothing should connect to (e05 names it to the grader); records who does."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path, self.connections, self.closed = path, [], False
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        os.chmod(path, 0o777)  # the grading account may connect too: what counts is that anything does
        self.sock.listen(8)
        self.sock.settimeout(0.5)
        self.start()

    def run(self):
        while not self.closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:  # socket.timeout is one
                continue
            conn.settimeout(1.0)
            try:
                cred = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
                pid, uid = int.from_bytes(cred[:4], "little"), int.from_bytes(cred[4:8], "little")
                first = conn.recv(16)
            except OSError:
                pid, uid, first = 0, -1, b""
            comm = (read("/proc/%d/cmdline" % pid, 300) or "").replace("\0", " ").strip()[:80] if pid else ""
            self.connections.append({"pid": pid, "uid": uid, "cmd": comm, "first_bytes": first.hex()})
            conn.close()

    def close(self):
        self.closed = True
        self.sock.close()


def vsock_listener():
    """A vsock socket the runner binds (and listens on; it connects nowhere) for s01: a kernel in its own network
    namespace that cannot bind the same port shares the host's vsock port space. (None, 0) without AF_VSOCK."""
    if not hasattr(socket, "AF_VSOCK"):
        return None, 0
    for _ in range(20):
        port = 20000 + secrets.randbelow(40000)
        try:
            sock = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)
        except OSError:
            return None, 0
        try:
            sock.bind((socket.VMADDR_CID_ANY, port))
            sock.listen(1)
            return sock, port
        except OSError:
            sock.close()
    return None, 0


# ------------------------------------------------------------------ host state
def read(path, limit=1 << 16):
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


def sysctl_snapshot():
    """Every /proc/sys file that has a write bit and can be read: name -> value."""
    values = {}
    for root, dirs, files in os.walk("/proc/sys"):
        for name in files:
            path = os.path.join(root, name)
            try:
                mode = os.stat(path).st_mode
            except OSError:
                continue
            if not mode & 0o222 or not mode & 0o444:
                continue
            value = read(path, 8192)
            if value is not None:
                values[path[len("/proc/sys/"):]] = value
    return values


def write_sysctl(name, value):
    with open("/proc/sys/" + name, "w") as f:
        f.write(value)


def vmstat_drops():
    text = read("/proc/vmstat") or ""
    return {k: int(v) for k, v in (line.split() for line in text.splitlines() if line.startswith("drop_"))}


def sysvipc():
    """(kind, key, id) -> dict of the host's System V IPC objects."""
    out = {}
    for kind in ("shm", "msg", "sem"):
        lines = (read("/proc/sysvipc/" + kind) or "").splitlines()
        if not lines:
            continue
        head = lines[0].split()
        for line in lines[1:]:
            row = dict(zip(head, line.split()))
            try:
                out[(kind, int(row["key"]), int(row.get("shmid") or row.get("msqid") or row.get("semid")))] = row
            except (KeyError, ValueError):
                continue
    return out


def remove_ipc(kind, ident):
    flag = {"shm": "-m", "msg": "-q", "sem": "-s"}[kind]
    subprocess.run(["ipcrm", flag, str(ident)], capture_output=True)


def mq_exists(name):
    try:
        rt = ctypes.CDLL("librt.so.1", use_errno=True)
    except OSError:
        return False
    fd = rt.mq_open(name.encode(), 0)
    if fd >= 0:
        rt.mq_close(fd)
        return True
    return False


def mq_unlink(name):
    try:
        ctypes.CDLL("librt.so.1").mq_unlink(name.encode())
    except OSError:
        pass


def listing(folder):
    try:
        return {name: (os.lstat(os.path.join(folder, name)).st_mtime_ns, os.lstat(os.path.join(folder, name)).st_size)
                for name in os.listdir(folder)}
    except OSError:
        return {}


def tree_snapshot(folder, limit=20000):
    snap = {}
    for root, dirs, files in os.walk(folder):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            path = os.path.join(root, name)
            try:
                st = os.lstat(path)
                snap[path] = (st.st_size, st.st_mtime_ns)
            except OSError:
                continue
            if len(snap) >= limit:
                return snap
    return snap


def cgroup_dirs():
    return sorted(glob.glob("/sys/fs/cgroup/*/rtwb-*") + glob.glob("/sys/fs/cgroup/*/*/rtwb-*"))


# ------------------------------------------------------------------ the keyring canary
class Keyring:
    """A session keyring of the runner's own, with a canary key in it; the grader and its kernels inherit it."""

    def __init__(self, token):
        self.token = token
        self.session = LIBC.syscall(KEYCTL, 1, b"rtwb-session-" + secrets.token_hex(4).encode())  # JOIN_SESSION
        self.canary = LIBC.syscall(ADD_KEY, b"user", b"rtwb-canary", token.encode(), len(token),
                                   ctypes.c_long(-3))

    def keys(self):
        buf = ctypes.create_string_buffer(65536)
        n = LIBC.syscall(KEYCTL, 11, ctypes.c_long(-3), buf, 65536)
        out = {}
        for i in range(0, max(n, 0), 4):
            kid = int.from_bytes(buf.raw[i:i + 4], "little")
            d = ctypes.create_string_buffer(512)
            LIBC.syscall(KEYCTL, 6, ctypes.c_long(kid), d, 512)
            out[kid] = d.value.decode("utf-8", "replace")
        return out

    def cleanup(self):
        for kid, desc in self.keys().items():
            if desc.endswith(";rtwb-canary") or ";rtwb-" in desc:
                LIBC.syscall(KEYCTL, 9, ctypes.c_long(kid), ctypes.c_long(-3))   # UNLINK


# ------------------------------------------------------------------ an HTTP server that counts what pages fetch
class Hits(http.server.BaseHTTPRequestHandler):
    hits = []

    def do_GET(self):
        Hits.hits.append(self.path)
        self.send_response(204)
        self.end_headers()

    do_POST = do_GET  # noqa: N815

    def log_message(self, *args):
        pass


# ------------------------------------------------------------------ the sampler
class Sampler(threading.Thread):
    """Every 0.25 s: host disk, inodes and memory; which attack each live kernel belongs to; the grading workers'
    memory per submission; deleted files and memfds held by kernels; watched sysctls; FIFOs the grader is stuck on."""

    def __init__(self, gtmp, sysctl_base):
        super().__init__(daemon=True)
        self.gtmp = gtmp
        self.stop_event = threading.Event()
        self.sysctl_base = {k: sysctl_base.get(k) for k in WATCHED_SYSCTLS}
        self.sysctl_changes = []                 # (t, name, value, active attacks)
        self.disk0 = self.disk()
        self.mem0 = self.mem()
        self.disk_peak = dict(self.disk0)
        self.mem_peak = {"used_mb": 0.0, "shmem_mb": self.mem0["shmem_mb"]}
        self.attack_disk = {}                    # attack -> peak rise of host disk use (MB) while it ran
        self.attack_mem = {}                     # attack -> peak rise of host memory use (MB) while it ran
        self.worker_kdir_growth = {}             # kernel folder -> (baseline MB, peak MB) of its grading worker
        self.worker_last = {}                    # worker pid -> (kernel folder, baseline MB)
        self.held = {}                           # attack -> {"deleted": bytes, "memfd": bytes} peaks
        self.fifo_seen = {}                      # path -> first seen
        self.kernel_gone = {}                    # kdir -> time its last process was seen
        self.fifo_rescued = {}                   # attack -> sentence
        self.fifo_drained = set()                # paths the runner drained
        self.cpu = {}                            # attack -> {kernel: {(pid, start): CPU seconds}}
        self.instances = {}                      # attack -> its kernels, in the order seen: (pid, start) of each
                                                 # kernel's first process (a replay's kernel is a second one)
        self.results_by_kernel = {}              # attack -> {kernel: the last rtwb-results.txt read in its folder}
        self.worker_hwm = {}                     # worker pid -> whether its peak (VmHWM) was reset for this folder
        self.whoami = {}                         # the grader's kernel folder -> attack
        self.proc_attack = {}                    # (pid, start time) -> attack, from /proc/PID/cwd/rtwb-whoami
        self.seen = set()                        # attacks whose code was seen running in a kernel
        self.samples = 0

    @staticmethod
    def disk():
        out = {}
        for mount in ("/", "/tmp"):
            st = os.statvfs(mount)
            out[mount + " MB"] = (st.f_blocks - st.f_bfree) * st.f_frsize / 2 ** 20
            out[mount + " inodes"] = st.f_files - st.f_ffree
        return out

    @staticmethod
    def mem():
        info = {}
        for line in (read("/proc/meminfo") or "").splitlines():
            parts = line.split()
            if len(parts) >= 2:
                info[parts[0].rstrip(":")] = int(parts[1]) / 1024
        return {"available_mb": info.get("MemAvailable", 0.0), "shmem_mb": info.get("Shmem", 0.0)}

    def attack_of(self, kdir):
        """The attack whose kernel was started for the grader's kernel folder ``kdir`` (None: not known yet)."""
        if kdir not in self.whoami:
            name = read(os.path.join(kdir, "rtwb-whoami"), 200)  # a kernel that is not jailed: its folder's home
            if not name:
                return None
            self.whoami[kdir] = name.strip()
            self.seen.add(name.strip())
        return self.whoami[kdir]

    def whoami_of(self, pid, start):
        """The attack a process belongs to: the rtwb-whoami its attack wrote into its working folder, read through
        /proc/PID/cwd (a jailed kernel's working folder is its own tmpfs, which only that path reaches)."""
        key = (pid, start)
        if key not in self.proc_attack:
            name = read("/proc/%d/cwd/rtwb-whoami" % pid, 200)
            if not name or not name.strip():
                return None
            self.proc_attack[key] = name.strip()
            self.seen.add(name.strip())
        return self.proc_attack[key]

    def run(self):
        while not self.stop_event.wait(0.25):
            try:
                self.sample()
            except Exception as err:  # noqa: BLE001 (the sampler must not die)
                log("sampler: %r" % err)

    def sample(self):
        self.samples += 1
        now = time.time()
        active = set()
        kernels = {}          # pid -> attack: every process of a kernel (its children too) that says whose it is
        workers = {}          # worker pid -> kdir (of the sandbox stand-in it started)
        parents = {}          # pid -> (ppid, the fields of /proc/PID/stat after the name)
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            fields = (read("/proc/%s/stat" % pid) or "").rsplit(")", 1)[-1].split()
            if len(fields) > 20:
                parents[int(pid)] = (int(fields[1]), fields)
            if self.samples % 2 == 0:  # the stand-ins: every 0.5 s
                cmd = read("/proc/%s/cmdline" % pid, 4096) or ""
                if "autograder.sandbox" in cmd and "--kernel-dir" in cmd:
                    args = cmd.split("\0")
                    kdir = args[args.index("--kernel-dir") + 1]
                    if len(fields) > 1:
                        workers[int(fields[1])] = kdir
        # the sandboxes' pid files (kernel-P.pid: P, the process that became or forked the kernel, and its folder)
        pid_files = {}
        for path in glob.glob(os.path.join(self.gtmp, "course-grade-*", "pids", "kernel-*.pid")):
            lines = (read(path, 4096) or "").splitlines()
            stem = os.path.basename(path)[len("kernel-"):-len(".pid")]
            if lines and stem.isdigit():
                pid_files[int(stem)] = lines[0].strip()
        for pid, (ppid, fields) in parents.items():
            name = self.whoami_of(pid, fields[19])
            if not name:
                continue
            kernels[pid] = name
            up = pid
            for _ in range(12):  # its sandbox: the nearest ancestor with a pid file names the grader's kernel folder
                if up in pid_files:
                    self.whoami.setdefault(pid_files[up], name)
                    self.kernel_gone[pid_files[up]] = now
                    break
                up = parents.get(up, (0, None))[0]
                if up <= 1:
                    break
        for kdir in glob.glob(os.path.join(self.gtmp, "cgk-*")):  # a kernel that is not jailed and lived less than a sample
            self.attack_of(kdir)
        # each process's kernel: its farthest ancestor of the same attack (a kernel's children share its folder); a
        # submission whose kernel stopped before its hidden phase gets a second kernel (TrustedExecute._replay)
        kernel_of = {}
        for pid, name in kernels.items():
            root = pid
            for _ in range(12):
                up = parents.get(root, (0, None))[0]
                if kernels.get(up) != name:
                    break
                root = up
            kernel_of[pid] = (root, parents[root][1][19])
            if kernel_of[pid] not in self.instances.setdefault(name, []):
                self.instances[name].append(kernel_of[pid])
        tick = os.sysconf("SC_CLK_TCK")
        for pid, name in kernels.items():
            fields = parents[pid][1]
            cpu = (int(fields[11]) + int(fields[12])) / tick
            per = self.cpu.setdefault(name, {}).setdefault(kernel_of[pid], {})
            per[(pid, fields[19])] = max(per.get((pid, fields[19]), 0.0), cpu)
            active.add(name)
        # what the attacks' code reports (build_attacks.PRELUDE's _rt_res also writes it into the kernel's working folder)
        if self.samples % 2 == 0:
            for pid, name in kernels.items():
                text = read("/proc/%d/cwd/rtwb-results.txt" % pid, 1 << 16)
                mine = self.results_by_kernel.setdefault(name, {})
                if text and len(text) >= len(mine.get(kernel_of[pid], "")):
                    mine[kernel_of[pid]] = text
        # kernels' deleted files and memfds
        if self.samples % 2 == 0:
            held = {}
            for pid, name in kernels.items():
                try:
                    fds = os.listdir("/proc/%d/fd" % pid)
                except OSError:
                    continue
                for fd in fds:
                    try:
                        target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
                        if target.startswith("/memfd:"):
                            kind = "memfd"
                        elif target.endswith(" (deleted)") and not target.startswith("/dev/"):
                            kind = "deleted"
                        else:
                            continue
                        size = os.stat("/proc/%d/fd/%s" % (pid, fd)).st_size
                    except OSError:
                        continue
                    held.setdefault(name, {}).setdefault(kind, {})[(pid, target, fd)] = size
            for name, kinds in held.items():
                peaks = self.held.setdefault(name, {})
                for kind, files in kinds.items():
                    total = sum(files.values())
                    peaks[kind] = max(peaks.get(kind, 0), total)
        # the grading workers' memory, per submission (per kernel folder: its attack is known once its code ran)
        if self.samples % 2 == 0:
            for wpid, kdir in workers.items():
                rss = self.rss_mb(wpid)
                last = self.worker_last.get(wpid)
                if rss is not None and (last is None or last[0] != kdir):
                    self.worker_last[wpid] = (kdir, rss)
                    self.worker_hwm[wpid] = self.reset_peak(wpid)  # VmHWM from here on is this submission's
            for wpid, (kdir, base) in list(self.worker_last.items()):
                rss = self.rss_mb(wpid)
                if rss is None:
                    continue
                hwm = self.hwm_mb(wpid) if self.worker_hwm.get(wpid) else None  # a peak between two samples
                b, peak = self.worker_kdir_growth.get(kdir, (base, base))
                self.worker_kdir_growth[kdir] = (b, max(peak, rss, hwm or 0.0))
        # host disk and memory
        disk = self.disk()
        for k, v in disk.items():
            self.disk_peak[k] = max(self.disk_peak.get(k, v), v)
        rise = disk["/ MB"] - self.disk0["/ MB"]
        mem = self.mem()
        used = self.mem0["available_mb"] - mem["available_mb"]
        self.mem_peak["used_mb"] = max(self.mem_peak["used_mb"], used)
        self.mem_peak["shmem_mb"] = max(self.mem_peak["shmem_mb"], mem["shmem_mb"])
        for name in active:
            self.attack_disk[name] = max(self.attack_disk.get(name, 0.0), rise)
            self.attack_mem[name] = max(self.attack_mem.get(name, 0.0), used)
        # sysctls an attack flips for a moment
        for key, base in self.sysctl_base.items():
            value = read("/proc/sys/" + key, 8192)
            if value is not None and base is not None and value != base:
                if not self.sysctl_changes or self.sysctl_changes[-1][1:3] != (key, value):
                    self.sysctl_changes.append((now, key, value.strip(), sorted(active)))
        # a FIFO the grader may be stuck writing
        for path in glob.glob(os.path.join(self.gtmp, "cgk-*", "course-request-*.txt")) + \
                glob.glob(os.path.join(self.gtmp, "cgk-*", "requests", "*")):
            try:
                if not stat.S_ISFIFO(os.lstat(path).st_mode):
                    continue
            except OSError:
                continue
            kdir = path.split("/requests/")[0] if "/requests/" in path else os.path.dirname(path)
            self.fifo_seen.setdefault(path, now)
            gone = now - self.kernel_gone.get(kdir, self.fifo_seen[path])
            if gone > FIFO_RESCUE_S and path not in self.fifo_drained:
                self.fifo_drained.add(path)
                name = self.attack_of(kdir) or "?"
                threading.Thread(target=self.drain, args=(path, name, now - self.fifo_seen[path], gone),
                                 daemon=True).start()

    @property
    def worker_growth(self):
        """attack -> (baseline MB, peak MB) of the worker that graded it (the largest growth of its kernel folders)."""
        out = {}
        for kdir, (base, peak) in self.worker_kdir_growth.items():
            name = self.whoami.get(kdir)
            if name and peak - base >= out.get(name, (0, 0))[1] - out.get(name, (0, 0))[0]:
                out[name] = (base, peak)
        return out

    @staticmethod
    def rss_mb(pid, field="VmRSS"):
        status = read("/proc/%d/status" % pid)
        m = re.search(field + r":\s+(\d+)", status or "")
        return int(m.group(1)) / 1024 if m else None

    @classmethod
    def hwm_mb(cls, pid):
        """The worker's peak RSS since the runner last reset it (a flood that comes and goes between two samples)."""
        return cls.rss_mb(pid, "VmHWM")

    @staticmethod
    def reset_peak(pid):
        """Reset a worker's VmHWM to its RSS (/proc/PID/clear_refs, "5": only the peak counter). True when it worked."""
        try:
            with open("/proc/%d/clear_refs" % pid, "w") as f:
                f.write("5")
            return True
        except OSError:
            return False

    def results_of(self, name):
        """What an attack's kernels reported (rtwb-results.txt), one text per kernel, the first kernel's first."""
        mine = self.results_by_kernel.get(name, {})
        return [mine[k] for k in self.instances.get(name, []) if k in mine]

    def cpu_of(self, name):
        """CPU seconds of each of an attack's kernels (with its children), the first kernel's first."""
        per = self.cpu.get(name, {})
        return [sum(per[k].values()) for k in self.instances.get(name, []) if k in per]

    def drain(self, path, name, since_seen, since_gone):
        """Read the FIFO: a grader blocked opening it for writing goes on. Records how long it was stuck."""
        got = 0
        end = time.time() + 60
        while time.time() < end:
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            except OSError:
                break
            eof_at = None
            try:
                while time.time() < end:
                    try:
                        chunk = os.read(fd, 1 << 16)
                    except BlockingIOError:
                        time.sleep(0.05)
                        continue
                    if chunk:
                        got += len(chunk)
                        eof_at = None
                        continue
                    eof_at = eof_at or time.time()
                    if got or time.time() - eof_at > 2:
                        break
                    time.sleep(0.05)
            finally:
                os.close(fd)
            if got:
                break
        if got or name not in self.fifo_rescued:
            self.fifo_rescued[name] = ("the grader was stuck opening %s for %.0f s after its kernel stopped "
                                   "(%.0f s after the FIFO appeared) until the runner read %d bytes from it" % (
                                       os.path.basename(path), since_gone, since_seen, got)) if got else \
                "a FIFO %s was left; nothing was writing into it" % os.path.basename(path)


# ------------------------------------------------------------------ hidden cases, white-box
FINGERPRINT_HELPER = r'''
import json, math, re, sys
import torch
nb = json.load(open(sys.argv[1]))
checks = __import__(nb["metadata"]["course"]["checks"], fromlist=["x"])
ns = {"torch": torch, "math": math, "checks": checks}
calls, part = [], ["visible"]
def desc(v):
    if isinstance(v, torch.Tensor):
        flat = v.detach().reshape(-1)
        return {"shape": list(v.shape), "dtype": str(v.dtype).replace("torch.", ""),
                "first": [float(x) for x in flat[:3]] if v.is_floating_point() else None}
    return {"repr": repr(v)[:40]}
def wrap(name, f):
    def w(*a, **k):
        r = f(*a, **k)
        calls.append({"fn": name, "part": part[0], "args": [desc(x) for x in list(a) + list(k.values())],
                      "out": [desc(o) for o in (r if isinstance(r, tuple) else (r,))]})
        return r
    w._rtwb = True
    return w
def wrap_new():
    for n, v in list(ns.items()):
        if type(v).__name__ == "function" and not getattr(v, "_rtwb", False) and not n.startswith("_"):
            ns[n] = wrap(n, v)
# every cell in order: the answers and the notebook's own demo cells (what they show is public: "visible"), and each
# test cell's visible part, then its hidden part
for c in nb["cells"]:
    if c["cell_type"] != "code":
        continue
    md = c.get("metadata", {}).get("nbgrader", {})
    src = "".join(c["source"])
    if md.get("grade") and not md.get("solution"):
        visible = re.sub(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS", "", src, flags=re.S)
        hidden = "\n".join(re.findall(r"### BEGIN HIDDEN TESTS(.*?)### END HIDDEN TESTS", src, flags=re.S))
        for label, code in (("visible", visible), ("hidden", hidden)):
            part[0] = label
            try:
                exec(code, dict(ns))
            except Exception:
                pass
    else:
        part[0] = "visible"
        code = "\n".join(line for line in src.splitlines() if not line.lstrip().startswith(("%", "!")))
        try:
            exec(code, ns)
        except Exception:
            pass
        wrap_new()
open(sys.argv[2], "w").write(json.dumps(calls))
'''


def hidden_fingerprints(repo, python, out_root):
    """Strings that only the hidden cases of notebook 05 produce: their shapes and their first input values (what
    the checks' visible parts or the notebook's own cells pass or return is public, and left out)."""
    path = os.path.join(out_root, "hidden-calls.json")
    proc = subprocess.run([python, "-c", FINGERPRINT_HELPER, os.path.join(repo, "solutions", NAMES["05"] + ".ipynb"),
                           path], cwd=repo, env=dict(os.environ, PYTHONPATH=repo), capture_output=True, text=True,
                          timeout=300)
    if proc.returncode != 0 or not os.path.exists(path):
        log("could not compute the hidden cases' fingerprints: %s" % proc.stderr[-500:])
        return {"shapes": [], "values": [], "shifts": []}
    calls = json.load(open(path))
    seen_shapes, seen_values = set(), set()
    for c in calls:
        if c["part"] == "visible":
            for d in c["args"] + c["out"]:
                if "shape" in d:
                    seen_shapes.add(tuple(d["shape"]))
                    seen_values.update(round(v, 6) for v in d["first"] or [])
    shapes, values, shifts = set(), set(), set()
    for c in calls:
        if c["part"] != "hidden":
            continue
        for d in c["args"] + c["out"]:
            if "shape" in d and len(d["shape"]) >= 2 and tuple(d["shape"]) not in seen_shapes:
                shapes.add(", ".join(map(str, d["shape"])))
        for d in c["args"]:
            for v in (d.get("first") or [])[:1]:
                if round(v, 6) not in seen_values and abs(v) not in (0.0, 1.0):
                    values.add(json.dumps(round(v, 6)))
                    shifts.add(("plus " if v > 0 else "minus ") + "%.4g" % abs(v))
    return {"shapes": sorted(shapes), "values": sorted(values), "shifts": sorted(shifts)}


#: what h07's bit cells print when their bit is set (not in their source: 'RTWB-H07-' + 'ON'); the grader shows every
#: cell's output since the hidden cases run after the last cell (it withheld them before, with a line of its own)
H07_BIT_ON = "RTWB-H07-ON"
#: a line of what an attack reports (build_attacks.PRELUDE's _rt_res)
RESULT_LINE = r"RT-RESULT\[([^\]<>]+)\]=([^\n<]*)"


def h08_values(names):
    """h08's two values from the exception names of its hidden verdicts ({exercise: name}); a value whose bits are
    not all there is left out."""
    stream, known = 0, 0
    for i, ex in enumerate(build_attacks.H08_EXERCISES):
        if names.get(ex) in build_attacks.H08_NAMES:
            stream |= build_attacks.H08_NAMES.index(names[ex]) << (6 * i)
            known |= 63 << (6 * i)
    bits, values = build_attacks.H08_VALUE_BITS, []
    for j in range(2):
        mask = ((1 << bits) - 1) << (bits * j)
        if known & mask == mask:
            code = (stream & mask) >> (bits * j)
            values.append((-1 if code & 1 else 1) * (code >> 1) / build_attacks.H08_SCALE)
    return values


def type_name_values(text):
    """Numbers h05 spelt in exception type names: RTWBv0d278412xn1d5 -> [0.278412, -1.5]."""
    found = []
    for token in re.findall(r"RTWBv([0-9a-z]+)", text):
        for part in token.split("x"):
            try:
                found.append(float(part.replace("n", "-").replace("d", ".")))
            except ValueError:
                continue
    return found


def values_matching(values, fp, tolerance=2e-6):
    """The hidden-only input values (fingerprints, 6 decimals) that ``values`` contain."""
    hidden = [float(v) for v in fp["values"]]
    return sorted({h for h in hidden for v in values if abs(v - h) < tolerance})


def presence_bits(text, marker, line):
    """h07's bit cells, read back: bit j is set when ``line`` shows between cell j's marker and the next marker."""
    cuts = [(int(m.group(1)), m.start()) for m in re.finditer(re.escape(marker) + r"(\d+)", text)]
    if not cuts:
        return None
    code = 0
    for i, (bit, at) in enumerate(cuts):
        end = cuts[i + 1][1] if i + 1 < len(cuts) else len(text)
        if line in text[at:end]:
            code |= 1 << bit
    return code


def hidden_found(text, fp):
    found = []
    for s in fp["shapes"]:
        if re.search(r"(?<![\d.])" + re.escape(s) + r"(?![\d.])", text):
            found.append("shape (%s)" % s)
    for v in fp["values"]:
        if re.search(r"(?<![\d.])" + re.escape(v) + r"(?![\d])", text):
            found.append("value %s" % v)
    for v in fp["shifts"]:
        if v in text:
            found.append("'%s'" % v)
    return found


# ------------------------------------------------------------------ Chromium
def chromium_check(pages, workdir, timeout=45):
    """page -> (title, [markers], error): what headless Chromium shows after running the page a few seconds."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not exe:
        return {p: (None, [], "no chromium installed") for p in pages}
    results = {}

    def one(page):
        if os.path.getsize(page) > 20 << 20:
            results[page] = (None, [], "not opened: %.0f MB" % (os.path.getsize(page) / 2 ** 20))
            return
        profile = os.path.join(workdir, "chrome-" + secrets.token_hex(4))
        cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
               "--user-data-dir=" + profile, "--virtual-time-budget=3000", "--dump-dom", "file://" + page]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, start_new_session=True)
            dom = proc.stdout
            m = re.search(r"<title>(.*?)</title>", dom, re.S)
            title = html.unescape(m.group(1)) if m else ""
            markers = sorted(set(re.findall(r'id="(rtwb-ran-[^"]+)"', dom)))
            results[page] = (title, markers, "" if dom else "no DOM (%s)" % proc.stderr[-200:])
        except subprocess.TimeoutExpired:
            results[page] = (None, [], "Chromium timed out")
        finally:
            shutil.rmtree(profile, ignore_errors=True)

    threads = []
    for page in pages:
        t = threading.Thread(target=one, args=(page,))
        t.start()
        threads.append(t)
        while sum(x.is_alive() for x in threads) >= 2:
            time.sleep(0.1)
    for t in threads:
        t.join()
    return results


# ------------------------------------------------------------------ the account's view of the interpreter
def _hidden_folder(path):
    parts = os.path.abspath(path).split("/")
    for i in range(2, len(parts)):
        parent = "/".join(parts[:i])
        if parent and not os.stat(parent).st_mode & stat.S_IXOTH:
            return parent
    return None


def view_script(stage, python):
    """Shell lines that show the account the interpreter's folders it cannot enter ('' when it can)
    (tests/grading/test_exchange.py's view_script, for a runner that must stay stdlib)."""
    base = subprocess.run([python, "-c", "import sys; print(sys.base_prefix)"], capture_output=True,
                          text=True).stdout.strip()
    needed = {os.path.realpath(python), os.path.realpath(base) if base else "",
              os.path.dirname(os.path.dirname(python))}
    shown = {}
    for path in filter(None, needed):
        hidden = _hidden_folder(path)
        if hidden:
            child = os.path.join(hidden, os.path.relpath(path, hidden).split("/")[0])
            shown.setdefault(hidden, set()).add(child)
    lines = []
    for i, (hidden, children) in enumerate(sorted(shown.items())):
        staged = []
        for j, child in enumerate(sorted(children)):
            place = os.path.join(stage, "%d-%d" % (i, j))
            os.makedirs(place, exist_ok=True)
            lines.append("mount --bind -o ro %s %s" % (shlex.quote(child), shlex.quote(place)))
            staged.append((child, place))
        lines.append("mount -t tmpfs -o mode=0755 interpreter-view %s" % shlex.quote(hidden))
        for child, place in staged:
            lines.append("mkdir -p %s" % shlex.quote(child))
            lines.append("mount --bind -o ro %s %s" % (shlex.quote(place), shlex.quote(child)))
    return "\n".join(lines)


# ------------------------------------------------------------------ main
def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", default=os.path.abspath(os.path.join(HERE, "..", "..")))
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--out", default=None)
    ap.add_argument("--only", nargs="*", help="attack names (default: all)")
    ap.add_argument("--as-user", default="", help="grade as this (unprivileged) account; the runner stays root")
    ap.add_argument("--jobs", default="2")
    ap.add_argument("--grader-memory-mb", type=int, default=5120,
                    help="RLIMIT_AS of the grader and its workers (0: none): a flood into a worker meets it instead of "
                         "the host's memory")
    ap.add_argument("--no-browser", action="store_true", help="skip the Chromium check of the pages")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("run_attacks.py must run as root (it reads and restores host state)")
    repo = os.path.abspath(args.repo)
    out_root = os.path.abspath(args.out or os.environ.get("RTWB_OUT") or os.path.join("/tmp", "rtwb-" + secrets.token_hex(4)))
    os.makedirs(out_root, exist_ok=True)
    os.chmod(out_root, 0o755)

    if args.as_user and not os.environ.get("RTWB_VIEW"):  # the account must see the interpreter
        view = view_script(os.path.join(out_root, "view"), args.python)
        if view:
            cmd = ["unshare", "--mount", "--propagation", "private", "--", "sh", "-ec", view + '\nexec "$@"', "sh",
                   sys.executable, os.path.abspath(__file__), *sys.argv[1:]]
            os.execvpe("unshare", cmd, dict(os.environ, RTWB_VIEW="1", RTWB_OUT=out_root))
    return run(args, repo, out_root)


def run(args, repo, out_root):
    t_start = time.time()
    grader_memory_mb = args.grader_memory_mb
    account = pwd.getpwnam(args.as_user) if args.as_user else None
    work = os.path.join(out_root, "work")
    shutil.rmtree(work, ignore_errors=True)
    for sub in ("markers", "canaries", "home", "gtmp", "subs05", "subs01", "report", "browser", "course-cache"):
        os.makedirs(os.path.join(work, sub), exist_ok=True)
    os.chmod(os.path.join(work, "markers"), 0o777)
    grades = {nbk: os.path.join(work, "grades" + nbk) for nbk in NAMES}

    # the HTTP server that counts what pages fetch
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hits)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]

    tokens = {k: "RTWB-%s-%s" % (k, secrets.token_hex(10)) for k in ("KEY", "IPC", "CANARY", "RAN")}
    vsock, vsock_port = vsock_listener()
    os.makedirs(os.path.join(work, "canaries"), exist_ok=True)
    redirect = SocketCanary(os.path.join(work, "canaries", "redirect.sock"))
    redirect_r02 = SocketCanary(os.path.join(work, "canaries", "redirect-r02.sock"))
    cfg = {"scratch": work, "markers": os.path.join(work, "markers"),
           "canary_existing": os.path.join(work, "canaries", "e01-target.txt"),
           "canary_existing_e04": os.path.join(work, "canaries", "e04-target.txt"),
           "home": os.path.join(work, "home"), "port": port, "ipc_token_reversed": tokens["IPC"][::-1], "timeout": TIMEOUT,
           "ran_token": tokens["RAN"], "vsock_port": vsock_port, "redirect_socket": redirect.path,
           "redirect_socket_r02": redirect_r02.path}
    attacks_dir = os.path.join(out_root, "attacks")
    shutil.rmtree(attacks_dir, ignore_errors=True)
    manifest = build_attacks.build(os.path.join(repo, "notebooks"), attacks_dir, cfg)
    if args.only:
        manifest = [m for m in manifest if m["name"] in args.only]
    controls = build_attacks.controls(os.path.join(repo, "notebooks"))
    canary_files = {}
    for key in ("canary_existing", "canary_existing_e04"):
        with open(cfg[key], "w") as f:
            f.write(tokens["CANARY"] + " " + key + "\n")
        canary_files[cfg[key]] = hashlib.sha256(open(cfg[key], "rb").read()).hexdigest()

    # submissions: one flat folder per notebook
    batch_ids = {"05": [], "01": []}
    for nbk in NAMES:
        for cname, nb in controls[nbk].items():
            with open(os.path.join(work, "subs" + nbk, cname + ".ipynb"), "w") as f:
                json.dump(nb, f, indent=1, ensure_ascii=False)
    for m in manifest:
        for stem, path in m["files"].items():
            shutil.copy(path, os.path.join(work, "subs" + m["notebook"], stem + ".ipynb"))
            batch_ids[m["notebook"]].append(stem)
    owner_of = {stem: m["name"] for m in manifest for stem in m["files"]}
    fp = hidden_fingerprints(repo, args.python, out_root)

    # host state before
    log("recording host state")
    sysctl_before = sysctl_snapshot()
    time.sleep(0.5)
    again = sysctl_snapshot()
    volatile = {k for k in sysctl_before if again.get(k) != sysctl_before[k]} | \
        {k for k in sysctl_before if k.startswith(VOLATILE_SYSCTLS)}
    with open(os.path.join(out_root, "sysctl-list.txt"), "w") as f:
        f.write("# every writable /proc/sys value, read before and after the batches (* = volatile, not compared)\n")
        for k in sorted(sysctl_before):
            f.write("%s%s = %s\n" % ("* " if k in volatile else "", k, sysctl_before[k].strip()[:200]))
    ipc_before = sysvipc()
    shm_before = listing("/dev/shm")
    vm_before = vmstat_drops()
    root_before = listing("/root")
    tmp_before = listing("/tmp")
    etc_before = tree_snapshot("/etc")
    cg_before = set(cgroup_dirs())
    boot_id = (read("/proc/sys/kernel/random/boot_id") or "").strip()
    keyring = Keyring(tokens["KEY"])
    keys_before = keyring.keys()
    if keyring.canary < 0:
        log("note: no canary key (keyctl refused: %s)" % os.strerror(ctypes.get_errno()))

    if account:  # the grading account owns the run's folder (its HOME and TMPDIR included), nothing else
        for folder, dirs, files in os.walk(out_root):
            dirs[:] = [d for d in dirs if os.path.join(folder, d) != os.path.join(out_root, "view")]
            for path in [folder, *(os.path.join(folder, f) for f in files)]:
                os.lchown(path, account.pw_uid, account.pw_gid)
    sampler = Sampler(os.path.join(work, "gtmp"), sysctl_before)
    sampler.start()
    batches = {}
    restored = []
    try:
        # both batches at once: 01's longest submission (e03) mostly waits
        runners = []
        for nbk in ("01", "05"):
            if not batch_ids[nbk] and args.only:
                continue
            t = threading.Thread(target=lambda nbk=nbk: batches.__setitem__(
                nbk, grade_batch(args, repo, work, nbk, grades[nbk], account)))
            t.start()
            runners.append(t)
            time.sleep(2)
        for t in runners:
            t.join()
        time.sleep(2)
        sampler.stop_event.set()
        sampler.join(5)
        post = [d for d in grades.values() if os.path.exists(os.path.join(d, "results.json"))]
        report_dir = os.path.join(work, "report")
        if post:
            as_grader(args, repo, work, account, ["-m", "autograder", "report", *post, "--to", report_dir])
            for d in post:
                as_grader(args, repo, work, account, ["-m", "autograder", "feedback", d])
            # report.md shows the 10 most frequent mistakes: a class where x05's verdicts are frequent enough
            rj = os.path.join(grades["05"], "results.json")
            if os.path.exists(rj) and any(m["name"].startswith("x05") for m in manifest):
                alone = os.path.join(work, "grades05-x05-alone")
                os.makedirs(alone, exist_ok=True)
                rows = [r for r in json.load(open(rj, encoding="utf-8")) if r["student_id"].startswith("x05")]
                with open(os.path.join(alone, "results.json"), "w", encoding="utf-8") as f:
                    json.dump(rows, f)
                if account:
                    for p in (alone, os.path.join(alone, "results.json")):
                        os.lchown(p, account.pw_uid, account.pw_gid)
                as_grader(args, repo, work, account, ["-m", "autograder", "report", alone, "--to",
                                                      os.path.join(work, "report-x05-alone")])

        # ---------------------------------------------------------- host state after
        sysctl_after = sysctl_snapshot()
        sysctl_changed = {k: (sysctl_before[k], sysctl_after.get(k)) for k in sysctl_before
                          if k not in volatile and sysctl_after.get(k) != sysctl_before[k]}
        ipc_after = sysvipc()
        ipc_new = {k: v for k, v in ipc_after.items() if k not in ipc_before}
        shm_new = sorted(set(listing("/dev/shm")) - set(shm_before))
        vm_after = vmstat_drops()
        root_after = listing("/root")
        tmp_after = listing("/tmp")
        etc_after = tree_snapshot("/etc")
        cg_new = sorted(set(cgroup_dirs()) - cg_before)
        keys_after = keyring.keys()
        keys_new = {k: d for k, d in keys_after.items() if k not in keys_before}
        home_files = sorted(os.path.relpath(os.path.join(r, f), cfg["home"])
                            for r, _, fs in os.walk(cfg["home"]) for f in fs)
        mq_left = mq_exists("/rtwb-b01")
        canary_changed = {p: ("gone" if not os.path.exists(p) else "changed") for p, h in canary_files.items()
                          if not os.path.exists(p) or hashlib.sha256(open(p, "rb").read()).hexdigest() != h}
        markers = {os.path.basename(p): (read(p, 2000) or "").strip() for p in glob.glob(os.path.join(cfg["markers"], "*"))}
        leftover = marked_processes()

        # ---------------------------------------------------------- the results
        results, rows_csv = {}, {}
        for nbk, d in grades.items():
            rj = os.path.join(d, "results.json")
            if os.path.exists(rj):
                for r in json.load(open(rj, encoding="utf-8")):
                    results[(nbk, r["student_id"])] = r
            gc = os.path.join(d, "grades.csv")
            if os.path.exists(gc):
                rows_csv[nbk] = list(csv.reader(open(gc, encoding="utf-8", newline="")))
        report_md = read(os.path.join(report_dir, "report.md"), 50 << 20) or ""
        report_x05 = read(os.path.join(work, "report-x05-alone", "report.md"), 50 << 20) or ""
        lms = os.path.join(report_dir, "lms_grades.csv")
        lms_rows = list(csv.reader(open(lms, encoding="utf-8", newline=""))) if os.path.exists(lms) else []
        pages = {}
        for nbk, d in grades.items():
            for page in glob.glob(os.path.join(d, "feedback", "*.html")):
                pages[(nbk, os.path.basename(page)[:-5])] = page
        browser = {} if args.no_browser else chromium_check(sorted(pages.values()), os.path.join(work, "browser"))
        hits = list(Hits.hits)

        def score(nbk, sid):
            r = results.get((nbk, sid))
            return None if r is None else float(r["score"])

        controls_line = {}
        control_lost = {}
        for nbk in sorted(batches, reverse=True):
            blank, wrong = score(nbk, "control_blank"), score(nbk, "control_wrong")
            maxs = (results.get((nbk, "control_wrong")) or {}).get("max_score")
            controls_line[nbk] = "blank %s, wrong answers %s (max %s); batch %.0f s%s" % (
                blank, wrong, maxs, batches[nbk]["seconds"], ", TIMED OUT" if batches[nbk]["timed_out"] else "")
            lost = [c for c in ("control_blank", "control_wrong")
                    if (results.get((nbk, c)) or {}).get("status") != "graded"]
            if lost:
                control_lost[nbk] = "control(s) %s lost their grade (%s)" % (", ".join(lost), "; ".join(
                    (results.get((nbk, c)) or {}).get("reason", "missing")[:100] for c in lost))

        # per attack evidence
        rows = []
        for m in manifest:
            name, nbk = m["name"], m["notebook"]
            ev, info, ran = [], [], []
            stems = list(m["files"])
            wrong = score(nbk, "control_wrong")
            for stem in stems:
                r = results.get((nbk, stem))
                sc = score(nbk, stem)
                if r is None:
                    ev.append("%s not in grades (the batch did not finish it)" % stem)
                    continue
                if wrong is not None and sc > wrong:
                    ev.append("score %g > wrong-answer control %g" % (sc, wrong))
                if float(r.get("seconds") or 0) > WALL + 30:
                    ev.append("held its worker %.0f s (--wall-seconds %d)" % (float(r["seconds"]), WALL))
                page = pages.get((nbk, stem))
                text = ""
                if page:
                    size = os.path.getsize(page)
                    if size > FEEDBACK_CAP:
                        ev.append("feedback page %.1f MB (cap %d MB)" % (size / 2 ** 20, FEEDBACK_CAP >> 20))
                    text = html.unescape(open(page, encoding="utf-8", errors="replace").read(40 << 20))
                    for k in ("KEY", "IPC", "CANARY"):
                        if tokens[k] in text:
                            ev.append("feedback shows the %s canary token" % {"KEY": "keyring", "IPC": "IPC",
                                                                              "CANARY": "scratch file's"}[k])
                    if ran_marker(tokens["RAN"], name) in text:
                        ran.append("its first cell's marker is on its page")
                    if boot_id and boot_id in text:
                        ev.append("feedback shows the host's boot_id")
                    title, marks, err = browser.get(page, (None, [], "not checked"))
                    if title and "RTWB-XSS" in title:
                        ev.append("Chromium ran a payload: title %r" % title[:60])
                    if marks:
                        ev.append("Chromium ran payload(s): %s" % ", ".join(marks[:6]))
                    raw = open(page, encoding="utf-8", errors="replace").read(40 << 20)
                    if err:
                        info.append("browser: " + err)
                        live = re.findall(r"<script[^>]*>[^<]*RTWB-XSS-[\w-]+|\son\w+\s*=\s*[\"'][^\"']*RTWB-XSS-[\w-]+", raw)
                        if live:  # not opened in a browser: what would run, read from the HTML
                            ev.append("%d payload(s) left executable in the page (%s; not run: %s)" % (
                                len(live), re.search(r"RTWB-XSS-[\w-]+", live[0]).group(0), err))
                    js_links = javascript_links(raw)
                    if js_links:
                        ev.append("%d javascript: link(s) kept in the page (run on a click)" % js_links)
                # what its code reported: read from its kernels' folders while they lived (a replay's kernel runs the
                # cells above the stop again: what the first kernel said wins), and what its page shows (the first
                # kernel's cells: a replay's outputs are not kept)
                rres = {}
                for source in [*reversed(sampler.results_of(name)), text]:
                    rres.update((k, v) for k, v in re.findall(RESULT_LINE, source) if "%" not in k)
                try:
                    specific(name, stem, r, rres, text, ev, info, locals_for_specific(locals()))
                except Exception as err:  # noqa: BLE001 (one attack's odd output must not lose the others' rows)
                    info.append("runner could not read its evidence: %r" % err)
                if r.get("reason"):
                    info.append("reason: " + r["reason"][:90])
                if rres:
                    info.append("; ".join("%s=%s" % (k, v[:60]) for k, v in list(rres.items())[:5]))
            if batches.get(nbk, {}).get("timed_out"):
                ev.append("the batch did not finish within %d s" % BATCH_BOUND_S)
            if name in sampler.seen:
                ran.append("a process of its kernel was seen (rtwb-whoami)")
            kernels_seen = len(sampler.instances.get(name, []))
            if kernels_seen > 1:
                info.append("%d kernels ran its cells (the grader replayed them in a new kernel)" % kernels_seen)
            if host_markers_of(markers, name):
                ran.append("its host marker was written")
            ev, info, ran = list(dict.fromkeys(ev)), list(dict.fromkeys(info)), list(dict.fromkeys(ran))
            # CONTAINED needs proof that the attack's code ran (its first cell, which runs before any test, prints a
            # marker on its page; or its kernel was seen); x04 runs no code
            if ev:
                status = "ESCAPED"
            elif m.get("runs", True) and not ran:
                status = "NOT RUN"
                info.insert(0, "no proof that its code ran in a kernel (no marker on its page, no rtwb-whoami seen)")
            else:
                status = "CONTAINED"
            rows.append({"attack": name, "class": m["class"], "notebook": nbk, "result": status,
                         "ran": "; ".join(ran) if m.get("runs", True) else "(runs no code by design)",
                         "evidence": "; ".join(ev) if ev else "; ".join(info)[:400]})

        # ---------------------------------------------------------- what no attack owns
        unattributed = []
        for k, (old, new) in sysctl_changed.items():
            if not any(k.replace("/", ".") in r["evidence"] for r in rows):
                unattributed.append("sysctl %s: %r -> %r" % (k, old.strip()[:60], (new or "").strip()[:60]))
        for key in ipc_new:
            if key[1] >> 16 != RTWB_KEY_PREFIX:
                unattributed.append("System V %s key %#x id %d left on the host" % (key[0], key[1], key[2]))
        if shm_new:
            unattributed.append("/dev/shm on the host has new entries: %s" % shm_new[:5])
        claimed = " ".join(r["evidence"] for r in rows)
        new_root = [n for n in sorted(set(root_after) - set(root_before)) if n not in claimed]
        if new_root:
            unattributed.append("/root has new entries: %s" % new_root[:8])
        new_tmp = [n for n in sorted(set(tmp_after) - set(tmp_before)) if "rtwb" in n.lower() and n not in claimed]
        if new_tmp:
            unattributed.append("/tmp has new rtwb entries: %s" % new_tmp[:8])
        home_new = [f for f in home_files if "rtwb-e02" not in f and not f.startswith(
            (".mpl", ".cache", ".config", ".local", ".jupyter", ".ipython"))]
        if home_new:
            unattributed.append("the grader's HOME has new files: %s" % home_new[:8])
        etc_changed = sorted(p for p in set(etc_before) | set(etc_after) if etc_before.get(p) != etc_after.get(p))
        if etc_changed:
            unattributed.append("/etc changed: %s" % etc_changed[:8])
        if leftover:
            unattributed.append("marked processes still running after grading (killed): %s" % leftover[:5])

        # ---------------------------------------------------------- print
        print()
        for nbk in sorted(batches, reverse=True):
            print("controls %s: %s%s" % (nbk, controls_line[nbk], "; " + control_lost[nbk] if nbk in control_lost else ""))
        print("host: disk peak +%.0f MB (/ used), inodes peak +%d, memory peak +%.0f MB used, Shmem peak %.0f MB "
              "(limits per kernel: --disk-mb %d, --memory-mb %d); %d samples" % (
                  sampler.disk_peak["/ MB"] - sampler.disk0["/ MB"],
                  sampler.disk_peak["/ inodes"] - sampler.disk0["/ inodes"], sampler.mem_peak["used_mb"],
                  sampler.mem_peak["shmem_mb"], DISK_MB, MEMORY_MB, sampler.samples))
        if unattributed:
            print("not attributed to an attack:")
            for line in unattributed:
                print("  " + line)
        w = max(len(r["attack"]) for r in rows) if rows else 10
        print("%-*s  %-13s  %-9s  %s" % (w, "attack", "class", "result", "evidence"))
        print("-" * (w + 90))
        for r in rows:
            print("%-*s  %-13s  %-9s  %s" % (w, r["attack"], r["class"], r["result"], r["evidence"]))
        n_esc = sum(r["result"] == "ESCAPED" for r in rows)
        n_not_run = sum(r["result"] == "NOT RUN" for r in rows)
        with open(os.path.join(out_root, "verdicts.json"), "w") as f:
            json.dump(rows, f, indent=1, ensure_ascii=False)
        with open(os.path.join(out_root, "host-samples.json"), "w") as f:
            json.dump({"disk0": sampler.disk0, "disk_peak": sampler.disk_peak, "mem0": sampler.mem0,
                       "mem_peak": sampler.mem_peak, "attack_disk_rise_mb": sampler.attack_disk,
                       "attack_mem_rise_mb": sampler.attack_mem, "worker_mb": sampler.worker_growth,
                       "held": sampler.held, "fifo": sampler.fifo_rescued, "sysctl_flips": sampler.sysctl_changes, "hits": hits,
                       "sysctl_changed": sysctl_changed, "ipc_new": [list(k) for k in ipc_new],
                       "keys_new": keys_new, "markers": markers, "unattributed": unattributed,
                       "results_files": {n: sampler.results_of(n) for n in sampler.results_by_kernel},
                       "kernels": {n: [list(k) for k in v] for n, v in sampler.instances.items()},
                       "kernel_cpu": {n: sampler.cpu_of(n) for n in sampler.instances},
                       "redirect_socket": redirect.connections, "redirect_socket_r02": redirect_r02.connections,
                       "browser": {p: list(v) for p, v in browser.items()}}, f, indent=1, default=str)
        print()
        print("escaped: %d of %d%s  (%.0f s in all)" % (n_esc, len(rows), "; NOT RUN (no proof their code ran): %d" % n_not_run
                                                        if n_not_run else "", time.time() - t_start))
        return 0
    finally:
        sampler.stop_event.set()
        restored += restore(sysctl_before, volatile, cfg)
        keyring.cleanup()
        server.shutdown()
        if vsock is not None:
            vsock.close()
        redirect.close()
        redirect_r02.close()
        if restored:
            ipc = [x for x in restored if x.startswith("IPC ")]
            rest = [x for x in restored if not x.startswith("IPC ")]
            log("put back: %s%s" % ("%d System V objects of the attacks; " % len(ipc) if ipc else "", "; ".join(rest)))


def locals_for_specific(scope):
    """What the attack-specific checks read (a dict, so that specific() stays readable)."""
    keys = ("sampler", "redirect", "redirect_r02", "grader_memory_mb", "sysctl_changed", "ipc_new", "vm_before",
            "vm_after", "cg_new", "keys_new", "markers",
            "mq_left", "canary_changed", "home_files", "root_after", "root_before", "fp", "report_md", "results",
            "rows_csv", "lms_rows", "control_lost", "report_x05", "nbk", "hits", "tokens", "cfg", "owner_of", "leftover")
    return {k: scope[k] for k in keys if k in scope}


def specific(name, stem, r, rres, text, ev, info, s):
    """The evidence only one attack can leave."""
    sampler = s["sampler"]
    flips = [(k, v) for t, k, v, act in sampler.sysctl_changes if name in act or not act]
    if name.startswith("a01"):
        if s["markers"].get("a01_core_pattern"):
            ev.append("the core_pattern helper ran on the host: %s" % s["markers"]["a01_core_pattern"][:120])
        for k, v in flips:
            if k == "kernel/core_pattern":
                ev.append("kernel.core_pattern was %r for a while" % v[:80])
                break
        if "kernel/core_pattern" in s["sysctl_changed"]:
            ev.append("kernel.core_pattern changed after the batch")
    elif name.startswith("a02"):
        for k, v in flips:
            if k in ("kernel/hostname", "kernel/domainname"):
                ev.append("the host's %s was %r for a while" % (k.split("/")[1], v))
        if rres.get("sethostname", "").startswith("0"):
            ev.append("sethostname(2) worked")
    elif name.startswith("a03"):
        for k, v in flips:
            if k == "kernel/printk_ratelimit":
                ev.append("the host's kernel.printk_ratelimit was %s for a while" % v)
                break
        if rres.get("sysctl_writable", "0").split()[0] not in ("0", ""):
            info.append("host sysctls it could open for writing: %s" % rres["sysctl_writable"])
            if ev:
                ev.append("%s sysctls outside net.* open for writing" % rres["sysctl_writable"])
    elif name.startswith("a04"):
        up = {k: s["vm_after"].get(k, 0) - s["vm_before"].get(k, 0) for k in s["vm_after"]}
        if up.get("drop_pagecache", 0) > 0:
            ev.append("the host's page cache was dropped (/proc/vmstat drop_pagecache +%d)" % up["drop_pagecache"])
    elif name.startswith("a05"):
        if s["cg_new"]:
            ev.append("cgroup made on the host: %s" % ", ".join(s["cg_new"][:3]))
        forked = rres.get("forked", "0").strip()
        if forked.isdigit() and int(forked) > PROCESSES + 1:
            ev.append("started %s processes (--processes %d) after writing pids.max=%s" % (
                rres["forked"], PROCESSES, rres.get("pids_max_after", "?")))
    elif name.startswith("a06"):
        for desc in s["keys_new"].values():
            if "rtwb-a06" in desc:
                ev.append("a key it added is in the runner's session keyring: %s" % desc)
        if s["tokens"]["KEY"] in text and not any("keyring canary" in e for e in ev):
            ev.append("feedback shows the keyring canary token")
    elif name.startswith("a07"):
        for k in ("perf_event_cpu_wide", "bpf_prog_load"):
            if rres.get(k, "").startswith("ok"):
                ev.append("%s worked inside the sandbox" % k)
        if rres.get("open_sysrq-trigger", "").startswith("OPENED"):
            ev.append("/proc/sysrq-trigger opened for writing (never written)")
    elif name.startswith("b01"):
        left = [k for k in s["ipc_new"] if k[1] >> 8 == 0x5257B0]
        if left:
            ev.append("its System V objects are still on the host: %s" % ", ".join("%s %#x" % (k[0], k[1]) for k in left))
        if s["mq_left"]:
            ev.append("its POSIX message queue /rtwb-b01 is still on the host")
    elif name.startswith("b02"):
        if s["tokens"]["IPC"] in text and not any("IPC canary" in e for e in ev):
            ev.append("feedback shows the IPC canary token")
        if any("IPC canary" in e for e in ev):
            ev.append("read from another kernel: %s" % ", ".join(k for k in rres if k.startswith("read_")))
    elif name.startswith("b04"):
        left = [(k, v) for k, v in s["ipc_new"].items() if k[1] >> 8 == 0x5257C0 or k[1] >> 8 == 0x5257C1]
        shm = sum(int(v.get("size", 0)) for k, v in left if k[0] == "shm")
        if left:
            ev.append("%d System V objects (%d MB of shared memory) still on the host after the batch" % (
                len(left), shm >> 20))
    elif name.startswith("c01"):
        held = sampler.held.get(name, {}).get("deleted", 0)
        if held > DISK_MB << 20:
            ev.append("its kernel held %.0f MB of deleted files (--disk-mb %d); not stopped for disk" % (held / 2 ** 20, DISK_MB))
        info.append("host disk rise while it ran: %.0f MB" % sampler.attack_disk.get(name, 0))
    elif name.startswith("c02"):
        n = rres.get("directories", "0").strip()
        if n.isdigit() and int(n) >= 100000 and "disk" not in (r.get("reason") or ""):
            ev.append("%s directories made (~%d MB of blocks), not stopped for disk (--disk-mb %d)" % (
                n, int(n) * 4 // 1024, DISK_MB))
    elif name.startswith("c03"):
        held = sampler.held.get(name, {}).get("memfd", 0)
        if held > KERNEL_MEMORY_MB << 20:
            ev.append("its kernel held %.0f MB in memfds, more than all a kernel may hold (--memory-mb %d + --disk-mb "
                      "%d + 2 x --tmp-mb %d = %d MB)" % (held / 2 ** 20, MEMORY_MB, DISK_MB, TMP_MB, KERNEL_MEMORY_MB))
        elif held:
            info.append("its kernel held %.0f MB in memfds at most (a kernel may hold %d MB in all)" % (
                held / 2 ** 20, KERNEL_MEMORY_MB))
        info.append("host memory rise while it ran: %.0f MB" % sampler.attack_mem.get(name, 0))
    elif name.startswith("c04"):  # one kernel's tree (a replay's second kernel is r01's)
        per = sampler.cpu.get(name, {})
        kernel = max(per, key=lambda k: sum(per[k].values()), default=None)
        total = sum(per[kernel].values()) if kernel else 0.0
        if total > CPU + 2:
            ev.append("its kernel and its %d children used %.1f CPU seconds in all (--cpu-seconds %d, per process)" % (
                len(per[kernel]) - 1, total, CPU))
    elif name.startswith(("d02", "d03", "d05", "d07", "d08", "k01")):
        base, peak = sampler.worker_growth.get(name, (0, 0))
        if peak - base > WORKER_GROWTH_MB:
            ev.append("its grading worker grew from %.0f to %.0f MB (RSS, or its peak VmHWM; the worker's limit: "
                      "grade.WORKER_DATA_MB of private memory, here also --grader-memory-mb %d of address space)%s" % (
                          base, peak, s["grader_memory_mb"], "" if "of output allowed" in (r.get("reason") or "")
                          else "; its kernel was not stopped for output"))
        elif peak:
            info.append("its worker: %.0f -> %.0f MB" % (base, peak))
    if name.startswith("e01") and s["cfg"]["canary_existing"] in s["canary_changed"]:
        ev.append("the scratch canary was %s by the grader" % s["canary_changed"][s["cfg"]["canary_existing"]]
                  + ": %r" % (read(s["cfg"]["canary_existing"], 60) or "")[:40])
    if name.startswith("e02"):
        made = [n for n in s["root_after"] if n.startswith("rtwb-e02")] + \
            ["HOME/" + n for n in s["home_files"] if "rtwb-e02" in n]
        if made:
            ev.append("the grader wrote %s" % ", ".join("/root/" + m if not m.startswith("HOME") else m for m in made[:3]))
    if name.startswith("e03"):
        said = sampler.fifo_rescued.get(name)
        if said and "stuck" in said:
            ev.append(said)
    if name.startswith("e04") and s["cfg"]["canary_existing_e04"] in s["canary_changed"]:
        ev.append("the scratch canary was %s" % s["canary_changed"][s["cfg"]["canary_existing_e04"]])
    if name.startswith("h"):
        found = hidden_found(text, s["fp"])
        res = json.dumps(s["results"].get((s["nbk"], stem), {}), ensure_ascii=False)
        found_res = hidden_found(res, s["fp"])
        if found:
            ev.append("feedback shows the hidden cases' %s" % ", ".join(found[:6]) + (
                " (+%d more)" % (len(found) - 6) if len(found) > 6 else ""))
        if found_res:
            ev.append("results.json shows %s" % ", ".join(found_res[:4]))
    if name.startswith(("h05", "h07", "h09", "h10")):
        res = json.dumps(s["results"].get((s["nbk"], stem), {}), ensure_ascii=False)
        for label, where in (("its page", text), ("results.json", res), ("report.md", s["report_md"])):
            got = values_matching(type_name_values(where), s["fp"])
            if len(got) >= 2:
                ev.append("%s spells %d hidden input values in RTWBv... names (%s: %s)" % (
                    label, len(got), {"h05": "exception types", "h07": "exception types", "h09": "the type of what it "
                                      "returned", "h10": "a reply key that breaks out of its quotes"}[name[:3]],
                    ", ".join("%g" % v for v in got[:4])))
    if name.startswith("h08"):
        res = s["results"].get((s["nbk"], stem)) or {}
        plain = re.sub(r"<[^>]+>", "", text)
        for label, names in (("its page", {ex: m for ex, m in re.findall(r"\u2718 (\w+): raised (\w+)", plain)}),
                             ("results.json", {ex: m.group(1) for ex in build_attacks.H08_EXERCISES for m in [re.search(
                                 r"raised (\w+)", (res.get("failures") or {}).get("check_" + ex, ""))] if m})):
            values = h08_values(names)
            got = values_matching(values, s["fp"], 0.6 / build_attacks.H08_SCALE)
            info.append("%s: %d of the 8 hidden verdicts name a type of the code (decoded %s)" % (
                label, sum(ex in names for ex in build_attacks.H08_EXERCISES), ", ".join("%g" % v for v in values) or "-"))
            if len(got) >= 2:
                ev.append("%s: which of Python's own exception types its hidden verdicts name spells %d hidden input "
                          "values (%s, to 4 decimals)" % (label, len(got), ", ".join("%g" % v for v in got[:4])))
    if name.startswith("r01"):
        per = sampler.cpu_of(name)
        if len(per) > 1 and sum(per) > CPU + 2:
            ev.append("its %d kernels used %.1f CPU seconds in all (%s; --cpu-seconds %d): the replay's kernel had a "
                      "CPU budget of its own" % (len(per), sum(per), " + ".join("%.1f" % c for c in per), CPU))
        elif per:
            info.append("CPU seconds per kernel: %s" % " + ".join("%.1f" % c for c in per))
    if name.startswith(("r01", "r02")):
        said = [k for source in sampler.results_of(name)[1:] for k, _ in re.findall(RESULT_LINE, source)]
        if any("_replay" in k for k in said):
            info.append("the replay's kernel told itself apart (no check had called into it): %s" % ", ".join(
                sorted({k for k in said if "_replay" in k})[:3]))
    if name.startswith("r02"):
        if s["redirect_r02"].connections:
            c = s["redirect_r02"].connections[0]
            ev.append("the runner's second Unix socket, named only by the symlinks its watcher puts in sockets/, was "
                      "connected to %d time(s) (uid %s, %s)" % (len(s["redirect_r02"].connections), c["uid"],
                                                                 c["cmd"][:60] or "?"))
        planted = rres.get("r02_planted", "")
        if planted[:1].isdigit() and int(planted.split()[0]) > 0:
            ev.append("its watcher replaced files in the grader's sockets/ folder: %s" % planted)
        alive = [float(v.split()[0]) for source in sampler.results_of(name)[:1]  # the first kernel's watcher
                 for k, v in re.findall(RESULT_LINE, source) if k == "r02_watcher_alive"]
        exits = [float(rres[k]) for k in rres if k.startswith("r02_exit")]
        if alive and exits and max(alive) > min(exits) + 2:
            ev.append("its watcher was alive %.1f s after its kernel called os._exit" % (max(alive) - min(exits)))
    if name.startswith("h07"):
        counts = [int(n) for n in re.findall(r"In\s*\[(\d+)\]", text)]
        got = sorted({v for v in (float(x) for x in s["fp"]["values"]) for n in counts
                      if n == round(abs(v) * 1e6)})
        if len(got) >= 2:
            ev.append("the prompts (In [N]) of cells after the first hidden case spell %d hidden input values "
                      "(%s, as |value| * 1e6)" % (len(got), ", ".join("%g" % v for v in got[:4])))
        code = presence_bits(text, "rtwb-h07-bit-", H07_BIT_ON)
        if code is not None:
            hit = [v for v in (float(x) for x in s["fp"]["values"]) if round(abs(v) * 1e4) & 0xFFFFF == code]
            info.append("bit cells that print spell %d" % code)
            if hit:
                ev.append("which of its 20 extra cells print spells the hidden input value %g (|value| * 1e4 = %d)" % (
                    hit[0], code))
    if name.startswith("d06") and rres.get("d06_sent_mb") and "of output allowed" not in (r.get("reason") or ""):
        ev.append("it printed %s MB in 384 messages (more than the 64 MB output allowance; fewer than zmq drops) and "
                      "its kernel was not stopped for output (reason: %r)" % (rres["d06_sent_mb"], (r.get("reason") or "")[:80]))
    if name.startswith("e05"):
        if s["redirect"].connections:
            c = s["redirect"].connections[0]
            ev.append("the runner's Unix socket, named only by the symlink its kernel put in the grader's sockets/ "
                      "folder, was connected to %d time(s) (uid %s, %s; first bytes %s)" % (
                          len(s["redirect"].connections), c["uid"], c["cmd"][:60] or "?", c["first_bytes"][:20]))
        if rres.get("hb_replaced", "").startswith("ok"):
            ev.append("it replaced its heartbeat socket file in the grader's sockets/ folder after its kernel was ready "
                      "(the folder was not closed to it)")
    if name.startswith("s01"):
        for abi in ("i386", "x32"):
            if rres.get("unshare_" + abi, "").startswith("ok"):
                ev.append("unshare(CLONE_NEWUSER) returned 0 through the %s system-call ABI (the filter denies it "
                          "natively)" % abi)
        if "Address already in use" in rres.get("vsock_held", ""):
            ev.append("AF_VSOCK: the vsock port the runner holds on the host is in use from inside the jail (%s; a free "
                      "port: %s): the network namespace does not separate vsock, which reaches the hypervisor's host" % (
                          rres["vsock_held"], rres.get("vsock_free", "?")))
    if name.startswith("h0") or name.startswith("x05"):
        failures = " ".join((s["results"].get((s["nbk"], stem)) or {}).get("failures", {}).values())
        in_report = [line for line in s["report_md"].splitlines() if any(
            f[:60] and f[:60] in line for f in (s["results"].get((s["nbk"], stem)) or {}).get("failures", {}).values())]
        rep = "\n".join(in_report)
        if name.startswith("h0"):
            fr = hidden_found(rep, s["fp"])
            if fr:
                ev.append("report.md shows %s" % ", ".join(fr[:4]))
        else:
            # the issue: "a student's exception text is quoted as data": its text may appear inside the grader's
            # quotation marks, never as the verdict itself (outside them, or as a pass)
            if "RTWB-FAKE" in unquoted(failures) or any(f.startswith("\u2714") for f in (s["results"].get(
                    (s["nbk"], stem)) or {}).get("failures", {}).values()):
                ev.append("its own text is the verdict in results.json: %r" % failures[:80])
            for label, md in (("report.md", s["report_md"]), ("report.md of a class of x05 alone", s["report_x05"])):
                lines = "\n".join(line for line in md.splitlines() if "RTWB-FAKE" in line or "RTWB-x05" in line)
                if re.search("[\x1b\x07]", lines):
                    ev.append("%s carries its terminal escapes (ESC/BEL)" % label)
                if re.search(r"<(img|b)\b", lines):
                    ev.append("%s carries its raw HTML" % label)
                if "RTWB-FAKE" in unquoted(lines) and not re.search("[\x1b\x07]", lines):
                    ev.append("%s shows its forged verdict" % label)
    if name.startswith("x04"):
        bad = [row[0] for rows in s["rows_csv"].values() for row in rows if row and row[0][:1] in "=+-@\t\r"]
        bad_lms = [row[0] for row in s["lms_rows"] if row and row[0][:1] in "=+-@\t\r"]
        if bad:
            ev.append("grades.csv cells start with a formula character: %s" % ", ".join(repr(b) for b in bad[:3]))
        if bad_lms:
            ev.append("lms_grades.csv too: %d rows" % len(bad_lms))
    if name.startswith(("x01", "x02", "x03", "x05", "x06")):
        tag = name.split("_")[0]
        got = sorted({h.split("/hit/")[1].split("?")[0] for h in s["hits"] if "/hit/%s-" % tag in h})
        if got:
            ev.append("pages fetched the runner's URL for: %s" % ", ".join(got[:6]))
    if name.startswith("k") and s["control_lost"].get(s["nbk"]):
        ev.append(s["control_lost"][s["nbk"]])
    reason = r.get("reason") or ""
    if r.get("status") == "error" and (not reason or UNREADABLE.search(reason)) and not name.startswith("x04"):
        ev.append("the grader's reason for its 0 is not readable: %r" % reason[:100])
    if name in [v for v in s["owner_of"].values()] and s["leftover"]:
        mine = [p for p in s["leftover"] if name.split("_")[0] in p[1]]
        if mine:
            ev.append("%d of its processes still ran after grading" % len(mine))


def marked_processes():
    """Processes an attack started that outlived grading (RTWB_MARK in their environment); killed."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        env = read("/proc/%s/environ" % pid, 1 << 16) or ""
        m = re.search(r"RTWB_MARK=(\w+)", env)
        if m:
            found.append((int(pid), m.group(1)))
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass
    return found


def restore(sysctl_before, volatile, cfg):
    """Put back what the attacks changed on the host. Returns what was put back."""
    done = []
    now = sysctl_snapshot()
    for k, old in sysctl_before.items():
        if k in volatile or now.get(k) == old:
            continue
        try:
            write_sysctl(k, old)
            done.append("sysctl %s" % k)
        except OSError as err:
            done.append("sysctl %s NOT put back (%s)" % (k, err))
    for (kind, key, ident) in sysvipc():
        if key >> 16 == RTWB_KEY_PREFIX:
            remove_ipc(kind, ident)
            done.append("IPC %s %#x" % (kind, key))
    if mq_exists("/rtwb-b01"):
        mq_unlink("/rtwb-b01")
        done.append("POSIX mq /rtwb-b01")
    for d in cgroup_dirs():
        try:
            os.rmdir(d)
            done.append("cgroup %s" % d)
        except OSError as err:
            done.append("cgroup %s NOT removed (%s)" % (d, err))
    for p in glob.glob("/root/rtwb-*"):
        try:
            os.remove(p)
            done.append(p)
        except OSError:
            pass
    return done


def grader_env(repo, work, python):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "RTWB_VIEW", "RTWB_OUT")}
    env.update({"PYTHONPATH": repo, "PATH": os.path.dirname(python) + ":" + env.get("PATH", "/usr/bin:/bin"),
                "HF_HUB_OFFLINE": "1", "HOME": os.path.join(work, "home"), "TMPDIR": os.path.join(work, "gtmp"),
                "COURSE_CACHE_DIR": os.path.join(work, "course-cache"), "MPLCONFIGDIR": os.path.join(work, "home", ".mpl")})
    return env


def as_grader(args, repo, work, account, python_args, timeout=300):
    cmd = [args.python, *python_args]
    env = grader_env(repo, work, args.python)
    if account:
        env.update({"USER": account.pw_name, "LOGNAME": account.pw_name})
        cmd = ["setpriv", "--reuid", str(account.pw_uid), "--regid", str(account.pw_gid), "--clear-groups", "--"] + cmd
    proc = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        log("%s failed (%d): %s" % (" ".join(python_args[:3]), proc.returncode, proc.stderr[-600:]))
    return proc


def grade_batch(args, repo, work, nbk, out, account):
    subs = os.path.join(work, "subs" + nbk)
    cmd = [args.python, "-m", "autograder", "grade", nbk, subs, "--out", out, "--jobs", args.jobs,
           "--timeout", str(TIMEOUT), "--wall-seconds", str(WALL), "--cpu-seconds", str(CPU),
           "--processes", str(PROCESSES), "--disk-mb", str(DISK_MB), "--memory-mb", str(MEMORY_MB)]
    env = grader_env(repo, work, args.python)
    if account:
        env.update({"USER": account.pw_name, "LOGNAME": account.pw_name})
        cmd = ["setpriv", "--reuid", str(account.pw_uid), "--regid", str(account.pw_gid), "--clear-groups", "--"] + cmd
    limit = args.grader_memory_mb << 20

    def cap():
        if limit:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    n = len(glob.glob(os.path.join(subs, "*.ipynb")))
    log("grading %s: %d submissions%s" % (NAMES[nbk], n, " as " + account.pw_name if account else " as root"))
    t0 = time.time()
    with open(os.path.join(work, "grader-%s.log" % nbk), "w") as logf:
        proc = subprocess.Popen(cmd, cwd=repo, env=env, stdout=logf, stderr=subprocess.STDOUT, start_new_session=True,
                                preexec_fn=cap)
        timed_out = False
        try:
            proc.wait(timeout=BATCH_BOUND_S)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    seconds = time.time() - t0
    log("  %s: exit %s after %.0f s" % (NAMES[nbk], proc.returncode, seconds))
    return {"seconds": seconds, "timed_out": timed_out, "rc": proc.returncode}


if __name__ == "__main__":
    sys.exit(main())
