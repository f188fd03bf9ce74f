"""The warm, isolated worker process that runs probes, and its parent-side handle.

One worker per run imports torch once (`python -I`: no user site, no current directory
on `sys.path`, an environment reduced to an allow-list), then answers requests on a
private pipe. The worker itself never runs or imports linted code: each probe runs in a
fork of it, contained by `isolation.py` (fds closed, rlimits, namespaces, Landlock), in
a directory of its own that is also its HOME and TMPDIR. The fork answers on a pipe of
its own; the worker checks the answer's size and JSON shape, kills the fork's process
group and every process the probe orphaned (the worker is their subreaper), and passes
the answer on, tagged with the run's random token and the request's number. The parent
(gradlint) accepts only such answers: anything else is `malformed`, never a crash. The
parent never imports torch.

Every run's directory lives under one per-user parent directory; a run that finds the
directory of a gradlint process that no longer exists (killed with SIGKILL) removes it.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gradlint.probe.planner import describe_exception

# How long the worker may take to start and import torch (not a probe's budget).
STARTUP_TIMEOUT = 120.0
# How much longer than a probe's timeout the parent waits before it kills the worker.
WORKER_GRACE = 10.0
# Words of a witness program whose torch APIs import `torch._dynamo` lazily (seconds).
DYNAMO_USERS = ("optim", "checkpoint", "compile")
ANSWER_LIMIT = 8 << 20  # bytes a probe's answer may have
FILE_SIZE_LIMIT = 64 << 20  # bytes a probe may write into one file
PROCESS_LIMIT = 32  # processes a probe may start (not enforced by the kernel for root)
OUTCOMES = ("clean", "raised", "exit", "memory", "done", "import_failed")
# Environment variables the worker keeps; everything else (tokens, keys) is dropped.
ENVIRONMENT_KEPT = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "SYSTEMROOT")
_ROOT = str(Path(__file__).resolve().parents[2])
_BOOTSTRAP = (
    "import sys; sys.path.insert(1, {root!r}); "
    "from gradlint.probe.sandbox import serve; serve({req}, {res}, {memory})"
)


class SandboxError(RuntimeError):
    """The worker could not be started at all."""


def runs_directory() -> str | None:
    """The per-user parent of every run's directory, or None if it is not safely ours."""
    base = os.path.join(tempfile.gettempdir(), f"gradlint-probe-{os.getuid()}")
    with contextlib.suppress(FileExistsError):
        os.mkdir(base, 0o700)
    info = os.lstat(base)
    if not os.path.isdir(base) or os.path.islink(base) or info.st_uid != os.getuid():
        return None
    return base


def sweep(base: str) -> list[str]:
    """Remove the run directories of gradlint processes that are gone; their names."""
    removed = []
    for name in os.listdir(base):
        parts = name.split("-")
        if len(parts) != 3 or parts[0] != "run" or not parts[1].isdigit():
            continue
        try:
            os.kill(int(parts[1]), 0)
        except ProcessLookupError:
            shutil.rmtree(os.path.join(base, name), ignore_errors=True)
            removed.append(name)
        except PermissionError:
            pass
    return removed


def _environment(directory: str) -> dict[str, str]:
    env = {k: os.environ[k] for k in ENVIRONMENT_KEPT if k in os.environ}
    cache = os.path.join(directory, "cache")
    env.update(
        CUDA_VISIBLE_DEVICES="",
        HOME=directory,
        TMPDIR=directory,
        XDG_CACHE_HOME=cache,
        TORCH_HOME=cache,
        MPLCONFIGDIR=cache,
        PYTHONDONTWRITEBYTECODE="1",
        OMP_NUM_THREADS="1",
    )
    return env


