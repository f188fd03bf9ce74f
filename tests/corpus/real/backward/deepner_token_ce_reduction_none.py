# source: https://github.com/z814081807/DeepNER/issues/19
# expect: grad can be implicitly created only for scalar outputs
# buggy-line: 52
# also-line: 22
# mechanism: the model's criterion is CrossEntropyLoss(reduction='none'): its loss is one value per token, and train() calls loss.backward() on it
import torch
import torch.nn as nn


class CRFModel(nn.Module):
    pass


class SpanModel(nn.Module):
    def __init__(self, vocab_size=30, mid_linear_dims=16, num_tags=5, loss_type='ce'):
        super(SpanModel, self).__init__()
        self.embed = nn.Embedding(vocab_size, mid_linear_dims)
        self.start_fc = nn.Linear(mid_linear_dims, num_tags)
        self.end_fc = nn.Linear(mid_linear_dims, num_tags)
        reduction = 'none'
        if loss_type == 'ce':
            self.criterion = nn.CrossEntropyLoss(reduction=reduction)
        self.num_tags = num_tags

    def forward(self, token_ids, attention_masks, start_ids=None, end_ids=None):
        seq_out = self.embed(token_ids)
        start_logits = self.start_fc(seq_out)
        end_logits = self.end_fc(seq_out)
        out = (start_logits, end_logits,)
        if start_ids is not None and end_ids is not None:
            start_logits = start_logits.view(-1, self.num_tags)
            end_logits = end_logits.view(-1, self.num_tags)
            active_loss = attention_masks.view(-1) == 1
            active_start_logits = start_logits[active_loss]
            active_end_logits = end_logits[active_loss]
            active_start_labels = start_ids.view(-1)[active_loss]
            active_end_labels = end_ids.view(-1)[active_loss]
            start_loss = self.criterion(active_start_logits, active_start_labels)
            end_loss = self.criterion(active_end_logits, active_end_labels)
            loss = start_loss + end_loss
            out = (loss,) + out
        return out


def train(opt, model, train_loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=opt['lr'])
    model.train()
    for epoch in range(opt['train_epochs']):
        for step, batch_data in enumerate(train_loader):
            loss = model(**batch_data)[0]
            model.zero_grad()
            loss.backward()
            optimizer.step()


loader = [dict(token_ids=torch.randint(0, 30, (2, 7)), attention_masks=torch.ones(2, 7, dtype=torch.long),
               start_ids=torch.randint(0, 5, (2, 7)), end_ids=torch.randint(0, 5, (2, 7)))]
train({'lr': 2e-5, 'train_epochs': 1}, SpanModel(), loader)
