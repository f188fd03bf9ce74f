"""Runtime probes: verdicts, the sandbox's survival, and that witness mode runs no user code."""

import textwrap
from pathlib import Path

import pytest

from gradlint.diagnostic import Diagnostic, Severity, Witness
from gradlint.probe import ProbeUnavailable, run_probes
from gradlint.probe.planner import plan_exec

LEAF_PROGRAM = """
import torch
w = torch.ones(3, requires_grad=True)
w.add_(1)
"""
LEAF_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation"


def finding(program: str, expect: str = LEAF_MESSAGE, line: int = 1, path="model.py"):
    return Diagnostic(
        path=path,
        line=line,
        column=1,
        end_line=line,
        end_column=2,
        code="GL101",
        message="m",
        witness=Witness(textwrap.dedent(program), expect),
    )


def test_witness_verdicts_and_sandbox_survival():
    """One run: each hostile probe ends inconclusive with its reason, the rest still run."""
    hostile = {
        "loop": ("while True:\n    pass\n", "did not finish within 2 s"),
        "exit": ("import os\nos._exit(3)\n", "exit status 3"),
        "memory": (
            "import torch\ntorch.zeros(50 * 10**9, dtype=torch.uint8)\n",
            "exceeded the memory limit",
        ),
        "sys.exit": ("import sys\nsys.exit(4)\n", "sys.exit(4)"),
    }
    findings = {name: finding(program) for name, (program, _) in hostile.items()}
    findings["leaf"] = finding(LEAF_PROGRAM)
    findings["leaf again"] = finding(LEAF_PROGRAM, line=2)
    findings["clean"] = finding("import torch\ntorch.ones(2).add_(1)\n")
    findings["other error"] = finding("raise KeyError('nope')\n")
    findings["silent"] = finding(
        "raise AssertionError('parameter grad stayed None')\n", "parameter grad stayed None"
    )
    unprobed = Diagnostic("model.py", 9, 1, 9, 2, "GL303", "no witness")
    result = run_probes([*findings.values(), unprobed], timeout=2.0)
    assert len(result) == len(findings) + 1
    for name, (_, reason) in hostile.items():
        assert findings[name].probe["verdict"] == "inconclusive", name
        assert reason in findings[name].probe["message"], findings[name].probe
    for name in ("leaf", "leaf again"):
        assert findings[name].probe == {"verdict": "confirmed", "message": LEAF_MESSAGE + "."}
    assert findings["silent"].probe["verdict"] == "confirmed"
    assert findings["clean"].probe["verdict"] == "refuted"
    assert findings["other error"].probe["verdict"] == "inconclusive"
    assert "KeyError" in findings["other error"].probe["message"]
    assert unprobed.probe is None


def test_without_torch_the_probe_is_unavailable(monkeypatch):
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    with pytest.raises(ProbeUnavailable, match=r"gradlint\[runtime\]"):
        run_probes([finding(LEAF_PROGRAM)])


def test_no_witness_means_no_worker_and_no_verdict(monkeypatch):
    monkeypatch.setattr("gradlint.probe.Sandbox", None)  # would fail if a worker started
    d = Diagnostic("model.py", 1, 1, 1, 2, "GL303", "m")
    assert run_probes([d]) == [d]
    assert d.probe is None


