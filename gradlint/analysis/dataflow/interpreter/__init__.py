"""One abstract interpreter per file: statements in order, branches joined, loops run
twice (so what one iteration saves is seen by the next), grad mode as a three-valued
fact, and calls of the file's own functions and modules interpreted with the caller's
values (`model(x)` runs `Net.forward`, `update(model.fc.weight)` runs `update`).

Every scope is analysed: the module body (training scripts), each function and method on
its own (arguments unknown, `forward` arguments of entry modules marked), and again
inside its callers, up to a bounded depth. Rules read the events it records.

One concern a module, over one shared state (`Interpreter` mixes them in):
core (entry, run contexts, instances, summaries), statements, expressions, members
(attribute and subscript access), calls (binding, inlining, module calls), tensors (torch
functions, tensor methods, layers, in-place edits, views, saved tensors), training
(backward, optimizers, grad mode); state (State, Frame), scan (the file's pre-walk) and
common (shared helpers).
"""

from gradlint.analysis.dataflow.interpreter.common import AN_INT
from gradlint.analysis.dataflow.interpreter.core import FileFacts, Interpreter
from gradlint.analysis.dataflow.interpreter.scan import CallScan

__all__ = ["AN_INT", "CallScan", "FileFacts", "Interpreter"]
