"""One finding per place, catalogue severities, short messages with the rest in `detail`."""

import json
from pathlib import Path

from gradlint.catalogue import load_catalogue
from gradlint.config import Config
from gradlint.diagnostic import Diagnostic, Severity
from gradlint.findings import SHORT_MESSAGE, finalize, split_message
from gradlint.report import render
from gradlint.runner import lint_file, run

ROOT = Path(__file__).resolve().parent.parent
NESTED = """\
import torch.nn.functional as F


def fit(model, data, opt):
    for epoch in range(3):
        for x, y in data:
            for _ in range(2):
                F.mse_loss(model(x), y).backward()
                opt.step()
"""


def diag(message="m", **fields) -> Diagnostic:
    base = dict(path="m.py", line=3, column=5, end_line=3, end_column=9, code="GL303")
    return Diagnostic(**{**base, **fields}, message=message)


def test_short_messages_stay_whole():
    assert split_message("Cannot parse: invalid syntax") == ("Cannot parse: invalid syntax", "")


def test_long_message_is_cut_at_its_first_top_level_colon_or_semicolon():
    text = (
        "`a: b` is never called by autograd: `loss.backward()` differentiates forward and "
        "ignores methods of an nn.Module; write a `torch.autograd.Function`"
    )
    assert split_message(text) == (
        "`a: b` is never called by autograd",
        "`loss.backward()` differentiates forward and ignores methods of an nn.Module; "
        "write a `torch.autograd.Function`",
    )


def test_a_long_headline_is_cut_at_a_comma_then_at_a_word():
    first = "the caller's tensor (a, b) is changed, and " + "x" * 60 + " happens"
    head, rest = split_message(first + ", and " + "y" * 80 + ": why")
    assert head == first
    assert rest == "and " + "y" * 80 + ": why"
    words = "word " * 60
    head, rest = split_message(words)
    assert head.endswith("…") and len(head) <= SHORT_MESSAGE
    assert rest.startswith("word")


def test_nested_loops_give_one_gl503(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(NESTED)
    found = lint_file(str(path), Config()).diagnostics
    assert [(d.line, d.column, d.code) for d in found] == [(8, 17, "GL503")]


def test_finalize_keeps_the_first_of_equal_places_and_the_catalogue_severity():
    one = diag("b", severity=Severity.ERROR)
    two = diag("a")
    other = diag("c", code="GL001", column=1)
    [first, second] = finalize([one, two, other])
    assert (first.code, first.message) == ("GL001", "c")
    assert (second.message, second.severity) == ("a", load_catalogue()["GL303"].severity)


def test_every_reported_finding_has_the_catalogue_severity_and_a_short_message():
    paths = [str(p) for p in sorted((ROOT / "examples").rglob("*.py"))]
    paths += [str(p) for p in sorted((ROOT / "tests" / "corpus").rglob("*.py"))]
    found = run(paths, Config(), jobs=1).diagnostics
    assert len({d.code for d in found}) > 10
    catalogue = load_catalogue()
    for d in found:
        assert d.severity == catalogue[d.code].severity, d
        assert len(d.message) <= SHORT_MESSAGE and "\n" not in d.message, d.message
    assert any(d.detail for d in found)


def test_a_check_may_pass_the_headline_and_detail_itself():
    d = diag("short headline", detail="why: " + "x" * 200, severity=Severity.WARNING)
    assert finalize([d]) == [d]


def test_detail_is_in_full_json_sarif_and_github_but_not_flake8():
    d = finalize([diag("W" * 100 + " is wrong: because torch raises; fix it " + "z" * 40)])[0]
    assert d.message == "W" * 100 + " is wrong"
    assert d.detail == "because torch raises; fix it " + "z" * 40
    assert render([d], "flake8", {}) == f"m.py:3:5: GL303 {d.message}\n"
    assert "   = detail: because torch raises" in render([d], "full", {})
    [finding] = json.loads(render([d], "json", {}))
    assert (finding["message"], finding["detail"]) == (d.message, d.detail)
    assert finding["help"].startswith("Move the gradient into a `torch.autograd.Function`")
    sarif = json.loads(render([d], "sarif", {}))
    [result] = sarif["runs"][0]["results"]
    assert result["message"]["text"] == d.message
    assert result["properties"]["detail"] == d.detail
    assert render([d], "github", {}).endswith(f"::{d.message}%0A%0A{d.detail}\n")


def test_a_comma_inside_a_list_of_numbers_is_no_cut():
    text = "`x.view(2, -1)` merges dims 1, 2, 3 of a tensor " + "w" * 80 + " changed: torch raises"
    head, rest = split_message(text)
    assert "dims 1, 2, 3" in head and head.endswith("…") and len(head) <= SHORT_MESSAGE
