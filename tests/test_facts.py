"""The fact oracle (benchmarks/facts.py): torch's runtime facts of each bound name, the
interpreter's statements about the same line and name, and their comparison."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

from gradlint.analysis.dataflow.recording import StatementFacts

ROOT = Path(__file__).resolve().parent.parent


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


facts = _load("facts")
runtime = _load("facts_runtime")

PROGRAM = textwrap.dedent(
    """\
    import torch
    import torch.nn as nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 3)

        def forward(self, x):
            h = self.fc(x)
            return h.relu()


    model = Net()
    x = torch.randn(2, 4)
    out = model(x)
    loss = out.sum()
    loss.backward()
    with torch.no_grad():
        y = out * 2
    for p in model.parameters():
        p.mul_(0.5)
    """
)


def _records(tmp_path: Path, source: str) -> list[dict]:
    path = tmp_path / "program.py"
    path.write_text(source)
    program = facts._script(path)
    return [r for r in facts.run_programs([program], Path(sys.executable), None) if "file" in r]


def _observe(tmp_path: Path, source: str) -> list[dict]:
    return [r for r in _records(tmp_path, source) if "entry" not in r]


def _check(tmp_path: Path, source: str, given: bool = False) -> facts.Tally:
    """The comparison, with functions run on their own with every argument unknown (as
    the linter reads a file: `--alone`) or `given` what their calls passed."""
    tally = facts.Tally()
    records = _records(tmp_path, source)
    facts.account(records, facts.Static(facts.given_arguments(records) if given else None), tally)
    return tally


def test_statement_targets_name_what_each_statement_binds_or_edits():
    source = "a, (b, *c) = f()\nx[0] = 1\nself.w = 2\ny.add_(1).clamp_(0)\n"
    source += "for i, j in z:\n    k = i\n"
    targets, lines, bodies = runtime.statement_targets(source)
    assert targets == {
        1: ["a", "b", "c"],
        2: ["x"],
        3: ["self.w"],
        4: ["y"],
        5: ["i", "j"],
        6: ["k"],
    }
    assert lines[6] == 6 and bodies == {5: (6, 6)}


def test_runtime_records_torch_facts_after_each_statement(tmp_path):
    observed = {(o["line"], o["name"]): o["facts"] for o in _observe(tmp_path, PROGRAM)}
    linear = {"kind": "module", "class": "torch.nn.Linear", "grad_mode": True}
    assert observed[8, "self.fc"] == linear
    x = observed[16, "x"]
    assert (x["kind"], x["grad"], x["shape"], x["dtype"]) == ("tensor", "off", [2, 4], "float")
    assert observed[11, "h"]["grad"] == "nonleaf"
    assert observed[18, "loss"]["shape"] == []
    assert observed[21, "y"]["grad_mode"] is False and observed[21, "y"]["grad"] == "off"
    assert observed[22, "p"]["kind"] == "parameter" and observed[22, "p"]["grad"] == "leaf"


def test_interpreter_states_facts_by_line_and_name():
    stated = StatementFacts(PROGRAM)
    assert stated.query(16, "x").facts["dims"] == (2, 4)
    assert stated.query(17, "out").facts["grad"] == "nonleaf"
    assert stated.query(21, "y").facts["grad"] == "off"
    assert stated.grad_mode(21).facts["grad_mode"] == "off"
    # the forward runs on its own (x unknown) and inlined (x known): joined, rank unknown
    h = stated.query(11, "h")
    assert h.contexts == 2 and h.facts["rank"] is None
    assert h.causes["rank"] == "argument of a function run on its own"


CAUSES = """\
import torch.nn.functional as F
from torch import nn
from helpers import make


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.other = make(width)

    def forward(self, x):
        y = self.conv(x)
        z = F.relu(y)
        w = self.other(z)
        v = w + 1
        p, q = self.other(v)
        return p
"""


def test_a_cause_of_unknown_is_what_lost_the_fact_not_the_callable_holder():
    stated = StatementFacts(CAUSES)
    # the shape is lost at the argument, not at `self` holding the conv or at `F`
    assert stated.query(13, "y").causes["rank"] == "argument of a function run on its own"
    assert stated.query(14, "z").causes["rank"] == "argument of a function run on its own"
    # knowing `width` would not tell what another library's function returns
    assert stated.query(10, "self.other").causes["kind"] == "call to helpers.make"
    assert stated.query(15, "w").causes["kind"] == "method .other() of a module of the file"
    # a name the frame bound earlier: lost where it was bound
    assert stated.query(16, "v").causes["kind"] == "method .other() of a module of the file"
    assert stated.query(17, "q").causes["kind"] == "item of method .other() of a module of the file"


GIVEN = """\
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 8)

    def forward(self, x, mask=None):
        h = self.fc(x)
        if mask is not None:
            h = h * mask
        return h
