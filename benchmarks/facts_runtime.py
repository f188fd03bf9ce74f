"""The fact oracle's runtime side: runs programs under torch and records, after each
statement of the programs' own files, what the names it binds or edits hold.

    python benchmarks/facts_runtime.py MANIFEST.json OUT.jsonl

MANIFEST is a JSON list of programs, each `{"id", "run", "watch", "timeout"}` with `run`
one of `{"script": path}` (run whole as `__main__`), `{"timm": name}`,
`{"torchvision": name, "task": ...}`, `{"transformers": model_type}`. `watch`: the files
or folders whose statements are recorded (a program's own files). Each output line is one
observation: `{"program", "file", "line", "name", "count", "facts"}`, identical
observations of one program counted once with their number of executions. A line with
`"entry": function` holds what a call passed one argument of the function defined at
`line` (its first line, decorators included) as it started, counted alike.

This file imports torch and runs the programs: only the benchmark uses it (never the
linter, which reads code without running it).
"""

from __future__ import annotations

import ast
import io
import json
import os
import runpy
import signal
import sys
import tempfile
import traceback
from pathlib import Path

import torch

# A statement's targets: ("name", text) binds a name or dotted attribute, ("edit", text)
# changes the value a name holds (an item assignment, an in-place method).
_CO_GENERATOR = 0x20 | 0x100 | 0x200  # generator, coroutine, async generator


def statement_targets(source: str) -> tuple[dict, dict, dict]:
    """The first line of each simple statement (and `for` header) binding or editing names
    -> those names; each line of a statement -> its first line; each `for` header -> the
    lines of its body. Lines shared by two statements are left out (one line event cannot
    tell them apart)."""
    tree = ast.parse(source)
    targets: dict[int, list[str]] = {}
    shared: set[int] = set()
    lines_of: dict[int, int] = {}  # every line of a recorded statement -> its first line
    bodies: dict[int, tuple[int, int]] = {}  # a for header -> the lines of its body

    def claim(node: ast.AST, first: int, last: int, names: list[str]) -> None:
        for line in range(first, last + 1):
            if line in lines_of and lines_of[line] != node.lineno:
                shared.add(line)
            lines_of[line] = node.lineno
        if names:
            targets[node.lineno] = names

    for node in ast.walk(tree):
        if isinstance(node, ast.For | ast.While | ast.If | ast.With):
            header_end = node.body[0].lineno - 1 if node.body else node.lineno
            if header_end < node.lineno:  # a one-line block: `for x in y: f(x)`
                shared.add(node.lineno)
                continue
            names = _bound(node.target) if isinstance(node, ast.For) else []
            claim(node, node.lineno, header_end, _unique(names))
            if isinstance(node, ast.For):
                bodies[node.lineno] = (header_end + 1, node.body[-1].end_lineno or header_end)
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Expr):
            if isinstance(node, ast.AnnAssign) and node.value is None:
                continue
            names = []
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    names += _bound(target)
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                names += _bound(node.target)
            else:
                names += _edited(node.value)
            for inner in ast.walk(node):
                if isinstance(inner, ast.NamedExpr):
                    names += _bound(inner.target)
            claim(node, node.lineno, node.end_lineno or node.lineno, _unique(names))
        elif isinstance(node, ast.stmt) and not isinstance(
            node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Try
        ):
            claim(node, node.lineno, node.end_lineno or node.lineno, [])
    lines = {line: first for line, first in lines_of.items() if line not in shared}
    kept = {line: names for line, names in targets.items() if line not in shared}
    return kept, lines, bodies


def _unique(names: list[str]) -> list[str]:
    return list(dict.fromkeys(names))


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base is not None else None
    return None


def _bound(target: ast.AST) -> list[str]:
    if isinstance(target, ast.Tuple | ast.List):
        return [n for element in target.elts for n in _bound(element)]
    if isinstance(target, ast.Starred):
        return _bound(target.value)
    if isinstance(target, ast.Subscript):  # `x[i] = v` edits x
        base = _dotted(target.value)
        return [base] if base is not None else []
    name = _dotted(target)
    return [name] if name is not None else []


