"""Symbolic dims and shapes: `model` holds them and torch's shape algebra, `witness`
turns them into concrete sizes. The interpreter computes them for each tensor
(analysis/dataflow/shapes.py)."""

from gradlint.analysis.shapes.model import Prod, Shape, Sym

__all__ = ["Prod", "Shape", "Sym"]
