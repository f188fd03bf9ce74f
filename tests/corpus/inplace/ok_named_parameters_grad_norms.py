# Gradient norms read per parameter in a dict comprehension over named_parameters()
# (lightning's grad_norm): each `p` is a parameter, a leaf whose `.grad` backward fills;
# and tuples a torch function returns are unpacked into its outputs, not rows.
import torch
import torch.nn as nn


def grad_norm(module: nn.Module, norm_type: float = 2.0) -> dict:
    norms = {
        f"grad_{norm_type}_norm/{name}": p.grad.data.norm(norm_type)
        for name, p in module.named_parameters()
        if p.grad is not None
    }
    if norms:
        norms["total"] = torch.tensor(list(norms.values())).norm(norm_type)
    return norms


model = nn.Linear(2, 2)
model(torch.randn(3, 2)).sum().backward()
grad_norm(model)
A = torch.randn(2, 2, requires_grad=True)
lo, hi = torch.aminmax(A)
low = lo * 1
low.add_(1)
(low + hi).backward()
