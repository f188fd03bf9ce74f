from pathlib import Path

import pytest

from gradlint.catalogue import load_catalogue
from gradlint.config import (
    DEFAULT_EXCLUDE,
    Config,
    ConfigError,
    build_config,
    find_config,
    parse_per_file_ignores,
    read_settings,
)

KNOWN = {"GL001", "GL101", "GL102", "GL303"}


def _build(settings=None, overrides=None, root=Path("/project")) -> Config:
    return build_config(settings or {}, overrides or {}, root, KNOWN)


def test_nearest_pyproject_with_a_gradlint_table_upward_from_the_path(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.gradlint]\nselect = ["GL1"]\n')
    inner = tmp_path / "pkg" / "sub"
    inner.mkdir(parents=True)
    (tmp_path / "pkg" / "pyproject.toml").write_text("[tool.other]\nx = 1\n")
    (inner / "m.py").write_text("")
    assert find_config(inner / "m.py") == tmp_path / "pyproject.toml"
    assert find_config(inner) == tmp_path / "pyproject.toml"
    (inner / "pyproject.toml").write_text("[tool.gradlint]\n")
    assert find_config(inner / "m.py") == inner / "pyproject.toml"


def test_settings_of_every_key(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        "[tool.gradlint]\n"
        'select = ["GL1"]\n'
        'ignore = ["gl102"]\n'
        'extend-select = ["GL303"]\n'
        'exclude = ["gen"]\n'
        'extend-exclude = ["*_pb2.py"]\n'
        'no-grad-contexts = ["mylib.frozen"]\n'
        'probe = "exec"\n'
        "probe-timeout = 3\n"
        "max-depth = 50\n"
        'cache-dir = "build/cache"\n'
        '[tool.gradlint.per-file-ignores]\n"tests/*" = ["GL101"]\n'
    )
    config = _build(read_settings(pyproject), root=tmp_path)
    assert config == Config(
        select=("GL1",),
        ignore=("GL102",),
        extend_select=("GL303",),
        per_file_ignores={"tests/*": ("GL101",)},
        exclude=("gen",),
        extend_exclude=("*_pb2.py",),
        no_grad_contexts=("mylib.frozen",),
        probe="exec",
        probe_timeout=3.0,
        max_depth=50,
        cache_dir=tmp_path / "build" / "cache",
        root=tmp_path,
    )


def test_defaults_and_standalone_config_file(tmp_path):
    default_cache = Path("/project/.gradlint_cache")
    assert _build() == Config(root=Path("/project"), cache_dir=default_cache)
    assert _build().exclude == DEFAULT_EXCLUDE
    standalone = tmp_path / "gradlint.toml"
    standalone.write_text('ignore = ["GL3"]\n')
    assert read_settings(standalone) == {"ignore": ["GL3"]}


def test_flags_replace_file_settings():
    config = _build({"select": ["GL1"], "ignore": ["GL101"]}, {"select": ["GL3"], "ignore": None})
    assert (config.select, config.ignore) == (("GL3",), ("GL101",))


def test_probe_modules():
    modules = {"Net": {"args": [10, 5], "inputs": [["torch.randn(8, 10)"]]}}
    assert _build({"probe-modules": modules}).probe_modules == modules
    for bad, message in [
        ({"Net": {"shape": [1]}}, "may only set args, kwargs and inputs"),
        ({"Net": {"args": 3}}, "args must be a list"),
        ({"Net": {"inputs": ["torch.randn(2)"]}}, "lists of expressions"),
    ]:
        with pytest.raises(ConfigError, match=message):
            _build({"probe-modules": bad})


def test_probe_values():
    assert _build({"probe": True}).probe == "definitions"
    assert _build({"probe": "witness"}).probe == "witness"
    assert _build({"probe": False}).probe is None
    assert _build({"probe": True}, {"probe": "exec"}).probe == "exec"


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"selct": ["GL1"], "colour": 1}, "colour, selct"),
        ({"select": ["GL9"]}, "select: GL9"),
        ({"ignore": ["GL1", "XYZ"]}, "ignore: XYZ"),
        ({"per-file-ignores": {"t/*": ["GL1011"]}}, "per-file-ignores['t/*']: GL1011"),
        ({"select": 3}, "select must be a list of strings"),
        ({"per-file-ignores": ["GL1"]}, "per-file-ignores must be a table"),
        ({"probe": "yes"}, "probe must be"),
        ({"probe-timeout": 0}, "probe-timeout must be a positive, finite number"),
        ({"max-depth": 10**20}, "max-depth must be an integer from 1 to 10000"),
        ({"exclude": ["a\\"]}, "exclude: bad glob"),
    ],
)
def test_bad_settings_are_named(settings, named):
    with pytest.raises(ConfigError) as error:
        _build(settings)
    assert named in str(error.value)


def test_invalid_toml_is_a_config_error(tmp_path):
    broken = tmp_path / "pyproject.toml"
    broken.write_text("[tool.gradlint\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        read_settings(broken)
    with pytest.raises(ConfigError, match="cannot read"):
        read_settings(tmp_path / "missing.toml")


def test_per_file_ignores_command_line_form():
    parsed = parse_per_file_ignores("tests/*:GL101,gl102 scripts/*.py:GL3")
    assert parsed == {"tests/*": ("GL101", "GL102"), "scripts/*.py": ("GL3",)}
    with pytest.raises(ConfigError, match="GLOB:CODE"):
        parse_per_file_ignores("tests/*")


def test_per_file_ignores_match_paths_relative_to_the_root(tmp_path):
    config = Config(per_file_ignores={"tests/*": ("GL1",), "conftest.py": ("GL3",)}, root=tmp_path)
    assert config.ignored_in(str(tmp_path / "tests" / "test_a.py")) == ("GL1",)
    assert config.ignored_in(str(tmp_path / "src" / "conftest.py")) == ("GL3",)
    assert config.ignored_in(str(tmp_path / "src" / "tests" / "m.py")) == ()


def test_is_selected_longest_prefix_wins():
    config = Config(select=("GL",), ignore=("GL1",), extend_select=("GL101",))
    assert [config.is_selected(c) for c in ("GL101", "GL102", "GL303")] == [True, False, True]


def test_the_readme_configuration_example_is_valid(tmp_path):
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(readme.split("```toml\n", 1)[1].split("```", 1)[0])
    config = build_config(read_settings(pyproject), {}, tmp_path, set(load_catalogue()))
    assert config.per_file_ignores and config.no_grad_contexts


def test_every_bad_value_of_a_file_is_listed():
    settings = {
        "per-file-ignores": {"a/*": 5, "b/*": [3], "[z-a]": ["GL1"]},
        "force-exclude": 3,
        "max-depth": 10**20,
    }
    with pytest.raises(ConfigError) as error:
        _build(settings)
    assert len(error.value.problems) == 5
    for named in ("bad glob '[z-a]'", "['a/*']", "['b/*']", "force-exclude", "max-depth"):
        assert named in str(error.value)
