# hkchengrex/XMem inference/interact/fbrs/model/syncbn/modules/functional/syncbn.py @f3b841d
# (trimmed to one device): a custom batch-norm Function updates the module's running
# statistics in place in forward without ctx.mark_dirty, as torch's own batch_norm does;
# the buffers require no grad and nothing reads them after the update, so autograd has
# nothing to get wrong. Quiet.
import torch
import torch.nn as nn
from torch.autograd.function import once_differentiable


class _batchnorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, running_mean, running_var,
                extra, compute_stats=True, momentum=0.1, eps=1e-05):
        ctx.compute_stats = compute_stats
        ctx.momentum = momentum
        ctx.eps = eps
        if ctx.compute_stats:
            N = x.numel() // x.size(1)
            xsum = x.detach().transpose(0, 1).reshape(x.size(1), -1).sum(1)
            xsqsum = (x.detach() ** 2).transpose(0, 1).reshape(x.size(1), -1).sum(1)
            mean = xsum / N
            sumvar = xsqsum - xsum * mean
            var = sumvar / N
            uvar = sumvar / (N - 1)
            # Update running stats
            running_mean.mul_((1 - ctx.momentum)).add_(ctx.momentum * mean)
            running_var.mul_((1 - ctx.momentum)).add_(ctx.momentum * uvar)
            ctx.N = N
            ctx.save_for_backward(x, weight, bias, mean, var)
        else:
            mean, var = running_mean, running_var
        shape = (1, -1) + (1,) * (x.dim() - 2)
        z = (x - mean.view(shape)) / (var.view(shape) + ctx.eps).sqrt()
        return z * weight.view(shape) + bias.view(shape)

    @staticmethod
    @once_differentiable
    def backward(ctx, dz):
        x, weight, bias, mean, var = ctx.saved_tensors
        shape = (1, -1) + (1,) * (x.dim() - 2)
        dims = [d for d in range(x.dim()) if d != 1]
        inv = (var.view(shape) + ctx.eps).rsqrt()
        xhat = (x - mean.view(shape)) * inv
        dbias = dz.sum(dims)
        dweight = (dz * xhat).sum(dims)
        dxhat = dz * weight.view(shape)
        dx = inv * (dxhat - dxhat.mean(dims, keepdim=True)
                    - xhat * (dxhat * xhat).mean(dims, keepdim=True))
        return dx, dweight, dbias, None, None, None, None, None, None


class BatchNorm2dSync(nn.BatchNorm2d):
    def forward(self, x):
        return _batchnorm.apply(x, self.weight, self.bias, self.running_mean,
                                self.running_var, None, self.training, self.momentum,
                                self.eps)


torch.manual_seed(0)
bn = BatchNorm2dSync(3)
ref = nn.BatchNorm2d(3)
x = torch.randn(4, 3, 5, 5, requires_grad=True)
bn(x).pow(2).sum().backward()
grad = x.grad.clone()
x.grad = None
ref(x).pow(2).sum().backward()
assert torch.allclose(grad, x.grad, atol=1e-4), "custom batch norm gradient differs"
assert torch.allclose(bn.running_mean, ref.running_mean, atol=1e-5)
