"""GL501 unregistered-parameter, GL502 plain-container-of-modules; the corpus of snippets
modelled on public bug reports in tests/corpus/modules (shared with GL204/GL205/GL303/GL304)."""

import re
import runpy
import textwrap
import warnings
from pathlib import Path

import pytest
import torch
from conftest import codes, lint

from gradlint.analysis import knowledge, torch_ops
from gradlint.engine import lint_source

CORPUS = Path(__file__).parent / "corpus" / "modules"
OWN_CODES = {"GL204", "GL205", "GL206", "GL303", "GL304", "GL501", "GL502", "GL505"}
_EXPECT = re.compile(r"# expect: (GL\d{3}(?:, GL\d{3})*)")
_LABEL = re.compile(r"^# torch: (ok|(\w+): (.+))$")


HEADER = """
import torch
import torch.nn as nn
from torch.autograd import Variable


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)


class Model(nn.Module):
    def __init__(self, n=2, flag=True):
        super().__init__()
"""


def in_init(statement: str) -> str:
    """A module whose `__init__` ends with `statement` (lines relative to the body)."""
    return HEADER + textwrap.indent(statement, " " * 8) + "\n"


# -- GL501 ---------------------------------------------------------------------------

UNREGISTERED = [
    "self.w = torch.randn(3, requires_grad=True)",
    "self.w = torch.zeros(3).cuda().requires_grad_()",
    "self.w = torch.zeros(3).to('cpu').requires_grad_(True)",
    "self.w = Variable(torch.zeros(3), requires_grad=True)",
    "w = torch.ones(3)\nw.requires_grad = True\nself.w = w",
    "self.w = torch.zeros(3)\nself.w.requires_grad = True",
    "w = torch.zeros(3)\nself.w = w\nw.requires_grad = True",  # the same tensor
    "self.w = torch.randn(3, requires_grad=True) * 0.02",  # its leaf is unreachable
    "self.w: torch.Tensor = torch.ones(3, requires_grad=True).float()",
]


@pytest.mark.parametrize("statement", UNREGISTERED)
def test_requires_grad_tensor_attribute_is_flagged(statement):
    assert codes(in_init(statement)) == ["GL501"]


def test_helper_called_from_init_counts():
    source = """
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self._build()

        def _build(self):
            self.scale = torch.ones(1, requires_grad=True)
    """
    (finding,) = lint(source)
    assert (finding.code, finding.line) == ("GL501", 11)


REGISTERED = [
    "self.w = nn.Parameter(torch.randn(3))",
    "self.w = torch.randn(3, requires_grad=False)",
    "self.w = torch.randn(3)",
    "self.w = torch.randn(3, requires_grad=True)\nself.w = nn.Parameter(self.w)",
    "w = torch.randn(3, requires_grad=True)\nself.register_parameter('w', nn.Parameter(w))",
    "self.w = torch.randn(3, requires_grad=flag)",
    "self.w = torch.randn(3).detach()",
    "self.register_buffer('w', torch.zeros(3))",
    "self.w = nn.Linear(3, 3).requires_grad_()",
    "self.w = torch.zeros(3)\nself.w.requires_grad = True\nself.w.requires_grad = False",
    "self.fc = nn.Linear(3, 3)\nself.w = self.fc.weight * 2",  # flows to a parameter
    "self.w = torch.randn(3, requires_grad=True)\nself.w = self.w.detach()",
]


@pytest.mark.parametrize("statement", REGISTERED)
def test_registered_or_unknown_state_is_quiet(statement):
    assert codes(in_init(statement)) == []


def test_plain_classes_and_forward_state_are_quiet():
    source = """
    import torch
    import torch.nn as nn

    class Attack:
        def __init__(self):
            self.delta = torch.zeros(3, requires_grad=True)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()

        def forward(self, x):
            self.cache = torch.zeros_like(x, requires_grad=True)
            return x

    class Custom(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.zeros(3, requires_grad=True)

        def parameters(self, recurse=True):
            return iter([self.w])
    """
    assert codes(source) == []


