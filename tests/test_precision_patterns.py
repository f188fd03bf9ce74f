"""The false-positive patterns of real projects (issue 17), each as realistic code that
must stay quiet, with a positive twin that keeps the real bug of the same shape flagged.
Every positive twin is run in torch to prove it fails (or silently changes the caller's
tensor) the way its finding says."""

import runpy
import textwrap
import warnings

import pytest
import torch
from conftest import lint


def _findings(source: str) -> list[tuple[int, str]]:
    return sorted((d.line, d.code) for d in lint(source))


def _run(tmp_path, source: str) -> BaseException | None:
    path = tmp_path / "case.py"
    path.write_text(textwrap.dedent(source))
    try:
        runpy.run_path(str(path))
    except (RuntimeError, AssertionError) as error:
        return error
    return None


# 1. in-place only when the caller opts in (torch's `inplace=` convention) -------------

LAYER_SCALE = """\
import torch
import torch.nn as nn


class LayerScale(nn.Module):
    def __init__(self, dim, init_values=1e-5, inplace=False):
        super().__init__()
        self.inplace = inplace
        self.gamma = nn.Parameter(init_values * torch.ones(dim))

    def forward(self, x):
        return x.mul_(self.gamma) if self.inplace else x * self.gamma
"""


def test_opt_in_inplace_layer_is_quiet():
    assert _findings(LAYER_SCALE) == []


def test_opt_in_inplace_switched_on_after_an_op_that_saves_its_output_is_flagged(tmp_path):
    source = LAYER_SCALE + textwrap.dedent(
        """

        class Block(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.fc = nn.Linear(dim, dim)
                self.ls = LayerScale(dim, inplace=True)

            def forward(self, x):
                return self.ls(torch.sigmoid(self.fc(x)))


        Block(4)(torch.randn(2, 4)).sum().backward()
        """
    )
    assert _findings(source) == [(12, "GL103")]
    assert "modified by an inplace operation" in str(_run(tmp_path, source))


# 2/3. edits of a forward() argument judged at the call sites --------------------------

MOE = """\
import torch
import torch.nn as nn


class SparseMoeBlock(nn.Module):
    def __init__(self, dim, jitter_noise=0.1):
        super().__init__()
        self.jitter_noise = jitter_noise
        self.gate = nn.Linear(dim, 2, bias=False)
        self.expert = nn.Linear(dim, dim)

    def forward(self, hidden_states):
        if self.training and self.jitter_noise > 0:
            hidden_states *= torch.empty_like(hidden_states).uniform_(0.9, 1.1)
        weights = self.gate(hidden_states).softmax(-1)
        return self.expert(hidden_states) * weights[:, :1]


class DecoderLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.moe = SparseMoeBlock(dim)

    def forward(self, hidden_states):
"""


def test_jitter_on_a_fresh_norm_output_is_quiet():
    source = MOE + textwrap.indent(
        "residual = hidden_states\n"
        "hidden_states = self.norm(hidden_states)\n"
        "hidden_states = self.moe(hidden_states)\n"
        "return residual + hidden_states\n",
        " " * 8,
    )
    assert _findings(source) == []


def test_jitter_leaking_into_a_residual_the_caller_reads_again_is_flagged(tmp_path):
    source = MOE + textwrap.indent(
        "hidden_states = self.norm(hidden_states)\n"
        "residual = hidden_states\n"
        "out = self.moe(hidden_states)\n"
        "return residual + out\n",
        " " * 8,
    )
    source += textwrap.dedent(
        """

        layer = DecoderLayer(4)
        x = torch.randn(3, 4)
        normed = layer.norm(x)
        torch.manual_seed(0)
        out = layer.moe(normed.clone())
        assert torch.equal(normed, layer.norm(x)), "the caller's residual saw the jitter"
        kept = normed.clone()
        layer.moe(normed)
        assert torch.equal(normed, kept), "the caller's residual saw the jitter"
        """
    )
    (finding,) = lint(source)
    assert (finding.line, finding.code) == (14, "GL104")
    assert "reads it again as" in finding.message + (finding.detail or "")
    assert "residual saw the jitter" in str(_run(tmp_path, source))


def test_output_buffer_filled_by_the_callee_is_quiet():
    assert (
        _findings(
            """\
import torch
import torch.nn as nn


class CachedConv(nn.Conv1d):
    def forward(self, x, write_to=None):
        if write_to is None:
            return super().forward(x)
        write_to[...] = super().forward(x)
        return write_to


conv = CachedConv(4, 4, 1)
x = torch.randn(2, 4, 8)
out = conv(x, write_to=torch.empty(2, 4, 8))
print(out.shape)
"""
        )
        == []
    )


# 4. checkpoint without use_reentrant in the legacy branch of a version check ----------


def test_legacy_branch_of_a_torch_version_check_is_quiet_and_plain_call_flagged():
    source = """\
from torch.utils.checkpoint import checkpoint
from diffusers.utils import is_torch_version


def run(block, hidden_states):
    if is_torch_version(">=", "1.11.0"):
        return checkpoint(block, hidden_states, use_reentrant=False)
    return_value = checkpoint(block, hidden_states)
    return return_value


def legacy(block, hidden_states):
    if is_torch_version(">=", "1.11.0"):
        return checkpoint(block, hidden_states, use_reentrant=False)
    else:
        return checkpoint(block, hidden_states)
"""
    assert _findings(source) == [(8, "GL205")]


# 5. a grad mode only known at run time is not "off" ------------------------------------


def test_set_grad_enabled_with_a_runtime_flag_is_quiet():
    assert (
        _findings(
            """\
import torch
import torch.nn as nn
import torch.nn.functional as F


def run_epoch(model, optimizer, loader, is_train):
    model.train(is_train)
    for x, y in loader:
        with torch.set_grad_enabled(is_train):
            logits = model(x)
            loss = F.cross_entropy(logits, y)
        if is_train:
            model.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
"""
        )
        == []
    )


# 6. object-level backward APIs: the argument is the loss -------------------------------


def test_fabric_backward_after_a_data_initialisation_is_quiet_and_real_case_flagged():
    source = """\
import torch
import torch.nn as nn


def train(fabric, x):
    model = nn.Linear(4, 4)
    model.weight.data.fill_(1.0)
    loss = model(x).sum()
    fabric.backward(loss)


def bad(x):
    model = nn.Linear(4, 4)
    loss = model(x).sum()
    model.weight.data.mul_(2.0)
    loss.backward()
"""
    assert _findings(source) == [(15, "GL102")]


# 7. *_like factories are graph-free inside comprehensions too --------------------------


def test_like_factory_in_a_comprehension_carries_no_graph(tmp_path):
    source = """\
import torch
import torch.nn as nn

model = nn.Linear(4, 4)
x = torch.randn(2, 4)
out = model(x)
labels = [torch.randn_like(o) for o in out]
loss = sum(((o - l) ** 2).sum() for o, l in zip(out, labels))
loss.backward()
loss2 = ((model(x) - torch.stack(labels)) ** 2).sum()
loss2.backward()
"""
    assert _findings(source) == []
    assert _run(tmp_path, source) is None


def test_comprehension_of_graph_outputs_backpropagated_twice_is_flagged(tmp_path):
    source = """\
import torch
import torch.nn as nn

model = nn.Linear(4, 4)
out = model(torch.randn(2, 4))
feats = [o * 2 for o in out]
sum(f.sum() for f in feats).backward()
sum(f.mean() for f in feats).backward()
"""
    assert _findings(source) == [(8, "GL305")]
    assert "backward through the graph a second time" in str(_run(tmp_path, source))


# backward on a loss the dataflow proves needs no grad ----------------------------------


def test_backward_of_a_loss_computed_under_no_grad_is_flagged_and_grad_mode_twin_quiet(tmp_path):
    source = """\
import torch
import torch.nn as nn
import torch.nn.functional as F

net = nn.Linear(4, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.1)


def learn(states, targets):
    with torch.no_grad():
        loss = F.mse_loss(net(states), targets)
    opt.zero_grad()
    loss.backward()
    opt.step()


def learn_fixed(states, targets):
    loss = F.mse_loss(net(states), targets)
    opt.zero_grad()
    loss.backward()
    opt.step()


learn_fixed(torch.randn(3, 4), torch.randn(3, 2))
learn(torch.randn(3, 4), torch.randn(3, 2))
"""
    # the flow rule names the cut (the no_grad block), this one the backward that raises
    assert _findings(source) == [(11, "GL202"), (13, "GL202")]
    assert "does not require grad" in str(_run(tmp_path, source))


def test_buffer_filled_with_values_that_require_grad_then_backpropagated_is_quiet():
    source = """\
import torch

w = torch.randn(3, requires_grad=True)
out = torch.zeros(3)
for i in range(3):
    out[i] = w[i] * 2
out.sum().backward()
acc = []
acc.append(torch.zeros(2))
acc.append(w[:2] * 3)
torch.cat(acc).sum().backward()
"""
    assert _findings(source) == []


def test_modules_of_a_file_extending_imported_project_classes_are_judged_by_their_callers():
    """A transformers `modular_*.py` file: its embeddings are built by the imported model
    in another file, so no call site here says whether the user's `inputs_embeds` reach
    the edit; the same module in a file of its own is an entry point users call."""
    block = """\
import torch
import torch.nn as nn


class Embeddings(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.words = nn.Embedding(10, dim)
        self.positions = nn.Embedding(16, dim)

    def forward(self, input_ids=None, inputs_embeds: torch.Tensor | None = None):
        if inputs_embeds is None:
            inputs_embeds = self.words(input_ids)
        inputs_embeds += self.positions(torch.arange(inputs_embeds.shape[1]))
        return inputs_embeds
"""
    modular = (
        block.replace(
            "import torch.nn as nn\n",
            "import torch.nn as nn\nfrom ..mixtral.modeling_mixtral import MixtralDecoderLayer\n",
        )
        + "\n\nclass DecoderLayer(MixtralDecoderLayer):\n    pass\n"
    )
    assert _findings(modular) == []
    assert _findings(block) == [(14, "GL104")]


# A saved output edited in place but never differentiated afterwards (transformers
# minimax_m3_vl indexer: amax's output edited, then only topk's indices are returned) ---

INDEXER = """\
import torch
import torch.nn as nn


class BlockIndexer(nn.Module):
    def __init__(self, dim, block=4, topk=2):
        super().__init__()
        self.q_proj = nn.Linear(dim, dim)
        self.block, self.topk = block, topk

    def forward(self, hidden_states, local_idx):
        scores = self.q_proj(hidden_states) @ hidden_states.transpose(-1, -2)
        scores = scores.view(*scores.shape[:-1], -1, self.block)
        block_scores = scores.amax(dim=-1)
        block_scores.scatter_(-1, local_idx, float("inf"))
        topk_scores, topk_indices = block_scores.topk(self.topk, dim=-1)
        return {RETURN}
"""
INDEXER_RUN = """
torch.manual_seed(0)
indexer = BlockIndexer(8)
x = torch.randn(2, 8, 8, requires_grad=True)
out = indexer(x, torch.zeros(2, 8, 1, dtype=torch.long))
if out.is_floating_point():
    out.sum().backward()
"""


def test_saved_output_edited_then_only_indices_returned_is_quiet(tmp_path):
    source = INDEXER.replace(
        "{RETURN}", 'topk_indices.masked_fill(topk_scores == float("-inf"), -1)'
    )
    assert _findings(source) == []
    assert _run(tmp_path, source + INDEXER_RUN) is None  # nothing to differentiate


def test_saved_output_edited_then_its_values_returned_is_flagged(tmp_path):
    source = INDEXER.replace("{RETURN}", "topk_scores")
    assert _findings(source) == [(15, "GL103")]
    assert "modified by an inplace operation" in str(_run(tmp_path, source + INDEXER_RUN))


SAMPLER = """\
import torch


def sample(logits, threshold=0.05):
    probs = torch.softmax(logits, dim=-1)
    probs[probs < threshold] = 0.0
    {TAIL}


logits = torch.randn(2, 10, requires_grad=True)
result = sample(logits)
if result.is_floating_point():
    result.sum().backward()
"""


def test_sampling_from_a_masked_softmax_is_quiet(tmp_path):
    source = SAMPLER.replace("{TAIL}", "return torch.multinomial(probs, 1), probs.shape[0]")
    source = source.replace("result = sample(logits)", "result, _ = sample(logits)")
    assert _findings(source) == []
    assert _run(tmp_path, source) is None


def test_masked_softmax_differentiated_afterwards_is_flagged(tmp_path):
    source = SAMPLER.replace("{TAIL}", "return (probs + 1e-9).log()")
    assert _findings(source) == [(6, "GL105")]
    assert "modified by an inplace operation" in str(_run(tmp_path, source))


def test_saved_output_read_before_its_edit_is_flagged(tmp_path):
    """What was computed from the output before the edit still reaches its backward."""
    source = """\
import torch


def gate(x):
    y = torch.sigmoid(x)
    z = y * 2.0
    y.add_(1.0)
    return z


gate(torch.randn(3, requires_grad=True)).sum().backward()
"""
    assert _findings(source) == [(7, "GL103")]
    assert "modified by an inplace operation" in str(_run(tmp_path, source))


def test_loop_reading_the_edited_output_in_the_next_iteration_is_flagged(tmp_path):
    source = """\
import torch


def refine(x, steps=2):
    total = x.sum() * 0.0
    for _ in range(steps):
        weights = torch.softmax(x, dim=-1)
        if steps > 1:
            total = total + weights.sum()
        weights.mul_(0.5)
    return total


refine(torch.randn(4, requires_grad=True)).backward()
"""
    assert _findings(source) == [(10, "GL103")]
    assert "modified by an inplace operation" in str(_run(tmp_path, source))


# Layers whose base the file cannot resolve (transformers' GradientCheckpointingLayer,
# PreTrainedModel) are modules: the caller's loop and the user's inputs decide ----------

TWO_WAY = """\
import torch
import torch.nn as nn
from ...modeling_layers import GradientCheckpointingLayer


class Block(GradientCheckpointingLayer):
    def __init__(self, dim):
        super().__init__()
        self.v_proj = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, queries, keys, point_embedding):
        queries = self.norm(queries + point_embedding)
        return queries, keys + self.v_proj(queries)


class TwoWayTransformer(nn.Module):
    def __init__(self, dim, depth=2):
        super().__init__()
        self.layers = nn.ModuleList()
        for _ in range(depth):
            self.layers.append(Block(dim))

    def forward(self, point_embeddings, target_embedding=None):
        queries = point_embeddings
        keys = torch.zeros_like(point_embeddings)
        for layer in self.layers:
            if target_embedding is not None:
                {ADD}
            queries, keys = layer(queries, keys, point_embeddings)
        return queries + keys
"""
TWO_WAY_RUN = """
model = TwoWayTransformer(4)
points = torch.randn(2, 4)
model(points, torch.randn(2, 4)).sum().backward()
"""


def _as_module(source: str) -> str:
    """The same file runnable outside its package: the imported base is nn.Module."""
    return source.replace(
        "from ...modeling_layers import GradientCheckpointingLayer",
        "GradientCheckpointingLayer = nn.Module",
    )


