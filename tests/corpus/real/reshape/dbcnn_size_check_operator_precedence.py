# source: https://github.com/zwx8981/DBCNN-PyTorch/issues/2
# expect: is invalid for input of size
# buggy-line: 43
# also-line: 47
import torch
import torch.nn as nn
import torch.nn.functional as F


class DBCNN(torch.nn.Module):
    def __init__(self, options):
        """Declare all needed layers."""
        nn.Module.__init__(self)
        # stands for the VGG-16 features without their last pool (stride 16, floor)
        self.features1 = nn.Sequential(*[nn.MaxPool2d(2) for _ in range(4)], nn.Conv2d(3, 512, 1))
        # stands for the SCNN features (stride 16, ceil)
        self.features2 = nn.Sequential(*[nn.MaxPool2d(2, ceil_mode=True) for _ in range(4)], nn.Conv2d(3, 128, 1))
        # Linear classifier.
        self.fc = torch.nn.Linear(512 * 128, 1)
        if options["fc"] == True:
            # Freeze all previous layers.
            for param in self.features1.parameters():
                param.requires_grad = False
            for param in self.features2.parameters():
                param.requires_grad = False
            # Initialize the fc layers.
            nn.init.kaiming_normal_(self.fc.weight.data)
            if self.fc.bias is not None:
                nn.init.constant_(self.fc.bias.data, val=0)

    def forward(self, X):
        """Forward pass of the network."""
        N = X.size()[0]
        X1 = self.features1(X)
        H = X1.size()[2]
        W = X1.size()[3]
        assert X1.size()[1] == 512
        X2 = self.features2(X)
        H2 = X2.size()[2]
        W2 = X2.size()[3]
        assert X2.size()[1] == 128

        if H != H2 | W != W2:
            X2 = F.interpolate(X2, (H, W), mode="bilinear", align_corners=True)

        X1 = X1.view(N, 512, H * W)
        X2 = X2.view(N, 128, H * W)
        X = torch.bmm(X1, torch.transpose(X2, 1, 2)) / (H * W)  # Bilinear
        assert X.size() == (N, 512, 128)
        X = X.view(N, 512 * 128)
        X = torch.sqrt(X + 1e-8)
        X = torch.nn.functional.normalize(X)
        X = self.fc(X)
        assert X.size() == (N, 1)
        return X


options = {"fc": True, "base_lr": 1e-3, "weight_decay": 5e-4}
net = DBCNN(options)
criterion = torch.nn.MSELoss()
solver = torch.optim.SGD(net.fc.parameters(), lr=options["base_lr"], momentum=0.9, weight_decay=options["weight_decay"])
# a test image that is not square: torch.Size([1, 3, 764, 960])
X, y = torch.rand(1, 3, 764, 960), torch.rand(1)
solver.zero_grad()
score = net(X)
loss = criterion(score, y.view(len(score), 1).detach())
loss.backward()
solver.step()