class Sandbox:
    """Parent-side handle of the worker: `run(request)` -> outcome dict, restarts as needed."""

    def __init__(self, *, timeout: float = 10.0, memory_limit: int = 2 << 30) -> None:
        self.timeout = timeout
        self.memory_limit = memory_limit
        base = runs_directory()
        if base is None:
            self.directory = tempfile.mkdtemp(prefix="gradlint-probe-")
        else:
            sweep(base)
            self.directory = tempfile.mkdtemp(prefix=f"run-{os.getpid()}-", dir=base)
        self.import_seconds: float | None = None
        self.protections: dict = {}
        self.starts = 0
        self._process: subprocess.Popen | None = None
        self._requests: int | None = None
        self._responses: int | None = None
        self._buffer = b""
        self._ended = False
        self._token = ""
        self._serial = 0

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *_) -> None:
        self.close()

    def start(self) -> None:
        request_read, request_write = os.pipe()
        response_read, response_write = os.pipe()
        code = _BOOTSTRAP.format(
            root=_ROOT, req=request_read, res=response_write, memory=self.memory_limit
        )
        log = open(os.path.join(self.directory, "worker.log"), "ab")  # noqa: SIM115
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-I", "-B", "-c", code],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.directory,
                env=_environment(self.directory),
                pass_fds=(request_read, response_write),
                start_new_session=True,
            )
        finally:
            log.close()
            os.close(request_read)
            os.close(response_write)
        self._requests, self._responses, self._buffer = request_write, response_read, b""
        self._token = secrets.token_hex(16)
        os.write(self._requests, self._token.encode() + b"\n")
        self.starts += 1
        began = time.monotonic()
        ready = self._receive(STARTUP_TIMEOUT)
        if ready is None or "ready" not in ready:
            reason = self._death_reason() if ready is None else ready.get("error", "")
            self._kill()
            raise SandboxError(f"the probe worker did not start: {reason}")
        self.import_seconds = ready.get("import_seconds", time.monotonic() - began)
        self.protections = ready.get("protections", {})

    def run(self, request: dict) -> dict:
        """The worker's answer, or {"outcome": "timeout" | "died" | "malformed", "reason"}."""
        if self._process is None:
            self.start()
        self._serial += 1
        try:
            message = {**request, "timeout": self.timeout, "serial": self._serial}
            os.write(self._requests, json.dumps(message).encode() + b"\n")
        except BrokenPipeError:
            return self._died()
        # The worker enforces the timeout on its fork; this one only guards the worker.
        answer = self._receive(self.timeout + WORKER_GRACE)
        if answer is None:
            if not self._ended:
                self._kill()
                return {
                    "outcome": "timeout",
                    "reason": f"the probe did not finish within {self.timeout:g} s and was killed",
                }
            return self._died()
        if answer.get("serial") != self._serial or "outcome" not in answer:
            self._kill()
            return malformed("the probe worker's answer does not belong to this request")
        return answer

    def _died(self) -> dict:
        reason = self._death_reason()
        self._kill()
        return {"outcome": "died", "reason": reason}

    def _death_reason(self) -> str:
        try:
            status = self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "the probe worker stopped answering"
        if status < 0:
            return f"the probe worker was killed by {signal.Signals(-status).name}"
        return f"the probe worker ended with exit status {status}"

    def _receive(self, timeout: float) -> dict | None:
        """The next answer of the worker carrying this run's token; None on timeout or end
        of stream (`_ended`); {"outcome": "malformed"} for anything else."""
        self._ended = False
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._responses], [], [], left)[0]:
                return None
            chunk = os.read(self._responses, 1 << 16)
            if not chunk:
                self._ended = True
                return None
            self._buffer += chunk
            if len(self._buffer) > ANSWER_LIMIT * 2:
                return malformed("the probe worker's answer is too long")
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            answer = json.loads(line)
        except (ValueError, RecursionError):
            answer = None
        if not isinstance(answer, dict) or answer.pop("token", None) != self._token:
            return malformed("the probe worker's answer is not valid")
        return answer

    def _kill(self) -> None:
        if self._process is not None:
            with contextlib.suppress(ProcessLookupError):  # the worker's group
                os.killpg(self._process.pid, signal.SIGKILL)
            self._process.wait()
            self._process = None
        for fd in (self._requests, self._responses):
            if fd is not None:
                os.close(fd)
        self._requests = self._responses = None

    def close(self) -> None:
        """Ask the worker to end (it kills what its probes left), then make sure."""
        if self._process is not None and self._requests is not None:
            os.close(self._requests)
            self._requests = None
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=5)
        self._kill()
        shutil.rmtree(self.directory, ignore_errors=True)


