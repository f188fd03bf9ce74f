"""GL208: the result of an out-of-place tensor op used as a statement of its own. Each
snippet was run in torch 2.13: in the positives the tensor is unchanged after the
statement (the asserts of tests/corpus/real show the effect on three real reports); the
look-alikes change something, keep the result, or are not tensors."""

import pytest
from conftest import codes, lint

HEADER = """
import torch
import torch.nn as nn

model = nn.Linear(4, 2)
x = torch.randn(3, 4)
"""


@pytest.mark.parametrize(
    "body",
    [
        # the DQN tutorial's gradient clipping (pytorch/tutorials#30)
        "def step():\n    model(x).sum().backward()\n"
        "    for param in model.parameters():\n        param.grad.data.clamp(-1, 1)\nstep()",
        # an attention mask that masks nothing (flamingo-pytorch#10)
        "def attend(q, k, mask):\n    sim = q @ k.t()\n    sim.masked_fill(~mask, -1e9)\n"
        "    return sim.softmax(-1)\n"
        "attend(torch.randn(3, 4), torch.randn(5, 4), torch.ones(3, 5, dtype=torch.bool))",
        # `.contiguous()` before a view (deep-auto-punctuation#3)
        "def flat(t):\n    out = t.transpose(0, 1)\n    out.contiguous()\n    return out\n"
        "flat(torch.randn(2, 3))",
        # a tensor moved to another dtype, the copy dropped
        "def prepare(batch):\n    batch = batch * 2\n    batch.to(torch.float64)\n"
        "    return batch\nprepare(x)",
    ],
)
def test_discarded_result_of_a_tensor_op(body):
    assert codes(HEADER + body) == ["GL208"]


@pytest.mark.parametrize(
    "body",
    [
        # the result kept, or the in-place form
        "def step():\n    model(x).sum().backward()\n"
        "    for param in model.parameters():\n        param.grad.data.clamp_(-1, 1)\nstep()",
        "def attend(q, k):\n    sim = q @ k.t()\n    sim = sim.masked_fill(sim > 0, 0.0)\n"
        "    return sim\nattend(x, x)",
        # a module moved in place: Module.to returns the module it changed
        "def place(net):\n    net.to(torch.float64)\n    return net\nplace(model)",
        "def place():\n    model.to(torch.float64)\nplace()",
        # a traced module is a module: `torch.jit.trace` returns no tensor of its example
        "def export(net):\n    traced = torch.jit.trace(net, x)\n    traced.to(torch.float64)\n"
        "    return traced\nexport(model)",
        "def export():\n    traced = torch.jit.trace(model, x)\n    traced.to(torch.float64)\n"
        "    return traced\nexport()",
        # a receiver not known to be a tensor (a set, a value of unknown kind)
        "def collect(seen, item):\n    seen.add(item)\n",
        "def collect(items):\n    s = set()\n    s.add(1)\n    return s\ncollect([])",
        # module level: the last statement of a notebook cell is the value it displays
        "y = x * 2\ny.clamp(-1, 1)",
        # a statement meant to raise, in a test
        "import pytest\ndef test_view():\n    t = torch.randn(2, 3).t()\n"
        "    with pytest.raises(RuntimeError):\n        t.view(6)\n",
        "def probe():\n    t = torch.randn(2, 3).t()\n    try:\n        t.view(6)\n"
        "    except RuntimeError:\n        pass\nprobe()",
        # a method with an effect of its own
        "def mark():\n    y = model(x) * 2\n    y.retain_grad()\n    y.sum().backward()\nmark()",
    ],
)
def test_kept_results_and_other_receivers_are_quiet(body):
    assert "GL208" not in codes(HEADER + body)


def test_message_names_the_receiver_and_fits():
    source = HEADER + (
        "def step():\n    model(x).sum().backward()\n"
        "    for param in model.parameters():\n        param.grad.data.clamp(-1, 1)\nstep()"
    )
    (finding,) = [f for f in lint(source) if f.code == "GL208"]
    assert "param.grad.data.clamp" in finding.message
    assert "clamp_" in finding.detail
