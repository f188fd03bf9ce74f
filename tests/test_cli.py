import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import gradlint.probe
from gradlint import __version__
from gradlint.cli import _parser, main
from gradlint.engine import LintResult

ONLY = ["--select", "GL001,GL303"]  # the rules these tests rely on, whatever else lands
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
BAD = (
    "import torch.nn as nn\n\n\n"
    "class M(nn.Module):\n"
    "    def backward(self, grad_output):\n"
    "        return grad_output\n"
)
CLEAN = "import torch\n\nx = torch.zeros(3)\n"
FLAKE8_LINE = re.compile(r"^[^:]+\.py:\d+:\d+: GL\d{3} .+$")


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project directory with one finding in bad.py, made the working directory."""
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "clean.py").write_text(CLEAN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_examples_have_findings_in_flake8_format(capsys):
    code, out, err = _run(capsys, str(EXAMPLES))
    assert code == 1, err
    assert out and all(FLAKE8_LINE.match(line) for line in out.splitlines())


def test_exit_codes(project, capsys):
    assert _run(capsys, "clean.py", *ONLY)[0] == 0
    code, out, _ = _run(capsys, *ONLY)
    assert (code, out.splitlines()) == (1, [f"bad.py:5:9: GL303 {_message(out)}"])
    code, _, err = _run(capsys, "--no-such-flag")
    assert code == 2 and "unrecognized arguments: --no-such-flag" in err
    assert _run(capsys, "--jobs", "0")[0] == 2


def _message(out: str) -> str:
    return out.split("GL303 ", 1)[1].strip()


def test_config_errors_exit_2_and_name_the_problem(project, capsys):
    (project / "pyproject.toml").write_text('[tool.gradlint]\nselct = ["GL3"]\n')
    code, out, err = _run(capsys)
    assert (code, out) == (2, "")
    assert "unknown setting(s) selct" in err
    code, _, err = _run(capsys, "--config", "pyproject.toml")
    assert code == 2 and "selct" in err
    code, _, err = _run(capsys, "--config", "missing.toml")
    assert code == 2 and "missing.toml: cannot read" in err


def test_unknown_code_on_the_command_line(project, capsys):
    code, _, err = _run(capsys, "--ignore", "GL303,GL3999")
    assert code == 2 and "ignore: GL3999" in err


def test_pyproject_settings_and_flag_overrides(project, capsys):
    (project / "pyproject.toml").write_text('[tool.gradlint]\nignore = ["GL303"]\n')
    assert _run(capsys)[0] == 0
    assert _run(capsys, "--ignore", "GL001")[0] == 1
    assert _run(capsys, "--per-file-ignores", "bad.py:GL3")[0] == 0


def test_config_found_from_the_first_path_not_the_working_directory(project, capsys, tmp_path):
    sub = project / "sub"
    sub.mkdir()
    (sub / "pyproject.toml").write_text('[tool.gradlint]\nignore = ["GL3"]\n')
    (sub / "bad.py").write_text(BAD)
    assert _run(capsys, "sub")[0] == 0
    assert _run(capsys, "bad.py", "sub")[0] == 1


def test_noqa_and_file_level_noqa(project, capsys):
    (project / "bad.py").write_text(BAD.replace("grad_output):", "grad_output):  # noqa: GL303"))
    assert _run(capsys, "bad.py")[0] == 0
    (project / "bad.py").write_text("# gradlint: noqa\n" + BAD)
    assert _run(capsys, "bad.py")[0] == 0


def test_stdin_with_filename():
    argv = [sys.executable, "-m", "gradlint", "-", "--stdin-filename", "pkg/model.py", *ONLY]
    result = subprocess.run(argv, input=BAD, capture_output=True, text=True, check=False)
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("pkg/model.py:5:9: GL303 ")
    ignored = [*argv, "--per-file-ignores", "pkg/*:GL303"]
    assert (
        subprocess.run(ignored, input=BAD, capture_output=True, text=True, check=False).returncode
        == 0
    )


def test_jobs_2_prints_exactly_what_jobs_1_prints(project, capsys):
    for index in range(8):
        (project / f"m{index}.py").write_text(BAD if index % 2 else CLEAN)
    serial = _run(capsys, "--jobs", "1", *ONLY)
    parallel = _run(capsys, "--jobs", "2", *ONLY)
    assert serial == parallel and serial[1].count("GL303") == 5


def test_formats_output_file_and_statistics(project, capsys):
    code, out, _ = _run(capsys, "--format", "json", *ONLY)
    assert code == 1 and [d["code"] for d in json.loads(out)] == ["GL303"]
    code, out, err = _run(capsys, "--format", "json", "--statistics", *ONLY)
    assert json.loads(out) and "GL303" in err
    code, out, _ = _run(capsys, "--output", "report.txt", "--statistics", *ONLY)
    assert code == 1 and re.search(r"1\s+GL303", out)
    assert (project / "report.txt").read_text().startswith("bad.py:5:9: GL303")
    code, out, _ = _run(capsys, "--show-source", *ONLY)
    assert "def backward(self, grad_output):" in out and "^" in out


def test_internal_error_is_printed_and_exits_2(project, capsys, monkeypatch):
    broken = LintResult(internal_errors=["bad.py: internal error\nTraceback ..."])
    monkeypatch.setattr("gradlint.engine.lint_source", lambda *args: broken)
    code, _, err = _run(capsys, "bad.py", "--jobs", "1")
    assert code == 2 and "bad.py: internal error" in err


def test_probe_flags_reach_run_probes(project, capsys, monkeypatch):
    calls = []

    def fake_run_probes(diagnostics, *, mode, timeout, sources, **_):
        calls.append((mode, timeout, sorted(sources)))
        for d in diagnostics:
            d.probe = {"verdict": "refuted", "message": "no error at run time"}
        return diagnostics

    monkeypatch.setattr(gradlint.probe, "run_probes", fake_run_probes)
    code, out, _ = _run(capsys, "--probe", "bad.py", *ONLY)  # a bare --probe keeps the path
    assert code == 1 and "[refuted: no error at run time]" in out
    assert calls[0][:2] == ("definitions", 10.0) and "bad.py" in calls[0][2]
    code, out, err = _run(capsys, "--probe=exec", "--probe-timeout", "2", "--hide-refuted", *ONLY)
    assert (code, out) == (0, "") and "runs the linted project code" in err
    assert calls[1][:2] == ("exec", 2.0) and "clean.py" in calls[1][2]
    _run(capsys, "--probe=witness", "bad.py", *ONLY)
    assert calls[2] == ("witness", 10.0, ["bad.py"])


def test_a_projects_probe_timeout_reaches_the_probe_capped(project, capsys, monkeypatch):
    """`probe-timeout = 1000000` in the linted project's pyproject (with an `__init__`
    that never returns, that hung `--probe`): the probe gets 60 s; the flag may raise it."""
    timeouts = []

    def fake_run_probes(diagnostics, *, mode, timeout, sources, **_):
        timeouts.append(timeout)
        return diagnostics

    monkeypatch.setattr(gradlint.probe, "run_probes", fake_run_probes)
    (project / "pyproject.toml").write_text("[tool.gradlint]\nprobe-timeout = 1000000\n")
    _run(capsys, "--probe", "bad.py", *ONLY)
    _run(capsys, "--probe", "--probe-timeout", "600", "bad.py", *ONLY)
    assert timeouts == [60.0, 600.0]


@pytest.mark.parametrize("mode", ["true", '"exec"', '"definitions"'])
def test_a_projects_config_cannot_switch_code_probes_on(project, capsys, monkeypatch, mode):
    """CI linting an untrusted pull request must not run its code because its pyproject
    says so: a note and witness probes only, unless the user's environment opts in."""
    calls = []

    def fake_run_probes(diagnostics, *, mode, timeout, sources, **_):
        calls.append(mode)
        return diagnostics

    monkeypatch.setattr(gradlint.probe, "run_probes", fake_run_probes)
    monkeypatch.delenv("GRADLINT_ALLOW_EXEC", raising=False)
    (project / "pyproject.toml").write_text(f"[tool.gradlint]\nprobe = {mode}\n")
    code, out, err = _run(capsys, "bad.py", *ONLY)
    assert code == 1 and "GL303" in out and calls == ["witness"]
    assert "would run the linted code" in err and "GRADLINT_ALLOW_EXEC=1" in err
    monkeypatch.setenv("GRADLINT_ALLOW_EXEC", "1")
    _run(capsys, "bad.py", *ONLY)
    assert calls[1] == mode.strip('"').replace("true", "definitions")