def malformed(reason: str) -> dict:
    return {"outcome": "malformed", "reason": reason}


# --- worker side: runs in the sandboxed interpreter -------------------------------------


def serve(request_fd: int, response_fd: int, memory_limit: int) -> None:
    """The worker's loop: import torch once, then answer one request per line."""
    from gradlint.probe import isolation

    began = time.monotonic()
    requests = os.fdopen(request_fd, "rb")
    token = requests.readline().strip().decode()
    responses = os.fdopen(response_fd, "w", buffering=1)

    def respond(answer: dict) -> None:
        responses.write(json.dumps({**answer, "token": token}) + "\n")

    isolation.worker_setup()
    try:
        import torch

        torch.set_num_threads(1)  # no thread pool to break in the forks
        from gradlint.probe import exec_probe  # gradlint's own, imported once

        exec_probe.warm_up(torch)
    except BaseException as error:  # noqa: BLE001 - reported to the parent
        respond({"error": f"cannot import torch: {error!r}"})
        os._exit(1)
    respond(
        {
            "ready": True,
            "import_seconds": time.monotonic() - began,
            "protections": _protections(),
        }
    )
    for line in requests:
        request = json.loads(line)
        if any(word in _probed_text(request) for word in DYNAMO_USERS):
            importlib.import_module("torch._dynamo")  # before the fork and its timeout
        answer = run_forked(request, request["timeout"], memory_limit, request_fd)
        respond({**answer, "serial": request["serial"]})
    _end_run()


def _end_run() -> None:
    """gradlint closed the request pipe (or died): kill what is left, remove the run."""
    _reap_children(kill=True)
    shutil.rmtree(os.getcwd(), ignore_errors=True)
    os._exit(0)


def _protections() -> dict:
    """What containment this machine gives a probe (tried in a throwaway fork)."""
    from gradlint.probe import isolation

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        found = {"namespaces": isolation.enter_namespaces(), "landlock": isolation.landlock_abi()}
        os.write(write, json.dumps(found).encode())
        os._exit(0)
    os.close(write)
    data = os.read(read, 4096)
    os.close(read)
    os.waitpid(pid, 0)
    try:
        return json.loads(data)
    except ValueError:
        return {"namespaces": False, "landlock": 0}


def _probed_text(request: dict) -> str:
    """The witness program, or the source of the file a code probe runs (read, not run)."""
    if request["kind"] == "witness":
        return request["program"]
    try:
        with open(request["path"], encoding="utf-8", errors="replace") as file:
            return file.read()
    except OSError:
        return ""


def _children() -> list[int]:
    me, found = os.getpid(), []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[1]) == me:
                found.append(int(name))
    return found


def _reap_children(*, kill: bool) -> None:
    """Kill (optionally) and reap every child: forks and what their probes orphaned."""
    for _ in range(100):
        children = _children()
        if not children:
            break
        for pid in children:
            if kill:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        time.sleep(0.01)


def run_forked(request: dict, timeout: float, memory_limit: int, request_fd: int) -> dict:
    """`handle(request)` in a contained fork; every process it started is killed after."""
    directory = tempfile.mkdtemp(prefix=f"probe-{request['serial']}-", dir=os.getcwd())
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the probe: never returns
        try:
            _probe_process(request, write, directory, timeout, memory_limit)
        finally:
            os._exit(70)
    os.close(write)
    data = _read_answer(read, time.monotonic() + timeout, request_fd)
    os.close(read)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    _reap_children(kill=True)
    shutil.rmtree(directory, ignore_errors=True)
    if data is None:
        return {
            "outcome": "timeout",
            "reason": f"the probe did not finish within {timeout:g} s and was killed",
        }
    if data == b"":
        return {"outcome": "died", "reason": _status_reason(status)}
    try:
        answer = json.loads(data)
    except (ValueError, RecursionError):
        return malformed("the probe's answer is not JSON")
    if not isinstance(answer, dict) or answer.get("outcome") not in OUTCOMES:
        return malformed("the probe's answer has no known outcome")
    return answer


