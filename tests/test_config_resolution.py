"""Per-file configuration as in ruff: the nearest gradlint.toml / pyproject.toml applies."""

from pathlib import Path

import pytest

from gradlint.cli import main
from gradlint.config import Resolver
from gradlint.discovery import discover

BACKWARD = (
    "import torch.nn as nn\n\n\n"
    "class M(nn.Module):\n"
    "    def backward(self, grad_output):\n"
    "        return grad_output\n"
)
LEAF_EDIT = "import torch\n\nw = torch.zeros(3, requires_grad=True)\nw += 1\n"


def tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def lines(capsys, *argv) -> tuple[int, list[str], str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, sorted(out.splitlines()), err


@pytest.fixture
def two_projects(tmp_path, monkeypatch):
    """`a` ignores GL303, `b` ignores GL101 and excludes its `gen/`; both hold both bugs."""
    tree(
        tmp_path,
        {
            "a/pyproject.toml": '[tool.gradlint]\nignore = ["GL303"]\n',
            "a/m.py": BACKWARD,
            "a/pkg/leaf.py": LEAF_EDIT,
            "b/gradlint.toml": 'ignore = ["GL101"]\nextend-exclude = ["gen"]\n',
            "b/m.py": BACKWARD,
            "b/leaf.py": LEAF_EDIT,
            "b/gen/m.py": BACKWARD,
            # a pyproject without [tool.gradlint] is passed over
            "b/sub/pyproject.toml": "[tool.black]\nline-length = 90\n",
            "b/sub/m.py": BACKWARD,
        },
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_each_file_uses_its_nearest_configuration(two_projects, capsys):
    code, out, _ = lines(capsys, "a", "b", "--jobs", "1")
    assert code == 1
    assert [line.split(": ")[0] + " " + line.split()[1] for line in out] == [
        "a/pkg/leaf.py:4:1 GL101",
        "b/m.py:5:9 GL303",
        "b/sub/m.py:5:9 GL303",
    ]


def test_explicit_files_use_their_own_configuration_too(two_projects, capsys):
    code, out, _ = lines(capsys, "b/leaf.py", "a/m.py")
    assert (code, out) == (0, [])


def test_config_flag_applies_one_file_to_every_path(two_projects, capsys):
    code, out, _ = lines(capsys, "--config", "a/pyproject.toml", "a", "b")
    assert [line.split(":")[0] for line in out] == ["a/pkg/leaf.py", "b/leaf.py"]


def test_a_flag_replaces_the_setting_in_every_configuration(two_projects, capsys):
    code, out, _ = lines(capsys, "a", "b", "--ignore", "GL1")
    assert {line.split(":")[0] for line in out} == {"a/m.py", "b/m.py", "b/sub/m.py"}


def test_an_invalid_configuration_met_while_walking_exits_2(two_projects, capsys):
    """Its files are not linted, the others are; exit 2 at the end, the file named."""
    (two_projects / "b/sub/gradlint.toml").write_text('selct = ["GL1"]\n')
    code, out, err = lines(capsys, "a", "b", "--jobs", "1")
    assert code == 2
    assert [line.split(":")[0] for line in out] == ["a/pkg/leaf.py", "b/m.py"]
    assert "b/sub/gradlint.toml: unknown setting(s) selct" in err


# Each value of issue 35 that gave "internal error", exit 2 and no report: (the file's
# text, what the error names).
BAD_CONFIGURATIONS = {
    "huge max-depth": ("[tool.gradlint]\nmax-depth = 99999999999999999999\n", "max-depth"),
    "bad glob": ('[tool.gradlint]\nextend-exclude = ["[z-a]"]\n', "extend-exclude: bad glob"),
    "tool = 5": ("tool = 5\n", "tool must be a table"),
    "gradlint = 5": ("[tool]\ngradlint = 5\n", "tool.gradlint must be a table"),
    "probe-timeout nan": ("[tool.gradlint]\nprobe-timeout = nan\n", "probe-timeout"),
    "probe-timeout inf": ("[tool.gradlint]\nprobe-timeout = inf\n", "probe-timeout"),
    "not UTF-8": (b"[tool.gradlint]\n# \xff\xfe\n", "not UTF-8"),
}


@pytest.mark.parametrize("case", BAD_CONFIGURATIONS)
def test_a_bad_value_in_one_configuration_stops_only_its_files(two_projects, capsys, case):
    text, named = BAD_CONFIGURATIONS[case]
    pyproject = two_projects / "a/pyproject.toml"
    pyproject.write_bytes(text if isinstance(text, bytes) else text.encode())
    code, out, err = lines(capsys, "a", "b", "--jobs", "1")
    assert code == 2
    assert [line.split(":")[0] for line in out] == ["b/m.py", "b/sub/m.py"]
    assert f"a/pyproject.toml: {named}" in err
    assert "a/pyproject.toml: the files it configures were not linted" in err
    assert "internal error" not in err


def test_every_problem_of_a_configuration_is_listed(two_projects, capsys):
    (two_projects / "a/pyproject.toml").write_text(
        '[tool.gradlint]\nmax-depth = 0\nselect = 5\nprobe = "x"\nextend-exclude = ["[z-a]"]\n'
    )
    code, _, err = lines(capsys, "a")
    assert code == 2
    for key in ("max-depth", "select", "probe", "extend-exclude"):
        assert f"gradlint: error: a/pyproject.toml: {key}" in err


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--probe-timeout", "inf"], "--probe-timeout"),
        (["--probe-timeout", "nan"], "--probe-timeout"),
        (["--select", ""], "name no rule"),
    ],
)
def test_bad_flags_exit_2_saying_why(two_projects, capsys, flags, named):
    code, out, err = lines(capsys, "a", *flags)
    assert (code, out) == (2, [])
    assert named in err and "internal error" not in err


