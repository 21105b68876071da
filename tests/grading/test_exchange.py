"""nbgrader's exchange with real accounts on one machine, then the grader; and the JupyterHub values.

As root, the end-to-end test adds three temporary Unix accounts (an instructor and two students,
``useradd``) and removes them afterwards, even on failure. Every account loads
autograder/hub/nbgrader_config.py, the file a class's JupyterHub mounts, from its own
JUPYTER_CONFIG_DIR; NBGRADER_EXCHANGE_ROOT names a fresh exchange (mode 1777) and
NBGRADER_COURSE_ROOT the instructor's course directory. The commands, each as that user:

    instructor  python -m autograder.hub course 05          (nbgrader generate_assignment)
    instructor  nbgrader release_assignment 05_self_attention
    students    nbgrader list; nbgrader fetch_assignment 05_self_attention
                (one student's notebook gets the solution's answers, the other stays blank)
    students    nbgrader submit 05_self_attention
    instructor  nbgrader collect 05_self_attention
    instructor  python -m autograder grade 05 ~/ngrams-to-bert/submitted --out ~/grades-05

The accounts need to read the repository and run the venv's Python. When that Python lives under a
folder they cannot enter (a pyenv build in root's 0700 home, as on the machine this was written on),
each command runs in a private mount namespace in which that folder is a fresh tmpfs holding
only the interpreter's folder, bound read-only: the accounts see nothing else of it, and nothing
outside the command changes. A repository they cannot read (a checkout made with umask 077) is
not worked around: the test is skipped and says so.
"""
from __future__ import annotations

import csv
import dataclasses
import html
import os
import pwd
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import course_lib
import nbformat
import pytest
from traitlets.config.loader import PyFileConfigLoader

from autograder import cells, course
from autograder.hub import CONFIG_FILE, VALUES_FILE
from notebook_runner import REPO, grade_ids

NAME = "05_self_attention"
PYTHON = Path(sys.executable)  # the venv's python, as its scripts name it (not resolved)
TOOLS = ("useradd", "userdel", "setpriv", "unshare", "mount")


def nbgrader_config(**environ: str):
    """autograder/hub/nbgrader_config.py as nbgrader loads it, with these environment variables."""
    names = {"NBGRADER_EXCHANGE_ROOT", "NBGRADER_COURSE_ID", "NBGRADER_COURSE_ROOT", *environ}
    saved = {k: os.environ.get(k) for k in names}
    try:
        for key in saved:
            os.environ.pop(key, None)
        os.environ.update(environ)
        return PyFileConfigLoader(CONFIG_FILE.name, path=str(CONFIG_FILE.parent)).load_config()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


# --- accounts and commands ------------------------------------------------------------------


@dataclass
class Account:
    name: str
    home: Path
    uid: int
    gid: int
    env: dict


def _others_can(path: Path, bit: int) -> bool:
    return bool(os.stat(path).st_mode & bit)


def _hidden_folder(path: Path) -> Path | None:
    """The first folder above ``path`` that other users cannot enter, or None."""
    for parent in reversed(path.parents):
        if parent != Path("/") and not _others_can(parent, stat.S_IXOTH):
            return parent
    return None


def view_script(stage: Path) -> str:
    """Shell lines that show the accounts the interpreter's folders they cannot reach ('' when they can)."""
    needed = {Path(os.path.realpath(PYTHON)), Path(sys.base_prefix).resolve(), PYTHON.parent.parent}
    shown: dict[Path, set[Path]] = {}
    for path in needed:
        hidden = _hidden_folder(path)
        if hidden is not None:
            shown.setdefault(hidden, set()).add(hidden / path.relative_to(hidden).parts[0])
    lines = []
    for i, (hidden, children) in enumerate(sorted(shown.items())):
        staged = []
        for j, child in enumerate(sorted(children)):
            place = stage / f"{i}-{j}"
            place.mkdir(parents=True)
            lines.append(f"mount --bind -o ro {shlex.quote(str(child))} {shlex.quote(str(place))}")
            staged.append((child, place))
        lines.append(f"mount -t tmpfs -o mode=0755 interpreter-view {shlex.quote(str(hidden))}")
        for child, place in staged:
            lines.append(f"mkdir -p {shlex.quote(str(child))}")
            lines.append(f"mount --bind -o ro {shlex.quote(str(place))} {shlex.quote(str(child))}")
    return "\n".join(lines)


