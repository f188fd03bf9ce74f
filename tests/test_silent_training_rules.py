"""Issue 30's silent bugs of training code: accumulation wiped by its own clearing
(GL506) and a reshape that moves dims while merging or splitting them (GL403), with the
look-alikes that must stay quiet, and each witness run in torch."""

import re
import subprocess
import sys
import textwrap

import pytest
from conftest import codes, lint

_ACCUMULATE_EVERY_K = """
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for i, (x, y) in enumerate([(torch.randn(4, 3), torch.randn(4, 1))] * 8):
    {zero}
    loss = nn.functional.mse_loss(model(x), y) / 4
    loss.backward()
    if {condition}:
        optimizer.step()
        {after}
"""


def _accumulation(zero="optimizer.zero_grad()", condition="(i + 1) % 4 == 0", after="pass"):
    return _ACCUMULATE_EVERY_K.format(zero=zero, condition=condition, after=after)


def test_zero_grad_every_iteration_with_step_every_k():
    (finding,) = lint(_accumulation())
    assert finding.code == "GL506" and finding.line == 8
    assert "only on some iterations" in finding.message


def test_zero_grad_per_micro_batch_with_step_after_the_loop():
    source = """
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
opt = torch.optim.AdamW(model.parameters())
for batch in [torch.randn(8, 3)] * 2:
    for micro in batch.chunk(4):
        opt.zero_grad(set_to_none=True)
        model(micro).sum().backward()
    opt.step()
"""
    (finding,) = lint(source)
    assert finding.code == "GL506" and finding.line == 9
    assert "once, after the loop" in finding.message


_CLEAR_UNDER_IF = """
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for i, x in enumerate([torch.randn(4, 3)] * 8, start=1):
    if {clear_test}:
        optimizer.zero_grad()
    loss = model(x).pow(2).mean() / 4
    loss.backward()
    if i % 4 == 0:
        optimizer.step()
"""


def test_zero_grad_under_the_step_condition_before_the_backward():
    """ignite#583's FAQ: on the update iteration the clearing wipes what was accumulated."""
    (finding,) = lint(_CLEAR_UNDER_IF.format(clear_test="i % 4 == 0"))
    assert finding.code == "GL506" and finding.line == 9
    assert "on the iterations" in finding.message
    with pytest.raises(AssertionError, match=re.escape(finding.witness.expect)):
        exec(textwrap.dedent(finding.witness.program), {})


def test_zero_grad_under_the_step_condition_with_a_named_constant():
    """A constant the test reads (`accumulation_steps = 4`) is no counter."""
    source = "accumulation_steps = 4\n" + _CLEAR_UNDER_IF.format(
        clear_test="i % accumulation_steps == 0"
    ).replace("if i % 4 == 0:", "if i % accumulation_steps == 0:")
    assert codes(source) == ["GL506"]


def test_zero_grad_at_the_start_of_each_group_is_quiet():
    """Cleared on the first iteration of a group, stepped on its last: accumulation."""
    assert codes(_CLEAR_UNDER_IF.format(clear_test="(i - 1) % 4 == 0")) == []


def test_step_then_zero_grad_under_one_if_in_nested_loops_is_quiet():
    """The clearing after the step precedes the backward of the next pass, not its own."""
    source = """
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    optimizer.zero_grad()
    for i, x in enumerate([torch.randn(4, 3)] * 8):
        model(x).pow(2).mean().backward()
        if (i + 1) % 4 == 0:
            optimizer.step()
            optimizer.zero_grad()
"""
    assert codes(source) == []


def test_same_test_on_a_counter_the_loop_advances_is_quiet():
    """`global_step += 1` between them: the clearing opens a group, the step closes it."""
    source = """
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
global_step = 0
for x in [torch.randn(4, 3)] * 8:
    if global_step % 4 == 0:
        optimizer.zero_grad()
    model(x).pow(2).mean().backward()
    global_step += 1
    if global_step % 4 == 0:
        optimizer.step()
"""
    assert codes(source) == []


def test_zero_grad_in_a_method_the_loop_calls():
    source = """
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def forward_backward(self, x):
        self.optimizer.zero_grad()
        self.model(x).sum().backward()

    def update(self):
        self.optimizer.step()


trainer = Trainer(nn.Linear(3, 1))
for x in [torch.randn(2, 3)] * 3:
    trainer.forward_backward(x)
trainer.update()
"""
    assert codes(source) == ["GL506"]


