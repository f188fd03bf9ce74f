"""Runtime probes: verdicts, the sandbox's survival, and that witness mode runs no user code."""

import os
import textwrap
from pathlib import Path

import pytest

from gradlint.diagnostic import Diagnostic, Severity, Witness
from gradlint.probe import ProbeUnavailable, run_probes
from gradlint.probe.planner import plan_exec
from gradlint.probe.sandbox import Sandbox

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


HOSTILE = {
    "loop": ("while True:\n    pass\n", "did not finish within 2 s"),
    "exit": ("import os\nos._exit(3)\n", "exit status 3"),
    "memory": (
        "import torch\ntorch.zeros(50 * 10**9, dtype=torch.uint8)\n",
        "exceeded the memory limit",
    ),
    "sys.exit": ("import sys\nsys.exit(4)\n", "sys.exit(4)"),
}


@pytest.fixture(scope="module")
def witness_run(tmp_path_factory):
    """One witness-mode run (one worker) over hostile, true, false and silent findings,
    with a module in `sources` whose import would write marker files."""
    directory = tmp_path_factory.mktemp("witness")
    module = directory / "model.py"
    module.write_text(MARKER_MODULE.format(marker=str(directory / "marker.txt")))
    findings = {name: finding(program) for name, (program, _) in HOSTILE.items()}
    findings["leaf"] = finding(LEAF_PROGRAM, path=str(module))
    findings["leaf again"] = finding(LEAF_PROGRAM, line=2)
    findings["clean"] = finding("import torch\ntorch.ones(2).add_(1)\n")
    findings["other error"] = finding("raise KeyError('nope')\n")
    findings["silent"] = finding(
        "raise AssertionError('parameter grad stayed None')\n", "parameter grad stayed None"
    )
    findings["unprobed"] = Diagnostic("model.py", 9, 1, 9, 2, "GL303", "no witness")
    sandboxes = []

    class Recorded(Sandbox):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            sandboxes.append(self)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("gradlint.probe.Sandbox", Recorded)
        result = run_probes(
            list(findings.values()),
            mode="witness",
            timeout=2.0,
            sources={str(module): module.read_text()},
        )
    return findings, result, directory, sandboxes


def test_hostile_witnesses_end_inconclusive_and_the_run_goes_on(witness_run):
    findings, result, _, _ = witness_run
    assert len(result) == len(findings)
    for name, (_, reason) in HOSTILE.items():
        assert findings[name].probe["verdict"] == "inconclusive", name
        assert reason in findings[name].probe["message"], findings[name].probe


def test_one_worker_started_once_serves_the_whole_run(witness_run):
    """Hangs, exits and crashes end only the probe's fork: torch is imported once; the
    worker's temporary directory is gone afterwards."""
    _, _, _, sandboxes = witness_run
    assert [s.starts for s in sandboxes] == [1]
    assert not Path(sandboxes[0].directory).exists()


def test_witness_verdicts(witness_run):
    """The rule's example failing as predicted is "reproduced", never "confirmed": it
    says nothing about the user's code, nor does an example that runs clean."""
    findings, _, _, _ = witness_run
    for name in ("leaf", "leaf again"):
        assert findings[name].probe == {"verdict": "reproduced", "message": LEAF_MESSAGE + "."}
    assert findings["silent"].probe["verdict"] == "reproduced"
    assert findings["clean"].probe == {
        "verdict": "inconclusive",
        "message": "the rule's example ran without error",
    }
    assert findings["other error"].probe["verdict"] == "inconclusive"
    assert "KeyError" in findings["other error"].probe["message"]
    assert findings["unprobed"].probe is None


def test_witness_probes_run_no_project_code(witness_run):
    _, _, directory, _ = witness_run
    assert sorted(p.name for p in directory.iterdir()) == ["model.py"]


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
        "assert d.probe['verdict'] == 'reproduced', d.probe\nassert 'torch' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, cwd=tmp_path)


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


GUESSED_TOO_SMALL = """
import torch.nn as nn


class Stem(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, kernel_size=11)

    def forward(self, x):
        return self.conv(x)
"""


PACKAGED = """
import torch

from .sizes import IN_FEATURES


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(IN_FEATURES, 2)

    def forward(self, x):
        return self.linear(x.reshape(-1, 3))


head = Head()
out = head(torch.randn(2, 6))
"""