# -- GL502 ---------------------------------------------------------------------------

CONTAINERS = [
    "self.layers = [nn.Linear(2, 2) for _ in range(n)]",
    "self.layers = [nn.Linear(2, 2)] * n",
    "self.layers = (nn.Conv2d(1, 1, 1), nn.ReLU())",
    "self.layers = {'a': Block(), 'b': Block()}",
    "self.layers = {k: nn.Linear(2, 2) for k in 'ab'}",
    "self.layers = [nn.Parameter(torch.zeros(2)) for _ in range(n)]",
    "self.layers = []\nfor _ in range(n):\n    self.layers.append(nn.Linear(2, 2))",
    "self.layers = {}\nself.layers['a'] = nn.Linear(2, 2)",
    "self.layers = []\nself.layers += [nn.Linear(2, 2)]",
    "self.layers = []\nself.layers.extend([Block() for _ in range(n)])",
    "found = []\nfor _ in range(n):\n    found.append(nn.Linear(2, 2))\nself.layers = found",
    "self.layers = [[nn.Linear(2, 2), nn.ReLU()] for _ in range(n)]",
    "block = nn.Linear(2, 2)\nself.layers = [block]",
    "self.layers = tuple(nn.Linear(2, 2) for _ in range(n))",
    "self.layers: list = [nn.Linear(2, 2) for _ in range(n)]",
    "self.heads = {}\nfor k in ['a', 'b']:\n    self.heads[k] = nn.Linear(2, 2)",
    "self.layers = [nn.Conv2d(1, 1, 1)]\nself.layers.append(nn.ReLU())",
    "self.a = nn.Linear(2, 2)\nself.layers = [self.a, nn.Linear(2, 2)]",
    # one of two parameters, joined: registered only if both are
    "self.a = nn.Linear(2, 2)\n"
    "w = self.a.weight if n else nn.Parameter(torch.ones(2))\nself.ws = [w]",
    "self.ws = [nn.Parameter(torch.ones(1)) if i else nn.Parameter(torch.zeros(1))"
    " for i in range(n)]",
]


@pytest.mark.parametrize("statement", CONTAINERS)
def test_plain_container_of_modules_is_flagged(statement):
    assert codes(in_init(statement)) == ["GL502"]


WRAPPED = [
    "self.layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(n)])",
    "layers = [nn.Linear(2, 2) for _ in range(n)]\nself.layers = nn.ModuleList(layers)",
    "layers = [nn.Linear(2, 2)]\nself.net = nn.Sequential(*layers)\nself.layers = layers",
    "self.layers = []\nself.layers.append(nn.Linear(2, 2))\n"
    "self.layers = nn.ModuleList(self.layers)",
    "self.layers = [nn.Linear(2, 2)]\nself.net = nn.Sequential(*self.layers)",
    "self.a = nn.Linear(2, 2)\nself.layers = [self.a]",
    "block = nn.Linear(2, 2)\nself.block = block\nself.layers = [block]",
    "self.sizes = [1, 2, 3]\nself.names = {'a': 'b'}",
    "self.masks = [torch.zeros(2) for _ in range(n)]",
    "self.layers = [nn.Linear(2, 2), nn.Linear(2, 2)]\n"
    "for i, layer in enumerate(self.layers):\n"
    "    self.add_module(f'layer{i}', layer)",
    "self.layers = [make_layer() for _ in range(n)]",
    "self.fc = nn.Linear(2, 2)\nself.weights = [self.fc.weight, self.fc.bias]",
    "self.p = nn.Parameter(torch.zeros(2))\nself.ps = [self.p]",
    "layers = [nn.Linear(2, 2) for _ in range(n)]\nself.blocks = nn.ModuleList()\n"
    "self.blocks.extend(layers)\nself.layers = layers",
    "self.layers = [nn.Linear(2, 2)]\nsetattr(self, 'layer0', self.layers[0])",
    # parameters listed by registered modules, joined into one tuple (torch's
    # ddp_under_dist_autograd_test.py splits them into DDP and non-DDP groups so)
    "self.fc1 = nn.Linear(2, 2)\nself.fc2 = nn.Linear(2, 2)\n"
    "self.params = tuple(self.fc1.parameters()) + tuple(self.fc2.parameters())",
    "self.fc = nn.Linear(2, 2)\nself.params = list(self.fc.parameters()) + [*self.fc.buffers()]",
    # one of two registered parameters, whichever a flag picks (a join that knows both)
    "self.a = nn.Linear(2, 2)\nself.b = nn.Linear(2, 2)\n"
    "w = self.a.weight if n else self.b.weight\nself.tied = [w]",
    "self.a = nn.Linear(2, 2)\nself.b = nn.Linear(2, 2)\nself.ws = []\n"
    "for m in (self.a, self.b):\n    self.ws.append(m.weight if n else m.bias)",
]


