# source: https://github.com/chojw/genb/issues/6
# expect: one of the variables needed for gradient computation has been modified by an inplace operation
# buggy-line: 119
# also-line: 114
# mechanism: optim_G.step() edits the bias generator's weights after g_loss.backward(retain_graph=True); the discriminator loss is then built on vae_preds = discriminator(pred_g), computed before the step, and dsc_loss.backward() needs the generator's old weights
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

Tensor = torch.FloatTensor


class BaseModel(nn.Module):
    """stands for base_model.py's UpDn model: question embedding, attention over objects, classifier"""
    def __init__(self, num_hid, num_ans, v_dim=16, ntoken=20, gen=False):
        super(BaseModel, self).__init__()
        self.w_emb = nn.Embedding(ntoken, num_hid)
        self.q_emb = nn.GRU(num_hid, num_hid, batch_first=True)
        self.v_att = nn.Linear(v_dim + num_hid, 1)
        self.v_net = nn.Linear(v_dim, num_hid)
        self.classifier = nn.Linear(num_hid, num_ans)
        self.noise = nn.Linear(num_hid, num_hid) if gen else None

    def forward(self, v, q, gen=False):
        w_emb = self.w_emb(q)
        _, q_emb = self.q_emb(w_emb)
        q_emb = q_emb[-1]
        att = torch.softmax(self.v_att(torch.cat([v, q_emb.unsqueeze(1).expand(-1, v.size(1), -1)], 2)), 1)
        v_emb = (att * v).sum(1)
        joint = self.v_net(v_emb) * q_emb
        if gen:
            joint = joint + self.noise(torch.randn_like(joint))
        return self.classifier(joint)


class Discriminator(nn.Module):
    def __init__(self, num_ans, num_hid):
        super(Discriminator, self).__init__()
        self.net = nn.Sequential(nn.Linear(num_ans, num_hid), nn.ReLU(), nn.Linear(num_hid, 1), nn.Sigmoid())

    def forward(self, x):
        return self.net(x)


def compute_score_with_logits(logits, labels):
    logits = torch.argmax(logits, 1)
    one_hots = torch.zeros(*labels.size())
    one_hots.scatter_(1, logits.view(-1, 1), 1)
    scores = (one_hots * labels)
    return scores


def calc_genb_loss(logits, bias, labels):
    gen_grad = torch.clamp(2 * labels * torch.sigmoid(-2 * labels * bias.detach()), 0, 1)
    loss = F.binary_cross_entropy_with_logits(logits, gen_grad)
    loss *= labels.size(1)
    return loss


def train(model, genb, discriminator, train_loader, eval_loader, args, qid2type):
    num_epochs = args.epochs
    optim = torch.optim.Adamax(filter(lambda p: p.requires_grad, model.parameters()), lr=0.001)
    optim_G = torch.optim.Adamax(filter(lambda p: p.requires_grad, genb.parameters()), lr=0.001)
    optim_D = torch.optim.Adamax(filter(lambda p: p.requires_grad, discriminator.parameters()), lr=0.001)
    total_step = 0

    genb.train(True)
    discriminator.train(True)

    kld = nn.KLDivLoss(reduction='batchmean')
    bce = nn.BCELoss()

    for epoch in range(num_epochs):
        total_loss = 0
        train_score = 0

        t = time.time()
        for i, (v, q, a, qid) in enumerate(train_loader):
            total_step += 1

            #########################################
            v = Variable(v).requires_grad_()
            q = Variable(q)
            a = Variable(a)
            valid = Variable(Tensor(v.size(0), 1).fill_(1.0), requires_grad=False)
            fake = Variable(Tensor(v.size(0), 1).fill_(0.0), requires_grad=False)
            #########################################

            # get model output
            optim.zero_grad()
            pred = model(v, q)

            # train genb
            optim_G.zero_grad()
            optim_D.zero_grad()

            pred_g = genb(v, q, gen=True)
            g_loss = F.binary_cross_entropy_with_logits(pred_g, a, reduction='none').mean()
            g_loss *= a.size(1)

            vae_preds = discriminator(pred_g)
            main_preds = discriminator(pred)

            g_distill = kld(pred_g, pred.detach())
            dsc_loss = bce(vae_preds, valid) + bce(main_preds, valid)

            g_loss += dsc_loss + g_distill*5
            g_loss.backward(retain_graph=True)
            nn.utils.clip_grad_norm_(genb.parameters(), 0.25)
            optim_G.step()
            # done training genb

            # train the discriminator
            dsc_loss = bce(vae_preds, fake) + bce(main_preds, valid)
            dsc_loss.backward(retain_graph=True)
            optim_D.step()
            # done training the discriminator

            # use genb to train the robust model
            genb.train(False)
            pred_g = genb(v, q, gen=False)

            genb_loss = calc_genb_loss(pred, pred_g, a)
            genb_loss.backward()

            nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            optim.step()

            genb.train(True)
            total_loss += genb_loss.item() * q.size(0)
            batch_score = compute_score_with_logits(pred, a.data).sum()
            train_score += batch_score


def parse_args():
    parser = argparse.ArgumentParser("Train the BottomUpTopDown model with a de-biasing method")
    parser.add_argument('--epochs', type=int, default=1)
    parser.add_argument('--num_hid', type=int, default=16)
    parser.add_argument('--eval_each_epoch', default=False)
    parser.add_argument('--output', type=str, default='logs/exp0')
    return parser.parse_args([])


args = parse_args()
num_ans = 10
model = BaseModel(args.num_hid, num_ans)
genb = BaseModel(args.num_hid, num_ans, gen=True)
discriminator = Discriminator(num_ans, args.num_hid)
# stands for VQAFeatureDataset(...) served by a DataLoader: (image features, question tokens, answer scores, question id)
train_loader = [(torch.randn(4, 6, 16), torch.randint(0, 20, (4, 5)), torch.rand(4, num_ans), torch.arange(4)) for _ in range(2)]
train(model, genb, discriminator, train_loader, None, args, None)
