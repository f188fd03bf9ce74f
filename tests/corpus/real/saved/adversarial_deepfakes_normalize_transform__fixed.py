# source: https://github.com/paarthneekhara/AdversarialDeepFakes/issues/23
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Normalize:
    def __init__(self, mean, std):
        self.mean = mean
        self.std = std

    def __call__(self, tensor):
        mean = torch.as_tensor(self.mean).view(-1, 1, 1)
        std = torch.as_tensor(self.std).view(-1, 1, 1)
        return (tensor - mean) / std


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img


norm_transform = Compose([Normalize([0.5] * 3, [0.5] * 3)])


def predict_with_model(image, model, model_type="xception"):
    resized_image = F.interpolate(image, size=(16, 16), mode="bilinear", align_corners=False)[0]
    normalized_image = norm_transform(resized_image)
    logits = model(normalized_image.unsqueeze(0))
    output = F.softmax(logits, dim=1)
    prediction = output.argmax(dim=1)
    return int(prediction), output, logits


def robust_fgsm(input_img, model, model_type, eps=0.01, iters=2):
    input_var = input_img.clone().requires_grad_(True)
    target = torch.tensor([0])
    for _ in range(iters):
        prediction, output, logits = predict_with_model(input_var, model, model_type)
        loss = F.cross_entropy(logits, target)
        loss.backward()
        with torch.no_grad():
            input_var -= eps * input_var.grad.sign()
            input_var.grad.zero_()
    return input_var.detach(), {"prediction": prediction}


model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 2))
processed_image = torch.rand(1, 3, 20, 20)
perturbed_image, attack_meta_data = robust_fgsm(processed_image, model, "xception")
