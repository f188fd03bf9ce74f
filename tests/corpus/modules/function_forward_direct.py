# torch: AssertionError: the custom backward never ran
# Modelled on the discuss.pytorch.org thread "Weird difference between function.forward(input)
# and function(input)": calling forward directly bypasses the custom backward.
import torch


class Cube(torch.autograd.Function):
    backward_calls = 0

    @staticmethod
    def forward(ctx, x):
        return x * x * x

    @staticmethod
    def backward(ctx, grad_output):
        Cube.backward_calls += 1
        return grad_output


x = torch.ones(2, 2, dtype=torch.double, requires_grad=True)
out = Cube.forward(None, x).sum()  # expect: GL304
out.backward()
if Cube.backward_calls == 0:
    raise AssertionError("the custom backward never ran")
