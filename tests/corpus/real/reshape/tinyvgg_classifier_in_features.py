# source: https://github.com/mrdbourke/pytorch-deep-learning/issues/763
# expect: mat1 and mat2 shapes cannot be multiplied (4x490 and 10x3)
# buggy-line: 28
# also-line: 24
import torch
from torch import nn


class TinyVGG(nn.Module):
    def __init__(self, input_shape: int, hidden_units: int, output_shape: int):
        super().__init__()
        self.block_1 = nn.Sequential(
            nn.Conv2d(input_shape, hidden_units, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.block_2 = nn.Sequential(
            nn.Conv2d(hidden_units, hidden_units, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(in_features=hidden_units, out_features=output_shape),
        )

    def forward(self, x):
        return self.classifier(self.block_2(self.block_1(x)))


torch.manual_seed(42)
model = TinyVGG(input_shape=1, hidden_units=10, output_shape=3)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
X, y = torch.randn(4, 1, 28, 28), torch.randint(0, 3, (4,))
loss = loss_fn(model(X), y)
optimizer.zero_grad()
loss.backward()
optimizer.step()
