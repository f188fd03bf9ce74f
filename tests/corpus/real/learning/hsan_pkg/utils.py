import random

import numpy as np
import torch

from .opt import args


def setup_args(dataset_name="cora"):
    args.dataset = dataset_name
    args.acc = args.nmi = args.ari = args.f1 = 0
    return args


def setup_seed(seed):
    torch.manual_seed(seed)
    np.random.seed(seed)
    random.seed(seed)


def load_graph_data(dataset_name, show_details=False):
    """stands for the cora loader: a small random graph"""
    node_num, cluster_num = 12, 3
    X = torch.randn(node_num, 6)
    y = np.random.randint(0, cluster_num, node_num)
    A = (torch.rand(node_num, node_num) > 0.7).float()
    A = ((A + A.t()) > 0).float()
    return X, y, A, node_num, cluster_num


def laplacian_filtering(A, X, t):
    A_tmp = A + torch.eye(A.shape[0])
    D = torch.diag(A_tmp.sum(1) ** -0.5)
    L = torch.eye(A.shape[0]) - D @ A_tmp @ D
    for i in range(t):
        X = (torch.eye(A.shape[0]) - L) @ X
    return X.float()


def phi(feature, true_labels, cluster_num):
    """stands for the k-means evaluation: scores and cluster assignments"""
    center = feature[:cluster_num].detach()
    predict_labels = torch.cdist(feature.detach(), center).argmin(1)
    return 0.0, 0.0, 0.0, 0.0, predict_labels, center


def comprehensive_similarity(Z1, Z2, E1, E2, alpha):
    Z1_Z2 = torch.cat([torch.cat([Z1 @ Z1.T, Z1 @ Z2.T], dim=1),
                       torch.cat([Z2 @ Z1.T, Z2 @ Z2.T], dim=1)], dim=0)

    E1_E2 = torch.cat([torch.cat([E1 @ E1.T, E1 @ E2.T], dim=1),
                       torch.cat([E2 @ E1.T, E2 @ E2.T], dim=1)], dim=0)

    S = alpha * Z1_Z2 + (1 - alpha) * E1_E2
    return S


def hard_sample_aware_infoNCE(S, M, pos_neg_weight, pos_weight, node_num):
    pos_neg = M * torch.exp(S * pos_neg_weight)
    pos = torch.cat([torch.diag(S, node_num), torch.diag(S, -node_num)], dim=0)
    pos = torch.exp(pos * pos_weight)
    neg = (torch.sum(pos_neg, dim=1) - pos)
    infoNEC = (-torch.log(pos / (pos + neg))).sum() / (2 * node_num)
    return infoNEC


def high_confidence(Z, center):
    distance_norm = torch.min(torch.cdist(Z, center), dim=1).values
    value, _ = torch.topk(distance_norm, int(Z.shape[0] * (1 - args.tao)), largest=False)
    index = torch.where(distance_norm <= value[-1], torch.ones_like(distance_norm), torch.zeros_like(distance_norm))
    high_conf_index_v1 = torch.nonzero(index).reshape(-1, )
    high_conf_index_v2 = high_conf_index_v1 + Z.shape[0]
    H = torch.cat([high_conf_index_v1, high_conf_index_v2], dim=0)
    H_mat = np.ix_(H.cpu(), H.cpu())
    return H, H_mat


def pseudo_matrix(P, S, node_num):
    P = P.clone().detach()
    P = torch.cat([P, P], dim=0)
    Q = (P == P.unsqueeze(1)).float()
    S_norm = (S - S.min()) / (S.max() - S.min())
    M_mat = torch.abs(Q - S_norm) ** args.beta
    M = torch.cat([torch.diag(M_mat, node_num), torch.diag(M_mat, -node_num)], dim=0)
    return M, M_mat
