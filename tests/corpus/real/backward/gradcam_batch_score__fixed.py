# source: https://github.com/1Konny/gradcam_plus_plus-pytorch/issues/7
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallCNN(nn.Module):
    def __init__(self, n_classes=5):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.ReLU())
        self.classifier = nn.Linear(6, n_classes)

    def forward(self, x):
        f = self.features(x)
        return self.classifier(f.mean(dim=(2, 3)))


class GradCAM:
    def __init__(self, model):
        self.model = model
        self.gradients = {}
        self.activations = {}
        layer = model.features[0]
        layer.register_forward_hook(lambda m, i, o: self.activations.__setitem__("value", o))
        layer.register_full_backward_hook(lambda m, gi, go: self.gradients.__setitem__("value", go[0]))

    def forward(self, input, class_idx=None, retain_graph=False):
        logit = self.model(input)
        if class_idx is None:
            class_idx = logit.max(1)[-1]
        else:
            class_idx = torch.full((input.size(0),), class_idx, dtype=torch.long)
        # one score per image, summed: the images do not interact
        score = logit.gather(1, class_idx.view(-1, 1)).sum()
        self.model.zero_grad()
        score.backward(retain_graph=retain_graph)
        weights = self.gradients["value"].mean(dim=(2, 3), keepdim=True)
        mask = F.relu((weights * self.activations["value"]).sum(1, keepdim=True))
        return mask, logit

    def __call__(self, input, class_idx=None, retain_graph=False):
        return self.forward(input, class_idx, retain_graph)


gradcam = GradCAM(SmallCNN())
inputs = torch.randn(3, 3, 8, 8)
mask, _ = gradcam(inputs)
print(mask.shape)