def _edited(expr: ast.AST) -> list[str]:
    """An expression statement `x.add_(1)` / `x.mul_(2).clamp_(0)` edits x."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        method = expr.func.attr
        receiver = expr.func.value
        if method.endswith("_") and not method.endswith("__"):
            if isinstance(receiver, ast.Call):
                expr = receiver
                continue
            name = _dotted(receiver)
            return [name] if name is not None else []
        return []
    return []


# -- facts of one value ----------------------------------------------------------------


def _dtype_class(dtype: torch.dtype) -> str:
    if dtype is torch.bool:
        return "bool"
    if dtype.is_floating_point:
        return "float"
    if dtype.is_complex:
        return "complex"
    return "int"


def _class_name(cls: type) -> str:
    module = cls.__module__ or ""
    if module.startswith("torch.nn.") and getattr(torch.nn, cls.__name__, None) is cls:
        return f"torch.nn.{cls.__name__}"
    return f"{module}.{cls.__qualname__}"


def value_facts(value) -> dict:
    """The runtime facts of one value (the `facts` of an observation)."""
    if isinstance(value, torch.Tensor):
        kind = "parameter" if isinstance(value, torch.nn.Parameter) else "tensor"
        grad = "off" if not value.requires_grad else "leaf" if value.is_leaf else "nonleaf"
        facts = {"kind": kind, "grad": grad, "dtype": _dtype_class(value.dtype)}
        try:
            facts["shape"] = list(value.shape)
            facts["contiguous"] = value.is_contiguous()
            facts["view"] = value._base is not None
        except Exception:  # nested / sparse tensors: no strided layout
            pass
        return facts
    if isinstance(value, torch.nn.Module):
        return {"kind": "module", "class": _class_name(type(value))}
    if isinstance(value, torch.optim.Optimizer):
        return {"kind": "optimizer", "class": _class_name(type(value))}
    if isinstance(value, bool):
        return {"kind": "bool"}
    if isinstance(value, int | float):
        return {"kind": "number"}
    if isinstance(value, list):
        return {"kind": "list", "length": len(value)}
    if isinstance(value, tuple):
        return {"kind": "tuple", "length": len(value)}
    if isinstance(value, dict):
        return {"kind": "dict"}
    if value is None:
        return {"kind": "none"}
    if isinstance(value, str):
        return {"kind": "str"}
    return {"kind": "other", "class": _class_name(type(value))}


_MISSING = object()


def _lookup(frame, name: str):
    first, *rest = name.split(".")
    scope = frame.f_locals
    value = scope.get(first, _MISSING)
    if value is _MISSING:
        value = frame.f_globals.get(first, _MISSING)
    for attr in rest:
        if value is _MISSING:
            break
        try:
            value = getattr(value, attr)
        except Exception:
            return _MISSING
    return value


# -- the tracer ------------------------------------------------------------------------


class Recorder:
    """A `sys.settrace` tracer over the watched files: after each statement, the facts of
    the names it binds or edits."""

    def __init__(self, watch: list[str]) -> None:
        self.files = {str(Path(p).resolve()) for p in watch if os.path.isfile(p)}
        self.folders = tuple(str(Path(p).resolve()) + os.sep for p in watch if os.path.isdir(p))
        self.targets: dict[str, tuple | None] = {}
        self.observations: dict[tuple, int] = {}
        self.executions = 0

    def _targets_of(self, filename: str) -> tuple | None:
        found = self.targets.get(filename, _MISSING)
        if found is not _MISSING:
            return found
        targets = None
        resolved = str(Path(filename).resolve()) if filename and filename[0] != "<" else ""
        if resolved in self.files or resolved.startswith(self.folders):
            try:
                targets = statement_targets(Path(resolved).read_text(encoding="utf-8"))
            except (OSError, SyntaxError, ValueError):
                targets = None
        self.targets[filename] = targets
        return targets

    def global_trace(self, frame, event, arg):
        found = self._targets_of(frame.f_code.co_filename)
        if found is None:
            return None
        return self._frame_tracer(frame, *found)

    def _frame_tracer(self, frame, targets: dict, lines: dict, bodies: dict):
        current = [None]  # the line of the statement under way, None after an exception
        code = frame.f_code
        arguments = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        none_args = sorted(n for n in arguments if frame.f_locals.get(n, 0) is None)
        generator = bool(frame.f_code.co_flags & _CO_GENERATOR)
        inner = frame.f_code.co_name.startswith("<") and frame.f_code.co_name != "<module>"
        filename = frame.f_code.co_filename
        if not (generator or inner):  # a generator's frame starts anew at each resumption
            self._record_entry(frame, filename, arguments)

        def trace(frame, event, arg):
            if event == "line":
                statement = lines.get(frame.f_lineno)
                if statement is not None and statement == current[0]:
                    return trace
                done = current[0]
                current[0] = statement if statement in targets else None
                body = bodies.get(done)
                if body is not None and not body[0] <= frame.f_lineno <= body[1]:
                    done = None  # the loop ended: its header bound nothing this time
                if done is not None:
                    self._record(frame, filename, done, targets[done], none_args)
            elif event == "exception":
                current[0] = None
            elif event == "return":
                done = current[0]
                current[0] = None
                if done is not None and done not in bodies and not generator and not inner:
                    self._record(frame, filename, done, targets[done], none_args)
            return trace

        return trace

    def _record(self, frame, filename: str, line: int, names: list[str], none_args) -> None:
        """The facts of `names` after the statement at `line`; `none_args`: the frame's
        arguments that were None on entry."""
        grad_mode = torch.is_grad_enabled()
        self.executions += 1
        for name in names:
            value = _lookup(frame, name)
            if value is _MISSING:
                continue
            try:
                facts = value_facts(value)
            except Exception:
                continue
            facts["grad_mode"] = grad_mode
            if none_args:
                facts["none_args"] = none_args
            key = (filename, line, name, json.dumps(facts, sort_keys=True))
            self.observations[key] = self.observations.get(key, 0) + 1

    def _record_entry(self, frame, filename: str, arguments) -> None:
        """What the call starting `frame` passed each argument, and its grad mode."""
        code = frame.f_code
        grad_mode = torch.is_grad_enabled()
        for name in arguments:
            value = frame.f_locals.get(name, _MISSING)
            if value is _MISSING:
                continue
            try:
                facts = value_facts(value)
            except Exception:
                continue
            facts["grad_mode"] = grad_mode
            key = (filename, code.co_firstlineno, name, json.dumps(facts, sort_keys=True))
            key += (code.co_name,)
            self.observations[key] = self.observations.get(key, 0) + 1

    def drain(self, program: str, out) -> int:
        for (filename, line, name, facts, *entry), count in self.observations.items():
            record = {"program": program, "file": filename, "line": line, "name": name}
            if entry:
                record["entry"] = entry[0]
            record["count"] = count
            record["facts"] = json.loads(facts)
            out.write(json.dumps(record) + "\n")
        written = len(self.observations)
        self.observations.clear()
        return written


class _TimedOut(BaseException):
    """A program ran past its time (BaseException: the program's own handlers miss it)."""


def _alarm(signum, frame):
    raise _TimedOut


# -- how each kind of program runs -----------------------------------------------------


def _run_script(path: str, argv: list[str], stub: str | None) -> None:
    folder = str(Path(path).resolve().parent)
    saved_argv, cwd, syspath = sys.argv, os.getcwd(), list(sys.path)
    modules = dict(sys.modules)
    sys.path.insert(0, folder)
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        filled = (a.replace("{scratch}", scratch).replace("{here}", folder) for a in argv)
        sys.argv = [path, *filled]
        try:
            if stub is not None:
                STUBS[stub](scratch)
            runpy.run_path(path, run_name="__main__")
        finally:
            sys.argv, sys.path[:] = saved_argv, syspath
            os.chdir(cwd)
            for name in set(sys.modules) - set(modules):  # the script's own modules
                if not name.startswith(("torch", "numpy", "PIL")):
                    del sys.modules[name]
            sys.modules.update(modules)


# -- data stubs: what a training script reads, made small and synthetic (its code unchanged)


def _mnist_stub(scratch: str) -> None:
    """torchvision's MNIST datasets as 100 random 28x28 images of 10 classes (and the
    results/ folder pytorch/examples' vae writes its images into, as in its checkout)."""
    import torchvision

    (Path(scratch) / "results").mkdir()

    def fake(root=None, train=True, download=False, transform=None, target_transform=None):
        return torchvision.datasets.FakeData(
            size=100,  # one batch of the tutorials' 100 (their reshape hard-codes it)
            image_size=(1, 28, 28),
            num_classes=10,
            transform=transform,
            target_transform=target_transform,
            random_offset=0 if train else 100,
        )

    torchvision.datasets.MNIST = fake
    torchvision.datasets.FashionMNIST = fake


class _CartPole:
    """A gymnasium environment of four observations and two actions, 30 steps long."""

    class spec:
        reward_threshold = 20.0

    def __init__(self) -> None:
        self.steps = 0

    def reset(self, seed=None):
        import numpy

        self.steps = 0
        return numpy.random.default_rng(seed).normal(size=4).astype("float32"), {}

    def step(self, action):
        import numpy

        self.steps += 1
        state = numpy.random.default_rng(self.steps).normal(size=4).astype("float32")
        return state, 1.0, self.steps >= 30, False, {}

    def render(self):
        return None


def _gym_stub(scratch: str) -> None:
    import types

    gym = types.ModuleType("gymnasium")
    gym.make = lambda name, **kwargs: _CartPole()
    sys.modules["gymnasium"] = sys.modules["gym"] = gym


def _text_stub(scratch: str) -> None:
    """A word-level corpus: train / valid / test of a few hundred words."""
    folder = Path(scratch) / "text"
    folder.mkdir()
    words = [
        "the",
        "cat",
        "sat",
        "on",
        "a",
        "mat",
        "while",
        "dogs",
        "ran",
        "in",
        "the",
        "park",
        "near",
        "old",
        "trees",
    ]
    for part, lines in (("train", 60), ("valid", 12), ("test", 12)):
        text = "\n".join(" ".join(words[i % 7 :] + words[: i % 7]) for i in range(lines))
        (folder / f"{part}.txt").write_text(text + "\n")


def _sine_stub(scratch: str) -> None:
    """time_sequence_prediction's traindata.pt (generate_sine_wave.py's recipe, smaller)."""
    import numpy

    rng = numpy.random.default_rng(2)
    x = numpy.arange(200)[None, :] + rng.integers(-80, 80, size=(12, 1))
    torch.save(numpy.sin(x / 20.0).astype("float64"), Path(scratch) / "traindata.pt")


def _cifar_stub(scratch: str) -> None:
    """torchvision's CIFAR-10 as 64 random 32x32 colour images of 10 classes."""
    import torchvision

    def fake(root=None, train=True, download=False, transform=None, target_transform=None):
        return torchvision.datasets.FakeData(
            size=64,
            image_size=(3, 32, 32),
            num_classes=10,
            transform=transform,
            target_transform=target_transform,
            random_offset=0 if train else 64,
        )

    torchvision.datasets.CIFAR10 = fake


def _words_stub(scratch: str) -> None:
    """pytorch-tutorial's language model corpus, data/train.txt: 1,200 words."""
    folder = Path(scratch) / "data"
    folder.mkdir()
    words = ["the", "cat", "sat", "on", "a", "mat", "while", "dogs", "ran", "in", "the"]
    lines = [" ".join(words[i % 7 :] + words[: i % 7]) for i in range(80)]
    (folder / "train.txt").write_text("\n".join(lines) + "\n")


def _shakespeare_stub(scratch: str) -> None:
    """nanoGPT's data/shakespeare_char (prepare.py's format: uint16 character ids in
    train.bin / val.bin, the vocabulary in meta.pkl), from a few repeated lines; train.py
    runs from its repository's root, reading configurator.py there (copied beside)."""
    import pickle
    import shutil

    import numpy

    shutil.copy(Path(sys.argv[0]).parent / "configurator.py", scratch)

    text = "First Citizen:\nBefore we proceed any further, hear me speak.\n" * 40
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    folder = Path(scratch) / "data" / "shakespeare_char"
    folder.mkdir(parents=True)
    ids = numpy.array([stoi[c] for c in text], dtype=numpy.uint16)
    ids[: len(ids) * 9 // 10].tofile(folder / "train.bin")
    ids[len(ids) * 9 // 10 :].tofile(folder / "val.bin")
    meta = {"vocab_size": len(chars), "itos": dict(enumerate(chars)), "stoi": stoi}
    (folder / "meta.pkl").write_bytes(pickle.dumps(meta))


def _cora_stub(scratch: str) -> None:
    """The Cora citation graph (cora/cora.content: id, binary features, label; cora.cites:
    pairs of ids) with 1,600 papers of 24 features in 7 classes, on disk and as the
    download `requests.get` gives (a .tgz stream)."""
    import tarfile
    import types

    import numpy

    rng = numpy.random.default_rng(3)
    folder = Path(scratch) / "cora"
    folder.mkdir()
    ids = rng.choice(100_000, size=1600, replace=False)
    labels = [f"Class_{k}" for k in rng.integers(0, 7, size=len(ids))]
    features = rng.integers(0, 2, size=(len(ids), 24))
    features[:, 0] = 1  # no paper without a word
    papers = zip(ids, features, labels, strict=True)
    rows = [" ".join([str(i), *map(str, f), c]) for i, f, c in papers]
    (folder / "cora.content").write_text("\n".join(rows) + "\n")
    pairs = rng.integers(0, len(ids), size=(4000, 2))
    (folder / "cora.cites").write_text("\n".join(f"{ids[a]} {ids[b]}" for a, b in pairs) + "\n")
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w:gz") as tgz:
        tgz.add(folder, arcname="cora")

    class Response:
        def __init__(self) -> None:
            self.raw = io.BytesIO(archive.getvalue())

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    requests = types.ModuleType("requests")
    requests.get = lambda url, **kwargs: Response()
    sys.modules["requests"] = requests


STUBS = {
    "mnist": _mnist_stub,
    "gym": _gym_stub,
    "text": _text_stub,
    "sine": _sine_stub,
    "cifar": _cifar_stub,
    "words": _words_stub,
    "shakespeare": _shakespeare_stub,
    "cora": _cora_stub,
}


def _backward(output) -> None:
    """Backward through the sum of every floating tensor the forward returned."""
    tensors = []

    def collect(value):
        if isinstance(value, torch.Tensor):
            if value.requires_grad and value.is_floating_point():
                tensors.append(value)
        elif isinstance(value, list | tuple):
            for item in value:
                collect(item)
        elif isinstance(value, dict):
            for item in value.values():
                collect(item)
        elif hasattr(value, "to_tuple"):  # transformers' ModelOutput
            collect(value.to_tuple())

    collect(output)
    if tensors:
        sum(t.float().sum() for t in tensors).backward()


_TIMM_TOO_BIG = ("huge", "large", "giant", "so400m", "_xl", "154", "deepseek", "gemma4", "qwen3")


def timm_models(per_family: int = 1) -> list[str]:
    """Up to `per_family` small architectures of each timm model file."""
    import timm
    from timm.models import _registry

    families: dict[str, list[str]] = {}
    for name in timm.list_models():
        if not any(big in name for big in _TIMM_TOO_BIG):
            families.setdefault(_registry._model_to_module[name], []).append(name)
    small = ("pico", "nano", "tiny", "small", "mobile", "lite", "18", "b0", "_s", "xs", "_t")
    chosen = []
    for _, names in sorted(families.items()):
        names.sort(key=lambda n: (not any(p in n for p in small), len(n), n))
        chosen += names[:per_family]
    return chosen


def _run_timm(name: str) -> None:
    import timm

    try:  # a small input where the architecture takes its size as an argument
        model = timm.create_model(name, pretrained=False, num_classes=4, img_size=64)
        height = width = 64
        channels = 3
    except Exception:
        model = timm.create_model(name, pretrained=False, num_classes=4)
        config = getattr(model, "pretrained_cfg", None) or {}
        channels, height, width = config.get("input_size") or (3, 64, 64)
        if not config.get("fixed_input_size", False):
            height, width = min(height, 64), min(width, 64)
    model.train()
    _backward(model(torch.randn(2, channels, height, width)))
    model.eval()
    with torch.no_grad():
        model(torch.randn(1, channels, height, width))


def _run_torchvision(name: str, task: str) -> None:
    import torchvision

    builders = {
        "classification": torchvision.models,
        "segmentation": torchvision.models.segmentation,
        "detection": torchvision.models.detection,
        "video": torchvision.models.video,
    }
    build = getattr(builders[task], name)
    if task == "detection":
        model = build(weights=None, weights_backbone=None, num_classes=3, min_size=64, max_size=96)
        images = [torch.rand(3, 64, 80), torch.rand(3, 72, 64)]
        boxes = torch.tensor([[4.0, 6.0, 30.0, 40.0]])
        targets = [{"boxes": boxes, "labels": torch.tensor([1])} for _ in images]
        if "keypoint" in name:
            for target in targets:
                target["keypoints"] = torch.tensor([[[10.0, 10.0, 1.0]] * 17])
        if "mask" in name:
            for image, target in zip(images, targets, strict=True):
                target["masks"] = torch.zeros(1, *image.shape[1:], dtype=torch.uint8)
        model.train()
        losses = model(images, targets)
        sum(losses.values()).backward()
        model.eval()
        with torch.no_grad():
            model(images)
        return
    kwargs = {"weights": None, "num_classes": 4}
    if task == "segmentation":
        kwargs["weights_backbone"] = None
        kwargs["aux_loss"] = False
    model = build(**kwargs)
    shape = (2, 3, 4, 32, 32) if task == "video" else (2, 3, 64, 64)
    if name.startswith("inception") or name.startswith("googlenet"):
        shape = (2, 3, 80, 80)
    model.train()
    _backward(model(torch.rand(*shape)))
    model.eval()
    with torch.no_grad():
        model(torch.rand(*shape))


def _run_transformers(model_type: str) -> None:
    import transformers

    small = {
        "hidden_size": 32,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "num_key_value_heads": 2,
        "intermediate_size": 37,
        "vocab_size": 99,
        "max_position_embeddings": 64,
        "d_model": 32,
        "encoder_layers": 2,
        "decoder_layers": 2,
        "encoder_attention_heads": 2,
        "decoder_attention_heads": 2,
        "encoder_ffn_dim": 37,
        "decoder_ffn_dim": 37,
        "n_embd": 32,
        "n_layer": 2,
        "n_head": 2,
        "n_positions": 64,
        "num_layers": 2,
        "num_heads": 2,
        "d_ff": 37,
        "d_kv": 16,
        "head_dim": 16,
    }
    config = transformers.AutoConfig.for_model(model_type)
    for key, value in small.items():
        if hasattr(config, key):
            setattr(config, key, value)
    model = transformers.AutoModel.from_config(config)
    ids = torch.randint(0, 99, (2, 8))
    inputs = {"input_ids": ids}
    if getattr(config, "is_encoder_decoder", False):
        inputs["decoder_input_ids"] = ids
    model.train()
    _backward(model(**inputs))
    model.eval()
    with torch.no_grad():
        model(**inputs)


def run_program(run: dict) -> None:
    if "script" in run:
        _run_script(run["script"], run.get("argv", []), run.get("stub"))
    elif "timm" in run:
        _run_timm(run["timm"])
    elif "torchvision" in run:
        _run_torchvision(run["torchvision"], run["task"])
    elif "transformers" in run:
        _run_transformers(run["transformers"])
    else:
        raise ValueError(f"unknown program kind: {run}")


def main() -> None:
    if sys.argv[1] == "--list-timm":
        print(json.dumps(timm_models(int(sys.argv[2]) if len(sys.argv) > 2 else 1)))
        return
    manifest_path, out_path = sys.argv[1], sys.argv[2]
    programs = json.loads(Path(manifest_path).read_text())
    torch.manual_seed(0)
    torch.set_num_threads(1)
    signal.signal(signal.SIGALRM, _alarm)
    with open(out_path, "w", encoding="utf-8") as out:
        for program in programs:
            recorder = Recorder(program["watch"])
            status = "ok"
            stdout, stderr = sys.stdout, sys.stderr
            sys.stdout = sys.stderr = io.StringIO()
            signal.alarm(int(program.get("timeout", 60)))
            sys.settrace(recorder.global_trace)
            try:
                run_program(program["run"])
            except _TimedOut:
                status = "timeout"
            except (Exception, SystemExit) as error:  # a program's own failure ends its run
                status = f"error: {type(error).__name__}: {str(error)[:200]}"
                if os.environ.get("FACTS_DEBUG"):
                    stderr.write(traceback.format_exc())
            finally:
                sys.settrace(None)
                signal.alarm(0)
                sys.stdout, sys.stderr = stdout, stderr
            torch.set_grad_enabled(True)
            written = recorder.drain(program["id"], out)
            summary = {"program": program["id"], "status": status, "observations": written}
            summary["executions"] = recorder.executions
            out.write(json.dumps({"summary": summary}) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
