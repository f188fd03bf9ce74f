"""GL508: a module set to eval mode inside a training loop and trained afterwards with no
`train()` back. Each snippet was run in torch 2.13: in the positives the steps after the
evaluation run with `model.training` False (the asserts of tests/corpus/real show it on
pytorch-fcn#56, mmd#14 and vsepp#4); the look-alikes restore the mode, train another
module, evaluate a module without dropout or batch norm, or evaluate after the loop."""

import pytest
from conftest import codes

HEADER = """
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.Dropout(0.2), nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(8, 4) for _ in range(3)]
"""

_STEP = "    optimizer.zero_grad()\n    model(x).pow(2).mean().backward()\n    optimizer.step()\n"


@pytest.mark.parametrize(
    "body",
    [
        # an evaluation helper called every few steps (pytorch-fcn#56, vsepp#4)
        "def validate(net):\n    net.eval()\n    with torch.no_grad():\n        net(data[0])\n"
        "model.train()\nfor i, x in enumerate(data):\n" + _STEP + "    if i % 2 == 0:\n"
        "        validate(model)\n",
        # the evaluation after each epoch, train() only before the epochs (mmd#14)
        "def evaluate():\n    model.eval()\n    return model(data[0]).mean().item()\n"
        "model.train()\nfor epoch in range(3):\n    for x in data:\n"
        "        optimizer.zero_grad()\n        model(x).pow(2).mean().backward()\n"
        "        optimizer.step()\n    evaluate()\n",
        # eval() written in the loop itself, train(False) too
        "for x in data:\n" + _STEP + "    model.train(False)\n",
    ],
)
def test_eval_mode_left_on_in_a_training_loop(body):
    assert codes(HEADER + body) == ["GL508"]


@pytest.mark.parametrize(
    "body",
    [
        # the helper switches back
        "def validate(net):\n    net.eval()\n    with torch.no_grad():\n        net(data[0])\n"
        "    net.train()\n"
        "for i, x in enumerate(data):\n" + _STEP + "    validate(model)\n",
        # train() at the start of each step
        "def validate(net):\n    net.eval()\n    net(data[0])\n"
        "for x in data:\n    model.train()\n" + _STEP + "    validate(model)\n",
        # a frozen teacher kept in eval mode: the optimizer holds the student only
        "teacher = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.2))\n"
        "for x in data:\n    teacher.eval()\n    optimizer.zero_grad()\n"
        "    (model(x) - teacher(x).sum(1, keepdim=True)).pow(2).mean().backward()\n"
        "    optimizer.step()\n",
        # a module without dropout or batch norm: the mode changes nothing
        "plain = nn.Linear(4, 1)\nopt = torch.optim.SGD(plain.parameters(), lr=0.1)\n"
        "for x in data:\n    opt.zero_grad()\n    plain(x).pow(2).mean().backward()\n"
        "    opt.step()\n    plain.eval()\n",
        # evaluation after the training loop
        "for x in data:\n" + _STEP + "model.eval()\nmodel(data[0])\n",
        # fine-tuning in eval mode on purpose: eval() before the loop, never switched
        "model.eval()\nfor x in data:\n" + _STEP,
    ],
)
def test_mode_restored_or_not_trained(body):
    assert codes(HEADER + body) == []