@pytest.mark.parametrize("statement", WRAPPED)
def test_registered_or_plain_data_containers_are_quiet(statement):
    assert codes(in_init(statement)) == []


def test_state_kept_by_other_methods_or_functions_is_quiet():
    source = """
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.layers = [nn.Linear(2, 2) for _ in range(n)]
            self.scale = torch.ones(1, requires_grad=True)
            self.finish()

        def finish(self):
            self.net = nn.Sequential(*self.layers)

        def reset(self):
            self.scale = nn.Parameter(torch.ones(1))
    """
    assert codes(source) == []


def test_tensor_an_optimizer_is_built_with_is_quiet():
    """Not registered, but trained: the optimizer is given the tensor itself."""
    source = """
    import torch
    import torch.nn as nn

    class Prompt(nn.Module):
        def __init__(self):
            super().__init__()
            self.context = torch.zeros(4, requires_grad=True)
            self.hidden = torch.zeros(4, requires_grad=True)

        def configure_optimizers(self):
            return torch.optim.Adam([self.context], lr=0.1)
    """
    (finding,) = lint(source)
    assert (finding.code, finding.line) == ("GL501", 9)


# quark0/darts cnn/model_search.py @f276dd3: the architecture weights are kept out of
# parameters() on purpose and handed out by arch_parameters(), for the architect's own Adam
DARTS_SEARCH = """
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

PRIMITIVES = ['none', 'max_pool_3x3', 'skip_connect']


class Network(nn.Module):

  def __init__(self, C, num_classes, steps=2):
    super(Network, self).__init__()
    self._steps = steps
    self.stem = nn.Linear(C, C)
    self.classifier = nn.Linear(C, num_classes)
    self._initialize_alphas()

  def forward(self, input):
    weights = F.softmax(self.alphas_normal, dim=-1)
    return self.classifier(self.stem(input) * weights[:, 1].sum())

  def _initialize_alphas(self):
    k = sum(1 for i in range(self._steps) for n in range(2+i))
    num_ops = len(PRIMITIVES)

    self.alphas_normal = Variable(1e-3*torch.randn(k, num_ops), requires_grad=True)
    self.alphas_reduce = Variable(1e-3*torch.randn(k, num_ops), requires_grad=True)
    self._arch_parameters = [
      self.alphas_normal,
      self.alphas_reduce,
    ]
{accessor}

model = Network(4, 3)
optimizer = torch.optim.SGD(model.parameters(), 0.1)
{architect}
before = model.alphas_normal.detach().clone()
loss = F.cross_entropy(model(torch.randn(8, 4)), torch.randint(0, 3, (8,)))
loss.backward()
optimizer.step()
{arch_step}
"""
DARTS_ACCESSOR = """
  def arch_parameters(self):
    return self._arch_parameters
"""


