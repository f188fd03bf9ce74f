"""Generated programs for the fact oracle (benchmarks/facts.py): small training programs
mixing the idioms real code uses, each choice drawn from a seeded random generator.

Configs as classes, dicts, argparse Namespaces, dataclasses or SimpleNamespaces; layer
classes passed as arguments; Sequential built in loops and helpers; isinstance branches;
first-iteration branches; accumulators; hooks; `.eval()` / `.train()` / `.to()` chains;
closures; generators; subclasses of torch layers; views, chunks and in-place edits.
"""

from __future__ import annotations

import random
from pathlib import Path

CONFIGS = {
    "class": """\
class Config:
    width = {width}
    depth = {depth}
    classes = {classes}
    lr = 0.01


cfg = Config()
""",
    "dict": """\
settings = {{"width": {width}, "depth": {depth}, "classes": {classes}, "lr": 0.01}}
cfg = SimpleNamespace(**settings)
""",
    "argparse": """\
parser = argparse.ArgumentParser()
parser.add_argument("--width", type=int, default={width})
parser.add_argument("--depth", type=int, default={depth})
parser.add_argument("--classes", type=int, default={classes})
parser.add_argument("--lr", type=float, default=0.01)
cfg = parser.parse_args([])
""",
    "dataclass": """\
@dataclasses.dataclass
class Config:
    width: int = {width}
    depth: int = {depth}
    classes: int = {classes}
    lr: float = 0.01


cfg = Config()
""",
    "namespace": """\
cfg = SimpleNamespace(width={width}, depth={depth}, classes={classes}, lr=0.01)
""",
}

BLOCKS = {
    "helper": """\
def make_block(width, act={act}, norm={norm}):
    layers = [nn.Linear(width, width)]
    if norm is not None:
        layers.append(norm(width))
    layers.append(act())
    return nn.Sequential(*layers)
""",
    "loop": """\
def make_block(width, act={act}, norm={norm}):
    layers = []
    for index in range(2):
        layers += [nn.Linear(width, width), act()]
    if norm is not None:
        layers.insert(1, norm(width))
    return nn.Sequential(*layers)
""",
    "subclass": """\
class ScaledLinear(nn.Linear):
    def __init__(self, width, scale=0.5):
        super().__init__(width, width)
        self.scale = scale

    def forward(self, x):
        out = super().forward(x)
        return out * self.scale


def make_block(width, act={act}, norm={norm}):
    block = nn.Sequential(ScaledLinear(width), act())
    return block
""",
    "module": """\
class Block(nn.Module):
    def __init__(self, width, act={act}, norm={norm}):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.norm = norm(width) if norm is not None else nn.Identity()
        self.act = act()

    def forward(self, x):
        h = self.fc(x)
        h = self.norm(h)
        return self.act(h) + x


def make_block(width, act={act}, norm={norm}):
    return Block(width, act, norm)
""",
}

FORWARDS = {
    "plain": """\
    def forward(self, x):
        h = self.stem(x)
        for block in self.blocks:
            h = block(h)
        return self.head(h)
""",
    "chunk": """\
    def forward(self, x):
        h = self.stem(x)
        for block in self.blocks:
            h = block(h)
        left, right = h.chunk(2, dim=-1)
        h = torch.cat([right, left], dim=-1)
        return self.head(h)
""",
    "views": """\
    def forward(self, x):
        batch = x.shape[0]
        h = self.stem(x)
        h = h.view(batch, 2, -1).transpose(1, 2).contiguous().view(batch, -1)
        for block in self.blocks:
            h = block(h)
        return self.head(h)
""",
    "collect": """\
    def forward(self, x):
        h = self.stem(x)
        outs = []
        for index, block in enumerate(self.blocks):
            h = block(h)
            if index == 0:
                first = h
            outs.append(h)
        stacked = torch.stack(outs, dim=0)
        h = stacked.mean(dim=0) + first
        return self.head(h)
""",
}

