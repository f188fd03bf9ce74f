"""The rule catalogue and the rules agree, and every documented example behaves."""

import pytest

from gradlint.autofix import fix_source
from gradlint.catalogue import catalogue_codes, load_catalogue
from gradlint.checks import registered_codes
from gradlint.config import Config
from gradlint.engine import lint_source

CATALOGUE = load_catalogue()
ENGINE_CODES = {"GL001"}  # reported by the engine itself, not by a checker
PROBE_CODES = {
    "GL901",
    "GL903",
}  # reported by the runtime probe only: Bad examples run in exec mode


def test_every_rule_has_a_catalogue_file_and_vice_versa():
    assert registered_codes() | ENGINE_CODES | PROBE_CODES == set(CATALOGUE) == catalogue_codes()


@pytest.mark.parametrize("doc", CATALOGUE.values(), ids=lambda d: d.code)
def test_doc_shape(doc):
    assert doc.bad_examples, f"{doc.code} has no Bad example"
    assert doc.good_examples, f"{doc.code} has no Good example"
    for section in ("What it does", "Why is this bad", "Use instead", "Torch says", "Fix safety"):
        assert doc.sections.get(section), f"{doc.code} lacks section {section!r}"


def _examples(kind):
    for doc in CATALOGUE.values():
        for i, source in enumerate(getattr(doc, f"{kind}_examples")):
            yield pytest.param(doc.code, source, id=f"{doc.code}-{kind}{i}")


@pytest.mark.parametrize(("code", "source"), list(_examples("bad")))
def test_bad_example_flags_exactly_its_rule(code, source, tmp_path):
    found = lint_source(f"{code}_bad.py", source).diagnostics
    if code in PROBE_CODES:
        from gradlint.probe import run_probes

        path = tmp_path / f"{code}_bad.py"
        path.write_text(source)
        found = run_probes(found, mode="exec", sources={str(path): source})
    assert {d.code for d in found} == {code}


@pytest.mark.parametrize(("code", "source"), list(_examples("good")))
def test_good_example_is_clean(code, source):
    result = lint_source(f"{code}_good.py", source)
    assert not result.internal_errors
    assert [(d.line, d.code, d.message) for d in result.diagnostics] == []


@pytest.mark.parametrize("doc", CATALOGUE.values(), ids=lambda d: d.code)
def test_documented_fix_turns_the_bad_example_into_a_good_one(doc):
    """Each fix has the safety its doc declares, and `--fix --unsafe-fixes` turns a Bad
    example into one of the Good examples verbatim; a rule declaring none has no fix."""
    assert doc.fix_safety in ("safe", "unsafe", "none"), doc.sections.get("Fix safety")
    fixed_any = False
    for bad in doc.bad_examples:
        fixes = [d.fix for d in lint_source(f"{doc.code}.py", bad).diagnostics if d.fix]
        if doc.fix_safety == "none":
            assert fixes == []
            continue
        assert {f.applicability.value for f in fixes} <= {doc.fix_safety}
        outcome = fix_source(f"{doc.code}.py", bad.encode(), Config(), unsafe=True)
        if fixes:
            fixed_any = True
            assert outcome.text in doc.good_examples, outcome.text
            assert outcome.diagnostics == []
            assert fix_source(f"{doc.code}.py", outcome.text.encode(), Config(), True).fixed == []
    assert fixed_any or doc.fix_safety == "none"
