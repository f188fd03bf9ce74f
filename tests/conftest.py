import os
import textwrap

import pytest

from gradlint.config import Config
from gradlint.engine import lint_source

# Tests patch the engine and re-lint the same bytes: no result cache unless a test asks
# (tests/test_cache.py), here and in the gradlint processes tests start.
os.environ["GRADLINT_NO_CACHE"] = "1"


def lint(source: str, config: Config | None = None, path: str = "snippet.py"):
    """Findings for a dedented snippet, as a list of Diagnostic."""
    result = lint_source(path, textwrap.dedent(source), config)
    assert not result.internal_errors, result.internal_errors
    return result.diagnostics


def codes(source: str, config: Config | None = None) -> list[str]:
    return [d.code for d in lint(source, config)]


@pytest.fixture
def lint_codes():
    return codes
