# source: https://github.com/facebookresearch/pytorch_GAN_zoo/issues/83
# expect: clean
# mechanism: with config.GDPP set, GDPPLoss(..., backward=True) runs a second backward through phiGFake, whose graph lossGFake.backward() freed
import torch
import torch.nn as nn
import torch.nn.functional as F


class BaseConfig:
    pass


def GDPPLoss(phiFake, phiReal, backward=True):
    def compute_diversity(phi):
        phi = F.normalize(phi, p=2, dim=1)
        SB = torch.mm(phi, phi.t())
        eigVals, eigVecs = torch.linalg.eigh(SB)
        return eigVals, eigVecs

    fakeEigVals, fakeEigVecs = compute_diversity(phiFake)
    realEigVals, realEigVecs = compute_diversity(phiReal)
    magnitudeLoss = 0.0001 * F.mse_loss(target=realEigVals, input=fakeEigVals)
    structureLoss = -torch.sum(torch.mul(fakeEigVecs, realEigVecs), 0)
    loss = magnitudeLoss + structureLoss.mean()
    if backward:
        loss.backward()
    return loss.item()


class WGANGPCriterion:
    def getCriterion(self, input, status):
        return -input.mean() if status else input.mean()


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(12, 6), nn.LeakyReLU(0.2))
        self.decision = nn.Linear(6, 1)

    def forward(self, x, getFeature=False):
        phi = self.features(x)
        if getFeature:
            return self.decision(phi), phi
        return self.decision(phi)


class BaseGAN:
    def __init__(self, config, dimLatent=4):
        self.config = config
        self.dimLatent = dimLatent
        self.device = torch.device("cpu")
        self.netG = nn.Sequential(nn.Linear(dimLatent, 12), nn.Tanh())
        self.netD = Discriminator()
        self.optimizerG = torch.optim.Adam(self.netG.parameters(), lr=1e-3)
        self.optimizerD = torch.optim.Adam(self.netD.parameters(), lr=1e-3)
        self.lossCriterion = WGANGPCriterion()

    def buildNoiseData(self, n_samples):
        return torch.randn(n_samples, self.dimLatent, device=self.device), None

    def optimizeParameters(self, input_batch):
        allLosses = {}
        self.real_input = input_batch.to(self.device)
        n_samples = self.real_input.size()[0]

        # Update the discriminator
        self.optimizerD.zero_grad()
        predRealD = self.netD(self.real_input, False)
        lossD = self.lossCriterion.getCriterion(predRealD, True)
        allLosses["lossD_real"] = lossD.item()
        inputLatent, targetRandCat = self.buildNoiseData(n_samples)
        predFakeG = self.netG(inputLatent).detach()
        predFakeD = self.netD(predFakeG, False)
        lossDFake = self.lossCriterion.getCriterion(predFakeD, False)
        allLosses["lossD_fake"] = lossDFake.item()
        lossD += lossDFake
        lossD.backward(retain_graph=True)
        self.optimizerD.step()

        # Update the generator
        self.optimizerG.zero_grad()
        self.optimizerD.zero_grad()
        inputNoise, targetCatNoise = self.buildNoiseData(n_samples)
        predFakeG = self.netG(inputNoise)
        predFakeD, phiGFake = self.netD(predFakeG, True)
        lossGFake = self.lossCriterion.getCriterion(predFakeD, True)
        allLosses["lossG_fake"] = lossGFake.item()
        lossGFake.backward(retain_graph=True)

        if self.config.GDPP:
            _, phiDReal = self.netD.forward(self.real_input, True)
            allLosses["lossG_GDPP"] = GDPPLoss(phiDReal, phiGFake, backward=True)

        self.optimizerG.step()
        return allLosses


config = BaseConfig()
config.GDPP = True
gan = BaseGAN(config)
for step in range(2):
    gan.optimizeParameters(torch.randn(5, 12))
