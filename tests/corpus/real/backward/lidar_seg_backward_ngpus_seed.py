# source: https://github.com/PRBonn/LiDAR-MOS/issues/35
# expect: Mismatch in shape: grad_output[0] has a shape of torch.Size([4]) and output[0] has a shape of torch.Size([1])
# buggy-line: 34
import torch
import torch.nn as nn
import torch.nn.functional as F

N_CLASSES = 3


class RangeNetHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(5, N_CLASSES, 3, padding=1)

    def forward(self, x):
        return F.softmax(self.conv(x), dim=1)


class Trainer:
    def __init__(self, n_gpus=4):
        self.model = RangeNetHead()
        self.n_gpus = n_gpus
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.01)
        self.criterion = nn.NLLLoss()

    def train_epoch(self, loader):
        for proj_in, proj_labels in loader:
            output = self.model(proj_in)
            loss_m = self.criterion(torch.log(output.clamp(min=1e-8)), proj_labels).unsqueeze(0)
            self.optimizer.zero_grad()
            if self.n_gpus > 1:
                idx = torch.ones(self.n_gpus)
                loss_m.backward(idx)
            else:
                loss_m.backward()
            self.optimizer.step()


loader = [(torch.randn(2, 5, 4, 8), torch.randint(0, N_CLASSES, (2, 4, 8)))]
Trainer().train_epoch(loader)
