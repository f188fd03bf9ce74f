"""Findings -> probe jobs, and probe outcomes -> verdicts.

Witness jobs run the self-contained program a rule attached to its finding (never the
user's code): at best they show the rule's example fails (`reproduced`). Code plans are
built from the linted sources with `ast` only: the module classes a file defines, the
constructor arguments and inputs the project passes them (literal values and
`torch.<factory>(...)` calls with literal arguments), and the lines of each function,
so that a runtime error can be traced back to the finding it proves. Verdicts are
computed here, in gradlint's process, from the raw facts a probe sends back (exception
type, message, lines of the file); an answer that does not have the expected shape is
`inconclusive`, never a finding.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from gradlint.diagnostic import Diagnostic, Severity, Witness
from gradlint.probe import arguments

# confirmed: the user's code raised it; reproduced: only the rule's example did.
CONFIRMED, REPRODUCED = "confirmed", "reproduced"
REFUTED, INCONCLUSIVE = "refuted", "inconclusive"
# Exceptions that say the probe's environment lacks something, not that gradients are wrong.
ENVIRONMENT_ERRORS = frozenset({"ImportError", "OSError", "NotImplementedError", "NameError"})
ENVIRONMENT_MARKERS = (
    "Torch not compiled with",
    "No CUDA GPUs are available",
    "Found no NVIDIA driver",
    "CUDA driver",
    "cannot open shared object file",
    "undefined symbol",
    "Error building extension",
    "Ninja is required",
    "Could not run '",
    "Could not load library",
)
# registering a fake / meta kernel for an operator whose C++ library was not loaded
_UNLOADED_OPERATOR = re.compile(r"\boperator [\w.]+::[\w.]+ does not exist")
# torch tensor factories whose literal-argument calls an exec probe may rebuild as inputs.
TENSOR_FACTORIES = frozenset(
    {"randn", "rand", "zeros", "ones", "empty", "full", "randint", "tensor", "arange", "eye"}
)
# Characters of a message a verdict quotes (torch's, a reason): a longer one is cut after
# its last sentence or clause that fits, so the verdict stays one short, whole statement.
_MESSAGE_LIMIT = 100
_CLAUSE_END = re.compile(r"[.:;](?= )| (?=\()")  # a full stop, colon, semicolon; " ("
_MEMORY_MARKERS = ("can't allocate memory", "out of memory", "Cannot allocate memory")
# Rule families predicting that gradients stop flowing: parameters without `.grad` after
# the code probe's backward confirm them.
GRAPH_CUT_RULES = ("GL2",)
# Rules predicting that a module's forward edits the tensor it was given: a forward whose
# input's version moved during the code probe confirms them.
INPUT_MUTATION_RULES = ("GL104",)
# Rules predicting that forward builds layers the module does not hold: a layer built at
# the finding's line while forward ran, whose parameters are not the module's, confirms them.
FORWARD_LAYER_RULES = ("GL505",)
# Where the inputs of a run came from when gradlint only guessed them: shaped for the
# first layers, tensors the file binds but does not pass, float tensors shaped like the
# real ones (values and dtype unknown).
RESHAPE_ORDER_RULES = ("GL403",)  # a view that reorders sizes (not dims) shows them
GUESSED_INPUTS = ("layer", "file", "shape")
GUESSED_NOTE = " (on inputs gradlint guessed)"


def describe_exception(error: BaseException) -> dict:
    """Outcome of a probe that raised: exits and memory exhaustion are named as such."""
    message = str(error)
    if isinstance(error, SystemExit):
        return {"outcome": "exit", "reason": f"the probe called sys.exit({error.code!r})"}
    if isinstance(error, MemoryError) or any(m in message for m in _MEMORY_MARKERS):
        first = message.splitlines()[0] if message else type(error).__name__
        return {"outcome": "memory", "reason": f"the probe exceeded the memory limit: {first}"}
    return {"outcome": "raised", "type": type(error).__name__, "message": message}


def verdict(kind: str, message: str) -> dict:
    """A verdict quoting `message` (torch's, with a note on guessed inputs, or a reason)."""
    return {"verdict": kind, "message": _first_line(message, _MESSAGE_LIMIT + len(GUESSED_NOTE))}


def _first_line(message: str, limit: int = _MESSAGE_LIMIT) -> str:
    """The message's first line, within `limit` characters: cut after its last sentence
    or clause that fits (`one of the variables ... by an inplace operation`), else at a
    word (`…`)."""
    line = message.strip().splitlines()[0] if message.strip() else ""
    if len(line) <= limit:
        return line
    ends = [m.start() for m in _CLAUSE_END.finditer(line, 0, limit + 1)]
    if ends and ends[-1] >= limit // 3:
        return line[: ends[-1]]
    space = line.rfind(" ", 0, limit)
    return line[: space if space > 0 else limit - 1].rstrip(" ,") + "…"


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
    """The rule's own example program says nothing about the user's code: at best it is
    `reproduced`; an example that runs clean is no proof the user's code is fine."""
    kind = outcome.get("outcome")
    if kind == "clean":
        return verdict(INCONCLUSIVE, "the rule's example ran without error")
    if kind == "raised" and isinstance(outcome.get("message"), str):
        message = outcome["message"]
        if matches(witness.expect, message):
            return verdict(REPRODUCED, message)
        return verdict(
            INCONCLUSIVE,
            f"the rule's example raised {outcome.get('type')}: {_first_line(message)!r}, "
            f"not the expected {witness.expect!r}",
        )
    return verdict(INCONCLUSIVE, str(outcome.get("reason") or "the probe's answer is malformed"))


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


def _callee(node: ast.Call) -> str | None:
    """`Net` of `Net(...)` and of `models.Net(...)`."""
    if isinstance(node.func, ast.Name):
        return node.func.id
    return node.func.attr if isinstance(node.func, ast.Attribute) else None


def _bindings(tree: ast.Module, classes: set[str]) -> _Bindings:
    found = _Bindings()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target, value = node.targets[0], node.value
        if not isinstance(target, ast.Name):
            continue
        if isinstance(value, ast.Call) and _callee(value) in classes:
            found.instances[target.id] = _callee(value)
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


def _inputs_of(node: ast.Call, bindings: _Bindings) -> list[str] | None:
    """The argument list of a `model(x)` call, if we can rebuild every argument."""
    if node.keywords:
        return None
    if len(node.args) == 1 and isinstance(starred := node.args[0], ast.Starred):
        name = starred.value.id if isinstance(starred.value, ast.Name) else ""
        sources = bindings.argument_lists.get(name)
    else:
        sources = [_input_source(a, bindings) for a in node.args]
    return sources if sources and all(sources) else None


class Project:
    """Every linted file's constructor calls and module calls, by class name, indexed
    once: a class is built and fed as its own file does first, then as the others do."""

    def __init__(self, sources: dict[str, str], configured: dict | None = None) -> None:
        self.sources = sources
        self._facts: dict[str, tuple[dict, dict, list]] = {}
        # class name -> what `probe-modules` gives: used after the project's own calls
        self.configured = {name: _configured(entry) for name, entry in (configured or {}).items()}
        self.trees = {path: tree for path, text in sources.items() if (tree := _parse(text, path))}
        classes = {
            n.name for t in self.trees.values() for n in ast.walk(t) if isinstance(n, ast.ClassDef)
        }
        self.bindings: dict[str, _Bindings] = {}
        # class name -> [(path, constructor call)], [(path, inputs of a call of an instance)]
        self.constructors: dict[str, list[tuple[str, ast.Call]]] = {}
        self.inputs: dict[str, list[tuple[str, list[str]]]] = {}
        for path, tree in self.trees.items():
            bindings = self.bindings[path] = _bindings(tree, classes)
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call) or (name := _callee(node)) is None:
                    continue
                if name in classes:
                    self.constructors.setdefault(name, []).append((path, node))
                instance = bindings.instances.get(name) if isinstance(node.func, ast.Name) else None
                if instance and (inputs := _inputs_of(node, bindings)):
                    self.inputs.setdefault(instance, []).append((path, inputs))

    def _sees(self, user: str, path: str) -> bool:
        """Whether the file `user` may be calling the classes of `path`: it is `path`, or
        it imports a module named like `path` (another file's `Block` is another class)."""
        if user == path:
            return True
        stem = os.path.splitext(os.path.basename(path))[0]
        if stem == "__init__":
            stem = os.path.basename(os.path.dirname(path))
        for node in ast.walk(self.trees[user]):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or "", *(f"{node.module}.{a.name}" for a in node.names)]
            else:
                continue
            if any(stem in n.split(".") for n in names):
                return True
        return False

    def _ordered(self, found: list[tuple[str, object]], path: str) -> list:
        """Own file first, then the files that import it."""
        seen = [item for item in found if self._sees(item[0], path)]
        return [value for _, value in sorted(seen, key=lambda item: item[0] != path)]

    def facts(self, path: str) -> tuple[dict, dict, list]:
        """What the static analysis of `path` proves its code builds and feeds its classes
        with: constructor calls and argument lists by class name, and the calls of its
        other methods and functions it makes (`arguments.py`)."""
        if path not in self._facts:
            context = arguments.file_context(path, self.sources[path])
            self._facts[path] = (
                (
                    arguments.constructors(context),
                    arguments.call_inputs(context),
                    arguments.function_calls(context),
                )
                if context is not None
                else ({}, {}, [])
            )
        return self._facts[path]

    def constructor(self, path: str, name: str) -> dict | None:
        """As the file's own code builds the class, else as a file importing it does with
        literal arguments, else as configured, else as the file does with a tensor
        argument rebuilt from its shape (`guessed`)."""
        own = self.facts(path)[0].get(name, [])
        others = [(user, call) for user, call in self.constructors.get(name, []) if user != path]
        found = (c for c in map(_constructor_call, self._ordered(others, path)) if c is not None)
        configured = self.configured.get(name, {}).get("constructor")
        proven = (c for c in own if not c["guessed"])
        return next(proven, None) or next(found, None) or configured or next(iter(own), None)

    def shaped_inputs(self, path: str, name: str) -> list[dict]:
        """Argument lists of the file's own calls of the class, tensors rebuilt from their
        shapes (their values, maybe their dtype, guessed), or what is known of their grad
        (`arguments.call_inputs`)."""
        return self.facts(path)[1].get(name, [])

    def call_inputs(self, path: str, name: str) -> list[list[str]]:
        found = []
        for inputs in self._ordered(self.inputs.get(name, []), path):
            if inputs not in found:
                found.append(inputs)
        return found

    def configured_inputs(self, name: str) -> list[list[str]]:
        return self.configured.get(name, {}).get("inputs", [])


