# source: https://github.com/yueliu1999/HSAN/issues/6
# expect: clean
import copy

import numpy as np
import torch
from torch import optim

from hsan_pkg.utils import *
from hsan_pkg.utils import setup_args
from hsan_pkg.model import hard_sample_aware_network


if __name__ == '__main__':

    # for dataset_name in ["cora", "citeseer", "amap", "bat", "eat", "uat"]:
    for dataset_name in ["cora"]:

        # setup hyper-parameter
        args = setup_args(dataset_name)

        # ten runs with different random seeds
        for args.seed in range(args.runs):
            # fix the random seed
            setup_seed(args.seed)

            # load graph data
            X, y, A, node_num, cluster_num = load_graph_data(dataset_name, show_details=False)

            # apply the laplacian filtering
            X_filtered = laplacian_filtering(A, X, args.t)

            # test
            args.acc, args.nmi, args.ari, args.f1, y_hat, center = phi(X_filtered, y, cluster_num)

            # build our hard sample aware network
            HSAN = hard_sample_aware_network(
                input_dim=X.shape[1], hidden_dim=args.dims, act=args.activate, n_num=node_num)
            init = copy.deepcopy(HSAN.state_dict())

            # adam optimizer
            optimizer = optim.Adam(HSAN.parameters(), lr=args.lr)

            # positive and negative sample pair index matrix
            mask = torch.ones([node_num * 2, node_num * 2]) - torch.eye(node_num * 2)

            # load data to device
            A, HSAN, X_filtered, mask = map(lambda x: x.to(args.device), (A, HSAN, X_filtered, mask))

            # training
            for epoch in range(3):
                # train mode
                HSAN.train()

                # encoding with Eq. (3)-(5)
                Z1, Z2, E1, E2 = HSAN(X_filtered, A)

                # calculate comprehensive similarity by Eq. (6)
                S = comprehensive_similarity(Z1, Z2, E1, E2, HSAN.alpha)

                # calculate hard sample aware contrastive loss by Eq. (10)-(11)
                loss = hard_sample_aware_infoNCE(S, mask, HSAN.pos_neg_weight, HSAN.pos_weight, node_num)

                # optimization
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

                # testing and update weights of sample pairs
                if epoch % 10 == 0:
                    # evaluation mode
                    HSAN.eval()

                    # encoding
                    Z1, Z2, E1, E2 = HSAN(X_filtered, A)

                    # calculate comprehensive similarity by Eq. (6)
                    S = comprehensive_similarity(Z1, Z2, E1, E2, HSAN.alpha)

                    # fusion and testing
                    Z = (Z1 + Z2) / 2
                    acc, nmi, ari, f1, P, center = phi(Z, y, cluster_num)

                    # select high confidence samples
                    H, H_mat = high_confidence(Z, center)

                    # calculate new weight of sample pair by Eq. (9)
                    M, M_mat = pseudo_matrix(P, S, node_num)

                    # update weight
                    HSAN.pos_weight[H] = M[H].data
                    HSAN.pos_neg_weight[H_mat] = M_mat[H_mat].data

            print("Training complete")

            # the same epochs with the gradients cleared before each step
            reference = hard_sample_aware_network(
                input_dim=X.shape[1], hidden_dim=args.dims, act=args.activate, n_num=node_num)
            reference.load_state_dict(init)
            ref_opt = optim.Adam(reference.parameters(), lr=args.lr)
            for epoch in range(3):
                ref_opt.zero_grad()
                Z1, Z2, E1, E2 = reference(X_filtered, A)
                S = comprehensive_similarity(Z1, Z2, E1, E2, reference.alpha)
                hard_sample_aware_infoNCE(S, mask, reference.pos_neg_weight, reference.pos_weight, node_num).backward()
                ref_opt.step()
                if epoch == 0:
                    reference.pos_weight = HSAN.pos_weight.clone()
                    reference.pos_neg_weight = HSAN.pos_neg_weight.clone()
            assert torch.allclose(HSAN.AE1.weight, reference.AE1.weight)