"""


def test_a_function_run_on_its_own_starts_with_what_every_call_passed():
    alone = StatementFacts(GIVEN)
    assert alone.query(10, "h").facts.get("rank") is None
    assert alone.query(12, "h") is not None  # `mask` taken as given
    passed = {"kind": "tensor", "grad": "off", "contiguous": True, "shape": [2, None, 4]}
    given = {(9, "forward"): {True: {"x": passed, "mask": {"kind": "none"}}}}
    stated = StatementFacts(GIVEN, given=given)
    h = stated.query(10, "h").facts
    assert (h["kind"], h["grad"], h["dims"]) == ("tensor", "nonleaf", (2, None, 8))
    assert stated.query(12, "h") is None  # no call passed a mask


def test_a_function_whose_calls_started_in_both_grad_modes_runs_once_in_each():
    tensor = {"kind": "tensor", "grad": "off", "contiguous": True, "shape": [2, 4]}
    given = {(9, "forward"): {True: {"x": tensor}, False: {"x": tensor}}}
    stated = StatementFacts(GIVEN, given=given)
    assert stated.query_in_mode(10, "h", True).facts["grad"] == "nonleaf"
    assert stated.query_in_mode(10, "h", False).facts["grad"] == "off"
    assert stated.grad_mode(10).facts["grad_mode"] is None  # both modes ran it


def test_the_arguments_given_are_what_every_call_passed_alike():
    def entry(grad_mode=True, **facts):
        facts["grad_mode"] = grad_mode
        return {"entry": "forward", "file": "m.py", "line": 9, "name": "x", "facts": facts}

    records = [
        entry(kind="tensor", grad="off", shape=[2, 3, 4], contiguous=True),
        entry(kind="tensor", grad="leaf", shape=[2, 5, 4], contiguous=True),
        {"program": "p", "file": "m.py", "line": 10, "name": "h", "facts": {"kind": "none"}},
    ]
    joined = facts.given_arguments(records)["m.py"][9, "forward"][True]["x"]
    assert joined == {"kind": "tensor", "contiguous": True, "shape": [2, None, 4]}
    records.append(entry(kind="tensor", grad="off", shape=[2, 3], contiguous=False))
    joined = facts.given_arguments(records)["m.py"][9, "forward"][True]["x"]
    assert joined == {"kind": "tensor"}
    # calls starting with grad mode off are joined apart (the function runs once per mode)
    records.append(entry(False, kind="tensor", grad="nonleaf", shape=[1], contiguous=True))
    by_mode = facts.given_arguments(records)["m.py"][9, "forward"]
    assert by_mode[True]["x"] == {"kind": "tensor"}
    assert by_mode[False]["x"] == {
        "kind": "tensor",
        "grad": "nonleaf",
        "contiguous": True,
        "shape": [1],
    }


def test_the_comparison_finds_no_contradiction_and_counts_what_is_known(tmp_path):
    tally = _check(tmp_path, PROGRAM)
    assert tally.contradictions == []
    assert tally.known["grad"] >= 5 and tally.checked["dim"] > tally.known["dim"] > 0
    assert "facts: " in facts.figures(tally)


def test_a_stated_fact_the_execution_refutes_is_a_contradiction():
    tally = facts.Tally()

    class Stub:
        def of(self, path):
            return StatementFacts("import torch\nx = torch.zeros(2, 3)\n")

    observation = {"program": "p", "file": "f.py", "line": 2, "name": "x"}
    observation["facts"] = {"kind": "tensor", "grad": "leaf", "dtype": "float", "shape": [2, 4]}
    observation["facts"] |= {"grad_mode": True, "contiguous": True}
    facts.compare(observation, Stub(), tally)
    refuted = {(c.facet, c.stated, c.ran) for c in tally.contradictions}
    assert refuted == {("grad", "off", "leaf"), ("dim", 3, 4)}


@pytest.mark.parametrize(
    "path",
    [
        "tests/corpus/training/mnist_clean.py",
        "tests/corpus/inplace/ok_resnet_block.py",
        "tests/corpus/shapes/transpose_view_flat.py",
    ],
)
def test_corpus_programs_have_no_contradiction(path):
    tally = facts.Tally()
    program = facts._script(ROOT / path)
    records = [r for r in facts.run_programs([program], Path(sys.executable), None) if "file" in r]
    facts.account(records, facts.Static(facts.given_arguments(records)), tally)
    assert tally.observations > 0
    assert [str(c) for c in tally.contradictions] == []


# The smallest programs of the contradictions the oracle found, each fixed by its mechanism:
# two strings joined were a number; a cast kept its input's dtype (`.float()`, `.type()`),
# or a dtype held in a variable was taken as none (`.to(x.dtype)`); `.numpy()` /
# `.tolist()` were numbers; a batch-first RNN output was contiguous; `size()` was an int;
# an optional tensor argument was a tensor where None; the else branch of an isinstance
# test on Tensor kept the tensor; None joined with an int was a number. The runtime side:
# a loop header's last run (the exit) bound nothing.
CONTRADICTED = textwrap.dedent(
    """\
    import numpy as np
    import torch
    import torch.nn as nn

    words = ["a", "bb"]
    for w in words:
        n = len(w)
    a = torch.arange(4).float()
    d = torch.arange(4).argmax(dim=0).type(torch.float32)
    m = (a > 1).to(a.dtype)
    arr = np.tanh(a.numpy())
    lst = a.tolist()
    gru = nn.GRU(3, 4, batch_first=True)
    output, h_n = gru(torch.randn(2, 5, 3))
    for _ in range(2):
        top, _ = a.max(dim=0)
    size = a.size()


    def masked(x, mask: torch.Tensor | None = None):
        kept = mask
        if mask is not None:
            x = x * mask
        return x


    def features(x: torch.Tensor):
        if isinstance(x, torch.Tensor):
            listed = [x]
        else:
            listed = x
        return listed


    def width(flag):
        if flag:
            last = None
        else:
            last = 1280
        return last


    masked(a)
    features([a, a])
    channels = width(True)
    """
)


def test_the_contradictions_found_are_gone(tmp_path):
    tally = _check(tmp_path, CONTRADICTED)
    assert tally.observations >= 18
    assert [str(c) for c in tally.contradictions] == []


def test_facts_are_joined_over_the_contexts_of_each_grad_mode(tmp_path):
    source = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn

        model = nn.Linear(4, 2)


        def run(x):
            out = model(x)
            return out


        run(torch.randn(3, 4))
        with torch.no_grad():
            run(torch.randn(3, 4))
        """
    )
    stated = StatementFacts(source)
    assert stated.query(8, "out").facts["grad"] is None  # nonleaf in one run, off in the other
    assert stated.query_in_mode(8, "out", True).facts["grad"] == "nonleaf"
    # grad mode off: the run under no_grad (off) and the function run on its own (which
    # assumed grad mode on: its non-leaf says nothing here)
    off = stated.query_in_mode(8, "out", False)
    assert off.facts["grad"] is None
    assert off.causes["grad"] == "grad mode assumed on in a function run on its own"
    tally = _check(tmp_path, source)
    assert tally.contradictions == [] and tally.known["grad"] >= 1


