"""tools/gen_torch_knowledge.py: the shipped data is what torch 2.13 says.

`--check` regenerates everything and runs by default, as its own process: about 26 s of
CPU (6 of them importing torch's op database), so a CI run pays about half a minute; a
loaded machine stretches the wall time, not the work. (Measured: a re-derived quarter of
the op database plus every layer cost as much, and deriving inside the pytest process
more than twice as much CPU.)
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


def test_differences_name_each_changed_entry():
    changed = json.loads(json.dumps(SHIPPED))
    changed["ops"]["torch.sigmoid"]["saves_output"] = False
    del changed["layers"]["torch.nn.Linear"]
    diff = gen.differences(SHIPPED, changed)
    assert len(diff) == 2
    assert diff[0].startswith("layers[torch.nn.Linear]") and "ops[torch.sigmoid]" in diff[1]


def test_check_regenerates_everything_and_agrees():
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_torch_knowledge.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert done.stdout.startswith("ok: ") and " ops, " in done.stdout
    ops, layers = (int(n) for n in done.stdout.split()[1:4:2])
    assert ops >= 400 and layers >= 60
    assert (ops, layers) == (len(SHIPPED["ops"]), len(SHIPPED["layers"]))
