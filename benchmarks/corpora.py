"""Precision on real code: lint pinned releases of real PyTorch projects and check every
finding against a reviewed verdict.

    python benchmarks/corpora.py                      # download (once), lint, compare
    python benchmarks/corpora.py --project timm -j 2  # one project
    python benchmarks/corpora.py --offline            # lint only what is cached
    python benchmarks/corpora.py --list               # every finding with its verdict
    python benchmarks/corpora.py --known              # only the files judged so far (fast)

Each project is a pinned wheel fetched with `pip download --no-deps` into the cache
(default ~/.cache/gradlint-corpora, `--cache DIR`); only its `.py` files are unpacked.
Nothing is installed, imported or run: wheels only, because `pip download` of an sdist
builds its metadata, which runs the project's build code. A research repository that is
not on PyPI is a pinned commit of a git snapshot already on this machine (`--git-mirrors
DIR` holds OWNER+NAME/repo, a bare git directory): its `.py` files at that commit are
unpacked with `git archive`; without the snapshot the project is skipped. gradlint runs as
`python -m gradlint --format json` (the gradlint of this interpreter), one project at a
time, so each gets its own time.

Every finding is keyed by project, path inside the project, code, scope (the dotted name
of the innermost enclosing class / function, "" at module level) and anchor (the stripped
text of the finding's first source line), so moved lines keep their verdict, and looked up
in `corpora_verdicts.toml` beside this script:

    [[finding]]
    project = "timm"
    path = "timm/layers/layer_scale.py"
    code = "GL104"
    scope = "LayerScale.forward"
    anchor = "return x.mul_(self.gamma) if self.inplace else x * self.gamma"
    verdict = "false"            # "real" | "false" | "debatable"
    reason = "in-place only when the caller passes inplace=True (torch's convention)"

Exit 1 when a finding has no verdict (a TOML entry to review is printed for it) or a
finding judged "false" is reported again; "real" verdicts no longer found are listed as
lost recall. Exit 2 when nothing could be linted.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

VERDICTS_FILE = Path(__file__).resolve().parent / "corpora_verdicts.toml"
DEFAULT_CACHE = Path("~/.cache/gradlint-corpora").expanduser()
DEFAULT_GIT_MIRRORS = Path(os.environ.get("GRADLINT_GIT_MIRRORS", "/work/.mirror"))
GIT_PREFIX = "git:"
VERDICTS = ("real", "false", "debatable")
ENTRY_KEYS = ("project", "path", "code", "scope", "anchor", "verdict", "reason")
OPTIONAL_KEYS = ("scope",)  # "" (module level) when absent
Key = tuple[str, str, str, str, str]


@dataclass(frozen=True)
class Project:
    name: str  # the key used in the verdict file
    requirement: str  # pinned `pip download` requirement, or "git:OWNER/NAME@COMMIT"
    pip_args: tuple[str, ...] = ()

    @property
    def is_git(self) -> bool:
        return self.requirement.startswith(GIT_PREFIX)

    @property
    def version(self) -> str:
        if self.is_git:
            return self.requirement.partition("@")[2][:12]
        return self.requirement.partition("==")[2]

    @property
    def wheel_prefix(self) -> str:
        # Wheel file names normalise the distribution name: x-transformers -> x_transformers.
        distribution = self.requirement.partition("==")[0].replace("-", "_")
        return f"{distribution}-{self.version}-"


# Only the .py files are read, so one platform's wheel serves every machine.
ONE_PLATFORM = (
    "--only-binary=:all:",
    "--platform",
    "manylinux_2_28_x86_64",
    "--python-version",
    "3.11",
)

PROJECTS = (
    Project("timm", "timm==1.0.31"),
    Project("transformers", "transformers==5.23.0"),
    Project("diffusers", "diffusers==0.42.1"),
    Project("torchvision", "torchvision==0.29.1", ONE_PLATFORM),
    Project("lightning", "lightning==2.6.6"),
    Project("x-transformers", "x-transformers==2.31.10"),
    # Issue 31's batch, judged at first sight on 2026-11-27.
    Project("torchaudio", "torchaudio==2.11.0", ONE_PLATFORM),
    Project("torchrl", "torchrl==0.14.1", ONE_PLATFORM),
    Project("kornia", "kornia==0.9.0"),
    Project("monai", "monai==1.6.1"),
    Project("pyro-ppl", "pyro-ppl==1.9.2"),
    Project("gpytorch", "gpytorch==1.15.2"),
    Project("botorch", "botorch==0.18.1"),
    Project("speechbrain", "speechbrain==1.1.2"),
    Project("sentence-transformers", "sentence-transformers==6.2.0"),
    Project("segmentation-models-pytorch", "segmentation-models-pytorch==0.6.0"),
    Project("pytorch-metric-learning", "pytorch-metric-learning==2.9.0"),
    Project("captum", "captum==0.9.0"),
    Project("torchmetrics", "torchmetrics==1.9.0"),
    Project("lightly", "lightly==1.6.0"),
    Project("flair", "flair==0.15.1"),
    Project("espnet", "espnet==202511"),
    Project("allennlp", "allennlp==2.10.1"),
    Project("e3nn", "e3nn==0.6.0"),
    Project("torchdiffeq", "torchdiffeq==0.2.5"),
    Project("pytorch-forecasting", "pytorch-forecasting==1.8.0"),
    Project("torchgeo", "torchgeo==0.8.1"),
    Project("mmpretrain", "mmpretrain==1.2.0"),
    Project("torch-geometric", "torch-geometric==2.8.1"),
    Project("peft", "peft==0.21.2"),
    Project("open-clip-torch", "open-clip-torch==3.3.0"),
    Project("stable-baselines3", "stable-baselines3==2.9.2"),
    Project("denoising-diffusion-pytorch", "denoising-diffusion-pytorch==2.3.4"),
    Project("ultralytics", "ultralytics==8.4.190"),
    Project("nnunetv2", "nnunetv2==2.8.1"),
    Project("nemo-toolkit", "nemo-toolkit==3.0.0"),
    Project("mmdet", "mmdet==3.3.0"),
    Project("mmsegmentation", "mmsegmentation==1.2.2"),
    Project("torchtune", "torchtune==0.6.1"),
    Project("trl", "trl==1.16.0"),
    Project("accelerate", "accelerate==1.15.0"),
    # Its wheels are built for Python 3.12 and later only.
    Project(
        "megatron-core",
        "megatron-core==0.19.2",
        ("--only-binary=:all:", "--platform", "manylinux_2_28_x86_64", "--python-version", "3.12"),
    ),
    # Research code with training scripts, not published on PyPI: pinned git commits.
    Project("nanoGPT", "git:karpathy/nanoGPT@3adf61e154c3fe3fca428ad6bc3818b27a3b8291"),
    Project("mae", "git:facebookresearch/mae@efb2a8062c206524e35e47d04501ed4f544c0ae8"),
    Project("dino", "git:facebookresearch/dino@7c446df5b9f45747937fb0d72314eb9f7b66930a"),
    Project(
        "guided-diffusion",
        "git:openai/guided-diffusion@22e0df8183507e13a7813f8d38d51b072ca1e67c",
    ),
    Project("pytorch-examples", "git:pytorch/examples@77f55b912142e11fcfdf5b530231fb9c52f181e8"),
    # Issue 31's second batch, judged at first sight on 2026-11-28.
    Project("tianshou", "tianshou==2.0.1"),
    Project("d3rlpy", "d3rlpy==2.8.1"),
    Project("skrl", "skrl==2.1.1"),
    Project("sb3-contrib", "sb3-contrib==2.9.2"),
    Project("opacus", "opacus==1.6.0"),
    Project("torchattacks", "torchattacks==3.5.1"),
    Project("avalanche-lib", "avalanche-lib==0.6.0"),
    Project("pykeen", "pykeen==1.11.1"),
    Project("chemprop", "chemprop==2.3.1"),
    Project("fastai", "fastai==2.8.12"),
    Project("poutyne", "poutyne==1.19.0"),
    Project("pytorch-widedeep", "pytorch-widedeep==1.7.0"),
    Project("anomalib", "anomalib==2.7.0"),
    Project("torchsde", "torchsde==0.2.6"),
    Project("zuko", "zuko==1.6.0"),
    Project("asteroid", "asteroid==0.7.0"),
    Project("simpletransformers", "simpletransformers==0.70.8"),
    Project("effdet", "effdet==0.4.1"),
    Project("segment-anything", "segment-anything==1.0"),
    Project("backpack-for-pytorch", "backpack-for-pytorch==1.7.1"),
    Project("higher", "higher==0.2.1"),
    Project("catalyst", "catalyst==22.4"),
    # moco's newest commit deletes every file: the one before it
    Project("moco", "git:facebookresearch/moco@132aea9da9bb995a411c915c0420be3db62052f3"),
    Project("detr", "git:facebookresearch/detr@29901c51d7fe8712168b8d0d64351170bc0f83e0"),
    Project("deit", "git:facebookresearch/deit@7e160fe43f0252d17191b71cbb5826254114ea5b"),
)


@dataclass(frozen=True)
class Finding:
    project: str
    path: str  # relative to the project's unpacked tree, "/"-separated
    line: int
    column: int
    code: str
    message: str
    scope: str
    anchor: str

    @property
    def key(self) -> Key:
        return (self.project, self.path, self.code, self.scope, self.anchor)


@dataclass(frozen=True)
class Verdict:
    project: str
    path: str
    code: str
    scope: str
    anchor: str
    verdict: str
    reason: str

    @property
    def key(self) -> Key:
        return (self.project, self.path, self.code, self.scope, self.anchor)


class VerdictFileError(Exception):
    pass


def load_verdicts(path: Path = VERDICTS_FILE) -> dict[Key, Verdict]:
    """Read and validate the verdict file: every entry has all keys, a known verdict and
    project, a reason, and no key is judged twice."""
    with path.open("rb") as file:
        data = tomllib.load(file)
    unknown_tables = set(data) - {"finding"}
    if unknown_tables:
        raise VerdictFileError(f"{path}: unknown top-level keys {sorted(unknown_tables)}")
    projects = {project.name for project in PROJECTS}
    verdicts: dict[Key, Verdict] = {}
    for number, entry in enumerate(data.get("finding", []), 1):
        where = f"{path.name}: entry {number}"
        entry = {"scope": "", **entry}
        missing = [
            key
            for key in ENTRY_KEYS
            if key not in OPTIONAL_KEYS and not str(entry.get(key, "")).strip()
        ]
        if missing:
            raise VerdictFileError(f"{where} lacks {', '.join(missing)}")
        extra = set(entry) - set(ENTRY_KEYS)
        if extra:
            raise VerdictFileError(f"{where} has unknown keys {sorted(extra)}")
        if entry["verdict"] not in VERDICTS:
            raise VerdictFileError(f"{where}: verdict {entry['verdict']!r} not in {VERDICTS}")
        if entry["project"] not in projects:
            raise VerdictFileError(f"{where}: unknown project {entry['project']!r}")
        verdict = Verdict(**{key: entry[key] for key in ENTRY_KEYS})
        if verdict.key in verdicts:
            raise VerdictFileError(f"{where} judges {verdict.key} a second time")
        verdicts[verdict.key] = verdict
    return verdicts


# --- download and unpack -------------------------------------------------------------


def _cached_wheel(project: Project, wheels: Path) -> Path | None:
    found = sorted(wheels.glob(project.wheel_prefix + "*.whl")) if wheels.is_dir() else []
    return found[0] if found else None


def fetch(
    project: Project, cache: Path, offline: bool, git_mirrors: Path = DEFAULT_GIT_MIRRORS
) -> tuple[Path | None, str]:
    """The project's unpacked source tree (downloading and unpacking it when needed) and a
    note for the report."""
    tree = cache / "src" / f"{project.name}-{project.version}"
    if (tree / ".complete").exists():
        return tree, "cached"
    if project.is_git:
        return unpack_git(project, git_mirrors, tree)
    wheels = cache / "wheels"
    wheel = _cached_wheel(project, wheels)
    note = "cached wheel"
    if wheel is None:
        if offline:
            return None, "not cached (offline)"
        wheels.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet"]
        command += ["--dest", str(wheels), *project.pip_args, project.requirement]
        done = subprocess.run(command, capture_output=True, text=True)
        wheel = _cached_wheel(project, wheels)
        if done.returncode != 0 or wheel is None:
            reason = (done.stderr.strip().splitlines() or ["no wheel saved"])[-1]
            return None, f"DOWNLOAD FAILED ({reason}); not cached, skipped"
        note = "downloaded"
    unpack(wheel, tree)
    return tree, note


def unpack(wheel: Path, tree: Path) -> None:
    """Extract the wheel's .py files only (no binaries, nothing outside `tree`)."""
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.namelist():
            parts = Path(member).parts
            if not member.endswith(".py") or ".." in parts or Path(member).is_absolute():
                continue
            target = tree.joinpath(*parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(member))
    (tree / ".complete").write_text(wheel.name + "\n")


