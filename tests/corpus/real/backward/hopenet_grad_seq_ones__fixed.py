# source: https://github.com/natanielruiz/deep-head-pose/issues/124
# expect: clean
import argparse

import torch
import torch.nn as nn
from torch.autograd import Variable
from torch.utils.data import DataLoader, Dataset


class Hopenet(nn.Module):
    # Hopenet with 3 output layers for yaw, pitch and roll (a small ResNet stand-in)
    def __init__(self, num_bins):
        super(Hopenet, self).__init__()
        self.conv1 = nn.Conv2d(3, 8, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.layer2 = nn.Sequential(nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.layer3 = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.layer4 = nn.Sequential(nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU())
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc_yaw = nn.Linear(32, num_bins)
        self.fc_pitch = nn.Linear(32, num_bins)
        self.fc_roll = nn.Linear(32, num_bins)

        # Vestigial layer from previous experiments
        self.fc_finetune = nn.Linear(32 + 3, 3)

    def forward(self, x):
        x = self.conv1(x)
        x = self.bn1(x)
        x = self.relu(x)
        x = self.maxpool(x)

        x = self.layer1(x)
        x = self.layer2(x)
        x = self.layer3(x)
        x = self.layer4(x)

        x = self.avgpool(x)
        x = x.view(x.size(0), -1)
        pre_yaw = self.fc_yaw(x)
        pre_pitch = self.fc_pitch(x)
        pre_roll = self.fc_roll(x)

        return pre_yaw, pre_pitch, pre_roll


class Pose_300W_LP(Dataset):
    # stands for the 300W-LP loader: an image, its binned and its continuous angles
    def __init__(self, n=8):
        self.n = n

    def __getitem__(self, index):
        img = torch.randn(3, 64, 64)
        cont_labels = torch.empty(3).uniform_(-99, 99)
        labels = torch.clamp(((cont_labels + 99) / 3).long(), 0, 65)
        return img, labels, cont_labels, "image%05d" % index

    def __len__(self):
        return self.n


def parse_args():
    """Parse input arguments."""
    parser = argparse.ArgumentParser(description='Head pose estimation using the Hopenet network.')
    parser.add_argument('--num_epochs', dest='num_epochs', help='Maximum number of training epochs.', default=1, type=int)
    parser.add_argument('--batch_size', dest='batch_size', help='Batch size.', default=4, type=int)
    parser.add_argument('--lr', dest='lr', help='Base learning rate.', default=0.001, type=float)
    parser.add_argument('--alpha', dest='alpha', help='Regression loss coefficient.', default=0.001, type=float)
    args = parser.parse_args([])
    return args


def get_ignored_params(model):
    # Generator function that yields ignored params.
    b = [model.conv1, model.bn1, model.fc_finetune]
    for i in range(len(b)):
        for module_name, module in b[i].named_modules():
            if 'bn' in module_name:
                module.eval()
            for name, param in module.named_parameters():
                yield param


def get_non_ignored_params(model):
    # Generator function that yields params that will be optimized.
    b = [model.layer1, model.layer2, model.layer3, model.layer4]
    for i in range(len(b)):
        for module_name, module in b[i].named_modules():
            if 'bn' in module_name:
                module.eval()
            for name, param in module.named_parameters():
                yield param


def get_fc_params(model):
    # Generator function that yields fc layer params.
    b = [model.fc_yaw, model.fc_pitch, model.fc_roll]
    for i in range(len(b)):
        for module_name, module in b[i].named_modules():
            for name, param in module.named_parameters():
                yield param


if __name__ == '__main__':
    args = parse_args()

    num_epochs = args.num_epochs
    batch_size = args.batch_size

    model = Hopenet(66)

    print('Loading data.')
    pose_dataset = Pose_300W_LP()
    train_loader = DataLoader(dataset=pose_dataset, batch_size=batch_size, shuffle=True, num_workers=0)

    criterion = nn.CrossEntropyLoss()
    reg_criterion = nn.MSELoss()
    # Regression loss coefficient
    alpha = args.alpha

    softmax = nn.Softmax(dim=1)
    idx_tensor = [idx for idx in range(66)]
    idx_tensor = Variable(torch.FloatTensor(idx_tensor))

    optimizer = torch.optim.Adam([{'params': get_ignored_params(model), 'lr': 0},
                                  {'params': get_non_ignored_params(model), 'lr': args.lr},
                                  {'params': get_fc_params(model), 'lr': args.lr * 5}],
                                 lr=args.lr)

    print('Ready to train network.')
    for epoch in range(num_epochs):
        for i, (images, labels, cont_labels, name) in enumerate(train_loader):
            images = Variable(images)

            # Binned labels
            label_yaw = Variable(labels[:, 0])
            label_pitch = Variable(labels[:, 1])
            label_roll = Variable(labels[:, 2])

            # Continuous labels
            label_yaw_cont = Variable(cont_labels[:, 0])
            label_pitch_cont = Variable(cont_labels[:, 1])
            label_roll_cont = Variable(cont_labels[:, 2])

            # Forward pass
            yaw, pitch, roll = model(images)

            # Cross entropy loss
            loss_yaw = criterion(yaw, label_yaw)
            loss_pitch = criterion(pitch, label_pitch)
            loss_roll = criterion(roll, label_roll)

            # MSE loss
            yaw_predicted = softmax(yaw)
            pitch_predicted = softmax(pitch)
            roll_predicted = softmax(roll)

            yaw_predicted = torch.sum(yaw_predicted * idx_tensor, 1) * 3 - 99
            pitch_predicted = torch.sum(pitch_predicted * idx_tensor, 1) * 3 - 99
            roll_predicted = torch.sum(roll_predicted * idx_tensor, 1) * 3 - 99

            loss_reg_yaw = reg_criterion(yaw_predicted, label_yaw_cont)
            loss_reg_pitch = reg_criterion(pitch_predicted, label_pitch_cont)
            loss_reg_roll = reg_criterion(roll_predicted, label_roll_cont)

            # Total loss
            loss_yaw += alpha * loss_reg_yaw
            loss_pitch += alpha * loss_reg_pitch
            loss_roll += alpha * loss_reg_roll

            loss_seq = [loss_yaw, loss_pitch, loss_roll]
            grad_seq = [torch.tensor(1.0) for _ in range(len(loss_seq))]
            optimizer.zero_grad()
            torch.autograd.backward(loss_seq, grad_seq)
            optimizer.step()

            if (i + 1) % 100 == 0:
                print('Epoch [%d/%d], Iter [%d/%d] Losses: Yaw %.4f, Pitch %.4f, Roll %.4f'
                      % (epoch + 1, num_epochs, i + 1, len(pose_dataset) // batch_size, loss_yaw.item(), loss_pitch.item(), loss_roll.item()))
