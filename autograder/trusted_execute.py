"""nbgrader's ``Execute`` with the grader in charge: test cells judged here, and the kernel held to what it may send.

:class:`TrustedExecute` replaces nbgrader's ``Execute`` in ``Autograde.autograde_preprocessors``
(:mod:`autograder.pipeline`). It runs every cell of the submission in the student's kernel, as nbgrader
does, except the test cells: those run here (:func:`autograder.verdict.run_test_cell`), against the
kernel behind a :class:`KernelLine`. Besides:

- **every byte the kernel sends is counted where it arrives** (:class:`CountingChannel`, on every channel:
  streams, displays, display updates, errors, comms, replies), and the grader's side refuses a message
  over :data:`~autograder.verdict.MAX_MESSAGE_BYTES` (zmq's ``MAXMSGSIZE``) and queues few; past the
  submission's output allowance the watchdog stops the kernel;
- what reaches the page is capped per cell and per notebook (output past it is dropped as it arrives,
  with one line saying so); the reply MIME type is taken only as the answer to the grader's own call,
  once per call; comm messages (widgets) are not kept;
- **nothing the kernel says after the first hidden test case reaches the page**: the outputs of the
  student's cells that run after it are replaced by one line (the student has them in their notebook);
- once the kernel has bound its sockets it may no longer change their folder
  (:func:`autograder.sandbox.lock_sockets`); large requests go through a file the grader writes in its own
  request folder, never a path the kernel can write;
- **a kernel that stops keeps what it earned**: the cells after it are not run, each test cell after it
  says so, and the reason (the watchdog's, or what happened) is the submission's.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import nbformat
import zmq
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import ensure_async
from nbgrader.preprocessors import Execute
from traitlets import Dict, Integer, Unicode

from course_lib.answer_wire import MIME
from course_lib.plain_text import one_line
from course_lib.remote_answer import Channel, KernelError

from . import sandbox
from .cells import BEGIN_HIDDEN, grade_id
from .verdict import INLINE_ARGUMENT, MAX_MESSAGE_BYTES, MAX_QUEUED_MESSAGES, run_test_cell

WITHHELD = ("[output not shown in the feedback: this cell ran after a hidden test case, and nothing the notebook "
            "prints after one reaches this page; your own notebook has it]\n")
NOT_RUN = "[not run: the notebook's kernel had stopped ({})]\n"
TIMED_OUT = "[this cell ran past its {} s time limit and was interrupted by the grader]\n"


class CountingChannel(AsyncZMQSocketChannel):
    """A channel of the grader's kernel client that counts every byte the kernel sends on it."""

    count = staticmethod(lambda nbytes: None)  # a subclass per submission sets it (TrustedExecute.start_client)

    async def _recv(self, **kwargs):
        frames = await self.socket.recv_multipart(**kwargs)
        self.count(sum(len(frame) for frame in frames))
        _, message = self.session.feed_identities(frames)
        return self.session.deserialize(message)


def counting_client(km, count) -> AsyncKernelClient:
    """A client of ``km``'s kernel whose every channel counts what arrives (``count(nbytes)``) and refuses huge messages."""
    channel = type("SubmissionChannel", (CountingChannel,), {"count": staticmethod(count)})
    client = km.client()
    client.context.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
    client.context.setsockopt(zmq.RCVHWM, MAX_QUEUED_MESSAGES)
    for name in ("shell", "iopub", "stdin", "control"):
        setattr(client, f"{name}_channel_class", channel)
    return client


