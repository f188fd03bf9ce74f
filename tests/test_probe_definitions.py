"""`--probe` (definitions mode): only the definitions of the user's modules run, their
`nn.Module` classes are built and run, and the verdicts say honestly what happened.
One run (one worker) over every file below."""

from __future__ import annotations

import textwrap

import pytest

from gradlint.diagnostic import Diagnostic, Severity, Witness
from gradlint.probe import run_probes
from gradlint.probe.exec_probe import definitions_only

VIEW_MESSAGE = "view size is not compatible with input tensor's size and stride"
SAVED_MESSAGE = "one of the variables needed for gradient computation has been modified"
GRADS_MESSAGE = "returned an incorrect number of gradients"
FILES = {
    "script.py": """
        import torch
        import torch.nn as nn

        import helper_hang


        class Head(nn.Module):
            def __init__(self, features):
                super().__init__()
                self.linear = nn.Linear(features, 2)

            def forward(self, x):
                return self.linear(x.reshape(-1, 3))


        head = Head(6)
        for step in range(10**9):
            out = head(torch.randn(2, 6))
        """,
    "helper_hang.py": """
        import torch

        SIZE = 6
        while True:
            pass
        """,
    "optional.py": """
        import torch
        import gradlint_absent_dependency


        class Logged(torch.nn.Module):
            def forward(self, x):
                return x.view(-1)
        """,
    "ste.py": """
        import torch


        class SignSTE(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return torch.sign(x)

            @staticmethod
            def backward(ctx, grad_output):
                (x,) = ctx.saved_tensors
                return grad_output * (x.abs() <= 1).to(grad_output.dtype)


        class Binary(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.linear = torch.nn.Linear(4, 4)

            def forward(self, x):
                return SignSTE.apply(self.linear(x))
        """,
    "cuda.py": """
        import torch


        class OnGpu(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.linear = torch.nn.Linear(4, 4)

            def forward(self, x):
                return self.linear(x.cuda())
        """,
    "extension.py": """
        import torch


        @torch.library.register_fake("gradlint_unbuilt::nms")
        def nms_fake(boxes, scores, threshold):
            return boxes.new_empty(0, dtype=torch.long)


        class Boxes(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.linear = torch.nn.Linear(4, 4)

            def forward(self, x):
                return self.linear(x)
        """,
    "raises.py": """
        import torch


        class Strict(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.linear = torch.nn.Linear(4, 4)

            def forward(self, x):
                raise RuntimeError("this module only runs under the launcher")
        """,
    "permute.py": """
        import torch
        import torch.nn as nn


        class Mixed(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv1d(4, 4, 1)
                self.linear = nn.Linear(4, 2)

            def forward(self, x):
                if x.dim() == 3:
                    x = self.conv(x).permute(0, 2, 1)
                    return x.view(x.shape[0], -1)
                return self.linear(x)
        """,
    "models.py": """
        import torch.nn as nn


        class Net(nn.Module):
            def __init__(self, features):
                super().__init__()
                self.linear = nn.Linear(features, 2)

            def forward(self, x):
                return self.linear(x.reshape(-1, 3))
        """,
    "train.py": """
        import torch

        import models

        net = models.Net(6)
        loss = net(torch.randn(2, 6)).sum()
        """,
    "blocks.py": """
        import torch.nn as nn


        class Block(nn.Module):
            def __init__(self, channels):
                super().__init__()
                self.relu = nn.ReLU(inplace=True)
                self.conv = nn.Conv2d(channels, channels, 1)

            def forward(self, x):
                x = self.relu(x)
                return self.conv(x)


        class Clean(nn.Module):
            def __init__(self, channels):
                super().__init__()
                self.conv = nn.Conv2d(channels, channels, 1)

            def forward(self, x):
                x = self.conv(x)
                return x.relu_()


        class Unit(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Sequential(nn.Conv2d(4, 4, 1), Block(4), Clean(4))

            def forward(self, x):
                return self.body(x)
        """,
    "other_models.py": """
        import torch.nn as nn


        class Net(nn.Module):
            def __init__(self, features=4):
                super().__init__()
                self.linear = nn.Linear(features, 2)

            def forward(self, x):
                return self.linear(x.reshape(-1, 4))
        """,
    "configured.py": """
        import torch.nn as nn


        class Wide(nn.Module):
            def __init__(self, features):
                super().__init__()
                self.linear = nn.Linear(features, 2)

            def forward(self, x):
                return self.linear(x.reshape(-1, 3))
        """,
    "nested.py": """
        import argparse

        import torch
        import torch.nn as nn

        parser = argparse.ArgumentParser()
        parser.add_argument("--hidden", type=int, default=6)
        args = parser.parse_args()
        WIDTH = 4


        class Gate(nn.Module):
            def __init__(self, features):
                super().__init__()
                self.linear = nn.Linear(features, features)

            def forward(self, x):
                return torch.sigmoid(self.linear(x))


        class Net(nn.Module):
            def __init__(self, width, hidden):
                super().__init__()
                self.proj = nn.Linear(width, hidden)
                self.gate = Gate(hidden)

            def forward(self, x, scale):
                h = self.gate(self.proj(x))
                h.mul_(scale)
                return h


        net = Net(WIDTH, args.hidden)
        x, scale = torch.randn(2, WIDTH), torch.randn(2, 1)
        net(x, scale).sum().backward()
        """,
    "switched.py": """
        import torch
        import torch.nn as nn


        def make_inplace(model):
            for m in model.modules():
                if isinstance(m, nn.Dropout):
                    m.inplace = True


        class Head(nn.Module):
            def __init__(self, features=4):
                super().__init__()
                self.linear = nn.Linear(features, features)
                self.relu = nn.ReLU()
                self.drop = nn.Dropout(0.5)
                make_inplace(self)

            def forward(self, x):
                return self.drop(self.relu(self.linear(x)))


        class Residual(nn.Module):
            def __init__(self, channels=4):
                super().__init__()
                self.conv = nn.Conv2d(channels, channels, 3, padding=1)

            def forward(self, x):
                out = self.conv(x)
                out += x
                return out
        """,
    "function.py": """
        import torch


        class Scale(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, factor):
                ctx.factor = factor
                return x * factor

            @staticmethod
            def backward(ctx, grad):
                return grad * ctx.factor


        class Scaler(torch.nn.Module):
            def forward(self, x):
                return Scale.apply(x, 2.0)


        scaler = Scaler()
        y = scaler(torch.randn(3, 4))
        """,
    "tokens.py": """
        import torch
        import torch.nn as nn


        class Tagger(nn.Module):
            def __init__(self, vocabulary):
                super().__init__()
                self.embed = nn.Embedding(vocabulary, 4)

            def forward(self, tokens):
                return self.embed(tokens)


        VOCABULARY = 10
        tagger = Tagger(VOCABULARY)
        tokens, labels = torch.tensor([1, 2, 3]), torch.tensor([0, 1, 0])
        out = tagger(tokens)
        """,
    "listed.py": """
        import torch
        import torch.nn as nn


        class Branches(nn.Module):
            def __init__(self, channels=6):
                super().__init__()
                self.convs = [nn.Conv1d(channels, 1, k) for k in (3, 4)]
                self.fc = nn.Linear(2, 2)

            def forward(self, x):
                return self.fc(torch.cat([conv(x).amax(dim=2) for conv in self.convs], 1))


        class Registered(nn.Module):
            def __init__(self, channels=6):
                super().__init__()
                self.convs = nn.ModuleList([nn.Conv1d(channels, 1, k) for k in (3, 4)])
                self.fc = nn.Linear(2, 2)

            def forward(self, x):
                return self.fc(torch.cat([conv(x).amax(dim=2) for conv in self.convs], 1))
        """,
    "logs.py": """
        import logging

        import torch

        logger = logging.getLogger(__name__)


        class Quiet(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.linear = torch.nn.Linear(4, 4)

            def forward(self, x):
                logger.info("forward")
                return self.linear(x)
        """,
}