def test_the_parent_never_imports_torch(tmp_path):
    import subprocess
    import sys

    script = (
        "import sys\nfrom gradlint.probe import run_probes\n"
        "from gradlint.diagnostic import Diagnostic, Witness\n"
        f"d = Diagnostic('m.py', 1, 1, 1, 2, 'GL101', 'm', witness=Witness({LEAF_PROGRAM!r}, "
        f"{LEAF_MESSAGE!r}))\nrun_probes([d])\n"
        "assert d.probe['verdict'] == 'confirmed', d.probe\nassert 'torch' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, cwd=tmp_path)


MARKER_MODULE = """
import torch
from pathlib import Path

Path({marker!r}).write_text("imported")
Path("relative-marker.txt").write_text("imported")


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.linear(x)
"""


def test_witness_probes_run_no_project_code(tmp_path, monkeypatch):
    marker = tmp_path / "marker.txt"
    module = tmp_path / "model.py"
    module.write_text(MARKER_MODULE.format(marker=str(marker)))
    monkeypatch.chdir(tmp_path)
    d = finding(LEAF_PROGRAM, path=str(module))
    run_probes([d], sources={str(module): module.read_text()})
    assert d.probe["verdict"] == "confirmed"
    assert not marker.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.py"]


def test_exec_probes_write_only_inside_their_temp_dir(tmp_path, monkeypatch):
    marker = tmp_path / "absolute" / "marker.txt"
    module = tmp_path / "model.py"
    module.write_text(MARKER_MODULE.format(marker="absolute-marker.txt"))
    monkeypatch.chdir(tmp_path)
    run_probes([], mode="exec", sources={str(module): module.read_text()})
    assert not marker.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.py"]  # no __pycache__ either


EXEC_FILES = {
    "exits.py": """
        import sys
        import torch
        sys.exit(1)
    """,
    "loops.py": """
        import torch
        while True:
            pass
    """,
    "shapes.py": """
        import torch
        import torch.nn as nn


        class Head(nn.Module):
            def __init__(self, features):
                super().__init__()
                self.linear = nn.Linear(features, 2)

            def forward(self, x):
                x = x.reshape(-1, 3)
                return self.linear(x)


        head = Head(6)
        out = head(torch.randn(2, 6))
    """,
    "ignored.py": """
        import torch
        import torch.nn as nn


        class Scale(nn.Module):
            def __init__(self, size=4):
                super().__init__()
                self.weight = nn.Parameter(torch.ones(size))
                self.extra = torch.zeros(size, requires_grad=True)
                self.blocks = [nn.Linear(size, size)]

            def forward(self, x):
                return self.blocks[0](x * self.weight * self.extra)

            def backward(self, grad_output):
                return grad_output
    """,
}


def _exec(tmp_path, files, diagnostics=(), timeout=3.0):
    sources = {}
    for name, source in files.items():
        path = tmp_path / name
        path.write_text(textwrap.dedent(source))
        sources[str(path)] = path.read_text()
    return run_probes(list(diagnostics), mode="exec", timeout=timeout, sources=sources)


def _at(tmp_path, name, line, code, severity=Severity.WARNING):
    return Diagnostic(str(tmp_path / name), line, 1, line, 2, code, "m", severity=severity)


def test_exec_probe_verdicts(tmp_path):
    exits = _at(tmp_path, "exits.py", 3, "GL202")
    loops = _at(tmp_path, "loops.py", 3, "GL202")
    backward = _at(tmp_path, "ignored.py", 16, "GL303")
    unregistered = _at(tmp_path, "ignored.py", 10, "GL501")
    container = _at(tmp_path, "ignored.py", 11, "GL502")
    reshape = _at(tmp_path, "shapes.py", 12, "GL403", Severity.ERROR)
    result = _exec(tmp_path, EXEC_FILES, [exits, loops, backward, unregistered, container, reshape])
    assert exits.probe == {"verdict": "inconclusive", "message": "the probe called sys.exit(1)"}
    assert loops.probe["verdict"] == "inconclusive"
    assert "did not finish within 3 s" in loops.probe["message"]
    assert backward.probe["verdict"] == "confirmed"
    assert "`Scale.backward` was never invoked by `loss.backward()`" in backward.probe["message"]
    assert unregistered.probe["verdict"] == "confirmed"
    assert "`self.extra`" in unregistered.probe["message"]
    assert container.probe["verdict"] == "confirmed"
    assert reshape.probe["verdict"] == "confirmed"
    assert reshape.probe["message"].startswith("mat1 and mat2 shapes cannot be multiplied")
    assert not [d for d in result if d.code == "GL901"]  # the reshape finding explains it


def test_exec_probe_reports_unexplained_errors_as_gl901(tmp_path):
    result = _exec(tmp_path, {"shapes.py": EXEC_FILES["shapes.py"]})
    [error] = result
    assert (error.code, error.line) == ("GL901", 13)
    assert error.probe["verdict"] == "confirmed"
    assert "Head(6) on inputs torch.randn(2, 6)" in error.message
    assert "mat1 and mat2 shapes cannot be multiplied (4x3 and 6x2)" in error.message


GUESSED_INPUTS = """
import torch
import torch.nn as nn


class TwoStage(nn.Module):
    def __init__(self):
        super().__init__()
        self.project = nn.Linear(16, 8)
        self.embed = nn.Linear(8, 16)

    def forward(self, x):
        return self.project(self.embed(x))
"""


def test_a_guessed_input_that_fails_is_not_a_finding(tmp_path):
    """Layers registered out of call order: the first guess fails, another runs clean."""
    assert _exec(tmp_path, {"stages.py": GUESSED_INPUTS}) == []


FUNCTION_FILE = """
import torch


class BadSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x


class Net(torch.nn.Module):
    def forward(self, x):
        return BadSquare.apply(x)


net = Net()
out = net(torch.randn(3))
"""


def test_exec_probe_gradchecks_autograd_functions(tmp_path):
    [error] = _exec(tmp_path, {"square.py": FUNCTION_FILE})
    assert (error.code, error.line) == ("GL901", 12)
    assert "Jacobian mismatch" in error.message
    assert "gradcheck(BadSquare.apply, float64, fast_mode=True)" in error.message


def test_plan_reads_constructor_arguments_and_call_site_inputs():
    source = textwrap.dedent(EXEC_FILES["shapes.py"])
    plan = plan_exec("/x/shapes.py", source)
    [head] = plan["classes"]
    assert head["constructor"] == {"args": ["6"], "kwargs": {}}
    assert head["inputs"] == [["torch.randn(2, 6)"]]
    opaque = plan_exec("/x/o.py", "import torch\nclass A:\n    pass\nA(len(x))\nA(foo)\n")
    assert opaque["classes"][0]["constructor"] is None


def test_refuted_when_the_flagged_line_runs_clean(tmp_path):
    source = "import torch\nx = torch.ones(3)\ny = x.view(3)\n"
    d = _at(tmp_path, "clean.py", 3, "GL401", Severity.ERROR)
    _exec(tmp_path, {"clean.py": source}, [d])
    assert d.probe["verdict"] == "refuted"


def test_unknown_mode_is_rejected():
    with pytest.raises(ValueError, match="probe mode"):
        run_probes([], mode="always")


def test_sandbox_leaves_no_temp_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    run_probes([finding(LEAF_PROGRAM)])
    assert list(Path(tmp_path).iterdir()) == []
