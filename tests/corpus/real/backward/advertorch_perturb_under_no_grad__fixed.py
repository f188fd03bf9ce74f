# source: https://github.com/BorealisAI/advertorch/issues/79
# expect: clean
# mechanism: the test loop wraps adversary.perturb in torch.no_grad(); the attack's own loss.backward() then has no graph
import torch
import torch.nn as nn
import torch.nn.functional as F


def clamp(input, min=None, max=None):
    return torch.max(torch.min(input, max), min) if torch.is_tensor(min) else torch.clamp(input, min, max)


def perturb_iterative(xvar, yvar, predict, nb_iter, eps, eps_iter, loss_fn, delta_init=None, minimize=False, clip_min=0.0, clip_max=1.0):
    if delta_init is not None:
        delta = delta_init
    else:
        delta = torch.zeros_like(xvar)
    delta.requires_grad_()
    for ii in range(nb_iter):
        outputs = predict(xvar + delta)
        loss = loss_fn(outputs, yvar)
        if minimize:
            loss = -loss
        loss.backward()
        grad_sign = delta.grad.data.sign()
        delta.data = delta.data + eps_iter * grad_sign
        delta.data = clamp(delta.data, -eps, eps)
        delta.data = clamp(xvar.data + delta.data, clip_min, clip_max) - xvar.data
        delta.grad.data.zero_()
    return clamp(xvar + delta, clip_min, clip_max)


class LinfPGDAttack:
    def __init__(self, predict, loss_fn=None, eps=0.3, nb_iter=40, eps_iter=0.01, rand_init=True, clip_min=0.0, clip_max=1.0, targeted=False):
        self.predict = predict
        self.loss_fn = loss_fn if loss_fn is not None else nn.CrossEntropyLoss(reduction="sum")
        self.eps = eps
        self.nb_iter = nb_iter
        self.eps_iter = eps_iter
        self.rand_init = rand_init
        self.clip_min = clip_min
        self.clip_max = clip_max
        self.targeted = targeted

    def perturb(self, x, y=None):
        delta = torch.zeros_like(x)
        if self.rand_init:
            delta.uniform_(-self.eps, self.eps)
        return perturb_iterative(
            x, y, self.predict, nb_iter=self.nb_iter, eps=self.eps, eps_iter=self.eps_iter, loss_fn=self.loss_fn,
            delta_init=delta, minimize=self.targeted, clip_min=self.clip_min, clip_max=self.clip_max,
        )


net = nn.Sequential(nn.Flatten(), nn.Linear(16, 10))
adversary = LinfPGDAttack(net, loss_fn=nn.CrossEntropyLoss(reduction="sum"), eps=0.3, nb_iter=3, eps_iter=0.01)
testloader = [(torch.rand(4, 1, 4, 4), torch.randint(0, 10, (4,))) for _ in range(2)]


def test():
    net.eval()
    correct = 0
    for batch_idx, (inputs, targets) in enumerate(testloader):
        adv_untargeted = adversary.perturb(inputs, targets)
        with torch.no_grad():
            outputs = net(adv_untargeted)
        correct += (outputs.argmax(1) == targets).sum().item()
    return correct


test()
