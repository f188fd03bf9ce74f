"""How far the code probe reaches into the user's code: every call the project makes of a
module (not only the first), tensors its constructor is given, inputs as the project
passes them (not made to require grad), methods other than `forward` and module-level
functions applying an `autograd.Function`, layers nested in plain containers, layers
built while forward runs. Each mechanism confirms a finding in realistic module files,
and a look-alike is not confirmed; errors met on guessed tensors confirm only the
finding predicting that very error and are never GL901. One run (one worker)."""

from __future__ import annotations

import textwrap

import pytest

from gradlint.diagnostic import Diagnostic, Severity, Witness
from gradlint.probe import run_probes

LEAF = "a leaf Variable that requires grad is being used in an in-place operation"
GRADS = "returned an incorrect number of gradients"
NON_LEAF = "can't optimize a non-leaf Tensor"
INVALID = "is invalid for input of size"
NO_GRAD_FN = "element 0 of tensors does not require grad and does not have a grad_fn"
GUESSED = "(on inputs gradlint guessed)"
FILES = {
    # the last batch is smaller: only the second call of the module fails
    "batches.py": """
        import torch
        import torch.nn as nn

        N_BOXES = 4


        class BoxHead(nn.Module):
            def __init__(self, features=8):
                super().__init__()
                self.features = features
                self.score = nn.Linear(features, 1)

            def forward(self, boxes):
                boxes = boxes.view(-1, N_BOXES, self.features)
                return self.score(boxes).squeeze(-1).softmax(-1)


        head = BoxHead()
        for rows in (8, 6):
            head(torch.randn(rows, 8)).sum().backward()
        """,
    # a helper function of the script feeds the module two sequence lengths
    "lengths.py": """
        import torch
        import torch.nn as nn


        class Scorer(nn.Module):
            def __init__(self, hidden=4, max_len=5):
                super().__init__()
                self.max_len = max_len
                self.v = nn.Linear(hidden, 1)

            def forward(self, states):
                return self.v(states).view(-1, self.max_len).softmax(1)


        def evaluate(model):
            for length in (5, 3):
                model(torch.randn(2, length, 4)).sum().backward()


        evaluate(Scorer())
        """,
    # pretrained vectors copied into a trainable embedding in __init__ (a tensor argument)
    "pretrained.py": """
        import torch
        import torch.nn as nn


        class Encoder(nn.Module):
            def __init__(self, vocab, dim, vectors, freeze=False):
                super().__init__()
                self.emb = nn.Embedding(vocab, dim)
                if freeze:
                    self.emb.weight.requires_grad = False
                self.emb.weight.copy_(vectors)
                self.out = nn.Linear(dim, 2)

            def forward(self, ids):
                return self.out(self.emb(ids).mean(0))


        class SafeEncoder(nn.Module):
            def __init__(self, vocab, dim, vectors):
                super().__init__()
                self.emb = nn.Embedding(vocab, dim)
                with torch.no_grad():
                    self.emb.weight.copy_(vectors)

            def forward(self, ids):
                return self.emb(ids)


        VOCAB, DIM = 10, 4
        vectors = torch.zeros(VOCAB, DIM).uniform_(-0.1, 0.1)
        encoder = Encoder(VOCAB, DIM, vectors)
        safe = SafeEncoder(VOCAB, DIM, vectors)
        """,
    # the images never require grad: the reentrant checkpoint cuts the stem's gradient
    "checkpointed.py": """
        import torch
        import torch.nn as nn
        from torch.utils.checkpoint import checkpoint


        class Backbone(nn.Module):
            def __init__(self):
                super().__init__()
                self.stem = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU())
                self.head = nn.Linear(4, 2)

            def forward(self, images):
                features = checkpoint(self.stem, images, use_reentrant=True)
                return self.head(features.mean(dim=(2, 3)))


        class Refiner(nn.Module):
            def __init__(self):
                super().__init__()
                self.stem = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU())
                self.head = nn.Linear(4, 2)

            def forward(self, images):
                features = checkpoint(self.stem, images, use_reentrant=True)
                return self.head(features.mean(dim=(2, 3)))


        images = torch.randn(2, 3, 6, 6)
        Backbone()(images).sum().backward()
        noise = torch.randn(2, 3, 6, 6, requires_grad=True)
        Refiner()(noise).sum().backward()
        """,
    # methods other than forward, called by the script
    "methods.py": """
        import torch
        import torch.nn as nn


        class PromptTuner(nn.Module):
            def __init__(self, tokens=3, dim=4):
                super().__init__()
                self.proj = nn.Linear(dim, dim)
                self.prompt = torch.randn(1, tokens + 2, dim).requires_grad_(True)
                self.learned = self.prompt[:, 1 : 1 + tokens]

            def forward(self, x):
                return self.proj(x + self.prompt.mean(1))

            def configure_optimizers(self):
                return torch.optim.Adam([self.learned], lr=0.1)


        class Neuron(nn.Module):
            def __init__(self, beta=0.5):
                super().__init__()
                self.beta = beta

            @staticmethod
            def reset(*states):
                for state in states:
                    state.zero_()

            def init_state(self, shape):
                return torch.ones(shape, requires_grad=True)

            def forward(self, x, mem):
                mem = self.beta * mem + x
                return mem.sigmoid(), mem


        tuner = PromptTuner()
        optimizer = tuner.configure_optimizers()
        neuron = Neuron()
        mem = neuron.init_state((2, 3))
        Neuron.reset(mem)
        """,
    # an evaluation loop of a plain class calls a step method under no_grad
    "evaluation.py": """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F


        class Denoiser(nn.Module):
            def __init__(self, width=4):
                super().__init__()
                self.net = nn.Sequential(nn.Linear(width, width), nn.Tanh())

            def validation_step(self, batch, index):
                noisy, clean = batch
                loss = F.mse_loss(self.net(noisy), clean)
                loss.backward()
                return {"loss": loss.item(), "index": index}


        class Loop:
            def validate(self, model, loader):
                outputs = []
                with torch.no_grad():
                    for index, batch in enumerate(loader):
                        outputs.append(model.validation_step(batch, index))
                return outputs


        loader = [(torch.randn(3, 4), torch.randn(3, 4))]
        Loop().validate(Denoiser(), loader)
        """,
    # an autograd.Function applied only from a module-level helper function
    "helper.py": """
        import torch
        import torch.nn as nn


        class _Gather(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, dim, world_size):
                ctx.dim = dim
                return torch.cat(list(x.chunk(world_size, dim=dim)), dim=dim)

            @staticmethod
            def backward(ctx, grad):
                return grad, None


        def gather(x, dim=1, world_size=1):
            return _Gather.apply(x, dim, world_size)


        def step(layer):
            hidden = layer(torch.randn(2, 3, 4))
            gather(hidden).sum().backward()


        step(nn.Linear(4, 4))
        """,
    # layers nested in plain containers: a dict of dicts, a list of lists
    "containers.py": """
        import torch
        import torch.nn as nn


        class Relations(nn.Module):
            def __init__(self, relations=2, features=4):
                super().__init__()
                self.weights = {}
                for rel in range(relations):
                    self.weights[rel] = {"w": nn.Parameter(torch.randn(features))}
                self.registered = nn.ParameterDict(
                    {str(r): nn.Parameter(torch.randn(features)) for r in range(relations)}
                )

            def forward(self, x):
                return x * self.weights[0]["w"] + self.registered["0"]


        class Stack(nn.Module):
            def __init__(self, depth=2, width=4):
                super().__init__()
                self.blocks = [[nn.Linear(width, width), nn.Tanh()] for _ in range(depth)]
                self.kept = nn.ModuleList([nn.Linear(width, width) for _ in range(depth)])

            def forward(self, x):
                for linear, act in self.blocks:
                    x = act(linear(x))
                return x
        """,
    # layers built while forward runs
    "forward_built.py": """
        import torch
        import torch.nn as nn


        class Mlp(nn.Module):
            def __init__(self, width=6):
                super().__init__()
                self.width = width
                self.norm = nn.LayerNorm(width)

            def forward(self, x):
                x = self.norm(x)
                hidden = nn.Linear(self.width, 8)(x).relu()
                return nn.Linear(8, 2)(hidden)


        model = Mlp()
        model(torch.randn(3, 6)).sum().backward()
        """,
    # the input is a leaf whose gradient the script wants (a saliency map); its shape
    # comes from numpy, unknown to the analysis: the guess shaped for the conv is a leaf
    "saliency.py": """
        import numpy as np
        import torch
        import torch.nn as nn
        import torch.nn.functional as F


        class Classifier(nn.Module):
            def __init__(self, channels=3, classes=2):
                super().__init__()
                self.conv = nn.Conv2d(channels, 4, 3, padding=1)
                self.fc = nn.Linear(4, classes)

            def forward(self, image):
                image = F.relu(image, inplace=True)
                return self.fc(self.conv(image).mean(dim=(2, 3)))


        model = Classifier()
        image = torch.from_numpy(np.random.random((1, 3, 8, 8))).float().requires_grad_(True)
        model(image)[0, 1].backward()
        saliency = image.grad.abs()
        """,
    # a layer whose forward reads `.data`: its output needs no grad on the script's input
    "detached.py": """
        import torch
        import torch.nn as nn


        class Affine(nn.Module):
            def __init__(self, features=5):
                super().__init__()
                self.scale = nn.Parameter(torch.ones(features))
                self.shift = nn.Parameter(torch.zeros(features))

            def forward(self, x):
                return x * self.scale.data + self.shift.data


        class Tracked(nn.Module):
            def __init__(self, features=5):
                super().__init__()
                self.scale = nn.Parameter(torch.ones(features))

            def forward(self, x):
                return self.scale * x


        batch = torch.rand(4, 5)
        Affine()(batch)
        Tracked()(batch).sum().backward()
        """,
    # heads split from (B, L, H * D) as (B, L, H, D), then read as (B, H, L, D)
    "heads.py": """
        import torch
        import torch.nn as nn


        class SelfAttention(nn.Module):
            def __init__(self, dim=8, heads=2):
                super().__init__()
                self.heads = heads
                self.q = nn.Linear(dim, dim)
                self.k = nn.Linear(dim, dim)

            def forward(self, x):
                B, L, _ = x.shape
                q = self.q(x).view(B, L, self.heads, -1)
                k = self.k(x).view(B, L, self.heads, -1).transpose(1, 2)
                q = q.view(B, self.heads, L, -1)
                attn = (q @ k.transpose(-2, -1)).softmax(-1)
                return (attn @ k).transpose(1, 2).reshape(B, L, -1)


        SelfAttention()(torch.randn(2, 5, 8)).sum().backward()
        """,
    # the guess (a float tensor where the project passes token ids) fails at the line
    # of a finding predicting another error: that is no proof of it, nor a GL901
    "tokens.py": """
        import torch
        import torch.nn as nn


        class Tagger(nn.Module):
            def __init__(self, vocab=12, dim=4):
                super().__init__()
                self.emb = nn.Embedding(vocab, dim)
                self.out = nn.Linear(dim, 3)

            def forward(self, ids):
                return self.out(self.emb(ids))


        def tag(model, sentence):
            return model(sentence)


        tag(Tagger(), torch.arange(5))
        """,
}


