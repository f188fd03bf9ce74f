"""The fact oracle: every fact the interpreter states, checked against torch running the
same code.

    python benchmarks/facts.py                      # every corpus it can run here
    python benchmarks/facts.py --corpus tests        # one corpus
    python benchmarks/facts.py --explain FILE:LINE   # why the facts of one line are unknown

Runs programs under torch (benchmarks/facts_runtime.py, in child processes: this process
never imports torch), which records after each statement of the programs' own files the
runtime facts of the names it binds or edits. The interpreter answers the same question
for the same file, line and name (gradlint/analysis/dataflow/recording.py), joined over
every context it ran the statement in. Prints, per corpus, how many runtime facts the
interpreter knew, every contradiction (a fact it stated that the execution refutes) and
the top causes of unknown, and ends with the figures line.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from gradlint import project
from gradlint.analysis.dataflow.recording import SATISFIES, StatementFacts

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = Path(__file__).resolve().parent / "facts_runtime.py"
BENCH_PYTHON = Path("/work/cache/oracle_venv/bin/python")
CAUSES_FILE = Path("/work/cache/oracle_causes.txt")
TENSOR_KINDS = frozenset({"tensor", "parameter"})
# what a runtime kind counts as known from (the stated kind naming exactly that kind)
KNOWN_AS = {
    "tensor": {"tensor"},
    "parameter": {"parameter"},
    "module": {"module"},
    "optimizer": {"optimizer"},
    "number": {"number"},
    "bool": {"bool"},
    "none": {"none"},
    "str": {"str"},
    "list": {"sequence"},
    "tuple": {"sequence"},
    "dict": {"mapping"},
    "other": {"object"},
}


# -- the interpreter's side ------------------------------------------------------------------


class Static:
    """The interpreter's statements, one file at a time (cached for the run); `given`: by
    file, the arguments every call of a function passed at run time (`given_arguments`),
    which its run on its own starts with (None: every argument unknown, as the linter
    reads a file whose callers are elsewhere)."""

    def __init__(self, given: dict[str, dict] | None = None) -> None:
        self._files: dict[str, StatementFacts | str] = {}
        self.given = given

    def of(self, path: str) -> StatementFacts | str:
        """The file's statement facts, or why there are none."""
        found = self._files.get(path)
        if found is None:
            try:
                given = self.given.get(path, {}) if self.given is not None else None
                found = statement_facts(path, given=given)
            except Exception as error:  # the oracle reports what it could not analyse
                found = f"interpreter failed on the file ({type(error).__name__})"
            self._files[path] = found
        return found


def statement_facts(path: str, keep_trail: bool = False, given=None) -> StatementFacts:
    """The interpreter's statements about a file read as the linter reads it: with the
    definitions it imports from its own project (gradlint/project.py)."""
    source = Path(path).read_text(encoding="utf-8")
    link = project.linked(path, source.encode("utf-8"))
    pieces = ()
    if link is not None:
        source, pieces = link.source.decode("utf-8"), link.pieces
    return StatementFacts(source, package_of(Path(path)), keep_trail, pieces, given)


def given_arguments(records: list[dict]) -> dict[str, dict]:
    """file -> (first line, function) -> grad mode a call started in -> argument -> the
    facts every call starting in that mode passed it (kind, grad status, dtype class,
    contiguity alike in all; shape when the ranks agree, a size the calls disagree on
    None; `or_none` when some passed None and others not), from the runtime's entry
    records."""
    seen: dict[str, dict] = {}
    for record in records:
        if "entry" not in record:
            continue
        function = (record["line"], record["entry"])
        facts = dict(record["facts"])
        mode = facts.pop("grad_mode")
        calls = seen.setdefault(record["file"], {}).setdefault(function, {})
        calls.setdefault(mode, {}).setdefault(record["name"], []).append(facts)
    return {
        path: {
            function: {
                mode: {name: _joined(facts) for name, facts in arguments.items()}
                for mode, arguments in modes.items()
            }
            for function, modes in functions.items()
        }
        for path, functions in seen.items()
    }