class KernelLine(Channel):
    """Calls into the kernel of a notebook being executed, each as a cell that is never part of the notebook."""

    def __init__(self, client: TrustedExecute):
        super().__init__()
        self.client, self.index, self.requests = client, 0, 0
        self.awaiting = False  # a reply of the grader's own call may arrive now (once)

    def _request_file(self, argument: str) -> str:
        """The argument written into the grader's request folder (the kernel reads it; it cannot write there)."""
        folder = Path(self.client.exchange_dir) / sandbox.REQUESTS
        self.requests += 1
        path = folder / f"request-{self.requests}.txt"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(argument)
        return str(path)

    def send(self, entry: str, argument: str) -> str:
        client = self.client
        if client.stopped:
            raise KernelError(f"the notebook's kernel had stopped ({client.stopped}).")
        request = None
        if len(argument) > INLINE_ARGUMENT and client.exchange_dir:
            request = self._request_file(argument)
            argument = f"@{request}"
        probe = nbformat.v4.new_code_cell(f"__import__('course_lib.remote_answer').remote_answer.{entry}({argument!r})")
        self.awaiting = True
        try:
            client.execute_cell(probe, self.index, store_history=False)
        except (DeadKernelError, CellTimeoutError) as err:
            client.kernel_stopped(err)
            raise KernelError(f"the notebook's kernel stopped ({client.stopped}).") from None
        finally:
            self.awaiting = False
            if request is not None:
                Path(request).unlink(missing_ok=True)
        for out in probe.outputs:
            if out.output_type == "display_data" and MIME in out.get("data", {}):
                return out.data[MIME]
        errors = [o for o in probe.outputs if o.output_type == "error"]
        if errors and errors[-1].ename == client.error_on_timeout.get("ename"):
            raise KernelError(f"your code did not finish within the {client.timeout} s a cell may run.")
        if errors:
            raise KernelError(f"the notebook's code stopped the grader's call ({one_line(errors[-1].ename, 60)}): "
                              "no points for this check.")
        raise KernelError("the notebook's code kept the grader's call from replying: no points for this check.")


