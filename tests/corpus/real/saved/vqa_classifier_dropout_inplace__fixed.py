# source: https://github.com/BierOne/bottom-up-attention-vqa/issues/6
# expect: clean
import torch
import torch.nn as nn
from torch.nn.utils import weight_norm


class SimpleClassifier(nn.Module):
    def __init__(self, in_dim, hid_dim, out_dim, dropout):
        super().__init__()
        layers = [
            weight_norm(nn.Linear(in_dim, hid_dim), dim=None),
            nn.ReLU(),
            nn.Dropout(dropout, inplace=False),
            weight_norm(nn.Linear(hid_dim, out_dim), dim=None),
        ]
        self.main = nn.Sequential(*layers)

    def forward(self, x):
        return self.main(x)


class BaseModel(nn.Module):
    def __init__(self, num_hid=8, num_ans=5):
        super().__init__()
        self.v_proj = nn.Linear(6, num_hid)
        self.q_emb = nn.Embedding(20, num_hid)
        self.classifier = SimpleClassifier(num_hid, 2 * num_hid, num_ans, 0.5)

    def forward(self, v, q):
        joint_repr = self.v_proj(v).mean(1) * self.q_emb(q).mean(1)
        return self.classifier(joint_repr)


def instance_bce_with_logits(logits, labels):
    loss = nn.functional.binary_cross_entropy_with_logits(logits, labels)
    return loss * labels.size(1)


model = BaseModel()
optim = torch.optim.Adamax(model.parameters())
v, q, a = torch.randn(2, 3, 6), torch.randint(0, 20, (2, 4)), torch.rand(2, 5)
pred = model(v, q)
loss = instance_bce_with_logits(pred, a)
loss.backward()
optim.step()
