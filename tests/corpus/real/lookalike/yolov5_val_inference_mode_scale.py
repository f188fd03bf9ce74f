# source: https://github.com/ultralytics/yolov5/blob/master/val.py
# expect: clean
# note: in-place scaling of targets and of the model's (sigmoid) outputs inside an `@torch.inference_mode()` validation run
import torch
import torch.nn as nn


class Detect(nn.Module):
    def __init__(self, nc=3, ch=8):
        super().__init__()
        self.m = nn.Conv2d(ch, nc + 5, 1)

    def forward(self, x):
        bs, _, ny, nx = x.shape
        return self.m(x).sigmoid().permute(0, 2, 3, 1).reshape(bs, ny * nx, -1)


def smart_inference_mode():
    def decorate(fn):
        return torch.inference_mode()(fn)

    return decorate


@smart_inference_mode()
def run(model, dataloader, conf_thres=0.25):
    model.eval()
    stats = []
    for im, targets in dataloader:
        nb, _, height, width = im.shape
        preds = model(im)
        preds[..., :4] *= torch.tensor((width, height, width, height))
        targets[:, 2:] *= torch.tensor((width, height, width, height))
        keep = preds[..., 4] > conf_thres
        stats.append((keep.sum().item(), targets.shape[0]))
    return stats


model = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.SiLU(), Detect())
dataloader = [(torch.rand(2, 3, 8, 8), torch.rand(3, 6))]
print(run(model, dataloader))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loss = model(torch.rand(2, 3, 8, 8)).mean()
loss.backward()
optimizer.step()
