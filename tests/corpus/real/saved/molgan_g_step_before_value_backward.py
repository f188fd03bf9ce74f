# source: https://github.com/kfzyqin/Implementation-MolGAN-PyTorch/issues/3
# expect: one of the variables needed for gradient computation has been modified by an inplace operation
# buggy-line: 201
# also-line: 197
# mechanism: g_optimizer.step() edits the generator's weights between train_step_G.backward(retain_graph=True) and train_step_V.backward(), whose value loss also goes through the generated graph (value_logit_fake of edges_hat, nodes_hat)
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiDenseLayer(nn.Module):
    def __init__(self, aux_unit, linear_units, activation=None, dropout_rate=0.):
        super(MultiDenseLayer, self).__init__()
        layers = []
        for c0, c1 in zip([aux_unit] + linear_units[:-1], linear_units):
            layers.append(nn.Linear(c0, c1))
            layers.append(nn.Dropout(dropout_rate))
            if activation is not None:
                layers.append(activation)
        self.linear_layer = nn.Sequential(*layers)

    def forward(self, inputs):
        h = self.linear_layer(inputs)
        return h


class Generator(nn.Module):
    """Generator network."""

    def __init__(self, conv_dims, z_dim, vertexes, edges, nodes, dropout_rate):
        super(Generator, self).__init__()
        self.activation_f = torch.nn.Tanh()
        self.multi_dense_layer = MultiDenseLayer(z_dim, conv_dims, self.activation_f)

        self.vertexes = vertexes
        self.edges = edges
        self.nodes = nodes

        self.edges_layer = nn.Linear(conv_dims[-1], edges * vertexes * vertexes)
        self.nodes_layer = nn.Linear(conv_dims[-1], vertexes * nodes)
        self.dropoout = nn.Dropout(p=dropout_rate)

    def forward(self, x):
        output = self.multi_dense_layer(x)
        edges_logits = self.edges_layer(output).view(-1, self.edges, self.vertexes, self.vertexes)
        edges_logits = (edges_logits + edges_logits.permute(0, 1, 3, 2)) / 2
        edges_logits = self.dropoout(edges_logits.permute(0, 2, 3, 1))
        nodes_logits = self.nodes_layer(output)
        nodes_logits = self.dropoout(nodes_logits.view(-1, self.vertexes, self.nodes))
        return edges_logits, nodes_logits


class Discriminator(nn.Module):
    """stands for the graph convolution discriminator (and value network) of models_gan.py"""

    def __init__(self, vertexes, edges, nodes, dim=16):
        super(Discriminator, self).__init__()
        self.linear = nn.Linear(vertexes * vertexes * edges + vertexes * nodes, dim)
        self.output_layer = nn.Linear(dim, 1)

    def forward(self, adj, hidden, node, activation=None):
        h = torch.cat([adj.flatten(1), node.flatten(1)], dim=1)
        h = torch.tanh(self.linear(h))
        output = self.output_layer(h)
        output = activation(output) if activation is not None else output
        return output, h


