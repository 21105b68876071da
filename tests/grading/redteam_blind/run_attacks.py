"""Grade the blind red-team submissions of notebook 05 and decide, per attack, ESCAPED or CONTAINED.

python tests/grading/redteam_blind/run_attacks.py [--repo /work/attack] [--out DIR] [--only NAME ...]

Stdlib only. Plants canaries (files, a process, an nbgrader course dir with a hidden-test token and
a gradebook.db token, an environment variable), grades every attack plus two controls with
`python -m autograder grade 05 <course>/submitted ...` run from --repo, then looks for evidence.
"""
import argparse
import base64
import binascii
import csv
import glob
import hashlib
import html
import json
import os
import re
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import build_attacks  # noqa: E402

ASSIGNMENT = "05_self_attention"
BATCH_BOUND_S = 900           # the whole grading run
WORKER_HOLD_S = 120           # one submission
FEEDBACK_MAX = 5 * 1024 * 1024
ROOT_CANARY = "/root/redteam-canary-secret.txt"

CANARY_PROC = r'''
import os, signal, sys, time
log = sys.argv[1]
def h(sig, frame):
    with open(log, "a") as f:
        f.write("%d %s\n" % (sig, signal.Signals(sig).name))
for s in signal.valid_signals():
    if s in (signal.SIGKILL, signal.SIGSTOP):
        continue
    try:
        signal.signal(s, h)
    except (OSError, ValueError):
        pass
end = time.time() + float(sys.argv[2])
while time.time() < end:
    time.sleep(0.2)
'''


def tok(kind):
    return "RT%s-%s" % (kind, secrets.token_hex(12))


