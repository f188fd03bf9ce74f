"""Shapes from jaxtyping-style annotations reach the product."""
# torch: mat1 and mat2 shapes cannot be multiplied
import torch

Float = dict  # stands in for jaxtyping.Float: only the annotation text matters here
Tensor = torch.Tensor


def project(x: Float[Tensor, "batch 20"], w: Float[Tensor, "10 5"]):
    return x @ w  # expect: GL404


project(torch.randn(3, 20), torch.randn(10, 5))
