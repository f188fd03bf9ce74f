"""Linted code as an attacker: each attack is made by a linted file under `--probe=exec`
(module-level code runs, the widest exposure). Each test asserts the attack failed and
that the report the user sees is still correct.

One gradlint run (a subprocess, started with a secret in its environment, as CI would
have) probes every attacker file and a victim file; one worker serves it."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from gradlint.probe.isolation import landlock_abi
from gradlint.probe.sandbox import runs_directory, sweep

SECRET = "gl-secret-" + secrets.token_hex(8)
MARK = "glatk" + secrets.token_hex(4)  # process name of what the attacks leave running

HEADER = "import os\nimport torch\nimport torch.nn as nn\n\n"
# Every attacker file ends with this module: its reshape bug must still be confirmed.
BUGGY = """

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(6, 2)

    def forward(self, x):
        return self.linear(x.reshape(-1, 3))


net = Net()
out = net(torch.randn(2, 6))
"""
NAME_SELF = """
import ctypes
ctypes.CDLL(None).prctl(15, {mark!r}.encode(), 0, 0, 0)
"""
ATTACKS = {
    "writes": """
        open({outside!r} + "/written.txt", "w").write("x")
    """,
    "writes_beside": """
        open(os.path.join(os.path.dirname(__file__), "beside.txt"), "w").write("x")
    """,
    "subprocess": """
        import subprocess
        subprocess.run(["sh", "-c", "echo x > {outside}/sub.txt"])
    """,
    "system": """
        os.system("echo x > {outside}/system.txt")
    """,
    "network": """
        import socket
        socket.create_connection(("127.0.0.1", {port}), timeout=2).sendall(b"stolen")
    """,
    "daemon": """
        import time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                {name_self}
                time.sleep(300)
            os._exit(0)
    """,
    "forkbomb": """
        import time
        for _ in range(100):
            if os.fork() == 0:
                {name_self}
                time.sleep(300)
                os._exit(0)
    """,
    "garbage": """
        for fd in range(64):
            try:
                os.write(fd, b"\\x00\\xffgarbage\\n{{not json\\n")
            except OSError:
                pass
    """,
    "forged": """
        import json
        FORGED = {{"type": "RuntimeError", "bases": ["Exception"], "message": "FORGED",
                   "lines": [99999], "raised_by": "torch"}}
        json.dumps = lambda *a, **k: json.JSONEncoder().encode(
            {{"outcome": "done", "executed": [],
             "runs": [{{"class": "Net", "line": 1, "end_line": 99999, "context": "forged",
                       "error": FORGED}}]}})
    """,
    "planted": """
        PLANTED = "open({outside!r} + '/planted-ran.txt', 'w').write('x')\\n"
        for where in (".", os.path.dirname(__file__), "/tmp", os.path.dirname(torch.__file__)):
            try:
                open(os.path.join(where, "gradlint_planted.py"), "w").write(PLANTED)
            except OSError:
                pass
    """,
    "kill_parent": """
        import signal
        os.kill(os.getppid(), signal.SIGKILL)
    """,
}
LEAK = """
import os
import torch

hits = []
if {secret!r} in os.environ.get("GRADLINT_TEST_SECRET", ""):
    hits.append("env")
for name in os.listdir("/proc"):
    try:
        if {secret!r} in open(f"/proc/{{name}}/environ").read():
            hits.append("proc" + name)
    except OSError:
        pass
for path in ({home_file!r}, os.path.expanduser("~/.bashrc")):
    try:
        if {secret!r} in open(path).read():
            hits.append(path)
    except OSError:
        pass
