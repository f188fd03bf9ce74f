"""Output formats, read back the way their consumers read them."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sarif import loader

from gradlint.catalogue import load_catalogue
from gradlint.diagnostic import Applicability, Diagnostic, Edit, Fix, Severity
from gradlint.engine import lint_source
from gradlint.report import FORMATS, render, render_statistics
from gradlint.report.github import escape_data, escape_property

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "custom_layer.py"


def diag(**fields) -> Diagnostic:
    base = dict(
        path="pkg/model.py",
        line=3,
        column=5,
        end_line=3,
        end_column=9,
        code="GL303",
        message="`M.backward` is never called",
        name="module-backward-never-called",
        severity=Severity.WARNING,
    )
    return Diagnostic(**{**base, **fields})


def example_findings() -> tuple[list[Diagnostic], dict[str, str]]:
    source = EXAMPLE.read_text()
    findings = lint_source(str(EXAMPLE), source).diagnostics
    assert findings, "examples/ must hold findings"
    return findings, {str(EXAMPLE): source}


def test_formats_are_the_five_of_the_spec():
    assert set(FORMATS) == {"flake8", "full", "json", "sarif", "github"}


def test_unknown_format_names_the_choices():
    with pytest.raises(ValueError, match="flake8, full, json, sarif, github"):
        render([], "xml", {})


@pytest.mark.parametrize("fmt", ["flake8", "full", "github"])
def test_no_findings_print_nothing(fmt):
    assert render([], fmt, {}) == ""


def test_flake8_line():
    out = render([diag()], "flake8", {})
    assert out == "pkg/model.py:3:5: GL303 `M.backward` is never called\n"


def test_flake8_carries_the_probe_verdict():
    confirmed = diag(
        probe={"verdict": "confirmed", "message": "a leaf Variable that requires grad"}
    )
    unjudged = diag(probe={"status": "skipped"})
    out = render([confirmed, unjudged], "flake8", {}).splitlines()
    assert out[0].endswith(
        "never called [confirmed in your code: a leaf Variable that requires grad]"
    )
    assert out[1].endswith("never called")


def test_full_underlines_the_span_and_gives_the_fix_hint():
    source = "import torch\n\nfor p in params:\n"
    out = render([diag(line=3, column=5, end_column=6)], "full", {"pkg/model.py": source})
    lines = out.splitlines()
    assert lines[0] == "pkg/model.py:3:5: GL303 `M.backward` is never called"
    assert lines[2] == "3 | for p in params:"
    assert lines[3] == "  |     ^"
    hint = " ".join(load_catalogue()["GL303"].fix_hint.split())
    help_text = " ".join(line.strip() for line in lines[4:]).removeprefix("= help: ")
    assert help_text == hint


def test_full_keeps_tabs_and_reads_crlf_sources():
    source = "import torch\r\n\r\n\tdef  backward(self):\r\n"
    out = render([diag(line=3, column=7, end_column=15)], "full", {"pkg/model.py": source})
    lines = out.splitlines()
    assert lines[2] == "3 | \tdef  backward(self):"
    assert lines[3] == "  | \t     ^~~~~~~~"


def test_full_multiline_span_is_underlined_to_the_end_of_its_first_line():
    source = "x = torch.ones(3)\ny = f(x,   \n      x)\n"
    finding = diag(line=2, column=5, end_line=3, end_column=9)
    lines = render([finding], "full", {"pkg/model.py": source}).splitlines()
    assert lines[2:4] == ["2 | y = f(x,   ", "  |     ^~~~"]


def test_full_adds_the_fix_and_the_probe_verdict():
    fix = Fix((Edit(3, 5, 3, 9, "torch.where(m, 0, x)"),), description="use torch.where")
    finding = diag(fix=fix, probe={"verdict": "refuted", "message": "no error raised"})
    lines = render([finding], "full", {}).splitlines()
    assert "   = fix: use torch.where" in lines
    assert lines[-3:] == ["   = probe: refuted: no error raised", "", "[*] 1 fixable with `--fix`"]
    assert lines[0].endswith("never called [refuted: no error raised]")
    assert lines[0].startswith("pkg/model.py:3:5: GL303 [*] `M.backward`")


def test_full_marks_unsafe_fixes_only_when_they_are_enabled():
    fix = Fix((Edit(3, 5, 3, 9, "x"),), Applicability.UNSAFE, "wrap it")
    hidden = render([diag(fix=fix)], "full", {}).splitlines()
    assert "[*]" not in hidden[0]
    assert "   = fix (unsafe): wrap it" in hidden
    assert hidden[-1] == "[*] 0 fixable with `--fix` (1 more with `--unsafe-fixes`)"
    shown = render([diag(fix=fix)], "full", {}, unsafe_fixes=True).splitlines()
    assert " GL303 [*] " in shown[0]
    assert shown[-1] == "[*] 1 fixable with `--fix --unsafe-fixes`"


def test_full_without_source_still_reports_and_separates_findings():
    out = render([diag(), diag(line=4)], "full", {})
    blocks = out.split("\n\n")
    assert len(blocks) == 2
    assert all(block.startswith("pkg/model.py:") and " | " not in block for block in blocks)


def test_full_on_a_syntax_error():
    source = "import torch\n\ndef forward(x:\n    return x\n"
    [error] = lint_source("broken.py", source).diagnostics
    out = render([error], "full", {"broken.py": source})
    assert error.code == "GL001"
    assert f"{error.line} | " in out
    assert "^" in out.splitlines()[3]


def test_json_fields_and_optional_fix_and_probe():
    fix = Fix((Edit(3, 5, 3, 9, "torch.where(m, 0, x)"),), description="use torch.where")
    findings = [diag(), diag(fix=fix, probe={"verdict": "confirmed", "message": "boom"})]
    plain, rich = json.loads(render(findings, "json", {}))
    assert plain == {
        "path": "pkg/model.py",
        "line": 3,
        "column": 5,
        "end_line": 3,
        "end_column": 9,
        "code": "GL303",
        "name": "module-backward-never-called",
        "severity": "warning",
        "message": "`M.backward` is never called",
        "detail": "",
        "help": load_catalogue()["GL303"].fix_hint.replace("\n", " "),
    }
    assert rich["fix"] == {
        "applicability": "safe",
        "description": "use torch.where",
        "edits": [
            {
                "line": 3,
                "column": 5,
                "end_line": 3,
                "end_column": 9,
                "content": "torch.where(m, 0, x)",
            }
        ],
    }
    assert rich["probe"] == {"verdict": "confirmed", "message": "boom"}


def test_json_of_no_findings_is_an_empty_array():
    assert json.loads(render([], "json", {})) == []


def test_github_commands():
    error = diag(code="GL001", severity=Severity.ERROR, message="Cannot parse: 100% bad\nline")
    out = render([diag(), error], "github", {}).splitlines()
    assert out[0] == (
        "::warning file=pkg/model.py,line=3,col=5,endLine=3,endColumn=9,title=GL303"
        "::`M.backward` is never called"
    )
    assert out[1].startswith("::error file=pkg/model.py,")
    assert out[1].endswith(",title=GL001::Cannot parse: 100%25 bad%0Aline")


def test_github_escapes_property_delimiters():
    assert escape_property("a,b:c%\r\n") == "a%2Cb%3Ac%25%0D%0A"
    assert escape_data("a,b:c%\n") == "a,b:c%25%0A"
    out = render([diag(path="dir,x/a:b.py")], "github", {})
    assert out.startswith("::warning file=dir%2Cx/a%3Ab.py,line=3,")


def test_statistics_count_per_code_most_frequent_first():
    findings = [diag(), diag(code="GL001", name="syntax-error"), diag(line=9)]
    assert render_statistics(findings) == (
        "2  GL303  module-backward-never-called\n1  GL001  syntax-error\n"
    )
    assert render_statistics([]) == ""


# --- SARIF: read by sarif-tools, and checked against the spec's required properties ---


def check_sarif_required(log: dict) -> None:
    """The properties SARIF 2.1.0 requires (sections 3.13-3.30) on what gradlint emits."""
    assert log["version"] == "2.1.0"
    assert isinstance(log["runs"], list) and len(log["runs"]) == 1
    [run] = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"]
    rules = driver["rules"]
    assert len({r["id"] for r in rules}) == len(rules)
    for rule in rules:
        assert rule["id"] and rule["shortDescription"]["text"] and rule["help"]["text"]
        assert rule["defaultConfiguration"]["level"] in ("none", "note", "warning", "error")
    for base in run.get("originalUriBaseIds", {}).values():
        assert base["uri"].endswith("/")  # a base URI must end with a slash (3.14.14)
    for result in run["results"]:
        assert result["message"]["text"]
        assert result["level"] in ("none", "note", "warning", "error")
        if "ruleIndex" in result:
            assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        for location in result["locations"]:
            physical = location["physicalLocation"]
            assert physical["artifactLocation"]["uri"]
            region = physical["region"]
            assert region["startLine"] >= 1 and region["startColumn"] >= 1
            assert region["endLine"] >= region["startLine"]
        for fix in result.get("fixes", []):
            assert fix["artifactChanges"]
            for change in fix["artifactChanges"]:
                assert change["artifactLocation"]["uri"] and change["replacements"]
                assert all("deletedRegion" in r for r in change["replacements"])


def read_with_sarif_tools(tmp_path: Path, text: str):
    path = tmp_path / "gradlint.sarif"
    path.write_text(text, encoding="utf-8")
    [run] = loader.load_sarif_file(str(path)).runs
    return run


def test_sarif_of_real_findings_is_read_by_sarif_tools(tmp_path):
    findings, sources = example_findings()
    text = render(findings, "sarif", sources)
    log = json.loads(text)
    check_sarif_required(log)
    run = read_with_sarif_tools(tmp_path, text)
    assert run.get_tool_name() == "gradlint"
    records = run.get_records()
    assert [(r["Code"], int(r["Line"]), r["Severity"]) for r in records] == [
        (d.code, d.line, d.severity.value) for d in findings
    ]
    assert records[0]["Location"] == EXAMPLE.as_uri()
    assert run.get_rules_by_id("GL303")[0]["help"]["markdown"] == load_catalogue()["GL303"].text


def test_sarif_rules_are_the_catalogue_and_relative_paths_are_uri_references(tmp_path):
    fix = Fix((Edit(3, 5, 3, 9, "new"),), description="replace it")
    findings = [
        diag(path="my dir/model.py", fix=fix, probe={"verdict": "confirmed"}),
        diag(code="GL001", severity=Severity.ERROR, line=1, column=1, end_column=1),
    ]
    text = render(findings, "sarif", {})
    log = json.loads(text)
    check_sarif_required(log)
    [run] = log["runs"]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == list(load_catalogue())
    location = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "my%20dir/model.py", "uriBaseId": "%SRCROOT%"}
    assert run["results"][0]["fixes"][0]["description"]["text"] == "replace it"
    [change] = run["results"][0]["fixes"][0]["artifactChanges"]
    assert change["replacements"] == [
        {
            "deletedRegion": {"startLine": 3, "startColumn": 5, "endLine": 3, "endColumn": 9},
            "insertedContent": {"text": "new"},
        }
    ]
    assert run["results"][0]["properties"] == {"probe": {"verdict": "confirmed"}}
    records = read_with_sarif_tools(tmp_path, text).get_records()
    assert [(r["Code"], r["Severity"]) for r in records] == [
        ("GL303", "warning"),
        ("GL001", "error"),
    ]


def test_sarif_without_findings_is_a_valid_empty_run(tmp_path):
    text = render([], "sarif", {})
    check_sarif_required(json.loads(text))
    assert read_with_sarif_tools(tmp_path, text).get_result_count() == 0


def test_cli_sarif_output_is_summarised_by_the_sarif_tools_cli(tmp_path):
    report = tmp_path / "gradlint.sarif"
    lint = [sys.executable, "-m", "gradlint", "--jobs", "1", "--format", "sarif"]
    done = subprocess.run([*lint, "--output", str(report), str(EXAMPLE)], capture_output=True)
    assert done.returncode == 1, done.stderr
    sarif_cli = Path(sys.executable).with_name("sarif")
    summary = subprocess.run(
        [str(sarif_cli), "--check", "warning", "summary", str(report)],
        capture_output=True,
        text=True,
    )
    assert summary.returncode == 1  # --check: findings at warning level or above
    findings, _ = example_findings()
    warnings = sum(d.severity == Severity.WARNING for d in findings)
    assert f"warning: {warnings}" in summary.stdout
    assert all(d.code in summary.stdout for d in findings)
