# source: https://github.com/Hunter-DDM/knowledge-neurons/issues/14
# expect: clean
import torch
import torch.nn as nn


class Output(nn.Module):
    def __init__(self, inter, hidden):
        super().__init__()
        self.dense = nn.Linear(inter, hidden)


class Layer(nn.Module):
    def __init__(self, hidden, inter):
        super().__init__()
        self.intermediate = nn.Linear(hidden, inter)
        self.output = Output(inter, hidden)


class Encoder(nn.Module):
    def __init__(self, n_layers, hidden, inter):
        super().__init__()
        self.layer = nn.ModuleList([Layer(hidden, inter) for _ in range(n_layers)])


class Bert(nn.Module):
    def __init__(self):
        super().__init__()
        self.word_embeddings = nn.Embedding(30, 8)
        self.encoder = Encoder(2, 8, 16)


class BertForMaskedLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.bert = Bert()


model = BertForMaskedLM()
kn_bag = [[0, 3], [1, 7]]
ori_pred_emb = model.bert.word_embeddings.weight[5]
tgt_emb = model.bert.word_embeddings.weight[9]
lambda_list_1 = [1.0, 1.0]
lambda_list_2 = [8.0, 8.0]

with torch.no_grad():
    for i, (layer, pos) in enumerate(kn_bag):
        model.bert.encoder.layer[layer].output.dense.weight[:, pos] -= ori_pred_emb * lambda_list_1[i]
        model.bert.encoder.layer[layer].output.dense.weight[:, pos] += tgt_emb * lambda_list_2[i]
