"""`gradlint server` end to end: a JSON-RPC client talks LSP to the real process over stdio."""

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from gradlint.cache import NO_CACHE_ENV  # noqa: E402
from gradlint.fixes import LINE_BREAK  # noqa: E402

_MODULE = Path(__file__).resolve().parent.parent / "benchmarks" / "server_latency.py"
_spec = importlib.util.spec_from_file_location("server_latency", _MODULE)
server_latency = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(server_latency)
Client = server_latency.Client

BUG = (
    "import torch\n"
    "\n"
    "\n"
    "def flat():\n"
    '    s = "😋"; y = torch.randn(3, 4).t().view(-1)\n'
    "    return s, y\n"
)
SUPPRESSED = "z = torch.randn(3, 4).t().view(-1)  # noqa: GL401\n"


@pytest.fixture
def client(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.gradlint]\nignore = ["GL503"]\n')
    started = Client(tmp_path, {NO_CACHE_ENV: "1"})
    started.capabilities = started.initialize(tmp_path)["capabilities"]
    yield started
    started.close()


def apply(text: str, edits: list[dict]) -> str:
    """Apply LSP TextEdits (UTF-16 positions) to `text`."""
    starts = [0, *(m.end() for m in LINE_BREAK.finditer(text))]

    def offset(position: dict) -> int:
        if position["line"] >= len(starts):
            return len(text)
        start = starts[position["line"]]
        units = 0
        index = start
        while units < position["character"]:
            units += 2 if ord(text[index]) > 0xFFFF else 1
            index += 1
        return index

    spans = [(offset(e["range"]["start"]), offset(e["range"]["end"]), e["newText"]) for e in edits]
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def test_open_publishes_the_finding_the_fix_clears_it(client, tmp_path):
    assert client.capabilities["codeActionProvider"]["codeActionKinds"] == [
        "quickfix",
        "source.fixAll.gradlint",
    ]
    uri = client.open(tmp_path / "model.py", BUG + SUPPRESSED)
    [finding] = client.diagnostics(uri)
    assert (finding["code"], finding["source"], finding["severity"]) == ("GL401", "gradlint", 1)
    # `😋` is two UTF-16 code units: the call starts at character 18, code point 17.
    assert finding["range"] == {
        "start": {"line": 4, "character": 18},
        "end": {"line": 4, "character": 48},
    }
    actions = client.request(
        "textDocument/codeAction",
        {
            "textDocument": {"uri": uri},
            "range": finding["range"],
            "context": {"diagnostics": [finding]},
        },
    )
    by_title = {a["title"]: a for a in actions}
    fix = by_title["GL401: use reshape, which copies when the layout requires it"]
    assert fix["kind"] == "quickfix" and fix["isPreferred"] is True
    fixed = apply(BUG + SUPPRESSED, fix["edit"]["changes"][uri])
    assert '    s = "😋"; y = torch.randn(3, 4).t().reshape(-1)\n' in fixed
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]},
    )
    assert client.diagnostics(uri, version=2) == []


def test_noqa_action_hover_and_fix_all(client, tmp_path):
    source = "import torch\n\nx = torch.randn(3, 4)\ny = (x.t()\n     .view(-1))  # shape\n"
    uri = client.open(tmp_path / "m.py", source)
    [finding] = client.diagnostics(uri)
    params = {
        "textDocument": {"uri": uri},
        "range": finding["range"],
        "context": {"diagnostics": [finding]},
    }
    actions = {a["title"]: a for a in client.request("textDocument/codeAction", params)}
    noqa = apply(source, actions["GL401: add `# noqa: GL401`"]["edit"]["changes"][uri])
    assert noqa.endswith("     .view(-1))  # shape  # noqa: GL401\n")  # the statement's last line
    fix_all = actions["gradlint: fix all (1 safe fixes)"]
    assert fix_all["kind"] == "source.fixAll.gradlint"
    assert apply(source, fix_all["edit"]["changes"][uri]).endswith(".reshape(-1))  # shape\n")

    hover = client.request(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": {"line": 3, "character": 6}},
    )
    assert hover["contents"]["kind"] == "markdown"
    assert hover["contents"]["value"].startswith("# GL401 view-on-noncontiguous")
    nothing = client.request(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
    )
    assert nothing is None

    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": noqa}]},
    )
    assert client.diagnostics(uri, version=2) == []


def test_config_of_the_project_applies_and_save_relints(client, tmp_path):
    loop = (
        "import torch\n\n\n"
        "def fit(model, data, opt):\n"
        "    for x, y in data:\n"
        "        torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "        opt.step()\n"
    )
    uri = client.open(tmp_path / "train.py", loop)
    assert client.diagnostics(uri) == []  # GL503 is ignored by the project's pyproject
    (tmp_path / "pyproject.toml").write_text("[tool.gradlint]\n")
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    assert [d["code"] for d in client.diagnostics(uri)] == ["GL503"]


def test_first_diagnostics_of_a_300_line_file_take_under_0_3_s_of_server_cpu(tmp_path):
    """The server's CPU time from didOpen to the diagnostics of a fresh server's first
    file (its wall time on an idle machine; a loaded one only adds waiting)."""
    source = server_latency.three_hundred_lines()
    assert len(source.splitlines()) >= 290
    run = server_latency.first_diagnostics(tmp_path, "big.py", source)
    assert run["codes"] == ["GL401"]
    assert run["cpu"] <= 0.3, run
    assert run["wall"] < 3, run  # whatever the load of the machine


def test_without_pygls_the_cli_says_what_to_install(capsys, monkeypatch):
    from gradlint.cli import main

    monkeypatch.setitem(sys.modules, "pygls.lsp.server", None)
    monkeypatch.delitem(sys.modules, "gradlint.server", raising=False)
    assert main(["server"]) == 2
    assert "pip install 'torch-gradlint[server]'" in capsys.readouterr().err
