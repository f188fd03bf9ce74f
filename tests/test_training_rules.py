"""GL305 / GL503 / GL504, and the training corpus: every file linted against its
`# expect:` comments and run in torch to prove its label (GL2xx files included)."""

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import codes, lint

from gradlint.catalogue import load_catalogue
from gradlint.checks import flow, training

CORPUS = sorted((Path(__file__).parent / "corpus" / "training").glob("*.py"))
_EXPECT = re.compile(r"#\s*expect:\s*((?:GL\d{3}[ ,]*)+)")
_LABEL = re.compile(r"^# torch: (ok|raises (.+))$", re.M)

# Runs each program in a fresh namespace; prints {id: "ok" | "<Error>: <message>"}.
_RUNNER = textwrap.dedent(
    """
    import json, sys, warnings
    import torch
    warnings.filterwarnings("ignore")
    outcomes = {}
    for key, program in json.load(sys.stdin).items():
        torch.manual_seed(0)
        try:
            exec(compile(program, key, "exec"), {"__name__": "__main__"})
            outcomes[key] = "ok"
        except BaseException as error:
            outcomes[key] = f"{type(error).__name__}: {error}"
    print(json.dumps(outcomes))
    """
)

# How each rule's Bad doc example is shown to fail: a suffix run after it, and what the
# whole program must end with ("ok": the suffix asserted the silent failure itself).
_DOC_PROOFS = {
    "GL201": ("", "RuntimeError: element 0 of tensors does not require grad"),
    "GL202": (
        "Net()(torch.randn(2, 10)).sum().backward()\n",
        "RuntimeError: element 0 of tensors does not require grad",
    ),
    "GL203": ("", "RuntimeError: element 0 of tensors does not require grad"),
    "GL305": ("", "RuntimeError: Trying to backward through the graph a second time"),
    "GL503": (
        "previous = model.weight.grad.clone()\n"
        "x, y = torch.randn(8, 10), torch.randn(8, 1)\n"
        "fresh = torch.autograd.grad(nn.functional.mse_loss(model(x), y), model.weight)[0]\n"
        "nn.functional.mse_loss(model(x), y).backward()\n"
        "assert torch.allclose(model.weight.grad, previous + fresh)\n",
        "ok",
    ),
}


def _setup_only(source: str) -> str:
    """The example up to its training loop: the same parameters, never trained."""
    lines = source.splitlines(keepends=True)
    first_loop = next(i for i, line in enumerate(lines) if line.startswith("for "))
    return "".join(lines[:first_loop])


def _unchanged_proof(source: str) -> str:
    """Runs the example, then rebuilds its untrained setup and compares the parameters."""
    return (
        source
        + "trained = [p.detach().clone() for p in model.parameters()]\n"
        + "torch.manual_seed(0)\n"
        + _setup_only(source)
        + "assert all(torch.equal(a, b) for a, b in zip(trained, model.parameters()))\n"
    )


def _programs() -> dict[str, str]:
    programs = {f"corpus/{path.name}": path.read_text() for path in CORPUS}
    catalogue = load_catalogue()
    for code, (suffix, _) in _DOC_PROOFS.items():
        programs[f"doc/{code}"] = catalogue[code].bad_examples[0] + suffix
    programs["doc/GL504"] = _unchanged_proof(catalogue["GL504"].bad_examples[0])
    for name, witness in _witnesses().items():
        programs[f"witness/{name}"] = witness.program
    return programs


def _witnesses():
    found = {f"flow-{code}": witness for code, witness in flow._WITNESS.items()}
    for name in dir(training):
        if name.endswith("_WITNESS"):
            found[f"training{name}"] = getattr(training, name)
    return found


