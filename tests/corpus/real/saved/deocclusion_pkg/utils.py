"""Stands for utils of XiaohangZhan/deocclusion: gradients averaged over workers (one here)."""
import torch.distributed as dist


def average_gradients(model):
    if not (dist.is_available() and dist.is_initialized()):
        return
    for param in model.parameters():
        if param.requires_grad and param.grad is not None:
            dist.all_reduce(param.grad.data)
