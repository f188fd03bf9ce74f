import torch.nn as nn


class GCNMultiLabelMAPEngine:
    """stands for engine__adapt.GCNMultiLabelMAPEngine: one training step per batch"""

    def __init__(self, state):
        self.state = state

    def on_forward(self, training, model, criterion, optimizer):
        feature_var = self.state['feature']
        target_var = self.state['target']
        inp_var = self.state['input']
        self.state['output'], adj, A = model(feature_var, inp_var)
        self.state['loss'] = criterion(self.state['output'], target_var)
        if training:
            optimizer.zero_grad()
            self.state['loss'].backward()
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=10.0)
            optimizer.step()

    def learning(self, model, criterion, train_loader, optimizer):
        model.train()
        for i, (feature, inp, target) in enumerate(train_loader):
            self.state['feature'], self.state['input'], self.state['target'] = feature, inp, target
            self.on_forward(True, model, criterion, optimizer)
