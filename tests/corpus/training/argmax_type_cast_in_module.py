# torch: raises element 0 of tensors does not require grad and does not have a grad_fn
# A cast spelled `.type(dtype)` keeps the cut of the argmax it converts.
import torch
import torch.nn as nn


class Picker(nn.Module):
    def __init__(self):
        super().__init__()
        self.score = nn.Linear(4, 3)

    def forward(self, x):
        return self.score(x).argmax(-1).type(torch.FloatTensor)  # expect: GL203


picker = Picker()
loss = picker(torch.randn(5, 4)).sum()
loss.backward()