def _expression(value) -> str | None:
    """A configured value as source the probe may evaluate: a literal or a
    `torch.<factory>(<literals>)` call; None for anything else."""
    if not isinstance(value, str):
        text = repr(value)
        return text if _parse(text, "<config>") is not None else None
    tree = _parse(value, "<config>")
    if tree is None or len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return None
    node = tree.body[0].value
    return tensor_factory(node) or (ast.unparse(node) if _literal(node) else None)


def _configured(entry: dict) -> dict:
    """`probe-modules.<Class>` as a constructor call and input lists (invalid ones dropped)."""
    found: dict = {}
    args = [_expression(a) for a in entry.get("args", [])]
    kwargs = {k: _expression(v) for k, v in entry.get("kwargs", {}).items()}
    if ("args" in entry or "kwargs" in entry) and all(args) and all(kwargs.values()):
        found["constructor"] = {"args": args, "kwargs": kwargs}
    inputs = [[_expression(i) for i in given] for given in entry.get("inputs", [])]
    found["inputs"] = [i for i in inputs if i and all(i)]
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


MODULE_NAME = "_gradlint_probed_module"  # not __main__: `if __name__ == "__main__"` stays off


def module_name(path: str) -> tuple[str, str]:
    """(import root, module name): `root/pkg/sub/model.py` in packages (`__init__.py` all
    the way up) is `pkg.sub.model`, so its relative imports work; a loose script gets a
    name of its own and its directory as the root."""
    directory, stem = os.path.split(os.path.splitext(path)[0])
    parts = [] if stem == "__init__" else [stem]
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        directory, package = os.path.split(directory)
        parts.insert(0, package)
    if not parts or parts == [stem]:
        return os.path.dirname(path), MODULE_NAME
    return directory, ".".join(parts)