def _line(name: str, text: str) -> int:
    source = textwrap.dedent(FILES[name])
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def _finding(directory, name, text, code, expect=None):
    line = _line(name, text)
    witness = Witness("", expect) if expect else None
    return Diagnostic(
        str(directory / name), line, 1, line, 2, code, "m", severity=Severity.ERROR, witness=witness
    )


FINDINGS = {
    "last batch": ("batches.py", "boxes.view(", "GL402", INVALID),
    "helper lengths": ("lengths.py", ".view(-1, self.max_len)", "GL402", INVALID),
    "constructor tensor": ("pretrained.py", "self.emb.weight.copy_(vectors)", "GL101", LEAF),
    "checkpoint": ("checkpointed.py", "features = checkpoint(", "GL205", None),
    "method": ("methods.py", "torch.optim.Adam([self.learned]", "GL206", NON_LEAF),
    "static method": ("methods.py", "state.zero_()", "GL101", LEAF),
    "no_grad step": ("evaluation.py", "loss.backward()", "GL202", NO_GRAD_FN),
    "function": ("helper.py", "return grad, None", "GL304", GRADS),
    "nested dict": ("containers.py", 'self.weights[rel] = {"w"', "GL502", None),
    "parameter dict": ("containers.py", "self.registered = nn.ParameterDict(", "GL502", None),
    "nested list": ("containers.py", "self.blocks = [[", "GL502", None),
    "module list": ("containers.py", "self.kept = nn.ModuleList(", "GL502", None),
    "built in forward": ("forward_built.py", "hidden = nn.Linear(", "GL505", None),
    "built in init": ("forward_built.py", "self.norm = nn.LayerNorm(", "GL505", None),
    "guessed dtype": ("tokens.py", "self.out(self.emb(ids))", "GL402", INVALID),
    "leaf input": ("saliency.py", "image = F.relu(image, inplace=True)", "GL101", LEAF),
    "data read": ("detached.py", "x * self.scale.data", "GL202", None),
    "tracked": ("detached.py", "return self.scale * x", "GL202", None),
    "heads mixed": ("heads.py", "q = q.view(B, self.heads, L, -1)", "GL403", None),
    "heads split": ("heads.py", "q = self.q(x).view(B, L, self.heads, -1)", "GL403", None),
}


