# source: https://github.com/haofanwang/Score-CAM/issues/28
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


def denormalize(tensor):
    means = [0.485, 0.456, 0.406]
    stds = [0.229, 0.224, 0.225]
    denormalized = tensor.clone()
    count = 0
    for channel, mean, std in zip(denormalized[0], means, stds):
        denormalized[0][count] = denormalized[0][count].mul(std)
        denormalized[0][count] = denormalized[0][count].add(mean)
        count += 1
    return denormalized


def format_for_plotting(tensor):
    has_batch_dimension = len(tensor.shape) == 4
    formatted = tensor.clone()
    if has_batch_dimension:
        formatted = tensor.squeeze(0)
    return formatted.permute(1, 2, 0).detach()


def basic_visualize(input_, gradients, save_path=None, weight=None):
    input_ = format_for_plotting(denormalize(input_))
    gradients = format_for_plotting(gradients)
    return input_ * 0.5 + gradients.mean(-1, keepdim=True) * 0.5


class ScoreCAM:
    def __init__(self, model):
        self.model = model

    def __call__(self, input_, class_idx=None):
        b, c, h, w = input_.size()
        logit = self.model(input_)
        if class_idx is None:
            class_idx = logit.max(1)[-1]
        score = logit[:, class_idx].squeeze()
        self.model.zero_grad()
        score.backward(retain_graph=True)
        saliency_map = F.relu(input_.grad.sum(1, keepdim=True))
        return saliency_map.expand(b, 3, h, w)


model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 5))
model.eval()
input_ = torch.rand(1, 3, 8, 8, requires_grad=True)
scorecam = ScoreCAM(model)
scorecam_map = scorecam(input_)
picture = basic_visualize(input_.cpu(), scorecam_map.type(torch.FloatTensor).cpu(), save_path="resnet.png")