def _parse(source: str, path: str) -> ast.Module | None:
    try:
        return ast.parse(source, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def plan_exec(
    path: str, source: str, mode: str = "definitions", project: Project | None = None
) -> dict | None:
    """The request of a code probe of one file, or None when it cannot be parsed.

    `mode` "definitions" runs only the file's definitions, "exec" the whole module.
    Constructor arguments and inputs come from the file first, then from the other
    files of `project` (by default the file alone)."""
    project = project if project is not None and path in project.trees else Project({path: source})
    tree = project.trees.get(path)
    if tree is None:
        return None
    classes = [
        {
            "name": node.name,
            "line": node.lineno,
            "end_line": node.end_lineno or node.lineno,
            "constructor": project.constructor(path, node.name),
            "inputs": project.call_inputs(path, node.name)
            + _annotated_inputs(node)
            + project.configured_inputs(node.name),
            "shaped": project.shaped_inputs(path, node.name),
        }
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    ]
    spans = {
        (owner.name if owner else None, n.name): (n.lineno, n.end_lineno or n.lineno)
        for owner in [None, *(n for n in tree.body if isinstance(n, ast.ClassDef))]
        for n in (owner or tree).body
        if isinstance(n, ast.FunctionDef)
    }
    calls = [
        {**call, "line": spans[key][0], "end_line": spans[key][1]}
        for call in project.facts(path)[2]
        if (key := (call["owner"], call["name"])) in spans
    ]
    bindings = project.bindings[path]
    absolute = os.path.abspath(path)
    root, module = module_name(absolute)
    return {
        "kind": "code",
        "mode": mode,
        "path": absolute,
        "root": root,
        "module": module,
        "roots": [root],  # what the probe may read besides the Python installation
        "classes": classes,
        # the file's calls of its modules' other methods and of functions applying an
        # autograd.Function (`arguments.function_calls`), with the called function's lines
        "calls": calls,
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
    # the autograd.Function a gradcheck failure is about, or that torch's message names
    span: tuple[int, int] | None = None
    # lines whose in-place writes moved the saved tensor a backward error names
    edited_at: list[int] = field(default_factory=list)
    # the user's line to change when it is not where torch raised (the in-place write
    # that moved a saved tensor), and other lines that played a part, with their part
    at: int | None = None
    related: list[tuple[int, str]] = field(default_factory=list)
    how: str = "here"  # how `at` caused it, for the finding's headline
    # False when torch did not raise it (a `raise` of the project, a missing data file or
    # optional dependency), the inputs were only guessed (from the module's layers, or
    # float tensors shaped like the real ones: the guess's fault?) or gradcheck found the
    # backward differs from the forward's derivative (custom backwards are often so by
    # design: straight-through, gradient reversal, clipped or rescaled surrogates): it
    # can confirm a finding that predicts it but is no GL901 itself.
    reportable: bool = True
    # the inputs were guessed: only the error a finding predicts (its rule's message) can
    # confirm it, never any error at its line (that may be the guess's fault)
    guessed: bool = False


def environment_failure(error: dict) -> bool:
    """An exception that says the probe's environment lacks something (a module, a file,
    a GPU, a built C++ extension), not that the code's gradients are wrong."""
    kinds = {error["type"], *error.get("bases", [])}
    message = error["message"]
    return (
        bool(kinds & ENVIRONMENT_ERRORS)
        or any(m in message for m in ENVIRONMENT_MARKERS)
        or _UNLOADED_OPERATOR.search(message) is not None
    )


def torch_error(error: dict) -> bool:
    """torch raised it (not a `raise` statement of the project, not the environment)."""
    return error.get("raised_by") in ("torch", "call") and not environment_failure(error)


# `Function EnforcePriorBackward returned an incorrect number of gradients`: torch names
# the autograd.Function whose backward is wrong.
_FUNCTION_NAMED = re.compile(r"\b[Ff]unction (?P<name>\w+)Backward\b")


def backward_returns(tree: ast.Module) -> dict[str, int]:
    """Class name -> the line of the `return` of its `backward` method (the `def` line
    when it has several returns)."""
    found = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for method in node.body:
            if isinstance(method, ast.FunctionDef) and method.name == "backward":
                returns = [n for n in ast.walk(method) if isinstance(n, ast.Return)]
                found[node.name] = returns[0].lineno if len(returns) == 1 else method.lineno
    return found


def _failure(
    run: dict, error: dict, context: str, classes: dict, returns: dict[str, int], *, guessed: bool
) -> RuntimeFailure:
    gradcheck = context.startswith("gradcheck")
    kinds = {error["type"], *error.get("bases", [])}
    named = _FUNCTION_NAMED.search(error["message"])
    span = (run["line"], run["end_line"]) if gradcheck else None
    if span is None and named is not None:
        span = classes.get(named["name"])
    at, related = _cause(error)
    how = "here" if at is None else "in backward because of this in-place write"
    if at is None and named is not None and named["name"] in returns:
        # what the Function's backward returned is wrong: its return, where it was applied
        name = named["name"]
        at, how = returns[name], f"in backward, from what `{name}.backward` returns here"
        if error["lines"] and error["lines"][-1] != at and not gradcheck:
            related.append((error["lines"][-1], "applied the Function"))
    return RuntimeFailure(
        error["type"],
        error["message"],
        error["lines"],
        context,
        backward=run.get("phase") == "backward",
        span=span,
        edited_at=error.get("edited_at", []),
        at=at,
        related=related,
        how=how,
        guessed=guessed,
        reportable="RuntimeError" in kinds
        and not guessed
        and error["type"] != "GradcheckError"
        and torch_error(error),
    )


def _cause(error: dict) -> tuple[int | None, list[tuple[int, str]]]:
    """The line to change and the related lines of an error, from the probe's facts: for
    a saved tensor modified in place, the write that moved its version (the shape and
    versions torch names), where the layer making it was built or set `inplace`, and the
    op that saved the tensor (anomaly mode's forward trace); for an in-place edit of a
    view torch forbids, the line that made the view; for a backward of a tensor that does
    not require grad, the line whose op cut the graph it was computed from; for a gradient
    of the wrong shape handed to backward, the line that made it."""
    at = error.get("write_at")
    view = error.get("view_at")
    if at is None:
        raised = error["lines"][-1] if error["lines"] else None
        related = [(view, "made the view")] if view is not None and view != raised else []
        if error.get("cut_at") is not None and error["cut_at"] != raised:
            related.append((error["cut_at"], f"cut the graph: it {error['cut']}"))
        if error.get("gradient_at") is not None and error["gradient_at"] != raised:
            related.append((error["gradient_at"], "made the gradient handed to backward"))
        return None, related
    related = [
        (line, "built or configured the layer that made this write")
        for line in error.get("layer_at", [])
        if line != at
    ]
    saved = error.get("saved_at")
    if saved is not None and saved != at:
        related.append((saved, "ran the op that saved the tensor for backward"))
    return at, related


def _failures(outcome: dict, classes: dict, returns: dict[str, int]) -> list[RuntimeFailure]:
    """The torch errors of the runs (the guessed inputs' ones too), in run order."""
    found = []
    for run in outcome.get("runs", []):
        others = run.get("other_errors", [])
        for error, context, origin in [
            (run.get("error"), run.get("context", ""), run.get("inputs_from")),
            *((o["error"], o["context"], o.get("inputs_from")) for o in others),
        ]:
            if error and error["lines"] and torch_error(error):
                # tensors the file binds but does not pass to the module are guesses too
                guessed = origin in GUESSED_INPUTS or run.get("built_from") in GUESSED_INPUTS
                failure = _failure(run, error, context, classes, returns, guessed=guessed)
                found.append(failure)
    return found


def _innermost_function(spans: list[tuple[int, int]], line: int) -> tuple[int, int] | None:
    inside = [s for s in spans if s[0] <= line <= s[1]]
    return max(inside, default=None)


def _explains(d: Diagnostic, failure: RuntimeFailure, spans: list[tuple[int, int]]) -> bool:
    """The failure proves `d`: raised at its line (on guessed inputs, only if it is the
    error `d` predicts), or, when it is the torch error `d` predicts (its witness's
    message, or any error if `d` has no witness and its rule is one where torch raises):
    `d`'s line made an in-place write that moved the saved tensor the error names, `d`
    is in the autograd.Function the error is about, or the error comes later in `d`'s
    function."""
    if d.witness is not None:
        predicted = matches(d.witness.expect, failure.message)
    else:
        predicted = d.severity is Severity.ERROR and not failure.guessed
    if d.line in failure.lines and (predicted or not failure.guessed):
        return True
    if not predicted:
        return False
    if d.line in failure.edited_at:
        return True
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


def _mutated_input(d: Diagnostic, outcome: dict, classes: dict) -> dict | None:
    """GL104-like findings in a class whose forward changed its input in some run (its
    own, or one of a module that contains it)."""
    if not d.code.startswith(INPUT_MUTATION_RULES):
        return None
    for run in outcome["runs"]:
        for name in run.get("modified_input", []):
            start, end = classes.get(name, (0, -1))
            if start <= d.line <= end:
                return verdict(
                    CONFIRMED,
                    f"`{name}.forward` changed the tensor it was given in place "
                    f"(code probe: {run.get('context', '')})",
                )
    return None


def _structural_verdict(
    d: Diagnostic, run: dict, source_line: str, ran: bool, branches: list[str]
) -> dict | None:
    """Verdicts that need no exception: unregistered tensors (seen once the module is
    built), an ignored `backward`, parameters a graph-cutting line (`ran`) left without
    gradient (not those of layers forward never called; `branches` says which of those
    are used only on a branch the probe did not take)."""
    for name in run.get("unregistered", []):
        if re.search(rf"\bself\.{name}\b", source_line):
            return verdict(
                CONFIRMED,
                f"`self.{name}` holds tensors that require grad but are not in "
                f"`{run['class']}.parameters()`: an optimizer never updates them",
            )
    if d.code.startswith(FORWARD_LAYER_RULES) and d.line in run.get("built_in_forward", []):
        return verdict(
            CONFIRMED,
            f"`{run['class']}.forward` built a layer at this line whose parameters are not "
            f"in `{run['class']}.parameters()` (code probe: {run.get('context', '')})",
        )
    for view in run.get("reordered_views", []) if d.code.startswith(RESHAPE_ORDER_RULES) else []:
        if view["line"] == d.line:
            before, after = (", ".join(map(str, view[k])) for k in ("before", "after"))
            return verdict(
                CONFIRMED,
                f"the view at this line gave a tensor of size ({before}) the sizes "
                f"({after}): the same sizes in another order, the data not moved "
                f"(code probe: {run.get('context', '')})",
            )
    # parameters of layers forward never called prove no cut: they are GL903's
    unused = {p for entry in run.get("never_used", []) for p in entry["parameters"]}
    cut = [n for n in run.get("grad_none", []) if n not in unused]
    if d.code.startswith(GRAPH_CUT_RULES) and ran and not cut and branches:
        return verdict(INCONCLUSIVE, f"the parameters without gradient are {branches[0]}")
    if d.code.startswith(GRAPH_CUT_RULES) and ran and cut:
        names = ", ".join(f"`{n}`" for n in cut)
        if run.get("output_needs_no_grad"):
            return verdict(
                CONFIRMED,
                f"the output of `{run['class']}.forward` does not require grad: {names} "
                f"can get no gradient (code probe: {run.get('context', '')})",
            )
        if run.get("ran_backward"):
            return verdict(CONFIRMED, f"after `loss.backward()` {names} still have no gradient")
    if not run.get("ran_backward"):
        return None
    for name, called in run.get("backward_methods", {}).items():
        if re.search(rf"\bdef {name}\b", source_line):
            if called:
                return verdict(REFUTED, f"`{name}` was called during `loss.backward()`")
            return verdict(
                CONFIRMED,
                f"`{run['class']}.{name}` was never invoked by `loss.backward()` "
                f"(code probe: {run['context']})",
            )
    return None


# The shape of a code probe's answer: `key?` is optional, {str: bool} a mapping.
_ERROR = {
    "type": str,
    "bases": [str],
    "message": str,
    "lines": [int],
    "raised_by": str,
    "edited_at?": [int],
    "write_at?": int,
    "layer_at?": [int],
    "saved_at?": int,
    "view_at?": int,
    "cut_at?": int,
    "cut?": str,
    "gradient_at?": int,
}
_RUN = {
    "class": str,
    "line": int,
    "end_line": int,
    "context?": str,
    "error?": (_ERROR, None),
    "other_errors?": [{"error": _ERROR, "context": str, "inputs_from?": str}],
    "grad_none?": [str],
    "backward_methods?": {str: bool},
    "unregistered?": [str],
    "modified_input?": [str],
    "built_in_forward?": [int],
    "reordered_views?": [{"line": int, "before": [int], "after": [int]}],
    "ran_backward?": bool,
    "output_needs_no_grad?": bool,
    "never_used?": [
        {"class": str, "attribute": str, "parameters": [str], "line": int, "layer": str}
    ],
    "phase?": str,
    "inputs_from?": str,
    "built_from?": str,
    "skipped?": str,
}
_DONE = {"outcome": str, "runs": [_RUN], "executed": [int], "serial?": int}


def _fits(value, spec) -> bool:
    if spec is None:
        return value is None
    if isinstance(spec, tuple):
        return any(_fits(value, option) for option in spec)
    if isinstance(spec, type):
        return isinstance(value, spec) and not (spec is int and isinstance(value, bool))
    if isinstance(spec, list):
        return isinstance(value, list) and all(_fits(v, spec[0]) for v in value)
    if not isinstance(value, dict):
        return False
    [(first, kind)] = spec.items() if len(spec) == 1 else [(None, None)]
    if isinstance(first, type):
        return all(_fits(k, first) and _fits(v, kind) for k, v in value.items())
    keys = {k.rstrip("?"): k for k in spec}
    required = {k for k in spec if not k.endswith("?")}
    return (
        set(value) <= set(keys)
        and required <= set(value)
        and all(_fits(v, spec[keys[k]]) for k, v in value.items())
    )


def malformed_answer(outcome, line_count: int) -> str | None:
    """Why a code probe's answer cannot be trusted, or None: the wrong shape, or lines
    that are not in the file (one file's probe speaks only about that file)."""
    if not _fits(outcome, _DONE):
        return "the probe's answer is malformed"
    errors = [run["error"] for run in outcome["runs"] if run.get("error")]
    errors += [e["error"] for run in outcome["runs"] for e in run.get("other_errors", [])]
    lines = [
        line
        for e in errors
        for line in [*e["lines"], *e.get("edited_at", []), *e.get("layer_at", [])]
        + [
            e[key]
            for key in ("write_at", "saved_at", "view_at", "cut_at", "gradient_at")
            if key in e
        ]
    ]
    lines += outcome["executed"]
    for run in outcome["runs"]:
        lines += run.get("built_in_forward", [])
        lines += [entry["line"] for entry in run.get("never_used", [])]
        lines += [view["line"] for view in run.get("reordered_views", [])]
    if any(not 0 < line <= line_count for line in lines):
        return "the probe's answer names lines the file does not have"
    return None


@dataclass
class NeverUsed:
    """A layer or parameter a module class stores in `__init__` and that got no gradient
    from a clean forward and backward that never called it."""

    cls: str
    attribute: str
    parameters: list[str]
    line: int  # where `__init__` stores it
    layer: str  # the class of what it holds (`Linear`, `Parameter`)
    context: str  # the probe's run, e.g. "Net() on inputs torch.randn(3, 16)"
    # why the probe stays quiet about it: it is used on lines the probe never ran
    branch: str = ""


def _mentions(trees: Iterable[ast.Module], attribute: str) -> list[tuple[ast.Module, int]]:
    """Where the project reads `<anything>.<attribute>` or spells it as a string (getattr,
    `self._modules["proj"]`): (the file's tree, line). Storing it is no use of it."""
    found = []
    for tree in trees:
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr == attribute
                and not isinstance(node.ctx, ast.Store)
            ) or (isinstance(node, ast.Constant) and node.value == attribute):
                found.append((tree, node.lineno))
    return found


def never_used(
    outcome: dict,
    path: str,
    tree: ast.Module,
    project: Project | None,
    diagnostics: list[Diagnostic],
    where: Callable[[int], str],
) -> list[NeverUsed]:
    """The layers and parameters of the file's classes forward never used, from the
    clean runs of the probe (one per class and attribute). `branch` is set when the
    project reads the attribute only on lines of this file the probe never ran;
    those the project reads elsewhere, or that a static finding at the storing line
    explains, are left out."""
    others = project.trees.items() if project is not None else []
    trees = [tree, *(other for name, other in others if name != path)]
    executed = set(outcome.get("executed", []))
    flagged = {d.line for d in diagnostics}
    found: dict[tuple[str, str], NeverUsed] = {}
    for run in outcome.get("runs", []):
        for entry in run.get("never_used", []):
            key = (entry["class"], entry["attribute"])
            if key in found or entry["line"] in flagged:
                continue
            mentions = _mentions(trees, entry["attribute"])
            if any(t is not tree or line in executed for t, line in mentions):
                continue
            unused = NeverUsed(
                entry["class"],
                entry["attribute"],
                entry["parameters"],
                entry["line"],
                entry["layer"],
                run.get("context", ""),
            )
            if mentions:
                lines = ", ".join(where(line) for _, line in mentions)
                unused.branch = (
                    f"those of `{entry['class']}.{entry['attribute']}`, used only on a branch "
                    f"the probe did not take ({lines})"
                )
            found[key] = unused
    return list(found.values())


def exec_verdicts(
    diagnostics: list[Diagnostic],
    outcome: dict,
    path: str,
    source: str,
    project: Project | None = None,
    where: Callable[[int], str] = lambda line: f"line {line}",
) -> tuple[dict[int, dict], list[RuntimeFailure], list[NeverUsed]]:
    """Verdicts by index into `diagnostics` (those of `path`), unexplained failures, and
    layers forward never used (`branch` set: quiet, used on a branch the probe did not
    take). `where` names a line of the file in a verdict (`cell 2 line 5`)."""
    lines = source.splitlines()
    if isinstance(outcome, dict) and outcome.get("outcome") == "done":
        problem = malformed_answer(outcome, len(lines))
        if problem:
            outcome = {"outcome": "malformed", "reason": problem}
    if not isinstance(outcome, dict) or outcome.get("outcome") != "done":
        reason = _not_done(outcome)
        return {i: verdict(INCONCLUSIVE, reason) for i, _ in enumerate(diagnostics)}, [], []
    tree = ast.parse(source)
    spans = _function_spans(tree)
    classes = {
        n.name: (n.lineno, n.end_lineno or n.lineno)
        for n in ast.walk(tree)
        if isinstance(n, ast.ClassDef)
    }
    failures = _failures(outcome, classes, backward_returns(tree))
    unused = never_used(outcome, path, tree, project, diagnostics, where)
    # A line that ran proves nothing if any run failed (the failure may hide its effect).
    failed = any(run.get("error") for run in outcome.get("runs", []))
    executed = set() if failed else set(outcome.get("executed", []))
    verdicts: dict[int, dict] = {}
    explained: set[tuple[int, str]] = set()
    for i, d in enumerate(diagnostics):
        proofs = [f for f in failures if _explains(d, f, spans)]
        if proofs:
            explained.update((f.lines[-1], f.message) for f in proofs)
            message = _first_line(proofs[0].message)
            verdicts[i] = verdict(CONFIRMED, message + GUESSED_NOTE * proofs[0].guessed)
            continue
        mutated = _mutated_input(d, outcome, classes)
        if mutated:
            verdicts[i] = mutated
            continue
        run = _class_run(outcome, d.line)
        source_line = lines[d.line - 1] if 0 < d.line <= len(lines) else ""
        ran = d.line in set(outcome.get("executed", []))
        branches = [u.branch for u in unused if u.branch and run and u.cls == run["class"]]
        found = _structural_verdict(d, run, source_line, ran, branches) if run else None
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
    return (
        verdicts,
        [f for f in failures if f.reportable and (f.lines[-1], f.message) not in explained],
        unused,
    )


def _not_done(outcome) -> str:
    """Why a code probe ended without running the file's modules."""
    if not isinstance(outcome, dict) or not isinstance(outcome.get("reason", ""), str):
        return "the probe's answer is malformed"
    if outcome.get("reason"):
        return outcome["reason"]
    if outcome.get("outcome") == "raised":
        return (
            f"the probe failed: {outcome.get('type')}: {_first_line(str(outcome.get('message')))}"
        )
    return "the probe's answer is malformed"
