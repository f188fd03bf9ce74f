"""Branches a class declares unreachable (gradlint/analysis/reachability.py): a branch
taken only while `self.gradient_checkpointing` is on, in a model class whose framework
(transformers' PreTrainedModel, diffusers' ModelMixin) refuses to switch checkpointing on
because the class leaves `supports_gradient_checkpointing` False. Findings there are not
reported; every twin the framework (or the file) can switch on stays flagged."""

import runpy
import textwrap
import warnings

from conftest import lint

# The real shape (transformers grounding_dino / mm_grounding_dino): a decoder that is
# itself a PreTrainedModel of the file, with a gradient-checkpointing branch calling the
# reentrant checkpoint, and a base that never sets supports_gradient_checkpointing.
DECODER = """\
import torch
from torch import nn

from ...modeling_utils import PreTrainedModel


class DinoPreTrainedModel(PreTrainedModel):
    base_model_prefix = "model"
{support}

class DinoDecoderLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.fc = nn.Linear(config.d_model, config.d_model)

    def forward(self, hidden_states, query_pos):
        return (self.fc(hidden_states + query_pos),)


class DinoDecoder(DinoPreTrainedModel):
    def __init__(self, config):
        super().__init__(config)
        self.layers = nn.ModuleList([DinoDecoderLayer(config) for _ in range(6)])
        self.gradient_checkpointing = False

    def forward(self, hidden_states, query_pos):
        for decoder_layer in self.layers:
            if self.gradient_checkpointing and self.training:
                layer_outputs = torch.utils.checkpoint.checkpoint(
                    decoder_layer, hidden_states, query_pos
                )
            else:
                layer_outputs = decoder_layer(hidden_states, query_pos)
            hidden_states = layer_outputs[0]
        return hidden_states


class DinoModel(DinoPreTrainedModel):
    def __init__(self, config):
        super().__init__(config)
        self.decoder = DinoDecoder(config)

    def forward(self, hidden_states, query_pos):
        return self.decoder(hidden_states, query_pos)
"""
PATH = "transformers/models/dino/modeling_dino.py"  # the package the relative import needs
CHECKPOINT_LINE = 29


def _findings(source: str, path: str = PATH) -> list[tuple[int, str]]:
    return sorted((d.line, d.code) for d in lint(source, path=path))


def _decoder(support: str = "", extra: str = "") -> str:
    return DECODER.format(support=support) + textwrap.dedent(extra)


def test_checkpointing_branch_of_a_model_that_does_not_support_it_is_quiet():
    assert _findings(_decoder()) == []


def test_same_branch_in_a_model_that_supports_checkpointing_is_flagged():
    source = _decoder("    supports_gradient_checkpointing = True")
    assert _findings(source) == [(CHECKPOINT_LINE, "GL205")]


def test_support_declared_false_in_the_files_base_and_inherited_is_quiet():
    source = _decoder("    supports_gradient_checkpointing = False")
    assert _findings(source) == []


def test_support_switched_on_by_a_subclass_of_a_false_base_is_flagged():
    source = _decoder("    supports_gradient_checkpointing = False").replace(
        "class DinoDecoder(DinoPreTrainedModel):\n",
        "class DinoDecoder(DinoPreTrainedModel):\n"
        "    supports_gradient_checkpointing: bool = True\n",
    )
    assert _findings(source) == [(CHECKPOINT_LINE + 1, "GL205")]


def test_support_declared_false_by_a_plain_module_base_of_the_file_is_quiet():
    source = _decoder().replace(
        "from ...modeling_utils import PreTrainedModel\n",
        "\n\nclass PreTrainedModel(nn.Module):\n    supports_gradient_checkpointing = False\n",
    )
    assert _findings(source, path="dino.py") == []


def test_base_imported_from_elsewhere_may_support_checkpointing_and_stays_flagged():
    source = _decoder().replace(
        "from ...modeling_utils import PreTrainedModel",
        "from ..bert.modeling_bert import BertPreTrainedModel as PreTrainedModel",
    )
    assert _findings(source) == [(CHECKPOINT_LINE, "GL205")]