@pytest.fixture(scope="module")
def reach(tmp_path_factory):
    directory = tmp_path_factory.mktemp("reach")
    sources = {}
    for name, source in FILES.items():
        (directory / name).write_text(textwrap.dedent(source))
        sources[str(directory / name)] = textwrap.dedent(source)
    findings = {key: _finding(directory, *spec) for key, spec in FINDINGS.items()}
    # SafeEncoder's copy_ is the second one in the file
    safe = _line("pretrained.py", "with torch.no_grad():") + 1
    findings["under no_grad"] = Diagnostic(
        str(directory / "pretrained.py"), safe, 1, safe, 2, "GL101", "m",
        severity=Severity.ERROR, witness=Witness("", LEAF),
    )  # fmt: skip
    result = run_probes(list(findings.values()), timeout=30.0, sources=sources)
    return findings, result, directory


def _probe(reach, key) -> dict:
    return reach[0][key].probe


def _gl901(reach, name):
    _, result, directory = reach
    return [d for d in result if d.code == "GL901" and d.path == str(directory / name)]


@pytest.mark.parametrize("key", ["last batch", "helper lengths"])
def test_every_call_of_the_module_runs_not_only_the_first(reach, key):
    """The first call (8 rows, length 5) runs clean; the second fails at the view (the
    tensors rebuilt with the shape and dtype the analysis proves; only values differ)."""
    probe = _probe(reach, key)
    assert probe["verdict"] == "confirmed", probe
    assert INVALID in probe["message"]
    assert not probe["message"].endswith(GUESSED)  # shapes and dtype proven: not guessed


