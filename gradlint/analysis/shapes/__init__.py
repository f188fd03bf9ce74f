"""Symbolic shape inference: `FileContext.shapes.shape_of(node, function)`.

`model` holds dims, shapes and torch's shape algebra; `flow` interprets one function
body; `file` caches one analysis per function of a file, built on the first query.
"""

from gradlint.analysis.shapes.file import FileShapes
from gradlint.analysis.shapes.flow import Conflict, FunctionShapes, Layer
from gradlint.analysis.shapes.model import Prod, Shape, Sym

__all__ = ["Conflict", "FileShapes", "FunctionShapes", "Layer", "Prod", "Shape", "Sym"]
