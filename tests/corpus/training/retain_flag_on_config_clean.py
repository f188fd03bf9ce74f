# torch: ok
# A config constant decides whether the first backward keeps the graph; it is on, so
# the auxiliary loss can backpropagate through it again.
import torch
import torch.nn as nn

KEEP_GRAPH_FOR_AUX = True


def train_step(model, batch, optimizer):
    out = model(batch)
    main_loss = out.pow(2).mean()
    aux_loss = out.abs().mean()
    optimizer.zero_grad()
    main_loss.backward(retain_graph=KEEP_GRAPH_FOR_AUX)
    aux_loss.backward()
    optimizer.step()


model = nn.Sequential(nn.Linear(6, 6), nn.Tanh())
train_step(model, torch.randn(4, 6), torch.optim.SGD(model.parameters(), lr=0.1))