def test_a_tensor_given_to_the_constructor_is_rebuilt_from_its_shape(reach):
    probe = _probe(reach, "constructor tensor")
    assert probe["verdict"] == "confirmed", probe
    assert probe["message"] == LEAF + "."
    assert _probe(reach, "under no_grad")["verdict"] != "confirmed"
    assert _gl901(reach, "pretrained.py") == []


def test_inputs_the_project_passes_are_not_made_to_require_grad(reach):
    """Backbone is fed images that need no grad, as the script does: the reentrant
    checkpoint leaves the stem without gradient. Refiner's input requires grad."""
    probe = _probe(reach, "checkpoint")
    assert probe["verdict"] == "confirmed", probe
    assert "`stem.0.weight`, `stem.0.bias` still have no gradient" in probe["message"]


def test_methods_other_than_forward_run_as_the_script_calls_them(reach):
    method = _probe(reach, "method")
    assert method["verdict"] == "confirmed", method
    assert method["message"] == NON_LEAF  # no tensor guessed: configure_optimizers()
    static = _probe(reach, "static method")
    assert static["verdict"] == "confirmed", static
    assert static["message"] == LEAF + "."
    assert _gl901(reach, "methods.py") == []


def test_a_method_runs_in_the_grad_mode_of_its_caller(reach):
    """`validation_step` is called from a loop under no_grad (its batch rebuilt from its
    shapes, its index guessed): its `loss.backward()` fails as it does for the user."""
    probe = _probe(reach, "no_grad step")
    assert probe["verdict"] == "confirmed", probe
    assert probe["message"] == NO_GRAD_FN + " " + GUESSED
    assert _gl901(reach, "evaluation.py") == []


