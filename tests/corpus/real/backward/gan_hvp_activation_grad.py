# source: https://github.com/Animadversio/GAN-Geometry/issues/4
# expect: grad can be implicitly created only for scalar outputs
# buggy-line: 32
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyGenerator(nn.Module):
    def __init__(self, z_dim=8):
        super().__init__()
        self.fc = nn.Linear(z_dim, 3 * 8 * 8)

    def visualize(self, z):
        return torch.tanh(self.fc(z)).view(-1, 3, 8, 8)


class GANForwardHVPOperator:
    def __init__(self, model, objective, z_dim=8):
        self.model = model
        self.objective = objective
        self.z_dim = z_dim

    def preprocess(self, img):
        return F.interpolate(img, size=(6, 6), mode="bilinear", align_corners=False)

    def gradient(self, code):
        perturb_vecs = code.detach().clone().requires_grad_(True)
        img = self.model.visualize(perturb_vecs)
        resz_img = self.preprocess(img)
        activs = self.objective(resz_img)  # one activation per channel and position
        ftgrad = torch.autograd.grad(activs, perturb_vecs, retain_graph=False, create_graph=False)[0]
        return ftgrad


G = TinyGenerator()
feature_layer = nn.Conv2d(3, 4, 3)
op = GANForwardHVPOperator(G, feature_layer)
g = op.gradient(torch.randn(1, 8))
print(g.norm())
