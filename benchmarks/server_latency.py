"""How soon `gradlint server` publishes diagnostics, by wall clock and by CPU time (the
figure to trust on a busy machine).

    python benchmarks/server_latency.py                    # a 300-line file, 5 fresh servers
    python benchmarks/server_latency.py model.py --runs 10 # any files
    python benchmarks/server_latency.py --edits 10         # + typing: syntax broken, mended
    python benchmarks/server_latency.py --huge 5           # + a small file beside a 5 MB one

Each run starts a fresh server, answers `initialize`, then opens the file and waits for
its `publishDiagnostics`: the first diagnostics after initialize, as an editor sees them.
CPU time is the user + system time of the server and its lint workers (`/proc/<pid>/stat`,
all threads) spent between the `didOpen` and the diagnostics. `--edits N` then changes the
300-line file N times, alternately breaking its syntax (a GL001) and mending it, each
answer timed from the `didChange` (the server's 0.25 s debounce included). `--huge MB`
opens a file of MB megabytes, then a small one, and times the small one's diagnostics.
The JSON-RPC client here is the one tests/test_server.py drives the server with.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from gradlint.cache import NO_CACHE_ENV

_TICK = os.sysconf("SC_CLK_TCK")


def three_hundred_lines() -> str:
    """A 300-line module: 58 small functions and one GL401 finding at its end."""
    body = "".join(
        f"def f{i}(x):\n    y = torch.randn(3, 4)\n    return x + y.sum()\n\n\n" for i in range(58)
    )
    return "import torch\n\n\n" + body + "z = torch.randn(3, 4).t().view(-1)\n"


class Client:
    """Just enough of an LSP client: framed JSON-RPC, requests, notifications."""

    def __init__(self, cwd: Path, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gradlint", "server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env={**os.environ, **(env or {})},
        )
        self.inbox: queue.Queue = queue.Queue()
        self.notifications: list[dict] = []
        self.ids = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            length = None
            while True:
                header = stream.readline()
                if not header:
                    return
                if header in (b"\r\n", b"\n"):
                    break
                name, _, value = header.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.inbox.put(json.loads(stream.read(length)))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def send_raw(self, data: bytes) -> None:
        """Bytes as they are, framed or not."""
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def notify(self, method: str, params: dict) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: dict, timeout: float = 30):
        self.ids += 1
        self.send({"id": self.ids, "method": method, "params": params})
        message = self._wait(lambda m: m.get("id") == self.ids and "method" not in m, timeout)
        assert "error" not in message, message
        return message["result"]

    def initialize(self, root: Path) -> dict:
        result = self.request(
            "initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}
        )
        self.notify("initialized", {})
        return result

    def open(self, path: Path, text: str) -> str:
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        uri = path.as_uri()
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
        )
        return uri

    def diagnostics(self, uri: str, version: int | None = None, timeout: float = 30) -> list:
        message = self._wait(
            lambda m: (
                m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == uri
                and (version is None or m["params"].get("version") == version)
            ),
            timeout,
        )
        return message["params"]["diagnostics"]

    def error_reply(self, timeout: float = 30) -> dict:
        """The next error answered to no request (id null): a parse error's."""
        message = self._wait(lambda m: "error" in m and m.get("id") is None, timeout)
        return message["error"]

    def processes(self) -> list[int]:
        """The server's process and its descendants (its lint workers and theirs)."""
        found, index = [self.process.pid], 0
        while index < len(found):
            found += children(found[index])
            index += 1
        return found

    def cpu_seconds(self) -> float:
        """The user + system CPU time so far of the server and its live descendants
        (the lint workers), all their threads."""
        total = 0
        for pid in self.processes():
            try:
                with open(f"/proc/{pid}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:  # ended meanwhile
                continue
            total += int(fields[11]) + int(fields[12])
        return total / _TICK

    def _wait(self, wanted, timeout: float) -> dict:
        for i, message in enumerate(self.notifications):
            if wanted(message):
                return self.notifications.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            message = self.inbox.get(timeout=max(deadline - time.monotonic(), 0.01))
            if wanted(message):
                return message
            if "method" in message and "id" in message:  # a request from the server
                self.send({"id": message["id"], "result": None})
            else:
                self.notifications.append(message)

    def close(self) -> None:
        try:
            if self.process.poll() is None:
                self.request("shutdown", {}, timeout=10)
                self.notify("exit", {})
                self.process.wait(timeout=10)
        finally:
            if self.process.poll() is None:
                self.process.kill()
            self.process.stdout.close()
            self.process.stdin.close()
            self.process.stderr.close()


def children(pid: int) -> list[int]:
    """The processes `pid` started that still run (Linux's /proc)."""
    found = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as listed:
                found += [int(child) for child in listed.read().split()]
        except OSError:
            continue
    return found


def first_diagnostics(directory: Path, name: str, text: str) -> dict:
    """One fresh server, its result cache off: seconds to answer initialize, then wall
    and CPU seconds from didOpen to the file's diagnostics, and the codes found."""
    start = time.monotonic()
    client = Client(directory, {NO_CACHE_ENV: "1"})
    try:
        client.initialize(directory)
        ready = time.monotonic() - start
        cpu = client.cpu_seconds()
        opened = time.monotonic()
        found = client.diagnostics(client.open(directory / name, text))
        wall = time.monotonic() - opened
        return {
            "initialize": ready,
            "wall": wall,
            "cpu": client.cpu_seconds() - cpu,
            "codes": [d["code"] for d in found],
        }
    finally:
        client.close()


def edit_latencies(directory: Path, edits: int) -> list[tuple[str, float, float]]:
    """Code, wall and CPU seconds of each answer to `edits` changes of the 300-line file
    that break its syntax and mend it in turn."""
    source = three_hundred_lines()
    client = Client(directory, {NO_CACHE_ENV: "1"})
    try:
        client.initialize(directory)
        uri = client.open(directory / "typing.py", source)
        client.diagnostics(uri)
        answers = []
        for version in range(2, edits + 2):
            text = source + "def broken(:\n" if version % 2 == 0 else source
            cpu, start = client.cpu_seconds(), time.monotonic()
            client.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"text": text}],
                },
            )
            found = client.diagnostics(uri, version=version)
            codes = ",".join(d["code"] for d in found)
            answers.append((codes, time.monotonic() - start, client.cpu_seconds() - cpu))
        return answers
    finally:
        client.close()