@pytest.fixture(scope="module")
def outcomes() -> dict[str, str]:
    """Every corpus file, doc proof and witness, run in one torch process."""
    result = subprocess.run(
        [sys.executable, "-c", _RUNNER],
        input=json.dumps(_programs()),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(result.stdout.splitlines()[-1])


def _expected(source: str) -> set[tuple[int, str]]:
    found = set()
    for number, line in enumerate(source.splitlines(), start=1):
        if match := _EXPECT.search(line):
            found |= {(number, code) for code in re.findall(r"GL\d{3}", match.group(1))}
    return found


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_corpus_file_is_linted_as_labelled(path):
    source = path.read_text()
    found = {(d.line, d.code) for d in lint(source, path=path.name)}
    assert found == _expected(source)


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_corpus_file_behaves_in_torch_as_labelled(path, outcomes):
    label = _LABEL.search(path.read_text())
    assert label, f"{path.name} has no '# torch:' label"
    outcome = outcomes[f"corpus/{path.name}"]
    if label.group(1) == "ok":
        assert outcome == "ok"
    else:
        assert label.group(2) in outcome


@pytest.mark.parametrize("code", [*_DOC_PROOFS, "GL504"])
def test_bad_doc_example_fails_in_torch(code, outcomes):
    expected = _DOC_PROOFS[code][1] if code in _DOC_PROOFS else "ok"
    assert outcomes[f"doc/{code}"].startswith(expected)


@pytest.mark.parametrize("name", sorted(_witnesses()))
def test_witness_reproduces_its_message(name, outcomes):
    witness = _witnesses()[name]
    assert witness.expect in outcomes[f"witness/{name}"]


def test_corpus_covers_every_training_and_flow_rule():
    labels = set()
    for path in CORPUS:
        labels |= {code for _, code in _expected(path.read_text())}
    assert labels >= {"GL201", "GL202", "GL203", "GL305", "GL503", "GL504"}


# -- GL503 ------------------------------------------------------------------------


def test_missing_zero_grad_in_function_with_unknown_optimizer():
    assert codes(
        """
        import torch.nn.functional as F

        def train(model, loader, optimizer):
            model.train()
            for x, y in loader:
                loss = F.mse_loss(model(x), y)
                loss.backward()
                optimizer.step()
        """
    ) == ["GL503"]


@pytest.mark.parametrize(
    "clearing",
    [
        "model.zero_grad()",
        "optimizer.zero_grad(set_to_none=True)",
        "for p in model.parameters():\n            p.grad = None",
        "for p in model.parameters():\n            p.grad.data.zero_()",
        "reset_grads(model)",
        "if step % 2 == 0:\n            optimizer.zero_grad()",
    ],
)
def test_any_clearing_in_the_loop_is_enough(clearing):
    source = f"""
import torch

def reset_grads(model):
    for p in model.parameters():
        p.grad = None

def train(model, loader, optimizer):
    for step, (x, y) in enumerate(loader):
        {clearing}
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        optimizer.step()
"""
    assert codes(source) == []


def test_conditional_step_and_inner_loop_accumulation_are_quiet():
    assert not codes(
        """
        import torch

        def train(model, loader, optimizer, accum):
            for i, (x, y) in enumerate(loader):
                model(x).sum().backward()
                if (i + 1) % accum == 0:
                    optimizer.step()

        def epochs(model, loader, optimizer):
            for epoch in range(3):
                for x in loader:
                    model(x).sum().backward()
                optimizer.step()
                optimizer.zero_grad()
        """
    )


GUARDED_STEP = """
import math

import torch
from torch.nn.utils import clip_grad_norm_


def train(model, optimizer, loader):
    {before}
    for batch_idx, (x, y) in enumerate(loader):
        loss = (model(x) - y).pow(2).mean()
        {clear}
        loss.backward()
        grad_norm = clip_grad_norm_(model.parameters(), 5.0)
        if {guard}:
            optimizer.step()
"""


@pytest.mark.parametrize(
    ("guard", "before", "clear", "expected"),
    [
        # a guard meant to pass (wekws#73: a finite norm), and nothing ever clears
        ("torch.isfinite(grad_norm)", "", "", ["GL503"]),
        ("not math.isnan(loss.item())", "", "", ["GL503"]),
        ("torch.isfinite(grad_norm)", "", "optimizer.zero_grad()", []),
        # cleared once before the loop only (TextClassificationBenchmark#20): each guarded
        # step still applies the sum of every earlier batch's gradient
        ("torch.isfinite(grad_norm)", "optimizer.zero_grad()", "", ["GL503"]),
        # a schedule over the loop's passes: accumulation on purpose
        ("batch_idx == len(loader) - 1", "", "", []),
        ("(batch_idx + 1) % 4 == 0", "", "", []),
    ],
)
def test_step_under_a_guard_with_gradients_never_cleared(guard, before, clear, expected):
    assert codes(GUARDED_STEP.format(guard=guard, before=before, clear=clear)) == expected


AMP_SWITCH = """
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--amp", action="store_true")


def train_one_epoch(model, optimizer, loader, args):
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp)
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        {before}
        if args.amp:
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            {clear}
            loss.backward()
            optimizer.step()
"""


@pytest.mark.parametrize(
    ("before", "clear", "expected"),
    [
        # DAB-DETR#58: only the amp arm clears; the arm a run without --amp takes never does
        ("pass", "pass", ["GL503"]),
        ("pass", "optimizer.zero_grad()", []),
        ("optimizer.zero_grad()", "pass", []),
    ],
)
def test_setting_switch_whose_other_arm_alone_clears(before, clear, expected):
    assert codes(AMP_SWITCH.format(before=before, clear=clear)) == expected


def test_clear_and_step_on_alternating_arms_of_a_schedule_is_quiet():
    """`if i % 2 == 0: zero_grad() else: backward(); step()`: the test reads the loop's
    counter, so each step's arm follows a pass that cleared."""
    source = """
import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(10):
    if i % 2 == 0:
        optimizer.zero_grad()
    else:
        model(torch.randn(2, 4)).sum().backward()
        optimizer.step()
"""
    assert codes(source) == []


def test_backward_and_step_under_one_data_guard_with_a_clip_helper():
    """TextClassificationBenchmark#20: zero_grad() once before a module-level loop whose
    backward and step sit under the same test of the batch; clamping `.grad` in place
    clips the gradients, it does not clear them."""
    source = """
import torch

def clip_gradient(optimizer, grad_clip):
    for group in optimizer.param_groups:
        for param in group["params"]:
            if param.grad is not None:
                param.grad.data.clamp_(-grad_clip, grad_clip)

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.Adam(model.parameters())
optimizer.zero_grad()
batches = [torch.randn(4, 4) for _ in range(3)]
for index, batch in enumerate(batches):
    if len(batch) == 4:
        loss = model(batch).pow(2).mean()
        loss.backward()
        clip_gradient(optimizer, 0.1)
        optimizer.step()
"""
    assert codes(source) == ["GL503"]
    zeroing = source.replace(
        "param.grad.data.clamp_(-grad_clip, grad_clip)", "param.grad.data.zero_()"
    )
    before_backward = zeroing.replace(
        "        loss.backward()\n        clip_gradient(optimizer, 0.1)\n",
        "        clip_gradient(optimizer, 0.1)\n        loss.backward()\n",
    )
    assert before_backward != zeroing
    assert codes(before_backward) == []


def test_step_counted_by_the_loop_itself_is_a_schedule():
    assert not codes(
        """
        import torch

        def train(model, loader, optimizer, accum):
            seen = 0
            for x, y in loader:
                model(x).sum().backward()
                seen += 1
                if seen % accum == 0:
                    optimizer.step()
        """
    )


def test_scheduler_step_is_not_an_optimizer_step():
    assert not codes(
        """
        import torch

        model = torch.nn.Linear(2, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.StepLR(opt, 1)
        my_optimizer_schedule = torch.optim.lr_scheduler.StepLR(opt, 1)
        opt.zero_grad()
        for x in [torch.randn(3, 2)] * 3:
            model(x).sum().backward()
            sched.step()
            my_optimizer_schedule.step()
        """
    )


def test_deepspeed_engine_step_is_not_an_optimizer_step():
    assert not codes(
        """
        import torch

        def train(model_engine, loader):
            for x in loader:
                loss = model_engine(x).sum()
                model_engine.backward(loss)
                model_engine.step()
        """
    )


# -- GL504 ------------------------------------------------------------------------


def test_step_then_backward_without_zero_grad_before_is_not_gl504():
    # The step applies the previous iteration's gradients: late, but they are used.
    assert "GL504" not in codes(
        """
        import torch

        def train(model, loader, optimizer):
            for x in loader:
                loss = model(x).sum()
                optimizer.step()
                optimizer.zero_grad()
                loss.backward()
        """
    )


def test_gan_step_on_other_networks_parameters_is_quiet():
    # optD.step() between netG's forward and a backward through netG: netG is not
    # updated by optD, so the recorded graph is still valid.
    assert not codes(
        """
        import torch
        import torch.nn as nn

        netG, netD = nn.Linear(4, 6), nn.Linear(6, 1)
        optD = torch.optim.Adam(netD.parameters())
        optG = torch.optim.Adam(netG.parameters())
        for _ in range(2):
            fake = netG(torch.randn(2, 4))
            optD.zero_grad()
            netD(fake.detach()).mean().backward()
            optD.step()
            optG.zero_grad()
            (-netD(fake).mean()).backward()
            optG.step()
        """
    )


def test_stale_graph_message_names_module_and_backward_line():
    (finding,) = lint(
        """
        import torch
        import torch.nn as nn

        net = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 1))
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        loss = net(torch.randn(2, 3)).sum()
        opt.step()
        loss.backward()
        """
    )
    assert (finding.code, finding.line) == ("GL504", 8)
    assert "`net`" in finding.message and "line 9" in finding.message


_DRAWN_STEP = """
import torch
import torch.nn as nn

G = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 4))
D, E = nn.Linear(4, 1), nn.Linear(4, 4)
{freeze}
optim_G = torch.optim.Adam({params}, lr=0.001)
optim_D = torch.optim.Adam(D.parameters(), lr=0.001)
for _ in range(2):
    out = D(G(torch.randn(2, 4)) + E(torch.randn(2, 4)))
    optim_G.zero_grad()
    out.mean().backward(retain_graph=True)
    optim_G.step()
    optim_D.zero_grad()
    (1 - out).mean().backward()
    optim_D.step()
"""


@pytest.mark.parametrize(
    "params",
    [
        "filter(lambda p: p.requires_grad, G.parameters())",
        "list(filter(lambda p: p.requires_grad, G.parameters()))",
        "list(G.parameters()) + list(E.parameters())",
        "list(E.parameters()) + list(filter(lambda q: q.requires_grad, G.parameters()))",
    ],
)
def test_step_of_parameters_drawn_from_modules_before_a_backward_through_them(params):
    # torch: the second backward needs G's weights the step edited in place (raises)
    found = lint(_DRAWN_STEP.format(freeze="", params=params))
    assert ("GL504", 14) in {(f.code, f.line) for f in found}


@pytest.mark.parametrize(
    "freeze",
    [
        "G.requires_grad_(False)",  # the filter keeps none of G (torch: empty optimizer)
        "for name, p in G.named_parameters():\n    p.requires_grad = name.endswith('bias')",
    ],
)
def test_filter_of_a_frozen_or_partly_frozen_module_states_no_step(freeze):
    # G frozen: the filter drops its parameters; partly frozen (torch runs it: the biases
    # it keeps are not saved): which ones it keeps is unknown. No stale graph is stated.
    params = "filter(lambda p: p.requires_grad, G.parameters())"
    found = lint(_DRAWN_STEP.format(freeze=freeze, params=params))
    assert "GL504" not in {f.code for f in found}


# -- GL305 ------------------------------------------------------------------------


def test_retain_graph_and_exclusive_branches_are_quiet():
    assert not codes(
        """
        import torch

        model = torch.nn.Linear(3, 1)
        out = model(torch.randn(2, 3))
        out.sum().backward(retain_graph=True)
        out.mean().backward()

        def step(model, x, use_a):
            y = model(x)
            if use_a:
                y.sum().backward()
            else:
                y.mean().backward()
        """
    )


def test_new_forward_between_backwards_is_quiet():
    assert not codes(
        """
        import torch

        model = torch.nn.Linear(3, 1)
        loss = model(torch.randn(2, 3)).sum()
        loss.backward()
        loss = model(torch.randn(2, 3)).sum()
        loss.backward()
        """
    )


def test_hidden_detached_in_place_or_by_unknown_helper_is_quiet():
    assert not codes(
        """
        import torch
        from utils import detach_state

        model = torch.nn.GRU(3, 4)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        h = torch.zeros(1, 2, 4)
        g = torch.zeros(1, 2, 4)
        for x in [torch.randn(5, 2, 3)] * 3:
            opt.zero_grad()
            h.detach_()
            g = detach_state(g)
            out, h = model(x, h)
            out2, g = model(x, g)
            (out.sum() + out2.sum()).backward()
            opt.step()
        """
    )


def test_autograd_grad_consumes_the_graph_unless_create_graph():
    found = codes(
        """
        import torch

        model = torch.nn.Linear(3, 1)
        out = model(torch.randn(2, 3)).tanh().sum()
        grads = torch.autograd.grad(out, list(model.parameters()), create_graph=True)
        out.backward()
        again = model(torch.randn(2, 3)).tanh().sum()
        torch.autograd.grad(outputs=again, inputs=list(model.parameters()))
        again.backward()
        """
    )
    assert found == ["GL305"]


@pytest.mark.parametrize(
    "freeze",
    [
        "backbone.requires_grad_(False)",
        "for p in backbone.parameters():\n    p.requires_grad = False",
    ],
)
def test_features_of_a_frozen_backbone_carry_no_graph(freeze):
    source = f"""
import torch
import torch.nn as nn

backbone, heads = nn.Linear(3, 4), [nn.Linear(4, 1), nn.Linear(4, 1)]
{freeze}
features = backbone(torch.randn(2, 3))
for head in heads:
    head(features).sum().backward()
"""
    assert not codes(source)


def test_features_of_a_trained_backbone_reused_across_iterations():
    found = lint(
        """
        import torch
        import torch.nn as nn

        backbone = nn.Linear(3, 4)
        heads = [nn.Linear(4, 1), nn.Linear(4, 1)]
        features = backbone(torch.randn(2, 3))
        for head in heads:
            head(features).sum().backward()
        """
    )
    assert [(d.code, d.line) for d in found] == [("GL305", 9)]


def test_one_line_blocks_are_replayed():
    found = codes(
        """
        import torch

        model = torch.nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for x in [torch.randn(2, 3)] * 2: model(x).sum().backward(); opt.step()
        """
    )
    assert found == ["GL503"]


def test_wgan_gp_with_critic_iterations_is_quiet():
    assert not codes(
        """
        import torch
        import torch.autograd as autograd
        import torch.nn as nn

        generator, discriminator = nn.Linear(4, 6), nn.Linear(6, 1)
        optimizer_G = torch.optim.Adam(generator.parameters())
        optimizer_D = torch.optim.Adam(discriminator.parameters())

        def compute_gradient_penalty(D, real, fake):
            alpha = torch.rand(real.size(0), 1)
            mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
            out = D(mixed)
            gradients = autograd.grad(
                outputs=out, inputs=mixed, grad_outputs=torch.ones_like(out),
                create_graph=True, retain_graph=True,
            )[0]
            return ((gradients.norm(2, dim=1) - 1) ** 2).mean()

        for i, real_imgs in enumerate([torch.randn(5, 6)] * 4):
            z = torch.randn(5, 4)
            optimizer_D.zero_grad()
            fake_imgs = generator(z)
            real_validity = discriminator(real_imgs)
            fake_validity = discriminator(fake_imgs)
            penalty = compute_gradient_penalty(discriminator, real_imgs.data, fake_imgs.data)
            d_loss = -torch.mean(real_validity) + torch.mean(fake_validity) + 10 * penalty
            d_loss.backward()
            optimizer_D.step()
            optimizer_G.zero_grad()
            if i % 2 == 0:
                fake_imgs = generator(z)
                g_loss = -torch.mean(discriminator(fake_imgs))
                g_loss.backward()
                optimizer_G.step()
        """
    )


# -- the interpreter's view: helpers run inline, values through attribute chains -------


def test_missing_zero_grad_in_a_helper_is_reported_at_its_call_without_a_fix():
    (finding,) = lint(
        """
        import torch
        import torch.nn as nn

        def train_step(model, opt, x):
            model(x).pow(2).mean().backward()
            opt.step()

        net = nn.Linear(3, 1)
        optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
        for x in [torch.randn(2, 3)] * 3:
            train_step(net, optimizer, x)
        """
    )
    assert (finding.code, finding.line, finding.fix) == ("GL503", 12, None)
    assert "`zero_grad()` on that optimizer" in finding.detail


def test_an_optimizer_rebuilt_each_iteration_over_the_same_parameters_still_accumulates():
    assert codes(
        """
        import torch
        import torch.nn as nn

        model = nn.Linear(3, 1)
        for x in [torch.randn(2, 3)] * 3:
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            model(x).pow(2).sum().backward()
            opt.step()
        """
    ) == ["GL503"]


def test_an_optimizer_over_a_tensor_made_in_the_loop_restarts_each_iteration():
    assert not codes(
        """
        import torch
        from pipeline import unet, scheduler

        def edit(latents, timesteps):
            for t in timesteps:
                x_in = scheduler.scale(latents, t).detach().clone()
                x_in.requires_grad = True
                opt = torch.optim.SGD([x_in], lr=0.1)
                unet(x_in, t).sum().backward()
                opt.step()
                latents = x_in.detach()
            return latents
        """
    )


def test_autograd_grad_does_not_fill_grad():
    assert not codes(
        """
        import torch
        import torch.nn as nn

        model = nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for x in [torch.randn(2, 3)] * 3:
            loss = model(x).pow(2).mean()
            grads = torch.autograd.grad(loss, list(model.parameters()))
            opt.step()
        """
    )


def test_zero_grad_of_a_submodule_holding_the_stepped_parameters_clears_them():
    assert not codes(
        """
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Linear(4, 6)
                self.head = nn.Linear(6, 1)

            def forward(self, x):
                return self.head(self.body(x))

        class Trainer:
            def __init__(self):
                self.model = Net()
                self.optimizer = torch.optim.Adam(self.model.head.parameters())

            def fit(self, batches):
                for x in batches:
                    self.model.head.zero_grad()
                    self.model(x).mean().backward()
                    self.optimizer.step()
        """
    )


PHASED_TRAINER = """\
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def run_epoch(self, phase, batches):
        for i, (x, y) in enumerate(batches):
            loss = nn.functional.mse_loss(self.model(x), y)
            if {test}:
                {clear}loss.backward()
                self.optimizer.step()

    def train(self, batches):
        self.run_epoch("train", batches)


model = nn.Linear(3, 1)
trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1))
trainer.train([(torch.randn(2, 3), torch.randn(2, 1)) for _ in range(3)])
"""


@pytest.mark.parametrize(
    ("test", "clear", "expected"),
    [
        ('phase == "train"', "", ["GL503"]),  # taken whenever the loop runs: every iteration
        ('phase == "train"', "self.optimizer.zero_grad()\n                ", []),
        ("i == 0", "", []),  # decided per pass of the loop: not every iteration
        # an iteration count: no GL503 (stepping every other iteration is a schedule), but
        # the loss of the other iterations is computed and dropped (GL506)
        ("(i + 1) % 2 == 0", "", ["GL506"]),
    ],
)
def test_if_proven_taken_by_the_caller_counts_as_every_iteration(test, clear, expected):
    assert codes(PHASED_TRAINER.format(test=test, clear=clear)) == expected


def test_a_loss_accumulated_from_zero_keeps_its_graph():
    """`loss = 0` then `loss += term`: the number becomes the tensor `0 + term` with the
    term's graph, so a second pass adding onto it backpropagates the first pass again."""
    source = """\
        import torch
        import torch.nn as nn

        model = nn.Linear(6, 3)
        image, target = torch.randn(4, 6), torch.randn(4, 3)
        output = model(image)
        loss = 0
        for t in range(3):
            loss += (output[:, t] - target[:, t]).pow(2).mean()
        loss.backward()
        output = model(image)
        {reset}for t in range(3):
            loss += (output[:, t] - target[:, t]).pow(2).mean()
        loss.backward()
    """
    assert [(d.line, d.code) for d in lint(source.format(reset=""))] == [(14, "GL305")]
    assert lint(source.format(reset="loss = 0\n        ")) == []


def test_isinstance_of_a_tuple_of_losses_is_decided():
    """`ensure_tuple(losses)` (an isinstance test on its argument): a tuple of values is
    one of (tuple, list), so each loss of one forward backpropagated in turn is GL305;
    summed first, one backward, quiet."""
    source = """\
        import torch
        import torch.nn as nn


        def ensure_tuple(x):
            if isinstance(x, (tuple, list)):
                return tuple(x)
            return (x,)


        encoder, head_a, head_b = nn.Linear(6, 8), nn.Linear(8, 3), nn.Linear(8, 1)
        h = torch.tanh(encoder(torch.randn(4, 6)))
        losses = (head_a(h).pow(2).mean(), head_b(h).pow(2).mean())
        {run}
    """
    each = "for loss in ensure_tuple(losses):\n            loss.backward()"
    assert [(d.line, d.code) for d in lint(source.format(run=each))] == [(15, "GL305")]
    assert lint(source.format(run="sum(ensure_tuple(losses)).backward()")) == []