def test_tensor_a_method_hands_out_for_its_own_optimizer_is_quiet(tmp_path):
    """DARTS: not registered, on purpose; trained by the optimizer built with what
    arch_parameters() returns (run in torch: the architecture step moves it)."""
    source = DARTS_SEARCH.format(
        accessor=DARTS_ACCESSOR,
        architect="arch_optimizer = torch.optim.Adam(model.arch_parameters(), lr=0.1)",
        arch_step="arch_optimizer.step()\nassert not torch.equal(before, model.alphas_normal)",
    )
    assert codes(source) == []
    runpy.run_path(_script(tmp_path, source), run_name="__main__")


def test_same_tensor_without_a_hand_out_is_flagged(tmp_path):
    """The twin: only parameters() reaches an optimizer, and the weights never move."""
    source = DARTS_SEARCH.format(
        accessor="",
        architect="",
        arch_step="assert torch.equal(before, model.alphas_normal)",
    )
    assert [(d.code, d.line) for d in lint(source)] == [("GL501", 27), ("GL501", 28)]
    runpy.run_path(_script(tmp_path, source), run_name="__main__")


def _script(directory: Path, source: str) -> str:
    path = directory / "darts_search.py"
    path.write_text(textwrap.dedent(source))
    return str(path)


def test_modules_stored_by_a_function_the_constructor_calls():
    source = """
    import torch.nn as nn

    def attach(model, n):
        model.blocks = [nn.Linear(2, 2) for _ in range(n)]

    class Model(nn.Module):
        def __init__(self, n):
            super().__init__()
            attach(self, n)
    """
    (finding,) = lint(source)
    assert (finding.code, finding.line) == ("GL502", 5)
    assert finding.message.startswith("`model.blocks` keeps sub-modules")


def test_containers_outside_modules_are_quiet():
    source = """
    import torch.nn as nn

    class Zoo:
        def __init__(self):
            self.models = [nn.Linear(2, 2) for _ in range(3)]

    models = [nn.Linear(2, 2) for _ in range(3)]
    """
    assert codes(source) == []


# -- the data tables, proven in torch ---------------------------------------------------


def test_nn_non_module_classes_are_exactly_torch_nn_non_modules():
    found = {
        f"torch.nn.{name}"
        for name in dir(torch.nn)
        if name[:1].isupper()
        and not (
            isinstance(getattr(torch.nn, name), type)
            and issubclass(getattr(torch.nn, name), torch.nn.Module)
        )
    }
    assert found == torch_ops.NN_NON_MODULE_CLASSES


@pytest.mark.parametrize("container", sorted(torch_ops.MODULE_CONTAINERS))
def test_module_containers_register_their_content(container):
    cls = getattr(torch.nn, container.rsplit(".", 1)[-1])
    is_parameters = "Parameter" in container
    item = torch.nn.Parameter(torch.zeros(2)) if is_parameters else torch.nn.Linear(2, 2)
    content = {"a": item} if container.endswith("Dict") else [item]
    holder = torch.nn.Module()
    holder.box = cls(*content) if container.endswith("Sequential") else cls(content)
    assert list(holder.parameters()), container
    holder.plain = [torch.nn.Linear(2, 2)]
    assert len(list(holder.parameters())) == (1 if is_parameters else 2)


def test_parameter_constructors_register():
    holder = torch.nn.Module()
    holder.p = torch.nn.Parameter(torch.zeros(2))
    holder.u = torch.nn.UninitializedParameter()
    assert {n for n, _ in holder.named_parameters()} == {"p", "u"}
    assert {f"torch.nn.{n}" for n in ("Parameter", "UninitializedParameter")} == (
        torch_ops.PARAMETER_CONSTRUCTORS
    )


