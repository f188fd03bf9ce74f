"""Findings -> probe jobs, and probe outcomes -> verdicts.

Witness jobs run the self-contained program a rule attached to its finding (never the
user's code). Exec plans are built from the linted source with `ast` only: the module
classes it defines, constructor arguments and inputs it passes them (literal values and
`torch.<factory>(...)` calls with literal arguments), and the lines of each function,
so that a runtime error can be traced back to the finding it proves.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from gradlint.diagnostic import Diagnostic, Severity, Witness

CONFIRMED, REFUTED, INCONCLUSIVE = "confirmed", "refuted", "inconclusive"
# torch tensor factories whose literal-argument calls an exec probe may rebuild as inputs.
TENSOR_FACTORIES = frozenset(
    {"randn", "rand", "zeros", "ones", "empty", "full", "randint", "tensor", "arange", "eye"}
)
_MESSAGE_LIMIT = 300
# Rule families predicting that gradients stop flowing: parameters without `.grad` after
# the code probe's backward confirm them.
GRAPH_CUT_RULES = ("GL2",)


def verdict(kind: str, message: str) -> dict:
    return {"verdict": kind, "message": _first_line(message)}


def _first_line(message: str) -> str:
    line = message.strip().splitlines()[0] if message.strip() else ""
    return line if len(line) <= _MESSAGE_LIMIT else line[: _MESSAGE_LIMIT - 3] + "..."


# --- witness probes -----------------------------------------------------------------------


@dataclass
class WitnessJob:
    witness: Witness
    code: str
    findings: list[Diagnostic] = field(default_factory=list)

    @property
    def request(self) -> dict:
        return {"kind": "witness", "program": self.witness.program, "code": self.code}


def plan_witnesses(diagnostics: Iterable[Diagnostic]) -> list[WitnessJob]:
    """One job per distinct witness program; findings sharing a program share its run."""
    jobs: dict[tuple[str, str], WitnessJob] = {}
    for d in diagnostics:
        if d.witness is not None:
            key = (d.witness.program, d.witness.expect)
            jobs.setdefault(key, WitnessJob(d.witness, d.code)).findings.append(d)
    return list(jobs.values())


def matches(expect: str, message: str) -> bool:
    """torch's stable prefix, found at the start or inside (wrapped errors prepend context)."""
    return bool(expect) and expect.strip() in message


def witness_verdict(witness: Witness, outcome: dict) -> dict:
    kind = outcome["outcome"]
    if kind == "clean":
        return verdict(REFUTED, "the witness program ran without error: torch accepts it")
    if kind == "raised":
        message = outcome["message"]
        if matches(witness.expect, message):
            return verdict(CONFIRMED, message)
        return verdict(
            INCONCLUSIVE,
            f"the witness raised {outcome['type']}: {_first_line(message)!r}, "
            f"not the expected {witness.expect!r}",
        )
    return verdict(INCONCLUSIVE, outcome["reason"])


# --- exec probes: the static plan ---------------------------------------------------------


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _is_torch_dtype(node)
    return True


def _is_torch_dtype(node: ast.expr) -> bool:
    """`torch.float64` and friends: allowed as factory keyword values."""
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "torch"
    )


