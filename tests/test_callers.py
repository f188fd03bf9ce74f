"""Callers in other files (gradlint/callers.py): a method whose every use in the project is
a call inside a no-grad block runs without grad, though its own file cannot show it.

The shape is jeonsworld/ViT-pytorch's (models/modeling_resnet.py @ 460a162): a ResNet
unit's `load_from` copies pretrained weights into its GroupNorm parameters with no
`torch.no_grad()` of its own; its only caller is VisionTransformer.load_from in
models/modeling.py, inside `with torch.no_grad():`; train.py calls the
VisionTransformer's own load_from. Each project is also run in torch."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gradlint.cache import ResultCache
from gradlint.config import Config
from gradlint.engine import lint_source

LEAF_ERROR = "a leaf Variable that requires grad is being used in an in-place operation"

RESNET = """\
    import numpy as np
    import torch
    import torch.nn as nn


    def np2th(weights):
        return torch.from_numpy(np.asarray(weights, dtype=np.float32))


    class PreActBottleneck(nn.Module):
        def __init__(self, cout=8):
            super().__init__()
            self.gn1 = nn.GroupNorm(2, cout, eps=1e-6)
            self.conv1 = nn.Conv2d(cout, cout, 1, bias=False)

        def forward(self, x):
            return torch.relu(self.gn1(self.conv1(x)))

        def load_from(self, weights, n_block, n_unit):
            gn1_weight = np2th(weights[n_block + "/" + n_unit + "/gn1/scale"])
            gn1_bias = np2th(weights[n_block + "/" + n_unit + "/gn1/bias"])
            self.gn1.weight.copy_(gn1_weight.view(-1))
            self.gn1.bias.copy_(gn1_bias.view(-1))


    class ResNetV2(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Sequential(PreActBottleneck()))

        def forward(self, x):
            return self.body(x)
"""

MODELING = """\
    import torch
    import torch.nn as nn

    from models.modeling_resnet import ResNetV2, np2th


    class VisionTransformer(nn.Module):
        def __init__(self, zero_head=False):
            super().__init__()
            self.zero_head = zero_head
            self.hybrid_model = ResNetV2()
            self.head = nn.Linear(8, 10)

        def forward(self, x):
            return self.head(self.hybrid_model(x).mean((2, 3)))

        def load_from(self, weights):
            with torch.no_grad():
                if self.zero_head:
                    nn.init.zeros_(self.head.weight)
                    nn.init.zeros_(self.head.bias)
                else:
                    self.head.weight.copy_(np2th(weights["head/kernel"]).t())
                for bname, block in self.hybrid_model.body.named_children():
                    for uname, unit in block.named_children():
                        unit.load_from(weights, n_block=bname, n_unit=uname)
"""

TRAIN = """\
    import numpy as np
    import torch

    from models.modeling import VisionTransformer


    def setup():
        model = VisionTransformer(zero_head=True)
        weights = {{"0/0/gn1/scale": np.ones(8), "0/0/gn1/bias": np.zeros(8)}}
        model.load_from(weights)
        return model
{extra}

    model = setup()
    model(torch.randn(2, 8, 4, 4)).sum().backward()
"""

# a second caller, with grad on: the unit's edit then raises
UNIT_WITH_GRAD = """
    from models.modeling_resnet import PreActBottleneck

    unit = PreActBottleneck()
    unit.load_from({"a/b/gn1/scale": np.ones(8), "a/b/gn1/bias": np.zeros(8)}, "a", "b")
