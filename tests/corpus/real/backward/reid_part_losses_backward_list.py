# source: https://github.com/syfafterzy/PCB_RPP_for_reID/issues/16
# expect: Mismatch in shape: grad_output[0] has a shape of torch.Size([1]) and output[0] has a shape of torch.Size([])
# buggy-line: 33
import torch
import torch.nn as nn
import torch.nn.functional as F

NUM_STRIPES, NUM_IDS, FEAT = 6, 5, 8


class PCB(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Conv2d(3, FEAT, 3, padding=1)
        self.classifiers = nn.ModuleList(nn.Linear(FEAT, NUM_IDS) for _ in range(NUM_STRIPES))

    def forward(self, x):
        f = self.backbone(x)  # (N, FEAT, 6, 2)
        stripes = F.adaptive_avg_pool2d(f, (NUM_STRIPES, 1)).squeeze(-1)
        return [cls(stripes[:, :, i]) for i, cls in enumerate(self.classifiers)]


class Trainer:
    def __init__(self, model, criterion):
        self.model = model
        self.criterion = criterion

    def train(self, epoch, data_loader, optimizer):
        for i, (imgs, pids) in enumerate(data_loader):
            outputs = self.model(imgs)
            loss0, loss1, loss2, loss3, loss4, loss5 = [self.criterion(o, pids) for o in outputs]
            optimizer.zero_grad()
            torch.autograd.backward(
                [loss0, loss1, loss2, loss3, loss4, loss5],
                [torch.ones(1) for _ in range(NUM_STRIPES)],
            )
            optimizer.step()


model = PCB()
loader = [(torch.randn(4, 3, 12, 4), torch.randint(0, NUM_IDS, (4,))) for _ in range(2)]
opt = torch.optim.SGD(model.parameters(), lr=0.1)
Trainer(model, nn.CrossEntropyLoss()).train(0, loader, opt)