def test_edit_of_the_previous_layers_saved_output_in_a_layer_loop_is_flagged(tmp_path):
    source = TWO_WAY.replace("{ADD}", "queries += target_embedding")
    assert _findings(source) == [(29, "GL103")]
    error = _run(tmp_path, _as_module(source) + TWO_WAY_RUN)
    assert "modified by an inplace operation" in str(error)


def test_out_of_place_add_in_a_layer_loop_is_quiet(tmp_path):
    source = TWO_WAY.replace("{ADD}", "queries = queries + target_embedding")
    assert _findings(source) == []
    assert _run(tmp_path, _as_module(source) + TWO_WAY_RUN) is None


EMBEDDINGS = """\
import torch
import torch.nn as nn
from ...modeling_utils import PreTrainedModel


class Embeddings(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.words = nn.Embedding(10, dim)
        self.positions = nn.Embedding(16, dim)

    def forward(self, input_ids=None, inputs_embeds=None):
        if inputs_embeds is None:
            embeddings = self.words(input_ids)
        else:
            embeddings = inputs_embeds
        embeddings += self.positions(torch.arange(embeddings.shape[1]))
        return embeddings


class Model(PreTrainedModel):
    def __init__(self, dim):
        super().__init__()
        self.embeddings = Embeddings(dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, input_ids=None, inputs_embeds: torch.Tensor | None = None):
        return self.embeddings(input_ids=input_ids, inputs_embeds={PASSED})
"""


def test_users_inputs_embeds_edited_by_the_embeddings_of_a_public_model_is_flagged(tmp_path):
    source = EMBEDDINGS.replace("{PASSED}", "inputs_embeds")
    assert _findings(source) == [(17, "GL104")]
    runnable = source.replace("from ...modeling_utils import PreTrainedModel", "")
    runnable = runnable.replace("(PreTrainedModel)", "(nn.Module)")
    runnable += "\nModel(4)(inputs_embeds=torch.randn(2, 3, 4, requires_grad=True))\n"
    assert "leaf Variable that requires grad" in str(_run(tmp_path, runnable))


def test_embeddings_of_a_fresh_projection_are_quiet():
    source = EMBEDDINGS.replace("{PASSED}", "self.proj(inputs_embeds)")
    assert _findings(source) == []


# A `.data` write in forward() counts as "after the forward pass used it" only when this
# forward read the parameter: directly, through a torch layer or module it called whose
# forward is not interpreted, or inside a file module's forward it called (transformers
# flava: `self.flava(...)` never reads `logit_scale`, which is clamped before its use).

CLAMPED_SCALE = """\
import torch
import torch.nn as nn


class Towers(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.logit_scale = nn.Parameter(torch.tensor(5.0))

    def forward(self, x):
        return {TOWER}


class ForPreTraining(nn.Module):
    def __init__(self):
        super().__init__()
        self.towers = Towers()

    def forward(self, x):
        embedding = self.towers.proj(self.towers(x))
        if self.training:
            self.towers.logit_scale.data.clamp_(0, 4.6052)
        return (embedding * self.towers.logit_scale).sum()
"""
CLAMP_CHECK = """

import copy

model = ForPreTraining().double()
start = copy.deepcopy(model.state_dict())
x = torch.ones(2, 4, dtype=torch.float64)
model(x).backward()


def loss_at(bias):  # the loss the forward computes, from the initial parameters
    probe = ForPreTraining().double()
    probe.load_state_dict(start)
    with torch.no_grad():
        probe.towers.proj.bias.copy_(bias)
    return probe(x).item()


bias = start["towers.proj.bias"]
numeric = torch.tensor(
    [(loss_at(bias + 1e-6 * e) - loss_at(bias - 1e-6 * e)) / 2e-6 for e in torch.eye(4)],
    dtype=torch.float64,
)
assert torch.allclose(model.towers.proj.bias.grad, numeric, atol=1e-4), (
    "gradient from the clamped values"
)
"""


def test_clamp_of_a_parameter_the_called_submodule_never_read_is_quiet(tmp_path):
    source = CLAMPED_SCALE.replace("{TOWER}", "self.proj(x)")
    assert _findings(source) == []
    assert _run(tmp_path, source + CLAMP_CHECK) is None


def test_clamp_of_a_parameter_the_called_submodule_used_is_flagged(tmp_path):
    source = CLAMPED_SCALE.replace("{TOWER}", "self.proj(x) * self.logit_scale")
    assert _findings(source) == [(23, "GL102")]
    assert "gradient from the clamped values" in str(_run(tmp_path, source + CLAMP_CHECK))


def test_data_write_after_a_torch_layer_or_helper_method_used_the_weight_is_flagged():
    source = """\
    import torch
    import torch.nn as nn


    class Renorm(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)
            self.scale = nn.Parameter(torch.ones(3))

        def scaled(self, h):
            return h * self.scale

        def forward(self, x):
            out = self.scaled(self.fc(x))
            self.fc.weight.data.div_(self.fc.weight.data.norm())
            self.scale.data.clamp_(0, 1)
            return out
    """
    assert _findings(source) == [(16, "GL102"), (17, "GL102")]


# an optimizer wrapper whose own `backward(loss)` method runs `loss.backward()` ----------

WRAPPER_BACKWARD = """\
import torch
import torch.nn as nn


class FairseqOptimizer:
    def __init__(self, params, lr):
        self.optimizer = torch.optim.Adam(params, lr=lr)

    def backward(self, loss):
        loss.backward()


class Criterion:
    def forward_reg(self, model, sample, optimizer):
        loss = model(sample).pow(2).mean()
        optimizer.backward(loss)
        return loss


class Task:
    def train_step(self, sample, model, criterion, optimizer):
        loss = criterion.forward_reg(model, sample, optimizer)
        {again}return loss


model = nn.Linear(6, 5)
optimizer = FairseqOptimizer(model.parameters(), lr=1e-3)
Task().train_step(torch.randn(4, 6), model, Criterion(), optimizer)
"""


def test_optimizer_wrapper_backward_called_once_is_quiet_and_twice_flagged(tmp_path):
    """`optimizer.backward(loss)` of a file's class runs its own method: one backward, not
    two (the call is not a `fabric.backward(loss)` of an imported object)."""
    assert _findings(WRAPPER_BACKWARD.format(again="")) == []
    twice = WRAPPER_BACKWARD.format(again="optimizer.backward(loss)\n        ")
    assert _findings(twice) == [(10, "GL305")]
    assert "second time" in str(_run(tmp_path, twice))


# Issue 31: the false-finding mechanisms of 41 more real projects -----------------------

# 1. a checkpoint that runs only when its input requires grad ----------------------------

WITH_CP_BOTTLENECK = """\
import torch
import torch.nn as nn
import torch.utils.checkpoint as cp


class Bottleneck(nn.Module):
    def __init__(self, dim, with_cp=False):
        super().__init__()
        self.with_cp = with_cp
        self.conv1 = nn.Conv2d(dim, dim, 1)
        self.conv2 = nn.Conv2d(dim, dim, 3, padding=1)

    def forward(self, x):
        def _inner_forward(x):
            return self.conv2(self.conv1(x).relu()) + x

        if {guard}:
            out = cp.checkpoint(_inner_forward, x)
        else:
            out = _inner_forward(x)
        return out.relu()
"""


def test_checkpoint_guarded_by_its_inputs_requires_grad_is_quiet():
    assert _findings(WITH_CP_BOTTLENECK.format(guard="self.with_cp and x.requires_grad")) == []
    blocks = """\
import torch.nn as nn
from torch.utils import checkpoint


class Stage(nn.Module):
    def __init__(self, blocks, use_checkpoint=False):
        super().__init__()
        self.blocks = nn.ModuleList(blocks)
        self.use_checkpoint = use_checkpoint

    def forward(self, x, x_size):
        for blk in self.blocks:
            x = checkpoint.checkpoint(blk, x) if self.use_checkpoint and x.requires_grad else blk(x)
        return x
"""
    assert _findings(blocks) == []