@pytest.mark.parametrize(
    "source",
    [
        # step then zero_grad under the same `if`: deliberate accumulation
        _accumulation(zero="pass", after="optimizer.zero_grad()"),
        # an `if` that is not on the iteration count: a skipped bad batch
        _accumulation(condition="torch.isfinite(loss)"),
        # a step on every iteration
        _accumulation(condition="True"),
    ],
)
def test_accumulation_look_alikes_are_quiet(source):
    assert "GL506" not in codes(source)


def test_step_after_the_loop_preceded_by_another_backward_is_quiet():
    source = """
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x in [torch.randn(2, 3)] * 2:
    x = x.requires_grad_()
    for _ in range(3):
        model.zero_grad()
        model(x).sum().backward()
        x = (x + 0.1 * x.grad.sign()).detach().requires_grad_()
    opt.zero_grad()
    model(x).sum().backward()
    opt.step()
"""
    assert "GL506" not in codes(source)


# eriklindernoren/PyTorch-GAN implementations/wgan_gp/wgan_gp.py (linted for the first
# time 2026-11-28, history.md batch 2a): the critic trains every iteration, the generator
# every n_critic-th; its gradients are cleared every iteration because the critic's loss
# also reaches it through the fake images.
_WGAN_GP = """
import numpy as np
import torch
import torch.nn as nn
from torch.autograd import Variable

Tensor = torch.FloatTensor
generator = nn.Sequential(nn.Linear(8, 16), nn.Tanh())
discriminator = nn.Sequential(nn.Linear(16, 8), nn.LeakyReLU(0.2, inplace=True), nn.Linear(8, 1))
optimizer_G = torch.optim.Adam(generator.parameters(), lr=0.0002, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=0.0002, betas=(0.5, 0.999))
n_critic = 5
dataloader = [(torch.randn(4, 16), None)] * 10
for epoch in range(2):
    for i, (imgs, _) in enumerate(dataloader):
        real_imgs = Variable(imgs.type(Tensor))
        optimizer_D.zero_grad()
        z = Variable(Tensor(np.random.normal(0, 1, (imgs.shape[0], 8))))
        fake_imgs = generator(z)
        real_validity = discriminator(real_imgs)
        fake_validity = discriminator(fake_imgs)
        d_loss = -torch.mean(real_validity) + torch.mean(fake_validity)
        d_loss.backward()
        optimizer_D.step()

        optimizer_G.zero_grad()

        # Train the generator every n_critic steps
        if i % n_critic == 0:
            {generator_backward_in_branch}
            optimizer_G.step()
"""


def test_gan_generator_trained_every_n_critic_with_its_own_backward_is_quiet():
    own = """fake_imgs = generator(z)
            fake_validity = discriminator(fake_imgs)
            g_loss = -torch.mean(fake_validity)
            g_loss.backward()"""
    assert "GL506" not in codes(_WGAN_GP.replace("{generator_backward_in_branch}", own))


def test_gan_generator_stepped_every_n_critic_on_the_cleared_gradients_is_flagged():
    # the twin: no backward of the generator's own in its branch, so each step applies
    # whatever the last iteration's backward left after the clearing
    source = _WGAN_GP.replace("{generator_backward_in_branch}", "pass")
    assert "GL506" in codes(source)


_HEADS = """
import torch
import torch.nn as nn


class Heads(nn.Module):
    def forward(self, v):
        B, H, S, D = v.shape
        return {expression}
"""


@pytest.mark.parametrize(
    "expression",
    [
        "v.reshape(B, S, H * D)",
        "v.reshape(B, H * D, S)",
        "v.view(B, S, D * H)",
        "v.reshape(B, -1, H * D)",  # the -1 stands for S: the same merge across S
        "v.view(B, S, -1)",
    ],
)
def test_reshape_moving_dims_while_merging(expression):
    (finding,) = lint(_HEADS.format(expression=expression))
    assert finding.code == "GL403" and "another order while merging" in finding.detail


@pytest.mark.parametrize(
    "expression",
    [
        "v.permute(0, 2, 1, 3).reshape(B, S, H * D)",
        "v.transpose(1, 2).reshape(B, S, H * D)",
        "v.reshape(B, H, S * D)",
        "v.reshape(B * H, S, D)",
        "v.flatten(2)",
        "v.unflatten(1, (H, 1))",
        "v.reshape(B, H, S, D)",
        "v.transpose(1, 2).reshape(B, S, H * D).view(B, S, H, D).transpose(1, 2)",
        "v.reshape(B, -1, D)",
        "v.reshape(-1, S, D)",
        "v.transpose(1, 2).reshape(B, S, -1)",
    ],
)
def test_reshape_look_alikes_are_quiet(expression):
    assert codes(_HEADS.format(expression=expression)) == []


