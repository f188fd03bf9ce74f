# source: https://github.com/bytetriper/RAE/issues/67
# expect: silent: zero_grad runs on every micro-batch: the step applies the last micro-batch's gradient only
# buggy-line: 20
# also-line: 24
# mechanism: optimizer.zero_grad() inside the micro-batch loop, before each backward, while step() runs once after it
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
    for micro_x, micro_y in zip(micro_images, micro_targets):
        optimizer.zero_grad(set_to_none=True)
        loss = F.mse_loss(model(micro_x), micro_y) / grad_accum_steps
        loss.backward()
    accumulated = model.weight.grad.clone()
    optimizer.step()

# the effect: the gradient stepped with is not the full batch's
model.zero_grad()
(F.mse_loss(model(images), targets)).backward()
assert not torch.allclose(accumulated, model.weight.grad)
