"""The warm, isolated worker process that runs probes, and its parent-side handle.

One worker per run imports torch once, then answers requests (one JSON line each) on a
private pipe. It runs CPU-only, in a temporary working directory that is also its HOME
and TMPDIR. Each probe runs in a fork of the warm worker, under an address-space limit
and the probe timeout: a probe that hangs is killed, and one that ends the interpreter
or exhausts memory only ends its fork; each becomes an outcome the planner turns into
an `inconclusive` verdict, and the worker stays warm for the next probe. Forks also keep
probes from seeing each other's global state. The parent never imports torch.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# How long the worker may take to start and import torch (not a probe's budget).
STARTUP_TIMEOUT = 120.0
# How much longer than a probe's timeout the parent waits before it kills the worker.
WORKER_GRACE = 10.0
# Words of a witness program whose torch APIs import `torch._dynamo` lazily (seconds).
DYNAMO_USERS = ("optim", "checkpoint", "compile")
_ROOT = str(Path(__file__).resolve().parents[2])
_BOOTSTRAP = (
    "import sys; sys.path.insert(1, {root!r}); "
    "from gradlint.probe.sandbox import serve; serve({req}, {res}, {memory})"
)
_MEMORY_MARKERS = ("can't allocate memory", "out of memory", "Cannot allocate memory")


class SandboxError(RuntimeError):
    """The worker could not be started at all."""


class Sandbox:
    """Parent-side handle of the worker: `run(request)` -> outcome dict, restarts as needed."""

    def __init__(self, *, timeout: float = 10.0, memory_limit: int = 2 << 30) -> None:
        self.timeout = timeout
        self.memory_limit = memory_limit
        self.directory = tempfile.mkdtemp(prefix="gradlint-probe-")
        self.import_seconds: float | None = None
        self.starts = 0
        self._process: subprocess.Popen | None = None
        self._requests: int | None = None
        self._responses: int | None = None
        self._buffer = b""
        self._ended = False

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *_) -> None:
        self.close()

    def _environment(self) -> dict[str, str]:
        env = dict(os.environ)
        cache = os.path.join(self.directory, "cache")
        env.update(
            CUDA_VISIBLE_DEVICES="",
            HOME=self.directory,
            TMPDIR=self.directory,
            XDG_CACHE_HOME=cache,
            TORCH_HOME=cache,
            MPLCONFIGDIR=cache,
            PYTHONDONTWRITEBYTECODE="1",
            OMP_NUM_THREADS="1",
        )
        env.pop("PYTHONPATH", None)
        env.pop("PYTHONSTARTUP", None)
        return env

    def start(self) -> None:
        request_read, request_write = os.pipe()
        response_read, response_write = os.pipe()
        code = _BOOTSTRAP.format(
            root=_ROOT, req=request_read, res=response_write, memory=self.memory_limit
        )
        log = open(os.path.join(self.directory, "worker.log"), "ab")  # noqa: SIM115
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-B", "-s", "-c", code],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.directory,
                env=self._environment(),
                pass_fds=(request_read, response_write),
                start_new_session=True,
            )
        finally:
            log.close()
            os.close(request_read)
            os.close(response_write)
        self._requests, self._responses, self._buffer = request_write, response_read, b""
        self.starts += 1
        began = time.monotonic()
        ready = self._receive(STARTUP_TIMEOUT)
        if ready is None or "ready" not in ready:
            reason = self._death_reason() if ready is None else ready.get("error", "")
            self._kill()
            raise SandboxError(f"the probe worker did not start: {reason}")
        self.import_seconds = ready.get("import_seconds", time.monotonic() - began)

    def run(self, request: dict) -> dict:
        """The worker's answer, or {"outcome": "timeout" | "died", "reason": ...}."""
        if self._process is None:
            self.start()
        try:
            message = {**request, "timeout": self.timeout}
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
        """The next JSON line from the worker; None on timeout or end of stream (`_ended`)."""
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
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def _kill(self) -> None:
        if self._process is not None:
            with contextlib.suppress(ProcessLookupError):  # the whole group: forks too
                os.killpg(self._process.pid, signal.SIGKILL)
            self._process.wait()
            self._process = None
        for fd in (self._requests, self._responses):
            if fd is not None:
                os.close(fd)
        self._requests = self._responses = None

    def close(self) -> None:
        self._kill()
        shutil.rmtree(self.directory, ignore_errors=True)


# --- worker side: runs in the sandboxed interpreter -------------------------------------


