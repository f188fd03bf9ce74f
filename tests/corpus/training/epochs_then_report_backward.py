# torch: raises Trying to backward through the graph a second time
# After the training loop (which always runs), the script backpropagates the last
# prediction again to inspect the input saliency: the loop's backward freed that graph.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(16, 3)
y = torch.randn(16, 1)
for epoch in range(3):
    pred = model(x)
    loss = nn.functional.mse_loss(pred, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
pred.sum().backward()  # expect: GL305
