# source: https://github.com/Eric-qi/RDO-PTQ/issues/2
# expect: clean
import torch
import torch.nn as nn


class UniformQuantizer:
    def __init__(self, n_bits=8):
        self.n_levels = 2 ** (n_bits - 1) - 1

    def __call__(self, w):
        scale = w.abs().max() / self.n_levels
        return torch.round(w / scale), scale


def quantize_model(model, n_bits=8):
    quantizer = UniformQuantizer(n_bits)
    scales = {}
    for name, module in model.named_modules():
        if isinstance(module, (nn.Conv2d, nn.Linear)):
            codes, scale = quantizer(module.weight.data)
            module.register_buffer("weight_int", codes.to(torch.int8))
            module.weight.data = codes * scale
            scales[name] = scale
    return scales


model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 4 * 4, 2))
scales = quantize_model(model)
print(sorted(scales))
