# torch: ok
# zero_grad called once before the loop instead of in it: gradients accumulate.
import torch
import torch.nn as nn
import torch.nn.functional as F


def train(model, optimizer, batches):
    optimizer.zero_grad()
    grads = []
    for data, target in batches:
        output = model(data)
        loss = F.cross_entropy(output, target)
        loss.backward()  # expect: GL503
        optimizer.step()
        grads.append(model.weight.grad.clone())
    return grads


model = nn.Linear(3, 2)
data, target = torch.randn(4, 3), torch.randint(0, 2, (4,))
grads = train(model, torch.optim.SGD(model.parameters(), lr=0.0), [(data, target)] * 2)
assert torch.allclose(grads[1], 2 * grads[0])
