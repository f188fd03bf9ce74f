# source: https://github.com/sergeywong/cp-vton/issues/30
# expect: view size is not compatible with input tensor's size and stride
# buggy-line: 25
# also-line: 16
import torch
import torch.nn as nn


class FeatureCorrelation(nn.Module):
    def forward(self, feature_A, feature_B):
        b, c, h, w = feature_A.size()
        feature_A = feature_A.transpose(2, 3).contiguous().view(b, c, h * w)
        feature_B = feature_B.view(b, c, h * w).transpose(1, 2)
        feature_mul = torch.bmm(feature_B, feature_A)
        # (b, h, w, h*w) -> (b, h*w, h, w): a transposed view, not a copy
        return feature_mul.view(b, h, w, h * w).transpose(2, 3).transpose(1, 2)


class FeatureRegression(nn.Module):
    def __init__(self, input_nc, output_dim=6):
        super().__init__()
        self.linear = nn.Linear(input_nc * 4 * 4, output_dim)

    def forward(self, x):
        x = x.view(x.size(0), -1)
        return torch.tanh(self.linear(x))


class GMM(nn.Module):
    def __init__(self):
        super().__init__()
        self.extractionA = nn.Conv2d(3, 8, 3, padding=1)
        self.extractionB = nn.Conv2d(3, 8, 3, padding=1)
        self.correlation = FeatureCorrelation()
        self.regression = FeatureRegression(input_nc=16)

    def forward(self, inputA, inputB):
        correlation = self.correlation(self.extractionA(inputA), self.extractionB(inputB))
        return self.regression(correlation)


theta = GMM()(torch.randn(2, 3, 4, 4), torch.randn(2, 3, 4, 4))
print(theta.shape)
