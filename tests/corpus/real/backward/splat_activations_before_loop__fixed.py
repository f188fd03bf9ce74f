# source: https://github.com/nerfstudio-project/gsplat/issues/710
# expect: clean
import torch
import torch.nn.functional as F


class Scene:
    def __init__(self, n=16):
        self.gaussians = {
            "means": torch.randn(n, 2, requires_grad=True),
            "scales": torch.randn(n, 2, requires_grad=True),
            "opacities": torch.randn(n, requires_grad=True),
            "colors": torch.rand(n, 3, requires_grad=True),
        }


def rasterize(means, scales, opacities, colors, H=6, W=6):
    ys, xs = torch.meshgrid(torch.linspace(-2, 2, H), torch.linspace(-2, 2, W), indexing="ij")
    pix = torch.stack([xs, ys], -1).view(-1, 1, 2)
    d2 = (((pix - means) / scales) ** 2).sum(-1)
    w = opacities * torch.exp(-0.5 * d2)
    return (w @ colors).view(H, W, 3)


def run_3dgs_optim(scene, target, iters=3, loss_opacity_fac=0.01, loss_scale_fac=0.01):
    g = scene.gaussians
    optimizer = torch.optim.Adam(g.values(), lr=1e-2)
    for it in range(iters):
        optimizer.zero_grad()
        # activations recomputed from the raw parameters at every step
        scales = torch.exp(g["scales"])
        opacities = torch.sigmoid(g["opacities"])
        render = rasterize(g["means"], scales, opacities, g["colors"])
        loss = F.l1_loss(render, target)
        loss += loss_opacity_fac * torch.abs(opacities).mean()
        loss += loss_scale_fac * torch.abs(scales).mean()
        loss.backward()
        optimizer.step()
    return loss.item()


run_3dgs_optim(Scene(), torch.rand(6, 6, 3))