def _joined(calls: list[dict]) -> dict:
    first = calls[0]
    joined = {
        facet: first.get(facet)
        for facet in ("kind", "grad", "dtype", "contiguous")
        if first.get(facet) is not None and all(call.get(facet) == first[facet] for call in calls)
    }
    kinds = {call.get("kind") for call in calls}
    if "none" in kinds and len(kinds) > 1:
        joined["or_none"] = True  # None in some calls, another value in others
    shapes = [call.get("shape") for call in calls]
    if all(shape is not None and len(shape) == len(shapes[0]) for shape in shapes):
        joined["shape"] = [
            sizes[0] if len(set(sizes)) == 1 else None for sizes in zip(*shapes, strict=True)
        ]
    return joined


def package_of(path: Path) -> str | None:
    """The dotted package a file belongs to (its folders holding `__init__.py`)."""
    parts = []
    folder = path.resolve().parent
    while (folder / "__init__.py").exists():
        parts.append(folder.name)
        folder = folder.parent
    return ".".join(reversed(parts)) or None


# -- the comparison --------------------------------------------------------------------


@dataclass
class Contradiction:
    file: str
    line: int
    name: str
    facet: str
    stated: object
    ran: object
    program: str

    def __str__(self) -> str:
        return (
            f"{self.file}:{self.line} {self.name}: {self.facet} stated {self.stated!r}, "
            f"torch ran {self.ran!r} ({self.program})"
        )


@dataclass
class Tally:
    """Known and checked facts of one corpus."""

    observations: int = 0
    executions: int = 0
    programs: int = 0
    failed: int = 0
    known: collections.Counter = field(default_factory=collections.Counter)
    checked: collections.Counter = field(default_factory=collections.Counter)
    by_kind: dict = field(default_factory=lambda: collections.defaultdict(collections.Counter))
    causes: collections.Counter = field(default_factory=collections.Counter)
    contradictions: list[Contradiction] = field(default_factory=list)
    stopped: list[str] = field(default_factory=list)  # each program stopped early, and why

    def add(self, other: Tally) -> None:
        self.observations += other.observations
        self.executions += other.executions
        self.programs += other.programs
        self.failed += other.failed
        self.known.update(other.known)
        self.checked.update(other.checked)
        for kind, counts in other.by_kind.items():
            self.by_kind[kind].update(counts)
        self.causes.update(other.causes)
        self.contradictions += other.contradictions
        self.stopped += other.stopped