class Solver(object):
    """Solver for training and testing MolGAN."""

    def __init__(self, config):
        self.z_dim = config['z_dim']
        self.m_dim = config['m_dim']
        self.b_dim = config['b_dim']
        self.vertexes = config['vertexes']
        self.n_critic = config['n_critic']
        self.la = config['lambda_wgan']
        self.post_method = config['post_method']
        self.batch_size = config['batch_size']
        self.device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
        self.build_model(config)

    def build_model(self, config):
        """Create a generator, a discriminator and a v net."""
        self.G = Generator(config['g_conv_dim'], self.z_dim, self.vertexes, self.b_dim, self.m_dim, config['dropout'])
        self.D = Discriminator(self.vertexes, self.b_dim, self.m_dim)
        self.V = Discriminator(self.vertexes, self.b_dim, self.m_dim)
        self.g_optimizer = torch.optim.RMSprop(self.G.parameters(), config['g_lr'])
        self.d_optimizer = torch.optim.RMSprop(self.D.parameters(), config['d_lr'])
        self.v_optimizer = torch.optim.RMSprop(self.V.parameters(), config['g_lr'])

    def reset_grad(self):
        """Reset the gradient buffers."""
        self.g_optimizer.zero_grad()
        self.d_optimizer.zero_grad()
        self.v_optimizer.zero_grad()

    def sample_z(self, batch_size):
        return np.random.normal(0, 1, size=(batch_size, self.z_dim))

    @staticmethod
    def postprocess(inputs, method, temperature=1.0):
        def listify(x):
            return x if type(x) == list or type(x) == tuple else [x]

        def delistify(x):
            return x if len(x) > 1 else x[0]

        if method == 'soft_gumbel':
            softmax = [F.gumbel_softmax(e_logits.contiguous().view(-1, e_logits.size(-1)) / temperature, hard=False).view(e_logits.size()) for e_logits in listify(inputs)]
        else:
            softmax = [F.softmax(e_logits / temperature, -1) for e_logits in listify(inputs)]
        return [delistify(e) for e in (softmax)]

    def reward(self, mols):
        """stands for the RDKit metrics of the real molecules"""
        return np.random.rand(len(mols), 1).astype(np.float32)

    def get_reward(self, n_hat, e_hat, method):
        """stands for decoding the generated graphs to molecules and scoring them with RDKit"""
        return torch.from_numpy(np.random.rand(n_hat.size(0), 1).astype(np.float32)).to(self.device)

    def train_or_valid(self, epoch_i, train_val_test='val'):
        losses = {'l_G': [], 'l_RL': [], 'l_V': []}
        the_step = 2
        for a_step in range(the_step):
            cur_la = self.la
            cur_step = a_step
            # stands for self.data.next_train_batch(self.batch_size): adjacency and atom types
            mols = [None] * self.batch_size
            a = torch.randint(0, self.b_dim, (self.batch_size, self.vertexes, self.vertexes))
            x = torch.randint(0, self.m_dim, (self.batch_size, self.vertexes))
            z = self.sample_z(self.batch_size)
            a_tensor = F.one_hot(a, self.b_dim).float()
            x_tensor = F.one_hot(x, self.m_dim).float()
            z = torch.from_numpy(z).to(self.device).float()

            # Compute losses with real inputs.
            logits_real, features_real = self.D(a_tensor, None, x_tensor)

            # Z-to-target
            edges_logits, nodes_logits = self.G(z)
            # Postprocess with Gumbel softmax
            (edges_hat, nodes_hat) = self.postprocess((edges_logits, nodes_logits), self.post_method)
            logits_fake, features_fake = self.D(edges_hat, None, nodes_hat)

            d_loss_real = torch.mean(logits_real)
            d_loss_fake = torch.mean(logits_fake)
            loss_D = -d_loss_real + d_loss_fake

            # Optimise discriminator.
            if train_val_test == 'train' and cur_step % self.n_critic != 0 and cur_la > 0:
                self.reset_grad()
                loss_D.backward()
                self.d_optimizer.step()

            # Z-to-target
            edges_logits, nodes_logits = self.G(z)
            # Postprocess with Gumbel softmax
            (edges_hat, nodes_hat) = self.postprocess((edges_logits, nodes_logits), self.post_method)
            logits_fake, features_fake = self.D(edges_hat, None, nodes_hat)

            # Value losses
            value_logit_real, _ = self.V(a_tensor, None, x_tensor, torch.sigmoid)
            value_logit_fake, _ = self.V(edges_hat, None, nodes_hat, torch.sigmoid)

            # Real Reward
            reward_r = torch.from_numpy(self.reward(mols)).to(self.device)
            # Fake Reward
            reward_f = self.get_reward(nodes_hat, edges_hat, self.post_method)

            # Losses Update
            loss_G = -logits_fake
            loss_V = torch.abs(value_logit_real - reward_r) + torch.abs(value_logit_fake - reward_f)
            loss_RL = -value_logit_fake

            loss_G = torch.mean(loss_G)
            loss_V = torch.mean(loss_V)
            loss_RL = torch.mean(loss_RL)
            losses['l_G'].append(loss_G.item())
            losses['l_RL'].append(loss_RL.item())
            losses['l_V'].append(loss_V.item())

            alpha = torch.abs(loss_G.detach() / loss_RL.detach()).detach()
            train_step_G = cur_la * loss_G + (1 - cur_la) * alpha * loss_RL

            train_step_V = loss_V

            if train_val_test == 'train':
                self.reset_grad()

                # Optimise generator.
                if cur_step % self.n_critic == 0:
                    train_step_G.backward(retain_graph=True)
                    self.g_optimizer.step()

                # Optimise value network.
                if cur_step % self.n_critic == 0:
                    train_step_V.backward()
                    self.v_optimizer.step()


config = {'z_dim': 8, 'm_dim': 5, 'b_dim': 4, 'vertexes': 9, 'g_conv_dim': [32, 64], 'dropout': 0.0, 'n_critic': 2,
          'lambda_wgan': 0.5, 'post_method': 'softmax', 'batch_size': 4, 'g_lr': 1e-3, 'd_lr': 1e-3}
solver = Solver(config)
solver.train_or_valid(epoch_i=0, train_val_test='train')