def test_split_into_another_order():
    source = """
import torch

x = torch.randn(2, 3, 20, 7)
y = x.reshape(2, 3, 7, 4, 5)
"""
    (finding,) = lint(source)
    assert finding.code == "GL403"


_MASKED_HEADS = """
import torch
import torch.nn as nn


class Attention(nn.Module):
    def forward(self, q, v, mask=None):
        scores = q @ q.transpose(-2, -1)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))
        out = scores.softmax(-1) @ v
        return {expression}


Attention()(torch.randn(1, 2, 4, 4), torch.randn(1, 2, 4, 4), torch.tril(torch.ones(4, 4)))
"""


def test_masked_fill_keeps_the_heads_shape():
    """masked_fill's result is the broadcast of the scores and the mask (a comparison of
    the mask with a number keeps the mask's shape), so the merge after it is judged."""
    (finding,) = lint(_MASKED_HEADS.format(expression="out.reshape(1, 4, 8)"))
    assert finding.code == "GL403" and finding.line == 12


def test_masked_fill_then_heads_moved_is_quiet():
    assert codes(_MASKED_HEADS.format(expression="out.transpose(1, 2).reshape(1, 4, 8)")) == []


def test_masked_fill_result_is_laid_out_anew():
    source = """
import torch

x = torch.randn(2, 3, 4).transpose(1, 2)
y = x.masked_fill(torch.rand(3) > 0.5, 0.0).view(2, -1)
"""
    assert codes(source) == []
    exec(textwrap.dedent(source), {})  # torch: the result of masked_fill is contiguous


_BATCHED_HEADS = """
import torch
import torch.nn as nn


class Heads(nn.Module):
    def __init__(self, heads=4):
        super().__init__()
        self.heads = heads

    def forward(self, q):
        B, H, L, D = q.shape
        q = q.{merge}
        out = torch.bmm(q, q.transpose(1, 2)).softmax(-1) @ q
        return out.{split}


Heads()(torch.randn(2, 4, 5, 8))
"""


def test_merged_dim_split_back_in_the_other_order():
    source = _BATCHED_HEADS.format(
        merge="reshape(B * self.heads, L, D)", split="view(self.heads, B, L, D)"
    )
    (finding,) = lint(source)
    assert finding.code == "GL403" and finding.line == 15
    assert "B * self.heads" in finding.detail


@pytest.mark.parametrize(
    ("merge", "split"),
    [
        ("reshape(B * self.heads, L, D)", "view(B, self.heads, L, D)"),
        ("transpose(0, 1).reshape(self.heads * B, L, D)", "view(self.heads, B, L, D)"),
        ("reshape(B * H, L, D)", "view(B, H, L, D).transpose(1, 2)"),
    ],
)
def test_merged_dim_split_in_its_order_is_quiet(merge, split):
    assert codes(_BATCHED_HEADS.format(merge=merge, split=split)) == []


def test_split_in_the_other_order_mixes_batch_items():
    """torch: the rows of batch item 0 come back under another head and item."""
    q = pytest.importorskip("torch").randn(2, 4, 5, 8)
    merged = q.reshape(2 * 4, 5, 8)
    assert not (merged.view(4, 2, 5, 8)[:, 0] == q[0]).all()
    assert (merged.view(2, 4, 5, 8)[0] == q[0]).all()


@pytest.mark.parametrize(
    ("expression", "flagged"),
    [
        ("x.view(x.size(0), -1, x.size(1))", True),  # vector-quantize-pytorch#70
        ("x.reshape(x.shape[0], -1, x.shape[1])", True),
        ("x.view(x.size(0), x.size(1), -1)", False),
        ("x.view(-1, x.size(-1))", False),
        ("x.reshape(x.shape[0], -1, x.shape[-1])", False),
        ("x.permute(0, 2, 3, 1).reshape(x.shape[0], -1, x.shape[1])", False),
        ("x[:, :, :1, :1].reshape(x.size(0), -1, x.size(1))", False),  # only 1s move
    ],
)
def test_sizes_read_from_the_tensor_itself_in_another_order(expression, flagged):
    """Every size written is the tensor's own dim but one -1: the order they are taken in
    is known whatever the sizes are."""
    source = f"import torch\n\nx = torch.randn(4, 32, 7, 7)\ny = {expression}\n"
    found = lint(source)
    assert [f.code for f in found] == (["GL403"] if flagged else [])
    if flagged:
        with pytest.raises(RuntimeError, match=re.escape(found[0].witness.expect)):
            exec(found[0].witness.program, {})


