# source: https://github.com/Ugenteraan/Deep_Hierarchical_Classification/issues/6
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

HIERARCHY = torch.tensor([0, 0, 1, 1, 1])


class HierarchicalLossNetwork:
    def __init__(self, alpha=1.0, beta=0.8):
        self.alpha, self.beta = alpha, beta

    def calculate_dloss(self, predictions, true_labels):
        # a differentiable consistency term: probability mass of fine classes outside the predicted superclass
        p0 = F.softmax(predictions[0], dim=1)
        p1 = F.softmax(predictions[1], dim=1)
        super_of_fine = F.one_hot(HIERARCHY, 2).float()  # (5, 2)
        implied_p0 = p1 @ super_of_fine
        return self.beta * F.kl_div(implied_p0.clamp_min(1e-8).log(), p0, reduction="batchmean")

    def calculate_lloss(self, predictions, true_labels):
        return self.alpha * sum(F.cross_entropy(p, t) for p, t in zip(predictions, true_labels))


model = nn.Linear(6, 2 + 5)
x = torch.randn(8, 6)
labels = [torch.randint(0, 2, (8,)), torch.randint(0, 5, (8,))]
out = model(x)
predictions = [out[:, :2], out[:, 2:]]
hl = HierarchicalLossNetwork()
dloss = hl.calculate_dloss(predictions, labels)
total = hl.calculate_lloss(predictions, labels) + dloss
total.backward()
assert dloss.grad_fn is not None