def beside_a_huge_file(directory: Path, megabytes: float) -> tuple[float, float]:
    """Wall seconds to a small file's diagnostics opened 1 s after a huge file, and to
    the huge file's own next (small) version's."""
    unit = three_hundred_lines()
    copies = int(megabytes * 1e6 / len(unit)) + 1
    huge = "".join(unit.replace("def f", f"def g{i}_") for i in range(copies))
    client = Client(directory, {NO_CACHE_ENV: "1"})
    try:
        client.initialize(directory)
        huge_uri = client.open(directory / "huge.py", huge)
        time.sleep(1)
        start = time.monotonic()
        client.diagnostics(client.open(directory / "small.py", unit), timeout=600)
        small = time.monotonic() - start
        start = time.monotonic()
        client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": huge_uri, "version": 2}, "contentChanges": [{"text": unit}]},
        )
        client.diagnostics(huge_uri, version=2, timeout=600)
        return small, time.monotonic() - start
    finally:
        client.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--edits", type=int, default=0, metavar="N")
    parser.add_argument("--huge", type=float, default=0, metavar="MB")
    args = parser.parse_args(argv)
    sources = {path.name: path.read_text(encoding="utf-8") for path in args.files}
    sources = sources or {"three_hundred_lines.py": three_hundred_lines()}
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for name, text in sources.items():
        with tempfile.TemporaryDirectory() as directory:
            runs = [first_diagnostics(Path(directory), name, text) for _ in range(args.runs)]
        lines = len(text.splitlines())
        median = {k: statistics.median(r[k] for r in runs) for k in ("initialize", "wall", "cpu")}
        print(
            f"{name} ({lines} lines, {len(runs[0]['codes'])} findings): first diagnostics "
            f"median {median['wall']:.3f} s wall, {median['cpu']:.3f} s CPU "
            f"(max {max(r['cpu'] for r in runs):.3f} s CPU); "
            f"initialize answered after {median['initialize']:.2f} s"
        )
    if args.edits:
        with tempfile.TemporaryDirectory() as directory:
            answers = edit_latencies(Path(directory), args.edits)
        for kind in ("GL001", "GL401"):
            walls = [wall for codes, wall, _ in answers if codes == kind]
            cpus = [cpu for codes, _, cpu in answers if codes == kind]
            print(
                f"edits answered with {kind} ({len(walls)} of {len(answers)}): median "
                f"{statistics.median(walls):.3f} s wall (max {max(walls):.3f}), "
                f"{statistics.median(cpus):.3f} s CPU, debounce included"
            )
    if args.huge:
        with tempfile.TemporaryDirectory() as directory:
            small, newer = beside_a_huge_file(Path(directory), args.huge)
        print(
            f"beside a {args.huge:g} MB file being linted: a small file's diagnostics after "
            f"{small:.2f} s; the big file's next (small) version's after {newer:.2f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
