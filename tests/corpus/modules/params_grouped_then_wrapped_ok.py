# torch: ok
# Parameter groups kept as tuples for a later optimizer (the shape of torch's own
# ddp_under_dist_autograd test): the tuples hold parameters of registered sub-modules,
# one of which is then wrapped by DataParallel / DistributedDataParallel, which register
# the wrapped module as `.module`. Nothing here escapes registration.
import torch
import torch.nn as nn
from torch.nn import DataParallel
from torch.nn.parallel import DistributedDataParallel


class HybridModel(nn.Module):
    def __init__(self, process_group=None):
        super().__init__()
        self.fc1 = nn.Linear(4, 4)
        self.fc2 = nn.Linear(4, 2)
        self.non_ddp_params = tuple(self.fc1.parameters()) + tuple(self.fc2.parameters())
        self.ddp_params = ()
        if process_group is not None:
            self.non_ddp_params, self.ddp_params = (
                tuple(self.fc1.parameters()),
                tuple(self.fc2.parameters()),
            )
            self.fc2 = DistributedDataParallel(self.fc2, process_group=process_group)
        else:
            self.fc1 = DataParallel(self.fc1)

    def forward(self, x):
        return self.fc2(self.fc1(x))


model = HybridModel()
assert len(list(model.parameters())) == 4
optimizer = torch.optim.SGD(model.non_ddp_params, lr=0.1)
model(torch.randn(3, 4)).sum().backward()
optimizer.step()
