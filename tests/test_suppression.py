import pytest

from gradlint.diagnostic import Diagnostic
from gradlint.suppression import apply_noqa


def _at(line: int, code: str = "GL303") -> Diagnostic:
    return Diagnostic("m.py", line, 1, line, 2, code, "message")


def _kept(source: str, *findings: Diagnostic) -> list[tuple[int, str]]:
    return [(d.line, d.code) for d in apply_noqa(list(findings), source.encode())]


@pytest.mark.parametrize(
    "comment",
    [
        "# noqa",
        "#noqa",
        "# NOQA",
        "# NoQA: GL303",
        "# noqa:GL303",
        "# noqa: GL303",
        "# noqa: GL101,GL303",
        "# noqa: GL101, GL303",
        "# noqa: GL101 GL303",
        "# noqa: gl303",
        "# noqa: GL3",
        "# type: ignore  # noqa: GL303",
        "# noqa: GL303 -- explained here",
    ],
)
def test_noqa_forms_that_silence(comment):
    assert _kept(f"x = 1  {comment}\n", _at(1)) == []


@pytest.mark.parametrize("comment", ["# noqa: GL101", "# noqa: E501", "# noqa: GL304", "# no qa"])
def test_noqa_forms_that_do_not_silence(comment):
    assert _kept(f"x = 1  {comment}\n", _at(1)) == [(1, "GL303")]


def test_noqa_only_silences_its_own_line():
    assert _kept("x = 1  # noqa\ny = 2\n", _at(1), _at(2)) == [(2, "GL303")]


def test_noqa_in_a_string_is_not_a_comment():
    assert _kept('x = "# noqa"\n', _at(1)) == [(1, "GL303")]


def test_multiline_statement_is_silenced_from_its_first_or_last_line():
    first = "y = f(  # noqa: GL303\n    a,\n    b,\n)\n"
    last = "y = f(\n    a,\n    b,\n)  # noqa: GL303\n"
    middle = "y = f(\n    a,\n    b,  # noqa: GL303\n    c,\n)\n"
    assert _kept(first, _at(2), _at(3)) == []
    assert _kept(last, _at(1), _at(3)) == []
    assert _kept(middle, _at(2), _at(3), _at(4)) == [(2, "GL303"), (4, "GL303")]


def test_noqa_on_a_statement_does_not_reach_the_next_one():
    source = "y = f(\n    a,\n)  # noqa\nz = g(\n    b,\n)\n"
    assert _kept(source, _at(1), _at(5)) == [(5, "GL303")]


def test_file_level_noqa_in_the_first_lines():
    assert _kept("# gradlint: noqa\nimport torch\n", _at(2), _at(2, "GL101")) == []
    assert _kept("#!python\n#GRADLINT:NOQA: GL3\n", _at(5), _at(6, "GL101")) == [(6, "GL101")]


def test_file_level_noqa_after_line_10_is_ignored():
    source = "\n" * 10 + "# gradlint: noqa\nx = 1\n"
    assert _kept(source, _at(12)) == [(12, "GL303")]


def test_file_level_marker_is_not_a_blanket_line_noqa():
    assert _kept("x = 1  # gradlint: noqa: GL101\n", _at(1)) == [(1, "GL303")]


def test_untokenizable_file_still_honours_line_comments():
    source = "def f(:  # noqa: GL001\n    '''unclosed\n"
    assert _kept(source, _at(1, "GL001")) == []


def test_crlf_and_bom_sources():
    source = "\ufeffy = f(\r\n    a,\r\n)  # noqa\r\n"
    assert _kept(source, _at(2)) == []