def _text(finding) -> str:
    """A GL901's headline and detail: torch's message and how the probe got there."""
    return f"{finding.message} {finding.detail}"


def _line(name: str, text: str) -> int:
    source = textwrap.dedent(FILES[name])
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def _finding(directory, name, text, code, witness=None):
    line = _line(name, text)
    return Diagnostic(
        str(directory / name), line, 1, line, 2, code, "m", severity=Severity.ERROR, witness=witness
    )


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    directory = tmp_path_factory.mktemp("definitions")
    sources = {}
    for name, source in FILES.items():
        (directory / name).write_text(textwrap.dedent(source))
        sources[str(directory / name)] = textwrap.dedent(source)
    findings = {
        "reshape": _finding(directory, "script.py", "reshape", "GL403"),
        "optional": _finding(directory, "optional.py", "view(-1)", "GL401"),
        "edits input": _finding(directory, "blocks.py", "x = self.relu(x)", "GL104"),
        "edits its own": _finding(directory, "blocks.py", "x.relu_()", "GL104"),
        "view": _finding(
            directory,
            "permute.py",
            "x.view(",
            "GL401",
            Witness("import torch\ntorch.ones(2, 3).t().view(-1)\n", VIEW_MESSAGE),
        ),
    }
    saved = Witness("", SAVED_MESSAGE)
    findings["edit after call"] = _finding(directory, "nested.py", "h.mul_(", "GL103", saved)
    findings["switched"] = _finding(directory, "switched.py", "m.inplace = True", "GL103", saved)
    findings["residual"] = _finding(directory, "switched.py", "out += x", "GL103", saved)
    findings["listed"] = _finding(directory, "listed.py", "self.convs = [", "GL502")
    findings["registered"] = _finding(directory, "listed.py", "nn.ModuleList(", "GL502")
    findings["function"] = _finding(
        directory, "function.py", "return grad * ctx.factor", "GL304", Witness("", GRADS_MESSAGE)
    )
    modules = {  # probe-modules: no call in the project builds Wide
        "Wide": {"args": [6], "inputs": [["torch.randn(2, 6)"]]},
        "Quiet": {"args": ["__import__('os').system('true')"], "inputs": [["open('x')"]]},
    }
    result = run_probes(list(findings.values()), timeout=15.0, sources=sources, modules=modules)
    return findings, result, directory


