"""GL207: a tensor that requires grad handed to numpy, in a run of the file's own code.
Each snippet was run in torch 2.13: the positives raise "Can't call numpy() on Tensor
that requires grad"; the look-alikes run, raise another error, or raise on one path only."""

import pytest
from conftest import codes, lint

HEADER = """
import numpy as np
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
x = torch.randn(8, 4)
"""


@pytest.mark.parametrize(
    "body",
    [
        # losses kept for a plot, averaged by numpy
        "losses = []\nfor _ in range(3):\n    loss = model(x).pow(2).mean()\n"
        "    loss.backward()\n    losses.append(loss)\nprint(np.mean(losses))",
        # predictions of a model run with grad mode on
        "predictions = model(x).numpy()",
        # a parameter read for a report
        "print(np.array(model.weight))",
        # a pair of losses returned by a helper
        "def evaluate(net):\n    out = net(x)\n    return out.mean(), out.std()\n"
        "print(np.sum(list(evaluate(model))))",
        # Yolo-Detect-Layer-Visualization#1: each output handed to a plotting helper's
        # `*arrays`, through a comprehension over `range(len(...))` of a known list
        "def plot(*arrays):\n    for array in arrays:\n        array = array.cpu().numpy()\n"
        "outs = [model(x), model(x * 2)]\nplot(*[outs[i].sigmoid() for i in range(len(outs))])",
    ],
)
def test_numpy_of_a_tensor_requiring_grad(body):
    assert codes(HEADER + body) == ["GL207"]


def test_history_kept_on_the_instance_by_a_method():
    """`self.cost_his.append(loss)` in one method, `np.array(self.cost_his)` in another:
    the attribute holds what the method appended."""
    source = HEADER + (
        "class Agent:\n"
        "    def __init__(self):\n"
        "        self.net = nn.Linear(4, 1)\n"
        "        self.cost_his = []\n"
        "    def learn(self):\n"
        "        loss = self.net(x).pow(2).mean()\n"
        "        loss.backward()\n"
        "        self.cost_his.append(loss)\n"
        "    def plot_cost(self):\n"
        "        return np.array(self.cost_his)\n"
        "agent = Agent()\n"
        "for _ in range(2):\n"
        "    agent.learn()\n"
        "agent.plot_cost()\n"
    )
    found = lint(source)
    assert [(d.code, d.line) for d in found] == [
        ("GL207", source.count("\n", 0, source.index("np.array")) + 1)
    ]


@pytest.mark.parametrize(
    "body",
    [
        "losses = []\nfor _ in range(3):\n    loss = model(x).pow(2).mean()\n"
        "    loss.backward()\n    losses.append(loss.item())\nprint(np.mean(losses))",
        "with torch.no_grad():\n    predictions = model(x).numpy()",
        "predictions = model(x).detach().numpy()",
        "predictions = model(x).numpy(force=True)",
        "model.requires_grad_(False)\npredictions = model(x).numpy()",
        # a function no call reaches: its caller may hold no_grad
        "def predict(net, batch):\n    return net(batch).numpy()",
        "def predict(net, batch):\n    return net(batch).numpy()\n"
        "with torch.no_grad():\n    predict(model, x)",
        # detached on one path only: not every path raises
        "import sys\nloss = model(x).mean()\nif len(sys.argv) > 1:\n    loss = loss.detach()\n"
        "print(np.array([loss]))",
        # the last item popped: what is left is detached (a list's length, once it
        # shrinks, is no longer known)
        "outs = [model(x).detach(), model(x)]\nouts.pop()\nprint(np.array(outs))",
        # numpy given a tensor itself calls the tensor's own method (another error)
        "print(np.mean(model(x)))",
    ],
)
def test_lookalikes_stay_quiet(body):
    assert codes(HEADER + body) == []


# mit-han-lab/proxylessnas proxyless_gaze/training/landmark_detection/pytorch2onnx.py
# (issue 31, batch 13): ONNX Runtime's check helper detaches only a tensor that requires
# grad; the model's output does, so the `else` arm never runs for it.
ONNX_CHECK = """
import numpy as np
import torch
import torch.nn as nn
from torch.autograd import Variable

pfld_backbone = nn.Sequential(nn.Conv2d(3, 4, 3), nn.Flatten(), nn.Linear(4 * 14 * 14, 6))
pfld_backbone.eval()
dummy_input = Variable(torch.randn(1, 3, 16, 16))
torch_out = pfld_backbone(dummy_input)


def to_numpy(tensor):
    return {converted}


ort_outs = to_numpy(dummy_input).reshape(1, -1)[:, :6]
np.testing.assert_allclose(to_numpy(torch_out).shape, ort_outs.shape)
"""


def _ran(source: str) -> BaseException | None:
    try:
        exec(compile(source, "<case>", "exec"), {"__name__": "__case__"})
    except Exception as error:  # the case's own failure is the point
        return error
    return None


def test_numpy_in_the_arm_a_requires_grad_test_excludes_is_quiet():
    guarded = "tensor.detach().cpu().numpy() if tensor.requires_grad else tensor.cpu().numpy()"
    source = ONNX_CHECK.format(converted=guarded)
    assert "GL207" not in codes(source)
    assert _ran(source) is None


def test_numpy_without_the_requires_grad_test_is_flagged():
    source = ONNX_CHECK.format(converted="tensor.cpu().numpy()")
    assert codes(source) == ["GL207"]
    assert "requires grad" in str(_ran(source))