def test_checkpoint_guarded_by_a_flag_only_is_flagged_and_loses_the_gradients(tmp_path):
    for guard in ("self.with_cp", "self.with_cp and self.training", "not x.requires_grad"):
        assert _findings(WITH_CP_BOTTLENECK.format(guard=guard)) == [(18, "GL205")], guard
    # Behind a frozen stem the input needs no grad: the reentrant output has no graph.
    run = WITH_CP_BOTTLENECK.format(guard="self.with_cp") + textwrap.dedent(
        """

        stem = nn.Conv2d(3, 4, 3, padding=1).requires_grad_(False)
        block = Bottleneck(4, with_cp=True)
        out = block(stem(torch.randn(2, 3, 8, 8)))
        if not out.requires_grad:
            raise AssertionError("the checkpointed block gets no gradient")
        """
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        error = _run(tmp_path, run)
    assert "no gradient" in str(error)
    # torch's own warnings on this very bug, and nothing else: no `use_reentrant` given,
    # no input requiring grad
    said = [str(warning.message) for warning in caught]
    assert any("Gradients will be None" in text for text in said), said
    assert all("use_reentrant" in text or "Gradients will be None" in text for text in said)


# 2. an attribute that is a dict in one method and a Parameter in another ---------------

EXPLAINER = """\
import torch
from torch.nn import Parameter


class Explainer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.node_mask = None

    def initialize(self, node_types, n, hetero):
        if hetero:
            self.node_mask = {container}
            for node_type in node_types:
                self._initialize_node_mask(node_type, n)
        else:
            self.node_mask = Parameter(torch.randn(n, 1) * 0.1)

    def _initialize_node_mask(self, node_type, n):
        self.node_mask[node_type] = Parameter(torch.randn(n, 1) * 0.1)
"""


def test_item_stored_into_an_attribute_that_is_also_a_dict_is_quiet():
    for container in ("{}", "dict()", "[]"):
        assert _findings(EXPLAINER.format(container=container)) == [], container


def test_item_stored_into_an_attribute_that_is_only_a_parameter_is_flagged(tmp_path):
    twin = "Parameter(torch.randn(len(node_types), n, 1))"
    source = EXPLAINER.format(container=twin) + textwrap.dedent(
        """

        explainer = Explainer()
        explainer.initialize([0, 1], 3, hetero=True)
        """
    )
    assert _findings(source) == [(19, "GL101")]
    assert "leaf Variable that requires grad" in str(_run(tmp_path, source))


# 6. masked writes into labels, targets, lengths and token ids ------------------------------

PROMPTED_CTC = """\
import torch
import torch.nn as nn


class PromptedCTC(nn.Module):
    def __init__(self, vocab, dim, eos):
        super().__init__()
        self.eos = eos
        self.embed = nn.Embedding(vocab, dim)
        self.encoder = nn.GRU(dim, dim, batch_first=True)

    def forward(self, {name}, {name}_lengths):
        {name}[{name} == -1] = self.eos
        {name}_lengths += 1
        memory, _ = self.encoder(self.embed({name}))
        return memory, {name}_lengths
"""


PROMPTED_CTC_CALLER = """

def encode({name}: torch.Tensor, {name}_lengths: torch.Tensor):
    model = PromptedCTC(10, 4, eos=2)
    memory, lengths = model({name}, {name}_lengths)
    return memory, {name}, {name}_lengths
"""


def test_masked_write_into_token_ids_and_their_lengths_is_quiet():
    for name in ("text_prev", "labels", "target", "input_ids"):
        source = PROMPTED_CTC.format(name=name) + PROMPTED_CTC_CALLER.format(name=name)
        assert _findings(source) == [], name


def test_masked_write_into_a_float_argument_is_flagged(tmp_path):
    source = """\
import torch
import torch.nn as nn


class Clamp(nn.Module):
    def forward(self, scores):
        scores[scores < -10] = -10
        return scores.softmax(-1)
"""
    run = source + textwrap.dedent(
        """

        scores = torch.randn(4, 4) * 20
        kept = scores.clone()
        Clamp()(scores)
        if not torch.equal(scores, kept):
            raise AssertionError("forward() overwrote its caller's tensor")
        """
    )
    assert _findings(run) == [(7, "GL105")]
    for values in ("text_embeds", "label_logits"):  # a label-like name that says values
        assert _findings(run.replace("scores", values)) == [(7, "GL105")], values
    assert "overwrote its caller's tensor" in str(_run(tmp_path, run))


# 9. in place only in the arm where the tensor requires no grad (espnet's SpecAugment) -----

TIME_WARP = """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class TimeWarp(nn.Module):
    def __init__(self, window=5):
        super().__init__()
        self.window = window

    def forward(self, x: torch.Tensor):
        left = F.interpolate(x[:, :, :8], (10, x.shape[3]), mode="bicubic")
        right = F.interpolate(x[:, :, 8:], (6, x.shape[3]), mode="bicubic")
        {body}
        return x
"""

GUARDED = """if x.requires_grad:
            x = torch.cat([left, right], dim=-2)
        else:
            x[:, :, :10] = left
            x[:, :, 10:] = right"""


TIME_WARP_CALLER = """

features = torch.randn(2, 1, 16, 4)
kept = features.clone()
TimeWarp()(features)
if not torch.equal(features, kept):
    raise AssertionError("forward() overwrote its caller's tensor")
"""


def test_in_place_only_when_the_tensor_requires_no_grad_is_quiet():
    assert _findings(TIME_WARP.format(body=GUARDED) + TIME_WARP_CALLER) == []
    negated = """if not x.requires_grad:
            x[:, :, :10] = left
            x[:, :, 10:] = right
        else:
            x = torch.cat([left, right], dim=-2)"""
    assert _findings(TIME_WARP.format(body=negated) + TIME_WARP_CALLER) == []


def test_in_place_on_the_grad_arm_or_unguarded_is_flagged(tmp_path):
    unguarded = """x[:, :, :10] = left
        x[:, :, 10:] = right"""
    run = TIME_WARP.format(body=unguarded) + TIME_WARP_CALLER
    assert _findings(run) == [(14, "GL104"), (15, "GL104")]
    wrong_arm = """if x.requires_grad:
            x[:, :, :10] = left
            x[:, :, 10:] = right
        else:
            x = torch.cat([left, right], dim=-2)"""
    # the arm runs for a caller whose tensor requires grad (a non-leaf: edits allowed)
    grad_caller = TIME_WARP_CALLER.replace(
        "torch.randn(2, 1, 16, 4)", "torch.randn(2, 1, 16, 4, requires_grad=True) * 1"
    )
    assert _findings(TIME_WARP.format(body=wrong_arm) + grad_caller) == [
        (15, "GL104"),
        (16, "GL104"),
    ]
    assert "overwrote its caller's tensor" in str(_run(tmp_path, run))
    wrong_run = TIME_WARP.format(body=wrong_arm) + grad_caller
    assert "overwrote its caller's tensor" in str(_run(tmp_path, wrong_run))
    # for a caller whose tensor needs no grad that arm never runs
    assert _findings(TIME_WARP.format(body=wrong_arm) + TIME_WARP_CALLER) == []
    assert _run(tmp_path, TIME_WARP.format(body=wrong_arm) + TIME_WARP_CALLER) is None


# a loss module called on what grad mode off made --------------------------------------

ATTACK_UNDER_NO_GRAD = """\
import torch
import torch.nn as nn


class Attack:
    def __init__(self, predict, loss_fn):
        self.predict = predict
        self.loss_fn = loss_fn

    def perturb(self, x, y):
        delta = torch.zeros_like(x)
        delta.requires_grad_()
        loss = self.loss_fn(self.predict(x + delta), y)
        loss.backward()
        return x + delta.grad.sign()


net = nn.Linear(4, 2)
attack = Attack(net, nn.CrossEntropyLoss(reduction="sum"))
x, y = torch.randn(3, 4), torch.tensor([0, 1, 0])
{call}
"""


def test_loss_module_on_a_no_grad_output_is_flagged_at_its_backward(tmp_path):
    """A loss module (no parameters) called on what grad mode off made is made so too:
    the attack run under the caller's `torch.no_grad()` fails at its backward."""
    quiet = ATTACK_UNDER_NO_GRAD.format(call="adv = attack.perturb(x, y)")
    assert _findings(quiet) == []
    bad = ATTACK_UNDER_NO_GRAD.format(call="with torch.no_grad():\n    adv = attack.perturb(x, y)")
    assert _findings(bad) == [(14, "GL202")]
    assert "does not require grad" in str(_run(tmp_path, bad))


# 3. a sub-module assigned in each arm of an if / else -------------------------------------

SGFORMER = """\
import torch
import torch.nn as nn


class SGFormer(nn.Module):
    def __init__(self, hidden, out, aggregate="add"):
        super().__init__()
        self.graph_conv = nn.Linear(hidden, hidden)
        if aggregate == "add":
            {fc} = nn.Linear(hidden, out)
        elif aggregate == "cat":
            {fc} = nn.Linear(2 * hidden, out)
        else:
            raise ValueError(aggregate)
        self.params = list(self.graph_conv.parameters())
        self.params.extend(list({fc}.parameters()))

    def forward(self, x):
        return x
"""


def test_parameters_of_a_submodule_assigned_in_each_arm_are_quiet():
    assert _findings(SGFORMER.format(fc="self.fc")) == []


def test_parameters_of_a_module_kept_nowhere_else_are_flagged(tmp_path):
    source = SGFORMER.format(fc="fc")
    assert _findings(source) == [(15, "GL502")]
    run = source + textwrap.dedent(
        """

        model = SGFormer(4, 2)
        if len(list(model.parameters())) != len(model.params):
            raise AssertionError("the plain list's parameters are missing from parameters()")
        """
    )
    assert "missing from parameters()" in str(_run(tmp_path, run))


# 4. a Python list of tensors iterated: its items are no unbind() views ---------------------

FUSION = """\
import torch
import torch.nn as nn


class Fusion(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.text_pooling_proj = nn.Linear(dim, dim)

    def forward(self, src{annotation}, prompt):
        assert all(x.dim() == 4 for x in src), "expected (bs, c, h, w) maps"
        pooled_text = self.text_pooling_proj(prompt.mean(0))[..., None, None]
        src = [x.add_(pooled_text) for x in {iterated}]
        return src
"""


def test_in_place_edit_of_the_items_of_a_list_argument_is_quiet():
    assert _findings(FUSION.format(annotation="", iterated="src")) == []


def test_in_place_edit_of_the_rows_of_a_tensor_is_flagged(tmp_path):
    source = FUSION.format(annotation=": torch.Tensor", iterated="src")
    assert _findings(source) == [(13, "GL103")]
    run = source + textwrap.dedent(
        """

        maps = torch.randn(2, 1, 4, 3, 3, requires_grad=True)
        Fusion(4)(maps * 1, torch.randn(5, 4))
        """
    )
    assert "is a view and is being modified inplace" in str(_run(tmp_path, run))


# 5. a weight read under no_grad or through .detach() is no use by the forward pass ------

PROJECTED_PROMPT = """\
import torch
import torch.nn as nn


class ProjectedPrompt(nn.Module):
    def __init__(self, tokens, dim, epsilon=0.1):
        super().__init__()
        self.embedding = nn.Embedding(tokens, dim)
        self.delta = nn.Embedding(tokens, dim)
        self.epsilon = epsilon

    def projection(self):
        {read}
        return weights * (self.epsilon / norm.clamp(min=self.epsilon))

    def forward(self, indices):
        with torch.no_grad():
            prompt = self.embedding(indices)
        self.delta.weight.data = self.projection()
        return prompt + self.delta(indices)
"""

UNDER_NO_GRAD = """with torch.no_grad():
            weights = self.delta.weight.clone()
            norm = weights.norm(dim=1, keepdim=True)"""


def test_data_write_after_reads_under_no_grad_or_detach_is_quiet():
    assert _findings(PROJECTED_PROMPT.format(read=UNDER_NO_GRAD)) == []
    detached = """weights = self.delta.weight.detach().clone()
        norm = weights.norm(dim=1, keepdim=True)"""
    assert _findings(PROJECTED_PROMPT.format(read=detached)) == []


def test_data_write_after_the_forward_pass_used_the_weight_is_flagged(tmp_path):
    source = PROJECTED_PROMPT.format(read=UNDER_NO_GRAD).replace(
        "        with torch.no_grad():\n            prompt = self.embedding(indices)\n",
        "        prompt = self.delta(indices)\n",
    )
    assert _findings(source) == [(20, "GL102")]
    run = source + textwrap.dedent(
        """

        model = ProjectedPrompt(5, 4)
        indices = torch.tensor([0, 1])
        delta = model.delta(indices)
        loss = (model(indices) * delta).sum()
        loss.backward()
        expected = (2 * model.delta(indices)).detach()  # d/dw of w * w with w the new weight
        if not torch.allclose(model.delta.weight.grad[:2], expected):
            raise AssertionError("the gradient was computed from the mutated .data")
        """
    )
    assert "mutated .data" in str(_run(tmp_path, run))


# 8. a hard-coded batch in a small model of a test file, run on inputs built for it ---------

TOY_MODEL_TEST = """\
import torch
import torch.nn as nn


class ToyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc(x.view(8, 16))


def test_toy_model_gradients():
    model = ToyModel()
    model(torch.randn(8, 4, 4)).sum().backward()
    assert model.fc.weight.grad is not None
"""


def test_hard_coded_batch_of_a_test_files_model_is_quiet():
    for path in ("tests/test_toy.py", "test_toy.py", "toy_test.py", "conftest.py"):
        assert sorted((d.line, d.code) for d in lint(TOY_MODEL_TEST, path=path)) == [], path


def test_hard_coded_batch_outside_tests_or_never_called_is_flagged(tmp_path):
    assert _findings(TOY_MODEL_TEST) == [(11, "GL403")]
    assert [(d.line, d.code) for d in lint(TOY_MODEL_TEST, path="tests/toy.py")] == [(11, "GL403")]
    uncalled = TOY_MODEL_TEST.split("\n\ndef test_")[0] + "\n"
    assert [(d.line, d.code) for d in lint(uncalled, path="tests/test_toy.py")] == [(11, "GL403")]
    run = TOY_MODEL_TEST + "\n\nToyModel()(torch.randn(3, 4, 4))\n"
    assert "shape '[8, 16]' is invalid" in str(_run(tmp_path, run))


# a misspelled `requiresGrad = True` on a parameter that already requires grad ----------

LEARNABLE_SIGMOID = """\
import torch
import torch.nn as nn


class LearnableSigmoid(nn.Module):
    def __init__(self, in_features=257):
        super().__init__()
        self.slope = nn.Parameter(torch.ones(in_features){flag})
        self.slope.requiresGrad = True  # set requiresGrad to true!

    def forward(self, x):
        return 1.2 * torch.sigmoid(self.slope * x)
"""


def test_misspelled_flag_set_true_on_a_trainable_parameter_is_quiet():
    assert _findings(LEARNABLE_SIGMOID.format(flag="")) == []


def test_misspelled_flag_meant_to_unfreeze_a_frozen_parameter_is_flagged(tmp_path):
    source = LEARNABLE_SIGMOID.format(flag=", requires_grad=False")
    assert _findings(source) == [(9, "GL204")]
    run = source + textwrap.dedent(
        """

        if not LearnableSigmoid(3).slope.requires_grad:
            raise AssertionError("the misspelled flag left the parameter frozen")
        """
    )
    assert "left the parameter frozen" in str(_run(tmp_path, run))


# a misspelled `require_grad = False` on a fresh tensor (Time-Series-Library, Embed.py) -----

FIXED_POSITIONAL_TABLE = """\
import math

import torch
import torch.nn as nn


class PositionalEmbedding(nn.Module):
    def __init__(self, d_model, max_len=5000):
        super(PositionalEmbedding, self).__init__()
        # Compute the positional encodings once in log space.
        pe = torch.zeros(max_len, d_model).float()
        pe.require_grad = {flag}

        position = torch.arange(0, max_len).float().unsqueeze(1)
        div_term = (torch.arange(0, d_model, 2).float()
                    * -(math.log(10000.0) / d_model)).exp()

        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)

        pe = pe.unsqueeze(0)
        self.register_buffer('pe', pe)

    def forward(self, x):
        return self.pe[:, :x.size(1)]
"""


def test_misspelled_flag_set_false_on_a_factory_tensor_is_quiet():
    assert _findings(FIXED_POSITIONAL_TABLE.format(flag="False")) == []


def test_misspelled_flag_meant_to_make_a_factory_tensor_trainable_is_flagged(tmp_path):
    source = FIXED_POSITIONAL_TABLE.format(flag="True")
    assert _findings(source) == [(12, "GL204")]
    run = source + textwrap.dedent(
        """

        if not PositionalEmbedding(4, 6).pe.requires_grad:
            raise AssertionError("the misspelled flag left the table without grad")
        """
    )
    assert "left the table without grad" in str(_run(tmp_path, run))


# a torch layer whose parameter is replaced by a frozen one (Time-Series-Library) ---------

FIXED_EMBEDDING = """\
import math

import torch
import torch.nn as nn


class FixedEmbedding(nn.Module):
    def __init__(self, c_in, d_model):
        super(FixedEmbedding, self).__init__()

        w = torch.zeros(c_in, d_model).float()
        position = torch.arange(0, c_in).float().unsqueeze(1)
        div_term = (torch.arange(0, d_model, 2).float()
                    * -(math.log(10000.0) / d_model)).exp()

        w[:, 0::2] = torch.sin(position * div_term)
        w[:, 1::2] = torch.cos(position * div_term)

        self.emb = nn.Embedding(c_in, d_model)
        self.emb.weight = nn.Parameter(w{flag})

    def forward(self, x):
        return self.emb(x).detach()
"""


def test_detach_of_a_layer_whose_parameter_was_replaced_by_a_frozen_one_is_quiet(tmp_path):
    source = FIXED_EMBEDDING.format(flag=", requires_grad=False")
    assert _findings(source) == []
    run = source + textwrap.dedent(
        """

        emb = FixedEmbedding(5, 4)
        if emb.emb(torch.tensor([1, 2])).requires_grad:
            raise AssertionError("the frozen table's output requires grad")
        """
    )
    assert _run(tmp_path, run) is None


def test_detach_of_a_layer_whose_parameter_was_replaced_by_a_trainable_one_is_flagged(tmp_path):
    source = FIXED_EMBEDDING.format(flag="")
    assert _findings(source) == [(23, "GL202")]
    run = source + "\n\nFixedEmbedding(5, 4)(torch.tensor([1, 2])).sum().backward()\n"
    assert "does not require grad" in str(_run(tmp_path, run))


# `retain_variables=`, the pre-0.4 name of retain_graph (pytorch-beginner, backward.py) -----

JACOBIAN_BY_TWO_BACKWARDS = """\
import torch as t
from torch.autograd import Variable as v

x = t.FloatTensor([2, 1]).view(1, 2)
x = v(x, requires_grad=True)
y = v(t.FloatTensor([[1, 2], [3, 4]]))

z = t.mm(x, y)
jacobian = t.zeros((2, 2))
z.backward(t.FloatTensor([[1, 0]]){keep})  # dz1/dx1, dz1/dx2
jacobian[:, 0] = x.grad.data
x.grad.data.zero_()
z.backward(t.FloatTensor([[0, 1]]))  # dz2/dx1, dz2/dx2
jacobian[:, 1] = x.grad.data
"""


def test_second_backward_after_a_keyword_torch_rejects_is_quiet(tmp_path):
    source = JACOBIAN_BY_TWO_BACKWARDS.format(keep=", retain_variables=True")
    assert _findings(source) == []
    with pytest.raises(TypeError, match="unexpected keyword argument 'retain_variables'"):
        _run(tmp_path, source)  # at the first backward, before any graph is freed


def test_second_backward_without_retain_graph_is_flagged(tmp_path):
    source = JACOBIAN_BY_TWO_BACKWARDS.format(keep="")
    assert _findings(source) == [(13, "GL305")]
    assert "backward through the graph a second time" in str(_run(tmp_path, source))
    assert _run(tmp_path, JACOBIAN_BY_TWO_BACKWARDS.format(keep=", retain_graph=True")) is None


# an inplace ReLU over each item of a list in turn (DeepLabV3Plus-Pytorch's HRNet) ---------

HRNET_FUSION = """\
import torch
import torch.nn as nn


class StageModule(nn.Module):
    def __init__(self, stage, output_branches, c):
        super(StageModule, self).__init__()
        self.number_of_branches = stage
        self.output_branches = output_branches
        self.branches = nn.ModuleList()
        for i in range(self.number_of_branches):
            self.branches.append(nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.ReLU()))
        self.fuse_layers = nn.ModuleList()
        for branch_output_number in range(self.output_branches):
            self.fuse_layers.append(nn.ModuleList())
            for branch_number in range(self.number_of_branches):
                if branch_number == branch_output_number:
                    self.fuse_layers[-1].append(nn.Sequential())
                else:
                    fuse = nn.Sequential(nn.Conv2d(c, c, 1), nn.BatchNorm2d(c))
                    self.fuse_layers[-1].append(fuse)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        x = [branch(branch_input) for branch, branch_input in zip(self.branches, x)]

        x_fused = []
        for branch_output_index in range(self.output_branches):
            for input_index in range(self.number_of_branches):
                if input_index == 0:
                    x_fused.append(self.fuse_layers[branch_output_index][input_index](x[input_index]))
{fuse}
        for i in range(self.output_branches):
            x_fused[i] = self.relu(x_fused[i])

        return x_fused


stage = StageModule(stage=3, output_branches=2, c=4)
out = stage([torch.randn(1, 4, 8, 8) for _ in range(3)])
sum(o.sum() for o in out).backward()
"""
SUMMED = """\
                else:
                    x_fused[branch_output_index] = x_fused[branch_output_index] + self.fuse_layers[
                        branch_output_index][input_index](x[input_index])"""


def test_inplace_relu_over_items_replaced_by_sums_is_quiet(tmp_path):
    source = HRNET_FUSION.format(fuse=SUMMED)
    assert _findings(source) == []
    assert _run(tmp_path, source) is None


def test_inplace_relu_over_items_a_relu_saved_is_flagged(tmp_path):
    source = HRNET_FUSION.format(fuse="")  # each item is the first branch's ReLU output
    assert _findings(source) == [(34, "GL103")]
    assert "modified by an inplace operation" in str(_run(tmp_path, source))


# a Sequential built in forward around registered layers (pytorch-yolo-v3's test_net) --------

TEST_NET = """\
import torch
import torch.nn as nn


class test_net(nn.Module):
    def __init__(self, num_layers, input_size):
        super(test_net, self).__init__()
        self.num_layers= num_layers
        self.linear_1 = nn.Linear(input_size, 5)
        self.middle = nn.ModuleList([nn.Linear(5,5) for x in range(num_layers)])
        self.output = nn.Linear(5,2)

    def forward(self, x):
        x = x.view(-1)
        fwd = nn.Sequential(self.linear_1, *self.middle, {last})
        return fwd(x)


net = test_net(2, 3)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
before = [p.detach().clone() for p in net.parameters()]
net(torch.randn(3)).sum().backward()
opt.step()
if not all((p - b).abs().sum() > 0 for p, b in zip(net.parameters(), before)):
    raise AssertionError("a layer of the forward's Sequential was not trained")
"""


def test_sequential_built_in_forward_from_registered_layers_is_quiet(tmp_path):
    source = TEST_NET.format(last="self.output")
    assert _findings(source) == []
    assert _run(tmp_path, source) is None


def test_sequential_built_in_forward_with_a_new_layer_is_flagged():
    assert _findings(TEST_NET.format(last="nn.Linear(5, 2)")) == [(15, "GL505")]


# a step whose parameters all have no grad edits nothing (REINFORCE with baseline) -------

REINFORCE_WITH_BASELINE = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical
from torch.nn.utils import clip_grad_norm_


class Policy(nn.Module):
    def __init__(self, n_states, n_hidden, n_output):
        super(Policy, self).__init__()
        self.linear1 = nn.Linear(n_states, n_hidden)
        self.linear2 = nn.Linear(n_hidden, n_output)

    def forward(self, x):
        x = F.relu(self.linear1(x))
        return F.softmax(self.linear2(x), dim=1)


policy = Policy(4, 16, 2)
s_value_func = Policy(4, 16, 1)
optimizer_theta = optim.Adam(policy.parameters(), lr=1e-3)
state_sequence = [torch.randn(1, 4) for _ in range(3)]
log_act_prob = []
for state in state_sequence:
    m = Categorical(policy(state))
    log_act_prob.append(m.log_prob(m.sample()))
Gt = [1.0, 0.5, 0.25]
for i in range(len(Gt)):
    G = Gt[i]
    V = s_value_func(state_sequence[i])
    delta = G - V

    optimizer_w = optim.Adam(policy.parameters(), lr=1e-3)
    optimizer_w.zero_grad()
    policy_loss_w = -delta
    policy_loss_w.backward(retain_graph=True)
    clip_grad_norm_(policy_loss_w, 0.1)
    optimizer_w.step()

    optimizer_theta.zero_grad()
    policy_loss_theta = - log_act_prob[i] * delta
    policy_loss_theta.backward(retain_graph=True)
    clip_grad_norm_(policy_loss_theta, 0.1)
    optimizer_theta.step()
"""


def test_step_of_an_optimizer_whose_parameters_have_no_grad_edits_nothing(tmp_path):
    """optimizer_w holds the policy, whose grads zero_grad() set to None and the value
    loss never fills: its step is GL507 (it trains nothing), not an in-place edit; the
    policy's own step breaks the next pass's backward (GL103 + GL504, torch raises)."""
    assert _findings(REINFORCE_WITH_BASELINE) == [
        (39, "GL507"),
        (45, "GL103"),
        (45, "GL504"),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the reporter's clip_grad_norm_(loss)
        error = _run(tmp_path, REINFORCE_WITH_BASELINE)
    assert "modified by an inplace operation" in str(error)


# a loss in a method run on its own whose argument carries another module's graph (drqv2) --

DRQ_UPDATE = """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class Agent:
    def __init__(self):
        self.encoder = nn.Linear(8, 4)
        self.critic = nn.Linear(4, 1)
        self.encoder_opt = torch.optim.Adam(self.encoder.parameters(), lr=1e-3)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=1e-3)

    def update_critic(self, obs, target_Q):
        Q = self.critic(obs)
        critic_loss = F.mse_loss(Q, target_Q)
        self.encoder_opt.zero_grad(set_to_none=True)
        self.critic_opt.zero_grad(set_to_none=True)
        critic_loss.backward()
        self.critic_opt.step()
        self.encoder_opt.step()

    def update(self, obs, target_Q):
        obs = self.encoder(obs)
        self.update_critic(obs, target_Q)