def test_a_projects_config_may_ask_for_witness_probes(project, capsys, monkeypatch):
    calls = []
    monkeypatch.setattr(
        gradlint.probe, "run_probes", lambda d, *, mode, **_: calls.append(mode) or d
    )
    (project / "pyproject.toml").write_text('[tool.gradlint]\nprobe = "witness"\n')
    _, _, err = _run(capsys, "bad.py", *ONLY)
    assert calls == ["witness"] and "note" not in err


def test_gl901_obeys_select_and_ignore(project, capsys, monkeypatch):
    from gradlint.diagnostic import Diagnostic

    def fake_run_probes(diagnostics, **_):
        return [*diagnostics, Diagnostic("bad.py", 6, 1, 6, 1, "GL901", "torch raised")]

    monkeypatch.setattr(gradlint.probe, "run_probes", fake_run_probes)
    assert "GL901" in _run(capsys, "--probe", "bad.py")[1]
    assert "GL901" not in _run(capsys, "--probe", "bad.py", *ONLY)[1]
    assert "GL901" not in _run(capsys, "--probe", "bad.py", "--ignore", "GL9")[1]


def test_probe_without_torch_exits_2(project, capsys, monkeypatch):
    def unavailable(*args, **kwargs):
        message = "torch is not installed: install 'torch-gradlint[runtime]'"
        raise gradlint.probe.ProbeUnavailable(message)

    monkeypatch.setattr(gradlint.probe, "run_probes", unavailable)
    code, _, err = _run(capsys, "--probe", "bad.py")
    assert code == 2 and "install 'torch-gradlint[runtime]'" in err