def _probe_process(request: dict, write: int, directory: str, timeout, memory_limit) -> None:
    """Contain this fork, then run the probe (as PID 1 of a new namespace if possible)."""
    from gradlint.probe import isolation

    os.setsid()
    isolation.prctl(isolation.PR_SET_PDEATHSIG, signal.SIGKILL)
    channel = isolation.close_fds(write)
    os.chdir(directory)
    os.environ.update(HOME=directory, TMPDIR=directory)
    tempfile.tempdir = directory
    cpu = int(timeout) + 2
    isolation.set_limits(memory_limit, cpu, FILE_SIZE_LIMIT, PROCESS_LIMIT)
    private_proc = False
    if isolation.enter_namespaces():
        child = os.fork()
        if child:  # outside the namespace: wait for its init and end the same way
            _, status = os.waitpid(child, 0)
            if os.WIFSIGNALED(status):
                signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
                os.kill(os.getpid(), os.WTERMSIG(status))
            os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 70)
        isolation.prctl(isolation.PR_SET_PDEATHSIG, signal.SIGKILL)
        private_proc = isolation.mount_private_proc()
    # Bound before the probed code runs: patching `json.dumps` does not change the answer.
    encode = json.JSONEncoder().encode
    roots = [r for r in request.get("roots", []) if isinstance(r, str)]
    trees = isolation.python_trees() + roots + (["/proc"] if private_proc else [])
    isolation.landlock(trees, directory)
    isolation.drop_capabilities()
    try:
        answer = encode(handle(request)).encode()
    except BaseException as error:  # noqa: BLE001 - even a failed encoding is an answer
        answer = encode({"outcome": "raised", "type": "error", "message": repr(error)}).encode()
    os.write(channel, len(answer).to_bytes(8, "big") + answer)
    os._exit(0)


def _read_answer(fd: int, deadline: float, request_fd: int) -> bytes | None:
    """The length-prefixed answer (b"" if the probe died first), None at the deadline.

    Not read to end-of-file: a process the probe forked may hold the pipe open. If
    gradlint goes away meanwhile (its request pipe ends), the run ends here."""
    data = b""
    while len(data) < 8 or len(data) < 8 + int.from_bytes(data[:8], "big"):
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready = select.select([fd, request_fd], [], [], left)[0]
        if not ready:
            return None
        if request_fd in ready and fd not in ready:
            _end_run()
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b""
        data += chunk
        if len(data) > 8 and int.from_bytes(data[:8], "big") > ANSWER_LIMIT:
            return b"{}"
    return data[8 : 8 + int.from_bytes(data[:8], "big")]


def _status_reason(status: int) -> str:
    if os.WIFSIGNALED(status):
        name = signal.Signals(os.WTERMSIG(status)).name
        hint = " (out of memory?)" if name == "SIGKILL" else ""
        hint = " (CPU time limit)" if name == "SIGXCPU" else hint
        return f"the probe interpreter was killed by {name}{hint}"
    return f"the probe ended the interpreter with exit status {os.WEXITSTATUS(status)}"


def handle(request: dict) -> dict:
    if request["kind"] == "witness":
        return run_program(request["program"], f"<witness {request.get('code', '')}>")
    from gradlint.probe.exec_probe import probe_file

    return probe_file(request)


def run_program(program: str, filename: str) -> dict:
    """Run a self-contained program in fresh globals; how it ended."""
    try:
        exec(compile(program, filename, "exec"), {"__name__": "__main__"})
    except BaseException as error:  # noqa: BLE001 - every ending is an outcome
        return describe_exception(error)
    return {"outcome": "clean"}
