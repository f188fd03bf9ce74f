# source: https://github.com/khanrc/pt.darts/issues/40
# expect: view size is not compatible with input tensor's size and stride
# buggy-line: 44
# mechanism: utils.accuracy flattens correct[:k] of a transposed top-k prediction with view; the search loop asks for top-5
import torch
import torch.nn as nn
import torch.nn.functional as F


class AverageMeter:
    """Computes and stores the average and current value"""

    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.cnt = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.cnt += n
        self.avg = self.sum / self.cnt


def accuracy(output, target, topk=(1,)):
    """Computes the precision@k for the specified values of k"""
    maxk = max(topk)
    batch_size = target.size(0)

    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    # one-hot case
    if target.ndimension() > 1:
        target = target.max(1)[1]

    correct = pred.eq(target.view(1, -1).expand_as(pred))

    res = []
    for k in topk:
        correct_k = correct[:k].view(-1).float().sum(0)
        res.append(correct_k.mul_(1.0 / batch_size))

    return res


class SearchCNN(nn.Module):
    def __init__(self, C_in, C, n_classes):
        super().__init__()
        self.stem = nn.Conv2d(C_in, C, 3, padding=1)
        self.alpha = nn.Parameter(1e-3 * torch.randn(2))
        self.ops = nn.ModuleList([nn.Conv2d(C, C, 3, padding=1), nn.Identity()])
        self.linear = nn.Linear(C, n_classes)

    def forward(self, x):
        s = self.stem(x)
        weights = F.softmax(self.alpha, dim=-1)
        s = sum(w * op(s) for w, op in zip(weights, self.ops))
        return self.linear(s.mean(dim=(2, 3)))

    def weights(self):
        return [p for n, p in self.named_parameters() if n != "alpha"]


def train(train_loader, valid_loader, model, w_optim, alpha_optim, epoch):
    top1 = AverageMeter()
    top5 = AverageMeter()
    losses = AverageMeter()
    model.train()
    for step, ((trn_X, trn_y), (val_X, val_y)) in enumerate(zip(train_loader, valid_loader)):
        N = trn_X.size(0)
        alpha_optim.zero_grad()
        F.cross_entropy(model(val_X), val_y).backward()
        alpha_optim.step()

        w_optim.zero_grad()
        logits = model(trn_X)
        loss = F.cross_entropy(logits, trn_y)
        loss.backward()
        nn.utils.clip_grad_norm_(model.weights(), 5.0)
        w_optim.step()

        prec1, prec5 = accuracy(logits, trn_y, topk=(1, 5))
        losses.update(loss.item(), N)
        top1.update(prec1.item(), N)
        top5.update(prec5.item(), N)


model = SearchCNN(3, 4, 10)
w_optim = torch.optim.SGD(model.weights(), 0.025, momentum=0.9, weight_decay=3e-4)
alpha_optim = torch.optim.Adam([model.alpha], 3e-4, betas=(0.5, 0.999), weight_decay=1e-3)
train_loader = [(torch.randn(8, 3, 8, 8), torch.randint(0, 10, (8,))) for _ in range(2)]
valid_loader = [(torch.randn(8, 3, 8, 8), torch.randint(0, 10, (8,))) for _ in range(2)]
train(train_loader, valid_loader, model, w_optim, alpha_optim, 0)