def unreadable_repository() -> str:
    """'' when other users can read the repository's code and the venv, else why not."""
    for path in (REPO / "autograder" / "course.py", CONFIG_FILE, REPO / "solutions" / "src" / f"{NAME}.py",
                 Path(course_lib.__file__), PYTHON.parent / "nbgrader"):
        if not _others_can(path, stat.S_IROTH):
            return f"{path} is not readable by other users (use a world-readable checkout)"
        for parent in path.parents:
            if parent == REPO.parent:
                break
            if not _others_can(parent, stat.S_IXOTH):
                return f"{parent} cannot be entered by other users (use a world-readable checkout)"
    return ""


class Machine:
    """Runs commands as the test's accounts."""

    def __init__(self, base: Path):
        self.base = base
        self.view = view_script(base / "view")
        self.log: list[str] = []

    def run(self, account: Account, *args: str, timeout: float = 300) -> str:
        drop = ["setpriv", f"--reuid={account.uid}", f"--regid={account.gid}", "--init-groups", "--"]
        if self.view:
            cmd = ["unshare", "--mount", "--propagation", "private", "--",
                   "sh", "-ec", self.view + '\nexec "$@"', "sh", *drop, *args]
        else:
            cmd = [*drop, *args]
        start = time.monotonic()
        proc = subprocess.run(cmd, cwd=account.home, env=account.env, capture_output=True, text=True,
                              timeout=timeout)
        self.log.append(f"{account.name}$ {' '.join(args)}  ({time.monotonic() - start:.1f} s)")
        output = proc.stdout + proc.stderr
        assert proc.returncode == 0, \
            f"as {account.name}: {' '.join(args)} failed ({proc.returncode}):\n{output[-4000:]}"
        return output


def _free_name(stem: str) -> str:
    for n in range(100):
        name = f"{stem}{n}"
        try:
            pwd.getpwnam(name)
        except KeyError:
            return name
    raise RuntimeError(f"no free account name like {stem}N")


@contextmanager
def accounts(base: Path, exchange: Path, roles: list[str]):
    """Temporary Unix accounts, one per role, with their own HOME and Jupyter folders; removed afterwards."""
    made: list[Account] = []
    try:
        for role in roles:
            name = _free_name(f"nbx{os.getpid() % 10000}{role[0]}")
            home = base / name
            subprocess.run(["useradd", "--no-create-home", "--home-dir", str(home), "--shell", "/usr/sbin/nologin",
                            "--user-group", "--no-log-init", name], check=True, capture_output=True, text=True)
            entry = pwd.getpwnam(name)
            account = Account(name, home, entry.pw_uid, entry.pw_gid, {})
            made.append(account)
            jupyter = home / ".jupyter"
            data = home / ".local" / "share" / "jupyter"
            (data / "runtime").mkdir(parents=True)
            jupyter.mkdir()
            (jupyter / "nbgrader_config.py").symlink_to(CONFIG_FILE)  # the class's config, this very file
            for path in [home, *home.rglob("*")]:
                os.lchown(path, account.uid, account.gid)
            home.chmod(0o700)
            account.env = {
                "PATH": f"{PYTHON.parent}:/usr/local/bin:/usr/bin:/bin",  # nbgrader runs alembic from the venv
                "HOME": str(home), "USER": name, "LOGNAME": name, "LANG": "C.UTF-8",
                "JUPYTER_CONFIG_DIR": str(jupyter), "JUPYTER_DATA_DIR": str(data),
                "JUPYTER_RUNTIME_DIR": str(data / "runtime"),
                "NBGRADER_EXCHANGE_ROOT": str(exchange), "NBGRADER_COURSE_ROOT": str(home / "ngrams-to-bert"),
                "HF_HUB_OFFLINE": "1", "PYDEVD_DISABLE_FILE_VALIDATION": "1", "MPLBACKEND": "Agg",
            }
        yield made
    finally:
        left = []
        for account in made:
            proc = subprocess.run(["userdel", account.name], capture_output=True, text=True)
            try:
                pwd.getpwnam(account.name)
                left.append(f"userdel {account.name}: {proc.stderr.strip()}")
            except KeyError:
                pass
        if left:
            print("temporary accounts left behind: " + "; ".join(left), file=sys.stderr)
    assert not left, "temporary accounts left behind: " + "; ".join(left)