def test_model_that_supports_checkpointing_holding_the_decoder_keeps_it_flagged():
    # gradient_checkpointing_enable() of the outer model sets the flag on every submodule
    # that has it (`self.modules()`), the unsupported decoder included
    source = _decoder(
        extra="""

        class DinoForDetection(PreTrainedModel):
            supports_gradient_checkpointing = True

            def __init__(self, config):
                super().__init__(config)
                self.model = DinoDecoder(config)
        """
    )
    assert _findings(source) == [(CHECKPOINT_LINE, "GL205")]


def test_flag_switched_on_by_hand_in_the_file_keeps_the_branch_flagged():
    source = _decoder(
        extra="""

        def build(config):
            model = DinoModel(config)
            model.decoder.gradient_checkpointing = True
            return model
        """
    )
    assert _findings(source) == [(CHECKPOINT_LINE, "GL205")]


def test_only_the_guarded_branch_is_unreachable():
    source = _decoder().replace(
        "layer_outputs = decoder_layer(hidden_states, query_pos)",
        "layer_outputs = torch.utils.checkpoint.checkpoint(\n"
        "                    decoder_layer, hidden_states, query_pos)",
    )
    assert _findings(source) == [(CHECKPOINT_LINE + 4, "GL205")]


def test_branch_that_needs_only_training_is_reachable():
    source = _decoder().replace("self.gradient_checkpointing and self.training", "self.training")
    assert _findings(source) == [(CHECKPOINT_LINE, "GL205")]


def test_conditional_expression_and_other_rules_in_the_branch_are_quiet_too():
    # a diffusers ModelMixin that does not support checkpointing, the flag tested second
    source = """\
    import torch
    import torch.nn as nn
    from diffusers.models.modeling_utils import ModelMixin


    class TinyUNet(ModelMixin):
        def __init__(self):
            super().__init__()
            self.block = nn.Linear(8, 8)
            self.gradient_checkpointing = False

        def forward(self, sample):
            if torch.is_grad_enabled() and self.gradient_checkpointing:
                self.block.weight.mul_(0.5)
                sample = torch.utils.checkpoint.checkpoint(self.block, sample)
            out = (
                torch.utils.checkpoint.checkpoint(self.block, sample)
                if self.gradient_checkpointing
                else self.block(sample)
            )
            return out
    """
    assert _findings(source, path="unet.py") == []
    supported = source.replace(
        "class TinyUNet(ModelMixin):\n",
        "class TinyUNet(ModelMixin):\n        _supports_gradient_checkpointing = True\n",
    )
    assert _findings(supported, path="unet.py") == [(15, "GL101"), (16, "GL205"), (18, "GL205")]


def test_the_flagged_twin_really_leaves_the_layers_untrained(tmp_path):
    """Run the supported twin in torch (a local stand-in for PreTrainedModel): with the flag
    on and query inputs that need no grad, the reentrant checkpoint returns an output that
    does not require grad and the decoder layers get no gradient."""
    source = _decoder("    supports_gradient_checkpointing = True").replace(
        "from ...modeling_utils import PreTrainedModel\n",
        "\n\nclass PreTrainedModel(nn.Module):\n"
        "    def __init__(self, config):\n        super().__init__()\n",
    )
    source += textwrap.dedent(
        """

        class Config:
            d_model = 4


        model = DinoModel(Config())
        model.train()
        model.decoder.gradient_checkpointing = True
        out = model(torch.randn(2, 4), torch.randn(2, 4))
        assert not out.requires_grad
        """
    )
    path = tmp_path / "twin.py"
    path.write_text(source)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runpy.run_path(str(path))
    # the same program is flagged (its by-hand switch alone would keep the branch reachable)
    assert "GL205" in {code for _, code in _findings(source, path="twin.py")}
