"""Code probes (`--probe=exec`): import the linted module and run its modules for real.

Runs inside the sandbox worker only. For each `nn.Module` class of the file it builds an
instance (constructor arguments found in the file, else the defaults), feeds inputs (the
file's own call sites, else shapes inferred from the first layers and the file's literal
tensors), runs forward and `sum().backward()` under anomaly mode, and records where in
the file torch raised, which lines ran, whether `backward`-like methods of the module
were invoked by autograd, and which tensors requiring grad the module does not register.
Every `torch.autograd.Function` of the file that was applied gets a float64 `gradcheck`.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import re
import sys
import traceback
import warnings

from gradlint.probe.sandbox import describe_exception

BACKWARD_NAME = re.compile(r"(^backward$|_backward$|Backward$)")
_ANOMALY_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
BATCH = 3  # batch size of inferred inputs (>1 so that batch norm can train)
SPATIAL = 8  # length / height / width of inferred sequence and image inputs
GRADCHECK_MAX_ELEMENTS = 4096
MODULE_NAME = "_gradlint_probed_module"  # not __main__: `if __name__ == "__main__"` stays off


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


def _raised_by_torch(error: BaseException) -> bool:
    """torch's C++ ops raise RuntimeError from the calling line; its Python raises inside
    the torch package. A missing data file or module of the project is neither."""
    import torch

    frames = traceback.extract_tb(error.__traceback__)
    package = os.path.dirname(torch.__file__)
    return isinstance(error, RuntimeError) or bool(
        frames and frames[-1].filename.startswith(package + os.sep)
    )


def _error(error: BaseException, lines: list[int]) -> dict:
    return {
        "type": type(error).__name__,
        "message": str(error),
        "lines": lines,
        "torch": _raised_by_torch(error),
    }


def _evaluate(torch, source: str):
    """A literal or a `torch.<factory>(<literals>)` from the plan (checked by the planner)."""
    return eval(source, {"__builtins__": {}, "torch": torch})  # noqa: S307


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


def _required_positionals(instance) -> int:
    try:
        parameters = inspect.signature(instance.forward).parameters.values()
    except (TypeError, ValueError):
        return -1
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(1 for p in parameters if p.kind in kinds and p.default is p.empty)


def _unregistered(torch, instance) -> list[str]:
    """Attributes holding grad-requiring tensors, parameters or modules the module does
    not register (so `parameters()` and optimizers miss them)."""
    registered = {id(p) for p in instance.parameters()}
    names = []
    for module in instance.modules():
        for name, value in vars(module).items():
            values = list(value.values()) if isinstance(value, dict) else value
            if isinstance(value, torch.Tensor):
                values = [value]
            elif not isinstance(values, list | tuple):
                continue
            for item in values:
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


def _run(torch, instance, inputs: list[str], path: str, tracer: LineTracer) -> dict:
    """Forward + `sum().backward()` on one input list."""
    spy = _BackwardSpy(type(instance))
    result = {"ran_backward": False, "error": None}
    with warnings.catch_warnings(record=True) as caught, spy:
        warnings.simplefilter("always")
        try:
            with torch.autograd.detect_anomaly(check_nan=False), tracer:
                output = instance(*[_as_activation(torch, _evaluate(torch, s)) for s in inputs])
                loss = _loss(torch, output)
                if loss is not None:
                    spy.listening = True
                    loss.backward()
                    result["ran_backward"] = True
        except Exception as error:  # noqa: BLE001 - torch's error is the finding
            lines = _file_lines(error, path) or (
                _anomaly_lines(caught, path) if spy.listening else []
            )
            result["error"] = _error(error, lines)
            result["phase"] = "backward" if spy.listening else "forward"
    result["backward_methods"] = spy.called
    result["grad_none"] = [
        n for n, p in instance.named_parameters() if p.requires_grad and p.grad is None
    ]
    return result


def _build(torch, cls, plan: dict):
    constructor = plan["constructor"] or {"args": [], "kwargs": {}}
    args = [_evaluate(torch, a) for a in constructor["args"]]
    kwargs = {k: _evaluate(torch, v) for k, v in constructor["kwargs"].items()}
    shown = ", ".join(
        [*constructor["args"], *(f"{k}={v}" for k, v in constructor["kwargs"].items())]
    )
    return cls(*args, **kwargs), f"{cls.__name__}({shown})"


def probe_module_class(torch, cls, plan: dict, file_inputs: list[list[str]], path, tracer):
    run = {"class": cls.__name__, "line": plan["line"], "end_line": plan["end_line"]}
    try:
        with tracer:
            instance, built = _build(torch, cls, plan)
    except Exception as error:  # noqa: BLE001
        lines = _file_lines(error, path) if plan["constructor"] else []
        run.update(context=f"building {cls.__name__}", error=_error(error, lines))
        return run
    instance.train()
    candidates = [(inputs, "call") for inputs in plan["inputs"]]
    arity = _required_positionals(instance)
    if not candidates:
        candidates = [(inputs, "file") for inputs in file_inputs if len(inputs) == arity]
        if arity == 1:
            candidates += [(guess, "layer") for guess in _input_guesses(torch, instance)]
    if not candidates:
        run.update(context=built, skipped="cannot infer the inputs of forward")
        return run
    # An error on inputs the file does not pass to this module may be the guess's fault:
    # it counts only when no candidate runs clean (then the first one's error is kept).
    chosen = None
    for inputs, origin in candidates:
        result = _run(torch, instance, inputs, path, tracer)
        result.update(context=f"{built} on inputs {', '.join(inputs)}", inputs_from=origin)
        chosen = chosen or result
        if origin == "call" or result["error"] is None:
            chosen = result
            break
        instance.zero_grad(set_to_none=True)
    run.update(chosen, unregistered=_unregistered(torch, instance))
    return run


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


def module_name(path: str) -> tuple[str, str]:
    """(sys.path entry, module name): `root/pkg/sub/model.py` in packages (`__init__.py`
    all the way up) is `pkg.sub.model`, so its relative imports work; a loose script
    gets a name of its own."""
    directory, stem = os.path.split(os.path.splitext(path)[0])
    parts = [] if stem == "__init__" else [stem]
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        directory, package = os.path.split(directory)
        parts.insert(0, package)
    if not parts or parts == [stem]:
        return os.path.dirname(path), MODULE_NAME
    return directory, ".".join(parts)


def _import(path: str, name: str) -> None:
    if name != MODULE_NAME:
        importlib.import_module(name)
        return
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


def probe_file(request: dict) -> dict:
    """Runs in a fork of the worker, so what the module changes dies with the fork."""
    import torch

    path = os.path.abspath(request["path"])
    root, name = module_name(path)
    sys.dont_write_bytecode = True  # no __pycache__ next to the project's file
    sys.path.insert(0, root)  # its sibling modules or its packages import
    tracer = LineTracer(path)
    runs, import_runs = [], []
    with FunctionCapture(torch, name) as capture:
        try:
            with tracer:
                _import(path, name)
        except BaseException as error:  # noqa: BLE001 - every ending is an outcome
            described = describe_exception(error)
            lines = _file_lines(error, path)
            if described["outcome"] != "raised" or not lines:
                reason = described.get("reason") or (
                    f"importing the module raised {described['type']}: "
                    f"{described['message'].splitlines()[0] if described['message'] else ''}"
                )
                return {"outcome": "import_failed", "reason": reason}
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
        for plan in request["classes"]:
            cls = defined.get(plan["name"])
            if (
                isinstance(cls, type)
                and issubclass(cls, torch.nn.Module)
                and cls.__module__ == name
            ):
                runs.append(
                    probe_module_class(torch, cls, plan, request["file_inputs"], path, tracer)
                )
    runs.extend(gradcheck_functions(torch, capture, path, tracer))
    runs.extend(import_runs)  # last: a class run describes the same error better
    return {"outcome": "done", "runs": runs, "executed": sorted(tracer.lines)}
