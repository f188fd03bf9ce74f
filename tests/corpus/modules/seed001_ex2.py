# torch: ok
# Seed 001, example 2, verbatim but for this header and the expect comments.
import torch
import torch.nn as nn

class MyModule(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(size))

    def forward(self, x):
        # Incorrect: In-place modification breaks the computation graph.
        self.weight += x  
        return self.weight

    def mmBackward(self, grad_output):  # expect: GL303
        return grad_output

model = MyModule(10)
input_tensor = torch.randn(10)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
