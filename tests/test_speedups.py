"""gradlint's optimisations inside CPython and libcst (speedups.py): verified versions
only, one switch that turns them off, and the same findings either way."""

import json
import os
import subprocess
import sys

from libcst import _version

from gradlint import speedups

STATE = (
    "import dataclasses, libcst\n"
    "from gradlint import engine, speedups\n"
    "speedups.thaw()\n"
    "name = libcst.Name\n"
    "print(json.dumps({\n"
    "    'metaclass': type(name).__name__,\n"
    "    'c_hash': name.__hash__ is object.__hash__,\n"
    "    'constructor': name.__init__.__code__.co_filename,\n"
    "    'frozen': '__setattr__' in vars(name),\n"
    "    'dataclasses_exec': 'exec' in vars(dataclasses),\n"
    "}))\n"
)
MODEL = (
    "import torch\n"
    "import torch.nn as nn\n\n\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(4, 2)\n\n"
    "    def forward(self, x):\n"
    "        y = torch.sigmoid(self.fc(x))\n"
    "        y += 1\n"
    "        return y\n\n\n"
    "def sgd(model, lr):\n"
    "    for p in model.parameters():\n"
    "        p -= lr * p.grad\n"
)


def _run(code: str, switch: str | None, cwd=None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("GRADLINT_NO_SPEEDUPS", None)
    if switch is not None:
        env["GRADLINT_NO_SPEEDUPS"] = switch
    command = [sys.executable, "-c", "import json\n" + code]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, check=False)


def _state(switch: str | None) -> str:
    done = _run(STATE, switch)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_installed_libcst_and_python_are_the_verified_ones():
    """Fails when libcst or CPython change: verify the speedups on the new release (this
    file, tests/test_engine.py, benchmarks/speedups_bench.py), then list it."""
    release = tuple(_version.version_tuple[:2])
    assert release in speedups.VERIFIED_LIBCST, (
        f"libcst {_version.version} is not in speedups.VERIFIED_LIBCST: "
        "gradlint's node constructors are off until it is verified"
    )
    assert sys.version_info[:2] in speedups.VERIFIED_PYTHON, (
        f"CPython {sys.version_info[:2]} is not in speedups.VERIFIED_PYTHON: "
        "gradlint's node constructors are off until it is verified"
    )


def test_the_optimisations_are_on_unless_switched_off():
    assert _state(None) == {
        "metaclass": "PlainChecks",
        "c_hash": True,
        "constructor": "<gradlint.speedups Name>",
        "frozen": False,
        "dataclasses_exec": False,
    }
    assert _state("1") == {  # ABCMeta's checks, the __init__ dataclasses wrote, frozen
        "metaclass": "ABCMeta",
        "c_hash": False,
        "constructor": "<string>",
        "frozen": True,
        "dataclasses_exec": False,
    }


def test_a_registered_virtual_subclass_gets_abcmetas_checks_back():
    done = _run(
        "import libcst\n"
        "from gradlint import engine\n"
        "class Foreign: pass\n"
        "libcst.BaseExpression.register(Foreign)\n"
        "print(json.dumps([isinstance(Foreign(), libcst.BaseExpression),\n"
        "    type(libcst.BaseExpression).__name__, isinstance(libcst.Name('x'), libcst.Name)]))\n",
        None,
    )
    assert json.loads(done.stdout) == [True, "ABCMeta", True], done.stderr


def test_the_dataclass_code_cache_is_open_until_the_engine_is_loaded():
    opened = _run("import dataclasses, gradlint\nprint('exec' in vars(dataclasses))", None)
    assert opened.stdout == "True\n", opened.stderr
    assert _run("import dataclasses, gradlint\nprint('exec' in vars(dataclasses))", "1").stdout == (
        "False\n"
    )


def test_an_unverified_release_turns_it_off(monkeypatch):
    monkeypatch.setattr(speedups, "VERIFIED_LIBCST", ())
    assert not speedups.enabled() and speedups.python_verified()
    monkeypatch.setattr(speedups, "VERIFIED_LIBCST", (tuple(_version.version_tuple[:2]),))
    monkeypatch.setattr(speedups, "VERIFIED_PYTHON", ())
    assert not speedups.enabled() and not speedups.python_verified()


def test_the_same_findings_with_and_without_the_speedups(tmp_path):
    model = tmp_path / "model.py"
    model.write_text(MODEL)
    lint = (
        "from gradlint import runner\n"
        "from gradlint.config import Config\n"
        f"result = runner.lint_file({str(model)!r}, Config())\n"
        "print(json.dumps([(d.line, d.column, d.code, d.message) for d in result.diagnostics]))\n"
    )
    found = [_run(lint, switch, cwd=tmp_path) for switch in (None, "1")]
    assert all(done.returncode == 0 for done in found), [done.stderr for done in found]
    on, off = (json.loads(done.stdout) for done in found)
    assert on == off and {code for _, _, code, _ in on} >= {"GL101", "GL103"}
