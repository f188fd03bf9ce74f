# source: https://github.com/dasguptar/treelstm.pytorch/pull/26
# expect: clean
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser(description="PyTorch TreeLSTM for Sentence Similarity")
parser.add_argument("--input_dim", default=6, type=int)
parser.add_argument("--mem_dim", default=5, type=int)
parser.add_argument("--freeze_embed", action="store_true")
args = parser.parse_args([])


class ChildSumTreeLSTM(nn.Module):
    def __init__(self, in_dim, mem_dim):
        super().__init__()
        self.ioux = nn.Linear(in_dim, 3 * mem_dim)
        self.fx = nn.Linear(in_dim, mem_dim)

    def forward(self, inputs):
        i, o, u = torch.split(self.ioux(inputs), self.ioux.out_features // 3, dim=1)
        c = torch.sigmoid(i) * torch.tanh(u) + torch.sigmoid(self.fx(inputs))
        return torch.sigmoid(o) * torch.tanh(c)


class SimilarityTreeLSTM(nn.Module):
    def __init__(self, vocab_size, in_dim, mem_dim, sparsity, freeze, emb):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, in_dim, padding_idx=0, sparse=sparsity)
        if freeze:
            self.emb.weight.requires_grad = False
        self.childsumtreelstm = ChildSumTreeLSTM(in_dim, mem_dim)
        self.similarity = nn.Linear(2 * mem_dim, 5)

    def forward(self, linputs, rinputs):
        lstate = self.childsumtreelstm(self.emb(linputs)).mean(0, keepdim=True)
        rstate = self.childsumtreelstm(self.emb(rinputs)).mean(0, keepdim=True)
        return F.log_softmax(self.similarity(torch.cat([lstate * rstate, (lstate - rstate).abs()], 1)), dim=1)


vocab_size = 12
emb = torch.zeros(vocab_size, args.input_dim).normal_(0, 0.05)
model = SimilarityTreeLSTM(vocab_size, args.input_dim, args.mem_dim, False, args.freeze_embed, emb)
model.emb.weight.data.copy_(emb)
out = model(torch.tensor([1, 4, 5]), torch.tensor([2, 3]))
