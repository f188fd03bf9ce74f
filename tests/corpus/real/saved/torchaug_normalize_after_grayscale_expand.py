# source: https://github.com/juliendenize/torchaug/issues/10
# expect: more than one element of the written-to tensor refers to a single memory location
# buggy-line: 42
# mechanism: the batch grayscale transform returns an expanded view (one channel repeated by stride 0); the next transform, Normalize, edits its input in place
import torch
from torch import Tensor, nn


def rgb_to_grayscale(img: Tensor, num_output_channels: int = 1) -> Tensor:
    r, g, b = img.unbind(dim=-3)
    l_img = (0.2989 * r + 0.587 * g + 0.114 * b).to(img.dtype).unsqueeze(dim=-3)
    if num_output_channels == 3:
        return l_img.expand(img.shape)
    return l_img


class BatchRandomGrayScale(nn.Module):
    def __init__(self, p: float = 0.1, inplace: bool = False):
        super().__init__()
        self.p = p
        self.inplace = inplace

    def forward(self, imgs: Tensor) -> Tensor:
        if self.p == 1.0:
            return rgb_to_grayscale(imgs, num_output_channels=3)
        indices = torch.rand(imgs.shape[0]) < self.p
        output = imgs if self.inplace else imgs.clone()
        output[indices] = rgb_to_grayscale(imgs[indices], num_output_channels=3)
        return output


class Normalize(nn.Module):
    def __init__(self, mean, std, inplace: bool = True):
        super().__init__()
        self.mean = torch.as_tensor(mean).view(-1, 1, 1)
        self.std = torch.as_tensor(std).view(-1, 1, 1)
        self.inplace = inplace

    def forward(self, tensor: Tensor) -> Tensor:
        if not self.inplace:
            tensor = tensor.clone()
        return tensor.sub_(self.mean).div_(self.std)


class BatchImageWrapper(nn.Module):
    def __init__(self, transforms):
        super().__init__()
        self.transforms = nn.ModuleList(transforms)

    def forward(self, imgs: Tensor) -> Tensor:
        for transform in self.transforms:
            imgs = transform(imgs)
        return imgs


transform = BatchImageWrapper([BatchRandomGrayScale(1.0), Normalize(225, 225)])
transform(torch.randn(4, 3, 8, 8))
