# source: https://github.com/jy0205/Pyramid-Flow/issues/242
# expect: function _AllToAllBackward returned an incorrect number of gradients (expected 6, got 5)
# buggy-line: 24
import torch
import torch.nn as nn


class _AllToAll(torch.autograd.Function):
    """sequence-parallel all-to-all: scatter one dim, gather another (one rank here)"""

    @staticmethod
    def forward(ctx, input_, process_group, world_size, scatter_dim, gather_dim, async_op):
        ctx.process_group = process_group
        ctx.world_size = world_size
        ctx.scatter_dim = scatter_dim
        ctx.gather_dim = gather_dim
        inputs = list(input_.chunk(world_size, dim=scatter_dim))
        return torch.cat(inputs, dim=gather_dim)

    @staticmethod
    def backward(ctx, grad_output):
        grads = list(grad_output.chunk(ctx.world_size, dim=ctx.gather_dim))
        grad_input = torch.cat(grads, dim=ctx.scatter_dim)
        return grad_input, None, None, None, None


def all_to_all(input_, process_group=None, world_size=1, scatter_dim=2, gather_dim=1):
    return _AllToAll.apply(input_, process_group, world_size, scatter_dim, gather_dim, False)


proj = nn.Linear(8, 8)
hidden = proj(torch.randn(2, 4, 8))
out = all_to_all(hidden)
out.pow(2).mean().backward()