def compare(observation: dict, static: Static, tally: Tally) -> None:
    """Checks one runtime observation against what the interpreter states."""
    ran = observation["facts"]
    kind = ran["kind"]
    tally.observations += 1
    path, line, name = observation["file"], observation["line"], observation["name"]
    facts = static.of(path)
    stated, causes, mode = {}, {}, None
    if isinstance(facts, str):
        missing = facts
    else:
        found = facts.query_in_mode(line, name, ran["grad_mode"])
        missing = "" if found is not None else "statement not interpreted"
        if found is None and facts.query(line, name) is not None:
            missing = "not run with grad mode " + ("on" if ran["grad_mode"] else "off")
        if found is not None:
            stated, causes = found.facts, found.causes
            if found.assumed_given & set(ran.get("none_args", ())):
                # stated for calls passing those arguments; torch ran it with them None
                stated, missing = {}, "an argument taken as given, None at run time"
        modes = facts.grad_mode(line)
        mode = modes.facts.get("grad_mode") if modes is not None else None

    def check(facet: str, known: bool, refuted: bool, said, truth, cause="") -> None:
        tally.checked[facet] += 1
        tally.by_kind[kind][f"{facet} checked"] += 1
        if known:
            tally.known[facet] += 1
            tally.by_kind[kind][f"{facet} known"] += 1
        elif said is None:
            cause = missing or cause or causes.get(facet) or "not stated"
            tally.causes[f"{facet}: {cause}"] += 1
        if refuted:
            where = Contradiction(path, line, name, facet, said, truth, observation["program"])
            tally.contradictions.append(where)

    said_kind = stated.get("kind")
    refuted = said_kind is not None and kind not in SATISFIES.get(said_kind, ())
    check("kind", said_kind in KNOWN_AS[kind], refuted, said_kind, kind)
    if kind == "module" and said_kind == "module" and stated.get("class"):
        said_class = stated["class"]
        ran_class = ran["class"]
        same = ran_class == said_class or (
            "." not in said_class and ran_class.rsplit(".", 1)[-1] == said_class
        )
        if not same:
            check("class", False, True, said_class, ran_class)
    if mode is not None:
        check("grad_mode", True, (mode == "on") != ran["grad_mode"], mode, ran["grad_mode"])
    if kind not in TENSOR_KINDS:
        return
    said = stated.get("grad")
    if said == "nonleaf" and mode is None and not ran["grad_mode"]:
        # computed from what requires grad in a run assuming grad mode on, run without it
        said = None
        causes = dict(causes, grad="grad mode assumed on in a function run on its own")
    check("grad", said is not None, said is not None and said != ran["grad"], said, ran["grad"])
    said = stated.get("dtype")
    if said is not None and said != ran["dtype"]:
        check("dtype", True, True, said, ran["dtype"])
    shape = ran.get("shape")
    if shape is None:
        return
    rank = stated.get("rank")
    check("rank", rank is not None, rank is not None and rank != len(shape), rank, len(shape))
    dims = stated.get("dims") if rank == len(shape) else None
    for position, size in enumerate(shape):
        said = dims[position] if dims is not None else None
        lost = causes.get("dims") if rank is None else "a symbolic size"
        check("dim", said is not None, said is not None and said != size, said, size, lost)
    if rank == len(shape):
        for group in stated.get("same_dims", ()):
            sizes = {shape[p] for p in group}
            if len(sizes) > 1:
                check("same dims", True, True, group, shape)
    if stated.get("contiguous") and ran.get("contiguous") is False:
        check("contiguous", True, True, True, False)


# -- running programs ------------------------------------------------------------------


def run_programs(programs: list[dict], python: Path, log) -> list[dict]:
    """Runs the programs in one child process; returns its observations and summaries."""
    with tempfile.TemporaryDirectory() as scratch:
        manifest = Path(scratch) / "manifest.json"
        out = Path(scratch) / "out.jsonl"
        manifest.write_text(json.dumps(programs))
        budget = sum(p.get("timeout", 60) for p in programs) + 120
        env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1")
        try:
            subprocess.run(
                [str(python), str(RUNTIME), str(manifest), str(out)],
                timeout=budget,
                env=env,
                cwd=scratch,
                stdout=subprocess.DEVNULL,
                stderr=log,
                check=False,
            )
        except subprocess.TimeoutExpired:
            print(f"  child timed out after {budget}s", file=sys.stderr)
        if not out.exists():
            return []
        records = []
        for text in out.read_text(encoding="utf-8").splitlines():
            try:
                records.append(json.loads(text))
            except json.JSONDecodeError:
                break  # a child killed mid-line
        return records


def account(records: list[dict], static: Static, tally: Tally) -> None:
    """Adds one child's observations (compared) and program summaries to `tally`."""
    for record in records:
        if "entry" in record:
            continue  # what a call passed, given to the function's run on its own
        if "summary" in record:
            tally.programs += 1
            tally.executions += record["summary"]["executions"]
            status = record["summary"]["status"]
            if status != "ok":
                tally.failed += 1
                tally.stopped.append(f"{record['summary']['program']}: {status}")
            continue
        compare(record, static, tally)


# -- corpora ---------------------------------------------------------------------------


def tests_corpus() -> list[dict]:
    """Every file of tests/corpus, run whole as a script."""
    files = sorted((ROOT / "tests" / "corpus").rglob("*.py"))
    return [_script(path) for path in files]


def _script(path: Path, timeout: int = 20) -> dict:
    return {
        "id": str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path),
        "run": {"script": str(path)},
        "watch": [str(path)],
        "timeout": timeout,
    }


def _package_folder(python: Path, package: str) -> str | None:
    found = subprocess.run(
        [str(python), "-c", f"import {package}, os; print(os.path.dirname({package}.__file__))"],
        capture_output=True,
        text=True,
        check=False,
    )
    return found.stdout.strip() or None


