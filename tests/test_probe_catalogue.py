"""Every documented example behaves under the probe: witnesses of Bad examples are
reproduced by torch, and Good examples stay unprobed and clean when their code runs."""

import pytest

from gradlint.catalogue import load_catalogue
from gradlint.engine import lint_source
from gradlint.probe import run_probes

CATALOGUE = load_catalogue()


def _lint_examples(kind: str):
    for doc in CATALOGUE.values():
        for i, source in enumerate(getattr(doc, f"{kind}_examples")):
            name = f"{doc.code}_{kind}{i}.py"
            yield name, source, lint_source(name, source).diagnostics


def test_every_bad_example_witness_is_reproduced():
    witnessed = [(name, d) for name, _, found in _lint_examples("bad") for d in found if d.witness]
    if not witnessed:
        pytest.skip("no rule attaches witnesses yet")
    run_probes([d for _, d in witnessed], mode="witness")
    failures = [
        (name, d.code, d.probe) for name, d in witnessed if d.probe["verdict"] != "reproduced"
    ]
    assert failures == []


def test_good_examples_are_not_probed_and_run_clean(tmp_path):
    """No finding means no witness to run, and running the code itself raises nothing."""
    sources = {}
    for name, source, found in _lint_examples("good"):
        if not found:
            path = tmp_path / name
            path.write_text(source)
            sources[str(path)] = source
    assert run_probes([]) == []
    assert run_probes([], mode="exec", sources=sources) == []
