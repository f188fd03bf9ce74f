"""Jupyter notebooks: code cells linted as one script, findings reported per cell."""

import json

import pytest

from gradlint.cli import main
from gradlint.notebook import (
    NotebookError,
    file_lines,
    file_position,
    read_notebook,
    replace_in_sources,
    source_strings,
)

SETUP = "import torch\nimport torch.nn as nn\n\nlayer = nn.Linear(3, 3)\n"
MAGICS = "%matplotlib inline\n!pip install tqdm\nfiles = !ls\nlayer?\n"
EDIT = "for p in layer.parameters():\n    p += 1\n"


def notebook(*cells, language="python") -> str:
    """nbformat 4 JSON; a cell is code text, or ("markdown", text)."""
    return json.dumps(
        {
            "cells": [
                {"cell_type": c[0], "metadata": {}, "source": c[1].splitlines(keepends=True)}
                if isinstance(c, tuple)
                else {
                    "cell_type": "code",
                    "execution_count": None,
                    "metadata": {},
                    "outputs": [],
                    "source": c.splitlines(keepends=True),
                }
                for c in cells
            ],
            "metadata": {"language_info": {"name": language}},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    )


@pytest.fixture
def exp(tmp_path, monkeypatch):
    """exp.ipynb: setup in cell 1, a Markdown cell 2, magics and the leaf edit in cell 3."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "exp.ipynb").write_text(notebook(SETUP, ("markdown", "# Train"), MAGICS + EDIT))
    return tmp_path / "exp.ipynb"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_magics_become_python_and_line_numbers_are_kept():
    nb = read_notebook(notebook(MAGICS + EDIT))
    assert nb.script.splitlines() == ["pass", "pass", "files = ...", "pass", *EDIT.splitlines()]
    assert nb.lines == [(1, n) for n in range(1, 7)]


def test_magic_lookalikes_inside_statements_and_strings_stay_python():
    source = (
        'y = (a\n     % b)\ndoc = """\n!not a shell line\n"""\nif y:\n    !ls \\\n  -l\nz = 1\n'
    )
    assert read_notebook(notebook(source)).script.splitlines() == [
        "y = (a",
        "     % b)",
        'doc = """',
        "!not a shell line",
        '"""',
        "if y:",
        "    pass",
        "    pass",
        "z = 1",
    ]


def test_cell_magics_python_ones_kept_others_skipped():
    nb = read_notebook(notebook("%%time\nx = 1\n", "%%bash\nls -l\n", "y = 2\n"))
    assert nb.script == "\nx = 1\ny = 2\n"
    assert nb.lines == [(1, 1), (1, 2), (3, 1)]


def test_other_languages_and_broken_notebooks():
    assert read_notebook(notebook("x <- 1\n", language="R")).script == ""
    for text in ("{not json", "[]", '{"cells": {}}', '{"cells": [{"cell_type": "code"}]}'):
        if text.endswith('"code"}]}'):
            assert read_notebook(text).script == ""  # a code cell without source is empty
            continue
        with pytest.raises(NotebookError):
            read_notebook(text)
    with pytest.raises(NotebookError, match="cell 1 has no source"):
        read_notebook('{"cells": [{"cell_type": "code", "source": 3}]}')


def test_a_finding_in_a_cell_is_reported_at_the_cells_line(exp, capsys):
    code, out, _ = run(capsys, "exp.ipynb")
    [line] = out.splitlines()
    assert code == 1 and line.startswith("exp.ipynb:cell 3:6:5: GL101 ")


def test_a_directory_walk_finds_notebooks(exp, capsys):
    code, out, _ = run(capsys, ".")
    assert code == 1 and "exp.ipynb:cell 3:6:5: GL101" in out


def test_noqa_inside_a_cell(exp, capsys):
    exp.write_text(notebook(SETUP, MAGICS + EDIT.replace("+= 1", "+= 1  # noqa: GL101")))
    assert run(capsys, "exp.ipynb") == (0, "", "")


def test_cell_positions_in_json_sarif_github_and_full(exp, capsys):
    [finding] = json.loads(run(capsys, "--format", "json", "exp.ipynb")[1])
    assert (finding["cell"], finding["line"], finding["column"]) == (3, 6, 5)
    assert (finding["end_line"], finding["end_column"]) == (6, 11)
    sarif = json.loads(run(capsys, "--format", "sarif", "exp.ipynb")[1])
    [result] = sarif["runs"][0]["results"]
    properties = result["properties"]
    assert (properties["cell"], properties["cellLine"], properties["cellColumn"]) == (3, 6, 5)
    full = run(capsys, "--format", "full", "exp.ipynb")[1].splitlines()
    assert full[2:4] == ["6 |     p += 1", "  |     ^~~~~~"]