TIMM_PER_FILE = 2  # small architectures of each timm model file


def timm_corpus() -> list[dict]:
    """Small architectures of each timm model file, forward and backward on tiny inputs."""
    if not BENCH_PYTHON.exists():
        return []
    listed = subprocess.run(
        [str(BENCH_PYTHON), str(RUNTIME), "--list-timm", str(TIMM_PER_FILE)],
        capture_output=True,
        check=False,
    )
    folder = _package_folder(BENCH_PYTHON, "timm")
    names = json.loads(listed.stdout or "[]")
    return [
        {"id": f"timm:{n}", "run": {"timm": n}, "watch": [folder], "timeout": 90} for n in names
    ]


TORCHVISION = {
    "classification": [
        "alexnet", "convnext_tiny", "densenet121", "efficientnet_b0", "efficientnet_v2_s",
        "googlenet", "inception_v3", "maxvit_t", "mnasnet0_5", "mobilenet_v2",
        "mobilenet_v3_small", "regnet_x_400mf", "regnet_y_400mf", "resnet18", "resnet50",
        "resnext50_32x4d", "shufflenet_v2_x0_5", "squeezenet1_0", "squeezenet1_1", "swin_t",
        "swin_v2_t", "vgg11_bn", "vit_b_32", "wide_resnet50_2",
    ],
    "detection": [
        "fasterrcnn_mobilenet_v3_large_320_fpn", "fcos_resnet50_fpn", "retinanet_resnet50_fpn",
        "maskrcnn_resnet50_fpn", "keypointrcnn_resnet50_fpn", "ssdlite320_mobilenet_v3_large",
    ],
    "segmentation": ["deeplabv3_mobilenet_v3_large", "fcn_resnet50", "lraspp_mobilenet_v3_large"],
    "video": ["r3d_18", "mc3_18", "r2plus1d_18"],
}  # fmt: skip


def torchvision_corpus() -> list[dict]:
    """torchvision's classification, detection, segmentation and video models on CPU."""
    if not BENCH_PYTHON.exists():
        return []
    folder = _package_folder(BENCH_PYTHON, "torchvision")
    return [
        {
            "id": f"torchvision:{name}",
            "run": {"torchvision": name, "task": task},
            "watch": [f"{folder}/models", f"{folder}/ops"],
            "timeout": 120,
        }
        for task, names in TORCHVISION.items()
        for name in names
    ]


TRANSFORMERS = [
    "albert", "bart", "bert", "bert-generation", "big_bird", "biogpt", "blenderbot-small",
    "bloom", "camembert", "codegen", "convbert", "ctrl", "data2vec-text", "deberta",
    "deberta-v2", "distilbert", "electra", "ernie", "falcon", "fnet", "funnel", "gemma",
    "gemma2", "gpt2", "gpt_bigcode", "gpt_neo", "gpt_neox", "gptj", "ibert", "layoutlm",
    "led", "llama", "m2m_100", "marian", "mbart", "megatron-bert", "mistral", "mobilebert",
    "mpnet", "mpt", "mvp", "nystromformer", "olmo", "opt", "pegasus", "persimmon", "phi",
    "phi3", "plbart", "qwen2", "qwen3", "rembert", "roberta", "roc_bert", "roformer",
    "squeezebert", "stablelm", "starcoder2", "t5", "umt5", "xglm", "xlm", "xlm-roberta",
    "xlnet", "xmod", "yoso",
]  # fmt: skip


def transformers_corpus() -> list[dict]:
    """transformers model types built from small configs (hidden size 32, two layers)."""
    if not BENCH_PYTHON.exists():
        return []
    folder = _package_folder(BENCH_PYTHON, "transformers")
    programs = []
    for model_type in TRANSFORMERS:
        package = model_type.replace("-", "_")
        programs.append(
            {
                "id": f"transformers:{model_type}",
                "run": {"transformers": model_type},
                "watch": [f"{folder}/models/{package}"],
                "timeout": 90,
            }
        )
    return programs


