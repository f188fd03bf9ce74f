"""Pathologically big inputs: gradlint against libcst's own parse of the same file.

    python benchmarks/big_inputs.py            # all three inputs
    python benchmarks/big_inputs.py --only line

Inputs: a 100k-line generated model file (nn.Module blocks and training steps), 100k
lines of real model code (the installed torch's `nn`, `ao/nn`, `optim`, `distributions`,
`_refs` and `fx` sources in one file, ~4 MB), a 1 MB single line (a list of tensor
constructors) and a 600 KB f-string. Each is linted by a
`gradlint --no-cache --jobs 1` subprocess and parsed by a `libcst.parse_module`
subprocess; the table gives CPU seconds and peak resident memory of each and their
ratios (the floor is libcst's parse: gradlint cannot cost less).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path

BLOCK = """

class Block{i}(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.fc1 = nn.Linear(dim, dim * 4)
        self.fc2 = nn.Linear(dim * 4, dim)
        self.norm = nn.LayerNorm(dim)
        self.scale = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        h = self.fc2(F.gelu(self.fc1(self.norm(x)))) * self.scale
        y = (x + h).view(x.shape[0], -1)
        return y.reshape(x.shape)


def train_step{i}(model, opt, x, target):
    opt.zero_grad()
    loss = F.mse_loss(model(x), target)
    loss.backward()
    opt.step()
    return loss.item()
"""
HEAD = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def model_file(lines: int) -> str:
    parts, count, index = [HEAD], 0, 0
    while count < lines:
        parts.append(BLOCK.format(i=index))
        count += parts[-1].count("\n")
        index += 1
    return "".join(parts)


REAL_PACKAGES = ("nn", "ao/nn", "optim", "distributions", "_refs", "fx")


def real_model_code(lines: int) -> str:
    """The installed torch's model code (REAL_PACKAGES, files in sorted order) in one
    file of at least `lines` lines; `from __future__` imports dropped (they must open a
    file). Found without importing torch."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("big_inputs: torch is not installed (the real model code is its sources)")
    root = Path(next(iter(spec.submodule_search_locations)))
    parts, count = [], 0
    for package in REAL_PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            kept = [line for line in text.split("\n") if not line.startswith("from __future__")]
            parts.append("\n".join(kept).rstrip("\n") + "\n")
            count += parts[-1].count("\n")
            if count >= lines:
                return "".join(parts)
    return "".join(parts)


def long_line(size: int) -> str:
    items, length, index = [], 0, 0
    while length < size:
        items.append(f"torch.tensor({index})")
        length += len(items[-1]) + 2
        index += 1
    return "import torch\nx = [" + ", ".join(items) + "]\n"


def long_fstring(size: int) -> str:
    parts, length, index = [], 0, 0
    while length < size:
        parts.append(f"{{x}} item {index} ")
        length += len(parts[-1])
        index += 1
    return 'import torch\nx = torch.ones(3)\ns = f"' + "".join(parts) + '"\n'


INPUTS = {
    "model": lambda: model_file(100_000),
    "real": lambda: real_model_code(100_000),
    "line": lambda: long_line(1_000_000),
    "fstring": lambda: long_fstring(600_000),
}


def measure(command: list[str]) -> tuple[float, float]:
    """CPU seconds (user + system, children included) and peak RSS in MB."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        err = process.stderr.read().decode() if process.stderr else ""
        sys.exit(f"big_inputs: {command[2][:60]} failed: {err[-500:]}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(INPUTS), action="append")
    args = parser.parse_args()
    print(f"{'input':<8} {'size':>9} {'libcst':>18} {'gradlint':>18} {'ratio':>15}")
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.only or INPUTS:
            path = Path(scratch) / f"{name}.py"
            path.write_text(INPUTS[name]())
            parse = "import libcst, sys; libcst.parse_module(open(sys.argv[1], 'rb').read())"
            floor = measure([sys.executable, "-c", parse, str(path)])
            lint = measure([sys.executable, "-m", "gradlint", "--no-cache", "-j", "1", str(path)])
            print(
                f"{name:<8} {path.stat().st_size / 1e6:>7.2f}MB "
                f"{floor[0]:>7.1f} s {floor[1]:>6.0f} MB {lint[0]:>7.1f} s {lint[1]:>6.0f} MB "
                f"{lint[0] / floor[0]:>6.2f}x {lint[1] / floor[1]:>6.2f}x"
            )


if __name__ == "__main__":
    main()
