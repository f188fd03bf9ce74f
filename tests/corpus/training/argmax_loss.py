# torch: raises element 0 of tensors does not require grad and does not have a grad_fn
# A regression loss on argmax predictions: argmax has no gradient.
import torch
import torch.nn as nn

model = nn.Linear(6, 4)
x, y = torch.randn(8, 6), torch.randint(0, 4, (8,))
pred = model(x).argmax(dim=1)  # expect: GL203
loss = ((pred.float() - y.float()) ** 2).mean()
loss.backward()
