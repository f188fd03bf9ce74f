import torch


def gen_adj_new(A):
    D = torch.pow(A.sum(1).float(), -0.5)
    D = torch.diag(D)
    adj = torch.matmul(D, torch.matmul(A, D))
    return adj