def test_tensor_preserving_methods():
    """Differentiable methods returning one tensor, and in-place methods (run on a
    non-leaf: they return their receiver), keep requires_grad."""
    assert {"to", "float", "view", "reshape", "t", "normal_", "fill_", "zero_"} <= (
        torch_ops.TENSOR_PRESERVING_METHODS
    )
    assert not torch_ops.TENSOR_PRESERVING_METHODS & {"argmax", "detach", "long", "eq", "max"}
    checked = 0
    for method in sorted(torch_ops.TENSOR_PRESERVING_METHODS):
        assert callable(getattr(torch.Tensor, method)), method
        facts = knowledge.method(method)
        sample = torch_ops.INPLACE_TENSOR_METHODS.get(method)
        if sample is None and facts is not None and facts.call is not None:
            sample = f"({facts.call[2:]})"
        if sample is None:
            continue
        x = torch.randn(4, 4, requires_grad=True)
        base = x.clone() if method.endswith("_") else x  # in-place ops need a non-leaf
        result = eval(f"base.{method}{sample}", {"base": base, "x": x.detach(), "torch": torch})
        assert isinstance(result, torch.Tensor) and result.requires_grad, method
        checked += 1
    assert checked > 150


# -- witnesses and documented examples, run in torch ------------------------------------


def _run(program: str) -> BaseException | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(compile(program, "<witness>", "exec"), {"__name__": "__witness__"})
        except Exception as error:  # the program's own failure is the point
            return error
    return None


def test_witnesses_reproduce_their_findings():
    source = """
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.gain = torch.ones(3, requires_grad=True)
            self.blocks = [nn.Linear(4, 4)]
    """
    findings = lint(source)
    assert [d.code for d in findings] == ["GL501", "GL502"]
    for finding in findings:
        error = _run(finding.witness.program)
        assert isinstance(error, AssertionError)
        assert str(error).startswith(finding.witness.expect)


def test_bad_doc_examples_fail_in_torch():
    from gradlint.catalogue import load_catalogue

    docs = load_catalogue()
    (unregistered,) = docs["GL501"].bad_examples
    namespace: dict = {}
    exec(unregistered, namespace)
    scale = namespace["Scale"](3)
    assert not any(p is scale.gain for p in scale.parameters())
    (container,) = docs["GL502"].bad_examples
    exec(container, namespace)
    mlp = namespace["MLP"](4, 3)
    assert list(mlp.parameters()) == []


# -- corpus ------------------------------------------------------------------------------

CORPUS_FILES = sorted(CORPUS.glob("*.py"))


def _expected(source: str) -> set[tuple[int, str]]:
    found = set()
    for number, line in enumerate(source.splitlines(), 1):
        match = _EXPECT.search(line)
        if match:
            found.update((number, code) for code in match.group(1).split(", "))
    return found


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.stem)
def test_corpus_findings_match_expect_comments(path):
    source = path.read_text()
    result = lint_source(str(path), source)
    assert not result.internal_errors
    found = {(d.line, d.code) for d in result.diagnostics if d.code in OWN_CODES}
    assert found == _expected(source)


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.stem)
def test_corpus_behaves_in_torch_as_labelled(path, capsys):
    label = _LABEL.match(path.read_text().splitlines()[0])
    assert label, f"{path.name} needs a '# torch: ...' first line"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            runpy.run_path(str(path), run_name="__corpus__")
        except Exception as error:
            assert label.group(1) != "ok", f"{path.name} raised {error!r}"
            assert type(error).__name__ == label.group(2)
            assert str(error).startswith(label.group(3))
            return
    assert label.group(1) == "ok", f"{path.name} ran without the labelled failure"


