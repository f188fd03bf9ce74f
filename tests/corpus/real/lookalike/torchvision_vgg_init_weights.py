# source: https://github.com/pytorch/vision/blob/main/torchvision/models/vgg.py
# expect: clean
# note: nn.init.* functions edit parameters in place, but they run under no_grad internally
import torch
import torch.nn as nn


class VGG(nn.Module):
    def __init__(self, features, num_classes=10, init_weights=True, dropout=0.5):
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((2, 2))
        self.classifier = nn.Sequential(
            nn.Linear(8 * 2 * 2, 16), nn.ReLU(True), nn.Dropout(p=dropout), nn.Linear(16, num_classes)
        )
        if init_weights:
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    nn.init.constant_(m.bias, 0)

    def forward(self, x):
        x = self.features(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


def make_layers(cfg, batch_norm=False):
    layers = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers += [nn.MaxPool2d(kernel_size=2, stride=2)]
        else:
            conv2d = nn.Conv2d(in_channels, v, kernel_size=3, padding=1)
            layers += [conv2d, nn.BatchNorm2d(v), nn.ReLU(inplace=True)] if batch_norm else [conv2d, nn.ReLU(inplace=True)]
            in_channels = v
    return nn.Sequential(*layers)


model = VGG(make_layers([4, "M", 8], batch_norm=True))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loss = nn.functional.cross_entropy(model(torch.randn(2, 3, 8, 8)), torch.tensor([1, 2]))
loss.backward()
optimizer.step()
