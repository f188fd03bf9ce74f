# source: https://github.com/bytetriper/RAE/issues/67
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Linear(6, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
grad_accum_steps = 4
loader = [(torch.randn(8, 6), torch.randn(8, 1)) for _ in range(2)]

for step, (images, targets) in enumerate(loader):
    micro_images = images.chunk(grad_accum_steps)
    micro_targets = targets.chunk(grad_accum_steps)
    optimizer.zero_grad(set_to_none=True)
    for micro_x, micro_y in zip(micro_images, micro_targets):
        loss = F.mse_loss(model(micro_x), micro_y) / grad_accum_steps
        loss.backward()
    accumulated = model.weight.grad.clone()
    optimizer.step()

# the effect: the gradient stepped with is not the full batch's
model.zero_grad()
(F.mse_loss(model(images), targets)).backward()
assert torch.allclose(accumulated, model.weight.grad, atol=1e-6)