EXAMPLES = Path("/work/cache/oracle_examples")  # pytorch/examples (its .py files)
# (script, arguments, data stub): each trains a few steps on synthetic data
TRAINING = [
    ("mnist/main.py", ["--dry-run", "--epochs", "1", "--batch-size", "8"], "mnist"),
    ("mnist_rnn/main.py", ["--dry-run", "--epochs", "1", "--batch-size", "8"], "mnist"),
    ("mnist_forward_forward/main.py", ["--epochs", "2", "--train_size", "64", "--test_size",
                                       "64"], "mnist"),
    ("vae/main.py", ["--epochs", "1", "--batch-size", "16"], "mnist"),
    ("siamese_network/main.py", ["--dry-run", "--epochs", "1", "--batch-size", "8"], "mnist"),
    ("regression/main.py", [], None),
    ("time_sequence_prediction/train.py", ["--steps", "1"], "sine"),
    ("reinforcement_learning/reinforce.py", [], "gym"),
    ("reinforcement_learning/actor_critic.py", [], "gym"),
    ("dcgan/main.py", ["--dataset", "fake", "--dry-run", "--niter", "1", "--batchSize", "4",
                       "--imageSize", "64", "--ngf", "8", "--ndf", "8"], None),
    ("word_language_model/main.py", ["--data", "{scratch}/text", "--epochs", "1", "--dry-run",
                                     "--emsize", "16", "--nhid", "16", "--bptt", "8"], "text"),
    ("word_language_model/main.py", ["--data", "{scratch}/text", "--epochs", "1", "--dry-run",
                                     "--model", "Transformer", "--emsize", "16", "--nhid", "16",
                                     "--nhead", "2", "--bptt", "8"], "text"),
    ("word_language_model/main.py", ["--data", "{scratch}/text", "--epochs", "1", "--dry-run",
                                     "--model", "GRU", "--tied", "--emsize", "16",
                                     "--nhid", "16", "--bptt", "8"], "text"),
    ("imagenet/main.py", ["--dummy", "-a", "resnet18", "--epochs", "1", "-b", "4",
                          "--workers", "0", "--print-freq", "1"], None),
    ("imagenet/main.py", ["--dummy", "-a", "mobilenet_v3_small", "--epochs", "1", "-b", "4",
                          "--workers", "0", "--print-freq", "1"], None),
]  # fmt: skip


# Other public training scripts, their files as published at the commit each folder's
# COMMIT file names: yunjey/pytorch-tutorial (0500d3d), karpathy/makemore (988aa59),
# karpathy/nanoGPT (3adf61e); pytorch/examples' graph networks (gcn, gat) from EXAMPLES.
OTHERS = Path("/work/cache/oracle_training")
TUTORIAL = "pytorch-tutorial/tutorials"
MAKEMORE = [
    "-i",
    "{here}/names.txt",
    "-o",
    "{scratch}/out",
    "--max-steps",
    "3",
    "-n",
    "0",
    "--n-layer",
    "2",
    "--n-embd",
    "16",
    "--n-embd2",
    "16",
    "-b",
    "8",
]
OTHER_TRAINING = [
    (f"{TUTORIAL}/01-basics/linear_regression/main.py", [], None),
    (f"{TUTORIAL}/01-basics/logistic_regression/main.py", [], "mnist"),
    (f"{TUTORIAL}/01-basics/feedforward_neural_network/main.py", [], "mnist"),
    (f"{TUTORIAL}/02-intermediate/convolutional_neural_network/main.py", [], "mnist"),
    (f"{TUTORIAL}/02-intermediate/recurrent_neural_network/main.py", [], "mnist"),
    (f"{TUTORIAL}/02-intermediate/bidirectional_recurrent_neural_network/main.py", [], "mnist"),
    (f"{TUTORIAL}/02-intermediate/deep_residual_network/main.py", [], "cifar"),
    (f"{TUTORIAL}/02-intermediate/language_model/main.py", [], "words"),
    (f"{TUTORIAL}/03-advanced/generative_adversarial_network/main.py", [], "mnist"),
    (f"{TUTORIAL}/03-advanced/variational_autoencoder/main.py", [], "mnist"),
    ("makemore/makemore.py", [*MAKEMORE, "--type", "transformer"], None),
    ("makemore/makemore.py", [*MAKEMORE, "--type", "gru"], None),
    ("makemore/makemore.py", [*MAKEMORE, "--type", "mlp"], None),
    ("makemore/makemore.py", [*MAKEMORE, "--type", "bow"], None),
    ("nanoGPT/train.py", ["{here}/config/train_shakespeare_char.py", "--device=cpu",
                          "--compile=False", "--dtype=float32", "--eval_iters=2",
                          "--eval_interval=2", "--log_interval=1", "--block_size=16",
                          "--batch_size=4", "--n_layer=2", "--n_head=2", "--n_embd=32",
                          "--max_iters=3", "--lr_decay_iters=3", "--warmup_iters=1"],
     "shakespeare"),
    (str(EXAMPLES / "gcn/main.py"), ["--epochs", "2", "--dry-run"], "cora"),
    (str(EXAMPLES / "gat/main.py"), ["--epochs", "2", "--dry-run", "--hidden-dim", "8",
                                     "--num-heads", "2"], "cora"),
]  # fmt: skip


