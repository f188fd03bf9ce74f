# source: https://github.com/mikeizbicki/cmc-csci181-deeplearning/issues/7
# expect: optimizer got an empty parameter list
# buggy-line: 16
# also-line: 36
import argparse

import torch
import torch.nn as nn

vocabulary = "abcdefghijklmnopqrstuvwxyz"
all_categories = ["English", "Spanish", "German"]
args = argparse.Namespace(hidden_layer_size=8, num_layers=2, input_length=6, batch_size=2, learning_rate=0.1, momentum=0.9, weight_decay=0.0)


class CNNModel(nn.Module):
    def _init_(self):
        super(CNNModel, self)._init_()
        self.relu = nn.RELU()
        self.cnn = nn.Conv1d(len(vocabulary), args.hidden_layer_size, 3, padding=1)
        self.cnns = (args.num_layers - 1) * [nn.Conv1d(args.hidden_layer_size, args.hidden_layer_size, 3, padding=1)]
        self.fc = nn.Linear(args.hidden_layer_size * args.input_length, len(all_categories))

    def forward(self, x):
        out = torch.einsum("lbv->bvl", x)
        out = self.cnn(out)
        out = self.relu(out)
        for cnn in self.cnns:
            out = cnn(out)
            out = self.relu(out)
        out = out.view(args.batch_size, args.hidden_layer_size * args.input_length)
        out = self.fc(out)
        return out


model = CNNModel()
optimizer = torch.optim.SGD(
    model.parameters(),
    lr=args.learning_rate,
    momentum=args.momentum,
    weight_decay=args.weight_decay,
)
x = torch.zeros(args.input_length, args.batch_size, len(vocabulary))
loss = nn.CrossEntropyLoss()(model(x), torch.tensor([0, 1]))
loss.backward()
optimizer.step()