def test_a_file_is_read_with_the_definitions_it_imports_from_its_project(tmp_path):
    (tmp_path / "model.py").write_text(
        "import torch.nn as nn\n\n\nclass Net(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(4, 2)\n"
    )
    train = tmp_path / "train.py"
    train.write_text("import torch\nfrom model import Net\n\nmodel = Net()\nfc = model.fc\n")
    stated = facts.statement_facts(str(train))
    assert stated.query(4, "model").facts["class"] == "Net"  # lines are train.py's own
    assert stated.query(5, "fc").facts["class"] == "torch.nn.Linear"


CALLERS_KNOWN = textwrap.dedent(
    """\
    import torch
    import torch.nn as nn


    class Gate(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.apply(self._init)

        def _init(self, m):
            kind = type(m)

        def _scale(self, x):
            s = x.sigmoid()
            return s

        def forward(self, x: torch.Tensor):
            h = self.fc(x)
            return h * self._scale(h)


    def train(model, data):
        out = model(data)
        out.sum().backward()


    if __name__ == "__main__":
        model = Gate()
        for step in range(2):
            train(model, torch.randn(2, 4))
    """
)


def test_a_function_every_call_of_the_file_runs_inline_is_not_run_on_its_own(tmp_path):
    stated = StatementFacts(CALLERS_KNOWN)
    # the script's `train` and the private `_scale` run only inline: their arguments known
    assert stated.query(24, "out").facts["grad"] == "nonleaf"
    assert stated.query(24, "out").contexts == 2  # the loop's two passes, not a third run
    scale = stated.query(15, "s")  # inline in forward on its own and in each pass
    assert scale.contexts == 3 and scale.facts["kind"] == "tensor"
    # `_init` is passed as a callback: called where the file cannot show, run on its own
    assert stated.query(12, "kind").causes["kind"] == "argument of a function run on its own"
    tally = _check(tmp_path, CALLERS_KNOWN)
    assert tally.contradictions == [] and tally.known["grad"] >= 3


