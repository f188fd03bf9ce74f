# source: https://github.com/thuml/Anomaly-Transformer/issues/1
# expect: clean
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def my_kl_loss(p, q):
    res = p * (torch.log(p + 0.0001) - torch.log(q + 0.0001))
    return torch.mean(torch.sum(res, dim=-1), dim=1)


class AnomalyAttention(nn.Module):
    def __init__(self, win_size, d_model, n_heads):
        super(AnomalyAttention, self).__init__()
        self.n_heads = n_heads
        self.query_projection = nn.Linear(d_model, d_model)
        self.key_projection = nn.Linear(d_model, d_model)
        self.value_projection = nn.Linear(d_model, d_model)
        self.sigma_projection = nn.Linear(d_model, n_heads)
        self.out_projection = nn.Linear(d_model, d_model)
        self.distances = torch.abs(torch.arange(win_size)[:, None] - torch.arange(win_size)[None, :]).float()

    def forward(self, x):
        B, L, _ = x.shape
        H = self.n_heads
        queries = self.query_projection(x).view(B, L, H, -1)
        keys = self.key_projection(x).view(B, L, H, -1)
        values = self.value_projection(x).view(B, L, H, -1)
        sigma = self.sigma_projection(x).view(B, L, H).transpose(1, 2)  # B H L

        scale = 1. / math.sqrt(queries.shape[-1])
        scores = torch.einsum("blhe,bshe->bhls", queries, keys)
        series = torch.softmax(scale * scores, dim=-1)

        sigma = torch.sigmoid(sigma * 5) + 1e-5
        sigma = torch.pow(3, sigma) - 1
        sigma = sigma.unsqueeze(-1).repeat(1, 1, 1, L)  # B H L L
        prior = 1.0 / (math.sqrt(2 * math.pi) * sigma) * torch.exp(-self.distances ** 2 / 2 / (sigma ** 2))

        out = torch.einsum("bhls,bshd->blhd", series, values).reshape(B, L, -1)
        return self.out_projection(out), series, prior, sigma


class AnomalyTransformer(nn.Module):
    def __init__(self, win_size, enc_in, c_out, d_model=16, n_heads=2, e_layers=2):
        super(AnomalyTransformer, self).__init__()
        self.embedding = nn.Linear(enc_in, d_model)
        self.attn_layers = nn.ModuleList([AnomalyAttention(win_size, d_model, n_heads) for _ in range(e_layers)])
        self.norm = nn.LayerNorm(d_model)
        self.projection = nn.Linear(d_model, c_out, bias=True)

    def forward(self, x):
        enc_out = self.embedding(x)
        series_list, prior_list, sigma_list = [], [], []
        for attn_layer in self.attn_layers:
            new_x, series, prior, sigma = attn_layer(enc_out)
            enc_out = self.norm(enc_out + new_x)
            series_list.append(series)
            prior_list.append(prior)
            sigma_list.append(sigma)
        enc_out = self.projection(enc_out)
        return enc_out, series_list, prior_list, sigma_list


class Solver(object):
    DEFAULTS = {}

    def __init__(self, config):

        self.__dict__.update(Solver.DEFAULTS, **config)

        # stands for get_loader_segment(..., mode='train') over the SMD windows
        self.train_loader = [(torch.randn(self.batch_size, self.win_size, self.input_c), torch.zeros(self.batch_size, self.win_size)) for _ in range(2)]

        self.build_model()
        self.device = torch.device("cpu")
        self.criterion = nn.MSELoss()

    def build_model(self):
        self.model = AnomalyTransformer(win_size=self.win_size, enc_in=self.input_c, c_out=self.output_c, e_layers=3)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=self.lr)

    def train(self):

        print("======================TRAIN MODE======================")

        time_now = time.time()
        train_steps = len(self.train_loader)

        for epoch in range(self.num_epochs):
            iter_count = 0
            loss1_list = []

            epoch_time = time.time()
            self.model.train()
            for i, (input_data, labels) in enumerate(self.train_loader):

                self.optimizer.zero_grad()
                iter_count += 1
                input = input_data.float().to(self.device)

                output, series, prior, _ = self.model(input)

                # calculate Association discrepancy
                series_loss = 0.0
                prior_loss = 0.0
                for u in range(len(prior)):
                    series_loss += (torch.mean(my_kl_loss(series[u], (
                        prior[u] / torch.unsqueeze(torch.sum(prior[u], dim=-1), dim=-1).repeat(1, 1, 1, self.win_size)).detach())) + torch.mean(
                        my_kl_loss((prior[u] / torch.unsqueeze(torch.sum(prior[u], dim=-1), dim=-1).repeat(1, 1, 1, self.win_size)).detach(),
                                   series[u])))
                    prior_loss += (torch.mean(my_kl_loss(
                        (prior[u] / torch.unsqueeze(torch.sum(prior[u], dim=-1), dim=-1).repeat(1, 1, 1, self.win_size)),
                        series[u].detach())) + torch.mean(
                        my_kl_loss(series[u].detach(), (
                            prior[u] / torch.unsqueeze(torch.sum(prior[u], dim=-1), dim=-1).repeat(1, 1, 1, self.win_size)))))
                series_loss = series_loss / len(prior)
                prior_loss = prior_loss / len(prior)

                rec_loss = self.criterion(output, input)

                loss1_list.append((rec_loss - self.k * series_loss).item())
                loss1 = rec_loss - self.k * series_loss
                loss2 = rec_loss + self.k * prior_loss

                # Minimax strategy
                loss1.backward(retain_graph=True)
                loss2.backward()
                self.optimizer.step()

            print("Epoch: {} cost time: {}".format(epoch + 1, time.time() - epoch_time))
            train_loss = np.average(loss1_list)
            print("Epoch: {0}, Steps: {1} | Train Loss: {2:.7f}".format(epoch + 1, train_steps, train_loss))


config = dict(lr=1e-4, num_epochs=1, k=3, win_size=10, input_c=6, output_c=6, batch_size=4, mode='train', dataset='SMD')
solver = Solver(config)
solver.train()
