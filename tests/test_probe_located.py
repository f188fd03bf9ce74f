"""The code probe reports each runtime failure at the user's line that caused it."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gradlint.diagnostic import Diagnostic, Severity
from gradlint.probe import run_probes

FILES = {
    # The helper's `activation="relu"` makes it return F.relu's output, which ReLU saves
    # for backward; the caller's `+=` edits it. BatchNorm's running statistics are edited
    # in place too, with the same versions (0 -> 1) but another shape. The activation is
    # read from the environment (unset: "relu"), which the static side cannot know, so
    # only the probe's run finds this one (with a literal "relu", GL103 finds it too).
    "resblock.py": """
        import os

        import torch
        import torch.nn as nn
        import torch.nn.functional as F


        class Conv2d_batchnorm(nn.Module):
            def __init__(self, num_in_filters, num_out_filters, kernel_size, activation="relu"):
                super().__init__()
                self.activation = activation
                self.conv1 = nn.Conv2d(num_in_filters, num_out_filters, kernel_size, padding="same")
                self.batchnorm = nn.BatchNorm2d(num_out_filters)

            def forward(self, x):
                x = self.conv1(x)
                x = self.batchnorm(x)
                if self.activation == "relu":
                    return F.relu(x)
                return x


        class Multiresblock(nn.Module):
            def __init__(self, num_in_channels, num_filters):
                super().__init__()
                self.shortcut = Conv2d_batchnorm(num_in_channels, num_filters, 1, activation="None")
                activation = os.environ.get("ACTIVATION", "relu")  # static: not known
                self.conv_3x3 = Conv2d_batchnorm(num_in_channels, num_filters, 3, activation)

            def forward(self, x):
                shortcut = self.shortcut(x)
                x = self.conv_3x3(x)
                x += shortcut
                return x


        model = Multiresblock(3, 8)
        out = model(torch.randn(2, 3, 8, 8))
        out.sum().backward()
    """,
    # `unused_proj` is registered and never used; `frozen` is frozen on purpose; `extra`
    # runs only when the constructor asks; the script calls `decoder` itself; `kept` is
    # silenced by its noqa; `Direct` runs without `nn.Module.__call__` (no hook sees it
    # run: the probe cannot tell what it used).
    "unused.py": """
        import torch
        import torch.nn as nn


        class Gated(nn.Module):
            def __init__(self, width):
                super().__init__()
                self.value = nn.Linear(width, width)
                self.gate = nn.Linear(width, width)

            def forward(self, x):
                return self.value(x)


        class Direct(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(16, 16)
                self.spare = nn.Linear(16, 16)

            def __call__(self, x):
                return self.forward(x)

            def forward(self, x):
                return self.fc(x)


        class Net(nn.Module):
            def __init__(self, width=16, use_extra=False):
                super().__init__()
                self.use_extra = use_extra
                self.proj = nn.Linear(width, width)
                self.unused_proj = nn.Linear(width, width)
                self.frozen = nn.Linear(width, width)
                self.frozen.requires_grad_(False)
                self.extra = nn.Linear(width, width)
                self.decoder = nn.Linear(width, width)
                self.kept = nn.Linear(width, width)  # noqa: GL903 (old checkpoints have it)
                self.block = Gated(width)
                self.scale = nn.Parameter(torch.ones(width))

            def forward(self, x):
                h = self.block(self.proj(x))
                if self.use_extra:
                    h = self.extra(h)
                return h


        model = Net()
        out = model(torch.randn(4, 16))
        model.decoder(out).sum().backward()
    """,
    # A view made under no_grad, edited in place with grad on: torch raises at the edit.
    "views.py": """
        import torch
        import torch.nn as nn


        class Masked(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                h = self.fc(x)
                with torch.no_grad():
                    head = h[:, :2]
                head.zero_()
                return h


        model = Masked()
        model(torch.randn(3, 4)).sum().backward()
    """,
}


# The notebook's cells (a Markdown cell first): the resblock's classes in one cell, a
# module with a layer it never uses in the next, the script in the last.
NOTEBOOK_CELLS = [
    ("markdown", "# Residual blocks"),
    ("code", "import os\n\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F"),
    ("code", textwrap.dedent(FILES["resblock.py"]).split("\n\n\nmodel =")[0].split("\n\n\n", 1)[1]),
    (
        "code",
        "class Head(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(4, 4)\n"
        "        self.unused_proj = nn.Linear(4, 4)\n"
        "\n"
        "    def forward(self, x):\n"
        "        return self.fc(x)",
    ),
    (
        "code",
        "%matplotlib inline\nmodel = Multiresblock(3, 8)\nout = model(torch.randn(2, 3, 8, 8))",
    ),
]


def notebook_text() -> str:
    cells = [
        {"cell_type": kind, "metadata": {}, "source": source}
        | ({"outputs": [], "execution_count": None} if kind == "code" else {})
        for kind, source in NOTEBOOK_CELLS
    ]
    metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    return json.dumps({"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5})


def cell_line(cell: int, text: str) -> int:
    source = NOTEBOOK_CELLS[cell - 1][1]
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def line_of(name: str, text: str) -> int:
    source = textwrap.dedent(FILES[name])
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """One `gradlint --probe --format json` run over FILES: findings by file name."""
    directory = tmp_path_factory.mktemp("located")
    for name, source in FILES.items():
        (directory / name).write_text(textwrap.dedent(source))
    (directory / "blocks.ipynb").write_text(notebook_text())
    done = subprocess.run(
        [sys.executable, "-m", "gradlint", "--probe", "--format", "json", str(directory)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    found: dict[str, list[dict]] = {name: [] for name in [*FILES, "blocks.ipynb"]}
    for finding in json.loads(done.stdout):
        found[finding["path"].rsplit("/", 1)[-1]].append(finding)
    return found


def test_an_inplace_edit_of_a_saved_output_is_reported_at_the_edit(report):
    """torch raises in backward, naming ReLU's output at version 1 instead of 0: the
    finding stands at the `+=` that moved it, not at the ReLU that saved it (nor at the
    batch norm whose running statistics moved 0 -> 1 as well), which the detail names."""
    [finding] = [f for f in report["resblock.py"] if f["code"] == "GL901"]
    assert finding["line"] == line_of("resblock.py", "x += shortcut")
    assert "in-place write" in finding["message"]
    saver = line_of("resblock.py", "return F.relu(x)")
    assert f"line {saver} ran the op that saved the tensor for backward" in finding["detail"]
    assert "output 0 of Relu, is at version 1; expected version 0" in finding["detail"]
    assert finding["probe"]["verdict"] == "confirmed"


def test_a_layer_forward_never_uses_is_reported_by_name(report):
    """GL903 at the line storing each layer or parameter forward never used, naming its
    class, attribute and parameters (`Gated.gate` once, though both classes ran)."""
    found = {(f["line"], f["message"]) for f in report["unused.py"] if f["code"] == "GL903"}
    assert found == {
        (
            line_of("unused.py", "self.unused_proj ="),
            "`Net.unused_proj` is never used: its parameters get no gradient",
        ),
        (
            line_of("unused.py", "self.gate ="),
            "`Gated.gate` is never used: its parameters get no gradient",
        ),
        (
            line_of("unused.py", "self.scale ="),
            "`Net.scale` is never used: its parameters get no gradient",
        ),
    }
    [unused] = [f for f in report["unused.py"] if "unused_proj" in f["message"]]
    assert "`unused_proj.weight`, `unused_proj.bias` got no gradient" in unused["detail"]
    assert "Expected to have finished reduction in the prior iteration" in unused["detail"]


def test_frozen_branch_only_and_script_read_layers_are_quiet(report):
    """`frozen` requires no grad, `extra` is used on a branch the probe did not take,
    `decoder` is called by the script, `kept` has a noqa, `spare` is in a module run
    without `nn.Module.__call__`: no finding at their lines (and no crash)."""
    lines = {f["line"] for f in report["unused.py"]}
    stored_lines = (
        "self.frozen =",
        "self.extra =",
        "self.decoder =",
        "self.kept =",
        "self.spare =",
    )
    for stored in stored_lines:
        assert line_of("unused.py", stored) not in lines, stored


def test_a_graph_cut_finding_is_not_confirmed_by_a_branch_the_probe_did_not_take(tmp_path):
    """A graph-cut finding whose only parameter without gradient is used on a branch the
    probe did not take stays inconclusive and says so (it is not a cut)."""
    source = textwrap.dedent(FILES["unused.py"]).replace("self.unused_proj", "self.proj2")
    source = source.replace("self.block(self.proj(x))", "self.block(self.proj2(self.proj(x)))")
    source = source.replace("nn.Parameter(torch.ones(width))", "None")
    path = tmp_path / "branch.py"
    path.write_text(source)
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "return h" in text)
    cut = Diagnostic(str(path), line, 1, line, 2, "GL202", "m", severity=Severity.WARNING)
    found = run_probes([cut], sources={str(path): source})
    assert cut.probe["verdict"] == "inconclusive", cut.probe
    assert "`Net.extra`, used only on a branch the probe did not take" in cut.probe["message"]
    assert [d.code for d in found if d.code == "GL903"] == ["GL903"]  # Gated.gate


def test_a_notebook_is_probed_as_its_cells_read_together(report):
    """The cells run as the static side reads them: the probe's findings stand on the
    cells' lines, and the detail names the related line by cell."""
    found = {(f["code"], f["cell"], f["line"]) for f in report["blocks.ipynb"]}
    assert found == {
        ("GL901", 3, cell_line(3, "x += shortcut")),
        ("GL903", 4, cell_line(4, "self.unused_proj =")),
    }
    [error] = [f for f in report["blocks.ipynb"] if f["code"] == "GL901"]
    saver = cell_line(3, "return F.relu(x)")
    assert f"cell 3 line {saver} ran the op that saved the tensor for backward" in error["detail"]
    assert "names lines the file does not have" not in json.dumps(report["blocks.ipynb"])


def test_an_inplace_edit_of_a_forbidden_view_names_the_view(report):
    [finding] = [f for f in report["views.py"] if f["code"] == "GL901"]
    assert finding["line"] == line_of("views.py", "head.zero_()")
    view = line_of("views.py", "head = h[:, :2]")
    assert f"line {view} made the view" in finding["detail"]
    assert "A view was created in no_grad mode" in finding["probe"]["message"]


CUT = """
import torch
import torch.nn as nn


def scores(model, x):
    with torch.no_grad():
        logits = model(x)
    return logits


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 1)

    def forward(self, x):
        return self.fc(x)

    def train_step(self, x, y):
        pred = scores(self, x)
        loss = ((pred - y) ** 2).mean()
        loss.backward()
        return loss


model = Regressor()
model.train_step(torch.randn(8, 4), torch.randn(8, 1))
"""


# A gradient shaped like the input (12x12), made by a helper, for an 8x8 output.
SHAPE = """
import torch
import torch.nn as nn


def relevance_like(x):
    return torch.ones_like(x)


class Explainer(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 1, 5)

    def forward(self, x):
        return self.conv(x)

    def explain(self, x):
        x = x.requires_grad_()
        out = self.forward(x)
        relevance = relevance_like(x)
        (grad,) = torch.autograd.grad(out, x, grad_outputs=relevance)
        return grad


model = Explainer()
model.explain(torch.randn(1, 1, 12, 12))
"""


# A Function whose backward returns one gradient for two inputs.
FUNCTION = """
import torch
import torch.nn as nn


class ScaleGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return ScaleGrad.apply(self.fc(x), 2.0)


Net()(torch.randn(2, 4)).sum().backward()
"""


@pytest.fixture(scope="module")
def backward_errors(tmp_path_factory):
    """The probe alone (no static finding to explain anything) on CUT, SHAPE, FUNCTION."""
    directory = tmp_path_factory.mktemp("backward")
    sources = {
        str(directory / "cut.py"): CUT,
        str(directory / "shape.py"): SHAPE,
        str(directory / "function.py"): FUNCTION,
    }
    for path, source in sources.items():
        Path(path).write_text(source)
    found: dict[str, list[Diagnostic]] = {Path(path).name: [] for path in sources}
    for d in run_probes([], sources=sources):
        found[Path(d.path).name].append(d)
    return found


def test_a_backward_of_a_tensor_without_grad_names_the_cut(backward_errors):
    """The method the script calls runs backward on a loss computed under `no_grad` in a
    helper: torch raises at the backward, and the detail names the `with` that cut the
    graph (not the forward's layer that ran without recording)."""
    [finding] = backward_errors["cut.py"]
    lines = CUT.splitlines()
    assert finding.code == "GL901"
    assert lines[finding.line - 1].strip() == "loss.backward()"
    cut = lines.index("    with torch.no_grad():") + 1
    assert f"line {cut} cut the graph: it turned grad mode off" in finding.detail


def test_a_gradient_of_the_wrong_shape_names_where_it_was_made(backward_errors):
    [finding] = backward_errors["shape.py"]
    lines = SHAPE.splitlines()
    assert finding.code == "GL901"
    assert "autograd.grad(out, x, grad_outputs=relevance)" in lines[finding.line - 1]
    made = lines.index("    return torch.ones_like(x)") + 1
    assert f"line {made} made the gradient handed to backward" in finding.detail
    assert "grad_output[0] has a shape of torch.Size([1, 1, 12, 12])" in finding.detail


def test_a_function_whose_backward_returns_wrong_gradients_is_reported_at_its_return(
    backward_errors,
):
    """torch names the Function: the finding stands at its backward's `return` (once,
    though its gradcheck and the module's backward both fail), the `apply` in the detail."""
    [finding] = backward_errors["function.py"]
    lines = FUNCTION.splitlines()
    assert lines[finding.line - 1].strip() == "return g * ctx.k"
    assert "from what `ScaleGrad.backward` returns here" in finding.message
    applied = next(i for i, line in enumerate(lines, 1) if "ScaleGrad.apply(" in line)
    assert f"line {applied} applied the Function" in finding.detail