@pytest.mark.parametrize(
    ("expression", "flagged"),
    [
        ("torch.randn(2, 1, 6, 5, 4).reshape(2, 4, 5, 6)", True),  # multinomial_diffusion#1
        ("torch.randn(2, 1, 6, 5, 4).reshape(2, 6, 5, 4)", False),
        ("torch.randn(2, 6, 5, 4).reshape(2, 1, 6, 5, 4)", False),
    ],
)
def test_reorder_with_a_dim_of_one_dropped(expression, flagged):
    found = codes(f"import torch\n\ny = {expression}\n")
    assert found == (["GL403"] if flagged else [])


def test_rank_read_with_len_decides_the_branch():
    """`len(x.size())` of a tensor of known rank is that rank: the branch it guards is
    decided, and the shapes after it stay known."""
    source = """
import torch
import torch.nn as nn


class Embed(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(3, 4)

    def forward(self, x):
        if len(x.size()) == 3:
            x = x.unsqueeze(1)
        B, C, H, W = x.size()
        x = self.embedding(x).permute(0, 1, 3, 2, 4)
        return x.reshape(B, C * 4, H, W)


Embed()(torch.randint(0, 3, (2, 5, 6)))
"""
    (finding,) = lint(source)
    assert finding.code == "GL403" and finding.line == 16


def test_einops_rearrange_is_quiet():
    source = """
import torch
from einops import rearrange

v = torch.randn(2, 4, 5, 8)
y = rearrange(v, "b h s d -> b s (h d)")
"""
    assert codes(source) == []


@pytest.mark.parametrize(
    "source",
    [
        _HEADS.format(expression="v.reshape(B, S, H * D)") + "\nHeads()(torch.randn(2, 4, 5, 8))\n",
        _accumulation(),
    ],
)
def test_witness_shows_the_harm(source):
    (finding,) = lint(source)
    with pytest.raises((RuntimeError, AssertionError), match=re.escape(finding.witness.expect)):
        exec(textwrap.dedent(finding.witness.program), {})


_UNREDUCED = """
import torch
import torch.nn as nn
import torch.nn.functional as F


def train(model, loader, optimizer, weights):
    criterion = {criterion}
    for x, y in loader:
        loss = {loss}
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


@pytest.mark.parametrize(
    ("criterion", "loss"),
    [
        ("nn.CrossEntropyLoss(reduction='none')", "criterion(model(x), y)"),
        ("nn.NLLLoss(reduce=False)", "criterion(model(x), y)"),
        ("nn.MSELoss(reduction='none')", "criterion(model(x), y) * weights"),
        ("None", "F.cross_entropy(model(x), y, reduction='none')"),
        (
            "nn.CrossEntropyLoss(reduction='none')",
            "criterion(model(x), y) + criterion(model(y), x)",
        ),
    ],
)
def test_unreduced_loss_backward_whatever_the_model(criterion, loss):
    (finding,) = lint(_UNREDUCED.format(criterion=criterion, loss=loss))
    assert finding.code == "GL302" and "reduction='none'" in finding.message


@pytest.mark.parametrize(
    ("criterion", "loss"),
    [
        ("nn.CrossEntropyLoss(reduction='none')", "(criterion(model(x), y) * weights).mean()"),
        ("nn.CrossEntropyLoss(reduction='none')", "criterion(model(x), y).sum() / len(y)"),
        ("nn.CrossEntropyLoss()", "criterion(model(x), y)"),
        ("nn.NLLLoss(reduce=True)", "criterion(model(x), y)"),
        ("nn.CrossEntropyLoss(reduction=mode)", "criterion(model(x), y)"),
        # an unbatched input of known rank: its loss may be a scalar
        ("nn.CrossEntropyLoss(reduction='none')", "criterion(torch.randn(3), y)"),
    ],
)
def test_reduced_or_unknown_losses_are_quiet(criterion, loss):
    assert "GL302" not in codes(_UNREDUCED.format(criterion=criterion, loss=loss))


_LOSS_IN_A_DICT = """
import torch
import torch.nn.functional as F