def test_a_projects_probe_timeout_is_capped_and_the_flag_may_raise_it(tmp_path):
    from gradlint.config import CONFIG_PROBE_TIMEOUT_CAP

    tree(tmp_path, {"pyproject.toml": "[tool.gradlint]\nprobe-timeout = 1000000\n"})
    known = {"GL101"}
    config = Resolver({}, known).for_path(tmp_path / "m.py")
    assert config.probe_timeout == CONFIG_PROBE_TIMEOUT_CAP
    raised = Resolver({"probe-timeout": 600.0}, known).for_path(tmp_path / "m.py")
    assert raised.probe_timeout == 600.0


def test_gradlint_toml_wins_over_pyproject_in_the_same_directory(tmp_path):
    tree(
        tmp_path,
        {
            "pyproject.toml": '[tool.gradlint]\nselect = ["GL1"]\n',
            "gradlint.toml": "select = ['GL3']\n",
        },
    )
    config = Resolver({}, {"GL101", "GL303"}).for_path(tmp_path / "m.py")
    assert (config.select, config.root) == (("GL3",), tmp_path)


def test_discovery_uses_each_directorys_excludes(two_projects):
    found = discover(["a", "b"], Resolver({}, {"GL101", "GL303"}))
    assert "b/gen/m.py" not in found.files and "a/m.py" in found.files


def test_extend_per_file_ignores_adds_to_per_file_ignores(tmp_path, monkeypatch, capsys):
    tree(
        tmp_path,
        {
            "pyproject.toml": '[tool.gradlint.per-file-ignores]\n"m.py" = ["GL101"]\n',
            "m.py": BACKWARD + LEAF_EDIT.replace("import torch\n", ""),
        },
    )
    monkeypatch.chdir(tmp_path)
    code, out, _ = lines(capsys, "m.py")
    assert [line.split()[1] for line in out] == ["GL303"]
    assert lines(capsys, "m.py", "--extend-per-file-ignores", "m.py:GL3")[:2] == (0, [])
    (tmp_path / "pyproject.toml").write_text(
        '[tool.gradlint.per-file-ignores]\n"m.py" = ["GL101"]\n'
        '[tool.gradlint.extend-per-file-ignores]\n"*.py" = ["GL303"]\n'
    )
    assert lines(capsys, "m.py")[:2] == (0, [])
