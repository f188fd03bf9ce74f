# torch: ValueError: optimizer got an empty parameter list
# Seed 001, example 3, verbatim but for this header and the expect comments.
import torch
import torch.nn as nn

class MyModule(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        # Incorrect: Hard threshold is not differentiable.
        x[x < 0] = 0  
        return x

    def mmBackward(self, grad_output): #This is technically never called in this case.  # expect: GL303
        return grad_output

model = MyModule()
input_tensor = torch.randn(10)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