TAKEN_AS_GIVEN = textwrap.dedent(
    """\
    import torch
    import torch.nn as nn


    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x: torch.Tensor, mask=None):
            h = self.fc(x)
            if mask is not None:
                h = h * mask
            out = self.fc(x)
            y = h.relu()
            return y + out


    block = Block()
    block(torch.randn(2, 4))
    """
)


def test_an_argument_taken_as_given_excludes_only_the_facts_that_depend_on_it(tmp_path):
    stated = StatementFacts(TAKEN_AS_GIVEN)
    # forward on its own takes `mask` as given from line 12 on: `h` depends on it, `out`
    # does not (the same value whether mask is passed or None)
    assert stated.query(14, "out").assumed_given == frozenset()
    assert stated.query(15, "y").assumed_given == {"mask"}
    tally = _check(tmp_path, TAKEN_AS_GIVEN)
    assert tally.contradictions == []
    assert tally.causes["kind: an argument taken as given, None at run time"] == 1  # y only


IN_ORDER = textwrap.dedent(
    """\
    import torch
    import torch.nn as nn


    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x: torch.Tensor, mask=None):
            h = self.fc(x)
            if mask is not None:
                h = h * mask
            h = self.fc(x)
            a = h
            b = h.relu()
            if mask is not None:
                a.mul_(mask)
            c = h.relu()
            for _ in range(2):
                if mask is None:
                    break
                b = b + 1
            d = b
            return c + d


    block = Block()
    block(torch.randn(2, 4))
    block(torch.randn(2, 4), torch.randn(2, 4))
    """
)


def test_what_depends_on_an_argument_taken_as_given_follows_the_statements_order(tmp_path):
    stated = StatementFacts(IN_ORDER)
    # `h` before the branch testing `mask`, and bound again after it from `x` alone: the
    # same value whether mask is passed or None
    assert stated.query(11, "h").assumed_given == frozenset()
    assert stated.query(14, "h").assumed_given == frozenset()
    assert stated.query(16, "b").assumed_given == frozenset()
    # `a` holds h's tensor, which the branch edits in place: c is computed from it
    assert stated.query(19, "c").assumed_given == {"mask"}
    # a loop a test of `mask` leaves early: what it computes differs after it
    assert stated.query(24, "d").assumed_given == {"mask"}
    tally = _check(tmp_path, IN_ORDER)
    assert tally.contradictions == []
    # c, d, and the loop's `_` (a loop left early by such a test is taken whole)
    assert tally.causes["kind: an argument taken as given, None at run time"] == 3


WITHOUT_GRAD = textwrap.dedent(
    """\
    import torch
    import torch.nn as nn


    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.drop = nn.Dropout(0.1)
            self.act = nn.GELU()
            self.relu = nn.ReLU(inplace=True)

        def forward(self, x):
            h = self.fc(x)
            s = -x * 2
            m = h.mean(-1)
            w = torch.cat([x, x]).view(4, 4)
            v = x.view(2, 4)
            c = x.contiguous()
            d = self.drop(x)
            a = self.act(x)
            r = self.relu(x)
            return h + s + m.unsqueeze(-1) + w[:2] + v + c + d + a + r


    block = Block().eval()
    x = torch.randn(2, 4, requires_grad=True) * 2
    with torch.no_grad():
        block(x)
    block(x)
    """
)


