# source: https://github.com/davidmascharka/tbd-nets/issues/8
# expect: clean
import torch
import torch.optim as optim
import torch.nn as nn
import numpy as np

device = 'cuda' if torch.cuda.is_available() else 'cpu'


class TbDNet(nn.Module):
    """stands for tbd/module_net.py: a stem, one attention module per program token and a classifier"""
    def __init__(self, vocab, feature_dim=(32, 14, 14), module_dim=16):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(feature_dim[0], module_dim, 3, padding=1), nn.ReLU())
        self.function_modules = nn.ModuleList([nn.Conv2d(module_dim + 1, 1, 3, padding=1) for _ in vocab['program_token_to_idx']])
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(module_dim * feature_dim[1] * feature_dim[2], 28))
        self.attention_sum = 0

    def forward(self, feats, programs):
        feat_input_volume = self.stem(feats)
        attention = torch.ones_like(feat_input_volume[:, :1])
        self.attention_sum = 0
        for i in range(programs.size(1)):
            module = self.function_modules[int(programs[0, i])]
            attention = torch.sigmoid(module(torch.cat([feat_input_volume, attention], 1)))
            self.attention_sum += attention.sum()
        return self.classifier(feat_input_volume * attention)


vocab = {'program_token_to_idx': {'scene': 0, 'filter_color[red]': 1, 'query_shape': 2}}

# to train on 14x14 feature maps, pass feature_dim=(1024, 14, 14) to TbDNet
tbd_net = TbDNet(vocab).to(device)


def make_loader(n):
    """stands for ClevrDataLoaderNumpy over the extracted features"""
    return [(None, None, torch.randn(4, 32, 14, 14), torch.randint(4, 32, (4,)), torch.randint(0, 3, (4, 3))) for _ in range(n)]


train_loader = make_loader(2)
val_loader = make_loader(1)


def map_ans(answers):
    ''' Map the answers from the format Justin Johnson et al. use to our own format. '''
    ans_tensor = torch.LongTensor(answers.size())
    ans_tensor[answers == 15] = 0  # blue
    ans_tensor[answers == 16] = 1  # brown
    ans_tensor[answers == 18] = 2  # cyan
    ans_tensor[answers == 20] = 3  # gray
    ans_tensor[answers == 21] = 4  # green
    ans_tensor[answers == 25] = 5  # purple
    ans_tensor[answers == 26] = 6  # red
    ans_tensor[answers == 30] = 7  # yellow
    ans_tensor[answers == 17] = 8  # cube
    ans_tensor[answers == 19] = 9  # cylinder
    ans_tensor[answers == 29] = 10 # sphere
    ans_tensor[answers == 22] = 11 # large
    ans_tensor[answers == 28] = 12 # small
    ans_tensor[answers == 23] = 13 # metal
    ans_tensor[answers == 27] = 14 # rubber
    ans_tensor[answers == 24] = 15 # no
    ans_tensor[answers == 31] = 16 # yes
    for value in range(4, 15):
        ans_tensor[answers == value] = value + 13  # 0 .. 9
    return ans_tensor


def check_accuracy(loader):
    '''
    Convenience function for checking the accuracy of the model
    over all the data in a given `DataLoader`
    '''
    torch.set_grad_enabled(False)
    num_correct, num_samples = 0, 0
    for batch in loader:
        _, _, feats, answers, programs = batch
        feats = feats.to(device)
        programs = programs.to(device)

        outs = tbd_net(feats, programs)
        _, preds = outs.max(1)
        mapped_ans = map_ans(answers)
        num_correct += (preds.to('cpu') == mapped_ans).sum()
        num_samples += preds.size(0)

    return (num_correct, num_samples)


optimizer = torch.optim.Adam(tbd_net.parameters(), 1e-04)
xent_loss = torch.nn.CrossEntropyLoss().to(device)


def train_epoch():
    ''' Convenience function to train the model for one epoch.
    Note that the reported training accuracy is not a true measure of accuracy after
    training for a full epoch, as it is computed during training. However, it does give a
    decent measure of progress.
    '''
    torch.set_grad_enabled(True)
    num_correct, num_samples = 0, 0
    for batch in train_loader:
        _, _, feats, answers, programs = batch
        feats = feats.to(device)
        programs = programs.to(device)

        optimizer.zero_grad()
        outs = tbd_net(feats, programs)
        _, preds = outs.max(1)
        mapped_ans = map_ans(answers)
        num_correct += (preds.to('cpu') == mapped_ans).sum()
        num_samples += preds.size(0)
        loss = xent_loss(outs, mapped_ans.to(device))

        # The following line applies an L1 penalty to the intermediate attention masks.
        loss += tbd_net.attention_sum * 2.5e-07

        print('Loss: {}'.format(loss.item()))
        loss.backward()
        optimizer.step()

    val_correct, val_samples = check_accuracy(val_loader)
    print('Train Accuracy: {} / {}'.format(num_correct, num_samples))
    print('Val Accuracy: {} / {}'.format(val_correct, val_samples))


epoch = 0
while epoch < 2:
    epoch += 1
    print('starting epoch', epoch)
    train_epoch()
