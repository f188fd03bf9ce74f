# source: https://github.com/salesforce/corr_based_prediction/issues/1
# expect: clean
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(5, 1)
batches = [(torch.randn(4, 5), torch.randn(4, 1)) for _ in range(3)]


def train(model, batches, lr=0.1):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    criterion = nn.MSELoss()
    for x, y in batches:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    return model


train(model, batches)
