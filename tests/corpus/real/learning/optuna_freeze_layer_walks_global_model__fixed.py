# source: https://github.com/optuna/optuna/issues/3855
# expect: clean
import torch
import torch.nn as nn
import torch.optim as optim


def make_resnet(num_classes=1000):
    """stands for torchvision.models.resnet18(weights="DEFAULT"): a stem, layer1..layer4 and fc"""
    model = nn.Sequential()
    model.add_module('conv1', nn.Conv2d(3, 8, 3, padding=1))
    model.add_module('relu', nn.ReLU())
    for i in range(1, 5):
        model.add_module('layer%d' % i, nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU()))
    model.add_module('avgpool', nn.AdaptiveAvgPool2d(1))
    model.add_module('flatten', nn.Flatten())
    model.add_module('fc', nn.Linear(8, num_classes))
    return model


# an earlier cell of the notebook
model_ft = make_resnet()
num_ftrs = model_ft.fc.in_features
model_ft.fc = nn.Linear(num_ftrs, 10)


def freeze_layer(model, layer_instance, layer_name, layer_numbers, freeze=True):
    for name, layer in model.named_modules():
        for layer_number in layer_numbers:
            layer_id = '%s%d' % (layer_name, layer_number)
            if isinstance(layer, layer_instance):
                if name.startswith(layer_id):
                    for param in layer.parameters():
                        param.requires_grad_(not freeze)

    return model


def objective(layers2freeze):

    # Generate the model.
    base_model = make_resnet()
    num_ftrs = base_model.fc.in_features
    base_model.fc = nn.Linear(num_ftrs, 10)

    map_layers2freeze = dict(A=[4], B=[4, 3], C=[4, 3, 2], D=[4, 3, 2, 1])
    layersF = map_layers2freeze[layers2freeze]

    model = freeze_layer(base_model, torch.nn.Conv2d, 'layer', layersF, True)

    for name, param in model.named_parameters():
        print('Name: ', name, 'Requires_Grad:', param.requires_grad)

    optimizer = optim.SGD(model.parameters(), lr=0.1)
    before = model.layer4[0].weight.detach().clone()
    x, y = torch.randn(4, 3, 8, 8), torch.randint(0, 10, (4,))
    loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return model, before


model, before = objective('A')
# layer4 is frozen and keeps its weights
assert not model.layer4[0].weight.requires_grad
assert torch.equal(before, model.layer4[0].weight)
