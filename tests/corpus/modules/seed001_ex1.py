# torch: ok
# Seed 001, example 1, verbatim but for this header and the expect comments.
import torch
import torch.nn as nn

class MyModule(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        # Incorrect: Reshaping introduces issues for gradient propagation.
        x = x.reshape(-1, 10)  #Assume input x may not always be of size 10. 
        x = self.linear(x)
        return x

    def mmBackward(self, grad_output):  # expect: GL303
        #This function is correct, but the error lies in the forward pass
        grad_input = torch.mm(grad_output, self.linear.weight.T)
        return grad_input


model = MyModule(20, 5)
input_tensor = torch.randn(1, 20)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
