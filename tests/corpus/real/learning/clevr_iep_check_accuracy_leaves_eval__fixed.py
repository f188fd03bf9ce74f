# source: https://github.com/facebookresearch/clevr-iep/pull/22
# expect: clean
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

parser = argparse.ArgumentParser()
parser.add_argument('--model_type', default='LSTM',
                    choices=['PG', 'EE', 'PG+EE', 'LSTM', 'CNN+LSTM', 'CNN+LSTM+SA'])
parser.add_argument('--num_iterations', default=6, type=int)
parser.add_argument('--num_val_samples', default=10000, type=int)
parser.add_argument('--checkpoint_every', default=2, type=int)
parser.add_argument('--record_loss_every', default=1, type=int)
parser.add_argument('--learning_rate', default=5e-4, type=float)
parser.add_argument('--classifier_dropout', default=0.5, type=float)


class LstmModel(nn.Module):
    """stands for iep.models.LstmModel: an LSTM over the question, then an MLP with
    batch norm and dropout"""

    def __init__(self, vocab_size=10, rnn_wordvec_dim=8, rnn_dim=8, fc_dims=(8,), fc_dropout=0.5,
                 num_answers=4):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, rnn_wordvec_dim)
        self.rnn = nn.LSTM(rnn_wordvec_dim, rnn_dim, batch_first=True)
        self.classifier = nn.Sequential(
            nn.Linear(rnn_dim, fc_dims[0]), nn.BatchNorm1d(fc_dims[0]), nn.ReLU(),
            nn.Dropout(p=fc_dropout), nn.Linear(fc_dims[0], num_answers))

    def forward(self, questions, feats):
        out, _ = self.rnn(self.embed(questions))
        return self.classifier(out[:, -1])


def train_loop(args, train_loader, val_loader):
    program_generator, execution_engine = None, None
    baseline_model = LstmModel(fc_dropout=args.classifier_dropout)
    baseline_model.train()
    baseline_optimizer = torch.optim.Adam(baseline_model.parameters(), lr=args.learning_rate)
    loss_fn = torch.nn.CrossEntropyLoss()

    stats = {'train_losses': [], 'train_accs': [], 'val_accs': [], 'modes': []}
    t, epoch = 0, 0
    while t < args.num_iterations:
        epoch += 1
        print('Starting epoch %d' % epoch)
        for batch in train_loader:
            t += 1
            questions, _, feats, answers, programs, _ = batch
            questions_var = Variable(questions)
            feats_var = Variable(feats)
            answers_var = Variable(answers)

            if args.model_type in ['LSTM', 'CNN+LSTM', 'CNN+LSTM+SA']:
                baseline_optimizer.zero_grad()
                baseline_model.zero_grad()
                scores = baseline_model(questions_var, feats_var)
                loss = loss_fn(scores, answers_var)
                loss.backward()
                baseline_optimizer.step()
                stats['modes'].append(baseline_model.training)

            if t % args.record_loss_every == 0:
                print(t, loss.item())
                stats['train_losses'].append(loss.item())

            if t % args.checkpoint_every == 0:
                print('Checking training accuracy ... ')
                train_acc = check_accuracy(args, program_generator, execution_engine,
                                           baseline_model, train_loader)
                print('train accuracy is', train_acc)
                print('Checking validation accuracy ...')
                val_acc = check_accuracy(args, program_generator, execution_engine,
                                         baseline_model, val_loader)
                print('val accuracy is ', val_acc)
                stats['train_accs'].append(train_acc)
                stats['val_accs'].append(val_acc)

            if t == args.num_iterations:
                break
    return baseline_model, stats


def set_mode(mode, models):
    assert mode in ['train', 'eval']
    for m in models:
        if m is None: continue
        if mode == 'train': m.train()
        if mode == 'eval': m.eval()


def check_accuracy(args, program_generator, execution_engine, baseline_model, loader):
    set_mode('eval', [program_generator, execution_engine, baseline_model])
    num_correct, num_samples = 0, 0
    for batch in loader:
        questions, _, feats, answers, programs, _ = batch

        questions_var = Variable(questions, volatile=True)
        feats_var = Variable(feats, volatile=True)

        scores = None  # Use this for everything but PG
        if args.model_type in ['LSTM', 'CNN+LSTM', 'CNN+LSTM+SA']:
            scores = baseline_model(questions_var, feats_var)

        if scores is not None:
            _, preds = scores.data.cpu().max(1)
            num_correct += (preds == answers).sum()
            num_samples += preds.size(0)

        if num_samples >= args.num_val_samples:
            break

    set_mode('train', [program_generator, execution_engine, baseline_model])
    acc = float(num_correct) / num_samples
    return acc


def make_loader(n):
    return [(torch.randint(0, 10, (4, 5)), None, torch.randn(4, 3), torch.randint(0, 4, (4,)), [None], None)
            for _ in range(n)]


if __name__ == '__main__':
    torch.manual_seed(0)
    args = parser.parse_args([])
    model, stats = train_loop(args, make_loader(3), make_loader(1))
    assert all(stats['modes'])