def _gl901(run, name):
    _, result, directory = run
    return [d for d in result if d.code == "GL901" and d.path == str(directory / name)]


def test_module_level_code_never_runs(run):
    """The training loop of script.py and the `while True` of the sibling it imports
    would time out (the verdict would be inconclusive); only their definitions ran, and
    the class's bug is confirmed."""
    findings, _, _ = run
    reshape = findings["reshape"].probe
    assert reshape["verdict"] == "confirmed", reshape
    assert reshape["message"].startswith("mat1 and mat2 shapes cannot be multiplied (4x3 and 6x2)")


def test_a_missing_dependency_is_inconclusive_and_named(run):
    findings, _, _ = run
    assert findings["optional"].probe == {
        "verdict": "inconclusive",
        "message": "could not import: No module named 'gradlint_absent_dependency'",
    }
    assert _gl901(run, "optional.py") == []


def test_straight_through_estimators_are_no_gl901(run):
    assert _gl901(run, "ste.py") == []


def test_environment_failures_and_project_raises_are_no_gl901(run):
    assert _gl901(run, "cuda.py") == []
    assert _gl901(run, "extension.py") == []  # its C++ library is not built: no operator
    assert _gl901(run, "raises.py") == []
    assert _gl901(run, "logs.py") == []  # `logger` is module-level code: not run


def test_an_error_met_on_a_guessed_input_still_confirms_its_finding(run):
    """The Conv1d-shaped guess hits the view-after-permute error; the Linear-shaped one
    runs clean. The error is one a finding predicts: it is kept and confirms it."""
    findings, _, _ = run
    assert findings["view"].probe["verdict"] == "confirmed"
    assert findings["view"].probe["message"].startswith(VIEW_MESSAGE)
    assert _gl901(run, "permute.py") == []


def test_a_forward_that_edits_its_input_confirms_gl104(run):
    """The probe sees Block's input change during Block's forward (a hook on each of the
    file's modules, in its own run and in Unit's). Clean edits only its own tensor."""
    findings, _, _ = run
    edits = findings["edits input"].probe
    assert edits["verdict"] == "confirmed", edits
    assert edits["message"].startswith("`Block.forward` changed the tensor it was given")
    assert findings["edits its own"].probe["verdict"] != "confirmed"