def serve(request_fd: int, response_fd: int, memory_limit: int) -> None:
    """The worker's loop: import torch once, then answer one request per line."""
    began = time.monotonic()
    responses = os.fdopen(response_fd, "w", buffering=1)
    try:
        import torch

        torch.set_num_threads(1)  # no thread pool to break in the forks
    except BaseException as error:  # noqa: BLE001 - reported to the parent
        responses.write(json.dumps({"error": f"cannot import torch: {error!r}"}) + "\n")
        os._exit(1)
    responses.write(json.dumps({"ready": True, "import_seconds": time.monotonic() - began}) + "\n")
    with os.fdopen(request_fd, "r") as requests:
        for line in requests:
            request = json.loads(line)
            if any(word in _probed_text(request) for word in DYNAMO_USERS):
                importlib.import_module("torch._dynamo")  # before the fork and its timeout
            answer = run_forked(request, request["timeout"], memory_limit)
            _warm(answer.pop("imported", []))
            responses.write(json.dumps(answer) + "\n")


def _probed_text(request: dict) -> str:
    """The witness program, or the source of the file an exec probe imports."""
    if request["kind"] == "witness":
        return request["program"]
    try:
        with open(request["path"], encoding="utf-8", errors="replace") as file:
            return file.read()
    except OSError:
        return ""


def _is_torch(module: str) -> bool:
    return module == "torch" or module.startswith("torch.")


def _warm(modules: list[str]) -> None:
    """Import in the worker what a probe's fork imported lazily, so later forks have it."""
    for module in modules:
        with contextlib.suppress(Exception):
            importlib.import_module(module)


def run_forked(request: dict, timeout: float, memory_limit: int) -> dict:
    """`handle(request)` in a fork with its own process group, memory limit and deadline."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the probe
        os.close(read)
        os.setpgid(0, 0)
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
        before = set(sys.modules)
        try:
            outcome = handle(request)
            outcome["imported"] = [m for m in sys.modules if m not in before and _is_torch(m)]
            answer = json.dumps(outcome).encode()
        except BaseException as error:  # noqa: BLE001 - even a failed encoding is an answer
            answer = json.dumps({"outcome": "died", "reason": f"the probe failed: {error!r}"})
            answer = answer.encode()
        with os.fdopen(write, "wb") as channel:
            channel.write(len(answer).to_bytes(8, "big") + answer)
        os._exit(0)
    os.close(write)
    data = _read_answer(read, time.monotonic() + timeout)
    os.close(read)
    with contextlib.suppress(ProcessLookupError):  # also what the probe left running
        os.killpg(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    if data is None:
        return {
            "outcome": "timeout",
            "reason": f"the probe did not finish within {timeout:g} s and was killed",
        }
    if data:
        return json.loads(data)
    return {"outcome": "died", "reason": _status_reason(status)}


def _read_answer(fd: int, deadline: float) -> bytes | None:
    """The length-prefixed answer (b"" if the probe died first), None at the deadline.

    Not read to end-of-file: a process the probe forked may hold the pipe open."""
    data = b""
    while len(data) < 8 or len(data) < 8 + int.from_bytes(data[:8], "big"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b""
        data += chunk
    return data[8:]


def _status_reason(status: int) -> str:
    if os.WIFSIGNALED(status):
        name = signal.Signals(os.WTERMSIG(status)).name
        hint = " (out of memory?)" if name == "SIGKILL" else ""
        return f"the probe interpreter was killed by {name}{hint}"
    return f"the probe ended the interpreter with exit status {os.WEXITSTATUS(status)}"


def handle(request: dict) -> dict:
    if request["kind"] == "witness":
        return run_program(request["program"], f"<witness {request.get('code', '')}>")
    from gradlint.probe.exec_probe import probe_file

    return probe_file(request)


def describe_exception(error: BaseException) -> dict:
    """Outcome of a probe that raised: exits and memory exhaustion are named as such."""
    message = str(error)
    if isinstance(error, SystemExit):
        return {"outcome": "exit", "reason": f"the probe called sys.exit({error.code!r})"}
    if isinstance(error, MemoryError) or any(m in message for m in _MEMORY_MARKERS):
        first = message.splitlines()[0] if message else type(error).__name__
        return {"outcome": "memory", "reason": f"the probe exceeded the memory limit: {first}"}
    return {"outcome": "raised", "type": type(error).__name__, "message": message}


def run_program(program: str, filename: str) -> dict:
    """Run a self-contained program in fresh globals; how it ended."""
    try:
        exec(compile(program, filename, "exec"), {"__name__": "__main__"})
    except BaseException as error:  # noqa: BLE001 - every ending is an outcome
        return describe_exception(error)
    return {"outcome": "clean"}