def tensor_factory(node: ast.expr) -> str | None:
    """Source of `torch.randn(1, 20)`-like calls whose arguments are all literal."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "torch"
        and node.func.attr in TENSOR_FACTORIES
    ):
        return None
    values = [*node.args, *(k.value for k in node.keywords if k.arg)]
    if any(isinstance(a, ast.Starred) for a in node.args) or not all(map(_literal, values)):
        return None
    return ast.unparse(node)


def _constructor_call(node: ast.Call) -> dict | None:
    """Literal positional / keyword arguments of `Cls(...)`, or None when any is not."""
    if any(isinstance(a, ast.Starred) for a in node.args) or any(
        k.arg is None for k in node.keywords
    ):
        return None
    if not all(_literal(v) for v in [*node.args, *(k.value for k in node.keywords)]):
        return None
    return {
        "args": [ast.unparse(a) for a in node.args],
        "kwargs": {k.arg: ast.unparse(k.value) for k in node.keywords},
    }


@dataclass
class _Bindings:
    """What simple names of the file are bound to: module instances and literal tensors."""

    instances: dict[str, str] = field(default_factory=dict)  # name -> class name
    tensors: dict[str, str] = field(default_factory=dict)  # name -> factory source
    # name -> factory sources of a tuple / list of tensors (`example_args = (x, y)`)
    argument_lists: dict[str, list[str]] = field(default_factory=dict)


def _bindings(tree: ast.Module, classes: set[str]) -> _Bindings:
    found = _Bindings()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target, value = node.targets[0], node.value
        if not isinstance(target, ast.Name):
            continue
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id in classes
        ):
            found.instances[target.id] = value.func.id
        elif source := tensor_factory(value):
            found.tensors[target.id] = source
        elif isinstance(value, ast.Tuple | ast.List) and value.elts:
            sources = [tensor_factory(e) for e in value.elts]
            if all(sources):
                found.argument_lists[target.id] = sources
    return found


def _input_source(node: ast.expr, bindings: _Bindings) -> str | None:
    if isinstance(node, ast.Name):
        return bindings.tensors.get(node.id)
    if isinstance(node, ast.Starred | ast.keyword):
        return None
    return tensor_factory(node) or (ast.unparse(node) if _literal(node) else None)


def _call_site_inputs(tree: ast.Module, bindings: _Bindings, class_name: str) -> list[list[str]]:
    """Argument lists of `model(x)` calls on instances of `class_name` we can rebuild."""
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        if bindings.instances.get(node.func.id) != class_name or node.keywords:
            continue
        if len(node.args) == 1 and isinstance(starred := node.args[0], ast.Starred):
            name = starred.value.id if isinstance(starred.value, ast.Name) else ""
            sources = bindings.argument_lists.get(name)
        else:
            sources = [_input_source(a, bindings) for a in node.args]
        if sources and all(sources) and sources not in found:
            found.append(sources)
    return found


# jaxtyping dtype annotations -> the factory that makes such an input.
_JAXTYPING_FACTORIES = {
    "Float": "torch.randn({shape})",
    "Float32": "torch.randn({shape})",
    "Float64": "torch.randn({shape}, dtype=torch.float64)",
    "Int": "torch.randint(0, 4, ({shape},))",
    "Int64": "torch.randint(0, 4, ({shape},))",
    "Integer": "torch.randint(0, 4, ({shape},))",
    "Long": "torch.randint(0, 4, ({shape},))",
    "Bool": "torch.randint(0, 2, ({shape},)).bool()",
}
SYMBOLIC_DIMS = (3, 4, 5, 6, 7)  # small sizes for named dims, distinct per name


def _jaxtyping_shape(spec: str, sizes: dict[str, int]) -> str | None:
    """`"batch 20"` -> `"3, 20"`: numbers kept, each name a small size of its own."""
    dims = []
    for token in spec.split():
        if token.isdigit():
            dims.append(token)
        elif token.isidentifier() and not token.startswith("_"):
            sizes.setdefault(token, SYMBOLIC_DIMS[len(sizes) % len(SYMBOLIC_DIMS)])
            dims.append(str(sizes[token]))
        else:  # `*batch`, `...`, `#dim`, `b=c`, `_`: no fixed size to rebuild
            return None
    return ", ".join(dims) if dims else None


def _jaxtyping_input(annotation: ast.expr | None, sizes: dict[str, int]) -> str | None:
    """`Float[Tensor, "batch 20"]` -> `torch.randn(3, 20)`."""
    if not (
        isinstance(annotation, ast.Subscript)
        and isinstance(annotation.slice, ast.Tuple)
        and len(annotation.slice.elts) == 2
    ):
        return None
    kind = annotation.value
    name = kind.attr if isinstance(kind, ast.Attribute) else getattr(kind, "id", "")
    spec = annotation.slice.elts[1]
    if name not in _JAXTYPING_FACTORIES or not (
        isinstance(spec, ast.Constant) and isinstance(spec.value, str)
    ):
        return None
    shape = _jaxtyping_shape(spec.value, sizes)
    if shape is None:
        return None
    return _JAXTYPING_FACTORIES[name].format(shape=shape)


def _annotated_inputs(node: ast.ClassDef) -> list[list[str]]:
    """Inputs of `forward` rebuilt from jaxtyping annotations of all its required args."""
    forward = next(
        (f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "forward"), None
    )
    if forward is None:
        return []
    positional = [*forward.args.posonlyargs, *forward.args.args][1:]
    required = positional[: len(positional) - len(forward.args.defaults)]
    sizes: dict[str, int] = {}
    inputs = [_jaxtyping_input(arg.annotation, sizes) for arg in required]
    return [inputs] if inputs and all(inputs) else []


def _function_spans(tree: ast.Module) -> list[tuple[int, int]]:
    return [
        (n.lineno, n.end_lineno or n.lineno)
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def plan_exec(path: str, source: str) -> dict | None:
    """The request for an exec probe of one file, or None when it cannot be parsed."""
    try:
        tree = ast.parse(source, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    class_nodes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    bindings = _bindings(tree, {c.name for c in class_nodes})
    classes = []
    for node in class_nodes:
        constructors = [
            call
            for call in ast.walk(tree)
            if isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == node.name
        ]
        literal_calls = [c for c in map(_constructor_call, constructors) if c is not None]
        classes.append(
            {
                "name": node.name,
                "line": node.lineno,
                "end_line": node.end_lineno or node.lineno,
                "constructor": literal_calls[0] if literal_calls else None,
                "inputs": _call_site_inputs(tree, bindings, node.name) + _annotated_inputs(node),
            }
        )
    return {
        "kind": "exec",
        "path": path,
        "classes": classes,
        # argument lists a forward may take, in the order the file binds them
        "file_inputs": [[t] for t in dict.fromkeys(bindings.tensors.values())]
        + list(bindings.argument_lists.values()),
    }


# --- exec probes: outcome -> verdicts and GL901 -------------------------------------------


@dataclass
class RuntimeFailure:
    """An exception a code probe raised, located by the frames inside the linted file."""

    type: str
    message: str
    lines: list[int]  # outermost first; the last is where it was raised in the file
    context: str  # how the probe got there, e.g. "MyModule(20, 5) on inputs torch.randn(1, 20)"
    backward: bool = False  # raised by autograd; `lines` is the forward trace of the node
    span: tuple[int, int] | None = None  # the autograd.Function a gradcheck failure is about
    # False when torch did not raise it (a missing data file...) or the inputs were only
    # shaped for the module's layers (the guess's fault?): it can confirm a finding that
    # predicts it but is no GL901 itself.
    reportable: bool = True


def _failures(outcome: dict) -> list[RuntimeFailure]:
    found = []
    for run in outcome.get("runs", []):
        error = run.get("error")
        if error and error["lines"]:
            gradcheck = run["context"].startswith("gradcheck")
            found.append(
                RuntimeFailure(
                    error["type"],
                    error["message"],
                    error["lines"],
                    run["context"],
                    backward=run.get("phase") == "backward",
                    span=(run["line"], run["end_line"]) if gradcheck else None,
                    reportable=error["torch"] and run.get("inputs_from") != "layer",
                )
            )
    return found


def _innermost_function(spans: list[tuple[int, int]], line: int) -> tuple[int, int] | None:
    inside = [s for s in spans if s[0] <= line <= s[1]]
    return max(inside, default=None)


def _explains(d: Diagnostic, failure: RuntimeFailure, spans: list[tuple[int, int]]) -> bool:
    """The failure proves `d`: raised at its line, or later in the same function when it
    is the torch error `d` predicts (its witness's message, or any error if `d` has no
    witness and its rule is one where torch raises)."""
    if d.line in failure.lines:
        return True
    if d.witness is not None:
        predicted = matches(d.witness.expect, failure.message)
    else:
        predicted = d.severity is Severity.ERROR
    if not predicted:
        return False
    if failure.span is not None:
        return failure.span[0] <= d.line <= failure.span[1]
    raised_at = failure.lines[-1]
    function = _innermost_function(spans, d.line)
    if function is None or function != _innermost_function(spans, raised_at):
        return False
    # A forward error comes after its cause; a backward one names the op that saved the
    # tensor, which the faulty in-place edit may follow.
    return failure.backward or d.line < raised_at


def _class_run(outcome: dict, line: int) -> dict | None:
    """The probe run of the class whose body holds `line`."""
    for run in outcome.get("runs", []):
        if run.get("line", 0) <= line <= run.get("end_line", -1):
            return run
    return None


def _structural_verdict(d: Diagnostic, run: dict, source_line: str, ran: bool) -> dict | None:
    """Verdicts that need no exception: an ignored `backward`, unregistered tensors,
    parameters a graph-cutting line (`ran`) left without gradient."""
    if not run.get("ran_backward"):
        return None
    if d.code.startswith(GRAPH_CUT_RULES) and ran and run.get("grad_none"):
        names = ", ".join(f"`{n}`" for n in run["grad_none"])
        return verdict(CONFIRMED, f"after `loss.backward()` {names} still have no gradient")
    for name, called in run.get("backward_methods", {}).items():
        if re.search(rf"\bdef {name}\b", source_line):
            if called:
                return verdict(REFUTED, f"`{name}` was called during `loss.backward()`")
            return verdict(
                CONFIRMED,
                f"`{run['class']}.{name}` was never invoked by `loss.backward()` "
                f"(code probe: {run['context']})",
            )
    for name in run.get("unregistered", []):
        if re.search(rf"\bself\.{name}\b", source_line):
            return verdict(
                CONFIRMED,
                f"`self.{name}` holds tensors that require grad but are not in "
                f"`{run['class']}.parameters()`: an optimizer never updates them",
            )
    return None


def exec_verdicts(
    diagnostics: list[Diagnostic], outcome: dict, path: str, source: str
) -> tuple[dict[int, dict], list[RuntimeFailure]]:
    """Verdicts by index into `diagnostics` (those of `path`), and unexplained failures."""
    if outcome["outcome"] != "done":
        reason = outcome.get("reason") or f"importing the module raised {outcome.get('type')}"
        return {i: verdict(INCONCLUSIVE, reason) for i, _ in enumerate(diagnostics)}, []
    spans = _function_spans(ast.parse(source))
    lines = source.splitlines()
    failures = _failures(outcome)
    # A line that ran proves nothing if any run failed (the failure may hide its effect).
    failed = any(run.get("error") for run in outcome.get("runs", []))
    executed = set() if failed else set(outcome.get("executed", []))
    verdicts: dict[int, dict] = {}
    explained: set[tuple[int, str]] = set()
    for i, d in enumerate(diagnostics):
        proofs = [f for f in failures if _explains(d, f, spans)]
        if proofs:
            explained.update((f.lines[-1], f.message) for f in proofs)
            verdicts[i] = verdict(CONFIRMED, proofs[0].message)
            continue
        run = _class_run(outcome, d.line)
        source_line = lines[d.line - 1] if 0 < d.line <= len(lines) else ""
        ran = d.line in set(outcome.get("executed", []))
        found = _structural_verdict(d, run, source_line, ran) if run else None
        if found is None and d.line in executed and d.severity is Severity.ERROR:
            found = verdict(REFUTED, "the code probe ran this line and torch raised nothing")
        if found is None and run and run.get("error"):
            found = verdict(
                INCONCLUSIVE,
                f"the code probe of {run['context']} failed first: {run['error']['message']}",
            )
        if found is None:
            found = verdict(INCONCLUSIVE, "the code probe did not reach this line")
        verdicts[i] = found
    return verdicts, [
        f for f in failures if f.reportable and (f.lines[-1], f.message) not in explained
    ]