def skip_reason() -> str:
    if os.geteuid() != 0:
        return "needs root: it creates temporary Unix accounts for an instructor and two students"
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        return f"needs {', '.join(missing)} to create accounts and run commands as them"
    return unreadable_repository()


# --- the exchange, end to end ---------------------------------------------------------------


#: what formgrader's GradeHandler.put does when the instructor types a mark for a written answer
MARK_BY_HAND = """
import sys
from nbgrader.api import Gradebook
url, cell, assignment, student, mark = sys.argv[1:]
with Gradebook(url) as gb:
    grade = gb.find_grade_by_id(gb.find_grade(cell, assignment, assignment, student).id)
    grade.manual_score, grade.extra_credit = float(mark), None
    grade.needs_manual_grade = False
    gb.db.commit()
"""
WRITTEN, HAND_MARK = "why_scale", 1.5
#: the check whose points the instructor changes before the last regrade, and its points before and after
CHANGED_CHECK, OLD_POINTS, NEW_POINTS = "check_bilinear_score", 2, 5


def checkout_with_changed_points(base: Path, owner: Account) -> Path:
    """The instructor's own copy of the course's code, in which one check is worth more points."""
    checkout = base / "checkout"
    for part in ("autograder", "course_lib", "solutions", "notebooks"):
        shutil.copytree(REPO / part, checkout / part, ignore=shutil.ignore_patterns("__pycache__"))
    source = checkout / "solutions" / "src" / f"{NAME}.py"
    text = source.read_text(encoding="utf-8")
    marker = f"id={CHANGED_CHECK} points={OLD_POINTS}"
    assert marker in text
    source.write_text(text.replace(marker, f"id={CHANGED_CHECK} points={NEW_POINTS}"), encoding="utf-8")
    for path in [checkout, *checkout.rglob("*")]:
        os.lchown(path, owner.uid, owner.gid)
    return checkout


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_the_instructors_whole_loop_with_real_accounts():
    """Release, fetch, submit, collect; grade into the course directory; a hand mark as formgrader gives it;
    the pages made again with it, released and fetched; a regrade that changes nothing; a regrade after a check's points change;
    the LMS grades with automatic and hand marks."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    base = Path(tempfile.mkdtemp(prefix="exchange-test-", dir="/tmp"))
    try:
        base.chmod(0o755)
        exchange = base / "exchange"
        exchange.mkdir()
        exchange.chmod(0o1777)  # as nbgrader wants: everyone writes, the sticky bit keeps files their owner's
        machine = Machine(base)
        if machine.view and subprocess.run(["unshare", "--mount", "true"], capture_output=True).returncode != 0:
            hidden = _hidden_folder(Path(os.path.realpath(PYTHON)))
            pytest.skip(f"the venv's Python is in a folder other users cannot enter ({hidden}) "
                        "and no mount namespace can be made here to show it to them")
        with accounts(base, exchange, ["instructor", "alice", "bob"]) as (teacher, alice, bob):
            run = machine.run
            # 1. release, fetch, submit, collect
            run(teacher, str(PYTHON), "-m", "autograder.hub", "course", "05")
            run(teacher, "nbgrader", "release_assignment", NAME)
            released = exchange / course.COURSE_ID / "outbound" / NAME / f"{NAME}.ipynb"
            assert released.is_file(), "the course id or exchange root of nbgrader_config.py was not used"
            for student in (alice, bob):
                assert NAME in run(student, "nbgrader", "list")
                run(student, "nbgrader", "fetch_assignment", NAME)
            answer_with_solution(alice.home / NAME / f"{NAME}.ipynb", alice)
            for student in (alice, bob):
                run(student, "nbgrader", "submit", NAME)
            run(teacher, "nbgrader", "collect", NAME)
            course_dir = teacher.home / "ngrams-to-bert"
            submitted = course_dir / "submitted"
            assert sorted(p.name for p in submitted.iterdir()) == sorted([alice.name, bob.name])

            # 2. grade into the course directory (SUBMISSIONS is its submitted/)
            grade = (str(PYTHON), "-m", "autograder", "grade", "05", str(submitted), "--jobs", "2")
            graded = run(teacher, *grade)
            machine.log += [f"  {line}" for line in graded.splitlines() if line.startswith("note:")]
            out = course_dir / "autograder" / NAME
            rows = {row["student_id"]: row for row in read_csv(out / "grades.csv")}
            auto, manual = points()
            assert float(rows[alice.name]["score"]) == auto, graded
            assert float(rows[alice.name]["manual_points_pending"]) == manual
            assert float(rows[bob.name]["score"]) == 0, graded
            for student in (alice, bob):
                assert (course_dir / "autograded" / student.name / NAME / f"{NAME}.ipynb").is_file()
                assert (course_dir / "feedback" / student.name / NAME / f"{NAME}.html").is_file()

            # 3. the written answer marked by hand, as formgrader's handler does it
            db = f"sqlite:///{course_dir / 'gradebook.db'}"
            run(teacher, str(PYTHON), "-c", MARK_BY_HAND, db, WRITTEN, NAME, alice.name, str(HAND_MARK))

            # 4. the pages made again with the hand mark, released through the exchange; each student fetches theirs
            run(teacher, str(PYTHON), "-m", "autograder", "feedback", "--course-dir", str(course_dir),
                "--assignment", "05")
            run(teacher, "nbgrader", "release_feedback", NAME)
            for student, score in ((alice, auto + HAND_MARK), (bob, 0.0)):
                run(student, "nbgrader", "fetch_feedback", NAME)
                pages = list((student.home / NAME / "feedback").glob(f"*/{NAME}.html"))
                assert len(pages) == 1, f"{student.name} fetched {pages}"
                assert f"Score: {score:.1f} / {auto + manual:.1f}" in html.unescape(
                    pages[0].read_text(encoding="utf-8")), student.name

            # 5. nothing fixed, regraded: nothing changes, the hand mark stays
            again = run(teacher, *grade)
            assert "no student's automatic score or verdict changed" in again
            assert read_csv(out / "regrade.csv") == []

            # 6. one check's points changed in the instructor's copy of the course, regraded
            checkout = checkout_with_changed_points(base, teacher)
            account = dataclasses.replace(teacher, env={**teacher.env, "PYTHONPATH": str(checkout)})
            changed = run(account, *grade)
            diff = read_csv(out / "regrade.csv")
            assert {row["student_id"] for row in diff} == {alice.name}, changed  # bob failed it: not affected
            assert [(r["cell"], r["old_cell_score"], r["new_cell_score"]) for r in diff] == \
                [(CHANGED_CHECK, f"{OLD_POINTS:g}", f"{NEW_POINTS:g}")]

            # 7. the LMS grades: automatic plus hand marks, from the gradebook
            run(teacher, str(PYTHON), "-m", "autograder", "report", "--course-dir", str(course_dir))
            lms = {row["student_id"]: row for row in read_csv(out.parent / "report" / "lms_grades.csv")}
            expected = auto + NEW_POINTS - OLD_POINTS + HAND_MARK
            assert float(lms[alice.name]["score"]) == pytest.approx(expected)
            assert float(lms[bob.name]["score"]) == 0
        print("\n".join(machine.log))
    finally:
        shutil.rmtree(base, ignore_errors=True)


def answer_with_solution(path: Path, student: Account) -> None:
    """Put the solution notebook's answers into the student's fetched notebook (as the student's file)."""
    solution = nbformat.read(REPO / "solutions" / f"{NAME}.ipynb", as_version=4)
    answers = cells.answers(solution)
    nb = nbformat.read(path, as_version=4)
    filled = 0
    for gid, cell in grade_ids(nb).items():
        if gid in answers:
            cell.source = answers[gid]
            filled += 1
    assert filled == len(answers)
    nbformat.write(nb, path)
    os.chown(path, student.uid, student.gid)


def points() -> tuple[float, float]:
    """Notebook 05's automatic and manual points."""
    graded = cells.graded_cells(nbformat.read(REPO / "solutions" / f"{NAME}.ipynb", as_version=4))
    manual = sum(cells.points(c) for c in graded.values() if c.cell_type == "markdown")
    total = sum(cells.points(c) for c in graded.values())
    return total - manual, manual


# --- the Zero to JupyterHub values ------------------------------------------------------------


def values() -> dict:
    yaml = pytest.importorskip("yaml")
    return yaml.safe_load(VALUES_FILE.read_text(encoding="utf-8"))


def test_every_server_mounts_the_exchange_that_nbgrader_config_names():
    single = values()["singleuser"]
    env = single["extraEnv"]
    exchange = env["NBGRADER_EXCHANGE_ROOT"]
    volumes = {v["name"]: v for v in single["storage"]["extraVolumes"]}
    mounts = {m["name"]: m["mountPath"] for m in single["storage"]["extraVolumeMounts"]}
    assert mounts["nbgrader-exchange"] == exchange
    assert volumes["nbgrader-exchange"]["persistentVolumeClaim"]["claimName"]
    on_server = nbgrader_config(**env)  # the config as a user's server loads it
    assert on_server.Exchange.root == exchange
    assert nbgrader_config().Exchange.root == exchange  # its default agrees, should extraEnv lose the variable
    assert on_server.CourseDirectory.course_id == nbgrader_config().CourseDirectory.course_id == course.COURSE_ID
    assert on_server.CourseDirectory.root == env["NBGRADER_COURSE_ROOT"]
    # the course directory is on the instructor's own volume
    assert env["NBGRADER_COURSE_ROOT"].startswith(single["storage"]["homeMountPath"] + "/")
    init = {c["name"]: c for c in single["initContainers"]}["exchange-permissions"]
    assert [m["mountPath"] for m in init["volumeMounts"]] == [exchange] and init["command"][-2:] == ["1777", exchange]


def test_nbgrader_config_is_mounted_where_jupyter_looks_for_it():
    from jupyter_core.paths import SYSTEM_CONFIG_PATH

    single = values()["singleuser"]
    config = single["extraFiles"]["nbgrader-config"]
    mount = Path(config["mountPath"])
    assert mount.name == CONFIG_FILE.name and str(mount.parent) in SYSTEM_CONFIG_PATH
    assert "stringData" not in config  # it comes from the file itself, with the command in values.yaml's header:
    rel = CONFIG_FILE.relative_to(REPO)
    command = f"--set-file singleuser.extraFiles.nbgrader-config.stringData={rel}"
    assert command in VALUES_FILE.read_text(encoding="utf-8")


def test_images_and_limits():
    single = values()["singleuser"]
    student_image = f"{single['image']['name']}:{single['image']['tag']}"
    dockerfile = (VALUES_FILE.parent / "Dockerfile").read_text(encoding="utf-8")
    assert f"-t {student_image} build/student" in dockerfile and "make install" in dockerfile
    assert f"USER {single['uid']}" in dockerfile
    for resource, unit in (("cpu", 1.0), ("memory", None)):
        limits = single[resource]
        assert limits["guarantee"] and limits["limit"], resource
        if unit:
            assert 0 < limits["guarantee"] <= limits["limit"]


def test_the_instructor_is_a_grader_and_gets_the_instructors_image():
    from types import SimpleNamespace

    from traitlets.config import Config

    whole = values()
    hub = whole["hub"]
    graders = f"formgrade-{course.COURSE_ID}"  # nbgrader's name for a course's graders group
    members = hub["config"]["JupyterHub"]["load_groups"][graders]["users"]
    assert members and set(members) <= set(hub["config"]["Authenticator"]["admin_users"])
    c = Config()
    exec(compile(hub["extraConfig"]["graders-image"], "values.yaml hub.extraConfig", "exec"), {"c": c})  # noqa: S102 (the chart's own config code, run as the hub runs it)
    hook = c.KubeSpawner.pre_spawn_hook
    student_image = f"{whole['singleuser']['image']['name']}:{whole['singleuser']['image']['tag']}"

    def spawner(*groups: str):
        return SimpleNamespace(user=SimpleNamespace(groups=[SimpleNamespace(name=g) for g in groups]),
                               image=student_image, cpu_limit=None, mem_limit=None)

    teacher, student = spawner(graders), spawner()
    hook(teacher)
    hook(student)
    assert student.image == student_image and student.mem_limit is None
    dockerfile = (VALUES_FILE.parent / "Dockerfile").read_text(encoding="utf-8")
    assert teacher.image != student_image and f"-t {teacher.image} ." in dockerfile
    assert teacher.mem_limit and teacher.cpu_limit >= whole["singleuser"]["cpu"]["limit"]