logits = torch.randn(4, 6, 13, requires_grad=True)
out = {{}}
out["loss"] = {loss}
out["logits"] = logits
out["loss"].backward()
"""


def test_unreduced_loss_kept_in_a_dict_under_its_key():
    """`out["loss"] = ...` on a dict literal: reading the key gives the loss back
    (doctr#379 returns its per-word losses that way)."""
    source = _LOSS_IN_A_DICT.format(
        loss="F.cross_entropy(logits.transpose(1, 2), torch.zeros(4, 6).long(), reduction='none')"
        ".sum(1)"
    )
    (finding,) = lint(source)
    assert finding.code == "GL302" and finding.line == 9
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        exec(textwrap.dedent(source), {})


def test_reduced_loss_kept_in_a_dict_is_quiet():
    source = _LOSS_IN_A_DICT.format(loss="logits.logsumexp(-1).mean()")
    assert codes(source) == []
    exec(textwrap.dedent(source), {})


def test_unreduced_witness_raises_the_message():
    (finding,) = lint(
        _UNREDUCED.format(criterion="nn.NLLLoss(reduce=False)", loss="criterion(model(x), y)")
    )
    with pytest.raises(RuntimeError, match=re.escape(finding.witness.expect)):
        exec(finding.witness.program, {})


_NET = """
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(6, 8)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc(torch.relu(self.body(x)))


model = Net()
{setup}
for _ in range(3):
    optimizer.zero_grad()
    loss = model(torch.randn(4, 6)).pow(2).mean()
    loss.backward()
    optimizer.step()
"""


@pytest.mark.parametrize(
    ("setup", "line"),
    [
        ("optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\nmodel.fc = nn.Linear(8, 2)", 17),
        ("optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\nmodel = Net()", 23),
        # the loss goes through model.fc after the layer the optimizer trains (MMVAE#39)
        ("optimizer = torch.optim.SGD(model.body.parameters(), lr=0.1)", 17),
        # another optimizer holds model.fc but never steps
        (
            "optimizer = torch.optim.SGD(model.body.parameters())\n"
            "head_optimizer = torch.optim.SGD(model.fc.parameters())",
            18,
        ),
    ],
)
def test_optimizer_misses_the_parameters_in_use(setup, line):
    (finding,) = lint(_NET.format(setup=setup))
    assert finding.code == "GL507" and finding.line == line


@pytest.mark.parametrize(
    "setup",
    [
        "model.fc = nn.Linear(8, 2)\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)",
        # a head trained on purpose, the backbone frozen or left out
        "for p in model.body.parameters():\n    p.requires_grad = False\n"
        "optimizer = torch.optim.SGD(\n"
        "    filter(lambda p: p.requires_grad, model.parameters()), lr=0.1\n)",
        "optimizer = torch.optim.SGD(model.fc.parameters(), lr=0.1)",
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\nmodel.fc.weight.data.zero_()",
        # the part left out is frozen, or another optimizer holds it, or it was loaded
        "model.fc.requires_grad_(False)\noptimizer = torch.optim.SGD(model.body.parameters())",
        "model.fc.load_state_dict(nn.Linear(8, 3).state_dict())\n"
        "optimizer = torch.optim.SGD(model.body.parameters(), lr=0.1)",
    ],
)
def test_optimizer_over_the_model_in_use_is_quiet(setup):
    assert "GL507" not in codes(_NET.format(setup=setup))


def test_left_out_layer_witness_shows_it_never_trains():
    (finding,) = lint(_NET.format(setup="optimizer = torch.optim.SGD(model.body.parameters())"))
    assert "`self.fc`" in finding.message
    with pytest.raises(AssertionError, match=re.escape(finding.witness.expect)):
        exec(finding.witness.program, {})


_DETECTOR_AND_CORRECTOR = """
import torch
import torch.nn as nn

detector, corrector = nn.Linear(6, 4), nn.Linear(4, 3)
detector_optimizer = torch.optim.Adam(detector.parameters())
optimizer = torch.optim.Adam(corrector.parameters())
checkpoint = {{"detector_optimizer": detector_optimizer.state_dict()}}
for _ in range(3):
    optimizer.zero_grad()
    loss = corrector(detector(torch.randn(8, 6))).pow(2).mean()
    loss.backward()
    optimizer.step()
    {more}
"""


def test_optimizer_built_and_never_stepped():
    """SoftMaskedBert#7: the detector's optimizer is built (and saved) but never steps."""
    (finding,) = lint(_DETECTOR_AND_CORRECTOR.format(more="pass"))
    assert finding.code == "GL507" and finding.line == 6
    assert "never stepped" in finding.message
    with pytest.raises(AssertionError, match=re.escape(finding.witness.expect)):
        exec(finding.witness.program, {})


@pytest.mark.parametrize(
    "more",
    [
        "detector_optimizer.step()",
        "scheduler = torch.optim.lr_scheduler.StepLR(detector_optimizer, 1)",
        "optimizers = [optimizer, detector_optimizer]",
    ],
)
def test_optimizer_stepped_or_handed_on_is_quiet(more):
    assert "GL507" not in codes(_DETECTOR_AND_CORRECTOR.format(more=more))


def test_optimizer_built_in_a_method_and_stepped_through_another_name_is_quiet():
    """generative-inpainting#38: the trainer builds its optimizers in __init__ (analysed
    on its own too, over an instance of its own) and main() steps them as
    `trainer_module.optimizer_d`: that construction is stepped."""
    source = """
import torch
import torch.nn as nn
from torch import autograd


class Trainer(nn.Module):
    def __init__(self):
        super().__init__()
        self.netG = nn.Linear(4, 4)
        self.localD, self.globalD = nn.Linear(4, 1), nn.Linear(4, 1)
        self.optimizer_g = torch.optim.Adam(self.netG.parameters())
        d_params = list(self.localD.parameters()) + list(self.globalD.parameters())
        self.optimizer_d = torch.optim.Adam(d_params)

    def forward(self, x):
        fake = self.netG(x)
        mixed = (0.5 * x + 0.5 * fake.detach()).requires_grad_()
        critic = self.localD(mixed) + self.globalD(mixed)
        (gradients,) = autograd.grad(critic.sum(), mixed, create_graph=True)
        return gradients.norm() + self.localD(fake).mean(), -self.globalD(fake).mean()


def main():
    trainer = Trainer()
    trainer_module = trainer
    for _ in range(2):
        loss_d, loss_g = trainer(torch.randn(2, 4))
        trainer_module.optimizer_d.zero_grad()
        trainer_module.optimizer_g.zero_grad()
        (loss_d + loss_g).backward()
        trainer_module.optimizer_d.step()
        trainer_module.optimizer_g.step()


main()
"""
    assert "GL507" not in codes(source)


_GROUPS = """
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 2))


def build_optimizer(model):
    groups = []
    group = {{"lr": 1e-3, "weight_decay": 0.0}}
    group["params"] = [p for p in model[0].parameters()]
    groups.append(group)
    group = {{"lr": 1e-2}}
    group["params"] = []
    for p in model[1].parameters():
        group["params"].append(p)
    {hand_on}
    return torch.optim.AdamW(groups)
"""


def test_param_group_built_and_never_added():
    """HVPNeT#5: the last group is filled but never appended to the optimizer's groups."""
    (finding,) = lint(_GROUPS.format(hand_on="pass"))
    assert finding.code == "GL507" and finding.line == 18 and "`group`" in finding.message


@pytest.mark.parametrize("hand_on", ["groups.append(group)", "groups += [group]"])
def test_param_group_added_is_quiet(hand_on):
    assert codes(_GROUPS.format(hand_on=hand_on)) == []


def test_two_optimizers_each_cleared_are_quiet():
    source = """
import torch
import torch.nn as nn

G, D = nn.Linear(4, 6), nn.Linear(6, 1)
opt_g = torch.optim.Adam(G.parameters())
opt_d = torch.optim.Adam(D.parameters())
for _ in range(3):
    z = torch.randn(8, 4)
    opt_d.zero_grad()
    loss_d = D(G(z).detach()).mean() - D(torch.randn(8, 6)).mean()
    loss_d.backward()
    opt_d.step()
    opt_g.zero_grad()
    loss_g = -D(G(z)).mean()
    loss_g.backward()
    opt_g.step()
"""
    assert codes(source) == []


_GAN_CLASS = """
import torch
import torch.nn as nn


class GAN:
    def __init__(self):
        self.generator, self.discriminator = nn.Linear(4, 6), nn.Linear(6, 1)
        self.optimizerD = torch.optim.Adam(self.discriminator.parameters())
        self.optimizerG = torch.optim.Adam(self.generator.parameters())

    def step(self, real):
        {clear_d}
        loss_d = self.discriminator(real).mean() - self.discriminator(
            self.generator(torch.randn(4, 4)).detach()
        ).mean()
        loss_d.backward()
        self.optimizerD.step()
        self.generator.zero_grad()
        (-self.discriminator(self.generator(torch.randn(4, 4))).mean()).backward()
        self.optimizerG.step()


gan = GAN()
for _ in range(3):
    gan.step(torch.randn(4, 6))
"""


def test_a_class_step_method_clearing_one_model_clears_nothing_else():
    """code-soup#69: the GAN's own `step` clears the generator; `optimizerD.step()` is
    not that method, and the discriminator's gradients are never cleared."""
    (finding,) = lint(_GAN_CLASS.format(clear_d="pass"))
    assert finding.code == "GL503" and "optimizerD" in finding.message


def test_a_class_step_method_clearing_both_models_is_quiet():
    assert codes(_GAN_CLASS.format(clear_d="self.discriminator.zero_grad()")) == []


def test_no_grad_evaluation_loop_is_quiet():
    source = """
import torch
import torch.nn as nn

model = nn.Linear(4, 2)
with torch.no_grad():
    for x in [torch.randn(3, 4)] * 2:
        loss = nn.functional.cross_entropy(model(x), torch.tensor([0, 1, 0]), reduction="none")
        print(loss.mean().item())
"""
    assert codes(source) == []


# An "accumulate" branch with no backward (issue 30, mechanism 3): the loss is computed on
# every iteration and backpropagated only on the iterations the optimizer steps on.
_LOSS_OF_EVERY_ITERATION = """
import torch
import torch.nn as nn

model = nn.Linear(10, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
accumulation_steps = 4
total = 0
for i in range(8):
    x, y = torch.randn(8, 10), torch.randn(8, 1)
    loss = nn.functional.mse_loss(model(x), y) / accumulation_steps
    {every_iteration}
    if (i + 1) % accumulation_steps == 0:
        {in_branch}
        optimizer.step()
        optimizer.zero_grad()
"""


def test_loss_backpropagated_only_on_the_step_iterations_is_flagged():
    source = _LOSS_OF_EVERY_ITERATION.format(every_iteration="pass", in_branch="loss.backward()")
    (finding,) = lint(source)
    assert (finding.code, finding.line) == ("GL506", 14)
    assert "the loss of line 11 is dropped" in finding.message


@pytest.mark.parametrize(
    "every_iteration, in_branch",
    [
        ("loss.backward()", "pass"),  # backward on every iteration: accumulation
        ("total += loss", "total.backward()\n        total = 0"),  # an accumulator
        ("total = total + loss", "total.backward()\n        total = 0"),
        ("pass", "print(loss.item())"),  # the branch only logs
    ],
)
def test_accumulation_with_every_loss_kept_is_quiet(every_iteration, in_branch):
    source = _LOSS_OF_EVERY_ITERATION.format(every_iteration=every_iteration, in_branch=in_branch)
    assert "GL506" not in codes(source)


# A layer held by a plain (non-Module) wrapper object (issue 30, mechanism 2): torch
# registers nothing of a plain object stored on a module, so its layers are in neither
# `parameters()` nor the optimizer.
_PLAIN_HEAD = """
import torch
import torch.nn as nn


class Head{base}:
    def __init__(self, dim, classes):
        {init}
        self.fc = nn.Linear(dim, classes)

    def __call__(self, x):
        return self.fc(x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.head = Head(8, 2)

    def forward(self, x):
        return self.head(self.body(x))


model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.randn(3, 4)).sum().backward()
optimizer.step()
assert len(list(model.parameters())) == {expected}
"""


def test_layer_held_by_a_plain_wrapper_object_is_flagged(tmp_path):
    source = _PLAIN_HEAD.format(base="", init="pass", expected=2)
    found = [(f.code, f.line) for f in lint(source)]
    assert ("GL502", 19) in found
    assert "an instance of `Head`, a plain class" in lint(source)[0].message
    path = tmp_path / "plain_head.py"
    path.write_text(source)
    subprocess.run([sys.executable, str(path)], check=True)  # torch: 2 parameters, not 4


def test_layer_held_by_a_module_wrapper_is_quiet(tmp_path):
    source = _PLAIN_HEAD.format(base="(nn.Module)", init="super().__init__()", expected=4)
    source = source.replace("    def __call__(self, x):", "    def forward(self, x):")
    assert lint(source) == []
    path = tmp_path / "module_head.py"
    path.write_text(source)
    subprocess.run([sys.executable, str(path)], check=True)


def test_plain_object_holding_a_registered_layer_is_quiet():
    source = """
import torch.nn as nn


class Probe:
    def __init__(self, layer):
        self.layer = layer


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.probe = Probe(self.fc)

    def forward(self, x):
        return self.fc(x)
"""
    assert "GL502" not in codes(source)


_EMPTY_MODULE = """
import argparse

import torch
import torch.nn as nn


class Autoencoder(nn.Module):
    def __init__(self, hparams):
        super().__init__()
        self.hparams = hparams
        {layers}

    def forward(self, x):
        return self.decoder(self.encoder(x))

    def configure_optimizers(self):
        return torch.optim.Adam({params}, lr=self.hparams.lr)


model = Autoencoder(argparse.Namespace(lr=1e-3, n=4))
optimizer = model.configure_optimizers()
"""


@pytest.mark.parametrize(
    "layers, params",
    [
        # Lightning#2282: the layers bound to locals, never to `self`
        (
            "encoder = nn.Linear(hparams.n, 2); decoder = nn.Linear(2, hparams.n)",
            "self.parameters()",
        ),
        ("encoder = nn.Linear(hparams.n, 2)", "list(self.parameters())"),
        ("pass", "filter(lambda p: p.requires_grad, self.parameters())"),
    ],
)
def test_optimizer_over_a_module_that_registers_nothing(layers, params):
    (finding,) = lint(_EMPTY_MODULE.format(layers=layers, params=params))
    assert finding.code == "GL507" and finding.line == 18 and "no parameter" in finding.message


def test_optimizer_over_a_module_with_a_misspelt_init():
    """cmc-csci181#7: `_init_` never runs, nn.Module's own `__init__` does."""
    source = """
import torch
import torch.nn as nn


class CNNModel(nn.Module):
    def _init_(self):
        super(CNNModel, self)._init_()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x)


model = CNNModel()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
"""
    (finding,) = lint(source)
    assert finding.code == "GL507" and finding.line == 16


@pytest.mark.parametrize(
    "layers",
    [
        "self.encoder = nn.Linear(hparams.n, 2); self.decoder = nn.Linear(2, hparams.n)",
        # registered through a loop the interpreter does not follow name by name
        "for i in range(2): setattr(self, f'layer{i}', nn.Linear(2, 2))",
        "self.add_module('encoder', nn.Linear(hparams.n, 2))",
        "self.layers = nn.ModuleList([nn.Linear(2, 2)])",
        "self.weight = nn.Parameter(torch.zeros(2))",
        "self.build()",  # a method the constructor calls sets the layers
        # an undecided branch may set a layer
        "if hparams.n > torch.randint(0, 8, (1,)).item(): self.encoder = nn.Linear(2, 2)",
        "self.encoder = make_encoder(hparams)",  # unknown value
        "self.relu = nn.ReLU()",  # a torch layer: its facts tell its own parameters only
    ],
)
def test_optimizer_over_a_module_that_may_hold_parameters_is_quiet(layers):
    source = _EMPTY_MODULE.format(layers=layers, params="self.parameters()")
    source += """
def make_encoder(hparams):
    return torch.hub.load("repo", "encoder")
"""
    source = source.replace(
        "    def forward(self, x):",
        "    def build(self):\n        self.encoder = nn.Linear(4, 2)\n\n    def forward(self, x):",
    )
    assert "GL507" not in codes(source)


def test_optimizer_in_a_method_of_a_class_never_built_is_quiet():
    """`self` of a method analysed on its own was built by no call: its attributes are
    not known."""
    source = _EMPTY_MODULE.format(layers="pass", params="self.parameters()")
    source = source.replace("model = Autoencoder", "# model = Autoencoder").replace(
        "optimizer = model", "# optimizer = model"
    )
    assert "GL507" not in codes(source)


def test_optimizer_over_a_subclass_of_an_unknown_base_is_quiet():
    source = _EMPTY_MODULE.format(layers="pass", params="self.parameters()")
    source = source.replace(
        "class Autoencoder(nn.Module):", "class Autoencoder(pl.LightningModule):"
    )
    source = "import pytorch_lightning as pl\n" + source
    assert "GL507" not in codes(source)
