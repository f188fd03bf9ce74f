"""The fixed top-k accuracy helper: reshape instead of view (lukemelas/PyTorch-Pretrained-ViT#26)."""
import torch


def accuracy(output, target, topk=(1,)):
    maxk = max(topk)
    batch_size = target.size(0)
    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.view(1, -1).expand_as(pred))
    res = []
    for k in topk:
        correct_k = correct[:k].reshape(-1).float().sum(0)
        res.append(correct_k.mul_(100.0 / batch_size))
    return res


accuracy(torch.randn(8, 10), torch.randint(0, 10, (8,)), topk=(1, 5))