def test_what_an_op_computes_with_grad_mode_off_does_not_require_grad(tmp_path):
    stated = StatementFacts(WITHOUT_GRAD)
    for line, name in ((14, "h"), (15, "s"), (16, "m"), (17, "w"), (21, "a")):
        assert stated.query_in_mode(line, name, False).facts["grad"] == "off", name
    assert stated.query_in_mode(14, "h", True).facts["grad"] == "nonleaf"
    # a view, a conversion, a dropout, an in-place ReLU may return (a view of) their input:
    # torch keeps a non-leaf input's grad under no_grad (x here)
    for line, name in ((18, "v"), (19, "c"), (20, "d"), (22, "r")):
        assert stated.query_in_mode(line, name, False).facts.get("grad") is None, name
    tally = _check(tmp_path, WITHOUT_GRAD)
    assert tally.contradictions == [] and tally.known["grad"] >= 8  # 5 of them without grad


JOINED_UNKNOWN = textwrap.dedent(
    """\
    import torch


    def features(inputs):
        out = torch.cat(inputs, 1)
        stacked = torch.stack(inputs)
        return out, stacked


    for _ in range(2):  # called twice: also run on its own, `inputs` unknown
        features([torch.randn(2, 3), torch.randn(2, 3, requires_grad=True)])
    """
)


def test_torch_cat_of_an_unknown_sequence_is_a_tensor_of_unknown_grad(tmp_path):
    stated = StatementFacts(JOINED_UNKNOWN)
    for line, name in ((5, "out"), (6, "stacked")):  # densenet's torch.cat(inputs, 1)
        facts = stated.query(line, name).facts
        assert facts["kind"] == "tensor" and facts["grad"] is None
    tally = _check(tmp_path, JOINED_UNKNOWN)
    assert tally.contradictions == [] and tally.known["kind"] >= 2


MODULES_ITERATED = textwrap.dedent(
    """\
    from torch import nn

    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    for m in model.modules():
        layer = m
    for name, child in model.named_children():
        pass
    found = model.modules()
    """
)


def test_what_modules_and_named_children_yield_is_a_module_not_the_iterator(tmp_path):
    stated = StatementFacts(MODULES_ITERATED)
    for line, name in ((4, "m"), (5, "layer"), (6, "child")):
        facts = stated.query(line, name).facts
        assert facts["kind"] == "module" and facts.get("class") is None, name
    assert stated.query(8, "found").facts.get("kind") is None  # a generator at run time
    tally = _check(tmp_path, MODULES_ITERATED)
    assert tally.contradictions == [] and tally.known["kind"] >= 5


CONV_OF_UNKNOWN_WIDTH = textwrap.dedent(
    """\
    import torch
    from torch import nn


    def block(width, x):
        conv = nn.Conv2d(width, 2 * width, 3, padding=1)
        y = conv(x)
        return y


    for width in (3, 5):  # the widths differ: `width` is unknown in the joined run
        block(width, torch.randn(2, width, 8, 8))
    """
)


def test_a_conv_whose_channels_the_file_does_not_fix_keeps_the_rank_and_batch(tmp_path):
    records = _records(tmp_path, CONV_OF_UNKNOWN_WIDTH)
    stated = StatementFacts(
        CONV_OF_UNKNOWN_WIDTH, given=facts.given_arguments(records)[str(tmp_path / "program.py")]
    )
    y = stated.query(7, "y").facts
    assert y["rank"] == 4 and y["dims"][0] == 2 and y["dims"][1] is None
    tally = _check(tmp_path, CONV_OF_UNKNOWN_WIDTH, given=True)
    assert tally.contradictions == [] and tally.known["rank"] >= 1


NUMBERS_GIVEN = """\
def scaled(width, eps, other, x):
    half = width // 2
    shift = eps * other
    rule = "-" * width
    return half, shift, rule
"""


def test_a_number_every_call_passed_is_a_number_and_stays_one_only_with_numbers():
    number, unknown = {"kind": "number"}, {"kind": "other"}
    given = {(1, "scaled"): {True: {"width": number, "eps": number, "other": unknown}}}
    stated = StatementFacts(NUMBERS_GIVEN, given=given)
    assert stated.query(2, "half").facts["kind"] == "number"
    # a number times what may be a tensor (torchvision's `intsctk / (unionk + eps)`), or a
    # string repeated a number of times: not proven a number
    assert stated.query(3, "shift").facts.get("kind") is None
    assert stated.query(4, "rule").facts.get("kind") is None


