# source: https://github.com/microsoft/tensorwatch/issues/25
# expect: you can only change requires_grad flags of leaf variables
# buggy-line: 14
# mechanism: `inp.requires_grad = True` in a helper that SmoothGrad calls with `inp + noise`, after GradCAM already made `inp` require grad
import torch
import torch.nn as nn


class VanillaGradExplainer:
    def __init__(self, model):
        self.model = model

    def _backprop(self, inp, ind):
        inp.requires_grad = True
        output = self.model(inp)
        if ind is None:
            ind = output.max(1)[1]
        grad_out = torch.zeros_like(output)
        grad_out.scatter_(1, ind.unsqueeze(0).t(), 1.0)
        self.model.zero_grad()
        output.backward(grad_out)
        return inp.grad

    def explain(self, inp, ind=None, raw_inp=None):
        return self._backprop(inp, ind)


class GradCAMExplainer(VanillaGradExplainer):
    def explain(self, inp, ind=None, raw_inp=None):
        grad = self._backprop(inp, ind)
        return grad.abs().sum(1, keepdim=True)


class SmoothGradExplainer:
    def __init__(self, model, base_explainer=None, stdev_spread=0.15, nsamples=2):
        self.base_explainer = base_explainer or VanillaGradExplainer(model)
        self.stdev_spread = stdev_spread
        self.nsamples = nsamples

    def explain(self, inp, ind=None, raw_inp=None):
        stdev = self.stdev_spread * (inp.max() - inp.min())
        total_gradients = 0
        for _ in range(self.nsamples):
            noise = torch.randn_like(inp) * stdev
            noisy_inp = inp + noise
            grad = self.base_explainer.explain(noisy_inp, ind)
            total_gradients = total_gradients + grad
        return total_gradients / self.nsamples


def get_saliency(model, raw_input, input, label, method="gradcam"):
    exp = {"gradcam": GradCAMExplainer, "smooth_grad": SmoothGradExplainer}[method](model)
    return exp.explain(input, label, raw_input)


def get_image_saliency_results(model, raw_image, input, label, methods=("gradcam", "smooth_grad")):
    return [get_saliency(model, raw_image, input, label, method=m) for m in methods]


model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 5))
img = torch.rand(1, 3, 6, 6)
input_tensor = img.clone()
prediction_tensor = torch.tensor([2])
results = get_image_saliency_results(model, img, input_tensor, prediction_tensor, methods=["gradcam", "smooth_grad"])