# vae-lagging-encoder modules/decoders/dec_pixelcnn_v2.py (issue 31, batch 12): a plain list
# filled in a loop whose first pass builds another class, then handed whole to a ModuleList.
PIXELCNN_BLOCKS = """
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, c, k):
        super(Block, self).__init__()
        self.main = nn.Sequential(nn.Conv2d(c, c, k, padding=k // 2), nn.ELU())

    def forward(self, input):
        return self.main(input) + input


class PixelCNN(nn.Module):
    def __init__(self, in_channels, out_channels, num_blocks, kernel_sizes):
        super(PixelCNN, self).__init__()
        self.blocks = []
        for i in range(num_blocks):
            if i == 0:
                block = nn.Conv2d(in_channels, out_channels, kernel_sizes[i], padding=1)
            else:
                block = Block(out_channels, kernel_sizes[i])
            self.blocks.append(block)

        self.main = {container}
{after}
    def forward(self, input):
        for layer in self.main:
            input = layer(input)
        return input


m = PixelCNN(1, 4, 3, [3, 5, 3])
registered = {{id(p) for p in m.parameters()}}
lost = [p for b in m.blocks for p in b.parameters() if id(p) not in registered]
assert not lost, "the plain list holds parameters no container registers"
"""


@pytest.mark.parametrize("container", ["nn.ModuleList(self.blocks)", "nn.Sequential(*self.blocks)"])
def test_plain_list_a_container_took_whole_is_quiet(container):
    source = PIXELCNN_BLOCKS.format(container=container, after="")
    assert "GL502" not in codes(source)
    assert _run(textwrap.dedent(source)) is None


@pytest.mark.parametrize(
    "container, after",
    [
        ("nn.ModuleList(self.blocks)", "        self.blocks.append(nn.Linear(4, 4))\n"),
        ("nn.ModuleList(self.blocks[1:])", ""),
        ("None", ""),
    ],
)
def test_plain_list_filled_after_or_never_handed_whole_is_flagged(container, after):
    source = PIXELCNN_BLOCKS.format(container=container, after=after)
    assert "GL502" in codes(source)
    assert isinstance(_run(textwrap.dedent(source)), AssertionError)


# GraphSAINT graphsaint/pytorch_version/layers.py (issue 31, batch 11b): plain lists of
# Parameters filled in a loop, then registered together by a ParameterList over their sum.
GRAPHSAINT_PARAMETERS = """
import torch
import torch.nn as nn


class AttentionAggregator(nn.Module):
    def __init__(self, dim_in, dim_out, order=1, mulhead=1):
        super(AttentionAggregator, self).__init__()
        self._offset, self._scale = [], []
        self._attention = []
        for o in range(order + 1):
            for i in range(mulhead):
                self._offset.append(nn.Parameter(torch.zeros(dim_out // mulhead)))
                self._scale.append(nn.Parameter(torch.ones(dim_out // mulhead)))
                if o < order:
                    self._attention.append(nn.Parameter(torch.ones(1, dim_out // mulhead * 2)))
                    nn.init.xavier_uniform_(self._attention[-1])
        self.lin = nn.Linear(dim_in, dim_out)
        self.params = nn.ParameterList({registered})

    def forward(self, x):
        h = self.lin(x) * self._scale[0] + self._offset[0]
        return h * self._attention[0][:, : h.shape[1]]


m = AttentionAggregator(3, 4)
registered = {{id(p) for p in m.parameters()}}
lost = [p for p in m._offset + m._scale + m._attention if id(p) not in registered]
assert not lost, "the plain lists hold parameters no container registers"
"""


def test_plain_lists_a_parameter_list_took_whole_by_their_sum_are_quiet():
    source = GRAPHSAINT_PARAMETERS.format(
        registered="self._offset + self._scale + self._attention + [self.lin.weight]"
    )
    assert "GL502" not in codes(source)
    assert _run(textwrap.dedent(source)) is None


def test_a_plain_list_left_out_of_the_sum_is_flagged():
    source = GRAPHSAINT_PARAMETERS.format(registered="self._offset + self._scale")
    assert [d.line for d in lint(source) if d.code == "GL502"] == [16]  # `_attention`
    assert isinstance(_run(textwrap.dedent(source)), AssertionError)