DETACHED = """
import torch.nn as nn


class Cut(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 2)

    def forward(self, x):
        hidden = self.a(x).detach()
        return self.b(hidden)
"""


ANNOTATED = """
from __future__ import annotations

import torch


class Project(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(20, 4)

    def forward(self, x: Float[Tensor, "batch 10"]):
        return self.linear(x)
"""


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


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.neg()


class Net(torch.nn.Module):
    def forward(self, x):
        return GradReverse.apply(BadSquare.apply(x))


net = Net()
out = net(torch.randn(3))
"""


def test_plan_reads_constructor_arguments_and_call_site_inputs():
    source = textwrap.dedent(EXEC_FILES["shapes.py"])
    plan = plan_exec("/x/shapes.py", source)
    [head] = plan["classes"]
    assert head["constructor"] == {"args": ["6"], "kwargs": {}, "guessed": False}
    assert head["inputs"] == [["torch.randn(2, 6)"]]
    opaque = plan_exec("/x/o.py", "import torch\nclass A:\n    pass\nA(len(x))\nA(foo)\n")
    assert opaque["classes"][0]["constructor"] is None


EXEC_FILES |= {
    "unexplained.py": EXEC_FILES["shapes.py"],
    "stages.py": GUESSED_INPUTS,
    "square.py": FUNCTION_FILE,
    "clean.py": "import torch\nx = torch.ones(3)\ny = x.view(3)\n",
    "kernel.py": GUESSED_TOO_SMALL,
    "annotated.py": ANNOTATED,
    "detached.py": DETACHED,
    "pkg/__init__.py": "",
    "pkg/sizes.py": "IN_FEATURES = 6\n",
    "pkg/model.py": PACKAGED,
    "reads.py": "import torch\nweights = open('weights.txt').read()\n",
    "writes.py": MARKER_MODULE.format(marker="absolute-marker.txt"),
}
EXEC_TIMEOUT = 12.0  # generous: the machine running the tests may be busy
# (file, line, code, severity) of the static findings the exec run is given
EXEC_FINDINGS = {
    "exit": ("exits.py", 3, "GL202", Severity.WARNING),
    "loop": ("loops.py", 3, "GL202", Severity.WARNING),
    "backward": ("ignored.py", 16, "GL303", Severity.WARNING),
    "unregistered": ("ignored.py", 10, "GL501", Severity.WARNING),
    "container": ("ignored.py", 11, "GL502", Severity.WARNING),
    "reshape": ("shapes.py", 12, "GL403", Severity.ERROR),
    "view": ("clean.py", 3, "GL401", Severity.ERROR),
    "detach": ("detached.py", 12, "GL202", Severity.WARNING),
}


@pytest.fixture(scope="module")
def exec_run(tmp_path_factory):
    """One exec-mode run (one worker) over every file above; cwd is the files' directory."""
    directory = tmp_path_factory.mktemp("exec")
    sources = {}
    for name, source in EXEC_FILES.items():
        path = directory / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(textwrap.dedent(source))
        sources[str(path)] = path.read_text()
    findings = {
        key: Diagnostic(str(directory / name), line, 1, line, 2, code, "m", severity=severity)
        for key, (name, line, code, severity) in EXEC_FINDINGS.items()
    }
    cwd = os.getcwd()
    os.chdir(directory)
    try:
        result = run_probes(
            list(findings.values()), mode="exec", timeout=EXEC_TIMEOUT, sources=sources
        )
    finally:
        os.chdir(cwd)
    return findings, result, directory


def _text(finding) -> str:
    """A GL901's headline and detail: torch's message and how the probe got there."""
    return f"{finding.message} {finding.detail}"


def _added(exec_run, name):
    _, result, directory = exec_run
    return [d for d in result if d.code == "GL901" and d.path == str(directory / name)]


def test_exec_probe_ends_exits_and_hangs_inconclusive(exec_run):
    findings, _, _ = exec_run
    assert findings["exit"].probe == {
        "verdict": "inconclusive",
        "message": "the probe called sys.exit(1)",
    }
    assert findings["loop"].probe["verdict"] == "inconclusive"
    assert f"did not finish within {EXEC_TIMEOUT:g} s" in findings["loop"].probe["message"]