LOOPS = {
    "plain": """\
for step in range(3):
    x = torch.randn({batch}, cfg.width)
    y = torch.randint(0, cfg.classes, ({batch},))
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    total += loss.item()
""",
    "generator": """\
def batches(count, batch={batch}):
    for index in range(count):
        x = torch.randn(batch, cfg.width)
        y = torch.randint(0, cfg.classes, (batch,))
        yield x, y


for step, (x, y) in enumerate(batches(3)):
    logits = model(x)
    loss = criterion(logits, y)
    if step == 0:
        first_loss = loss.detach()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    total = total + loss.item()
""",
    "closure": """\
def make_step(model, optimizer, weight):
    def step_fn(x, y):
        logits = model(x)
        loss = F.cross_entropy(logits, y) * weight
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss.detach()

    return step_fn


train_step = make_step(model, optimizer, 0.5)
history = []
for step in range(3):
    x = torch.randn({batch}, cfg.width)
    y = torch.randint(0, cfg.classes, ({batch},))
    loss = train_step(x, y)
    history.append(loss)
    total += float(loss)
""",
    "accumulate": """\
accumulation = 2
optimizer.zero_grad()
for step in range(4):
    x = torch.randn({batch}, cfg.width)
    y = torch.randint(0, cfg.classes, ({batch},))
    logits = model(x)
    loss = criterion(logits, y) / accumulation
    loss.backward()
    if (step + 1) % accumulation == 0:
        optimizer.step()
        optimizer.zero_grad()
    total += loss.item() * accumulation
""",
}

EXTRAS = {
    "hook": """\
captured = []


def keep_output(module, inputs, output):
    captured.append(output.detach())


handle = model.head.register_forward_hook(keep_output)
""",
    "init": """\
for module in model.modules():
    if isinstance(module, nn.Linear):
        nn.init.zeros_(module.bias)
    elif isinstance(module, (nn.BatchNorm1d, nn.LayerNorm)):
        nn.init.ones_(module.weight)
""",
    "freeze": """\
for name, parameter in model.named_parameters():
    if name.startswith("stem"):
        parameter.requires_grad_(False)
trainable = [p for p in model.parameters() if p.requires_grad]
""",
    "ema": """\
ema = {name: p.detach().clone() for name, p in model.named_parameters()}
""",
}

EVALS = {
    "no_grad": """\
model.eval()
with torch.no_grad():
    x = torch.randn({batch}, cfg.width)
    logits = model(x)
    probs = logits.softmax(dim=-1)
    predicted = probs.argmax(dim=-1)
    accuracy = (predicted == 0).float().mean().item()
""",
    "inference": """\
model = model.eval()
with torch.inference_mode():
    x = torch.randn({batch}, cfg.width)
    scores = model(x)
    top = scores.topk(2, dim=-1).indices
""",
    "detach": """\
model.train(False)
x = torch.randn({batch}, cfg.width)
features = model.stem(x).detach()
norms = features.norm(dim=1, keepdim=True)
normalised = features / norms.clamp(min=1e-6)
normalised.mul_(2.0)
""",
}

HEADER = """\
import argparse
import dataclasses
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed({seed})

"""

MODEL = """\
class Net(nn.Module):
    def __init__(self, cfg, block=make_block):
        super().__init__()
        self.stem = nn.Linear(cfg.width, cfg.width)
        self.blocks = nn.ModuleList([block(cfg.width) for _ in range(cfg.depth)])
        self.head = nn.Linear(cfg.width, cfg.classes)

{forward}

model = Net(cfg){chain}
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.{optimizer}(model.parameters(), lr=cfg.lr)
total = 0.0
"""


def program(seed: int) -> str:
    """One generated program (the same for the same seed)."""
    rng = random.Random(seed)
    sizes = {
        "width": rng.choice([4, 6, 8, 12]),
        "depth": rng.choice([1, 2, 3]),
        "classes": rng.choice([2, 3, 5]),
        "act": rng.choice(["nn.ReLU", "nn.GELU", "nn.Tanh", "nn.SiLU"]),
        "norm": rng.choice(["None", "nn.LayerNorm", "nn.BatchNorm1d"]),
        "batch": rng.choice([2, 4, 5]),
        "seed": seed,
    }
    parts = [HEADER.format(**sizes)]
    parts.append(rng.choice(list(CONFIGS.values())).format(**sizes))
    parts.append("\n" + rng.choice(list(BLOCKS.values())).format(**sizes))
    chain = rng.choice(["", ".to('cpu')", ".train()", ".to(torch.float32).train()", ".float()"])
    optimizer = rng.choice(["SGD", "Adam", "AdamW"])
    forward = rng.choice(list(FORWARDS.values()))
    parts.append("\n\n" + MODEL.format(forward=forward, chain=chain, optimizer=optimizer))
    for extra in rng.sample(list(EXTRAS.values()), rng.randint(0, 2)):
        parts.append(extra)
    parts.append(rng.choice(list(LOOPS.values())).format(**sizes))
    parts.append(rng.choice(list(EVALS.values())).format(**sizes))
    return "\n".join(parts)


def write(folder: Path, count: int) -> list[Path]:
    """Writes `count` programs into `folder` (kept when already there)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for seed in range(count):
        path = folder / f"generated_{seed:04d}.py"
        text = program(seed)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        paths.append(path)
    return paths