torch.device("gradlint-leak:" + ",".join(hits) + ":end")
"""
ENDINGS = {
    "exits": ("import os\nimport torch\nos._exit(3)\n", "exit status 3"),
    "memory": (
        "import torch\ntorch.zeros(50 * 10**9, dtype=torch.uint8)\n",
        "exceeded the memory limit",
    ),
}
RUN = """
import json, sys
from gradlint.diagnostic import Diagnostic, Severity
from gradlint.probe import run_probes
spec = json.load(sys.stdin)
found = [Diagnostic(p, line, 1, line, 2, "GL403", "m") for p, line in spec["findings"]]
result = run_probes(found, mode="exec", timeout=spec["timeout"], sources=spec["sources"])
print(json.dumps([[d.path, d.line, d.code, d.message, d.probe] for d in result]))
"""
TIMEOUT = 15.0  # no attack hangs: generous for a busy machine


def _bug_line(source: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if "reshape" in line)


def _our_processes() -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and MARK in Path(f"/proc/{name}/comm").read_text():
                found.append(int(name))
        except OSError:
            pass
    return found


@pytest.fixture(scope="module")
def attacked(tmp_path_factory):
    project = tmp_path_factory.mktemp("attacker")
    outside = tmp_path_factory.mktemp("outside")
    home_file = outside / ".bashrc"
    home_file.write_text(f"export TOKEN={SECRET}\n")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.setblocking(False)
    values = {
        "outside": str(outside),
        "port": server.getsockname()[1],
        "name_self": textwrap.indent(NAME_SELF.format(mark=MARK), " " * 16).strip(),
    }
    sources, findings = {}, []
    for name, attack in ATTACKS.items():
        body = textwrap.indent(textwrap.dedent(attack.format(**values)), "    ")
        source = f"{HEADER}try:\n{body}except OSError:\n    pass\n{BUGGY}"
        path = project / f"{name}.py"
        path.write_text(source)
        sources[str(path)] = source
        findings.append([str(path), _bug_line(source)])
    for name, (source, _) in ENDINGS.items():
        (project / f"{name}.py").write_text(source)
        sources[str(project / f"{name}.py")] = source
        findings.append([str(project / f"{name}.py"), 2])
    leak = LEAK.format(secret=SECRET, home_file=str(home_file))
    (project / "leak.py").write_text(leak)
    sources[str(project / "leak.py")] = leak
    victim = "import torch\nimport torch.nn as nn\n" + BUGGY
    (project / "victim.py").write_text(victim)
    sources[str(project / "victim.py")] = victim
    findings.append([str(project / "victim.py"), _bug_line(victim)])
    spec = json.dumps({"sources": sources, "findings": findings, "timeout": TIMEOUT})
    env = {**os.environ, "GRADLINT_TEST_SECRET": SECRET}
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", RUN], input=spec, capture_output=True, text=True, env=env
    )
    seconds = time.monotonic() - began
    accepted = []
    with contextlib.suppress(BlockingIOError):
        accepted.append(server.accept())
    server.close()
    left = _our_processes()
    for pid in left:  # the test must not leave them either
        os.kill(pid, signal.SIGKILL)
    report = json.loads(done.stdout) if done.returncode == 0 else None
    return {
        "done": done,
        "report": report,
        "project": project,
        "outside": outside,
        "accepted": accepted,
        "left": left,
        "seconds": seconds,
    }


def _verdicts(attacked, name):
    path = str(attacked["project"] / f"{name}.py")
    return [(code, probe) for p, _, code, _, probe in attacked["report"] if p == path]


def test_gradlint_survives_every_attack_and_reports(attacked):
    assert attacked["done"].returncode == 0, attacked["done"].stderr
    assert attacked["report"]


def test_the_victim_file_is_judged_correctly(attacked):
    [(code, probe)] = _verdicts(attacked, "victim")
    assert code == "GL403" and probe["verdict"] == "confirmed"
    assert probe["message"].startswith("mat1 and mat2 shapes cannot be multiplied (4x3 and 6x2)")


@pytest.mark.parametrize(
    "name", ["writes", "writes_beside", "subprocess", "system", "network", "daemon", "planted"]
)
def test_each_attacker_still_gets_its_own_bug_confirmed(attacked, name):
    [(code, probe)] = [v for v in _verdicts(attacked, name) if v[0] == "GL403"]
    assert probe["verdict"] == "confirmed", probe
    assert probe["message"].startswith("mat1 and mat2 shapes cannot be multiplied")


needs_landlock = pytest.mark.skipif(
    landlock_abi() < 4, reason="writes, exec and TCP are blocked by Landlock ABI 4+"
)


@needs_landlock
def test_no_write_outside_the_probe_directory(attacked):
    assert sorted(p.name for p in attacked["outside"].iterdir()) == [".bashrc"]
    assert not (attacked["project"] / "beside.txt").exists()
    assert not (attacked["project"] / "gradlint_planted.py").exists()


@needs_landlock
def test_no_subprocess_and_no_connection(attacked):
    assert not (attacked["outside"] / "sub.txt").exists()
    assert not (attacked["outside"] / "system.txt").exists()
    assert attacked["accepted"] == []


def test_no_secret_reaches_the_report(attacked):
    """The leak file reads the environment, every /proc/*/environ (gradlint's holds the
    secret) and a dotfile, and puts what it found into a torch error message."""
    text = json.dumps(attacked["report"])
    assert SECRET not in text
    [(code, probe)] = _verdicts(attacked, "leak")
    assert code == "GL901"  # the channel works; it carries no secret
    assert "gradlint-leak::end" in probe["message"], probe


def test_no_process_outlives_the_run(attacked):
    """setsid daemons and a (bounded) fork bomb are gone when gradlint returns."""
    assert attacked["left"] == []


def test_garbage_on_inherited_fds_makes_that_probe_inconclusive(attacked):
    [(code, probe)] = _verdicts(attacked, "garbage")
    assert probe["verdict"] == "inconclusive"
    assert "answer" in probe["message"]


def test_forged_answers_are_rejected(attacked):
    """Patching json.dumps does not change the answer (the encoder is bound before the
    file runs); lines a forged answer names outside the file would be rejected."""
    assert [v[0] for v in _verdicts(attacked, "forged")] == ["GL403"]
    assert "FORGED" not in json.dumps(attacked["report"])


def test_a_planted_module_is_never_imported(attacked):
    assert not (attacked["outside"] / "planted-ran.txt").exists()


def test_killing_the_parent_is_not_possible(attacked):
    [(code, probe)] = _verdicts(attacked, "kill_parent")
    assert probe["verdict"] == "confirmed"


@pytest.mark.parametrize("name", list(ENDINGS))
def test_endings_are_inconclusive_with_their_reason(attacked, name):
    [(_, probe)] = _verdicts(attacked, name)
    assert probe["verdict"] == "inconclusive"
    assert ENDINGS[name][1] in probe["message"]


def test_sweep_removes_the_directories_of_dead_runs(tmp_path):
    base = runs_directory()
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], text=True, capture_output=True
    ).stdout.strip()
    stale = Path(base) / f"run-{dead}-abc"
    (stale / "probe-1-x").mkdir(parents=True)
    mine = Path(base) / f"run-{os.getpid()}-keep"
    mine.mkdir()
    try:
        removed = sweep(base)
        assert stale.name in removed and not stale.exists()
        assert mine.exists()
    finally:
        mine.rmdir()


KILLED = """
import json, sys
from gradlint.diagnostic import Diagnostic
from gradlint.probe import run_probes
path = sys.argv[1]
run_probes([Diagnostic(path, 3, 1, 3, 2, "GL202", "m")], mode="exec", timeout=60,
           sources={path: open(path).read()})
"""


def test_sigkill_of_gradlint_leaves_no_directory_and_no_process(tmp_path):
    """The worker notices gradlint is gone (its request pipe ends), kills the probe and
    everything it started, and removes the run's directory."""
    hang = tmp_path / "hang.py"
    hang.write_text(
        "import os, time\nimport torch\n"
        + NAME_SELF.format(mark=MARK)
        + "while True:\n    time.sleep(0.1)\n"
    )
    gradlint = subprocess.Popen([sys.executable, "-c", KILLED, str(hang)])
    base = Path(runs_directory())
    deadline = time.monotonic() + 120
    runs = []
    while time.monotonic() < deadline and not _our_processes():
        time.sleep(0.2)
    runs = list(base.glob(f"run-{gradlint.pid}-*"))
    assert runs and _our_processes(), "the probe never started"
    gradlint.send_signal(signal.SIGKILL)
    gradlint.wait()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and (runs[0].exists() or _our_processes()):
        time.sleep(0.2)
    assert not runs[0].exists()
    assert _our_processes() == []