def training_corpus() -> list[dict]:
    """Public training scripts on synthetic data (stubs: facts_runtime.py): pytorch/examples'
    and the others above."""
    if not BENCH_PYTHON.exists():
        return []
    runs = [(EXAMPLES / s, a, stub) for s, a, stub in TRAINING] if EXAMPLES.is_dir() else []
    runs += [(OTHERS / s, a, stub) for s, a, stub in OTHER_TRAINING]
    programs = []
    for path, argv, stub in runs:
        if not path.exists():
            continue
        folder = path.parent
        if path.is_relative_to(EXAMPLES):
            script = f"examples:{path.relative_to(EXAMPLES)}"
        else:
            script = f"{path.relative_to(OTHERS).parts[0]}:{path.relative_to(OTHERS)}"
        program = _script(path, timeout=60)
        program["id"] = f"{script} {' '.join(argv)}".strip()
        program["run"] = {"script": str(path), "argv": argv, "stub": stub}
        program["watch"] = [str(folder)]
        programs.append(program)
    return programs


GENERATED = Path(tempfile.gettempdir()) / "gradlint_facts_generated"


def generated_corpus(count: int = 2000) -> list[dict]:
    """Programs mixing real code's idioms (facts_programs.py), written to a scratch folder."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import facts_programs  # noqa: PLC0415 (beside this file, not a package)

    return [_script(path, timeout=30) for path in facts_programs.write(GENERATED, count)]


CORPORA = {
    "tests": tests_corpus,
    "generated": generated_corpus,
    "timm": timm_corpus,
    "torchvision": torchvision_corpus,
    "transformers": transformers_corpus,
    "training": training_corpus,
}


# -- the report ------------------------------------------------------------------------


def _share(known: int, checked: int) -> str:
    return f"{100 * known / checked:5.1f} %" if checked else "    - "


def print_table(name: str, tally: Tally, show_stopped: bool = False) -> None:
    print(
        f"\n== {name}: {tally.programs} programs ({tally.failed} stopped early), "
        f"{tally.observations} observations, {len(tally.contradictions)} contradictions"
    )
    print(f"   {'runtime kind':<12} {'obs':>8} {'kind':>8} {'grad':>8} {'rank':>8} {'dims':>8}")
    for kind, counts in sorted(tally.by_kind.items(), key=lambda kv: -kv[1]["kind checked"]):
        cells = [
            _share(counts[f"{facet} known"], counts[f"{facet} checked"])
            for facet in ("kind", "grad", "rank", "dim")
        ]
        print(f"   {kind:<12} {counts['kind checked']:>8} " + " ".join(f"{c:>8}" for c in cells))
    print(f"   {figures(tally).replace('facts: ', f'{name}: ')}")
    if show_stopped:
        for stopped in tally.stopped:
            print(f"   stopped early: {stopped[:300]}")
    for where, programs in distinct(tally.contradictions).items():
        shown = ", ".join(sorted(programs)[:3]) + (" ..." if len(programs) > 3 else "")
        print(f"   CONTRADICTION {where} ({len(programs)} programs: {shown})")


def distinct(contradictions: list[Contradiction]) -> dict[str, set[str]]:
    """Each contradicted file:line, name and facet with both sides -> the programs that ran it."""
    found: dict[str, set[str]] = {}
    for c in contradictions:
        where = f"{c.file}:{c.line} {c.name}: {c.facet} stated {c.stated!r}, torch ran {c.ran!r}"
        found.setdefault(where, set()).add(c.program)
    return found


def figures(tally: Tally) -> str:
    facets = ("kind", "grad", "rank", "dim")
    known = sum(tally.known[f] for f in facets)
    checked = sum(tally.checked[f] for f in facets)
    shapes_known = tally.known["rank"] + tally.known["dim"]
    shapes_checked = tally.checked["rank"] + tally.checked["dim"]
    return (
        f"facts: {tally.observations} observations from {tally.programs} programs, "
        f"{len(tally.contradictions)} contradictions, known {_share(known, checked).strip()} "
        f"(grad status {_share(tally.known['grad'], tally.checked['grad']).strip()}, "
        f"shapes {_share(shapes_known, shapes_checked).strip()})"
    )


def top_causes(tally: Tally, count: int = 30) -> list[str]:
    return [f"{n:>8}  {cause}" for cause, n in tally.causes.most_common(count)]


def explain(where: str) -> None:
    path, _, line = where.rpartition(":")
    facts = statement_facts(path, keep_trail=True)
    shown = False
    for (at, name), stated in sorted(facts.stated.items()):
        if at != int(line):
            continue
        shown = True
        print(f"{path}:{at} {name}: {stated.facts}")
        for facet, cause in stated.causes.items():
            print(f"    {facet} unknown: {cause}")
        for context in facts.trail.get((at, name), []):
            print(f"  context {context}")
    if not shown:
        print(f"{path}:{line}: the interpreter never ran a statement binding a name there")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", action="append", choices=sorted(CORPORA))
    parser.add_argument("--explain", metavar="FILE:LINE")
    parser.add_argument("--limit", type=int, default=0, help="run only the first N of each")
    parser.add_argument("--only", metavar="TEXT", help="run only the programs whose id has TEXT")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="children run at a time")
    parser.add_argument(
        "--alone",
        action="store_true",
        help="run a function on its own with every argument unknown, as the linter reads "
        "a file whose callers are in other files (default: with what its calls passed)",
    )
    args = parser.parse_args(argv)
    if args.explain:
        explain(args.explain)
        return 0
    total = Tally()
    chosen = {}
    for name in args.corpus or list(CORPORA):
        programs = CORPORA[name]()
        if args.only:
            programs = [p for p in programs if args.only in p["id"]]
        if args.limit:
            programs = programs[: args.limit]
        chosen[name] = programs
    # the children run `--jobs` at a time; this process compares as their results come
    with concurrent.futures.ThreadPoolExecutor(max(args.jobs, 1)) as pool:
        pending = {}
        for name, programs in chosen.items():
            python = Path(sys.executable) if name in ("tests", "generated") else BENCH_PYTHON
            chunks = [programs[i : i + 40] for i in range(0, len(programs), 40)]
            pending[name] = [pool.submit(run_programs, c, python, sys.stderr) for c in chunks]
        for name, futures in pending.items():
            tally = Tally()
            records = [record for future in futures for record in future.result()]
            static = Static(None if args.alone else given_arguments(records))
            account(records, static, tally)
            print_table(name, tally, show_stopped=name == "training")
            sys.stdout.flush()
            total.add(tally)
    print("\n== top 30 causes of unknown (facet: construct)")
    causes = top_causes(total)
    print("\n".join(causes))
    if CAUSES_FILE.parent.is_dir() and not (args.only or args.limit):
        CAUSES_FILE.write_text("\n".join(top_causes(total, 100)) + "\n")
    print(figures(total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
