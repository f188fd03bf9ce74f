# torch: ok
# The fixed twins: the leaf made where it lives (`device=`, `dtype=`), moved before
# requires_grad is set, or moved to the device it is already on; and a move to a device
# held in a variable, which may or may not copy (no finding either way).
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
w = torch.randn(3, 1, dtype=torch.float64, requires_grad=True)
b = torch.randn(1).to(device).requires_grad_()
c = torch.randn(3, 1, requires_grad=True).to("cpu")
d = torch.randn(3, 1, requires_grad=True).to(device)
x = torch.randn(5, 3, dtype=torch.float64)
opt = torch.optim.SGD([w, b, c], lr=0.1)
for step in range(2):
    loss = (x @ w + b.double()).pow(2).mean() + (c * d).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
