"""The code probe reports each runtime failure at the user's line that caused it."""

import json
import subprocess
import sys
import textwrap

import pytest

FILES = {
    # The helper's `activation="relu"` makes it return F.relu's output, which ReLU saves
    # for backward; the caller's `+=` edits it. BatchNorm's running statistics are edited
    # in place too, with the same versions (0 -> 1) but another shape.
    "resblock.py": """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F


        class Conv2d_batchnorm(nn.Module):
            def __init__(self, num_in_filters, num_out_filters, kernel_size, activation="relu"):
                super().__init__()
                self.activation = activation
                self.conv1 = nn.Conv2d(num_in_filters, num_out_filters, kernel_size, padding="same")
                self.batchnorm = nn.BatchNorm2d(num_out_filters)

            def forward(self, x):
                x = self.conv1(x)
                x = self.batchnorm(x)
                if self.activation == "relu":
                    return F.relu(x)
                return x


        class Multiresblock(nn.Module):
            def __init__(self, num_in_channels, num_filters):
                super().__init__()
                self.shortcut = Conv2d_batchnorm(num_in_channels, num_filters, 1, activation="None")
                self.conv_3x3 = Conv2d_batchnorm(num_in_channels, num_filters, 3, activation="relu")

            def forward(self, x):
                shortcut = self.shortcut(x)
                x = self.conv_3x3(x)
                x += shortcut
                return x


        model = Multiresblock(3, 8)
        out = model(torch.randn(2, 3, 8, 8))
        out.sum().backward()
    """,
}


def line_of(name: str, text: str) -> int:
    source = textwrap.dedent(FILES[name])
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """One `gradlint --probe --format json` run over FILES: findings by file name."""
    directory = tmp_path_factory.mktemp("located")
    for name, source in FILES.items():
        (directory / name).write_text(textwrap.dedent(source))
    done = subprocess.run(
        [sys.executable, "-m", "gradlint", "--probe", "--format", "json", str(directory)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    found: dict[str, list[dict]] = {name: [] for name in FILES}
    for finding in json.loads(done.stdout):
        found[finding["path"].rsplit("/", 1)[-1]].append(finding)
    return found


def test_an_inplace_edit_of_a_saved_output_is_reported_at_the_edit(report):
    """torch raises in backward, naming ReLU's output at version 1 instead of 0: the
    finding stands at the `+=` that moved it, not at the ReLU that saved it (nor at the
    batch norm whose running statistics moved 0 -> 1 as well), which the detail names."""
    [finding] = [f for f in report["resblock.py"] if f["code"] == "GL901"]
    assert finding["line"] == line_of("resblock.py", "x += shortcut")
    assert "in-place write" in finding["message"]
    saver = line_of("resblock.py", "return F.relu(x)")
    assert f"line {saver} ran the op that saved the tensor for backward" in finding["detail"]
    assert "output 0 of Relu, is at version 1; expected version 0" in finding["detail"]
    assert finding["probe"]["verdict"] == "confirmed"
