"""Constructs of real training code the interpreter follows: a config object built by
`argparse.Namespace(...)`, and a file's subclass of `nn.Sequential` filled by
`add_module`. Each snippet was run in torch 2.13: the positives raise the error their
finding names, the look-alikes run."""

import pytest
from conftest import codes

NAMESPACE = """
import argparse

import torch
import torch.nn as nn

opt = argparse.Namespace(freeze={freeze}, lr=0.1)
model = nn.Linear(4, 1)
if opt.freeze:
    model.requires_grad_(False)
loss = model(torch.randn(2, 4)).sum()
loss.backward()
"""


@pytest.mark.parametrize(("freeze", "expected"), [(True, ["GL202"]), (False, [])])
def test_a_namespace_config_decides_the_branch(freeze, expected):
    """Every parameter frozen by a flag of the config: backward raises 'element 0 of
    tensors does not require grad'; with the flag off the model trains."""
    assert codes(NAMESPACE.format(freeze=freeze)) == expected


SEQUENTIAL = """
import torch
import torch.nn as nn


class ConvBlock(nn.Sequential):
    def __init__(self, in_channel, out_channel):
        super(ConvBlock, self).__init__()
        self.add_module("conv", nn.Conv2d(in_channel, out_channel, 3, padding=1))
        self.add_module("act", nn.Sigmoid())


block = ConvBlock(3, 4)
y = block(torch.randn(1, 3, 8, 8))
{edit}
y.sum().backward()
"""


@pytest.mark.parametrize(("edit", "expected"), [("y += 1", ["GL103"]), ("y = y + 1", [])])
def test_a_sequential_subclass_runs_its_registered_modules(edit, expected):
    """The block's Sigmoid saved its output: editing it in place makes backward raise
    'modified by an inplace operation'; an out-of-place add does not."""
    assert codes(SEQUENTIAL.format(edit=edit)) == expected


def test_a_sequential_subclass_with_its_own_forward_runs_that_forward():
    source = SEQUENTIAL.format(edit="y = y + 1").replace(
        '        self.add_module("act", nn.Sigmoid())\n',
        '        self.add_module("act", nn.Sigmoid())\n\n'
        "    def forward(self, x):\n"
        "        return self.conv(x)\n",
    )
    assert codes(source.replace("y = y + 1", "y += 1")) == []


FREEZE_LOOP = """
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 1))
for name, p in model.named_parameters():
    if name.split(".")[0] in ["0"]:
        p.requires_grad = False
    else:
        p.requires_grad = {other}
loss = model(torch.randn(2, 4)).sum()
loss.backward()
"""


@pytest.mark.parametrize(("other", "expected"), [("False", ["GL202"]), ("True", [])])
def test_a_freezing_loop_whose_every_arm_switches_off_freezes_the_module(other, expected):
    """LipFD#18: both arms of the loop's if freeze their parameter, so every parameter is
    frozen and backward raises 'element 0 of tensors does not require grad'; with the
    else arm switching on, the second layer trains."""
    assert codes(FREEZE_LOOP.format(other=other)) == expected


RESBLOCK = """
import torch
from torch import nn


class ResBlock(nn.Module):
    def __init__(self, channel):
        super().__init__()
        self.conv = nn.Sequential(nn.ReLU(inplace=True), nn.Conv2d(channel, channel, 3, padding=1))
        self.relu = nn.ReLU(inplace=True)
        self.proj = nn.Conv2d(channel, channel, 1)

    def forward(self, input):
{body}


block = ResBlock(3)
out = block(torch.randn(2, 3, 8, 8))
"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # vq-vae-2-pytorch#60: the skip connection reads the input the first stage rectified
        ("        out = self.conv(input)\n        out += input\n        return out", ["GL104"]),
        # the argument is not read again after the call
        ("        out = self.conv(input)\n        return out * 2", []),
        # an in-place layer's result is its input: rebinding the name reads what it returns
        ("        input = self.relu(input)\n        return self.proj(input) + input", []),
    ],
)
def test_a_layer_editing_an_argument_on_the_way_to_its_result(body, expected):
    assert codes(RESBLOCK.format(body=body)) == expected


RETURN_IN_BRANCH = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvBN(nn.Module):
    def __init__(self, cin, cout, activation="relu"):
        super().__init__()
        self.activation = activation
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)
        self.bn = nn.BatchNorm2d(cout, affine=False)

    def forward(self, x):
        x = self.bn(self.conv(x))
        if {test}:
            return F.relu(x)
        else:
            return x


class ResPath(nn.Module):
    def __init__(self):
        super().__init__()
        self.shortcut = ConvBN(3, 8, activation="None")
        self.body = ConvBN(3, 8, activation="{activation}")

    def forward(self, x):
        shortcut = self.shortcut(x)
        x = self.body(x)
        x += shortcut
        return x


model = ResPath()
model(torch.randn(2, 3, 8, 8)).sum().backward()
"""


