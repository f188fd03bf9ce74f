# An adversarial-training script pushes its grad-requiring input through a module-level
# augmentation pipeline four calls deep; a transform scales each channel in place while
# iterating the image (each channel is one of the views unbind() returned).
import torch
import torch.nn as nn


class ChannelJitter:
    def __init__(self, factors):
        self.factors = factors

    def __call__(self, img):
        for channel, factor in zip(img, self.factors):
            channel.mul_(factor)  # expect: GL103
        return img


class Pipeline:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for transform in self.transforms:
            img = transform(img)
        return img


augment = Pipeline([ChannelJitter([1.1, 0.9, 1.0])])
classifier = nn.Sequential(nn.Flatten(), nn.Linear(3 * 4 * 4, 2))


def preprocess(batch):
    return torch.stack([augment(image * 1.0) for image in batch])


def attack_step(images, labels, eps=0.01):
    images = images.clone().requires_grad_(True)
    loss = nn.functional.cross_entropy(classifier(preprocess(images)), labels)
    loss.backward()
    return (images + eps * images.grad.sign()).detach()


adversarial = attack_step(torch.rand(2, 3, 4, 4), torch.tensor([0, 1]))
