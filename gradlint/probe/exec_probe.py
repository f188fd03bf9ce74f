"""Code probes: import the linted module in the contained fork and run its modules.

Runs inside a probe fork only (`sandbox.py`), never in gradlint or the warm worker.
Two ways to import the file:

- `definitions` (`--probe`): only the definitions of the file and of the project's own
  modules it imports run (imports, classes, functions, constant assignments, `if`/`try`
  blocks made of those); module-level calls, loops and `__main__` blocks are dropped
  before compiling (`definitions_only`), whatever `.pyc` exists.
- `exec` (`--probe=exec`): the whole module runs, as `import` would run it.

For each `nn.Module` class of the file it builds an instance (constructor arguments
found in the project, else the defaults), feeds inputs (the project's own call sites,
annotations, the file's literal tensors, else shapes inferred from the first layers),
runs forward and `sum().backward()` under anomaly mode, and records where in the file
torch raised, which lines ran, whether `backward`-like methods of the module were
invoked by autograd, and which tensors requiring grad the module does not register.
Every `torch.autograd.Function` of the file that was applied gets a float64 `gradcheck`.
The answer holds raw facts only; verdicts are the parent's (`planner.py`).
"""

from __future__ import annotations

import ast
import dis
import importlib.machinery
import importlib.util
import inspect
import os
import re
import signal
import sys
import traceback
import types
import warnings

from gradlint.probe.planner import MODULE_NAME, describe_exception

