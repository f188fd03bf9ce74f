# source: https://github.com/Trusted-AI/adversarial-robustness-toolbox/pull/1580
# expect: silent: the cloned classifier is fitted with the original's optimizer: its own model never changes
# buggy-line: 37
# mechanism: clone_for_refitting builds a new model but hands it the optimizer built over the original model's parameters; fit() steps those
import copy

import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class PyTorchClassifier:
    def __init__(self, model, loss, optimizer, nb_classes):
        self._model = model
        self._loss = loss
        self._optimizer = optimizer
        self.nb_classes = nb_classes

    def fit(self, x, y, batch_size=4, nb_epochs=2):
        self._model.train()
        for _ in range(nb_epochs):
            for m in range(0, len(x), batch_size):
                i_batch, o_batch = x[m : m + batch_size], y[m : m + batch_size]
                self._optimizer.zero_grad()
                model_outputs = self._model(i_batch)
                loss = self._loss(model_outputs, o_batch)
                loss.backward()
                self._optimizer.step()

    def clone_for_refitting(self):
        model = Net()
        clone = type(self)(model=model, loss=self._loss, optimizer=self._optimizer, nb_classes=self.nb_classes)
        return clone


model = Net()
classifier = PyTorchClassifier(model, nn.CrossEntropyLoss(), torch.optim.Adam(model.parameters(), lr=0.01), 3)
x, y = torch.randn(8, 6), torch.randint(0, 3, (8,))
clone = classifier.clone_for_refitting()
start = copy.deepcopy(clone._model.state_dict())
clone.fit(x, y)
assert torch.equal(start["fc2.weight"], clone._model.fc2.weight)  # the clone never trained