def test_github_annotations_stand_on_the_notebook_files_own_lines(exp, capsys):
    """GitHub shows an .ipynb file's JSON: the annotation must name the line of that text
    holding the cell's code (no columns: they count within the JSON string)."""
    json_lines = exp.read_text().splitlines()
    [command] = run(capsys, "--format", "github", "exp.ipynb")[1].splitlines()
    properties = dict(p.split("=", 1) for p in command.split("::")[1].split(" ", 1)[1].split(","))
    assert properties.keys() == {"file", "line", "endLine", "title"}
    assert json_lines[int(properties["line"]) - 1] == '    "    p += 1\\n"'
    assert properties["endLine"] == properties["line"]
    assert properties["title"] == "GL101 (cell 3%3A6%3A5)"  # GL101 (cell 3:6:5), escaped
    # A source written as one string: every line of the cell is on that string's line.
    data = json.loads(exp.read_text())
    data["cells"][2]["source"] = "".join(data["cells"][2]["source"])
    exp.write_text(json.dumps(data))  # no indent: the whole notebook is line 1
    [command] = run(capsys, "--format", "github", "exp.ipynb")[1].splitlines()
    assert ",line=1,endLine=1,title=GL101 (cell 3%3A6%3A5)::" in command


def test_sarif_regions_stand_on_the_notebook_files_own_lines(exp, capsys):
    """Code scanning shows an .ipynb file's JSON: the region names the line of that text
    holding the cell's code, without columns (they count within the JSON string)."""
    json_lines = exp.read_text().splitlines()
    sarif = json.loads(run(capsys, "--format", "sarif", "exp.ipynb")[1])
    [result] = sarif["runs"][0]["results"]
    where = result["locations"][0]["physicalLocation"]["region"]
    assert where.keys() == {"startLine", "endLine"}
    assert json_lines[where["startLine"] - 1] == '    "    p += 1\\n"'
    assert where["endLine"] == where["startLine"]


def test_notebook_file_lines_follow_list_and_string_sources():
    text = json.dumps(
        {
            "cells": [
                {"cell_type": "markdown", "source": ["# x\n"]},
                {"cell_type": "code", "source": ["a = 1\n", "", "b = [\n", "  2]"]},
                {"cell_type": "code", "outputs": [{"text": ["c\n"]}], "source": "c = 1\nd = 2\n"},
            ],
        },
        indent=1,
    )
    lines = text.splitlines()
    found = file_lines(text)
    assert [lines[n - 1].strip() for n in found[2]] == ['"a = 1\\n",', '"b = [\\n",', '"  2]"']
    assert [lines[n - 1].strip() for n in found[3]] == ['"source": "c = 1\\nd = 2\\n"'] * 2
    assert file_lines("{not json") == file_lines("[]") == {}