"""


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _project(root: Path, train_extra: str = "", modeling: str = MODELING) -> Path:
    files = {
        "models/modeling_resnet.py": RESNET,
        "models/modeling.py": modeling,
        "train.py": TRAIN.format(extra=train_extra),
    }
    _write(root, files)
    return root / "models" / "modeling_resnet.py"


def _codes(path: Path) -> list[tuple[str, int]]:
    result = lint_source(str(path), path.read_bytes())
    assert not result.internal_errors, result.internal_errors
    return [(d.code, d.line) for d in result.diagnostics]


def _run(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "train.py"], cwd=root, capture_output=True, text=True, timeout=120
    )


def test_method_only_called_under_another_files_no_grad_is_quiet(tmp_path):
    resnet = _project(tmp_path)
    assert _codes(resnet) == []
    ran = _run(tmp_path)
    assert ran.returncode == 0, ran.stderr


def test_a_second_caller_with_grad_keeps_the_edit_flagged(tmp_path):
    resnet = _project(tmp_path, textwrap.indent(textwrap.dedent(UNIT_WITH_GRAD), "    "))
    assert [code for code, _ in _codes(resnet)] == ["GL101", "GL101"]
    ran = _run(tmp_path)
    assert ran.returncode != 0 and LEAF_ERROR in ran.stderr


def test_the_file_alone_keeps_the_edit_flagged(tmp_path):
    resnet = tmp_path / "modeling_resnet.py"
    resnet.write_text(textwrap.dedent(RESNET))
    assert [code for code, _ in _codes(resnet)] == ["GL101", "GL101"]


@pytest.mark.parametrize(
    "change",
    [
        # a use that is not a call: the callback may run anywhere
        ("unit.load_from(weights, n_block=bname, n_unit=uname)", "hooks.append(unit.load_from)"),
        # grad switched back on inside the no-grad block
        (
            "unit.load_from(weights, n_block=bname, n_unit=uname)",
            "with torch.enable_grad():\n"
            "                        unit.load_from(weights, n_block=bname, n_unit=uname)",
        ),
        # a nested function defined inside the block may run after it
        (
            "unit.load_from(weights, n_block=bname, n_unit=uname)",
            "def later(unit=unit):\n"
            "                        unit.load_from(weights, n_block=bname, n_unit=uname)\n"
            "\n"
            "                    hooks.append(later)",
        ),
    ],
)
def test_uses_that_do_not_prove_no_grad_keep_the_edit_flagged(tmp_path, change):
    modeling = (
        textwrap.dedent(MODELING)
        .replace(*change)
        .replace(
            "    def load_from(self, weights):\n", "    def load_from(self, weights, hooks=[]):\n"
        )
    )
    assert change[1] in modeling
    resnet = _project(tmp_path, modeling=textwrap.indent(modeling, "    "))
    assert [code for code, _ in _codes(resnet)] == ["GL101", "GL101"]


def test_cache_key_follows_the_callers(tmp_path):
    resnet = _project(tmp_path)
    cache = ResultCache(tmp_path / "cache", Config())
    before = cache.key(str(resnet), resnet.read_bytes())
    modeling = tmp_path / "models" / "modeling.py"
    modeling.write_text(modeling.read_text().replace("with torch.no_grad():", "if True:"))
    assert cache.key(str(resnet), resnet.read_bytes()) != before
    assert [code for code, _ in _codes(resnet)] == ["GL101", "GL101"]


# YU1ut/MixMatch-pytorch @cc7ef42 utils/eval.py: a top-k helper with no torch import of
# its own, re-exported by utils/__init__.py, called by train.py with topk=(1, 5)
EVAL = """\
    from __future__ import print_function, absolute_import

    __all__ = ['accuracy']

    def accuracy(output, target, topk=(1,)):
        \"\"\"Computes the precision@k for the specified values of k\"\"\"
        maxk = max(topk)
        batch_size = target.size(0)

        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))

        res = []
        for k in topk:
            correct_k = correct[:k].{merge}.float().sum(0)
            res.append(correct_k.mul_(100.0 / batch_size))
        return res
"""
UTILS_INIT = """\
    \"\"\"Useful utils
    \"\"\"
    from .eval import *
"""
TOPK_TRAIN = """\
    {imports}
    from utils import accuracy

    outputs = torch.randn(16, 10)
    targets = torch.randint(0, 10, (16,))
    prec1, prec5 = accuracy(outputs, targets, topk=(1, 5))
"""
VIEW_ERROR = "view size is not compatible with input tensor's size and stride"


def _topk_project(root: Path, merge: str, imports: str) -> Path:
    files = {
        "utils/__init__.py": UTILS_INIT,
        "utils/eval.py": EVAL.format(merge=merge),
        "train.py": TOPK_TRAIN.format(imports=imports),
    }
    _write(root, files)
    return root / "utils" / "eval.py"


def test_helper_without_torch_import_used_by_torch_code_is_linted(tmp_path):
    helper = _topk_project(tmp_path, "view(-1)", "import torch")
    assert [code for code, _ in _codes(helper)] == ["GL401"]
    ran = _run(tmp_path)
    assert ran.returncode != 0 and VIEW_ERROR in ran.stderr


def test_its_reshape_twin_is_quiet_and_runs(tmp_path):
    helper = _topk_project(tmp_path, "reshape(-1)", "import torch")
    assert _codes(helper) == []
    ran = _run(tmp_path)
    assert ran.returncode == 0, ran.stderr


def test_helper_no_torch_file_imports_is_not_parsed(tmp_path):
    helper = _topk_project(tmp_path, "view(-1)", "import numpy as torch")
    assert _codes(helper) == []
