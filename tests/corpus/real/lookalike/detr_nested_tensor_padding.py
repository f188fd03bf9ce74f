# source: https://github.com/facebookresearch/detr/blob/main/util/misc.py
# expect: clean
# note: `copy_` into the per-image views (`zip` over a fresh zeros batch unbinds it) and mask writes: the padded batch needs no grad
import torch
import torch.nn as nn


def _max_by_axis(the_list):
    maxes = the_list[0]
    for sublist in the_list[1:]:
        for index, item in enumerate(sublist):
            maxes[index] = max(maxes[index], item)
    return maxes


class NestedTensor:
    def __init__(self, tensors, mask):
        self.tensors = tensors
        self.mask = mask

    def decompose(self):
        return self.tensors, self.mask


def nested_tensor_from_tensor_list(tensor_list):
    max_size = _max_by_axis([list(img.shape) for img in tensor_list])
    batch_shape = [len(tensor_list)] + max_size
    b, c, h, w = batch_shape
    dtype = tensor_list[0].dtype
    tensor = torch.zeros(batch_shape, dtype=dtype)
    mask = torch.ones((b, h, w), dtype=torch.bool)
    for img, pad_img, m in zip(tensor_list, tensor, mask):
        pad_img[: img.shape[0], : img.shape[1], : img.shape[2]].copy_(img)
        m[: img.shape[1], : img.shape[2]] = False
    return NestedTensor(tensor, mask)


backbone = nn.Conv2d(3, 4, 3, padding=1)
optimizer = torch.optim.AdamW(backbone.parameters(), lr=1e-4)
samples = nested_tensor_from_tensor_list([torch.rand(3, 6, 5), torch.rand(3, 4, 6)])
src, mask = samples.decompose()
features = backbone(src)
loss = features.masked_fill(mask[:, None], 0.0).pow(2).mean()
loss.backward()
optimizer.step()
