"""Top-k accuracy fixed with contiguous() before view (ildoonet/pytorch-randaugment#26)."""
import torch


def accuracy(output, target, topk=(1,)):
    maxk = max(topk)
    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.view(1, -1).expand_as(pred)).contiguous()
    return [correct[:k].view(-1).float().sum(0) for k in topk]


accuracy(torch.randn(8, 10), torch.randint(0, 10, (8,)), topk=(1, 5))
