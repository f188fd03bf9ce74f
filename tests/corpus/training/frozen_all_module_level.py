# torch: raises element 0 of tensors does not require grad and does not have a grad_fn
# A module-level script freezes the loaded model with requires_grad_(False) "to save
# memory" and still trains it.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 2))
model.requires_grad_(False)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
images, labels = torch.randn(2, 3, 8, 8), torch.tensor([0, 1])
loss = nn.functional.cross_entropy(model(images), labels)
loss.backward()  # expect: GL202
optimizer.step()
