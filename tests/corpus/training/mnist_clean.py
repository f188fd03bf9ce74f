# torch: ok
# A pytorch/examples mnist-style loop on random data: zero_grad, backward, step, a
# per-epoch StepLR scheduler, .item() only for logging, argmax only for accuracy.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.dropout = nn.Dropout(0.25)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.dropout(x)
        output = F.log_softmax(self.fc2(x), dim=1)
        return output


def train(model, train_loader, optimizer, epoch, losses):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if batch_idx % 2 == 0:
            print(f"epoch {epoch} [{batch_idx}] loss {loss.item():.4f}")


def test(model, test_loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            output = model(data)
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    return correct


torch.manual_seed(0)
loader = [(torch.randn(8, 4, 4), torch.randint(0, 4, (8,))) for _ in range(3)]
model = Net()
optimizer = optim.Adadelta(model.parameters(), lr=1.0)
scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
before = model.fc1.weight.detach().clone()
losses = []
for epoch in range(1, 3):
    train(model, loader, optimizer, epoch, losses)
    test(model, loader)
    scheduler.step()
assert not torch.equal(before, model.fc1.weight.detach())
