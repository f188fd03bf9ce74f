"""The dataflow interpreter: one pass per file computing the facts every rule reads."""

from gradlint.analysis.dataflow.events import (
    BackwardCall,
    Body,
    DataWrite,
    InplaceEdit,
    RequiresGradChange,
    Saver,
)
from gradlint.analysis.dataflow.interpreter import CallScan, FileFacts
from gradlint.analysis.dataflow.values import Cut, Grad, Tensor

__all__ = [
    "BackwardCall",
    "Body",
    "CallScan",
    "Cut",
    "DataWrite",
    "FileFacts",
    "Grad",
    "InplaceEdit",
    "RequiresGradChange",
    "Saver",
    "Tensor",
]