def test_an_argument_some_calls_passed_as_none_is_not_taken_as_given():
    def entry(**facts):
        facts["grad_mode"] = True
        return {"entry": "forward", "file": "m.py", "line": 9, "name": "mask", "facts": facts}

    records = [entry(kind="none"), entry(kind="tensor", grad="off", shape=[2], contiguous=True)]
    joined = facts.given_arguments(records)["m.py"][9, "forward"][True]["mask"]
    assert joined == {"or_none": True}
    tensor = {"kind": "tensor", "grad": "off", "contiguous": True, "shape": [2, 3, 4]}
    given = {(9, "forward"): {True: {"x": tensor, "mask": joined}}}
    stated = StatementFacts(GIVEN, given=given)
    # both arms of `if mask is not None:` run: no fact rests on mask being given
    assert stated.query(12, "h").assumed_given == frozenset()
    assert stated.query(10, "h").facts["dims"] == (2, 3, 8)


LOADER = """\
import torch
from torchvision import datasets, transforms

transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])
train = datasets.MNIST("data", train=True, download=True, transform=transform)
loader = torch.utils.data.DataLoader(train, batch_size=64, shuffle=True)
for images, labels in loader:
    flat = images.view(images.size(0), -1)
other = datasets.MNIST("data", transform=transforms.Lambda(lambda x: x))
for image, label in torch.utils.data.DataLoader(other, batch_size=8):
    pass
for image, label in torch.utils.data.DataLoader(train, collate_fn=list):
    pass
for image, label in train:
    pass
crops = transforms.Compose([transforms.RandomCrop(32, padding=4), transforms.ToTensor()])
for images, labels in torch.utils.data.DataLoader(datasets.CIFAR10("data", transform=crops)):
    rows = images.reshape(images.size(0), -1)
"""


def test_a_loader_of_a_torchvision_dataset_turned_into_tensors_yields_image_batches():
    stated = StatementFacts(LOADER)
    images, labels = stated.query(7, "images").facts, stated.query(7, "labels").facts
    assert (images["kind"], images["grad"], images["dtype"], images["rank"]) == (
        "tensor",
        "off",
        "float",
        4,
    )
    assert (labels["kind"], labels["dtype"], labels["rank"]) == ("tensor", "int", 1)
    assert images["dims"][1:] == (1, 28, 28)  # MNIST's images, sizes kept by the steps
    cropped = stated.query(17, "images").facts
    assert cropped["rank"] == 4 and cropped["dims"][1:] == (None, None, None)
    assert cropped["same_dims"] == ()  # channels, height, width: each a size of its own
    # a copy or a view of what requires no grad, its sizes read from it: no grad either
    assert stated.query(18, "rows").facts["grad"] == "off"
    assert stated.query(8, "flat").facts["rank"] == 2
    # a transform of unknown effect, a collate of the file's choosing: unknown
    for line in (10, 12):
        assert stated.query(line, "image").facts.get("kind") is None
    image, label = stated.query(14, "image").facts, stated.query(14, "label").facts
    assert (image["kind"], image["rank"], label["kind"]) == ("tensor", 3, "number")


EMBEDDING_OF_UNKNOWN_SIZES = """\
import torch
from torch import nn


def embed(vocab, width):
    table = nn.Embedding(vocab, width)
    tokens = torch.zeros(2, 5, dtype=torch.long)
    vectors = table(tokens)
    return vectors
"""


def test_an_embedding_whose_sizes_the_file_does_not_fix_adds_one_dim_of_its_own():
    vectors = StatementFacts(EMBEDDING_OF_UNKNOWN_SIZES).query(8, "vectors").facts
    assert vectors["rank"] == 3 and vectors["dims"] == (2, 5, None)


CLASS_LITERALS = textwrap.dedent(
    """\
    import torch


    class Config:
        model_type = "bert"
        hidden: int = 32
        eps = -1e-5
        flags = {"a": (1, 2)}
        act = torch.nn.ReLU


    class Net(torch.nn.Module):
        expansion = 4
    """
)


def test_what_a_class_body_binds_to_a_literal_is_stated(tmp_path):
    stated = StatementFacts(CLASS_LITERALS)
    kinds = {(5, "model_type"): "str", (6, "hidden"): "number", (7, "eps"): "number"}
    kinds |= {(8, "flags"): "mapping", (13, "expansion"): "number"}
    for (line, name), kind in kinds.items():
        assert stated.query(line, name).facts["kind"] == kind, name
    assert stated.query(9, "act") is None  # not a literal: not run
    tally = _check(tmp_path, CLASS_LITERALS)
    assert tally.contradictions == [] and tally.known["kind"] >= 5
