"""Top-k accuracy helper (bearpaw/pytorch-classification#56, lukemelas/EfficientNet-PyTorch#259)."""
# torch: view size is not compatible
import torch


def accuracy(output, target, topk=(1,)):
    maxk = max(topk)
    batch_size = target.size(0)
    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.view(1, -1).expand_as(pred))
    res = []
    for k in topk:
        correct_k = correct[:k].view(-1).float().sum(0)  # expect: GL401
        res.append(correct_k.mul_(100.0 / batch_size))
    return res


accuracy(torch.randn(8, 10), torch.randint(0, 10, (8,)), topk=(1, 5))