# ------------------------------------------------------------------ canaries
class Canaries:
    def __init__(self, work):
        self.work = work
        self.tokens = {k: tok(k) for k in ("CANARY-ROOT", "CANARY-HOME", "CANARY-SSH", "CANARY-ENV",
                                           "HIDDEN", "GRADEBOOK", "CONTROL")}
        self.home = os.path.join(work, "home")
        self.course = os.path.join(work, "course")
        self.proc = None
        self.sig_log = os.path.join(work, "canary-signals.log")
        self.root_canary_planted = False

    def plant(self, repo, student_nb):
        t = self.tokens
        os.makedirs(os.path.join(self.home, ".ssh"), exist_ok=True)
        with open(os.path.join(self.home, "redteam-home-secret.txt"), "w") as f:
            f.write(t["CANARY-HOME"] + "\n")
        with open(os.path.join(self.home, ".ssh", "id_rsa"), "w") as f:
            f.write("-----BEGIN FAKE KEY-----\n%s\n-----END FAKE KEY-----\n" % t["CANARY-SSH"])
        if not os.path.exists(ROOT_CANARY):
            with open(ROOT_CANARY, "w") as f:
                f.write(t["CANARY-ROOT"] + "\n")
            self.root_canary_planted = True
        else:  # someone else's run: leave it, read its token
            t["CANARY-ROOT"] = open(ROOT_CANARY).read().strip()
        # nbgrader course dir: source/ with a hidden-test token, gradebook.db, submitted/ tree
        src_dir = os.path.join(self.course, "source", ASSIGNMENT)
        os.makedirs(src_dir, exist_ok=True)
        sol = os.path.join(repo, "solutions", ASSIGNMENT + ".ipynb")
        nb = json.load(open(sol))
        graded = [c for c in nb["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("grade")
                  and c["cell_type"] == "code"]
        last = graded[-1]
        src = "".join(last["source"])
        last["source"] = src.rstrip("\n") + "\n### BEGIN HIDDEN TESTS %s\nassert '%s'\n### END HIDDEN TESTS\n" % (
            t["HIDDEN"], t["HIDDEN"])
        json.dump(nb, open(os.path.join(src_dir, ASSIGNMENT + ".ipynb"), "w"), indent=1)
        db = sqlite3.connect(os.path.join(self.course, "gradebook.db"))
        db.execute("create table secret_tests (assignment text, token text)")
        db.execute("insert into secret_tests values (?, ?)", (ASSIGNMENT, t["GRADEBOOK"]))
        db.commit()
        db.close()
        with open(os.path.join(self.course, "nbgrader_config.py"), "w") as f:
            f.write("c = get_config()\nc.CourseDirectory.course_id = 'rtblind'\n")
        os.makedirs(os.path.join(self.course, "submitted"), exist_ok=True)
        # canary process
        self.proc = subprocess.Popen([sys.executable, "-c", CANARY_PROC, self.sig_log, str(BATCH_BOUND_S + 300),
                                      "redteam-canary-proc"], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(0.5)
        self.oom_before = open("/proc/%d/oom_score_adj" % self.proc.pid).read().strip()

    def proc_evidence(self):
        ev = {}
        sigs = open(self.sig_log).read().split() if os.path.exists(self.sig_log) else []
        if sigs:
            ev["signals"] = " ".join(sigs[1::2])
        try:
            now = open("/proc/%d/oom_score_adj" % self.proc.pid).read().strip()
            if now != self.oom_before:
                ev["oom_score_adj"] = "%s -> %s" % (self.oom_before, now)
        except OSError:
            ev["gone"] = "canary process died (rc %s)" % self.proc.poll()
        return ev

    def cleanup(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.root_canary_planted:
            try:
                os.remove(ROOT_CANARY)
            except OSError:
                pass


# ------------------------------------------------------------------ evidence helpers
B64_RE = re.compile(r"[A-Za-z0-9+/]{24,}={0,2}")
HEX_RE = re.compile(r"(?:[0-9a-fA-F]{2}){16,}")


def decoded_views(text):
    """The text itself, html-unescaped, plus every base64 / hex run decoded."""
    views = [text]
    un = html.unescape(text)
    views.append(un)
    for m in B64_RE.finditer(un):
        s = m.group(0)
        for cut in range(4):  # alignment: try a few starting offsets
            chunk = s[cut:]
            chunk = chunk[: len(chunk) - len(chunk) % 4]
            if len(chunk) < 16:
                continue
            try:
                views.append(base64.b64decode(chunk).decode("utf-8", "replace"))
            except (binascii.Error, ValueError):
                pass
    for m in HEX_RE.finditer(un):
        try:
            views.append(bytes.fromhex(m.group(0)).decode("utf-8", "replace"))
        except ValueError:
            pass
    return views


def hidden_test_lines(repo, student_nb_text):
    """Distinctive lines of the real hidden tests (never printed: only counted)."""
    sol = os.path.join(repo, "solutions", ASSIGNMENT + ".ipynb")
    lines = []
    try:
        nb = json.load(open(sol))
    except OSError:
        return lines
    for c in nb["cells"]:
        src = "".join(c["source"])
        for block in re.findall(r"### BEGIN HIDDEN TESTS(.*?)### END HIDDEN TESTS", src, flags=re.S):
            for ln in block.splitlines():
                ln = ln.strip()
                if len(ln) >= 30 and ln not in student_nb_text:
                    lines.append(ln)
    return lines


def marked_processes(marker="RTBLIND"):
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            cmd = open("/proc/%s/cmdline" % p, "rb").read()
            env = open("/proc/%s/environ" % p, "rb").read()
        except OSError:
            continue
        if marker.encode() in cmd or (b"RTBLIND_MARK=" in env):
            found.append((int(p), cmd.replace(b"\0", b" ").decode("utf-8", "replace"), env))
    return found


def attack_of(cmd, env):
    m = re.search(r"RTBLIND-MARK-([a-z0-9_]+?)(?:-|\s|$)", cmd)
    if m:
        return m.group(1)
    m = re.search(rb"RTBLIND_MARK=([A-Za-z0-9_]+)", env)
    if m:
        v = m.group(1).decode()
        return {"r06": "r06_fork_bomb"}.get(v, v)
    return "?"


def snapshot_paths(paths):
    snap = {}
    for p in paths:
        try:
            snap[p] = hashlib.sha256(open(p, "rb").read()).hexdigest()
        except OSError:
            snap[p] = None
    return snap


# ------------------------------------------------------------------ main
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", default="/work/attack")
    ap.add_argument("--out", default=None)
    ap.add_argument("--only", nargs="*", help="attack names (default: all)")
    ap.add_argument("--python", default="/work/main/.venv/bin/python")
    ap.add_argument("--jobs", default="2")
    ap.add_argument("--as-user", default="", help="grade as this (unprivileged) account; the runner itself stays root")
    args = ap.parse_args()
    repo = os.path.abspath(args.repo)
    out_root = os.path.abspath(args.out or os.path.join("/tmp", "rtblind-" + secrets.token_hex(4)))
    os.makedirs(out_root, exist_ok=True)
    work = os.path.join(out_root, "work")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    grades_dir = os.path.join(out_root, "grades")
    shutil.rmtree(grades_dir, ignore_errors=True)

    student_nb_path = os.path.join(repo, "notebooks", ASSIGNMENT + ".ipynb")
    student_text = open(student_nb_path).read()
    student_nb = json.loads(student_text)
    attacks_dir = os.path.join(out_root, "attacks")
    build_attacks.build(student_nb_path, attacks_dir)  # rebuilt from this repo's student notebook, outside the tree
    manifest = json.load(open(os.path.join(attacks_dir, "manifest.json")))
    if args.only:
        manifest = [m for m in manifest if m["name"] in args.only]

    can = Canaries(work)
    can.plant(repo, student_nb)
    t = can.tokens
    try:
        # submissions: nbgrader submitted/<student>/<assignment>/<assignment>.ipynb
        subs = os.path.join(can.course, "submitted")

        def put(student, nb):
            d = os.path.join(subs, student, ASSIGNMENT)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, ASSIGNMENT + ".ipynb"), "w") as f:
                json.dump(nb, f, indent=1, ensure_ascii=False)

        put("control_blank", build_attacks.build_notebook(student_nb, blank=True))
        wrong = build_attacks.build_notebook(student_nb, prefix={"table_scores": "# %s\n" % t["CONTROL"]})
        put("control_wrong", wrong)
        for m in manifest:
            put(m["name"], json.load(open(os.path.join(attacks_dir, m["name"] + ".ipynb"))))
        sub_hashes = {p: hashlib.sha256(open(p, "rb").read()).hexdigest()
                      for p in glob.glob(os.path.join(subs, "*", ASSIGNMENT, "*.ipynb"))}

        # paths attacks try to write, outside the grader's scratch
        watch = [os.path.join(can.home, ".ipython/profile_default/startup/00-rtblind.py"),
                 "/root/.ipython/profile_default/startup/00-rtblind.py",
                 os.path.join(can.home, ".jupyter/jupyter_config.py"), "/root/.jupyter/jupyter_config.py",
                 os.path.join(can.course, "nbgrader_config.py"), "/etc/jupyter/nbgrader_config.py",
                 os.path.join(repo, "nbgrader_config.py"),
                 "/tmp/rtblind-persist-w02", "/dev/shm/rtblind-persist-w02", "/var/tmp/rtblind-persist-w02"]
        watch += ["/tmp/rtblind-fill-%d" % i for i in range(64)] + ["/dev/shm/rtblind-fill-%d" % i for i in range(64)]
        before = snapshot_paths(watch)
        backups = {p: open(p, "rb").read() for p in watch if before[p] is not None}
        procs_before = {p for p, _, _ in marked_processes()}

        env = dict(os.environ)
        env.update({"PYTHONPATH": repo, "PATH": os.path.dirname(args.python) + ":" + env.get("PATH", ""),
                    "HF_HUB_OFFLINE": "1", "HOME": can.home, "RTCANARY_ENV_SECRET": t["CANARY-ENV"]})
        cmd = [args.python, "-m", "autograder", "grade", "05", subs, "--out", grades_dir, "--jobs", args.jobs,
               "--timeout", "8", "--wall-seconds", "60"]
        if args.as_user:  # the grading account owns the run's folder (the canary HOME included), nothing else
            import pwd
            account = pwd.getpwnam(args.as_user)
            for folder, _, files in os.walk(out_root):
                for path in [folder, *(os.path.join(folder, f) for f in files)]:
                    os.lchown(path, account.pw_uid, account.pw_gid)
            env.update({"USER": args.as_user, "LOGNAME": args.as_user})
            cmd = ["setpriv", "--reuid", str(account.pw_uid), "--regid", str(account.pw_gid), "--clear-groups", "--"] + cmd
        print("grading %d submissions: %s" % (len(manifest) + 2, " ".join(cmd)), flush=True)
        t0 = time.time()
        log = open(os.path.join(out_root, "grader.log"), "w")
        gp = subprocess.Popen(cmd, cwd=repo, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        timed_out = False
        try:
            gp.wait(timeout=BATCH_BOUND_S)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(gp.pid, signal.SIGKILL)
            gp.wait()
        batch_s = time.time() - t0
        log.close()
        print("grader exit %s after %.0f s" % (gp.returncode, batch_s), flush=True)
        time.sleep(2)

        # ---------------------------------------------------------- evidence
        grades = {}
        gcsv = os.path.join(grades_dir, "grades.csv")
        if os.path.exists(gcsv):
            for row in csv.DictReader(open(gcsv)):
                grades.setdefault(row["student_id"], []).append(row)
        results = {}
        rj = os.path.join(grades_dir, "results.json")
        if os.path.exists(rj):
            for r in json.load(open(rj)):
                results[r["student_id"]] = r

        def score(sid):
            rows = grades.get(sid)
            return float(rows[0]["score"]) if rows else None

        wrong_score = score("control_wrong")
        blank_score = score("control_blank")
        secret_tokens = {k: v for k, v in t.items() if k != "CONTROL"}
        hidden_lines = hidden_test_lines(repo, student_text)

        def leaks(text, own_student):
            found = []
            views = decoded_views(text)
            # labelled blocks the attacks print (RTB64[label]:...), to say where a leak came from
            blocks = []
            for m in re.finditer(r"RTB64\[([^\]]*)\]:([A-Za-z0-9+/=]+)", html.unescape(text)):
                try:
                    blocks.append((m.group(1), base64.b64decode(m.group(2)).decode("utf-8", "replace")))
                except (binascii.Error, ValueError):
                    pass

            def where(pred):
                labels = sorted({lb for lb, d in blocks if pred(d)})
                return " (from %s)" % ", ".join(labels[:3]) if labels else ""
            for k, v in secret_tokens.items():
                if any(v in vw for vw in views):
                    found.append("token " + k + where(lambda d, v=v: v in d))
            if own_student != "control_wrong" and any(t["CONTROL"] in vw for vw in views):
                found.append("another student's submission (control_wrong's token)" + where(lambda d: t["CONTROL"] in d))
            nh = sum(1 for ln in hidden_lines if any(ln in vw for vw in views))
            if nh:
                found.append("%d of %d hidden-test lines" % (nh, len(hidden_lines))
                             + where(lambda d: any(ln in d for ln in hidden_lines)))
            return found

        # shared output files: grades.csv, results.json (attribute any leak to every attack named near it)
        shared_leaks = {}
        for f in (gcsv, rj):
            if os.path.exists(f):
                txt = open(f, encoding="utf-8", errors="replace").read()
                if rj == f and results:
                    for sid, r in results.items():
                        lk = leaks(json.dumps(r, ensure_ascii=False), sid)
                        if lk:
                            shared_leaks.setdefault(sid, []).append("results.json: " + ", ".join(lk))
                else:
                    for row in csv.reader(txt.splitlines()):
                        if row and leaks(",".join(row), row[0]):
                            shared_leaks.setdefault(row[0], []).append("grades.csv: " + ", ".join(leaks(",".join(row), row[0])))

        after = snapshot_paths(watch)
        changed = [p for p in watch if after[p] != before[p]]
        rtwrites = {}
        for p in changed:
            try:
                data = open(p, "rb").read(4096)
            except OSError:
                data = b""
            who = re.findall(rb"RTBLIND-WROTE (\w+)", data)
            name = who[0].decode() if who else ("r05_fill_disk" if "rtblind-fill" in p else "?")
            rtwrites.setdefault(name, []).append(p)
        # restore / remove what attacks wrote
        for p in changed:
            try:
                if p in backups:
                    open(p, "wb").write(backups[p])
                else:
                    os.remove(p)
            except OSError:
                pass
        sub_tampered = [p for p, h in sub_hashes.items()
                        if not os.path.exists(p) or hashlib.sha256(open(p, "rb").read()).hexdigest() != h]
        csv_tampered = any("RTBLIND-TAMPER" in "".join(r.get("reason", "") or "" for r in rows) or len(rows) > 1
                           for rows in grades.values())
        fb_control = os.path.join(grades_dir, "feedback", "control_wrong.html")
        fb_tampered = os.path.exists(fb_control) and "RTBLIND-TAMPER" in open(fb_control, errors="replace").read(200)

        leftover = [(p, c, e) for p, c, e in marked_processes() if p not in procs_before]
        leftover_by = {}
        for p, c, e in leftover:
            leftover_by.setdefault(attack_of(c, e), []).append(p)
        for p, _, _ in leftover:  # we started them (through the attacks): end them by pid
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        proc_ev = can.proc_evidence()

        rows = []
        for m in manifest:
            name = m["name"]
            ev = []
            sc = score(name)
            res = results.get(name, {})
            fb = os.path.join(grades_dir, "feedback", name + ".html")
            fb_text = ""
            if sc is None:
                ev.append("not in grades.csv (batch did not finish it)")
            elif wrong_score is not None and sc > wrong_score:
                ev.append("score %g > wrong-answer control %g" % (sc, wrong_score))
            if os.path.exists(fb):
                size = os.path.getsize(fb)
                if size > FEEDBACK_MAX:
                    ev.append("feedback page %.1f MB" % (size / 1e6))
                fb_text = open(fb, encoding="utf-8", errors="replace").read(20 * 1024 * 1024)
                lk = leaks(fb_text, name)
                if lk:
                    ev.append("feedback shows " + ", ".join(lk))
            ev += shared_leaks.get(name, [])
            if res.get("seconds") and float(res["seconds"]) > WORKER_HOLD_S:
                ev.append("held a worker %.0f s" % float(res["seconds"]))
            if name in rtwrites:
                ev.append("wrote outside scratch: " + ", ".join(rtwrites[name]))
            if name in leftover_by:
                ev.append("%d process(es) still running after grading" % len(leftover_by[name]))
            plain = html.unescape(re.sub(r"<[^>]+>", "", fb_text))
            rres = {k: v for k, v in re.findall(r"RT-RESULT\[([^\]]+)\]=(\S*)", plain) if "%" not in k}
            if name == "p01_signal_processes" and proc_ev.get("signals"):
                ev.append("canary process got " + proc_ev["signals"])
            if name == "p02_oom_score_adj" and proc_ev.get("oom_score_adj"):
                ev.append("canary oom_score_adj " + proc_ev["oom_score_adj"])
            if name == "w02_tmp_shm_and_outputs":
                if sub_tampered:
                    ev.append("submissions changed: %d" % len(sub_tampered))
                if csv_tampered or fb_tampered:
                    ev.append("grader output tampered")
            if name == "r05_fill_disk":
                wrote = sum(int(v) for k, v in rres.items() if k.startswith("fill_") and k.endswith("_bytes") and v.isdigit())
                if not wrote:  # the cell was cut short: its progress lines
                    wrote = sum(int(v) for k, v in rres.items() if k.startswith("fill_progress_") and v.isdigit())
                if wrote > (1 << 30):
                    ev.append("wrote %.1f GiB to disk, no quota stopped it" % (wrote / 2 ** 30))
            if name == "r06_fork_bomb" and rres.get("forked", "0").isdigit() and int(rres.get("forked", "0")) > 65:
                ev.append("forked %s processes (limit 64)" % rres["forked"])
            if name == "r07_memory_hog" and rres.get("memory_mb", "0").isdigit() and int(rres.get("memory_mb", "0")) > 4096:
                ev.append("allocated %s MB (limit 4096)" % rres["memory_mb"])
            if timed_out:
                ev.append("batch did not finish within %d s" % BATCH_BOUND_S)
            status = "ESCAPED" if ev else "CONTAINED"
            if not ev:
                bits = ["score %g" % sc if sc is not None else "no score"]
                if res.get("reason"):
                    bits.append("reason: " + res["reason"][:70])
                if rres:
                    bits.append("; ".join("%s=%s" % kv for kv in list(rres.items())[:4]))
                ev = bits
            rows.append((name, m["class"], status, "; ".join(ev)))

        # attribute process evidence with no owner
        orphans = [p for k, v in leftover_by.items() if k not in {m["name"] for m in manifest} for p in v]

        print()
        print("controls: blank %s, wrong answers %s (max %s); batch %.0f s%s" % (
            blank_score, wrong_score, grades.get("control_wrong", [{}])[0].get("max_score"), batch_s,
            ", TIMED OUT" if timed_out else ""))
        if orphans:
            print("unattributed marked processes still running after grading: %s" % orphans)
        w1 = max(len(r[0]) for r in rows)
        print("%-*s  %-11s  %-9s  %s" % (w1, "attack", "class", "result", "evidence"))
        print("-" * (w1 + 80))
        for r in rows:
            print("%-*s  %-11s  %-9s  %s" % (w1, r[0], r[1], r[2], r[3]))
        n_esc = sum(1 for r in rows if r[2] == "ESCAPED")
        with open(os.path.join(out_root, "verdicts.json"), "w") as f:
            json.dump([dict(zip(("attack", "class", "result", "evidence"), r)) for r in rows], f, indent=1)
        print()
        print("escaped: %d of %d" % (n_esc, len(rows)))
        return 0
    finally:
        can.cleanup()


if __name__ == "__main__":
    sys.exit(main())