def test_version_rules_and_rule(capsys):
    assert _run(capsys, "--version") == (0, f"gradlint {__version__}\n", "")
    code, out, _ = _run(capsys, "rules")
    assert code == 0 and re.search(r"^GL303\s+module-backward-never-called\s+\w+\s+\S", out, re.M)
    code, out, _ = _run(capsys, "rule", "gl303")
    assert code == 0 and out.startswith("# GL303 module-backward-never-called")
    code, _, err = _run(capsys, "rule", "GL999")
    assert code == 2 and "unknown rule 'GL999'" in err


def test_every_flag_is_documented_in_the_readme():
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    flags = {
        option
        for action in _parser("check")._actions
        for option in action.option_strings
        if option.startswith("--") and option != "--help"
    }
    assert flags and {flag for flag in flags if f"`{flag}" not in readme} == set()


def test_no_probe_and_probe_off_win_over_the_configuration(project, capsys, monkeypatch):
    calls = []
    monkeypatch.setattr(gradlint.probe, "run_probes", lambda *a, **k: calls.append(k) or a[0])
    (project / "pyproject.toml").write_text("[tool.gradlint]\nprobe = true\n")
    assert _run(capsys, "bad.py", *ONLY)[0] == 1 and len(calls) == 1
    assert _run(capsys, "--no-probe", "bad.py", *ONLY)[0] == 1
    assert _run(capsys, "--probe=off", "bad.py", *ONLY)[0] == 1
    assert len(calls) == 1


def test_exec_in_the_configuration_runs_witness_probes_only(project, capsys, monkeypatch):
    calls = []
    monkeypatch.setattr(gradlint.probe, "run_probes", lambda *a, **k: calls.append(k) or a[0])
    (project / "pyproject.toml").write_text('[tool.gradlint]\nprobe = "exec"\n')
    code, _, err = _run(capsys, "bad.py", *ONLY)
    assert code == 1 and [call["mode"] for call in calls] == ["witness"]
    assert "pass --probe" in err and "runs the linted project code" not in err
    _run(capsys, "--probe=exec", "bad.py", *ONLY)
    assert calls[-1]["mode"] == "exec"


def test_configured_probes_without_torch_warn_and_print_static_findings(
    project, capsys, monkeypatch
):
    def unavailable(*args, **kwargs):
        raise gradlint.probe.ProbeUnavailable("torch is not installed")

    monkeypatch.setattr(gradlint.probe, "run_probes", unavailable)
    (project / "pyproject.toml").write_text("[tool.gradlint]\nprobe = true\n")
    code, out, err = _run(capsys, "bad.py", *ONLY)
    assert code == 1 and out.startswith("bad.py:5:9: GL303 ")
    assert "warning: probe setting of the configuration skipped (torch is not installed)" in err
    assert _run(capsys, "clean.py", *ONLY)[0] == 0


def test_missing_path_is_a_usage_error(project, capsys):
    code, out, err = _run(capsys, "bad.py", "nope.py")
    assert (code, out) == (2, "") and "nope.py: no such file or directory" in err


def test_exit_zero(project, capsys):
    code, out, _ = _run(capsys, "--exit-zero", *ONLY)
    assert code == 0 and "GL303" in out
    assert _run(capsys, "--exit-zero", "--select", "GL999")[0] == 2


def test_rule_accepts_a_prefix(capsys):
    code, out, _ = _run(capsys, "rule", "gl30")
    titles = re.findall(r"^# (GL\d{3}) ", out, re.M)
    assert code == 0 and len(titles) > 1 and all(t.startswith("GL30") for t in titles)


def test_force_exclude_skips_named_files_an_exclude_covers(project, capsys):
    (project / "gen").mkdir()
    (project / "gen" / "bad.py").write_text(BAD)
    (project / "pyproject.toml").write_text('[tool.gradlint]\nextend-exclude = ["gen"]\n')
    assert _run(capsys, "gen/bad.py", *ONLY)[0] == 1
    assert _run(capsys, "--force-exclude", "gen/bad.py", "clean.py", *ONLY)[0] == 0
    (project / "pyproject.toml").write_text(
        '[tool.gradlint]\nextend-exclude = ["gen"]\nforce-exclude = true\n'
    )
    assert _run(capsys, "gen/bad.py", *ONLY)[0] == 0
    assert _run(capsys, "--no-force-exclude", "gen/bad.py", *ONLY)[0] == 1
