# source: https://github.com/udacity/deep-learning-v2-pytorch/issues/12
# expect: silent: `param.require_grad = False` (missing s) sets a new attribute, so the "frozen" feature layers keep training
# buggy-line: 23
# mechanism: misspelled `require_grad` assigned on each Parameter of `vgg16.features.parameters()` in a freezing loop
import torch
import torch.nn as nn
import torch.optim as optim


class VGGTiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(nn.Linear(4 * 4 * 4, 8), nn.ReLU(True), nn.Linear(8, 10))

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


vgg16 = VGGTiny()
# Freeze training for all "features" layers
for param in vgg16.features.parameters():
    param.require_grad = False

n_inputs = vgg16.classifier[2].in_features
vgg16.classifier[2] = nn.Linear(n_inputs, 5)
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(vgg16.parameters(), lr=0.1)
before = vgg16.features[0].weight.detach().clone()
data, target = torch.randn(4, 3, 8, 8), torch.tensor([0, 1, 2, 3])
optimizer.zero_grad()
loss = criterion(vgg16(data), target)
loss.backward()
optimizer.step()
assert not torch.equal(before, vgg16.features[0].weight.detach())
