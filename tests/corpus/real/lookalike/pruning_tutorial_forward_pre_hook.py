# source: https://github.com/pytorch/tutorials/blob/main/intermediate_source/pruning_tutorial.py
# expect: clean
# note: torch.nn.utils.prune reparametrises `weight = weight_orig * weight_mask` in a forward pre-hook instead of zeroing the Parameter in place
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.prune as prune


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 3)
        self.conv2 = nn.Conv2d(6, 16, 3)
        self.fc1 = nn.Linear(16 * 1 * 1, 12)
        self.fc2 = nn.Linear(12, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, int(x.nelement() / x.shape[0]))
        return self.fc2(F.relu(self.fc1(x)))


model = LeNet()
module = model.conv1
prune.random_unstructured(module, name="weight", amount=0.3)
prune.l1_unstructured(module, name="bias", amount=3)
parameters_to_prune = ((model.conv2, "weight"), (model.fc1, "weight"), (model.fc2, "weight"))
prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loss = F.cross_entropy(model(torch.randn(2, 1, 10, 10)), torch.tensor([1, 2]))
loss.backward()
optimizer.step()
prune.remove(module, "weight")
