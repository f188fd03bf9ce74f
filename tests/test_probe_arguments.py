"""What the code probe builds and feeds a file's modules with, read from the static
analysis (no torch, no probe run)."""

from __future__ import annotations

import textwrap

from gradlint.probe import arguments

SOURCE = """
    import argparse
    import sys

    import torch
    import torch.nn as nn

    parser = argparse.ArgumentParser()
    parser.add_argument("--hidden", type=int, default=6)
    parser.add_argument("--dropout", type=float, default=0.25)
    args = parser.parse_args()
    WIDTH = 4


    class Gate(nn.Module):
        def __init__(self, features, act):
            super().__init__()
            self.linear = nn.Linear(features, features)
            self.act = act

        def forward(self, x):
            return self.act(self.linear(x))


    class Net(nn.Module):
        def __init__(self, width, hidden, dropout=0.0):
            super().__init__()
            self.proj = nn.Linear(width, hidden)
            self.gate = Gate(2 * hidden, nn.ReLU(inplace=True))
            self.drop = nn.Dropout(dropout)

        def forward(self, x, extra):
            return self.gate(self.proj(x)) + self.drop(extra[0])


    class Named(nn.Module):
        def __init__(self, name):
            super().__init__()
            self.name = name

        def forward(self, x):
            return x

        def reset(self, state, step):
            state.zero_()


    class Lookup(nn.Module):
        def __init__(self, vectors):
            super().__init__()
            self.emb = nn.Embedding.from_pretrained(vectors)

        def forward(self, ids):
            return self.emb(ids)


    net = Net(WIDTH, args.hidden, dropout=args.dropout)
    named = Named(sys.argv[1])
    x, extra = torch.randn(2, WIDTH, requires_grad=True), [torch.randn(2, 3), torch.randn(3)]
    out = net(x, extra)
    named(torch.randn(3, WIDTH))
    lookup = Lookup(torch.zeros(5, WIDTH).uniform_())
    lookup(torch.arange(3))
    lookup(torch.randn(len(sys.argv), WIDTH, requires_grad=True))
    for step in range(len(sys.argv)):
        named.reset(x, step)
"""


def _context():
    context = arguments.file_context("model.py", textwrap.dedent(SOURCE))
    assert context is not None
    return context


def test_constructor_arguments_are_the_values_the_file_proves():
    """A module constant, argparse defaults, arithmetic inside `__init__` and a torch
    layer passed as an argument; an argument the file cannot prove builds nothing."""
    found = arguments.constructors(_context())
    assert found["Net"] == [{"args": ["4", "6"], "kwargs": {"dropout": "0.25"}, "guessed": False}]
    assert found["Gate"] == [
        {"args": ["12", "torch.nn.ReLU(inplace=True)"], "kwargs": {}, "guessed": False}
    ]
    assert "Named" not in found


def test_a_tensor_given_to_a_constructor_is_rebuilt_from_its_shape_and_dtype():
    found = arguments.constructors(_context())
    assert found["Lookup"] == [{"args": ["torch.randn(5, 4)"], "kwargs": {}, "guessed": False}]


def test_inputs_are_tensors_shaped_like_the_arguments_of_module_level_calls():
    """A leaf that requires grad stays one, a list of tensors stays a list."""
    found = arguments.call_inputs(_context())
    inputs = ["torch.randn(2, 4, requires_grad=True)", "[torch.randn(2, 3), torch.randn(3)]"]
    assert found["Net"] == [{"inputs": inputs, "guessed": False}]
    assert found["Named"] == [{"inputs": ["torch.randn(3, 4)"], "guessed": False}]
    assert "Gate" not in found  # called only inside Net.forward, on a tensor of no known shape


def test_int_inputs_are_zeros_and_guessed_and_unknown_shapes_keep_their_grad():
    """`torch.arange(3)` is an int tensor: zeros of that shape (a valid index), its
    values guessed. A tensor of no known shape: what is proven of its grad."""
    found = arguments.call_inputs(_context())
    assert found["Lookup"] == [
        {"inputs": ["torch.zeros((3,), dtype=torch.long)"], "guessed": True},
        {"grads": ["leaf"]},
    ]


def test_calls_of_other_methods_with_their_arguments_and_grad_mode():
    """`named.reset(x, step)` in a loop: the loop index is an int of unknown value (0,
    guessed); `x` is a leaf of a known shape."""
    [call] = arguments.function_calls(_context())
    assert call == {
        "owner": "Named",
        "name": "reset",
        "instance": "Named",
        "args": ["torch.randn(2, 4, requires_grad=True)", "0"],
        "guessed": True,
        "grad": True,
    }


def test_an_unparsable_file_has_no_facts():
    assert arguments.file_context("broken.py", "def f(:\n") is None


CONFIGURED = """
    from types import SimpleNamespace

    import torch.nn as nn


    class Head(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.fc = nn.Linear(cfg.MODEL.WIDTH, cfg.MODEL.CLASSES)

        def forward(self, x):
            return self.fc(x)


    model_cfg = SimpleNamespace(WIDTH=8, CLASSES=3, NORM="GN")
    head = Head(SimpleNamespace(MODEL=model_cfg))
"""


def test_a_simplenamespace_config_is_rebuilt_with_its_fields():
    """A config object of literal fields (nested too) is passed as the file builds it."""
    context = arguments.file_context("head.py", textwrap.dedent(CONFIGURED))
    assert context is not None
    config = "SimpleNamespace(MODEL=SimpleNamespace(WIDTH=8, CLASSES=3, NORM='GN'))"
    assert arguments.constructors(context)["Head"] == [
        {"args": [config], "kwargs": {}, "guessed": False}
    ]
