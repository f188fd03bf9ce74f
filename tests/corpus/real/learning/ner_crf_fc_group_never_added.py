# source: https://github.com/zjunlp/HVPNeT/issues/5
# expect: silent: the param group of the crf and fc layers is built but never appended: the classifier keeps its initial weights
# buggy-line: 56
# also-line: 55
# mechanism: a param group dict is built for some parameters and never reaches the optimizer's parameter list
import torch
import torch.nn as nn
from torch import optim


class HMNeTNERModel(nn.Module):
    def __init__(self, num_labels=5):
        super().__init__()
        self.bert = nn.Sequential(nn.Embedding(50, 16), nn.Linear(16, 16))
        self.vision = nn.Linear(8, 16)
        self.fc = nn.Linear(32, num_labels)
        self.crf_transitions = nn.Parameter(torch.zeros(num_labels, num_labels))

    def forward(self, input_ids, images, labels):
        text = self.bert(input_ids)
        img = self.vision(images).unsqueeze(1).expand_as(text)
        emissions = self.fc(torch.cat([text, img], dim=-1))
        gold = emissions.gather(-1, labels.unsqueeze(-1)).sum()
        trans = self.crf_transitions[labels[:, :-1], labels[:, 1:]].sum()
        return emissions.logsumexp(-1).sum() - gold - trans


class NERTrainer:
    def __init__(self, model, lr=1e-2):
        self.model = model
        self.lr = lr
        self.before_multimodal_train()

    def before_multimodal_train(self):
        optimizer_grouped_parameters = []
        parameters = []
        params = {'lr': self.lr, 'weight_decay': 1e-2}
        params['params'] = []
        for name, param in self.model.named_parameters():
            if 'bert' in name:
                params['params'].append(param)
        parameters.append(params)

        params = {'lr': 5e-2, 'weight_decay': 1e-2}
        params['params'] = []
        for name, param in self.model.named_parameters():
            if 'vision' in name:
                params['params'].append(param)
        parameters.append(params)

        params = {'lr': 5e-2, 'weight_decay': 1e-2}
        params['params'] = []
        for name, param in self.model.named_parameters():
            if 'crf' in name or name.startswith('fc'):
                params['params'].append(param)
        self.optimizer = optim.AdamW(parameters)

    def train(self, batches):
        for input_ids, images, labels in batches:
            loss = self.model(input_ids, images, labels)
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()


model = HMNeTNERModel()
trainer = NERTrainer(model)
start = model.fc.weight.detach().clone()
batches = [(torch.randint(0, 50, (2, 6)), torch.randn(2, 8), torch.randint(0, 5, (2, 6))) for _ in range(3)]
trainer.train(batches)
assert torch.equal(start, model.fc.weight)  # the classifier never trained
