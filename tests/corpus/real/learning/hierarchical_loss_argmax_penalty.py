# source: https://github.com/Ugenteraan/Deep_Hierarchical_Classification/issues/6
# expect: silent: the dependency penalty goes through argmax: it adds to the loss value but gives no gradient, whatever beta is
# buggy-line: 17
import torch
import torch.nn as nn
import torch.nn.functional as F

# superclass of each fine class
HIERARCHY = torch.tensor([0, 0, 1, 1, 1])


class HierarchicalLossNetwork:
    def __init__(self, alpha=1.0, beta=0.8, p_loss=3):
        self.alpha, self.beta, self.p_loss = alpha, beta, p_loss

    def calculate_dloss(self, predictions, true_labels):
        lvl0_pred = torch.argmax(F.softmax(predictions[0], dim=1), dim=1)
        lvl1_pred = torch.argmax(F.softmax(predictions[1], dim=1), dim=1)
        D_l = (HIERARCHY[lvl1_pred] != lvl0_pred).float()
        l_prev = (lvl0_pred != true_labels[0]).float()
        l_curr = (lvl1_pred != true_labels[1]).float()
        return self.beta * torch.sum(torch.pow(self.p_loss, D_l * l_prev) * torch.pow(self.p_loss, D_l * l_curr) - 1.0)

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
assert dloss.grad_fn is None  # the penalty is a constant for autograd
