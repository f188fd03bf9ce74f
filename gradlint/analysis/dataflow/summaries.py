"""Summaries of functions analysed on their own, reused where a caller would run the very
same analysis inline: the same argument facts (no tensors among them), a caller's state
with nothing saved, no graph history and no pending edits, the same grad mode, and no
module instance changed since. The summary's run is then the inline run, but for where
its events sit: they were recorded once, in the function's own run, and the rules report
one finding per place.

What a reused run still gives its caller: its result, what it saved for backward, the
parameters and modules it read, its `.data` writes, the grad mode it leaves, copies of
the events that say which run they belong to (in-place edits, module attribute sets), and
its `.grad` clears and module calls as training events of the caller's run, at the call,
in their order. Runs with other events that need their caller's order are not
summarised: backward calls, steps, zero_grad, optimizers, checkpoints, layers built in a
forward (and a graph history or step left behind, see the interpreter)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import libcst as cst

from gradlint.analysis.dataflow.events import Body, PendingDataWrite, Place, TrainingEvent

# FileFacts lists whose events place them in their caller's run or order: a run that
# appended to one is not summarised.
ORDERED = ("backward_calls", "optimizers", "checkpoints", "built_in_forward")
# Lists whose events name the run (`Body.standalone`): copied into each caller's run.
PLACED = ("edits", "module_attributes")
# training events a summary replays in its caller's run; a run with others is not kept
REPLAYED = frozenset({"clear", "forward", "mode"})


@dataclass
class Summary:
    """A run of a function, for the argument facts it is kept under."""

    node: cst.FunctionDef
    grad: bool | None  # grad mode the run began in
    heap: int  # the interpreter's count of instance changes when the run ended
    rebinding: int  # and of the module statements begun (functions read their globals)
    depth: int  # calls under way below the function's own run (0: its run on its own)
    standalone: cst.FunctionDef | None  # the run its events were recorded in
    blocked: frozenset[cst.FunctionDef]  # calls it did not run inline: already under way
    steps: int  # statements the run interpreted
    reached: frozenset[cst.FunctionDef]  # functions it ran inline (recursion guard)
    result: object
    saved: dict
    grad_after: tuple[bool | None] | None  # the grad mode it leaves set, if it sets one
    read_parameters: frozenset[str]
    called_modules: frozenset[str]
    data_writes: tuple[PendingDataWrite, ...]  # replayed at the call's order
    placed: dict[str, list]  # PLACED list name -> the events the run appended to it
    training: tuple[TrainingEvent, ...]  # of its run, below `Place`s `base` long
    base: int
    fresh_result: frozenset[int]  # saved outputs it returns unread (common._fresh_result)


def traced(facts, before: dict[str, int], run: int) -> tuple[TrainingEvent, ...] | None:
    """The training events a run appended in run `run` (those of instances it built
    are their own runs'), or None when one of them needs its caller's order."""
    events = facts.training[before["training"] :]
    if any(event.kind not in REPLAYED for event in events):
        return None
    return tuple(event for event in events if event.run == run)


def lengths(facts) -> dict[str, int]:
    """How long each list of `facts` is (what a run appends is what lies past these)."""
    return {name: len(getattr(facts, name)) for name in (*ORDERED, *PLACED, "training")}


def appended(facts, before: dict[str, int], names) -> dict[str, list]:
    return {name: getattr(facts, name)[before[name] :] for name in names}


def replay(facts, summary: Summary, standalone: cst.FunctionDef | None) -> None:
    """Copies, in the run of `standalone`, of the placed events of the summarised run (its
    events in other runs, of instances it built, are that run's already)."""
    if standalone is summary.standalone:
        return
    for name, events in summary.placed.items():
        target = getattr(facts, name)
        for event in events:
            body: Body | None = event.body
            if body is not None and body.standalone is summary.standalone:
                target.append(_moved(event, replace(body, standalone=standalone)))


def retrace(facts, summary: Summary, run: int, path: tuple[Place, ...], tick) -> None:
    """The summary's training events in run `run` under `path` (the call), at new times
    in their order."""
    times = {t for event in summary.training for t in (event.time, event.end) if t}
    renewed = {time: tick() for time in sorted(times)}
    for event in summary.training:
        facts.training.append(
            replace(
                event,
                run=run,
                path=path + event.path[summary.base :],
                time=renewed[event.time],
                end=renewed.get(event.end, 0),
            )
        )


def _moved(event, body: Body):
    if hasattr(event, "caller_reads"):  # an InplaceEdit: its caller reads are its own
        return replace(event, body=body, caller_reads=list(event.caller_reads))
    return replace(event, body=body)
