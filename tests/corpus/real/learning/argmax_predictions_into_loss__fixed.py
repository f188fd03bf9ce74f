# source: https://php.bkmy88.com/faq/1835025.html
# expect: clean
import torch
import torch.nn as nn

torch.manual_seed(42)
X_train = torch.randn(32, 4)
y_train = torch.randint(0, 3, (32,)).type(torch.float32)

model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
loss_fn = nn.CrossEntropyLoss()
optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
Epochs = 3


def accuracy(y_true, y_pred):
    return (y_true == y_pred).float().mean().item() * 100


for epoch in range(Epochs):
    model.train()

    train_logits = model(X_train)
    train_preds_probs = torch.softmax(train_logits, dim=1).argmax(dim=1).type(torch.float32)
    loss = loss_fn(train_logits, y_train.long())
    train_accu = accuracy(y_train, train_preds_probs)
    print(train_preds_probs)
    optimiser.zero_grad()
    loss.backward()
    optimiser.step()
