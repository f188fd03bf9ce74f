"""The warm, isolated worker process that runs probes, and its parent-side handle.

One worker per run imports torch once, then answers requests (one JSON line each) on a
private pipe. It runs CPU-only, in a temporary working directory that is also its HOME
and TMPDIR, under an address-space limit. A probe that hangs is killed with the whole
worker (which is restarted for the next probe); one that ends the interpreter or
exhausts memory becomes an outcome the planner turns into an `inconclusive` verdict.
The parent never imports torch.
"""

from __future__ import annotations

import contextlib
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
_ROOT = str(Path(__file__).resolve().parents[2])
_BOOTSTRAP = (
    "import sys; sys.path.insert(1, {root!r}); "
    "from gradlint.probe.sandbox import serve; serve({req}, {res})"
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

    def _limit_memory(self) -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (self.memory_limit, self.memory_limit))

    def start(self) -> None:
        request_read, request_write = os.pipe()
        response_read, response_write = os.pipe()
        code = _BOOTSTRAP.format(root=_ROOT, req=request_read, res=response_write)
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
                preexec_fn=self._limit_memory,
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
            os.write(self._requests, json.dumps(request).encode() + b"\n")
        except BrokenPipeError:
            return self._died()
        answer = self._receive(request.get("timeout", self.timeout))
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
        process = self._process
        try:
            status = process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "the probe worker stopped answering"
        if status < 0:
            name = signal.Signals(-status).name
            hint = " (out of memory?)" if name == "SIGKILL" else ""
            return f"the probe interpreter was killed by {name}{hint}"
        return f"the probe ended the interpreter with exit status {status}"

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


def serve(request_fd: int, response_fd: int) -> None:
    """The worker's loop: import torch once, then answer one request per line."""
    began = time.monotonic()
    responses = os.fdopen(response_fd, "w", buffering=1)
    try:
        import torch

        torch.set_num_threads(1)
    except BaseException as error:  # noqa: BLE001 - reported to the parent
        responses.write(json.dumps({"error": f"cannot import torch: {error!r}"}) + "\n")
        os._exit(1)
    responses.write(json.dumps({"ready": True, "import_seconds": time.monotonic() - began}) + "\n")
    with os.fdopen(request_fd, "r") as requests:
        for line in requests:
            answer = handle(json.loads(line))
            _reset_torch_state(torch)
            responses.write(json.dumps(answer) + "\n")


def _reset_torch_state(torch) -> None:
    """Undo global switches a probe may have flipped, so probes stay independent."""
    torch.set_grad_enabled(True)
    torch.set_default_dtype(torch.float32)
    torch.autograd.set_detect_anomaly(False)


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