@pytest.mark.parametrize(
    ("test", "activation", "expected"),
    [
        ('self.activation == "relu"', "relu", ["GL103"]),
        ('self.activation == "relu"', "None", []),
        ("x.mean() > 0", "relu", []),
    ],
)
def test_what_a_return_in_a_taken_branch_saved_reaches_the_caller(test, activation, expected):
    """`return F.relu(x)` in the branch the module's own flag takes: the caller's
    `x += shortcut` edits the output ReLU saved and backward raises 'modified by an
    inplace operation' (mulitresunet-pytorch#3). A block without the ReLU runs (batch
    norm saves its input, not its output), and a test on the data decides nothing."""
    assert codes(RETURN_IN_BRANCH.format(test=test, activation=activation)) == expected


FIRST_ITERATION = """
import torch
import torch.nn as nn


class Neck(nn.Module):
    def __init__(self, repeat=2):
        super().__init__()
        self.blocks = nn.ModuleList()
        for _ in range(repeat):
            self.blocks.append(nn.Sequential(nn.Conv2d(4, 4, 3, padding=1), nn.ReLU()))

    def forward(self, x):
        for i, block in enumerate(self.blocks):
            x = block(x)
            if i == 0:
                {first}
            else:
                {later}
        return acc


neck = Neck()
neck(torch.randn(1, 4, 8, 8)).sum().backward()
"""


@pytest.mark.parametrize(
    ("first", "later", "expected"),
    [
        ("acc = x", "acc += x", ["GL103"]),
        ("acc = x.clone()", "acc += x", []),
        ("acc = x", "acc = acc + x", []),
    ],
)
def test_a_loop_counter_decides_first_iteration_tests(first, later, expected):
    """`if i == 0:` over `enumerate(...)` is taken on the first iteration only: the
    second's `acc += x` edits the first block's ReLU output, which ReLU saved (mmocr#884:
    'modified by an inplace operation'). Accumulating into a clone, or out of place, runs."""
    assert codes(FIRST_ITERATION.format(first=first, later=later)) == expected


CHAINED = """
import itertools

import torch
import torch.nn as nn

encoder = nn.Sequential(nn.Linear(8, 4), nn.ReLU(), nn.Linear(4, 2))
generator = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 8))
discriminator = nn.Sequential(nn.Linear(8, 4), nn.LeakyReLU(0.2), nn.Linear(4, 1))
optimizer_ge = torch.optim.Adam(itertools.chain(encoder.parameters(), generator.parameters()))
opt_disc = torch.optim.Adam(discriminator.parameters())

for epoch in range(2):
    optimizer_ge.zero_grad()
    opt_disc.zero_grad()
    fake = generator(encoder(torch.randn(4, 8)))
    fake_op = discriminator(fake)
    ge_loss = fake_op.mean()
    ge_loss.backward(retain_graph=True)
    {first}
    disc_loss = -{disc}.mean()
    disc_loss.backward()
    {second}
"""


@pytest.mark.parametrize(
    ("disc", "first", "second", "expected"),
    [
        # GL103 (torch's in-place error) and GL504 (a step between the forward and the
        # backward through it) both describe the step
        ("fake_op", "optimizer_ge.step()", "opt_disc.step()", ["GL103", "GL504"]),
        ("fake_op", "pass", "optimizer_ge.step(); opt_disc.step()", []),
        ("discriminator(fake.detach())", "optimizer_ge.step()", "opt_disc.step()", []),
    ],
)
def test_an_optimizer_over_chained_parameters_holds_them(disc, first, second, expected):
    """`Adam(itertools.chain(encoder.parameters(), generator.parameters()))` updates both
    networks: its step before the discriminator's backward through the same retained
    graph edits weights that graph saved (clusterGAN#2: 'modified by an inplace
    operation'). Stepping after both backwards, or a discriminator loss of its own forward
    over a detached fake (its backward never reaches the generator), runs."""
    code = CHAINED.format(disc=disc, first=first, second=second)
    assert codes(code) == expected


SUBCLASS_DECODE = """
import torch
import torch.nn as nn


class Segmenter(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.encoder = nn.Conv2d(3, dim, 3, padding=1)

    def decode(self, x):
        raise NotImplementedError

    def forward(self, x):
        return self.decode(self.encoder(x))


class NaiveHead(Segmenter):
    def __init__(self, dim, classes):
        super().__init__(dim)
        self.classes = classes
        self.head = None
        self.conv = nn.Conv2d(dim, classes, 1)

    def decode(self, x):
        {decode}


model = NaiveHead(8, 5)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss = model(torch.randn(2, 3, 8, 8)).mean()
loss.backward()
optimizer.step()
"""


@pytest.mark.parametrize(
    ("decode", "expected"),
    [
        ("return nn.Conv2d(self.dim, self.classes, 1)(x)", ["GL505"]),
        ("return self.conv(x)", []),
        ("return nn.ReLU()(self.conv(x))", []),
    ],
)
def test_a_layer_built_in_a_subclass_method_the_base_forward_calls(decode, expected):
    """The base class's `forward` calls `self.decode`, which the subclass overrides to build
    `nn.Conv2d(...)(x)` on every call (setr-pytorch#4): fresh random weights that
    `model.parameters()` never holds, never trained. A layer of `__init__` is a parameter
    of the model, and a layer without parameters built on the way learns nothing."""
    assert codes(SUBCLASS_DECODE.format(decode=decode)) == expected


