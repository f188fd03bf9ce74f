# source: https://github.com/Harry24k/adversarial-attacks-pytorch/issues/2
# expect: clean
import torch
import torch.nn as nn


class Attack:
    def __init__(self, name, model):
        self.attack = name
        self.model = model

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)


class DeepFool(Attack):
    def __init__(self, model, steps=3, overshoot=0.02):
        super().__init__("DeepFool", model)
        self.steps = steps
        self.overshoot = overshoot

    def forward(self, images, labels):
        adv_images = []
        for b in range(images.shape[0]):
            image = images[b : b + 1, :, :, :].clone()
            label = labels[b : b + 1]
            for _ in range(self.steps):
                image.requires_grad = True
                output = self.model(image)[0]
                _, pre = torch.max(output, 0)
                if pre != label:
                    break
                f_0 = output[label]
                grad_f_0 = torch.autograd.grad(f_0, image, retain_graph=True)[0]
                k_i = (output + (torch.arange(output.numel()) == label) * 1e9).argmin()
                w_k = torch.autograd.grad(output[k_i], image)[0] - grad_f_0
                f_k = output[k_i] - f_0
                r = (f_k.abs() + 1e-4) / (w_k.norm() ** 2 + 1e-8) * w_k
                image = torch.clamp(image + (1 + self.overshoot) * r, min=0, max=1).detach()
            adv_images.append(image.detach())
        return torch.cat(adv_images)


model = nn.Sequential(nn.Flatten(), nn.Linear(12, 3))
images = torch.rand(2, 3, 2, 2)
with torch.no_grad():
    labels = model(images).argmax(1)
attack = DeepFool(model, steps=3)
adv_images = attack(images, labels)