def unpack_git(project: Project, git_mirrors: Path, tree: Path) -> tuple[Path | None, str]:
    """Extract the .py files of the pinned commit from the repository's git snapshot (a
    snapshot lacks its largest files: those are left out)."""
    repository, _, commit = project.requirement.removeprefix(GIT_PREFIX).partition("@")
    git_dir = git_mirrors / repository.replace("/", "+") / "repo"
    if not git_dir.is_dir():
        return None, f"no git snapshot of {repository} in {git_mirrors}; skipped"
    git = ["git", "--git-dir", str(git_dir)]
    listing = subprocess.run([*git, "ls-tree", "-r", "-z", commit], capture_output=True)
    if listing.returncode != 0:
        reason = (listing.stderr.decode(errors="replace").strip().splitlines() or ["failed"])[-1]
        return None, f"git ls-tree of {commit[:12]} failed ({reason}); skipped"
    blobs = {}  # path -> object id, the .py files only
    for entry in listing.stdout.split(b"\0"):
        meta, _, name = entry.decode(errors="replace").partition("\t")
        parts = Path(name).parts
        if meta.split(" ")[1:2] == ["blob"] and name.endswith(".py") and ".." not in parts:
            blobs[name] = meta.split(" ")[2]
    for name, blob in blobs.items():
        done = subprocess.run([*git, "cat-file", "blob", blob], capture_output=True)
        if done.returncode != 0:
            continue  # not in the snapshot
        target = tree.joinpath(*Path(name).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(done.stdout)
    tree.mkdir(parents=True, exist_ok=True)
    (tree / ".complete").write_text(f"{repository}@{commit}\n")
    return tree, "unpacked from git"


# --- lint ----------------------------------------------------------------------------


def count_lines(tree: Path, paths: list[str] | None = None) -> tuple[int, int]:
    files = lines = 0
    for path in tree.rglob("*.py") if paths is None else (tree / path for path in paths):
        files += 1
        lines += path.read_bytes().count(b"\n")
    return files, lines


def lint(
    project: Project, tree: Path, jobs: int, paths: list[str] | None = None
) -> tuple[list[Finding], float]:
    """Run gradlint on the tree (or on `paths` in it); findings keyed by path inside the
    tree, and seconds."""
    with tempfile.TemporaryDirectory() as scratch:
        # An empty configuration: no pyproject.toml above the cache can change the run.
        config = Path(scratch) / "gradlint.toml"
        config.write_text("")
        report = Path(scratch) / "report.json"
        command = [sys.executable, "-m", "gradlint", "--config", str(config)]
        command += ["--format", "json", "--output", str(report), "--jobs", str(jobs)]
        command += paths if paths is not None else ["."]
        start = time.perf_counter()
        done = subprocess.run(command, cwd=tree, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if done.returncode not in (0, 1):
            sys.stderr.write(f"gradlint exited {done.returncode} on {project.name}:\n")
            sys.stderr.write(done.stderr)
        if not report.exists():
            raise SystemExit(f"gradlint wrote no report for {project.name}")
        raw = json.loads(report.read_text())
    return [_finding(project.name, tree, item) for item in raw], seconds


def enclosing_scope(source: str, line: int) -> str:
    """Dotted name of the classes / functions whose body holds `line`, outermost first."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ""
    definitions = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    enclosing = [
        node
        for node in ast.walk(tree)
        if isinstance(node, definitions) and node.lineno <= line <= (node.end_lineno or 0)
    ]
    # Ranges that hold one line are nested: sorted by start, outermost comes first.
    return ".".join(node.name for node in sorted(enclosing, key=lambda node: node.lineno))


def _finding(project: str, tree: Path, item: dict) -> Finding:
    path = Path(item["path"])
    relative = path.relative_to(tree) if path.is_absolute() else path
    source = (tree / relative).read_text(encoding="utf-8", errors="replace")
    lines = source.splitlines()
    line = item["line"]
    anchor = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    return Finding(
        project,
        relative.as_posix().removeprefix("./"),
        line,
        item["column"],
        item["code"],
        item["message"],
        enclosing_scope(source, line),
        anchor,
    )


# --- compare and report --------------------------------------------------------------


@dataclass
class Comparison:
    judged: list[tuple[Finding, Verdict]]
    unreviewed: list[Finding]
    lost: list[Verdict]  # "real" verdicts of linted projects no finding matched
    gone: list[Verdict]  # "false"/"debatable" verdicts no finding matched any more

    def count(self, verdict: str) -> int:
        return sum(1 for _, judged in self.judged if judged.verdict == verdict)

    @property
    def false_findings(self) -> list[tuple[Finding, Verdict]]:
        return [
            (finding, verdict) for finding, verdict in self.judged if verdict.verdict == "false"
        ]


def compare(findings: list[Finding], verdicts: dict[Key, Verdict], linted: set[str]) -> Comparison:
    judged, unreviewed, matched = [], [], set()
    for finding in findings:
        verdict = verdicts.get(finding.key)
        if verdict is None:
            unreviewed.append(finding)
        else:
            judged.append((finding, verdict))
            matched.add(finding.key)
    unmatched = [v for key, v in verdicts.items() if key not in matched and v.project in linted]
    lost = [verdict for verdict in unmatched if verdict.verdict == "real"]
    gone = [verdict for verdict in unmatched if verdict.verdict != "real"]
    return Comparison(judged, unreviewed, lost, gone)


def _toml_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def stub(finding: Finding) -> str:
    """A verdict-file entry to fill in for an unreviewed finding."""
    return "\n".join(
        [
            f"# {finding.path}:{finding.line}:{finding.column}: {finding.code} {finding.message}",
            "[[finding]]",
            f"project = {_toml_string(finding.project)}",
            f"path = {_toml_string(finding.path)}",
            f"code = {_toml_string(finding.code)}",
            f"scope = {_toml_string(finding.scope)}",
            f"anchor = {_toml_string(finding.anchor)}",
            'verdict = ""  # real | false | debatable',
            'reason = ""',
        ]
    )


def summary_line(comparison: Comparison, total: int, lines: int, names: list[str]) -> str:
    return (
        f"{total} findings on {lines} lines of {'/'.join(names)}: "
        f"{comparison.count('real')} real, {comparison.count('false')} false, "
        f"{comparison.count('debatable')} debatable, {len(comparison.unreviewed)} unreviewed"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="download cache")
    parser.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--project", action="append", choices=[p.name for p in PROJECTS])
    parser.add_argument("--offline", action="store_true", help="never download")
    parser.add_argument(
        "--git-mirrors",
        type=Path,
        default=DEFAULT_GIT_MIRRORS,
        help="where git snapshots of the research repositories are (OWNER+NAME/repo)",
    )
    parser.add_argument("--verdicts", type=Path, default=VERDICTS_FILE)
    parser.add_argument("--list", action="store_true", help="print every finding")
    parser.add_argument(
        "--known",
        action="store_true",
        help="lint only the files the verdict file names (minutes instead of half an hour: "
        "checks the judged findings, cannot see new ones elsewhere)",
    )
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # one project's line as soon as it is linted

    try:
        verdicts = load_verdicts(args.verdicts)
    except (OSError, tomllib.TOMLDecodeError, VerdictFileError) as error:
        print(f"cannot use the verdict file: {error}", file=sys.stderr)
        return 2
    selected = [p for p in PROJECTS if not args.project or p.name in args.project]
    findings: list[Finding] = []
    linted: list[str] = []
    total_lines = 0
    total_seconds = 0.0
    print(f"{'project':<28} {'files':>6} {'lines':>9} {'findings':>8} {'seconds':>8}  source")
    for project in selected:
        tree, note = fetch(project, args.cache, args.offline, args.git_mirrors)
        label = f"{project.name}=={project.version}"
        if tree is None:
            print(f"{label:<28} {'':>6} {'':>9} {'':>8} {'':>8}  {note}")
            continue
        paths = None
        if args.known:
            named = {v.path for v in verdicts.values() if v.project == project.name}
            paths = sorted(path for path in named if (tree / path).is_file())
        files, lines = count_lines(tree, paths)
        found, seconds = lint(project, tree, args.jobs, paths) if paths != [] else ([], 0.0)
        findings += found
        linted.append(project.name)
        total_lines += lines
        total_seconds += seconds
        print(f"{label:<28} {files:>6} {lines:>9} {len(found):>8} {seconds:>8.1f}  {note}")
    if not linted:
        print("nothing linted: no project could be downloaded or found in the cache")
        return 2
    print(f"{'total':<28} {'':>6} {total_lines:>9} {len(findings):>8} {total_seconds:>8.1f}")

    comparison = compare(findings, verdicts, set(linted))
    by_finding = {id(finding): verdict.verdict for finding, verdict in comparison.judged}
    print("\nper rule: findings (real / false / debatable / unreviewed)")
    per_rule: dict[str, Counter] = defaultdict(Counter)
    for finding in findings:
        per_rule[finding.code][by_finding.get(id(finding), "unreviewed")] += 1
    for code in sorted(per_rule):
        counts = per_rule[code]
        print(
            f"  {code}  {sum(counts.values()):>4}  ({counts['real']} / {counts['false']} / "
            f"{counts['debatable']} / {counts['unreviewed']})"
        )

    if args.list:
        print("\nfindings:")
        for finding in findings:
            verdict = by_finding.get(id(finding), "UNREVIEWED")
            print(f"  [{verdict}] {finding.project}/{finding.path}:{finding.line}: {finding.code}")
    if comparison.false_findings:
        print("\nFALSE findings reported again:")
        for finding, verdict in comparison.false_findings:
            print(f"  {finding.project}/{finding.path}:{finding.line}: {finding.code}")
            print(f"      {finding.anchor}\n      judged false: {verdict.reason}")
    if comparison.unreviewed:
        print("\nUNREVIEWED findings (add a verdict to corpora_verdicts.toml):\n")
        print("\n\n".join(stub(finding) for finding in comparison.unreviewed))
    if comparison.lost:
        print("\nlost recall: real bugs no longer found:")
        for verdict in comparison.lost:
            print(f"  {verdict.project}/{verdict.path}: {verdict.code}  {verdict.anchor}")
    if comparison.gone:
        print(f"\n{len(comparison.gone)} false/debatable verdicts no longer match a finding")

    print("\n" + summary_line(comparison, len(findings), total_lines, linted))
    if args.known:
        print("(--known: only the files the verdict file names were linted)")
    failures = []
    if comparison.unreviewed:
        failures.append(f"{len(comparison.unreviewed)} findings have no verdict")
    if comparison.false_findings:
        failures.append(f"{len(comparison.false_findings)} findings judged false are reported")
    if failures:
        print("FAIL: " + "; ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
