"""The torch knowledge API (gradlint/analysis/knowledge.py) over the generated data.

Each fact asserted here was derived by tools/gen_torch_knowledge.py from torch 2.13;
tests/test_gen_torch_knowledge.py re-derives them and proves the long-tail ones by
editing in place and calling backward.
"""

import json
import subprocess
import sys
from importlib import resources

import pytest

from gradlint.analysis import knowledge


def test_an_op_that_saves_its_output():
    facts = knowledge.op("torch.sigmoid")
    assert facts is not None and facts.saves_output and facts.output_saved({0})
    assert facts.saves_args == () and facts.inplace == "sigmoid_" and facts.shape == "elementwise"


def test_mul_saves_each_operand_for_the_other_ones_gradient():
    facts = knowledge.method("mul")
    assert facts is not None and facts.name == "torch.Tensor.mul"
    assert facts.saves_args_if_other_requires_grad
    assert facts.saved({1}) == (0,) and facts.saved({0}) == (1,)


def test_pow_saves_its_output_only_for_a_tensor_exponent_that_requires_grad():
    facts = knowledge.method("pow")
    assert facts is not None and 0 in facts.saved({0})
    assert not facts.output_saved({0}) and facts.output_saved({1})


def test_long_tail_ops_that_save_their_input():
    for name in ("torch.nn.functional.softplus", "torch.nn.functional.normalize"):
        facts = knowledge.op(name)
        assert facts is not None and facts.saved({0}) == (0,), name
    for name in ("torch.cumprod", "torch.logsumexp"):
        facts = knowledge.op(name)
        assert facts is not None and facts.saved({0}) == (0,) and facts.output_saved({0}), name


def test_views():
    transpose = knowledge.method("transpose")
    assert transpose is not None and transpose.view and transpose.makes_noncontiguous
    chunk = knowledge.op("torch.chunk")
    assert chunk is not None and chunk.multi_view
    reshape = knowledge.method("reshape")  # a view of a contiguous tensor, a copy otherwise
    assert reshape is not None and not reshape.view and reshape.may_view
    add = knowledge.op("torch.add")
    assert add is not None and not add.view and not add.may_view and add.keeps_layout


def test_aliases_resolve_to_the_canonical_op():
    facts = knowledge.op("torch.absolute")
    assert facts is not None and facts.name == "torch.abs"
    assert knowledge.op("torch.nn.functional.sigmoid") == knowledge.op("torch.sigmoid")


def test_methods_and_inplace_spellings():
    assert knowledge.method("softplus") is None  # a functional, not a Tensor method
    assert knowledge.inplace_method("add_") == "torch.Tensor.add"
    assert knowledge.inplace_method("zero_") == "torch.Tensor.zero_"
    assert knowledge.inplace_method("requires_grad_") is None
    assert knowledge.inplace_method("share_memory_") is None
    assert knowledge.inplace_function("torch.nn.functional.relu_")
    assert not knowledge.inplace_function("torch.nn.functional.relu")
    relu = knowledge.op("torch.nn.functional.relu")
    assert relu is not None and relu.inplace_arg == (1, "inplace")
    assert knowledge.op("torch.no_such_op") is None


def test_layers():
    linear = knowledge.layer("torch.nn.Linear")
    assert linear is not None and linear.parameters == ("weight", "bias")
    assert linear.parameter_shapes["weight"] == ("out_features", "in_features")
    assert linear.saves_input and linear.saves_input_for_params and linear.shape == "linear"
    relu = knowledge.layer("torch.nn.ReLU")
    assert relu is not None and relu.inplace_arg == (0, "inplace") and relu.saves_output
    assert not relu.saves_input_for_params
    assert knowledge.layer("torch.nn.NoSuchLayer") is None


def test_the_data_is_stamped_and_large_enough():
    data = json.loads(
        resources.files("gradlint.analysis").joinpath(knowledge.DATA_FILE).read_text("utf-8")
    )
    assert knowledge.version() == data["torch_version"] == "2.13.0"
    assert len(data["ops"]) >= 400 and len(data["layers"]) >= 60


def test_reading_the_data_imports_no_torch():
    program = (
        "import sys\nfrom gradlint.analysis import knowledge, torch_ops\n"
        "knowledge.op('torch.sigmoid'); knowledge.layer('torch.nn.Linear')\n"
        "tables = [getattr(torch_ops, name) for name in torch_ops._DERIVED]\n"
        "assert all(tables)\n"
        "assert 'torch' not in sys.modules, 'torch imported'"
    )
    subprocess.run([sys.executable, "-c", program], check=True)


def test_the_data_is_read_on_first_use_not_at_import():
    """Start-up: importing the engine and every rule family reads no data (a file with no
    torch op in it never pays for it)."""
    program = (
        "import importlib, pkgutil\nimport gradlint.checks, gradlint.engine, gradlint.cli\n"
        "for found in pkgutil.iter_modules(gradlint.checks.__path__):\n"
        "    importlib.import_module(f'gradlint.checks.{found.name}')\n"
        "from gradlint.analysis import knowledge\n"
        "assert knowledge._data.cache_info().currsize == 0, 'data read at import'"
    )
    subprocess.run([sys.executable, "-c", program], check=True)


def test_linting_through_the_derived_tables_imports_no_torch():
    source = (
        "import torch\n\n\nclass M(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.fc = torch.nn.Linear(4, 4)\n\n"
        "    def forward(self, x):\n        y = torch.cumprod(self.fc(x), 0)\n"
        "        y.mul_(2)\n        return y\n"
    )
    program = (
        "import sys\nfrom gradlint.engine import lint_source\n"
        f"codes = [d.code for d in lint_source('m.py', {source!r}).diagnostics]\n"
        "assert codes == ['GL103'], codes\n"
        "assert 'torch' not in sys.modules, 'torch imported'"
    )
    subprocess.run([sys.executable, "-c", program], check=True)


# A layer's `inplace` flag counts only where torch honours it: nn.AlphaDropout and
# nn.FeatureAlphaDropout take the flag and ignore it (their forward never passes it on),
# so a Sigmoid output they drop out stays intact; nn.Dropout's edit breaks backward.
FLAGGED_LAYERS = {
    "attribute": """
import torch
import torch.nn as nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.drop = nn.{layer}(0.1, inplace=True)

    def forward(self, x):
        return self.drop(torch.sigmoid(self.fc(x)))


M()(torch.randn(3, 4)).sum().backward()
""",
    "sequential": """
import torch
import torch.nn as nn

net = nn.Sequential(nn.Linear(4, 4), nn.Sigmoid(), nn.{layer}(0.2, True))
net(torch.randn(3, 4)).sum().backward()
""",
}


@pytest.mark.parametrize("shape", sorted(FLAGGED_LAYERS))
@pytest.mark.parametrize("layer", ["Dropout", "AlphaDropout", "FeatureAlphaDropout"])
def test_a_layers_inplace_flag_counts_only_where_torch_edits(shape, layer):
    from gradlint.engine import lint_source

    torch = pytest.importorskip("torch")
    source = FLAGGED_LAYERS[shape].format(layer=layer)
    edits = layer == "Dropout"
    assert (knowledge.layer(f"torch.nn.{layer}").inplace_arg is not None) == edits
    assert [d.code for d in lint_source("m.py", source).diagnostics] == ["GL103"] * edits
    try:
        exec(source, {"torch": torch})
    except RuntimeError as error:
        assert edits and "modified by an inplace operation" in str(error)
    else:
        assert not edits