class TrustedExecute(Execute):
    """nbgrader's Execute, with test cells run in the grader (see the module's docstring)."""

    test_sources = Dict(Unicode(), help="grade id -> source of each test cell, from the instructors' notebook; "
                                         "what runs here, whatever the submission's cell says").tag(config=True)
    checks_module = Unicode("", help="the notebook's module of checks").tag(config=True)
    max_cell_output = Integer(1 << 20, help="characters of output kept per cell").tag(config=True)
    max_notebook_output = Integer(8 << 20, help="characters of output kept per notebook").tag(config=True)
    exchange_dir = Unicode("", help="the kernel's folder (autograder.sandbox.make_kernel_dir)").tag(config=True)

    def __init__(self, *, watchdog=None, findings=None, **kwargs):
        super().__init__(**kwargs)
        self.watchdog, self.findings = watchdog, findings
        self.stopped = ""

    def __deepcopy__(self, memo):  # nbgrader deep-copies its preprocessor lists: this one keeps its watchdog
        return self

    def preprocess(self, nb, resources=None, km=None):
        self._line = KernelLine(self)
        self._kept_total = 0
        self._kept_in_cell: dict[int, int] = {}
        self._after_hidden = False
        self._slowest = 0.0
        self._timed_out = False
        self._own: dict[int, nbformat.NotebookNode] = {}  # the outputs the grader wrote (shown after a hidden case too)
        self.stopped = ""
        try:
            return super().preprocess(nb, resources, km)
        finally:
            if self.findings is not None:
                self.findings.stopped, self.findings.slowest_cell = self.stopped, self._slowest

    async def async_start_new_kernel_client(self):
        """nbclient's, with a client that counts and caps what the kernel sends; then the socket folder is locked."""
        try:
            self.kc = counting_client(self.km, self.watchdog.received if self.watchdog else (lambda n: None))
            await ensure_async(self.kc.start_channels())
            await ensure_async(self.kc.wait_for_ready(timeout=self.startup_timeout))
        except Exception:
            await self._async_cleanup_kernel()
            raise
        if self.exchange_dir:
            sandbox.lock_sockets(Path(self.exchange_dir))
        self.kc.allow_stdin = False
        return self.kc

    def kernel_stopped(self, err: Exception) -> None:
        """The kernel stopped (or stopped answering): say why, and stop it for good."""
        if self.stopped:
            return
        why = self.watchdog.why() if self.watchdog is not None else ""
        if not why and isinstance(err, CellTimeoutError):
            why = "a cell kept running after its time limit and ignored the interrupt"
        self.stopped = why or "the Python process running the notebook stopped (os._exit, a crash, or a limit)"
        if self.watchdog is not None:
            self.watchdog.stop_kernel()

    def _note(self, text: str, name: str = "stderr") -> nbformat.NotebookNode:
        """An output the grader writes into a cell (kept on the page whatever the kernel did)."""
        note = nbformat.v4.new_output("stream", name=name, text=text)
        self._own[id(note)] = note
        return note

    async def _async_handle_timeout(self, timeout, cell=None):
        self._timed_out = True
        return await super()._async_handle_timeout(timeout, cell)

    def preprocess_cell(self, cell, resources, index):
        if self.stopped:
            if cell.cell_type == "code":
                cell.outputs = [self._note(NOT_RUN.format(self.stopped))]
                if grade_id(cell) in self.test_sources:
                    line = f"\x1b[1;31m\u2718 not graded\x1b[0m: the notebook's kernel had stopped ({self.stopped})."
                    cell.outputs = [nbformat.v4.new_output("error", ename="KernelStopped", evalue=self.stopped,
                                                           traceback=[line])]
                cell.execution_count = None
            return cell, self.resources
        gid = grade_id(cell)
        start = time.monotonic()
        if cell.cell_type == "code" and gid in self.test_sources:
            self._line.index = index
            cell.outputs = run_test_cell(self.test_sources[gid], self.checks_module, self._line, gid)
            cell.execution_count = None
            self.nb.cells[index] = cell  # nbclient put the last call's cell in its place
            self._after_hidden = self._after_hidden or BEGIN_HIDDEN in self.test_sources[gid]
        else:
            self._timed_out = False
            try:
                cell, self.resources = super().preprocess_cell(cell, resources, index)
            except (DeadKernelError, CellTimeoutError) as err:
                self.kernel_stopped(err)
                cell.outputs.append(self._note(NOT_RUN.format(self.stopped)))
                cell.execution_count = None  # whether its number arrived before the kernel stopped is a matter of timing
            if self._timed_out:
                cell.outputs.append(self._note(TIMED_OUT.format(self.timeout)))
            if self._after_hidden and cell.cell_type == "code" and cell.outputs:
                own = [output for output in cell.outputs if self._own.get(id(output)) is output]
                cell.outputs = [self._note(WITHHELD, "stdout"), *own]
        self._slowest = max(self._slowest, time.monotonic() - start)
        return cell, self.resources

    def on_cell_executed(self, **kwargs):
        """nbgrader adds the kernel's error reply when no output shows it: on one line here, and counted."""
        reply = kwargs["execute_reply"]
        content = reply.get("content", {})
        if content.get("status") == "error":
            content["ename"] = one_line(content.get("ename", ""), 100)
            content["evalue"] = one_line(content.get("evalue", ""), 1000)
            content["traceback"] = [one_line(line, 1000) for line in (content.get("traceback") or [])[-20:]]
        return super().on_cell_executed(**kwargs)

    def process_message(self, msg, cell, cell_index):
        msg_type = msg["msg_type"]
        if msg_type.startswith("comm"):
            return None  # widgets' state: not kept while grading (the page shows no widget)
        transient = msg["content"].get("transient") or {}
        if transient.get("display_id") and msg_type in ("execute_result", "display_data", "update_display_data"):
            if msg_type == "update_display_data" or MIME in msg["content"].get("data", {}):
                if self._room(msg, cell_index):  # an update replaces earlier outputs: it counts as output too
                    self._update_display_id(transient["display_id"], msg)
                return None
            msg["content"]["transient"] = {}  # a new output with an id: kept (or not) by output(), like any other
        return super().process_message(msg, cell, cell_index)

    def _room(self, msg, cell_index) -> bool:
        """Whether a message's output fits the cell's and the notebook's caps (counted when it does)."""
        size = _size(msg.get("content", {}))
        kept = self._kept_in_cell.get(cell_index, 0)
        if kept + size > self.max_cell_output or self._kept_total + size > self.max_notebook_output:
            return False
        self._kept_in_cell[cell_index] = kept + size
        self._kept_total += size
        return True

    def output(self, outs, msg, display_id, cell_index):
        data = msg.get("content", {}).get("data", {})
        if msg["msg_type"] == "display_data" and MIME in data:
            if not self._line.awaiting:
                return None  # the reply type outside the grader's own call: not kept, not counted twice
            self._line.awaiting = False  # one reply per call
            return super().output(outs, msg, display_id, cell_index)
        if not self._room(msg, cell_index):
            if self._kept_in_cell.get(cell_index, 0) <= self.max_cell_output:  # say it once per cell
                self._kept_in_cell[cell_index] = self.max_cell_output + 1
                outs.append(self._note(f"[output dropped by the grader: a cell may print {self.max_cell_output >> 10} "
                                       f"KB and a notebook {self.max_notebook_output >> 20} MB]\n"))
            return None
        return super().output(outs, msg, display_id, cell_index)


def _size(content: dict) -> int:
    """About how many characters a message's content takes (strings and the data's values), without copying it."""
    total, todo = 0, [content]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, dict):
            todo.extend(item.values())
            total += len(item)
        elif isinstance(item, (list, tuple)):
            todo.extend(item)
            total += len(item)
        else:
            total += 8
    return total
