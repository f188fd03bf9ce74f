"""The wheel ships the rule catalogue and the entry points, and works when not editable."""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    pytest.importorskip("hatchling")  # a test dependency: builds without network access
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation"]
        + ["--quiet", "-w", str(out)],
        check=True,
        capture_output=True,
    )
    [built] = out.glob("torch_gradlint-*.whl")
    return built


def test_wheel_ships_every_rule_doc_and_the_entry_points(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        for doc in sorted((ROOT / "rules").glob("GL*.md")):
            assert archive.read(f"gradlint/_catalogue/{doc.name}") == doc.read_bytes()
        [entry_points] = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        text = archive.read(entry_points).decode()
    assert "gradlint = gradlint.cli:main" in text
    assert "GL = gradlint.flake8_plugin:GradlintPlugin" in text
    assert not any(name.startswith(("tests/", "rules/", "benchmarks/")) for name in names)


def test_installed_wheel_lists_rules_from_its_own_catalogue(wheel, tmp_path):
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(tmp_path)
    script = (
        "import gradlint, gradlint.catalogue as c, sys; from gradlint.cli import main;"
        "print(gradlint.__file__); print(c.catalogue_dir()); sys.exit(main(['rules']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        check=True,
    )
    module_file, catalogue, *listing = done.stdout.splitlines()
    assert module_file.startswith(str(tmp_path))
    assert catalogue == str(tmp_path / "gradlint" / "_catalogue")
    codes = [line.split()[0] for line in listing]
    assert codes == sorted(p.stem for p in (ROOT / "rules").glob("GL*.md"))


def test_pip_installs_the_wheel_under_the_readme_name_with_its_extra(wheel):
    with zipfile.ZipFile(wheel) as archive:
        [metadata] = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        headers = archive.read(metadata).decode().split("\n\n", 1)[0].splitlines()
    assert "Name: torch-gradlint" in headers and "Provides-Extra: runtime" in headers
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--no-deps"]
        + ["--no-index", "--find-links", str(wheel.parent), "torch-gradlint[runtime]"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Would install torch-gradlint-" in done.stdout
    assert "does not provide the extra" not in done.stderr
