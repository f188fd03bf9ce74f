# source: https://github.com/xiaxin1998/DHCN/issues/8
# expect: Can't call numpy() on Tensor that requires grad
# buggy-line: 55
import datetime
import math

import numpy as np
import torch
from torch import nn
from torch.nn import Module


class coo_matrix:
    """scipy.sparse.coo_matrix's fields, for a dense numpy array"""

    def __init__(self, dense):
        self.row, self.col = np.nonzero(dense)
        self.data = dense[self.row, self.col]
        self.shape = dense.shape


def trans_to_cuda(variable):
    if torch.cuda.is_available():
        return variable.cuda()
    else:
        return variable


class HyperConv(Module):
    def __init__(self, layers, dataset, emb_size=100):
        super(HyperConv, self).__init__()
        self.emb_size = emb_size
        self.layers = layers
        self.dataset = dataset

    def forward(self, adjacency, embedding):
        values = adjacency.data
        indices = np.vstack((adjacency.row, adjacency.col))
        if self.dataset == "Nowplaying":
            index_fliter = (values < 0.05).nonzero()
            values = np.delete(values, index_fliter)
            indices1 = np.delete(indices[0], index_fliter)
            indices2 = np.delete(indices[1], index_fliter)
            indices = [indices1, indices2]
        i = torch.LongTensor(indices)
        v = torch.FloatTensor(values)
        shape = adjacency.shape
        adjacency = torch.sparse_coo_tensor(i, v, torch.Size(shape))
        item_embeddings = embedding
        item_embedding_layer0 = item_embeddings
        final = [item_embedding_layer0]
        for i in range(self.layers):
            item_embeddings = torch.sparse.mm(trans_to_cuda(adjacency), item_embeddings)
            final.append(item_embeddings)
        item_embeddings = np.sum(final, 0)
        return item_embeddings


class DHCN(Module):
    def __init__(self, adjacency, n_node, lr, layers, l2, beta, dataset, emb_size=100, batch_size=100):
        super(DHCN, self).__init__()
        self.emb_size = emb_size
        self.batch_size = batch_size
        self.n_node = n_node
        self.L2 = l2
        self.lr = lr
        self.layers = layers
        self.beta = beta
        self.adjacency = adjacency
        self.embedding = nn.Embedding(self.n_node, self.emb_size)
        self.HyperGraph = HyperConv(self.layers, dataset)
        self.w_1 = nn.Parameter(torch.Tensor(self.emb_size, self.emb_size))
        self.loss_function = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.Adam(self.parameters(), lr=self.lr)
        self.init_parameters()

    def init_parameters(self):
        stdv = 1.0 / math.sqrt(self.emb_size)
        for weight in self.parameters():
            weight.data.uniform_(-stdv, stdv)

    def forward(self, session_item, session_len):
        item_embeddings_hg = self.HyperGraph(self.adjacency, self.embedding.weight)
        zeros = torch.zeros(1, self.emb_size)
        item_embedding = torch.cat([zeros, item_embeddings_hg], 0)
        seq_h = item_embedding[session_item]
        sess_emb_hgnn = torch.matmul(torch.div(torch.sum(seq_h, 1), session_len), self.w_1)
        return item_embeddings_hg, sess_emb_hgnn


def forward(model, i, data):
    tar, session_len, session_item = data[i]
    session_item = trans_to_cuda(torch.Tensor(session_item).long())
    session_len = trans_to_cuda(torch.Tensor(session_len).float())
    tar = trans_to_cuda(torch.Tensor(tar).long())
    item_emb_hg, sess_emb_hgnn = model(session_item, session_len)
    scores = torch.mm(sess_emb_hgnn, torch.transpose(item_emb_hg, 1, 0))
    return tar, scores


def train_test(model, train_data):
    print("start training: ", datetime.datetime.now())
    total_loss = 0.0
    for i in range(len(train_data)):
        model.zero_grad()
        targets, scores = forward(model, i, train_data)
        loss = model.loss_function(scores + 1e-8, targets)
        loss.backward()
        model.optimizer.step()
        total_loss += loss.item()
    return total_loss


n_node = 6
adjacency = coo_matrix(np.ones((n_node, n_node)) / n_node)
model = trans_to_cuda(DHCN(adjacency=adjacency, n_node=n_node, lr=0.001, l2=1e-5, beta=0.01, layers=2, dataset="diginetica", emb_size=8, batch_size=2))
train_data = [([1, 2], [[2], [3]], [[1, 2, 0], [3, 4, 5]]) for _ in range(2)]
train_test(model, train_data)
