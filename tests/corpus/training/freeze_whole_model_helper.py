# torch: raises element 0 of tensors does not require grad and does not have a grad_fn
# A fine-tuning script freezes "the pretrained part" with a helper, but hands it the whole
# model: every parameter, the new head included, stops requiring grad.
import torch
import torch.nn as nn


def set_trainable(module, flag):
    for name, param in module.named_parameters():
        param.requires_grad = flag


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        return self.head(self.backbone(x))


model = Classifier()
set_trainable(model, False)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
batches = [(torch.randn(4, 8), torch.tensor([0, 1, 2, 0])) for _ in range(2)]
for x, y in batches:
    loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()  # expect: GL202
    optimizer.step()