def test_constructor_and_inputs_come_from_another_file_of_the_project(run):
    [error] = _gl901(run, "models.py")
    assert error.line == _line("models.py", "reshape")
    assert "Net(6) on inputs torch.randn(2, 6)" in _text(error)
    assert "mat1 and mat2 shapes cannot be multiplied (4x3 and 6x2)" in _text(error)


def test_calls_of_a_same_named_class_elsewhere_are_not_used(run):
    """train.py builds `models.Net(6)` and feeds it (2, 6): other_models.Net, which no
    file imports, is built with its defaults and fed inputs shaped for its layer."""
    assert _gl901(run, "other_models.py") == []


def test_configured_constructor_arguments_and_inputs(run):
    """`probe-modules` gives what no call in the project does; anything but literals and
    torch factories with literal arguments is dropped (Quiet runs on guessed inputs)."""
    [error] = _gl901(run, "configured.py")
    assert "Wide(6) on inputs torch.randn(2, 6)" in _text(error)
    assert _gl901(run, "logs.py") == []


def test_constructor_arguments_and_input_shapes_come_from_the_static_analysis(run):
    """Net(WIDTH, args.hidden) is built as Net(4, 6) (a module constant, an argparse
    default), Gate(hidden) inside it as Gate(6), and fed tensors shaped like the
    tuple-unpacked ones at the module level: the edit of Gate's saved sigmoid output in Net's
    forward (another function than the op that saved it) is confirmed at its line."""
    findings, _, _ = run
    edit = findings["edit after call"].probe
    assert edit["verdict"] == "confirmed", edit
    assert edit["message"].startswith(SAVED_MESSAGE)
    assert _gl901(run, "nested.py") == []


def test_the_line_that_switched_a_layer_to_inplace_is_confirmed(run):
    """`m.inplace = True` in a helper called by `__init__` made Dropout edit the ReLU
    output it saved; `out += x` after a conv (which saves its input, not its output)
    runs clean and is not confirmed."""
    findings, _, _ = run
    switched = findings["switched"].probe
    assert switched["verdict"] == "confirmed", switched
    assert switched["message"].startswith(SAVED_MESSAGE)
    assert findings["residual"].probe["verdict"] != "confirmed"


def test_a_function_torch_names_in_its_message_is_the_one_confirmed(run):
    findings, _, _ = run
    function = findings["function"].probe
    assert function["verdict"] == "confirmed", function
    assert "function ScaleBackward returned an incorrect number of gradients" in function["message"]
    assert _gl901(run, "function.py") == []


def test_inputs_rebuilt_from_shapes_are_guesses(run):
    """`tokens` has shape (3,) but the shape analysis knows no dtype: the float tensor
    rebuilt from it fails in the embedding, which is no finding."""
    assert _gl901(run, "tokens.py") == []


def test_layers_in_a_plain_list_are_confirmed_once_the_module_is_built(run):
    """The guessed input (shaped for `fc`) fails in the convolutions, but the built
    module already shows parameters that `parameters()` misses; a ModuleList does not."""
    findings, _, _ = run
    listed = findings["listed"].probe
    assert listed["verdict"] == "confirmed", listed
    assert "`self.convs` holds tensors that require grad" in listed["message"]
    assert findings["registered"].probe["verdict"] != "confirmed"
    assert _gl901(run, "listed.py") == []


def test_definitions_only_keeps_definitions_and_guarded_imports():
    source = textwrap.dedent(
        """
        import os
        try:
            import numpy as np
        except ImportError:
            np = None
        SIZE = 4
        NAMES = [n for n in os.listdir(".")]
        print("training")
        model = build()
        if __name__ == "__main__":
            main()
        if SIZE > 2:
            WIDE = True
            run()
        def f():
            return SIZE
        class C:
            pass
        """
    )
    namespace: dict = {}
    exec(definitions_only(source, "<m>"), namespace)
    assert {"os", "np", "SIZE", "WIDE", "f", "C"} <= set(namespace)
    assert "NAMES" not in namespace and "model" not in namespace