STORED_IN_FORWARD = """
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, stride=2, padding=1)
        self.out = None
        self.act = None

    def forward(self, x):
        h = self.conv(x).flatten(1)
        {store}
        return self.out(h)


model = Encoder()
model(torch.randn(2, 1, 8, 8))
optimizer = torch.optim.Adam(model.parameters())
for _ in range(2):
    optimizer.zero_grad()
    model(torch.randn(2, 1, 8, 8)).sum().backward()
    optimizer.step()
"""


@pytest.mark.parametrize(
    ("store", "expected"),
    [
        (
            "self.out = nn.Sequential(nn.Linear(h.shape[1], 8), nn.ReLU(), nn.Linear(8, 2))",
            ["GL505", "GL507"],
        ),
        ("if self.out is None:\n            self.out = nn.Linear(h.shape[1], 2)", []),
        ("self.act = nn.ReLU()\n        self.out = self.out or nn.Identity()", []),
    ],
)
def test_a_layer_stored_on_self_by_every_forward(store, expected):
    """`self.out = nn.Sequential(...)` in forward's own body replaces the head with new
    random weights at every call; the optimizer, built after a first call, holds a copy
    the next call throws away (MONAI#8578: the head never trains; GL507 names the
    optimizer that leaves it out). Built lazily under
    `if self.out is None:`, or a layer without parameters, it stays quiet."""
    assert codes(STORED_IN_FORWARD.format(store=store)) == expected


UNBOUND_BEFORE_THE_LOOP = """
import torch
import torch.nn as nn


class RNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.i2h = nn.Linear(8, 4)

    def forward(self, x, hidden):
        hidden = self.i2h(torch.cat((x, hidden), 1))
        return hidden, hidden


rnn = RNN()
optimizer = torch.optim.SGD(rnn.parameters(), lr=0.1)


def train(line_tensor, name):
    hidden = torch.zeros(1, 4)
    optimizer.zero_grad()
    {before}
    for i in range(len(name)):
        output, hidden = rnn(line_tensor[i], hidden)
    loss = output.sum()
    loss.backward()
    optimizer.step()


{rebound}
for epoch in range(3):
    train(torch.randn(5, 1, 4), "Jones")
"""


@pytest.mark.parametrize(
    ("before", "rebound", "expected"),
    [
        # practical-pytorch#9: the model trained is a second instance, the optimizer holds
        # the first one's parameters; `output` is bound by the loop only
        ("pass", "rnn = RNN()", ["GL507"]),
        ("pass", "pass", []),
        # bound before the loop to a tensor that needs no grad: after zero passes the
        # backward would raise instead, the step is not judged
        ("output = torch.zeros(1, 4)", "rnn = RNN()", []),
    ],
)
def test_a_name_the_loop_binds_first_keeps_what_the_passes_bound(before, rebound, expected):
    """After a loop of unknown length, a name unbound before it holds what a pass bound:
    reading it after zero passes would raise."""
    assert codes(UNBOUND_BEFORE_THE_LOOP.format(before=before, rebound=rebound)) == expected


MODULE_LEVEL_LOOP = """
import torch
import torch.nn as nn
{imports}



class Cell(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return self.fc(x)


rnn = Cell()
optimizer = torch.optim.SGD(rnn.parameters(), lr=0.1)
rnn = Cell()
hidden = torch.zeros(1, 4)
for i in range(len(name)):
    output = rnn(hidden)
    hidden = output
loss = output.sum()
loss.backward()
optimizer.step()
"""


@pytest.mark.parametrize(
    ("imports", "expected"),
    [
        ("name = 'Jones'", ["GL507"]),
        # `output` may be bound by the star import: after zero passes it is that one
        ("from helpers import *", []),
        ("from helpers import name, output", []),
    ],
)
def test_at_module_level_imported_names_keep_their_binding(imports, expected):
    assert codes(MODULE_LEVEL_LOOP.format(imports=imports)) == expected


def test_attributes_set_on_a_name_are_forgotten_when_the_name_is_rebound():
    """`p.grad = None` in a first loop over the parameters says nothing of the `p` a later
    loop binds: its `if p.grad is not None: p.grad.zero_()` clears (no GL503)."""
    source = """
import torch
import torch.nn as nn

student = nn.Linear(4, 3)
optimizer = torch.optim.SGD(student.parameters(), lr=0.1)
for step in range(3):
    for p in student.parameters():
        p.grad = None
    student(torch.randn(5, 4)).sum().backward()
    optimizer.step()
for _ in range(2):
    for p in student.parameters():
        if p.grad is not None:
            p.grad.zero_()
    student(torch.randn(5, 4)).sum().backward()
    optimizer.step()
"""
    assert codes(source) == []
    forgetting = source.replace(
        "        if p.grad is not None:\n            p.grad.zero_()\n", "        pass\n"
    )
    assert codes(forgetting) == ["GL503"]