agent = Agent()
before = agent.encoder.weight.detach().clone()
agent.update(torch.randn(5, 8), torch.randn(5, 1))
if torch.equal(before, agent.encoder.weight.detach()):
    raise AssertionError("the encoder did not train")
"""


def test_optimizer_reach_with_a_loss_from_an_unknown_argument_is_quiet(tmp_path):
    assert _findings(DRQ_UPDATE) == []
    assert _run(tmp_path, DRQ_UPDATE) is None


def test_optimizer_over_a_module_the_known_loss_never_reaches_is_flagged():
    """The same step after a loss that takes nothing from an argument: the encoder's
    optimizer steps parameters the backward never reached."""
    source = DRQ_UPDATE.replace("Q = self.critic(obs)", "Q = self.critic(torch.randn(5, 4))")
    source = source.replace("F.mse_loss(Q, target_Q)", "Q.pow(2).mean()")
    source = source.replace("def update_critic(self, obs, target_Q):", "def update_critic(self):")
    source = source.replace("self.update_critic(obs, target_Q)", "self.update_critic()")
    source = source.replace("        obs = self.encoder(obs)\n", "")
    assert (20, "GL507") in _findings(source)


# a loss layer's grad comes from every input, not its first (sweetice's DQN) ---------------

DQN_UPDATE = """\
import torch
import torch.nn as nn
import torch.optim as optim


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(4, 100)
        self.fc2 = nn.Linear(100, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class DQN():
    gamma = 0.995

    def __init__(self):
        super(DQN, self).__init__()
        self.target_net, self.act_net = Net(), Net()
        self.optimizer = optim.Adam(self.act_net.parameters(), 1e-3)
        self.loss_func = nn.MSELoss()

    def update(self, state, action, reward, next_state):
        with torch.no_grad():
            target_v = reward + self.gamma * self.target_net(next_state).max(1)[0]
        loss = self.loss_func(target_v.unsqueeze(1), {prediction})
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


agent = DQN()
agent.update(torch.randn(8, 4), torch.zeros(8, 1, dtype=torch.long), torch.randn(8),
             torch.randn(8, 4))
"""


def test_loss_layer_of_a_no_grad_target_and_a_prediction_is_quiet(tmp_path):
    source = DQN_UPDATE.format(prediction="self.act_net(state).gather(1, action)")
    assert _findings(source) == []
    assert _run(tmp_path, source) is None


SCRIPT_UPDATE = """\
import torch
import torch.nn as nn

act_net, target_net = nn.Linear(4, 2), nn.Linear(4, 2)
optimizer = torch.optim.Adam(act_net.parameters(), 1e-3)
loss_func = nn.MSELoss()
state, next_state, reward = torch.randn(8, 4), torch.randn(8, 4), torch.randn(8)
with torch.no_grad():
    target_v = reward + 0.99 * target_net(next_state).max(1)[0]
loss = loss_func(target_v.unsqueeze(1), {prediction})
optimizer.zero_grad()
loss.backward()
optimizer.step()
"""


def test_loss_layer_of_no_grad_tensors_only_is_flagged(tmp_path):
    """The same loss at module level (GL202 at such a backward is kept outside methods):
    a prediction that needs no grad either gives a loss torch cannot differentiate."""
    assert _findings(SCRIPT_UPDATE.format(prediction="act_net(state)[:, :1]")) == []
    source = SCRIPT_UPDATE.format(prediction="target_v.unsqueeze(1) * 0.5")
    assert _findings(source)
    assert "does not require grad" in str(_run(tmp_path, source))


# a backward under `if loss.requires_grad:` in code also run under no_grad ---------------

TRAIN_AND_EVAL = """\
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(4, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def forward_backward_log(batch, labels):
    loss = F.cross_entropy(model(batch), labels)
    {backward}
    return loss.detach()


for step in range(3):
    opt.zero_grad()
    forward_backward_log(torch.randn(8, 4), torch.randint(0, 3, (8,)))
    opt.step()
    with torch.no_grad():
        forward_backward_log(torch.randn(8, 4), torch.randint(0, 3, (8,)))
"""


def test_backward_guarded_by_the_losss_requires_grad_is_quiet():
    guarded = "if loss.requires_grad:\n        loss.backward()"
    assert _findings(TRAIN_AND_EVAL.format(backward=guarded)) == []


def test_unguarded_backward_in_code_also_run_under_no_grad_is_flagged(tmp_path):
    source = TRAIN_AND_EVAL.format(backward="loss.backward()")
    assert _findings(source) == [(11, "GL202")]
    assert "does not require grad" in str(_run(tmp_path, source))


# a checkpointed staticmethod that only calls torch functions --------------------------

KERNEL_LOSS = """\
import torch
import torch.nn as nn
import torch.utils.checkpoint


class MMDLoss(nn.Module):
    def __init__(self, radii=(1.0, 4.0)):
        super().__init__()
        self.radii = radii
        self.proj = nn.Linear(3, 3)

    @staticmethod
    def _kernel({params}):
        {body}

    def forward(self, x, y):
        dxy = torch.cdist(x, y)
        loss = 0.0
        for r in self.radii:
            loss += torch.utils.checkpoint.checkpoint(self._kernel, {args})
        return loss
"""


def test_checkpointed_torch_only_staticmethod_is_quiet():
    source = KERNEL_LOSS.format(
        params="d, r", body="return torch.exp((-0.5 / r) * d).sum()", args="dxy, r"
    )
    assert _findings(source) == []


def test_checkpointed_staticmethod_running_a_module_is_flagged(tmp_path):
    source = KERNEL_LOSS.format(
        params="layer, d, r", body="return torch.exp(-layer(d) / r).sum()", args="self.proj, dxy, r"
    )
    assert _findings(source) == [(20, "GL205")]
    run = source + textwrap.dedent(
        """

        loss = MMDLoss()(torch.randn(3, 4), torch.randn(3, 4))
        if not loss.requires_grad:
            raise AssertionError("the checkpointed layer gets no gradient")
        """
    )
    with pytest.warns(UserWarning) as warned:  # torch's own warnings of the bug
        assert "no gradient" in str(_run(tmp_path, run))
    said = " ".join(str(w.message) for w in warned)
    assert "use_reentrant parameter should be passed" in said
    assert "None of the inputs have requires_grad=True" in said


# an EMA copy whose parameters `detach_()` took out of autograd (pytorch-ignite's
# EMAHandler, first seen 2026-11-28) --------------------------------------------------

EMA_HANDLER = """\
from copy import deepcopy

import torch
import torch.nn as nn


class EMAHandler:
    def __init__(self, model, momentum=0.0002):
        self.momentum = momentum
        self.model = model
        self.ema_model = deepcopy(self.model)
{detach}
    def update(self):
        momentum = self.momentum
        for ema_p, model_p in zip(self.ema_model.parameters(), self.model.parameters()):
            ema_p.mul_(1.0 - momentum).add_(model_p.data, alpha=momentum)


handler = EMAHandler(nn.Linear(4, 2))
handler.update()
"""
DETACHED = """\
        for param in self.ema_model.parameters():
            param.detach_()
"""


def test_ema_parameters_detached_in_place_are_quiet(tmp_path):
    source = EMA_HANDLER.format(detach=DETACHED)
    assert _findings(source) == []
    assert _run(tmp_path, source) is None  # torch agrees: they no longer require grad


def test_ema_parameters_left_attached_are_flagged(tmp_path):
    source = EMA_HANDLER.format(detach="")
    assert set(_findings(source)) == {(16, "GL101")}  # `mul_` and the chained `add_`
    assert "leaf Variable that requires grad" in str(_run(tmp_path, source))


# 7. an edit of a forward() argument no call site in the file makes matter (torchaudio's
# wav2vec2 MaskGenerator: its caller, in another file, rebinds `x, mask = ...` on a fresh
# dropout output); an optional argument standing in for what the forward computes
# (`inputs_embeds=None`) is the user's own tensor -----------------------------------------

MASK_GENERATOR = """\
import torch
import torch.nn as nn


class MaskGenerator(nn.Module):
    def __init__(self, dim, mask_prob=0.5):
        super().__init__()
        self.mask_prob = mask_prob
        self.mask_embedding = nn.Parameter(torch.rand(dim))

    def forward(self, x: torch.Tensor, padding_mask: torch.Tensor | None):
        mask_indices = torch.rand(x.shape[:2]) < self.mask_prob
        x[mask_indices] = self.mask_embedding.to(x.dtype)
        return x, mask_indices
"""


def test_mask_generator_no_call_site_makes_matter_is_quiet():
    assert _findings(MASK_GENERATOR) == []
    rebinding_caller = textwrap.dedent(
        """

        class Pretrainer(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.proj = nn.Linear(dim, dim)
                self.dropout = nn.Dropout(0.1)
                self.mask_generator = MaskGenerator(dim)

            def forward(self, features):
                x = self.dropout(self.proj(features))
                x, mask = self.mask_generator(x, None)
                return x, mask
        """
    )
    assert _findings(MASK_GENERATOR + rebinding_caller) == []


def test_mask_generator_whose_caller_reads_its_features_again_is_flagged(tmp_path):
    source = MASK_GENERATOR + textwrap.dedent(
        """

        class Pretrainer(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.proj = nn.Linear(dim, dim)
                self.mask_generator = MaskGenerator(dim)

            def forward(self, features):
                x = self.proj(features)
                masked, mask = self.mask_generator(x, None)
                return masked, x, mask


        torch.manual_seed(0)
        masked, targets, mask = Pretrainer(4)(torch.randn(2, 8, 4))
        if torch.equal(targets[mask], masked[mask]):
            raise AssertionError("the unmasked targets were overwritten by the mask embedding")
        """
    )
    assert _findings(source) == [(13, "GL105")]
    assert "targets were overwritten" in str(_run(tmp_path, source))


OPTIONAL_EMBEDS = """\
import torch
import torch.nn as nn


class TextModel(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, dim)
        self.positions = nn.Embedding(64, dim)

    def forward(self, input_ids=None, inputs_embeds: torch.Tensor | None = None):
        if inputs_embeds is None:
            inputs_embeds = self.embed_tokens(input_ids)
        inputs_embeds += self.positions(torch.arange(inputs_embeds.shape[1]))
        return inputs_embeds
"""


def test_optional_embeddings_a_user_passes_are_flagged_and_a_required_input_is_quiet(tmp_path):
    assert _findings(OPTIONAL_EMBEDS) == [(14, "GL104")]
    required = OPTIONAL_EMBEDS.replace(
        "input_ids=None, inputs_embeds: torch.Tensor | None = None",
        "inputs_embeds: torch.Tensor, input_ids=None",
    )
    assert _findings(required) == []
    run = OPTIONAL_EMBEDS + textwrap.dedent(
        """

        model = TextModel(10, 4)
        embeds = model.embed_tokens(torch.tensor([[1, 2, 3]])).detach().requires_grad_()
        model(inputs_embeds=embeds)  # attributions / adversarial perturbations of embeddings
        """
    )
    assert "leaf Variable that requires grad" in str(_run(tmp_path, run))


# a parameter read only to compute its own replacement through `.data` (robustbench's
# BoostingWideResNet, shipped in torchattacks: the fc weight projected onto the unit
# sphere before fc runs) is no use by the forward pass: GL102 -------------------------------

COSINE_HEAD = """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class CosineHead(nn.Module):
    def __init__(self, dim, classes):
        super().__init__()
        self.body = nn.Linear(dim, dim)
        self.fc = nn.Linear(dim, classes, bias=False)

    def forward(self, x):
        out = F.normalize(self.body(x), p=2, dim=1)
{projection}
        return {result}
"""

PROJECTION = "        self.fc.weight.data = F.normalize(self.fc.weight, p=2, dim=1)"

EVERY_LINEAR = """\
        for _, module in self.named_modules():
            if module is self.fc:
                module.weight.data = F.normalize(module.weight, p=2, dim=1)"""

GRADIENT_CHECK = """

torch.manual_seed(0)
head = CosineHead(4, 3)
x = torch.randn(5, 4, requires_grad=True)
head(x).sum().backward()
used = head.fc.weight.detach().clone()  # the weight fc computed the logits with
expected_x = x.detach().clone().requires_grad_()
F.linear(F.normalize(head.body(expected_x), p=2, dim=1), used).sum().backward()
if not torch.allclose(x.grad, expected_x.grad, atol=1e-6):
    raise AssertionError("the gradient was computed from the mutated .data")
"""


def test_weight_projected_through_data_before_its_layer_runs_is_quiet(tmp_path):
    for projection in (PROJECTION, EVERY_LINEAR):
        source = COSINE_HEAD.format(projection=projection, result="self.fc(out)")
        assert _findings(source) == []
        assert _run(tmp_path, source + GRADIENT_CHECK) is None


def test_weight_projected_after_its_layer_ran_is_flagged(tmp_path):
    late = "        logits = self.fc(out)\n" + PROJECTION
    source = COSINE_HEAD.format(projection=late, result="logits")
    assert _findings(source) == [(15, "GL102")]
    assert "computed from the mutated .data" in str(_run(tmp_path, source + GRADIENT_CHECK))


# 6, continued: a loss weight the loss fills in itself with a constant when None (mmdet's
# L2Loss / MarginLoss: `if weight is None: weight = target.new_ones(...)`) needs no grad;
# one standing in for a learned weighting is the caller's differentiable tensor ----------

L2_LOSS = """\
import torch
import torch.nn as nn


class L2Loss(nn.Module):
    def __init__(self, dim, neg_pos_ub=1):
        super().__init__()
        self.neg_pos_ub = neg_pos_ub
        self.weighting = nn.Linear(dim, dim)

    def forward(self, pred, target, weight=None, avg_factor=None):
        pred, weight, avg_factor = self.update_weight(pred, target, weight, avg_factor)
        return ((pred - target) ** 2 * weight).sum() / avg_factor

    def update_weight(self, pred, target, weight, avg_factor):
        if weight is None:
            weight = {default}
        neg_inds = target == 0
        if int(neg_inds.sum()) > int((target == 1).sum()) * self.neg_pos_ub:
            weight[neg_inds] = 0
        avg_factor = (weight > 0).sum()
        return pred, weight, avg_factor
"""


def test_loss_weight_filled_in_with_a_constant_is_quiet():
    for default in ("target.new_ones(target.size())", "torch.ones_like(target)"):
        assert _findings(L2_LOSS.format(default=default)) == [], default


def test_loss_weight_standing_in_for_a_learned_weighting_is_flagged(tmp_path):
    source = L2_LOSS.format(default="self.weighting(pred).sigmoid()")
    assert _findings(source) == [(20, "GL105")]
    for default in ("torch.ones_like(target, requires_grad=True)",):
        assert _findings(L2_LOSS.format(default=default)) == [(20, "GL105")], default
    run = source + textwrap.dedent(
        """

        pred, target = torch.rand(2, 4), torch.tensor([[1.0, 0, 0, 0], [0, 0, 0, 1]])
        weight = torch.rand(2, 4, requires_grad=True)  # a weighting the caller learns
        L2Loss(4)(pred, target, weight).backward()
        """
    )
    assert "leaf Variable that requires grad" in str(_run(tmp_path, run))


# ReLU(inplace) as a later stage of a Sequential edits the previous stage's output, never
# the Sequential's own argument (torchrl's IMPALA block: the stage before it is a
# LazyConv2d, whose output no op saved) --------------------------------------------------

IMPALA_BLOCK = """\
import torch
import torch.nn as nn


class ResNetBlock(nn.Module):
    def __init__(self, num_ch):
        super().__init__()
        self.seq = nn.Sequential(
            nn.ReLU(inplace=True),
            {middle},
            nn.ReLU(inplace=True),
            nn.Conv2d(num_ch, num_ch, kernel_size=3, padding=1),
        )

    def forward(self, x):
        return x + self.seq(x)


class ConvNetBlock(nn.Module):
    def __init__(self, num_ch):
        super().__init__()
        self.feats_conv = nn.Sequential(nn.LazyConv2d(num_ch, 3, padding=1), nn.MaxPool2d(3, 2, 1))
        self.resnet1 = ResNetBlock(num_ch)
        self.resnet2 = ResNetBlock(num_ch)

    def forward(self, x):
        x = self.feats_conv(x)
        x = self.resnet1(x)
        return self.resnet2(x)


ConvNetBlock(4)(torch.randn(2, 3, 8, 8)).sum().backward()
"""


def test_inplace_relu_after_a_lazy_conv_in_a_sequential_is_quiet(tmp_path):
    source = IMPALA_BLOCK.format(middle="nn.LazyConv2d(num_ch, kernel_size=3, padding=1)")
    assert _findings(source) == []
    assert _run(tmp_path, source) is None


def test_inplace_relu_after_a_sigmoid_in_a_sequential_is_flagged(tmp_path):
    middle = "nn.Conv2d(num_ch, num_ch, kernel_size=3, padding=1),\n            nn.Sigmoid()"
    source = IMPALA_BLOCK.format(middle=middle)
    assert _findings(source) == [(12, "GL103")]
    assert "modified by an inplace operation" in str(_run(tmp_path, source))


# 1, continued: the guard in the caller (torchvision / mmpretrain DenseNet: the method
# that checkpoints is called only when `self.any_requires_grad(x)`) ------------------------

DENSE_LAYER = """\
import torch
import torch.nn as nn
import torch.utils.checkpoint as cp


class DenseLayer(nn.Module):
    def __init__(self, in_channels, growth, memory_efficient=True):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, growth, 1)
        self.conv2 = nn.Conv2d(growth, growth, 3, padding=1)
        self.memory_efficient = memory_efficient

    def bottleneck_fn(self, xs):
        return self.conv1(torch.cat(xs, 1))

    def any_requires_grad(self, x):
        for tensor in x:
            if tensor.requires_grad:
                return True
        return False

    def call_checkpoint_bottleneck(self, x):
        def closure(*xs):
            return self.bottleneck_fn(xs)

        return cp.checkpoint(closure, *x)

    def forward(self, x):
        if {guard}:
            bottleneck_output = self.call_checkpoint_bottleneck(x)
        else:
            bottleneck_output = self.bottleneck_fn(x)
        return self.conv2(torch.relu(bottleneck_output))


layer = DenseLayer(3, 4)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # torch warns use_reentrant was not passed
    layer([torch.randn(1, 3, 8, 8)]).sum().backward()
if layer.conv1.weight.grad is None:
    raise AssertionError("the checkpointed conv got no gradient")
"""


def test_checkpoint_whose_every_caller_requires_an_input_requiring_grad_is_quiet(tmp_path):
    source = DENSE_LAYER.format(guard="self.memory_efficient and self.any_requires_grad(x)")
    assert _findings(source) == []
    assert _run(tmp_path, "import warnings\n" + source) is None


def test_checkpoint_whose_caller_tests_a_flag_only_is_flagged(tmp_path):
    source = DENSE_LAYER.format(guard="self.memory_efficient")
    assert _findings(source) == [(26, "GL205")]
    error = _run(tmp_path, "import warnings\n" + source)
    assert "got no gradient" in str(error)


# 1, continued: the guard as `any(...)` over the checkpointed inputs (gpleiss/
# temperature_scaling models/densenet.py, issue 31 batch 16: the memory-efficient DenseNet
# layer checkpoints `*prev_features` only when one of them requires grad) ----------------

EFFICIENT_DENSE_LAYER = """\
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint as cp


def _bn_function_factory(norm, relu, conv):
    def bn_function(*inputs):
        concated_features = torch.cat(inputs, 1)
        return conv(relu(norm(concated_features)))

    return bn_function


class _DenseLayer(nn.Module):
    def __init__(self, num_input_features, growth_rate, efficient=True):
        super().__init__()
        self.norm1 = nn.BatchNorm2d(num_input_features)
        self.relu1 = nn.ReLU()
        self.conv1 = nn.Conv2d(num_input_features, growth_rate, 1, bias=False)
        self.conv2 = nn.Conv2d(growth_rate, growth_rate, 3, padding=1, bias=False)
        self.efficient = efficient

    def forward(self, *prev_features):
        bn_function = _bn_function_factory(self.norm1, self.relu1, self.conv1)
        if self.efficient and {guard}:
            bottleneck_output = cp.checkpoint(bn_function, *prev_features)
        else:
            bottleneck_output = bn_function(*prev_features)
        return self.conv2(F.relu(bottleneck_output))


layer = _DenseLayer(3, 4)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # torch warns use_reentrant was not passed
    layer(torch.randn(2, 3, 8, 8)).sum().backward()
if layer.conv1.weight.grad is None:
    raise AssertionError("the checkpointed conv got no gradient")
"""


def test_checkpoint_guarded_by_any_input_requiring_grad_is_quiet(tmp_path):
    guard = "any(prev_feature.requires_grad for prev_feature in prev_features)"
    source = EFFICIENT_DENSE_LAYER.format(guard=guard)
    assert _findings(source) == []
    # the raw image requires no grad: the guard sends it down the plain arm
    assert _run(tmp_path, source) is None


def test_checkpoint_guarded_by_the_parameters_requiring_grad_is_flagged(tmp_path):
    guard = "any(p.requires_grad for p in self.parameters())"
    source = EFFICIENT_DENSE_LAYER.format(guard=guard)
    assert _findings(source) == [(29, "GL205")]
    assert "got no gradient" in str(_run(tmp_path, source))


# 7, continued: a helper outside any forward called for its effect on a tensor its
# caller made (DingXiaoH/ACNet acnet/acb.py, issue 31 batch 17: kernel fusion adds the
# 1xK and Kx1 kernels into the KxK product in place, then returns the product) ----------

KERNEL_FUSION = """\
import torch
import torch.nn as nn


class ACBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.square_conv = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.hor_conv = nn.Conv2d(channels, channels, (1, 3), padding=(0, 1), bias=False)
        self.square_bn = nn.BatchNorm2d(channels)
        self.hor_bn = nn.BatchNorm2d(channels)

    def _fuse_bn_tensor(self, conv, bn):
        std = (bn.running_var + bn.eps).sqrt()
        t = (bn.weight / std).reshape(-1, 1, 1, 1)
        return conv.weight * t

    def _add_to_square_kernel(self, square_kernel, asym_kernel):
        asym_h = asym_kernel.size(2)
        square_h = square_kernel.size(2)
        top = square_h // 2 - asym_h // 2
        square_kernel[:, :, top : top + asym_h, :] += asym_kernel
        {result}

    def get_equivalent_kernel(self):
        square_k = self._fuse_bn_tensor(self.square_conv, self.square_bn)
        hor_k = self._fuse_bn_tensor(self.hor_conv, self.hor_bn)
        {call}
        return square_k

    def forward(self, x):
        return self.square_bn(self.square_conv(x)) + self.hor_bn(self.hor_conv(x))


block = ACBlock(2)
kernel = block.get_equivalent_kernel()
kernel.sum().backward()  # the product saved nothing of itself: the edit breaks no backward
unfused = block._fuse_bn_tensor(block.square_conv, block.square_bn)
changed = not torch.equal(kernel, unfused)
{check}
"""


def test_helper_called_for_its_effect_on_the_callers_product_is_quiet(tmp_path):
    source = KERNEL_FUSION.format(
        result="", call="self._add_to_square_kernel(square_k, hor_k)", check="assert changed"
    )
    assert _findings(source) == []
    assert _run(tmp_path, source) is None  # fused as asked, and backward works


def test_helper_called_for_a_result_of_its_own_that_edits_the_callers_tensor_is_flagged(
    tmp_path,
):
    source = KERNEL_FUSION.format(
        result="return asym_kernel.abs().sum()",
        call="scale = self._add_to_square_kernel(square_k, hor_k)",
        check='assert not changed, "the caller asked for a scale; its kernel was changed"',
    )
    assert _findings(source) == [(22, "GL104")]
    assert "its kernel was changed" in str(_run(tmp_path, source))


# A slice of an nn.ParameterList is a ParameterList (aimagelab/mammoth models/lucir.py,
# issue 31 batch 19: LUCIR's cosine classifier keeps one weight per task in a
# ParameterList, and the optimizer freezes the later ones with `lr=0` through
# `list(weights[1:])`: parameters, not views of one) ------------------------------------

LUCIR_CLASSIFIER = """\
import math

import torch
import torch.nn.functional as F
from torch import nn


class CustomClassifier(nn.Module):
    def __init__(self, in_features, cpt, n_tasks):
        super().__init__()
        self.weights = {weights}
        self.sigma = nn.parameter.Parameter(torch.Tensor(1))
        self.n_tasks = n_tasks
        self.reset_parameters()

    def reset_parameters(self):
        for i in range(self.n_tasks):
            stdv = 1.0 / math.sqrt(self.weights[i].size(1))
            self.weights[i].data.uniform_(-stdv, stdv)
        self.sigma.data.fill_(1)

    def forward(self, x):
        x = F.normalize(x, p=2, dim=1)
        out = [F.linear(x, F.normalize(self.weights[t], p=2, dim=1)) for t in range(self.n_tasks)]
        return torch.cat(out, dim=1) * self.sigma


class Lucir:
    def __init__(self, net, n_classes_per_task, n_tasks):
        self.net = net
        self.net.classifier = CustomClassifier(
            self.net.classifier.in_features, n_classes_per_task, n_tasks
        )
        upd_weights = [p for n, p in self.net.named_parameters() if "classifier" not in n] + [
            self.net.classifier.weights[0],
            self.net.classifier.sigma,
        ]
        fix_weights = list(self.net.classifier.weights[1:])
        self.opt = torch.optim.SGD(
            [{{"params": upd_weights, "lr": 0.1}}, {{"params": fix_weights, "lr": 0}}]
        )


net = nn.Sequential()
net.add_module("features", nn.Linear(4, 8))
net.add_module("classifier", nn.Linear(8, 2))
Lucir(net, 2, 3)
"""


def test_slice_of_a_parameter_list_given_to_an_optimizer_is_quiet(tmp_path):
    weights = (
        "nn.ParameterList([nn.parameter.Parameter(torch.Tensor(cpt, in_features))"
        " for _ in range(n_tasks)])"
    )
    source = LUCIR_CLASSIFIER.format(weights=weights)
    assert _findings(source) == []
    assert _run(tmp_path, source) is None


def test_slice_of_one_stacked_parameter_given_to_an_optimizer_is_flagged(tmp_path):
    weights = "nn.Parameter(torch.Tensor(n_tasks, cpt, in_features))"
    source = LUCIR_CLASSIFIER.format(weights=weights)
    assert _findings(source) == [(39, "GL206")]
    path = tmp_path / "case.py"
    path.write_text(source)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        runpy.run_path(str(path))


# `[:1]` keeps one row (facebookresearch/DeeperCluster src/trainer.py, issue 31 batch 19:
# a top-1 accuracy takes `output.topk(1, ...)`, transposes it and views `correct[:1]`, a
# (1, B) tensor: a dim of size 1 merges with any other) ---------------------------------

TOP1_ACCURACY = """\
import torch


def accuracy(output, target):
    with torch.no_grad():
        batch_size = target.size(0)
        _, pred = output.topk({k}, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))
        correct_1 = correct[:{k}].view(-1).float().sum(0, keepdim=True)
        return correct_1.mul_(100.0 / batch_size)
"""
# the project's caller passes a model's output, of a shape the file does not show
TOP1_CALL = "\naccuracy(torch.randn(8, 10), torch.randint(0, 10, (8,)))\n"


def test_first_row_of_a_transposed_top1_viewed_flat_is_quiet(tmp_path):
    source = TOP1_ACCURACY.format(k=1)
    assert _findings(source) == []
    assert _run(tmp_path, source + TOP1_CALL) is None


def test_first_rows_of_a_transposed_top5_viewed_flat_are_flagged(tmp_path):
    source = TOP1_ACCURACY.format(k=5)
    assert _findings(source) == [(10, "GL401")]
    assert "view size is not compatible" in str(_run(tmp_path, source + TOP1_CALL))


# A tensor attribute flagged after it was made --------------------------------------
# seungeunrho/minimalRL sac.py (history.md batch 2c): SAC's temperature is a plain tensor
# made in __init__ and switched on there (`self.log_alpha.requires_grad = True`); its loss
# detaches the policy's term on purpose, and log_alpha alone is trained by it.

SAC_TEMPERATURE = """\
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


class PolicyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 1)
        self.log_alpha = torch.tensor(np.log(0.01))
        {switch_on}
        self.log_alpha_optimizer = optim.Adam([self.log_alpha], lr=0.001)

    def train_net(self, s):
        log_prob = self.fc(s)
        self.log_alpha_optimizer.zero_grad()
        alpha_loss = -(self.log_alpha.exp() * (log_prob - 1.0).detach()).mean()
        alpha_loss.backward()
        self.log_alpha_optimizer.step()


PolicyNet().train_net(torch.randn(4, 3))
"""


@pytest.mark.parametrize(
    "switch_on", ["self.log_alpha.requires_grad = True", "self.log_alpha.requires_grad_(True)"]
)
def test_tensor_attribute_switched_on_in_init_is_read_so_by_other_methods(tmp_path, switch_on):
    source = SAC_TEMPERATURE.format(switch_on=switch_on)
    assert _findings(source) == []
    assert _run(tmp_path, source) is None


def test_tensor_attribute_never_switched_on_keeps_the_detached_loss_flagged(tmp_path):
    source = SAC_TEMPERATURE.format(switch_on="pass")
    assert _findings(source) == [(18, "GL202")]
    assert "does not require grad" in str(_run(tmp_path, source))


# A list emptied in place between episodes --------------------------------------------
# pytorch/examples reinforcement_learning/reinforce.py (corpora.py): select_action()
# appends each step's log-probability to a list kept on the policy, finish_episode()
# backpropagates their sum and empties the list with `del policy.saved_log_probs[:]`, so
# the next episode's backward goes through that episode's graphs only.

REINFORCE = """\
from collections import deque

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical


class Policy(nn.Module):
    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(4, 16)
        self.affine2 = nn.Linear(16, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        return F.softmax(self.affine2(F.relu(self.affine1(x))), dim=1)


policy = Policy()
optimizer = optim.Adam(policy.parameters(), lr=1e-2)


def select_action(state):
    probs = policy(state.unsqueeze(0))
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode():
    returns = torch.tensor(list(deque(policy.rewards)))
    policy_loss = []
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    {emptied}


for i_episode in range(3):
    for t in range(4):
        select_action(torch.randn(4))
        policy.rewards.append(1.0)
    finish_episode()
"""


@pytest.mark.parametrize(
    "emptied", ["del policy.saved_log_probs[:]", "policy.saved_log_probs.clear()"]
)
def test_list_of_log_probs_emptied_after_each_backward_is_quiet(tmp_path, emptied):
    source = REINFORCE.format(emptied=emptied)
    assert _findings(source) == []
    assert _run(tmp_path, source) is None


def test_list_of_log_probs_never_emptied_is_flagged(tmp_path):
    # the twin: the second episode's loss sums the first episode's log-probabilities too,
    # whose graph the first backward freed
    source = REINFORCE.format(emptied="pass")
    assert (41, "GL305") in _findings(source)
    assert "backward through the graph a second time" in str(_run(tmp_path, source))


# Modules registered by a helper's setattr-by-path ------------------------------------
# x-transformers xl_autoregressive_wrapper.py (corpora.py, judged false): the wrapper keeps
# a dict of the wrappers it installs into `self.net` with `set_module_by_path(net, path,
# wrapper)`, a module-level helper doing `setattr(reduce(getattr, parts, model), last,
# new_mod)`; the dict is an index, the wrappers register through `self.net`.

SET_BY_PATH = """\
from functools import reduce

import torch.nn as nn


def set_module_by_path(model, path, new_mod):
    *parts, last = path.split(".")
    mod = reduce(getattr, parts, model)
    setattr(mod, last, new_mod)


class Wrapper(nn.Module):
    def __init__(self, mod):
        super().__init__()
        self.mod = mod
        self.scale = nn.Parameter(nn.init.ones_(nn.Linear(1, 1).weight.new_empty(1)))


class XL(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.wrappers = dict()
        for path in ("0", "1"):
            wrapper = Wrapper(net[int(path)])
            {install}
            self.wrappers[path] = wrapper


model = XL(nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 4)))
assert len(list(model.parameters())) == {expected}
"""


def test_modules_a_helper_installs_by_setattr_are_registered(tmp_path):
    source = SET_BY_PATH.format(install="set_module_by_path(net, path, wrapper)", expected=6)
    assert [code for _, code in _findings(source)] == []
    assert _run(tmp_path, source) is None


def test_modules_kept_only_in_the_dict_are_flagged(tmp_path):
    source = SET_BY_PATH.format(install="pass", expected=4)
    assert "GL502" in [code for _, code in _findings(source)]
    assert _run(tmp_path, source) is None  # torch: the wrappers' scales are not parameters


# GL502's premise: what a plain container keeps must hold state registration carries ------

SPEED_PERTURB = """\
import torch
import torch.nn as nn
import torchaudio


class Resample(nn.Module):
    def __init__(self, orig_freq=16000, new_freq=16000):
        super().__init__()
        self.orig_freq = orig_freq
        self.new_freq = new_freq
        self.resampler = {resampler}

    def forward(self, waveforms):
        if self.orig_freq == self.new_freq{skip}:
            return waveforms
        self.resampler.to(waveforms.device)
        return self.resampler(waveforms[:, None])[:, 0]


class SpeedPerturb(nn.Module):
    def __init__(self, orig_freq, speeds=(90, 100, 110)):
        super().__init__()
        self.speeds = speeds
        self.resamplers = []
        for speed in self.speeds:
            config = {{"orig_freq": orig_freq, "new_freq": round(orig_freq * 100 / speed)}}
            self.resamplers.append(Resample(**config))

    def forward(self, waveform):
        index = torch.randint(0, len(self.speeds), (1,))
        return self.resamplers[index](waveform)
"""
TORCHAUDIO_RESAMPLE = "torchaudio.transforms.Resample(orig_freq=orig_freq, new_freq=new_freq)"
CONV = "nn.Conv1d(1, 1, 3, padding=1)"


def test_plain_list_of_modules_whose_state_the_file_cannot_show_is_quiet():
    """speechbrain's SpeedPerturb: a plain list of the file's Resample modules, whose only
    layer comes from another package (torchaudio's Resample: no parameters, one kernel
    buffer it rebuilds from the config). Nothing in the file shows a parameter, buffer or
    train / eval switch the list would lose, so GL502 has no harm to claim."""
    assert _findings(SPEED_PERTURB.format(resampler=TORCHAUDIO_RESAMPLE, skip="")) == []


def test_plain_list_of_modules_holding_a_layer_with_parameters_is_flagged(tmp_path):
    source = SPEED_PERTURB.format(resampler=CONV, skip="")
    assert _findings(source) == [(27, "GL502")]
    run = source.replace("import torchaudio\n", "") + textwrap.dedent(
        """

        model = SpeedPerturb(16000)
        if not list(model.parameters()):
            raise AssertionError("the resamplers' convolutions are missing from parameters()")
        """
    )
    assert "missing from parameters()" in str(_run(tmp_path, run))


def test_plain_list_of_modules_switched_by_train_or_eval_is_flagged(tmp_path):
    """A module of the file without any layer, whose forward reads `self.training`:
    model.eval() never reaches it in the plain list."""
    source = SPEED_PERTURB.format(resampler="None", skip=" or not self.training")
    assert _findings(source) == [(27, "GL502")]
    run = source.replace("import torchaudio\n", "") + textwrap.dedent(
        """

        model = SpeedPerturb(16000, speeds=(100,))
        model.eval()
        if model.resamplers[0].training:
            raise AssertionError("eval() did not reach the plain list's modules")
        """
    )
    assert "eval() did not reach" in str(_run(tmp_path, run))


SERIES_DECOMP = """\
import torch
import torch.nn as nn


class moving_avg(nn.Module):
    def __init__(self, kernel_size, stride):
        super(moving_avg, self).__init__()
        self.kernel_size = kernel_size
        self.avg = {layer}

    def forward(self, x):
        front = x[:, 0:1, :].repeat(1, (self.kernel_size - 1) // 2, 1)
        end = x[:, -1:, :].repeat(1, (self.kernel_size - 1) // 2, 1)
        x = torch.cat([front, x, end], dim=1)
        return self.avg(x.permute(0, 2, 1)).permute(0, 2, 1)


class series_decomp(nn.Module):
    def __init__(self, kernel_size):
        super(series_decomp, self).__init__()
        self.moving_avg = moving_avg(kernel_size, stride=1)

    def forward(self, x):
        moving_mean = self.moving_avg(x)
        return x - moving_mean, moving_mean


class series_decomp_multi(nn.Module):
    def __init__(self, kernel_size):
        super(series_decomp_multi, self).__init__()
        self.kernel_size = kernel_size
        self.series_decomp = [series_decomp(kernel) for kernel in kernel_size]

    def forward(self, x):
        parts = [func(x) for func in self.series_decomp]
        return sum(p[0] for p in parts) / len(parts), sum(p[1] for p in parts) / len(parts)
"""

# torch: the plain list against an nn.ModuleList of the same blocks, both in eval mode
DECOMP_COMPARED = """

torch.manual_seed(0)
plain = series_decomp_multi({kernels})
registered = series_decomp_multi({kernels})
registered.series_decomp = nn.ModuleList(registered.series_decomp)
if list(registered.parameters()) or list(registered.buffers()):
    raise AssertionError("registering the blocks adds parameters or buffers")
assert plain.state_dict().keys() == registered.state_dict().keys()
plain.eval()
registered.eval()
x = torch.randn(2, 8, 1)
if not torch.equal(plain(x)[1], registered(x)[1]):
    raise AssertionError("eval() did not reach the plain list's layers: the outputs differ")
"""


def test_plain_list_of_blocks_around_a_stateless_torch_layer_is_quiet(tmp_path):
    """Time-Series-Library's FEDformer decomposition: a plain list of series_decomp blocks
    whose only layer is an nn.AvgPool1d (torch 2.13: no parameter, no buffer, nothing
    switched by train() / eval()): registered or not, the model is the same."""
    source = SERIES_DECOMP.format(layer="nn.AvgPool1d(kernel_size=kernel_size, stride=stride)")
    assert _findings(source) == []
    assert _run(tmp_path, source + DECOMP_COMPARED.format(kernels=[3, 5])) is None


def test_plain_list_of_blocks_around_dropout_or_a_conv_is_flagged(tmp_path):
    """The same blocks around nn.Dropout (eval() never reaches it: still dropping at
    evaluation) or around a convolution (its parameters are missing)."""
    dropout = SERIES_DECOMP.format(layer="nn.Dropout(0.5)")
    assert _findings(dropout) == [(32, "GL502")]
    run = dropout + DECOMP_COMPARED.format(kernels=[1])  # no padding to pool away
    assert "the outputs differ" in str(_run(tmp_path, run))
    conv = SERIES_DECOMP.format(layer="nn.Conv1d(1, 1, kernel_size, padding=kernel_size // 2)")
    assert _findings(conv) == [(32, "GL502")]
    run = conv + DECOMP_COMPARED.format(kernels=[3, 5])
    assert "adds parameters or buffers" in str(_run(tmp_path, run))


# A torch layer built with a keyword its constructor does not take raises TypeError ------

CONVERT_BACK = """\
import torch
import torch.nn as nn


def convert_model(model):
    for name, module in model.named_children():
        if isinstance(module, nn.Linear):
            has_bias = module.bias is not None
            dtype = module.weight.dtype
            new_module = nn.Linear(
                module.in_features, module.out_features, bias=has_bias, {keyword}=dtype
            )
            new_module.weight.copy_(module.weight)
            if has_bias:
                new_module.bias.copy_(module.bias)
            setattr(model, name, new_module)
        else:
            convert_model(module)


convert_model(nn.Sequential(nn.Linear(4, 4)))
"""


def test_edits_of_a_layer_torch_cannot_build_are_quiet(tmp_path):
    """accelerate's convert_model back from transformer_engine: `nn.Linear(...,
    params_dtype=...)` raises TypeError (torch 2.13's nn.Linear takes no params_dtype), so
    the copy_ into its weight after it never runs."""
    source = CONVERT_BACK.format(keyword="params_dtype")
    assert _findings(source) == []
    with pytest.raises(TypeError, match="params_dtype"):
        _run(tmp_path, source)


def test_edits_of_a_layer_built_with_its_own_keywords_are_flagged(tmp_path):
    source = CONVERT_BACK.format(keyword="dtype")
    assert _findings(source) == [(13, "GL101"), (15, "GL101")]
    assert "leaf Variable that requires grad" in str(_run(tmp_path, source))


# A write through `.data` records no op: the tensor stays a leaf (GL206) ----------------

PGD_ATTACK = """\
import torch
import torch.nn.functional as F


def clamp(X, lower_limit, upper_limit):
    return torch.max(torch.min(X, upper_limit), lower_limit)


def attack_pgd(model, X, y, epsilon, alpha, attack_iters, restarts):
    max_loss = torch.zeros(y.shape[0])
    max_delta = torch.zeros_like(X)
    for _ in range(restarts):
        delta = torch.zeros_like(X).uniform_(-epsilon, epsilon)
        delta.data = clamp(delta, 0-X, 1-X)
        delta.requires_grad = True
        for _ in range(attack_iters):
            output = model(X + delta)
            index = torch.where(output.max(1)[1] == y)[0]
            if len(index) == 0:
                break
            loss = F.cross_entropy(output, y)
            loss.backward()
            grad = delta.grad.detach()
            d = torch.clamp(delta + alpha * torch.sign(grad), -epsilon, epsilon)
            d = clamp(d, 0-X, 1-X)
            {step}
            delta.grad.zero_()
        all_loss = F.cross_entropy(model(X+delta), y, reduction='none')
        max_delta[all_loss >= max_loss] = delta.detach()[all_loss >= max_loss]
        max_loss = torch.max(max_loss, all_loss)
    return max_delta


torch.manual_seed(0)
model = torch.nn.Linear(4, 3)
X = torch.rand(50, 4)
attack_pgd(model, X, model(X).argmax(1), 0.3, 0.01, 3, 2)
"""


def test_pgd_step_written_through_data_keeps_the_leaf_quiet(tmp_path):
    """fast_adversarial's MNIST attack: `delta.data[index] = d[index]` writes the step
    into the leaf's storage with no history, so `delta.grad` is filled on every pass."""
    source = PGD_ATTACK.format(step="delta.data[index] = d[index]")
    assert _findings(source) == []
    assert _run(tmp_path, source) is None


def test_pgd_step_rebinding_the_perturbation_is_flagged(tmp_path):
    """The step taken as `delta = d`: `delta` is then the clamp's result, a non-leaf, and
    its `.grad` is None (torch 2.13 warns, then `.zero_()` of None)."""
    source = PGD_ATTACK.format(step="delta = d")
    assert (27, "GL206") in _findings(source)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'zero_'"):
            _run(tmp_path, source)


# A method of an Optimizer subclass runs in its caller's grad mode (GL202) ---------------

FROMP_OPTIMIZER = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.optimizer import Optimizer


def _update_input(self, input, output):
    self.input = input[0].data
    self.output = output


class opt_fromp(Optimizer):
    def __init__(self, model, lr=1e-3, tau=1.0):
        defaults = dict(lr=lr, tau=tau)
        super(opt_fromp, self).__init__(model.parameters(), defaults)
        self.model = model
        self.train_modules = []
        for module in model.modules():
            if isinstance(module, nn.Linear):
                self.train_modules.append(module)
                module.register_forward_hook(_update_input)

    # Calculate the gradient of the parameters [lc] with respect to the loss
    def cac_grad(self, loss, lc, retain_graph=None):
        linear_grad = torch.autograd.grad(loss, lc, retain_graph=retain_graph)
        return [g.detach() for g in linear_grad]

    {decorator}def step(self, x, y):
        self.zero_grad()
        logits = self.model.forward(x)
        loss_cur = F.cross_entropy(input=logits, target=y, reduction='mean')
        preds_t = torch.softmax(logits, dim=-1)
        lc = []
        for module in self.train_modules:
            lc.append(module.output)
        num_fun = preds_t.shape[-1]
        for fi in range(num_fun):
            loss_jac_t = preds_t[:, fi].sum()
            retain_graph = True if fi < num_fun - 1 else None
            jac_t = self.cac_grad(loss_jac_t, lc, retain_graph=retain_graph)
        return loss_cur, jac_t


model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
optimizer = opt_fromp(model)
optimizer.step(torch.randn(5, 4), torch.randint(0, 3, (5,)))
"""


def test_optimizer_method_without_decorator_runs_with_callers_grad_quiet(tmp_path):
    """continual-learning's FROMP optimizer: `step` is not decorated, so it runs with grad
    on (torch.optim.Optimizer does not turn it off) and `torch.autograd.grad` of the
    softmax outputs works."""
    source = FROMP_OPTIMIZER.format(decorator="")
    assert _findings(source) == []
    assert _run(tmp_path, source) is None


def test_optimizer_step_decorated_with_no_grad_is_flagged(tmp_path):
    """The same step under `@torch.no_grad()` (the decorator torch's own optimizers use):
    the outputs need no grad and `torch.autograd.grad` raises."""
    source = FROMP_OPTIMIZER.format(decorator="@torch.no_grad()\n    ")
    assert _findings(source) == [(25, "GL202")]
    assert "does not require grad" in str(_run(tmp_path, source))


# Parameters of a slice or an item of a registered ModuleList are registered (GL502) ---

GCNII_DENSE = """\
import torch
import torch.nn.functional as F
{layer}


class GCNIIdense_model(torch.nn.Module):
    def __init__(self, in_channels, hidden_channels, out_channels, num_layers,dropout,alpha,norm):
        super(GCNIIdense_model, self).__init__()
        {convs}
        self.convs.append(torch.nn.Linear(in_channels, hidden_channels))
        for _ in range(num_layers):
            self.convs.append(GCNIIdenseConv(hidden_channels, hidden_channels,bias=norm))
        self.convs.append(torch.nn.Linear(hidden_channels,out_channels))
        self.reg_params = list(self.convs[1:-1].parameters())
        self.non_reg_params = list(self.convs[0:1].parameters())+list(self.convs[-1:].parameters())
        self.dropout = dropout
        self.alpha = alpha

    def forward(self, x):
        x = F.dropout(x, self.dropout ,training=self.training)
        x = F.relu(self.convs[0](x))
        _hidden = [x]
        for i,con in enumerate(self.convs[1:-1]):
            x = F.dropout(x, self.dropout ,training=self.training)
            x = F.relu(con(x, self.alpha, _hidden[0]))+_hidden[-1]
            _hidden.append(x)
        x = F.dropout(x, self.dropout ,training=self.training)
        x = self.convs[-1](x)
        return F.log_softmax(x, dim=1)
"""

GCNII_LAYER = """\
class GCNIIdenseConv(torch.nn.Module):
    def __init__(self, in_channels, out_channels, bias=None):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(in_channels, out_channels) * 0.1)

    def forward(self, x, alpha, h0):
        return ((1 - alpha) * x + alpha * h0) @ self.weight
"""

GCNII_CHECK = """

model = GCNIIdense_model(4, 8, 3, 2, 0.1, 0.5, 'bn')
registered = {id(p) for p in model.parameters()}
kept = model.reg_params + model.non_reg_params
assert all(id(p) in registered for p in kept), "a kept parameter is not registered"
assert len(registered) == len(kept), "parameters() misses layers"
model.to(torch.float64)
assert all(p.dtype == torch.float64 for p in kept)
"""


def test_parameters_of_slices_of_a_registered_module_list_are_quiet(tmp_path):
    """GCNII's ogbn-arxiv model: the weight-decay groups are `list(self.convs[1:-1]
    .parameters())` and the ends' parameters; slicing the ModuleList yields its own
    registered layers (one of them imported from the project)."""
    convs = "self.convs = torch.nn.ModuleList()"
    imported = "from layer import GCNIIdenseConv"
    assert _findings(GCNII_DENSE.format(layer=imported, convs=convs)) == []
    assert _run(tmp_path, GCNII_DENSE.format(layer=GCNII_LAYER, convs=convs) + GCNII_CHECK) is None


def test_layers_appended_to_a_plain_list_are_flagged(tmp_path):
    """The same model with `self.convs = []` (and the groups gathered layer by layer, as a
    list has no `.parameters()`): nothing registers the layers, so `parameters()`, the
    optimizer and `.to()` miss them."""

    def plain(layer: str) -> str:
        source = GCNII_DENSE.format(layer=layer, convs="self.convs = []")
        source = source.replace(
            "list(self.convs[1:-1].parameters())",
            "[p for conv in self.convs[1:-1] for p in conv.parameters()]",
        )
        return source.replace(
            "list(self.convs[0:1].parameters())+list(self.convs[-1:].parameters())",
            "[p for conv in self.convs[0:1] + self.convs[-1:] for p in conv.parameters()]",
        )

    assert (10, "GL502") in _findings(plain("from layer import GCNIIdenseConv"))
    error = _run(tmp_path, plain(GCNII_LAYER) + GCNII_CHECK)
    assert "a kept parameter is not registered" in str(error)


# A step after a conditional backward is not wiped before it (GL504) -------------------

MAPPO_TRAINER = """\
import torch
import torch.nn as nn
{policy}


class R_MAPPO():
    def __init__(self, args, policy):
        self.policy = policy
        self.clip_param = args.clip_param
        self.entropy_coef = args.entropy_coef
        self.max_norm = args.max_grad_norm

    def ppo_update(self, sample, update_actor=True):
        share_obs_batch, obs_batch, actions_batch, old_action_log_probs_batch, adv_targ, \\
            return_batch = sample
        values, action_log_probs, dist_entropy = self.policy.evaluate_actions(share_obs_batch,
                                                                              obs_batch,
                                                                              actions_batch)
        # actor update
        imp_weights = torch.exp(action_log_probs - old_action_log_probs_batch)
        surr1 = imp_weights * adv_targ
        surr2 = torch.clamp(imp_weights, 1.0 - self.clip_param, 1.0 + self.clip_param) * adv_targ
        policy_loss = -torch.sum(torch.min(surr1, surr2), dim=-1, keepdim=True).mean()

        self.policy.actor_optimizer.zero_grad()
{actor_update}
        # critic update
        value_loss = ((return_batch - values) ** 2).mean()

        self.policy.critic_optimizer.zero_grad()

        value_loss.backward()

        critic_grad_norm = nn.utils.clip_grad_norm_(self.policy.critic.parameters(), self.max_norm)

        self.policy.critic_optimizer.step()

        return value_loss, critic_grad_norm, policy_loss, dist_entropy

    def train(self, data_generator, update_actor=True):
        for sample in data_generator:
            value_loss, critic_grad_norm, policy_loss, dist_entropy \\
                = self.ppo_update(sample, update_actor)
"""

MAPPO_POLICY = """
from types import SimpleNamespace


class R_MAPPOPolicy:
    def __init__(self):
        self.actor = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
        self.critic = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        self.actor_optimizer = torch.optim.Adam(self.actor.parameters(), lr=1e-2)
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=1e-2)

    def evaluate_actions(self, cent_obs, obs, action):
        dist = torch.distributions.Categorical(logits=self.actor(obs))
        return self.critic(cent_obs), dist.log_prob(action), dist.entropy().mean()
"""

MAPPO_RUN = """

def batch():
    return (torch.randn(6, 4), torch.randn(6, 4), torch.randint(0, 3, (6,)), torch.randn(6),
            torch.randn(6), torch.randn(6, 1))


policy = R_MAPPOPolicy()
args = SimpleNamespace(clip_param=0.2, entropy_coef=0.01, max_grad_norm=10.0)
before = [p.clone() for p in policy.actor.parameters()]
R_MAPPO(args, policy).train([batch() for _ in range(3)])
moved = [not torch.equal(a, b) for a, b in zip(before, policy.actor.parameters())]
assert any(moved), "the actor never changes"
"""

MAPPO_STEP_AFTER_OWN_BACKWARD = """\
        if update_actor:
            (policy_loss - dist_entropy * self.entropy_coef).backward()

        actor_grad_norm = nn.utils.clip_grad_norm_(self.policy.actor.parameters(), self.max_norm)

        self.policy.actor_optimizer.step()
"""

MAPPO_STEP_BEFORE_OWN_BACKWARD = """\
        self.policy.actor_optimizer.step()

        (policy_loss - dist_entropy * self.entropy_coef).backward()
"""


def test_actor_step_after_its_conditional_backward_is_quiet(tmp_path):
    """on-policy's MAPPO / HAPPO trainers: the actor's backward under `if update_actor:`
    precedes its step, and the critic's backward after it feeds the critic's own step."""
    imported = "from onpolicy.algorithms.r_mappo.algorithm.rMAPPOPolicy import R_MAPPOPolicy"
    step_last = MAPPO_STEP_AFTER_OWN_BACKWARD
    source = MAPPO_TRAINER.format(policy=imported, actor_update=step_last)
    assert _findings(source) == []
    runnable = MAPPO_TRAINER.format(policy=MAPPO_POLICY, actor_update=step_last)
    assert _run(tmp_path, runnable + MAPPO_RUN) is None


def test_actor_step_before_its_backward_is_flagged(tmp_path):
    """The actor's step between its zero_grad and its backward: each update clears the
    gradients the step should apply, and the actor never changes."""
    imported = "from onpolicy.algorithms.r_mappo.algorithm.rMAPPOPolicy import R_MAPPOPolicy"
    step_first = MAPPO_STEP_BEFORE_OWN_BACKWARD
    source = MAPPO_TRAINER.format(policy=imported, actor_update=step_first)
    assert (26, "GL504") in _findings(source)
    runnable = MAPPO_TRAINER.format(policy=MAPPO_POLICY, actor_update=step_first)
    assert "the actor never changes" in str(_run(tmp_path, runnable + MAPPO_RUN))


# An edit in an arm that runs only at inference (megatron-core 0.19.2
# megatron/core/models/gpt/gpt_model.py GPTModel._preprocess: padding rows of the
# decoder input zeroed when dynamic batching runs in the inference engine) ------------

INFERENCE_ONLY_EDIT = """\
import torch
import torch.nn as nn


class InferenceMode:
    _is_active = False

    @classmethod
    def is_active(cls):
        return cls._is_active


class GPTModel(nn.Module):
    def __init__(self, vocab=16, hidden=8):
        super().__init__()
        self.embedding = nn.Embedding(vocab, hidden)
        self.output_layer = nn.Linear(hidden, vocab)

    def _preprocess(self, input_ids, decoder_input=None, padding_slice=None):
        in_inference_mode = InferenceMode.is_active()
        if decoder_input is not None:
            pass
        else:
            decoder_input = self.embedding(input_ids)
        {guard}
            if padding_slice is not None:
                decoder_input[padding_slice] = 0.0
        return decoder_input

    def forward(self, input_ids, decoder_input: torch.Tensor = None, padding_slice=None):
        decoder_input = self._preprocess(input_ids, decoder_input, padding_slice)
        return self.output_layer(decoder_input)


model = GPTModel()
embeds = torch.randn(2, 3, 8, requires_grad=True)
{run}
"""
INFERENCE_RUN = """\
InferenceMode._is_active = True
with torch.inference_mode():
    logits = model(torch.zeros(2, 3, dtype=torch.long), torch.randn(2, 3, 8), slice(2, 3))
assert logits.shape == (2, 3, 16)
"""
TRAINING_RUN = """\
model(torch.zeros(2, 3, dtype=torch.long), embeds, slice(2, 3)).sum().backward()
"""


def test_edit_in_an_inference_only_arm_is_quiet(tmp_path):
    """Linted as megatron's file is, no caller in sight; run as the inference engine runs it."""
    assert _findings(INFERENCE_ONLY_EDIT.format(guard="if in_inference_mode:", run="")) == []
    source = INFERENCE_ONLY_EDIT.format(guard="if in_inference_mode:", run=INFERENCE_RUN)
    assert _run(tmp_path, source) is None


def test_same_edit_on_every_path_is_flagged(tmp_path):
    """The twin: the user's embeddings (a leaf that requires grad) are edited in place."""
    edit_line = (
        INFERENCE_ONLY_EDIT.splitlines().index("                decoder_input[padding_slice] = 0.0")
        + 1
    )
    alone = INFERENCE_ONLY_EDIT.format(guard="if True:", run="")
    assert _findings(alone) == [(edit_line, "GL104")]
    error = _run(tmp_path, INFERENCE_ONLY_EDIT.format(guard="if True:", run=TRAINING_RUN))
    assert error is not None and "leaf Variable that requires grad" in str(error)


# The answer-span labels of a question-answering head (BERT's, as facebookresearch/SpanBERT
# code/pytorch_pretrained_bert/modeling.py @0670d8b and DPR's reader write it) ----------

QA_HEAD = """\
import torch
import torch.nn as nn
from torch.nn import CrossEntropyLoss


class BertForQuestionAnswering(nn.Module):
    def __init__(self, hidden_size=8):
        super(BertForQuestionAnswering, self).__init__()
        self.qa_outputs = nn.Linear(hidden_size, 2)

    def forward(self, sequence_output, {start}: torch.Tensor = None, {end}: torch.Tensor = None):
        logits = self.qa_outputs(sequence_output)
        start_logits, end_logits = logits.split(1, dim=-1)
        start_logits = start_logits.squeeze(-1)
        end_logits = end_logits.squeeze(-1)

        if {start} is not None and {end} is not None:
            # If we are on multi-GPU, split add a dimension
            if len({start}.size()) > 1:
                {start} = {start}.squeeze(-1)
            if len({end}.size()) > 1:
                {end} = {end}.squeeze(-1)
            # sometimes the start/end positions are outside our model inputs, we ignore these terms
            ignored_index = start_logits.size(1)
            {start}.clamp_(0, ignored_index)
            {end}.clamp_(0, ignored_index)

            loss_fct = CrossEntropyLoss(ignore_index=ignored_index)
            start_loss = loss_fct(start_logits, {start}.long())
            end_loss = loss_fct(end_logits, {end}.long())
            total_loss = (start_loss + end_loss) / 2
            return total_loss
        else:
            return start_logits, end_logits
"""


def test_clamping_the_answer_span_labels_in_place_is_quiet(tmp_path):
    source = QA_HEAD.format(start="start_positions", end="end_positions")
    assert _findings(source) == []
    run = source + (
        "\nmodel = BertForQuestionAnswering()\n"
        "starts, ends = torch.tensor([1, 9]), torch.tensor([2, 12])\n"
        "model(torch.randn(2, 5, 8), starts, ends).backward()\n"
        "assert starts.tolist() == [1, 5] and ends.tolist() == [2, 5]\n"
    )
    assert _run(tmp_path, run) is None


def test_clamping_a_float_argument_in_place_is_flagged(tmp_path):
    """The twin: the same edit of tensors the caller hands over as values, here a leaf
    that requires grad (torch 2.13 raises)."""
    source = QA_HEAD.format(start="start_scores", end="end_scores")
    assert [code for _, code in _findings(source)] == ["GL104", "GL104"]
    run = source + (
        "\nmodel = BertForQuestionAnswering()\n"
        "starts = torch.tensor([1.0, 9.0], requires_grad=True)\n"
        "model(torch.randn(2, 5, 8), starts, torch.tensor([2.0, 12.0])).backward()\n"
    )
    error = _run(tmp_path, run)
    assert error is not None and "leaf Variable that requires grad" in str(error)


# A plain list of stateless torch layers (qfgaohao/pytorch-ssd vision/ssd/fpn_ssd.py
# @7a839cb: nn.Upsample, known since the generated knowledge builds it from a sample) ---

FPN_UPSAMPLERS = """\
import torch
import torch.nn as nn


class FPNSSD(nn.Module):
    def __init__(self):
        super(FPNSSD, self).__init__()
        self.base_net = nn.ModuleList([nn.Conv2d(3, 4, 3, padding=1), nn.Conv2d(4, 4, 3, 2, 1)])
        self.upsamplers = [
            {first},
            nn.Upsample(size=(10, 10), mode='bilinear'),
        ]

    def forward(self, x):
        features = []
        for layer in self.base_net:
            x = layer(x)
            features.append(x)
        return self.upsamplers[0](features[-1]) + features[0]


model = FPNSSD()
names = [name for name, _ in model.named_parameters()]
"""


def test_plain_list_of_upsample_layers_is_quiet(tmp_path):
    source = FPN_UPSAMPLERS.format(first="nn.Upsample(size=(20, 20), mode='bilinear')")
    assert _findings(source) == []
    run = source + (
        "registered = nn.ModuleList(model.upsamplers)\n"
        "assert list(registered.parameters()) == [] and registered.state_dict() == {}\n"
        "assert model(torch.randn(1, 3, 20, 20)).shape == (1, 4, 20, 20)\n"
    )
    assert _run(tmp_path, run) is None


def test_plain_list_holding_a_conv_is_flagged(tmp_path):
    source = FPN_UPSAMPLERS.format(first="nn.Conv2d(4, 4, 1)")
    assert [code for _, code in _findings(source)] == ["GL502"]
    run = source + "assert len(names) == 4, names  # the list's Conv2d is not among them\n"
    assert _run(tmp_path, run) is None


# 21. a dropout's output is its input only for p == 0 or training=False ----------------
# CorentinJ/Real-Time-Voice-Cloning synthesizer/models/tacotron.py (issue 31, batch 13):
# the encoder transposes the prenet's output in place; the prenet ends in a ReLU and a
# dropout of p=hparams.tts_dropout (0.5), which computes a new tensor.

TACOTRON_PRENET = """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class PreNet(nn.Module):
    def __init__(self, in_dims, fc1_dims=256, fc2_dims=128, dropout=0.5):
        super().__init__()
        self.fc1 = nn.Linear(in_dims, fc1_dims)
        self.fc2 = nn.Linear(fc1_dims, fc2_dims)
        self.p = dropout

    def forward(self, x):
        x = self.fc1(x)
        x = F.relu(x)
        x = F.dropout(x, self.p, training=True)
        x = self.fc2(x)
        x = F.relu(x)
        {last}
        return x


class Encoder(nn.Module):
    def __init__(self, embed_dims, num_chars, encoder_dims, dropout):
        super().__init__()
        self.embedding = nn.Embedding(num_chars, embed_dims)
        self.pre_net = PreNet(embed_dims, fc1_dims=encoder_dims, fc2_dims=encoder_dims,
                              dropout=dropout)

    def forward(self, x):
        x = self.embedding(x)
        x = self.pre_net(x)
        x.transpose_(1, 2)
        return x


encoder = Encoder(8, 10, 16, dropout=0.5)
encoder(torch.randint(0, 10, (2, 5))).sum().backward()
"""


def test_in_place_edit_after_a_dropout_of_unknown_p_is_quiet(tmp_path):
    source = TACOTRON_PRENET.format(last="x = F.dropout(x, self.p, training=True)")
    assert _findings(source) == []
    assert _run(tmp_path, source) is None


def test_in_place_edit_of_the_saved_relu_output_is_flagged(tmp_path):
    source = TACOTRON_PRENET.format(last="pass")
    assert [code for _, code in _findings(source)] == ["GL103"]
    assert "modified by an inplace operation" in str(_run(tmp_path, source))


# 22. a method call on `.data` that returns a new tensor ends the write through `.data` ---
# JavierAntoran/Bayesian-Neural-Networks src/Bayes_By_Backprop/model.py (issue 31, batch
# 13): the noise of the reparametrisation is drawn into `W_mu.data.new(size)`, a new
# tensor of W_mu's dtype and device; W_mu itself is not written.

BAYES_BY_BACKPROP = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable


class BayesLinear_Normalq(nn.Module):
    def __init__(self, n_in, n_out):
        super(BayesLinear_Normalq, self).__init__()
        self.n_in = n_in
        self.n_out = n_out
        self.W_mu = nn.Parameter(torch.Tensor(self.n_in, self.n_out).uniform_(-0.1, 0.1))
        self.W_p = nn.Parameter(torch.Tensor(self.n_in, self.n_out).uniform_(-3, -2))

    def forward(self, X, sample=False):
        if not self.training and not sample:
            return torch.mm(X, self.W_mu), 0, 0
        else:
            eps_W = Variable({noise}.normal_())
            std_w = 1e-6 + F.softplus(self.W_p, beta=1, threshold=20)
            W = self.W_mu + 1 * std_w * eps_W
            return torch.mm(X, W), 0, 0


layer = BayesLinear_Normalq(4, 3)
before = layer.W_mu.detach().clone()
layer(torch.randn(2, 4))
changed = not torch.equal(before, layer.W_mu.detach())
"""


def test_noise_drawn_into_data_new_is_quiet(tmp_path):
    source = BAYES_BY_BACKPROP.format(noise="self.W_mu.data.new(self.W_mu.size())")
    assert _findings(source) == []
    assert _run(tmp_path, source + "assert not changed\n") is None


def test_noise_drawn_into_a_view_of_data_is_flagged(tmp_path):
    source = BAYES_BY_BACKPROP.format(noise="self.W_mu.data.view(self.n_in, self.n_out)")
    assert [code for _, code in _findings(source)] == ["GL102"]
    assert _run(tmp_path, source + "assert changed\n") is None


# 23. a detached term whose parameters another backward trains -------------------------
# MrSyee/pg-is-all-you-need 05.SAC.ipynb (issue 31, batch 13): the actor's advantage
# subtracts the value network's prediction detached; the value network is trained by its
# own loss, backpropagated in the same update.

SAC_UPDATE = """\
import torch
import torch.nn as nn
import torch.nn.functional as F

actor = nn.Linear(4, 1)
vf = nn.Linear(4, 1)
qf_1 = nn.Linear(5, 1)
actor_optimizer = torch.optim.Adam(actor.parameters(), lr=3e-4)
vf_optimizer = torch.optim.Adam(vf.parameters(), lr=3e-4)

state = torch.randn(8, 4)
new_action = torch.tanh(actor(state))
log_prob = -new_action.pow(2).sum(-1, keepdim=True)
v_pred = vf(state)
q_pred = qf_1(torch.cat([state, new_action], 1))
v_target = q_pred - 0.2 * log_prob
vf_loss = F.mse_loss(v_pred, v_target.detach())

advantage = q_pred - v_pred.detach()
actor_loss = (0.2 * log_prob - advantage).mean()
actor_optimizer.zero_grad()
actor_loss.backward()
actor_optimizer.step()

vf_optimizer.zero_grad()
{train_v}
vf_optimizer.step()
trained = vf.weight.grad is not None
"""


def test_detached_baseline_of_a_value_network_trained_by_its_own_loss_is_quiet(tmp_path):
    source = SAC_UPDATE.format(train_v="vf_loss.backward()")
    assert [code for _, code in _findings(source)] == []
    assert _run(tmp_path, source + "assert trained\n") is None


def test_detached_term_whose_parameters_nothing_trains_is_flagged(tmp_path):
    source = SAC_UPDATE.format(train_v="pass")
    assert [code for _, code in _findings(source)] == ["GL202"]
    assert _run(tmp_path, source + "assert not trained\n") is None


# An NCE Function writing the positive index into the sampled index tensor it is given
# (zhirongw/lemniscate.pytorch lib/NCEAverage.py @f7cfe29): an integer tensor, which no
# gradient reaches (torch refuses requires_grad on it), drawn for this call only ----------

NCE_AVERAGE = """\
import torch
import torch.nn as nn
from torch.autograd import Function


class NCEFunction(Function):
    @staticmethod
    def forward(self, x, y, memory, idx):
        {edit}
        weight = torch.index_select(memory, 0, idx.view(-1)).view(x.size(0), -1, x.size(1))
        self.save_for_backward(weight)
        return torch.bmm(weight, x.unsqueeze(2)).squeeze(2)

    @staticmethod
    def backward(self, grad_output):
        (weight,) = self.saved_tensors
        return torch.bmm(grad_output.unsqueeze(1), weight).squeeze(1), None, None, None


class NCEAverage(nn.Module):
    def __init__(self, input_size, output_size, k):
        super(NCEAverage, self).__init__()
        self.k = k
        self.register_buffer("memory", torch.randn(output_size, input_size))

    def forward(self, x, y):
        idx = torch.randint(self.memory.size(0), (x.size(0), self.k + 1))
        return NCEFunction.apply(x, y, self.memory, idx)


lemniscate = NCEAverage(3, 10, 4)
features = torch.randn(2, 3, requires_grad=True)
kept = features.detach().clone()
lemniscate(features, torch.tensor([1, 7])).sum().backward()
assert torch.equal(features.detach(), kept), "the features changed"
"""


def test_a_function_filling_its_sampled_index_tensor_is_quiet(tmp_path):
    source = NCE_AVERAGE.format(edit="idx.select(1, 0).copy_(y.data)")
    assert _findings(source) == []
    assert _run(tmp_path, source) is None


def test_a_function_editing_the_features_it_is_given_is_flagged(tmp_path):
    """The twin: the same Function writes into its float input, the caller's features."""
    source = NCE_AVERAGE.format(edit="x.select(1, 0).copy_(y.data)")
    assert [code for _, code in _findings(source)] == ["GL104"]
    assert isinstance(_run(tmp_path, source), AssertionError)


# 24. a write through `.data` into parameters no pending backward reaches ---------------
# MrSyee/pg-is-all-you-need 05.SAC.ipynb (issue 31, batch 13): the target value network's
# soft update runs after its forward and before the Q losses' backward; those losses take
# the target detached, so no backward goes through the target network's graph.

SAC_TARGET_UPDATE = """\
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
encoder = nn.Linear(4, 4)
vf = nn.Linear(4, 1)
vf_target = nn.Linear(4, 1)
qf_1 = nn.Linear(5, 1)
state, next_state = torch.randn(8, 4), torch.randn(8, 4)
action, reward = torch.randn(8, 1), torch.randn(8, 1)
q_1_pred = qf_1(torch.cat([encoder(state), action], 1))
v_target = vf_target(encoder(next_state))
q_target = reward + 0.99 * v_target
qf_1_loss = F.mse_loss(q_1_pred, {target})

if SOFT_UPDATE_FIRST:
    for t_param, l_param in zip(vf_target.parameters(), vf.parameters()):
        t_param.data.copy_(0.5 * l_param.data + (1.0 - 0.5) * t_param.data)

qf_1_loss.backward()
gradient = encoder.weight.grad.clone()
"""


def _encoder_gradient(source: str, soft_update_first: bool):
    namespace = {"SOFT_UPDATE_FIRST": soft_update_first}
    exec(compile(source, "<sac>", "exec"), namespace)
    return namespace["gradient"]


def test_soft_update_of_a_target_no_pending_backward_reaches_is_quiet():
    source = SAC_TARGET_UPDATE.format(target="q_target.detach()")
    assert _findings(source) == []
    assert torch.equal(_encoder_gradient(source, True), _encoder_gradient(source, False))


def test_soft_update_of_a_target_the_backward_goes_through_is_flagged():
    source = SAC_TARGET_UPDATE.format(target="q_target")
    assert [code for _, code in _findings(source)] == ["GL102"]
    assert not torch.equal(_encoder_gradient(source, True), _encoder_gradient(source, False))
