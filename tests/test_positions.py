"""FileContext's positions (filecontext.positions) are libcst's PositionProvider ranges,
computed without MetadataWrapper's extra walk: the same range for every node."""

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from gradlint.filecontext import positions

ROOT = Path(__file__).resolve().parent.parent
# Line breaks inside tokens and layout: CRLF and lone CR files, a backslash continuation,
# strings and f-strings over several lines, comments and blank lines between decorators.
TRICKY = [
    "import torch\r\n\r\nx = torch.ones(2)\r\ny = (x +\r\n     1)\r\n",
    "a = 1\rb = a \\\r    + 2\r",
    'def f(x):\n    """doc\n    more"""\n    s = f"""{x}\n{x + 1}"""\n'
    '    return s \\\n        + "!"\n',
    "@staticmethod\n\n# a comment\n@property\ndef g(): pass\n\n\n"
    "class C:\n\n    # c\n    y = [\n        1,\n    ]\n",
]
GRADLINT_FILES = sorted((ROOT / "gradlint").rglob("*.py"))[:40]


def _libcst_ranges(module: cst.Module) -> dict:
    return dict(MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider))


@pytest.mark.parametrize("source", TRICKY)
def test_the_same_ranges_on_tricky_layout(source):
    module = cst.parse_module(source)
    assert positions(module) == _libcst_ranges(module)


def test_the_same_ranges_on_gradlints_own_code():
    for path in GRADLINT_FILES:
        module = cst.parse_module(path.read_bytes())
        assert positions(module) == _libcst_ranges(module), path
