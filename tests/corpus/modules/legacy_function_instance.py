# torch: RuntimeError: Legacy autograd function with non-static forward method is deprecated
# Modelled on jorge-pessoa/pytorch-gdn#2 and many "Legacy autograd function" reports: an
# old-style Function with instance methods, called through an instance.
import torch
from torch.autograd import Function


class LowerBound(Function):
    def forward(self, inputs, bound):
        b = torch.ones_like(inputs) * bound
        self.save_for_backward(inputs, b)
        return torch.max(inputs, b)

    def backward(self, grad_output):
        inputs, b = self.saved_tensors
        pass_through = (inputs >= b) | (grad_output < 0)
        return pass_through.type(grad_output.dtype) * grad_output, None


beta = torch.rand(4, requires_grad=True)
lowered = LowerBound()(beta, 0.1)  # expect: GL304
