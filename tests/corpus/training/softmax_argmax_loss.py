# torch: raises element 0 of tensors does not require grad and does not have a grad_fn
# A classifier trained on hard predictions: softmax -> argmax -> float feeds the loss.
import torch
import torch.nn as nn

X_train, y_train = torch.randn(16, 5), torch.randint(0, 3, (16,)).float()
model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 3))
loss_fn = nn.L1Loss()
optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    model.train()
    train_logits = model(X_train)
    train_preds = torch.softmax(train_logits, dim=1).argmax(dim=1).type(torch.float32)  # expect: GL203
    loss = loss_fn(train_preds, y_train)
    print(f"accuracy {(train_preds == y_train).float().mean().item():.2f}")
    optimiser.zero_grad()
    loss.backward()
    optimiser.step()
