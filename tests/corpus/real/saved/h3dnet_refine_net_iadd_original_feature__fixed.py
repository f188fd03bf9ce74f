# source: https://github.com/zaiweizhang/H3DNet/issues/29
# expect: clean
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def decode_scores(net, end_points, num_class, num_heading_bin, num_size_cluster, mean_size_arr, mode=''):
    net_transposed = net.transpose(2, 1)  # (batch_size, num_proposal, ..)
    batch_size = net_transposed.shape[0]
    num_proposal = net_transposed.shape[1]

    objectness_scores = net_transposed[:, :, 0:2]
    end_points['objectness_scores' + mode] = objectness_scores

    center = net_transposed[:, :, 2:5]  # (batch_size, num_proposal, 3)
    end_points['center' + mode] = center

    heading_scores = net_transposed[:, :, 5:5 + num_heading_bin]
    end_points['heading_scores' + mode] = heading_scores

    size_scores = net_transposed[:, :, 5 + num_heading_bin * 2:5 + num_heading_bin * 2 + num_size_cluster]
    end_points['size_scores' + mode] = size_scores

    sem_cls_scores = net_transposed[:, :, 5 + num_heading_bin * 2 + num_size_cluster * 4:]  # Bxnum_proposalx10
    end_points['sem_cls_scores' + mode] = sem_cls_scores
    return end_points


class ProposalModuleRefine(nn.Module):
    def __init__(self, num_class, num_heading_bin, num_size_cluster, mean_size_arr, num_proposal, sampling, seed_feat_dim=256):
        super().__init__()

        self.num_class = num_class
        self.num_heading_bin = num_heading_bin
        self.num_size_cluster = num_size_cluster
        self.mean_size_arr = mean_size_arr
        self.num_proposal = num_proposal
        self.sampling = sampling
        self.seed_feat_dim = seed_feat_dim

        # stands for the vote aggregation (PointnetSAModuleVotes)
        self.vote_aggregation = nn.Conv1d(self.seed_feat_dim, 128, 1)

        # Object proposal/detection
        self.conv1 = torch.nn.Conv1d(128, 128, 1)
        self.bn1 = torch.nn.BatchNorm1d(128)

        # stands for the surface and line matching features
        self.conv_surface1 = torch.nn.Conv1d(128, 64, 1)
        self.bn_surface1 = torch.nn.BatchNorm1d(64)
        self.conv_line1 = torch.nn.Conv1d(128, 64, 1)
        self.bn_line1 = torch.nn.BatchNorm1d(64)

        self.conv_refine1 = torch.nn.Conv1d(128, 128, 1)
        self.conv_refine2 = torch.nn.Conv1d(128, 128, 1)
        self.conv_refine3 = torch.nn.Conv1d(128, 128, 1)
        self.conv_refine4 = torch.nn.Conv1d(128, 2 + 3 + num_heading_bin * 2 + num_size_cluster * 4 + self.num_class, 1)

        self.bn_refine1 = torch.nn.BatchNorm1d(128)
        self.bn_refine2 = torch.nn.BatchNorm1d(128)
        self.bn_refine3 = torch.nn.BatchNorm1d(128)

    def forward(self, xyz, features, end_points, mode=''):
        """
        Args:
            xyz: (B,K,3)
            features: (B,C,K)
        Returns:
            scores: (B,num_proposal,2+3+NH*2+NS*4)
        """
        features = self.vote_aggregation(features)[:, :, :self.num_proposal]
        original_feature = features
        end_points['aggregated_vote_xyz' + mode] = xyz[:, :self.num_proposal]
        batch_size = features.shape[0]
        object_proposal = features.shape[2]

        features = F.relu(self.bn1(self.conv1(features)))

        surface_features = F.relu(self.bn_surface1(self.conv_surface1(features)))
        line_features = F.relu(self.bn_line1(self.conv_line1(features)))

        surface_pool_feature = surface_features
        line_pool_feature = line_features

        combine_feature = torch.cat((surface_pool_feature, line_pool_feature), dim=1)

        net = F.relu(self.bn_refine1(self.conv_refine1(combine_feature)))
        net = net + original_feature  ### Residual feature
        net = F.relu(self.bn_refine2(self.conv_refine2(net)))
        net = F.relu(self.bn_refine3(self.conv_refine3(net)))
        net = self.conv_refine4(net)  # (batch_size, 2+3+num_heading_bin*2+num_size_cluster*4, num_proposal)

        end_points = decode_scores(net, end_points, self.num_class, self.num_heading_bin, self.num_size_cluster, self.mean_size_arr, mode='opt')
        return end_points


if __name__ == '__main__':
    mean_size_arr = np.ones((10, 3), dtype=np.float32)
    net = ProposalModuleRefine(10, 12, 10, mean_size_arr, 16, 'seed_fps')
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    end_points = {'seed_xyz': torch.rand(2, 64, 3)}
    out = net(torch.rand(2, 64, 3), torch.rand(2, 256, 64), end_points)
    loss = out['objectness_scoresopt'].pow(2).mean() + out['centeropt'].abs().mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    for key in out:
        print(key, out[key].shape)
