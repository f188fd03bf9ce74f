"""tools/gen_torch_knowledge.py: the shipped data is what torch 2.13 says.

The full regeneration (`--check`, about a minute and a half) is marked slow; a bounded
sample of ops and layers is re-derived in the default run.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("expecttest")  # torch's op database needs it (the `test` extra)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import gen_torch_knowledge as gen  # noqa: E402

SHIPPED = json.loads(gen.OUTPUT.read_text("utf-8"))

# op_db names: the long tail the old hand tables missed, views, multi-views, a binary op
OPS = {
    "nn.functional.softplus", "cumprod", "logsumexp", "nn.functional.normalize", "pow",
    "mul", "transpose", "chunk", "reshape", "norm", "sigmoid", "abs",
}  # fmt: skip
LAYERS = {"Linear", "Conv2d", "ReLU", "LeakyReLU", "Dropout", "GRU"}


def test_a_sample_of_ops_rederived_matches_the_shipped_data():
    derived = gen.derive_ops(OPS)
    assert len(derived["ops"]) >= len(OPS)
    for name, row in derived["ops"].items():
        assert SHIPPED["ops"].get(name) == row, name
    for name, canonical in derived["aliases"].items():
        assert SHIPPED["aliases"].get(name) == canonical, name
    for name, target in derived["inplace_methods"].items():
        assert SHIPPED["inplace_methods"].get(name) == target, name


def test_a_sample_of_layers_rederived_matches_the_shipped_data():
    derived = gen.derive_layers(LAYERS)
    assert set(derived) == {f"torch.nn.{n}" for n in LAYERS}
    for name, row in derived.items():
        assert SHIPPED["layers"][name] == row, name


def test_differences_name_each_changed_entry():
    changed = json.loads(json.dumps(SHIPPED))
    changed["ops"]["torch.sigmoid"]["saves_output"] = False
    del changed["layers"]["torch.nn.Linear"]
    diff = gen.differences(SHIPPED, changed)
    assert len(diff) == 2
    assert diff[0].startswith("layers[torch.nn.Linear]") and "ops[torch.sigmoid]" in diff[1]


@pytest.mark.slow
def test_check_regenerates_everything_and_agrees():
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_torch_knowledge.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert done.stdout.startswith("ok: ") and " ops, " in done.stdout
