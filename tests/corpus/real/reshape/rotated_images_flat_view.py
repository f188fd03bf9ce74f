# source: https://www.marioraach.de/en/blog/pytorch-transpose-view
# expect: view size is not compatible with input tensor's size and stride
# buggy-line: 16
# mechanism: transpose(1, 2) rotates the images (rank >= 3 proven); view(batch, -1) then merges the swapped dims
import torch
import torch.nn as nn


class RotatedClassifier(nn.Module):
    def __init__(self, pixels, classes):
        super().__init__()
        self.fc = nn.Linear(pixels, classes)

    def forward(self, images):
        image_rotated = images.transpose(1, 2)  # rotate by 90 degrees before classifying
        image_flat = image_rotated.view(image_rotated.size(0), -1)
        return self.fc(image_flat)


model = RotatedClassifier(8, 3)
batch = torch.linspace(0, 1, 8).repeat(5, 1).view(5, 2, 4)
logits = model(batch)
print(logits.shape)
