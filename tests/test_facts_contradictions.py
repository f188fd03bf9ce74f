"""The fact oracle's contradictions, each as the smallest program showing it: torch runs the
program (benchmarks/facts_runtime.py, one child process for all of them) and every fact
the interpreter states of it must hold (a fact it cannot prove it leaves unknown).
Each program names the real code it was reduced from."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


facts = _load("facts")

PROGRAMS = {
    # a freeze over a set of modules the interpreter cannot list (`to_freeze = set()`,
    # `.add(m)` / `.discard(m)`): the parameters of the model's modules are not proven to
    # require grad (gt-pyg#112, batch 8: `h = self.node_emb(x)` was stated to need grad)
    "freeze_over_a_set_of_modules": """\
        import torch
        import torch.nn as nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Linear(3, 4)
                self.head = nn.Linear(4, 1)

            def freeze(self, exclude):
                to_freeze = set()
                for m in [self.emb, self.head]:
                    to_freeze.add(m)
                to_freeze.discard(exclude)
                for module in list(to_freeze):
                    for param in module.parameters():
                        param.requires_grad = False

            def forward(self, x):
                h = self.emb(x)
                return self.head(h)


        net = Net()
        net.freeze(exclude=net.head)
        out = net(torch.randn(2, 3))
        out.sum().backward()
        """,
    # `losses[i] += loss` of a list of numbers makes that item the tensor `0 + loss`
    # (dragen1860's MAML, tests/corpus: `losses_q[-1] / task_num` was stated a number)
    "number_item_augmented_by_a_tensor": """\
        import torch

        w = torch.randn(3, requires_grad=True)
        losses = [0 for _ in range(3)]
        for k in range(2):
            loss = (w * 2).sum()
            losses[k + 1] += loss
        total = losses[-1] / 4
        first = losses[0]
        total.backward()
        """,
    # an operator of values used as tensors, none proven one, is no proven tensor: numpy
    # arrays read from a list of dicts (truxify's MAML task sampler, batch 7)
    "operator_of_numpy_arrays": """\
        import numpy as np
        import torch


        class Sampler:
            def __init__(self):
                self.tasks = [{"weights": np.random.randn(3, 1)} for _ in range(4)]

            def sample(self):
                w = np.random.choice(self.tasks)["weights"]
                x = np.random.randn(5, 3)
                y = x @ w + np.random.randn(5, 1) * 0.1
                return torch.from_numpy(x), torch.from_numpy(y)


        print(Sampler().sample()[1].shape)
        """,
    # `.type(dtype)` of a leaf that requires grad copies it into a non-leaf when the dtype
    # differs (fizbuz's weights, batch 7): with the dtype held in a variable, its grad
    # status is not stated
    "type_cast_of_a_leaf": """\
        import torch

        dtype = torch.DoubleTensor
        w1 = torch.randn(3, 4, requires_grad=True).type(dtype)
        print(w1.is_leaf)
        """,
    # an einsum that only permutes returns a view (tests/corpus's cnn_names_init report,
    # its forward run with the contiguous input its call passed): the layout an equation
    # spells is not stated contiguous
    "einsum_permuting_its_input": """\
        import torch
        from torch import nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.cnn = nn.Conv1d(4, 8, 3, padding=1)

            def forward(self, x):
                out = torch.einsum("lbv->bvl", x)
                out = self.cnn(out)
                return out


        print(Net()(torch.randn(6, 2, 4)).shape)
        """,
    # `torch.where(condition)` returns a tuple of index tensors (torchvision's
    # Matcher.set_low_quality_matches_, run with the tensors its calls passed): a torch
    # function the op facts do not cover is no tensor when an overload taking that many
    # arguments returns several (the generated `tuple_overloads`)
    "where_of_one_argument": """\
        import torch


        class Matcher:
            def low_quality(self, quality):
                best, _ = quality.max(dim=1)
                pairs = torch.where(quality == best[:, None])
                chosen = torch.where(quality > 0.5, quality, 0.0)
                return pairs[1], chosen


        print(Matcher().low_quality(torch.rand(3, 5)))
        """,
    # a mixin's method switching requires_grad (byol-a's set_trainable, issue 29 batch 5):
    # the instance a forward analysed on its own runs on may be frozen by it, so its
    # layers are no longer stated to require grad
    "frozen_by_a_mixin_method": """\
        import torch
        from torch import nn


        class NetworkCommonMixIn():
            def set_trainable(self, trainable=False):
                for p in self.parameters():
                    if p.requires_grad:
                        p.requires_grad = trainable


        class Encoder(nn.Module, NetworkCommonMixIn):
            def __init__(self):
                super().__init__()
                self.features = nn.Sequential(nn.Linear(4, 4), nn.ReLU())

            def forward(self, x):
                x = self.features(x)
                return x


        class Pooled(Encoder):
            def forward(self, x):
                x = super().forward(x)
                return x.mean(dim=1)


        class TaskNetwork(nn.Module):
            def __init__(self, encoder):
                super().__init__()
                self.encoder = encoder
                self.head = nn.Linear(1, 2)

            def forward(self, x):
                return self.head(self.encoder(x).unsqueeze(1))


        encoder = Pooled()
        net = TaskNetwork(encoder)
        encoder.set_trainable(False)
        out = net(torch.randn(2, 4))
        encoder.set_trainable(True)
        out = net(torch.randn(2, 4))
    """,
    # torch.utils.data objects are Python objects, not tensors (a TensorDataset standing
    # for CIFAR10 and its DataLoader, batch 5 of issue 29's dcgan report), and an instance
    # of a class deriving from dict is a dict (an EasyDict-like config: cdpn's Cfg)
    "data_objects_and_dict_configs": """\
        import torch
        import torch.utils.data


        class Cfg(dict):
            __getattr__ = dict.__getitem__


        cfg = Cfg(lr=0.1, epochs=1)
        dataset = torch.utils.data.TensorDataset(torch.rand(8, 3), torch.zeros(8))
        dataloader = torch.utils.data.DataLoader(dataset, batch_size=4, shuffle=True)
        trainset, valset = torch.utils.data.random_split(dataset, [6, 2])
        for i, data in enumerate(dataloader, 0):
            inputs = data[0]
    """,
    # a parameter frozen on its own (`self.embed.weight.requires_grad_(False)`, qwen-vl,
    # checkpoint_frozen_embedding) and parameters frozen by name under an `if` in a
    # named_parameters() loop (the generated corpus): no longer stated leaf / non-leaf
    "frozen_by_name": """\
        import torch
        import torch.nn as nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.stem = nn.Linear(4, 4)
                self.head = nn.Linear(4, 2)
                self.head.weight.requires_grad_(False)

            def forward(self, x):
                h = self.stem(x)
                out = self.head(h)
                return out


        model = Net()
        for name, parameter in model.named_parameters():
            if name.startswith("stem"):
                parameter.requires_grad_(False)
        x = torch.randn(3, 4)
        h = model.stem(x)
        w = model.head.weight
        out = model(x)
        """,
    # a dtype held in a variable (timm beit's relative_position_index: int, not float)
    "dtype_from_a_variable": """\
        import torch

        coords = torch.arange(4).view(2, 2)
        index = torch.zeros(size=(3, 3), dtype=coords.dtype)
        index[1:, 1:] = coords
        doubles = torch.zeros(2, dtype=float)
        """,
    # a layer built on one arm of an undecided `if` and another on the other
    # (pytorch/examples' word_language_model: an LSTM or an nn.RNN): neither is stated
    "attribute_set_on_both_arms": """\
        import torch
        import torch.nn as nn


        class RNNModel(nn.Module):
            def __init__(self, rnn_type, width):
                super().__init__()
                if rnn_type in ["LSTM", "GRU"]:
                    self.rnn = getattr(nn, rnn_type)(width, width)
                else:
                    self.rnn = nn.RNN(width, width)

            def forward(self, x, hidden):
                output, hidden = self.rnn(x, hidden)
                return output, hidden


        model = RNNModel("LSTM" if len(__name__) > 3 else "RNN", 4)
        hidden = (torch.zeros(1, 2, 4), torch.zeros(1, 2, 4))
        output, hidden = model(torch.randn(3, 2, 4), hidden)
        """,
    # a helper returning a layer on each arm, one of them unknown (timm byobnet's
    # create_shortcut): the call is unknown, not the last arm's nn.Identity
    "a_return_unknown_on_one_arm": """\
        import torch.nn as nn


        def make_shortcut(kind, width, layers):
            if not kind:
                return None
            elif kind == "avg":
                return nn.AvgPool1d(1)
            elif kind == "conv":
                return layers(width, width)
            else:
                return nn.Identity()


        class Block(nn.Module):
            def __init__(self, kind, width, layers):
                super().__init__()
                self.shortcut = make_shortcut(kind, width, layers)


        block = globals()["Block"]("conv", 4, nn.Linear)
        """,
    # `targets is not None` of a forward() argument (torchvision's GeneralizedRCNNTransform,
    # run without targets): the function run on its own takes the argument as given, so
    # what it states holds for calls passing it; torch ran it None (not compared)
    "forward_argument_may_be_none": """\
        from typing import Optional

        import torch
        import torch.nn as nn


        class Transform(nn.Module):
            def forward(self, images: list[torch.Tensor], targets: Optional[list[dict]] = None):
                if targets is not None:
                    copied: list[dict] = []
                    for t in targets:
                        data: dict = {}
                        for k, v in t.items():
                            data[k] = v
                        copied.append(data)
                    targets = copied
                for i in range(len(images)):
                    target_index = targets[i] if targets is not None else None
                return images


        globals()["Transform"]()([torch.zeros(2)])
        """,
    # views returned in a tuple: `tensor_split`, and `split` of a value not known to be
    # a tensor (timm res2net's `torch.split(out, self.width, 1)`)
    "views_in_a_tuple": """\
        import torch
        import torch.nn as nn


        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.width = 2

            def forward(self, out):
                spx = torch.split(out, self.width, 1)
                parts = torch.tensor_split(out, 2, 1)
                return spx, parts


        globals()["Block"]()(torch.randn(2, 4, 3, 3))
        a = torch.randn(2, 4)
        parts = torch.tensor_split(a, 2, 1)
        """,
    # contiguity: a chunk piece split into heads (a view with gaps), a forward()
    # argument kept as the shortcut (timm edgenext: a permuted tensor passed in)
    "views_and_arguments_not_stated_contiguous": """\
        import torch
        import torch.nn as nn

        x = torch.randn(2, 5, 8)
        q, k, v = (x @ torch.randn(8, 24)).chunk(3, dim=-1)
        q = q.reshape(2, 5, 2, 4)


        class Block(nn.Module):
            def forward(self, x):
                shortcut = x
                return shortcut + 1


        globals()["Block"]()(torch.randn(2, 3, 4, 5).permute(0, 2, 3, 1))
        """,
    # an index into a numpy array is an array, not a tensor (a DQN's replay memory)
    "numpy_array_indexed": """\
        import numpy as np

        memory = np.random.rand(8, 6)
        batch_memory = memory[np.random.choice(8, size=4)]
        """,
    # a module-level exec() rebinding configuration globals (nanoGPT's train.py runs
    # `exec(open('configurator.py').read())` over its defaults)
    "globals_rebound_by_exec": """\
        import torch

        batch_size = 12
        eval_iters = 200
        exec("batch_size = 4; eval_iters = 2")
        ix = torch.randint(10, (batch_size,))


        def estimate_loss():
            losses = torch.zeros(eval_iters)
            return losses


        estimate_loss()
        """,
    # a forward() argument unpacked into sizes (`B, H, W, C = x.shape`) is assumed dense
    # by the shape model, not proven contiguous (timm tiny_vit, samvit, csatv2 shortcuts)
    "unpacked_argument_not_stated_contiguous": """\
        import torch
        import torch.nn as nn


        class Block(nn.Module):
            def forward(self, x):
                B, H, W, C = x.shape
                shortcut = x
                y = x + 1
                return shortcut + y


        globals()["Block"]()(torch.randn(2, 3, 4, 5).permute(0, 2, 3, 1))
        """,
    # a base class's method run on its own where `self` is a subclass instance whose
    # `__init__` replaced a layer (timm sequencer: RNN2dBase's RNNIdentity, LSTM2d's LSTM)
    "attribute_replaced_by_a_subclass": """\
        import torch
        import torch.nn as nn


        class Identity2(nn.Module):
            def forward(self, x):
                return x, None


        class Base(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = Identity2()

            def forward(self, x):
                h, _ = self.rnn(x)
                return h


        class WithLSTM(Base):
            def __init__(self):
                super().__init__()
                self.rnn = nn.LSTM(4, 4, batch_first=True)


        globals()["WithLSTM"]()(torch.randn(2, 3, 4))
        """,
    # an item of a list written by index (detr's _max_by_axis: `maxes[index] = max(...)`
    # over the first image's sizes): the list no longer holds the first sizes
    "list_item_written_by_index": """\
        import torch


        def max_by_axis(the_list):
            maxes = the_list[0]
            for sublist in the_list[1:]:
                for index, item in enumerate(sublist):
                    maxes[index] = max(maxes[index], item)
            return maxes


        max_size = max_by_axis([list(t.shape) for t in [torch.rand(3, 6, 5), torch.rand(3, 4, 6)]])
        batch = torch.zeros([2] + max_size)
        """,
    # a decorator of the file wrapping the function in torch.inference_mode() (yolov5's
    # smart_inference_mode): grad mode inside is not the caller's
    "decorator_switching_grad_mode": """\
        import torch


        def smart_inference_mode():
            def decorate(fn):
                return torch.inference_mode()(fn)

            return decorate


        @smart_inference_mode()
        def run(x):
            y = x * 2
            total = y.sum()
            return total


        run(torch.ones(2, requires_grad=True))
        """,
    # requires_grad set on a tensor through another name (image2reverb's training_step
    # sets `spec.requires_grad = True` on the batch's tensor): later unpacking sees it
    "requires_grad_set_through_another_name": """\
        import torch


        def step(batch):
            spec, label = batch
            spec.requires_grad = True
            return spec * 2


        batch = (torch.randn(2, 3), torch.randn(2, 3))
        step(batch)
        spec, label = batch
        """,
    # requires_grad_ given a flag decided at run time (optuna issue 3855's freeze_layer,
    # `param.requires_grad_(not freeze)`): the parameters a later loop meets may be frozen
    "frozen_by_a_flag_decided_at_run_time": """\
        import torch
        from torch import nn


        def freeze(model, freeze=True):
            for name, layer in model.named_modules():
                if name.startswith("0"):
                    for param in layer.parameters():
                        param.requires_grad_(not freeze)
            return model


        model = freeze(nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2)))
        for name, param in model.named_parameters():
            print(name, param.requires_grad)
        """,
    # operators of numpy arrays (a meta-learning task sampler, Truxify#13118, issue 29
    # batch 7): `x @ w + b` of values not proven tensors is not stated a tensor
    "numpy_operators_not_tensors": """\
        import numpy as np
        import torch


        def sample_task(k_shot, w, b):
            support_x = np.random.randn(k_shot, 4)
            support_y = support_x @ w + b + np.random.randn(k_shot, 1) * 0.1
            return torch.tensor(support_x, dtype=torch.float32), torch.tensor(support_y)


        sample_task(5, np.random.randn(4, 1), np.random.randn(1))
        """,
}


@pytest.fixture(scope="module")
def tallies(tmp_path_factory) -> dict[str, facts.Tally]:
    """Each program run under torch and compared with what the interpreter states."""
    folder = tmp_path_factory.mktemp("contradicted")
    programs = []
    for name, source in PROGRAMS.items():
        path = folder / f"{name}.py"
        path.write_text(textwrap.dedent(source))
        program = facts._script(path)
        program["id"] = name
        programs.append(program)
    found = {name: facts.Tally() for name in PROGRAMS}
    records = [r for r in facts.run_programs(programs, Path(sys.executable), None) if "file" in r]
    # functions on their own with every argument unknown (the linter), and with what their
    # calls passed (facts.py's default)
    for static in (facts.Static(), facts.Static(facts.given_arguments(records))):
        for record in records:
            if "entry" not in record:
                facts.compare(record, static, found[record["program"]])
    return found


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_no_fact_stated_is_refuted_by_torch(name, tallies):
    tally = tallies[name]
    assert tally.observations >= 2  # the program ran to its end under the tracer
    assert [str(c) for c in tally.contradictions] == []