def test_exec_probe_confirms_structural_findings(exec_run):
    findings, _, _ = exec_run
    backward = findings["backward"].probe
    assert backward["verdict"] == "confirmed"
    assert "`Scale.backward` was never invoked by `loss.backward()`" in backward["message"]
    assert findings["unregistered"].probe["verdict"] == "confirmed"
    assert "`self.extra`" in findings["unregistered"].probe["message"]
    assert findings["container"].probe["verdict"] == "confirmed"


def test_parameters_left_without_gradient_confirm_a_graph_cut(exec_run):
    findings, _, _ = exec_run
    assert findings["detach"].probe == {
        "verdict": "confirmed",
        "message": "after `loss.backward()` `a.weight`, `a.bias` still have no gradient",
    }


def test_exec_probe_confirms_the_error_a_finding_predicts(exec_run):
    findings, _, _ = exec_run
    reshape = findings["reshape"].probe
    assert reshape["verdict"] == "confirmed"
    assert reshape["message"].startswith("mat1 and mat2 shapes cannot be multiplied")
    assert _added(exec_run, "shapes.py") == []  # the reshape finding explains the error


def test_exec_probe_reports_unexplained_errors_as_gl901(exec_run):
    [error] = _added(exec_run, "unexplained.py")
    assert error.line == 13
    assert error.probe["verdict"] == "confirmed"
    assert "Head(6) on inputs torch.randn(2, 6)" in _text(error)
    assert "mat1 and mat2 shapes cannot be multiplied (4x3 and 6x2)" in _text(error)


def test_a_guessed_input_that_fails_is_not_a_finding(exec_run):
    """Layers registered out of call order: the first guess fails, another runs clean."""
    assert _added(exec_run, "stages.py") == []


def test_an_error_on_inputs_shaped_by_guess_is_no_finding(exec_run):
    """The guessed 8x8 image is smaller than the kernel: the guess's fault, not the code's."""
    assert _added(exec_run, "kernel.py") == []


def test_jaxtyping_annotations_give_the_input_shapes(exec_run):
    [error] = _added(exec_run, "annotated.py")
    assert error.line == 13
    assert "Project() on inputs torch.randn(3, 10)" in _text(error)
    assert "mat1 and mat2 shapes cannot be multiplied (3x10 and 20x4)" in _text(error)


def test_an_error_torch_did_not_raise_is_no_finding(exec_run):
    """A data file missing from the sandbox's directory is no torch error."""
    assert _added(exec_run, "reads.py") == []


def test_modules_of_a_package_import_with_their_relative_imports(exec_run):
    [error] = _added(exec_run, "pkg/model.py")
    assert error.line == 13
    assert "mat1 and mat2 shapes cannot be multiplied (4x3 and 6x2)" in _text(error)


def test_a_gradcheck_mismatch_is_no_finding(exec_run):
    """gradcheck cannot tell BadSquare's wrong factor from GradReverse's deliberate sign
    flip (a domain-adaptation staple): a backward that is not the forward's derivative
    is no GL901 by itself."""
    assert _added(exec_run, "square.py") == []


def test_refuted_when_the_flagged_line_runs_clean(exec_run):
    findings, _, _ = exec_run
    assert findings["view"].probe["verdict"] == "refuted"


def test_exec_probes_write_only_inside_their_temp_dir(exec_run):
    _, _, directory = exec_run
    written = [str(p.relative_to(directory)) for p in directory.rglob("*")]
    assert sorted(written) == sorted([*EXEC_FILES, "pkg"])  # no __pycache__ either


def test_plan_reads_argument_tuples():
    source = textwrap.dedent(
        """
        import torch
        class Pair(torch.nn.Module):
            def forward(self, x, y):
                return x + y
        example_args = (torch.randn(3, 2), torch.ones(2))
        model = Pair()
        model(*example_args)
        """
    )
    plan = plan_exec("/x/pair.py", source)
    pair = ["torch.randn(3, 2)", "torch.ones(2)"]
    assert plan["classes"][0]["inputs"] == [pair]
    assert plan["file_inputs"] == [pair]


def test_unknown_mode_is_rejected():
    with pytest.raises(ValueError, match="probe mode"):
        run_probes([], mode="always")
