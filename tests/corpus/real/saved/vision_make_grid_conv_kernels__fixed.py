# source: https://github.com/pytorch/vision/issues/3025
# expect: clean
import torch
import torch.nn as nn


def norm_ip(img, low, high):
    img.clamp_(min=low, max=high)
    img.sub_(low).div_(max(high - low, 1e-5))


def norm_range(t, value_range=None):
    if value_range is not None:
        norm_ip(t, value_range[0], value_range[1])
    else:
        norm_ip(t, float(t.min()), float(t.max()))


def make_grid(tensor, nrow=8, padding=2, normalize=False, scale_each=False):
    if normalize:
        tensor = tensor.clone()
        if scale_each:
            for t in tensor:
                norm_range(t)
        else:
            norm_range(tensor)
    nmaps = tensor.size(0)
    xmaps = min(nrow, nmaps)
    ymaps = (nmaps + xmaps - 1) // xmaps
    height, width = tensor.size(2) + padding, tensor.size(3) + padding
    grid = tensor.new_zeros((tensor.size(1), height * ymaps + padding, width * xmaps + padding))
    k = 0
    for y in range(ymaps):
        for x in range(xmaps):
            if k >= nmaps:
                break
            grid[:, y * height + padding : (y + 1) * height, x * width + padding : (x + 1) * width] = tensor[k]
            k += 1
    return grid


class AlexNetTiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(inplace=True), nn.Conv2d(4, 2, 3))
        self.classifier = nn.Linear(2, 10)


alexnet = AlexNetTiny()
grids = []
for sub_module in alexnet.modules():
    if isinstance(sub_module, nn.Conv2d):
        kernels = sub_module.weight.detach()
        c_out, c_int, k_w, k_h = tuple(kernels.shape)
        for o_idx in range(c_out):
            kernel_idx = kernels[o_idx, :, :, :].unsqueeze(1)
            img_grid = make_grid(kernel_idx, normalize=True, scale_each=True, nrow=3)
            grids.append(img_grid)
