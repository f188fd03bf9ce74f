"""The torch knowledge API (gradlint/analysis/knowledge.py) reads generated data."""

import subprocess
import sys

from gradlint.analysis import knowledge


def test_an_op_that_saves_its_output():
    facts = knowledge.op("torch.sigmoid")
    assert facts is not None and facts.saves_output and facts.output_saved({0})
    assert facts.saves_args == ()


def test_mul_saves_each_operand_for_the_other_ones_gradient():
    facts = knowledge.method("mul")
    assert facts is not None and facts.name == "torch.Tensor.mul"
    assert facts.saves_args_if_other_requires_grad
    assert facts.saved({1}) == (0,) and facts.saved({0}) == (1,)


def test_methods_and_inplace_spellings():
    assert knowledge.method("softplus") is None  # a functional, not a Tensor method
    assert knowledge.inplace_method("add_") == "torch.Tensor.add"
    assert knowledge.inplace_method("requires_grad_") is None
    assert knowledge.op("torch.no_such_op") is None


def test_layers():
    linear = knowledge.layer("torch.nn.Linear")
    assert linear is not None and {"weight", "bias"} <= set(linear.parameters)
    assert linear.saves_input
    assert knowledge.layer("torch.nn.NoSuchLayer") is None


def test_the_version_is_stamped():
    assert knowledge.version().startswith("2.")


def test_reading_the_data_imports_no_torch():
    program = (
        "import sys\nfrom gradlint.analysis import knowledge\n"
        "knowledge.op('torch.sigmoid'); knowledge.layer('torch.nn.Linear')\n"
        "assert 'torch' not in sys.modules, 'torch imported'"
    )
    subprocess.run([sys.executable, "-c", program], check=True)