def test_a_malformed_notebook_is_gl001(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.ipynb").write_text('{"cells": [')
    code, out, _ = run(capsys, "broken.ipynb")
    assert code == 1 and out.startswith("broken.ipynb:1:1: GL001 Cannot read notebook: not valid")


def test_a_syntax_error_in_a_cell_is_gl001_in_that_cell(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "nb.ipynb").write_text(notebook(SETUP, "x = (\n"))
    code, out, _ = run(capsys, "nb.ipynb")
    assert code == 1 and out.startswith("nb.ipynb:cell 2:1:")
    assert " GL001 " in out


def test_a_cell_that_does_not_compile_is_skipped_and_the_others_are_linted(
    tmp_path, monkeypatch, capsys
):
    """Pasted log text in one cell fails alone in the kernel: the leaf edit of another
    cell is still found (TimesNet_tutorial.ipynb's shape)."""
    monkeypatch.chdir(tmp_path)
    log = "Epoch: 1, Steps: 264 | Train Loss: 0.4964185 Vali Loss: 0.8412074\n"
    (tmp_path / "nb.ipynb").write_text(notebook(SETUP, log, EDIT))
    code, out, _ = run(capsys, "nb.ipynb")
    lines = out.splitlines()
    assert code == 1
    assert lines[0].startswith("nb.ipynb:cell 2:1:") and " GL001 Cannot parse this cell" in lines[0]
    assert lines[1].startswith("nb.ipynb:cell 3:2:") and " GL101 " in lines[1]
    assert read_notebook(notebook(SETUP, log, EDIT)).broken.keys() == {2}


def test_a_future_import_atop_a_later_cell_is_python_in_the_kernel(tmp_path, monkeypatch, capsys):
    """Each cell is compiled on its own, so `from __future__ import` may open any cell
    (pytorch-book's chapter3.ipynb): the notebook is linted, not rejected."""
    monkeypatch.chdir(tmp_path)
    future = "from __future__ import print_function\n" + EDIT
    (tmp_path / "nb.ipynb").write_text(notebook(SETUP, future))
    code, out, _ = run(capsys, "nb.ipynb")
    assert code == 1 and out.startswith("nb.ipynb:cell 2:3:") and " GL101 " in out
    assert "GL001" not in out
    assert read_notebook(notebook(SETUP, future)).script.splitlines()[4] == "pass"


ESCAPED = 'print("tab\\there", "\u00e9\U0001f600")\np += 1  # "quoted"\n'


@pytest.mark.parametrize("ensure_ascii", [True, False])
@pytest.mark.parametrize("one_string", [True, False])
def test_file_positions_count_escapes_as_one_character(ensure_ascii, one_string):
    """A cell position -> the line and column of the .ipynb text where that character of
    the source is written, JSON escapes (`\\t`, `\\"`, `\\u00e9`, a surrogate pair) counted
    as the one character they stand for."""
    data = json.loads(notebook(SETUP, ESCAPED))
    if one_string:
        data["cells"][1]["source"] = ESCAPED
    text = json.dumps(data, indent=1, ensure_ascii=ensure_ascii)
    strings = source_strings(text)
    lines = text.splitlines()
    for line, column, written in [(1, 1, "print("), (1, 24, ")"), (2, 1, "p += 1"), (2, 9, "#")]:
        file_line, file_column = file_position(text, strings, 2, line, column)
        assert lines[file_line - 1][file_column - 1 :].startswith(written), (line, column)
    assert file_position(text, strings, 2, 3, 1) is None  # the cell has two lines
    assert file_position(text, strings, 9, 1, 1) is None


def test_replacing_in_sources_keeps_the_rest_of_the_file_byte_for_byte():
    text = json.dumps(json.loads(notebook(SETUP, ESCAPED)), indent=1)
    strings = source_strings(text)
    end = len('p += 1  # "quoted"')
    start = len(ESCAPED.splitlines(keepends=True)[0])
    new = replace_in_sources(text, strings, [(2, start + end, start + end, "  # é")])
    assert new == text.replace('# \\"quoted\\"\\n"', '# \\"quoted\\"  # é\\n"')
    assert read_notebook(new).cells[2].splitlines()[1] == 'p += 1  # "quoted"  # é'


def test_add_noqa_writes_into_the_cells_source_and_the_project_then_passes(exp, capsys):
    """`--add-noqa` on a notebook: the comment goes into the cell's source line (the last
    line of a multi-line statement; codes added to an existing `# noqa: ...`), never onto
    a line IPython syntax changed, and the notebook then passes."""
    statement = "p = torch.ones(3, requires_grad=True)\np.add_(\n    1\n)  # noqa: GL999\n"
    (exp.parent / "two.ipynb").write_text(notebook(SETUP, statement, ("markdown", "x")))
    (exp.parent / "clean.py").write_text("import torch\n")
    before = exp.read_text()
    code, out, _ = run(capsys, ".")
    assert code == 1 and len(out.splitlines()) == 2
    code, _, err = run(capsys, "--add-noqa", ".")
    assert code == 0 and "Added 2 noqa directives." in err
    assert run(capsys, ".") == (0, "", "")
    cells = read_notebook(exp.read_text()).cells
    assert cells[3].splitlines()[:3] == MAGICS.splitlines()[:3]  # magics untouched
    assert cells[3].splitlines()[5] == "    p += 1  # noqa: GL101"
    assert exp.read_text() == before.replace("p += 1\\n", "p += 1  # noqa: GL101\\n")
    two = read_notebook((exp.parent / "two.ipynb").read_text()).cells[2].splitlines()
    assert two[3] == ")  # noqa: GL101, GL999"


def test_a_line_a_message_names_is_named_in_its_cell(tmp_path, monkeypatch, capsys):
    """pg-is-all-you-need's shape: the networks in one cell, the update in the next; the
    message names the backward's line, which counts within its cell, as findings do."""
    monkeypatch.chdir(tmp_path)
    update = (
        "opt = torch.optim.Adam(layer.parameters())\n"
        "out = layer(torch.randn(2, 3))\n"
        "opt.step()\n"
        "out.sum().backward()\n"
    )
    (tmp_path / "nb.ipynb").write_text(notebook(SETUP, update, "out.sum().backward()\n"))
    code, out, _ = run(capsys, "nb.ipynb", "--format", "full")
    assert code == 1
    assert "nb.ipynb:cell 2:3:" in out and "backward on line 4 " in out
    assert "line 8" not in out  # the joined script's numbering
    lines = read_notebook(notebook(SETUP, update, "x = 1\n"))
    assert lines._named_lines("see line 5 and line 9", 2) == "see line 1 and line 1 of cell 3"