BACKWARD_NAME = re.compile(r"(^backward$|_backward$|Backward$)")
_ANOMALY_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
BATCH = 3  # batch size of inferred inputs (>1 so that batch norm can train)
SPATIAL = 8  # length / height / width of inferred sequence and image inputs
GRADCHECK_MAX_ELEMENTS = 1024  # a failing fast gradcheck reruns in slow mode: n² work
CALL_SECONDS = 2.0  # time a call of the file's own methods and functions may take
CALLS_PER_FILE = 8  # calls of the file's own methods and functions one probe makes
CALLS_RUN = 4  # calls of a module the project makes that one probe runs
# inputs of the project's own calls: as written, rebuilt from shape and dtype (values
# random), rebuilt from shape only
PROJECT_INPUTS = ("call", "proven", "shape")
_CONTAINER_DEPTH = 4  # dicts of lists of ... an attribute may hold layers in
_RAISE_OPS = {dis.opmap[name] for name in ("RAISE_VARARGS", "RERAISE") if name in dis.opmap}
_DEFINITIONS = (ast.Import, ast.ImportFrom, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
_RUNS_CODE = (
    ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr,
    ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
)  # fmt: skip


def _no_calls(node: ast.AST | None) -> bool:
    return node is None or not any(isinstance(n, _RUNS_CODE) for n in ast.walk(node))


def _main_guard(node: ast.If) -> bool:
    return "__name__" in ast.unparse(node.test)


def _kept(body: list[ast.stmt]) -> list[ast.stmt]:
    """The definitions among `body`; `if` and `try` blocks keep the definitions inside."""
    kept: list[ast.stmt] = []
    for node in body:
        if (
            isinstance(node, _DEFINITIONS)
            or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
            or isinstance(node, ast.Assign | ast.AnnAssign)
            and _no_calls(node.value)
        ):
            kept.append(node)
        elif isinstance(node, ast.If) and not _main_guard(node) and _no_calls(node.test):
            node.body, node.orelse = _kept(node.body) or [ast.Pass()], _kept(node.orelse)
            kept.append(node)
        elif isinstance(node, ast.Try):
            node.body = _kept(node.body) or [ast.Pass()]
            for handler in node.handlers:
                handler.body = _kept(handler.body) or [ast.Pass()]
            node.orelse, node.finalbody = _kept(node.orelse), _kept(node.finalbody)
            kept.append(node)
    return kept


def definitions_only(source: str | bytes, path: str):
    """The code object of `source` without its module-level calls, loops or `__main__`."""
    tree = ast.parse(source, path)
    tree.body = _kept(tree.body)
    ast.fix_missing_locations(tree)
    return compile(tree, path, "exec", dont_inherit=True)


class _DefinitionsLoader(importlib.machinery.SourceFileLoader):
    def get_code(self, fullname):  # never a cached .pyc of the whole module
        return definitions_only(self.get_data(self.path), self.path)


class DefinitionsFinder:
    """On `sys.meta_path`: the project's own modules (below `root`) import as definitions."""

    def __init__(self, root: str) -> None:
        self.root = os.path.join(os.path.abspath(root), "")

    def find_spec(self, name, path=None, target=None):
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        origin = getattr(spec, "origin", None) or ""
        if spec is None or not origin.startswith(self.root) or not origin.endswith(".py"):
            return None
        spec.loader = _DefinitionsLoader(spec.name, origin)
        return spec


class LineTracer:
    """Records the lines of one file that ran (other files cost one call check)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.lines: set[int] = set()

    def _global(self, frame, event, arg):
        return self._local if frame.f_code.co_filename == self.path else None

    def _local(self, frame, event, arg):
        if event == "line":
            self.lines.add(frame.f_lineno)
        return self._local

    def __enter__(self) -> LineTracer:
        self._previous = sys.gettrace()
        sys.settrace(self._global)
        return self

    def __exit__(self, *_) -> None:
        sys.settrace(self._previous)


class FunctionCapture:
    """Remembers the first arguments each `autograd.Function` of the module was applied to."""

    def __init__(self, torch, module_name: str) -> None:
        self.function = torch.autograd.Function
        self.module_name = module_name
        self.calls: dict[type, tuple] = {}

    def __enter__(self) -> FunctionCapture:
        self._original = self.function.__dict__["apply"]
        original, calls, module_name = self._original.__func__, self.calls, self.module_name

        def apply(cls, *args, **kwargs):
            if cls.__module__ == module_name and cls not in calls:
                calls[cls] = args
            return original(cls, *args, **kwargs)

        self.function.apply = classmethod(apply)
        return self

    def __exit__(self, *_) -> None:
        self.function.apply = self._original


def _file_lines(error: BaseException, path: str) -> list[int]:
    return [f.lineno for f in traceback.extract_tb(error.__traceback__) if f.filename == path]


def _anomaly_lines(caught: list, path: str) -> list[int]:
    """Lines of `path` in the forward traceback anomaly mode attaches to a backward error."""
    for warning in caught:
        text = str(warning.message)
        if text.startswith("Error detected in"):
            return [int(m["line"]) for m in _ANOMALY_FRAME.finditer(text) if m["file"] == path]
    return []


def _raised_by(error: BaseException) -> str:
    """ "torch" (its Python code raised inside the torch package), "raise" (a `raise` or
    `assert` statement outside torch) or "call" (a C function called from outside torch
    raised it: torch's C++ ops raise from the line that calls them)."""
    import torch

    last = error.__traceback__
    while last is not None and last.tb_next is not None:
        last = last.tb_next
    if last is None:
        return "raise"
    code = last.tb_frame.f_code
    if code.co_filename.startswith(os.path.dirname(torch.__file__) + os.sep):
        return "torch"
    lasti = last.tb_lasti
    return (
        "raise" if 0 <= lasti < len(code.co_code) and code.co_code[lasti] in _RAISE_OPS else "call"
    )


def _error(error: BaseException, lines: list[int]) -> dict:
    return {
        "type": type(error).__name__,
        "bases": [c.__name__ for c in type(error).__mro__[1:] if c.__module__ == "builtins"],
        "message": str(error),
        "lines": lines,
        "raised_by": _raised_by(error),
    }


def _torch_import(name: str, *args, **kwargs):
    """torch's C++ code imports its own Python modules (`torch.storage` for a bool
    tensor) through the builtins of the calling frame: those only."""
    if name != "torch" and not name.startswith("torch."):
        raise ImportError(f"the probe's expressions import only torch, not {name}")
    return __import__(name, *args, **kwargs)


def _evaluate(torch, source: str, classes: dict):
    """A literal, a `torch.<factory>(<literals>)`, or an instance of a torch layer, of
    `SimpleNamespace` or of one of the file's `classes` built from those (sources the
    planner made)."""
    namespace = {
        "__builtins__": {"__import__": _torch_import},
        "torch": torch,
        "SimpleNamespace": types.SimpleNamespace,
        **classes,
    }
    return eval(source, namespace)  # noqa: S307


def _as_activation(torch, value):
    """A float input that does not require grad becomes what a layer usually receives: a
    non-leaf that requires grad (so the module's own graph, not a leaf error, is probed)."""
    if isinstance(value, torch.Tensor) and value.is_floating_point() and not value.requires_grad:
        return value.requires_grad_().clone()
    return value


def _loss(torch, output):
    """Sum of every floating tensor in the output that requires grad, or None."""
    if isinstance(output, torch.Tensor):
        tensors = [output]
    elif isinstance(output, dict):
        tensors = list(output.values())
    elif isinstance(output, list | tuple):
        tensors = list(output)
    else:
        tensors = []
    parts = [
        t.sum()
        for t in tensors
        if isinstance(t, torch.Tensor) and t.requires_grad and t.is_floating_point()
    ]
    return sum(parts[1:], parts[0]) if parts else None


def _input_guesses(torch, instance) -> list[list[str]]:
    """Single inputs shaped for the module's layers, in registration order."""
    nn, guesses = torch.nn, []
    for layer in instance.modules():
        guess = None
        if isinstance(layer, nn.Linear):
            guess = f"torch.randn({BATCH}, {layer.in_features})"
        elif isinstance(layer, nn.Conv1d | nn.Conv2d | nn.Conv3d):
            spatial = ", ".join([str(SPATIAL)] * len(layer.kernel_size))
            guess = f"torch.randn({BATCH}, {layer.in_channels}, {spatial})"
        elif isinstance(layer, nn.Embedding):
            guess = f"torch.randint(0, {layer.num_embeddings}, ({BATCH}, {SPATIAL}))"
        elif isinstance(layer, nn.RNNBase):
            first, second = (BATCH, SPATIAL) if layer.batch_first else (SPATIAL, BATCH)
            guess = f"torch.randn({first}, {second}, {layer.input_size})"
        elif isinstance(layer, nn.BatchNorm1d):
            guess = f"torch.randn({BATCH}, {layer.num_features})"
        elif isinstance(layer, nn.LayerNorm):
            dims = ", ".join(map(str, layer.normalized_shape))
            guess = f"torch.randn({BATCH}, {dims})"
        if guess and [guess] not in guesses:
            guesses.append([guess])
    for parameter in instance.parameters(recurse=False):
        guess = f"torch.randn({', '.join(map(str, parameter.shape))})"
        if [guess] not in guesses:
            guesses.append([guess])
    return guesses


def _as_passed(guess: list[str], plan: dict) -> list[str]:
    """Guessed inputs made leaves that require grad where the project passes such a leaf
    (of a shape the analysis does not know: an input whose gradient is wanted)."""
    grads = next((s["grads"] for s in plan["shaped"] if "grads" in s), [])
    if len(grads) != len(guess):
        return guess
    pairs = zip(guess, grads, strict=True)
    return [f"{source}.requires_grad_()" if grad == "leaf" else source for source, grad in pairs]


def _required_positionals(instance) -> int:
    try:
        parameters = inspect.signature(instance.forward).parameters.values()
    except (TypeError, ValueError):
        return -1
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(1 for p in parameters if p.kind in kinds and p.default is p.empty)


def _held(torch, value, depth: int = 0) -> list:
    """The tensors and modules inside `value`: itself, or the items of the dicts, lists
    and tuples it nests (`{"w": nn.Parameter(...)}`, `[[nn.Linear(...), nn.Tanh()]]`)."""
    if isinstance(value, torch.Tensor | torch.nn.Module):
        return [value]
    if depth >= _CONTAINER_DEPTH:
        return []
    if isinstance(value, dict):
        value = list(value.values())
    if not isinstance(value, list | tuple):
        return []
    return [held for item in value for held in _held(torch, item, depth + 1)]


def _unregistered(torch, instance) -> list[str]:
    """Attributes holding (in containers too) grad-requiring tensors, parameters or
    modules the module does not register (so `parameters()` and optimizers miss them)."""
    registered = {id(p) for p in instance.parameters()}
    names = []
    for module in instance.modules():
        for name, value in vars(module).items():
            for item in _held(torch, value):
                hidden = isinstance(item, torch.nn.Module) and any(
                    id(p) not in registered for p in item.parameters()
                )
                hidden = hidden or (
                    isinstance(item, torch.Tensor)
                    and item.requires_grad
                    and item.is_leaf
                    and id(item) not in registered
                )
                if hidden and name not in names:
                    names.append(name)
    return names


class _BackwardSpy:
    """Wraps `backward`-like methods of one class; records calls made during backward."""

    def __init__(self, cls) -> None:
        self.cls = cls
        self.originals = {
            n: v for n, v in vars(cls).items() if BACKWARD_NAME.search(n) and inspect.isfunction(v)
        }
        self.called = dict.fromkeys(self.originals, False)
        self.listening = False

    def _spy(self, name: str, original):
        def spy(*args, **kwargs):
            if self.listening:
                self.called[name] = True
            return original(*args, **kwargs)

        return spy

    def __enter__(self) -> _BackwardSpy:
        for name, original in self.originals.items():
            setattr(self.cls, name, self._spy(name, original))
        return self

    def __exit__(self, *_) -> None:
        for name, original in self.originals.items():
            setattr(self.cls, name, original)


_VIEWS = frozenset({"view", "_unsafe_view", "reshape"})
_VERSION_ERROR = re.compile(r"is at version (?P<now>\d+); expected version (?P<saved>\d+)")
# `[torch.FloatTensor [2, 8, 8, 8]], which is output 0 of ReluBackward0`: the saved tensor
_SAVED_SHAPE = re.compile(r"\[torch\.\w+ \[(?P<shape>[\d, ]*)\]\]")
# `Output 0 of Split is a view and is being modified inplace`: the op that made the view
_VIEW_NAMED = re.compile(r"\bOutput \d+ of (?P<op>\w+) is a view\b")
EDIT_LIMIT = 1000  # in-place writes one forward records
OP_LIMIT = 20000  # ops whose inputs one forward records (to find where a graph was cut)
# `Mismatch in shape: grad_output[0] has a shape of torch.Size([4]) and output[0] ...`
_GRADIENT_MISMATCH = re.compile(r"Mismatch in shape: grad_output\[(?P<index>\d+)\]")
# `element 0 of tensors does not require grad and does not have a grad_fn`
_NO_GRAD_ELEMENT = re.compile(r"element (?P<index>\d+) of tensors does not require grad")


def _op_name(name: str) -> str:
    """`SplitWithSizesBackward0`, `Split` and `split_with_sizes` alike: `splitwithsizes`."""
    return re.sub(r"Backward\d*$", "", name).replace("_", "").lower()


def _user_frame(frame, path: str):
    """The innermost frame of `path` at or above `frame`, and the innermost torch module
    whose code runs below it (the layer doing the work), if any."""
    module = None
    while frame is not None and frame.f_code.co_filename != path:
        if module is None and frame.f_code.co_name in ("forward", "_call_impl"):
            candidate = frame.f_locals.get("self")
            module = candidate if hasattr(candidate, "_modules") else None
        frame = frame.f_back
    return frame, module


class ModuleOrigins:
    """While the probe builds or runs a module: the lines of the file that built each
    torch layer (`nn.Dropout(0.5, inplace=True)`) or set one of its attributes
    (`m.inplace = True`), the layers built, with the line that built them, and the line
    of the file that first stored each layer or parameter on a module (`self.proj = ...`)."""

    def __init__(self, torch, path: str) -> None:
        self.module_class, self.path = torch.nn.Module, path
        self.parameter_class = torch.nn.Parameter
        self.lines: dict[int, list[int]] = {}
        self.made: list[tuple[object, int]] = []
        self.stored: dict[tuple[int, str], int] = {}  # (id of the module, attribute) -> line

    def _note(self, module, frame, made: bool = False) -> None:
        if type(module).__module__.startswith("torch."):
            frame, _ = _user_frame(frame, self.path)
            if frame is not None:
                lines = self.lines.setdefault(id(module), [])
                if frame.f_lineno not in lines:
                    lines.append(frame.f_lineno)
                if made:
                    self.made.append((module, frame.f_lineno))

    def __enter__(self) -> ModuleOrigins:
        self._init = init = self.module_class.__init__
        self._setattr = setattr_ = self.module_class.__setattr__
        origins = self

        def built(module, *args, **kwargs):
            init(module, *args, **kwargs)
            origins._note(module, sys._getframe(1), made=True)

        def configured(module, name, value):
            setattr_(module, name, value)
            caller = sys._getframe(1)
            if caller.f_code.co_filename == origins.path:
                origins._note(module, caller)
                if isinstance(value, origins.module_class | origins.parameter_class):
                    origins.stored.setdefault((id(module), name), caller.f_lineno)

        self.module_class.__init__ = built
        self.module_class.__setattr__ = configured
        return self

    def __exit__(self, *_) -> None:
        self.module_class.__init__ = self._init
        self.module_class.__setattr__ = self._setattr


def edit_log(torch, path: str, origins: ModuleOrigins):
    """A dispatch mode recording each in-place write of a forward: the tensor written, its
    version before the write and the lines of the file that made it (the innermost line
    of the file on the stack, and where the torch layer doing it was built or configured);
    and each view that gives the sizes of its source in another order, with its line.
    After a backward error naming a saved tensor's versions and shape, `culprits` are the
    writes that moved it from the saved version to the current one."""
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_leaves

    class EditLog(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            # (tensor, its version before the write, the write's line, where the layer
            # doing it was built or configured, the shapes of the tensor and its base)
            self.edits: list[tuple[object, int, int, list[int], list[list[int]]]] = []
            # views whose sizes are the source's in another order: (B, L, H, D) seen as
            # (B, H, L, D) reinterprets the data without moving it
            self.reordered: list[dict] = []
            # (op, line, its source is a leaf that requires grad, grad mode was on)
            self.views: list[tuple[str, int, bool, bool]] = []
            # id of an op's output -> (ids of its inputs, line, how it cut, op number):
            # no reference kept, so the forward frees what it would free
            self.made_by: dict[int, tuple[list[int], int | None, str | None, int]] = {}
            self.ops = 0
            self.backward_of = None  # what the file's last backward / autograd.grad got
            self.grad_off_at = None  # the line of the file that turned grad mode off
            self.gradients = None  # the gradients it was given for those tensors

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if len(self.edits) < EDIT_LIMIT:
                self._record(func, args, kwargs)
            out = func(*args, **kwargs)
            if func.overloadpacket.__name__ in _VIEWS and len(self.reordered) < EDIT_LIMIT:
                self._reorder(args[0], out)
            if func.is_view and args and len(self.views) < EDIT_LIMIT:
                self._view(func, args[0])
            if self.ops < OP_LIMIT:
                self._made(func, (args, kwargs), out)
            return out

        def _made(self, func, inputs, out) -> None:
            """Remember which tensors `out`'s tensors were computed from, and whether the
            op cut the graph: inputs that require grad, an output that cannot carry their
            gradient (`detach`, grad mode off, an integer or bool result)."""
            tensors = [t for t in tree_leaves(inputs) if isinstance(t, torch.Tensor)]
            outputs = [t for t in tree_leaves(out) if isinstance(t, torch.Tensor)]
            cut = None
            frame, _ = _user_frame(sys._getframe(2), path)
            line = frame.f_lineno if frame is not None else None
            if any(t.requires_grad for t in tensors):
                name = func.overloadpacket.__name__
                if name == "detach":
                    cut = "detached it"
                elif not torch.is_grad_enabled() and self.grad_off_at is not None:
                    cut = f"turned grad mode off, so `{name}` recorded no graph"
                    line = self.grad_off_at
                elif not torch.is_grad_enabled():
                    cut = f"ran `{name}` with grad mode off"
                elif outputs and not any(t.is_floating_point() or t.is_complex() for t in outputs):
                    cut = f"made an integer or bool result (`{name}`), which carries no gradient"
            self.ops += 1
            for tensor in outputs:
                self.made_by[id(tensor)] = ([id(t) for t in tensors], line, cut, self.ops)

        def gradient_made(self, message: str) -> dict:
            """`gradient_at`: for a gradient of the wrong shape handed to backward or
            autograd.grad, the line of the file whose op made it."""
            mismatch = _GRADIENT_MISMATCH.search(message)
            given = self.gradients
            if mismatch is None or given is None:
                return {}
            given = [given] if isinstance(given, torch.Tensor) else list(given)
            index = int(mismatch["index"])
            if index >= len(given) or not isinstance(given[index], torch.Tensor):
                return {}
            entry = self.made_by.get(id(given[index]))
            return {"gradient_at": entry[1]} if entry is not None and entry[1] else {}

        def cut_at(self, message: str) -> dict:
            """`cut_at`, `cut`: for backward of a tensor that does not require grad, the
            line of the file where the ops it was computed from last cut the graph."""
            element = _NO_GRAD_ELEMENT.search(message)
            given = self.backward_of
            if element is None or given is None:
                return {}
            given = [given] if isinstance(given, torch.Tensor) else list(given)
            index = int(element["index"])
            if index >= len(given) or not isinstance(given[index], torch.Tensor):
                return {}
            # Breadth first from the tensor: the cut nearest it. Ids are the tensors' while
            # they live; an id met again later is another tensor's, made after the op
            # that read the first one: only entries older than their reader count.
            queue, seen = [(id(given[index]), self.ops + 1)], set()
            while queue:
                key, reader = queue.pop(0)
                entry = self.made_by.get(key)
                if entry is None or entry[3] >= reader or key in seen:
                    continue
                seen.add(key)
                inputs, line, cut, made = entry
                if cut is not None and line is not None:
                    return {"cut_at": line, "cut": cut}
                if cut is None:
                    queue.extend((tensor, made) for tensor in inputs)
            return {}

        def __enter__(self):
            autograd, log = torch.autograd, self
            self._backward, self._grad = backward, grad = autograd.backward, autograd.grad
            self._set_grad_enabled = set_grad_enabled = torch._C._set_grad_enabled

            def noted_grad_mode(mode):  # `no_grad`, `set_grad_enabled` and their ends
                frame, _ = _user_frame(sys._getframe(1), path)
                log.grad_off_at = None if mode or frame is None else frame.f_lineno
                return set_grad_enabled(mode)

            def noted_backward(tensors, *args, **kwargs):
                log.backward_of = tensors
                log.gradients = args[0] if args else kwargs.get("grad_tensors")
                return backward(tensors, *args, **kwargs)

            def noted_grad(outputs, *args, **kwargs):
                log.backward_of = outputs
                log.gradients = args[1] if len(args) > 1 else kwargs.get("grad_outputs")
                return grad(outputs, *args, **kwargs)

            autograd.backward, autograd.grad = noted_backward, noted_grad
            torch._C._set_grad_enabled = noted_grad_mode
            return super().__enter__()

        def __exit__(self, *exc):
            torch.autograd.backward, torch.autograd.grad = self._backward, self._grad
            torch._C._set_grad_enabled = self._set_grad_enabled
            return super().__exit__(*exc)

        def _view(self, func, source) -> None:
            frame, _ = _user_frame(sys._getframe(2), path)
            if frame is not None and isinstance(source, torch.Tensor):
                leaf = source.is_leaf and source.requires_grad
                name = func.overloadpacket.__name__
                self.views.append((name, frame.f_lineno, leaf, torch.is_grad_enabled()))

        def _reorder(self, source, view) -> None:
            before, after = list(source.shape), list(view.shape)
            sizes, new = [d for d in before if d != 1], [d for d in after if d != 1]
            if sizes == new or sorted(sizes) != sorted(new):
                return
            frame, _ = _user_frame(sys._getframe(2), path)
            if frame is not None:
                found = {"line": frame.f_lineno, "before": before, "after": after}
                if found not in self.reordered:
                    self.reordered.append(found)

        def _record(self, func, args, kwargs) -> None:
            written = [
                args[i] if i < len(args) else kwargs.get(argument.name)
                for i, argument in enumerate(func._schema.arguments)
                if argument.alias_info is not None and argument.alias_info.is_write
            ]
            written = [t for t in written if isinstance(t, torch.Tensor)]
            if not written:
                return
            frame, module = _user_frame(sys._getframe(2), path)
            if frame is None:
                return
            layer = origins.lines.get(id(module), [])
            for tensor in written:
                # a write through a view moves its base's version too: either shape counts
                shapes = [list(tensor.shape)]
                if tensor._base is not None:
                    shapes.append(list(tensor._base.shape))
                self.edits.append((tensor, tensor._version, frame.f_lineno, layer, shapes))

        def _moved(self, message: str) -> list[tuple]:
            """The writes that moved the saved tensor torch names from the version it
            saved to the one it found: same version counter, same shape (when named)."""
            versions = _VERSION_ERROR.search(message)
            if versions is None:
                return []
            now, saved = int(versions["now"]), int(versions["saved"])
            named = _SAVED_SHAPE.search(message)
            shape = [int(d) for d in named["shape"].split(",") if d.strip()] if named else None
            return [
                edit
                for edit in self.edits
                if edit[0]._version == now
                and saved <= edit[1] < now
                and (shape is None or shape in edit[4])
            ]

        def view_made(self, message: str) -> dict:
            """`view_at`: the line of the last view of the kind an error about editing a
            view in place names (of a leaf, made under no_grad, the output of `Split`)."""
            named = _VIEW_NAMED.search(message)
            if "a view of a leaf Variable" in message:
                kinds = [view for view in self.views if view[2]]
            elif "A view was created in no_grad mode" in message:
                kinds = [view for view in self.views if not view[3]]
            elif named is not None:
                op = _op_name(named["op"])
                kinds = [view for view in self.views if _op_name(view[0]) == op]
            else:
                return {}
            return {"view_at": kinds[-1][1]} if kinds else {}

        def culprits(self, message: str) -> dict:
            """`edited_at`: the lines of the writes that moved the saved tensor (and where
            the torch layers making them were built or configured); `write_at`: the
            first of those writes, the one that invalidated what backward saved, and
            `layer_at`: where its layer was built or configured."""
            moved = self._moved(message)
            if not moved:
                return {}
            found: list[int] = []
            for _, _, line, layer, _ in moved:
                found.extend(n for n in [line, *layer] if n not in found)
            first = min(moved, key=lambda edit: edit[1])
            return {"edited_at": found, "write_at": first[2], "layer_at": list(first[3])}

    return EditLog()


def warm_up(torch) -> None:
    """Run once in the worker, before any fork: the first in-place write under a dispatch
    mode initialises torch's Python dispatch (seconds), which each fork would redo."""
    with edit_log(torch, "", ModuleOrigins(torch, "")):
        torch.ones(1).add_(1)


class _InputWatch:
    """Forward hooks on the file's own modules inside `instance`: the classes whose
    `forward` changed a tensor it was given (its `_version` moved: an in-place edit)."""

    def __init__(self, torch, instance, module_name: str) -> None:
        self.torch, self.modified, self.handles = torch, set(), []
        self.modules = [m for m in instance.modules() if type(m).__module__ == module_name]

    def _before(self, module, args):
        module._gradlint_versions = [
            (a, a._version) for a in args if isinstance(a, self.torch.Tensor)
        ]

    def _after(self, module, args, output):
        versions = getattr(module, "_gradlint_versions", [])
        if any(tensor._version != version for tensor, version in versions):
            self.modified.add(type(module).__name__)

    def __enter__(self) -> _InputWatch:
        for module in self.modules:
            self.handles.append(module.register_forward_pre_hook(self._before))
            self.handles.append(module.register_forward_hook(self._after))
        return self

    def __exit__(self, *_) -> None:
        for handle in self.handles:
            handle.remove()


def _built_in_forward(instance, made: ModuleOrigins) -> list[int]:
    """Lines where the forward built a layer whose parameters the module does not hold."""
    registered = {id(p) for p in instance.parameters()}
    return sorted(
        {
            line
            for layer, line in made.made
            if any(id(p) not in registered for p in layer.parameters())
        }
    )


class _Backward:
    """Whether the run has reached `loss.backward()` (`listening`)."""

    listening = False


def _execute(torch, function, path: str, tracer: LineTracer, edits, spy=None) -> dict:
    """`function()` (a forward or a call of the file), then `sum().backward()` of the
    tensors it returns, under anomaly mode: whether backward ran, and where in the file
    an error was raised (for a backward error: the forward trace of the node, and the
    lines whose in-place writes moved the saved tensor it names)."""
    spy = spy or _Backward()
    result = {"ran_backward": False, "error": None}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with torch.autograd.detect_anomaly(check_nan=False), tracer:
                loss = _loss(torch, function())
                if loss is not None:
                    spy.listening = True
                    loss.backward()
                    result["ran_backward"] = True
        except Exception as error:  # noqa: BLE001 - torch's error is the finding
            forward_trace = _anomaly_lines(caught, path)
            lines = _file_lines(error, path) or (forward_trace if spy.listening else [])
            result["error"] = _error(error, lines)
            result["phase"] = "backward" if spy.listening else "forward"
            if forward_trace:  # the op whose backward failed: for a saved tensor, its saver
                result["error"]["saved_at"] = forward_trace[-1]
            message = str(error)
            result["error"].update(
                edits.culprits(message),
                **edits.view_made(message),
                **edits.cut_at(message),
                **edits.gradient_made(message),
            )
    return result


def _run(
    torch, instance, inputs: list[str], origin: str, path: str, tracer: LineTracer, origins, classes
) -> dict:
    """Forward + `sum().backward()` on one input list. Inputs the project gives (`origin`
    in PROJECT_INPUTS: rebuilt with what the analysis proves of their grad) are passed as
    they are; guessed ones as activations."""
    spy = _BackwardSpy(type(instance))
    watch = _InputWatch(torch, instance, type(instance).__module__)
    called = _CalledModules(torch)
    edits = edit_log(torch, path, origins)
    made = ModuleOrigins(torch, path)

    def forward():
        values = [_evaluate(torch, s, classes) for s in inputs]
        if origin not in PROJECT_INPUTS:
            values = [_as_activation(torch, v) for v in values]
        with edits, made:
            output = instance(*values)
        outputs.append(output)
        return output

    outputs = []

    with spy, watch, called:
        result = _execute(torch, forward, path, tracer, edits, spy)
    result["backward_methods"] = spy.called
    result["modified_input"] = sorted(watch.modified)
    result["built_in_forward"] = _built_in_forward(instance, made)
    result["reordered_views"] = edits.reordered
    result["grad_none"] = [
        n for n, p in instance.named_parameters() if p.requires_grad and p.grad is None
    ]
    result["output_needs_no_grad"] = bool(outputs) and _needs_no_grad(torch, outputs[0])
    if result["error"] is None and result["ran_backward"]:
        result["never_used"] = _never_used(torch, instance, called.ids, origins)
    return result


class _CalledModules:
    """The ids of the modules called (their forward run) while it is entered."""

    def __init__(self, torch) -> None:
        self.register = torch.nn.modules.module.register_module_forward_pre_hook
        self.ids: set[int] = set()

    def __enter__(self) -> _CalledModules:
        self.handle = self.register(lambda module, args: self.ids.add(id(module)))
        return self

    def __exit__(self, *_) -> None:
        self.handle.remove()


_CONTAINERS = ("ModuleList", "ModuleDict", "ParameterList", "ParameterDict")


def _never_used(torch, instance, called: set[int], origins: ModuleOrigins) -> list[dict]:
    """Attributes of the file's module classes (their `__init__` in the file stored them)
    holding parameters that got no gradient from a forward and backward that never called
    the layer they are in: the class, the attribute, the parameters, the storing line, the
    layer's class. For each parameter: the nearest module of the file above the highest
    layer on its path that was not called (containers are never called), or that owns it."""
    found: dict[tuple[str, str], dict] = {}
    name_of_file = type(instance).__module__
    for name, parameter in instance.named_parameters():
        if not parameter.requires_grad or parameter.grad is not None:
            continue
        parts = name.split(".")
        chain = [instance]
        for part in parts[:-1]:
            chain.append(chain[-1]._modules[part])
        uncalled = next(
            (
                i
                for i, module in enumerate(chain)
                if id(module) not in called and type(module).__name__ not in _CONTAINERS
            ),
            None,
        )
        if uncalled is None and type(chain[-1]).__module__ != name_of_file:
            continue  # its layer ran: a cut graph or an unused output, not an unused layer
        if uncalled == 0:
            continue  # no hook saw the module run (its class overrides `__call__`)
        depth = len(chain) if uncalled is None else uncalled
        owner_at = max(i for i in range(depth) if type(chain[i]).__module__ == name_of_file)
        owner, attribute = chain[owner_at], parts[owner_at]
        line = origins.stored.get((id(owner), attribute))
        if line is None:
            continue
        held = chain[owner_at + 1] if owner_at + 1 < len(chain) else parameter
        entry = found.setdefault(
            (type(owner).__name__, attribute),
            {
                "class": type(owner).__name__,
                "attribute": attribute,
                "parameters": [],
                "line": line,
                "layer": type(held).__name__,
            },
        )
        entry["parameters"].append(name)
    return list(found.values())


def _needs_no_grad(torch, output) -> bool:
    """The forward returned float tensors, none of which requires grad (with grad on)."""
    values = output.values() if isinstance(output, dict) else output
    tensors = [output] if isinstance(output, torch.Tensor) else list(values)
    floats = [t for t in tensors if isinstance(t, torch.Tensor) and t.is_floating_point()]
    return bool(floats) and not any(t.requires_grad for t in floats)


class _OutOfTime(BaseException):
    """A call of the file ran longer than its share of the probe (not an `Exception`:
    the file's own `except Exception` does not swallow it)."""


def call_file_function(torch, target, call: dict, path: str, tracer, classes) -> dict:
    """One call the file makes of a method or function of its own (as it makes it: same
    arguments, same grad mode), and `sum().backward()` of what it returns; it may take
    CALL_SECONDS."""
    run = {"class": call["owner"] or "", "line": call["line"], "end_line": call["end_line"]}
    shown = f"{call['name']}({', '.join(call['args'])})"
    edits = edit_log(torch, path, ModuleOrigins(torch, path))

    def function():
        values = [_evaluate(torch, s, classes) for s in call["args"]]
        with edits, torch.set_grad_enabled(call["grad"]):
            return target(*values)

    def out_of_time(*_):
        raise _OutOfTime

    previous = signal.signal(signal.SIGALRM, out_of_time)
    signal.setitimer(signal.ITIMER_REAL, CALL_SECONDS)
    try:
        run.update(_execute(torch, function, path, tracer, edits))
    except _OutOfTime:
        run.update(skipped=f"{shown} did not return within {CALL_SECONDS:g} s")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    run.update(context=shown, inputs_from="shape" if call["guessed"] else "proven")
    return run


def _build(torch, cls, plan: dict, classes: dict):
    constructor = plan["constructor"] or {"args": [], "kwargs": {}}
    args = [_evaluate(torch, a, classes) for a in constructor["args"]]
    kwargs = {k: _evaluate(torch, v, classes) for k, v in constructor["kwargs"].items()}
    shown = ", ".join(
        [*constructor["args"], *(f"{k}={v}" for k, v in constructor["kwargs"].items())]
    )
    return cls(*args, **kwargs), f"{cls.__name__}({shown})"


def probe_module_class(torch, cls, plan: dict, file_inputs: list[list[str]], path, tracer, classes):
    """Build `cls` (with the file's `classes` at hand for its arguments) and run it on
    the inputs its callers give, else on guesses: the run, and the instance built."""
    run = {"class": cls.__name__, "line": plan["line"], "end_line": plan["end_line"]}
    if (plan["constructor"] or {}).get("guessed"):
        run["built_from"] = "shape"  # a tensor argument rebuilt from its shape alone
    origins = ModuleOrigins(torch, path)
    try:
        with tracer, origins:
            instance, built = _build(torch, cls, plan, classes)
    except Exception as error:  # noqa: BLE001
        lines = _file_lines(error, path) if plan["constructor"] else []
        run.update(context=f"building {cls.__name__}", error=_error(error, lines))
        return run, None
    instance.train()
    candidates = [(inputs, "call") for inputs in plan["inputs"]]
    arity = _required_positionals(instance)
    if not candidates:
        shaped = [s for s in plan["shaped"] if "inputs" in s]
        candidates = [(s["inputs"], "shape" if s["guessed"] else "proven") for s in shaped]
        guesses = [inputs for inputs in file_inputs if len(inputs) == arity]
        candidates += [(_as_passed(inputs, plan), "file") for inputs in guesses]
        if arity == 1:
            guesses = _input_guesses(torch, instance)
            candidates += [(_as_passed(guess, plan), "layer") for guess in guesses]
    if not candidates:
        run.update(context=built, skipped="cannot infer the inputs of forward")
        run["unregistered"] = _unregistered(torch, instance)
        return run, instance
    # Each call of the project runs (the last batch may be the one that fails); guesses
    # run until one is clean. The run that counts is the first clean one, else the
    # first; the errors of the others are kept with where their inputs came from.
    chosen, errors, calls = None, [], 0
    for inputs, origin in candidates:
        if origin not in PROJECT_INPUTS and chosen is not None and chosen["error"] is None:
            break
        calls += origin in PROJECT_INPUTS
        if calls > CALLS_RUN:
            continue
        instance.zero_grad(set_to_none=True)
        result = _run(torch, instance, inputs, origin, path, tracer, origins, classes)
        context = f"{built} on inputs {', '.join(inputs)}"
        result.update(context=context, inputs_from=origin)
        if result["error"] is not None:
            errors.append({"error": result["error"], "context": context, "inputs_from": origin})
        if chosen is None or (chosen["error"] is not None and result["error"] is None):
            chosen = result
    run.update(chosen, unregistered=_unregistered(torch, instance))
    run["other_errors"] = [e for e in errors if e["error"] is not chosen["error"]]
    return run, instance


def _def_line(function) -> int:
    """The `def` line of a function (its code starts at its first decorator)."""
    lines, start = inspect.getsourcelines(function)
    offset = next((i for i, line in enumerate(lines) if line.lstrip().startswith("def ")), 0)
    return start + offset


def gradcheck_functions(torch, capture: FunctionCapture, path: str, tracer) -> list[dict]:
    """float64 `gradcheck(fast_mode=True)` of each captured autograd.Function."""
    runs = []
    for cls, args in capture.calls.items():
        try:
            _, start = inspect.getsourcelines(cls)
            end = start + len(inspect.getsourcelines(cls)[0]) - 1
            backward_line = _def_line(cls.backward)
        except (OSError, TypeError):
            continue
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        if not tensors or sum(t.numel() for t in tensors) > GRADCHECK_MAX_ELEMENTS:
            continue
        inputs = tuple(
            a.detach().double().requires_grad_(a.is_floating_point())
            if isinstance(a, torch.Tensor)
            else a
            for a in args
        )
        run = {
            "class": cls.__name__,
            "line": start,
            "end_line": end,
            "context": f"gradcheck({cls.__name__}.apply, float64, fast_mode=True)",
        }
        try:
            with tracer:
                torch.autograd.gradcheck(cls.apply, inputs, fast_mode=True)
        except Exception as error:  # noqa: BLE001
            run["error"] = _error(error, _file_lines(error, path) or [backward_line])
        runs.append(run)
    return runs


def _import(path: str, name: str, root: str, definitions: bool) -> None:
    if definitions:
        sys.meta_path.insert(0, DefinitionsFinder(root))
    if name != MODULE_NAME:
        importlib.import_module(name)
        return
    loader = (_DefinitionsLoader if definitions else importlib.machinery.SourceFileLoader)(
        name, path
    )
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


def _import_failure(error: BaseException) -> str:
    """`could not import: No module named 'loguru'`-style reasons."""
    described = describe_exception(error)
    if described["outcome"] != "raised":
        return described["reason"]
    message = described["message"].strip().splitlines()[0] if described["message"].strip() else ""
    if isinstance(error, ImportError):
        return f"could not import: {message}"
    return f"could not import: {described['type']}: {message}"


def probe_file(request: dict) -> dict:
    """Runs in a fork of the worker, so what the module changes dies with the fork."""
    import torch

    path, root, name = request["path"], request["root"], request["module"]
    sys.dont_write_bytecode = True  # no __pycache__ next to the project's file
    sys.path.insert(0, root)  # its sibling modules or its packages import
    tracer = LineTracer(path)
    runs, import_runs = [], []
    with FunctionCapture(torch, name) as capture:
        try:
            with tracer:
                _import(path, name, root, request["mode"] == "definitions")
        except BaseException as error:  # noqa: BLE001 - every ending is an outcome
            lines = _file_lines(error, path)
            environment = isinstance(error, ImportError | OSError | SyntaxError)
            if environment or describe_exception(error)["outcome"] != "raised" or not lines:
                return {"outcome": "import_failed", "reason": _import_failure(error)}
            import_runs.append(
                {
                    "class": "",
                    "line": 0,
                    "end_line": -1,
                    "context": "importing the module",
                    "error": _error(error, lines),
                    "phase": "forward",
                }
            )
        # A package module that failed to import is gone; a loose one keeps what it defined.
        defined = vars(sys.modules[name]) if name in sys.modules else {}
        classes = {
            key: value
            for key, value in defined.items()
            if isinstance(value, type) and value.__module__ == name
        }
        instances = {}  # class name -> the instance its probe built
        for plan in request["classes"]:
            cls = defined.get(plan["name"])
            if (
                isinstance(cls, type)
                and issubclass(cls, torch.nn.Module)
                and cls.__module__ == name
            ):
                run, instances[plan["name"]] = probe_module_class(
                    torch, cls, plan, request["file_inputs"], path, tracer, classes
                )
                runs.append(run)
        for call in request["calls"][:CALLS_PER_FILE]:
            owner = call["owner"]
            if call["instance"] is not None:
                target = getattr(instances.get(call["instance"]), call["name"], None)
            else:
                target = getattr(defined.get(owner), call["name"], None) if owner else None
                target = target or (defined.get(call["name"]) if owner is None else None)
            if callable(target):
                runs.append(call_file_function(torch, target, call, path, tracer, classes))
    runs.extend(gradcheck_functions(torch, capture, path, tracer))
    runs.extend(import_runs)  # last: a class run describes the same error better
    return {"outcome": "done", "runs": runs, "executed": sorted(tracer.lines)}