def test_a_function_applied_from_a_module_level_helper_is_run(reach):
    probe = _probe(reach, "function")
    assert probe["verdict"] == "confirmed", probe
    assert "function _GatherBackward returned an incorrect number of gradients" in probe["message"]
    assert _gl901(reach, "helper.py") == []


def test_layers_nested_in_plain_containers_are_unregistered(reach):
    for key in ("nested dict", "nested list"):
        probe = _probe(reach, key)
        assert probe["verdict"] == "confirmed", (key, probe)
        assert "hold tensors that require grad" in probe["message"] or "holds" in probe["message"]
    for key in ("parameter dict", "module list"):
        assert _probe(reach, key)["verdict"] != "confirmed", key


def test_layers_built_while_forward_runs(reach):
    probe = _probe(reach, "built in forward")
    assert probe["verdict"] == "confirmed", probe
    assert "`Mlp.forward` built a layer at this line" in probe["message"]
    assert _probe(reach, "built in init")["verdict"] != "confirmed"


def test_an_error_of_the_guess_at_the_line_proves_no_other_finding(reach):
    """The float tensor rebuilt from `torch.arange(5)`'s shape fails in the embedding, at
    the finding's line, with an error it does not predict: not confirmed, no GL901."""
    probe = _probe(reach, "guessed dtype")
    assert probe["verdict"] != "confirmed", probe
    assert _gl901(reach, "tokens.py") == []


def test_a_leaf_input_of_unknown_shape_is_guessed_as_a_leaf(reach):
    """The script passes a leaf that requires grad (for a saliency map) of a shape from
    numpy: the input guessed for the conv is such a leaf, and `relu(inplace=True)` on it
    fails as it does for the user."""
    probe = _probe(reach, "leaf input")
    assert probe["verdict"] == "confirmed", probe
    assert probe["message"] == LEAF + ". " + GUESSED
    assert _gl901(reach, "saliency.py") == []


def test_a_forward_whose_output_needs_no_grad_confirms_a_graph_cut(reach):
    """The script's batch needs no grad (shape and dtype proven: not a guess), as in the
    script: Affine's output needs no grad, its parameters can get none. Tracked learns."""
    probe = _probe(reach, "data read")
    assert probe["verdict"] == "confirmed", probe
    assert "the output of `Affine.forward` does not require grad" in probe["message"]
    assert "`scale`, `shift` can get no gradient" in probe["message"]
    assert _probe(reach, "tracked")["verdict"] != "confirmed", _probe(reach, "tracked")


def test_a_view_giving_the_sizes_in_another_order_confirms_mixed_dims(reach):
    """(B, L, H, D) read as (B, H, L, D) runs without error: the probe sees the sizes
    come back in another order. Splitting (B, L, H * D) into (B, L, H, D) does not."""
    probe = _probe(reach, "heads mixed")
    assert probe["verdict"] == "confirmed", probe
    assert "size (2, 5, 2, 4) the sizes (2, 2, 5, 4)" in probe["message"]
    assert _probe(reach, "heads split")["verdict"] != "confirmed"
