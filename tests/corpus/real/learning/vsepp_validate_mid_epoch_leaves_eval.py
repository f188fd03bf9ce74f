# source: https://github.com/fartashf/vsepp/issues/4
# expect: silent: validate() at every val_step runs encode_data, which calls model.val_start(); train() calls model.train_start() only once per epoch, so every step after the first validation trains with dropout off and batch norm frozen
# buggy-line: 124
# also-line: 95
# mechanism: eval mode set by a method of a plain-object wrapper (VSE.val_start) called from a helper in another module (vsepp_pkg/evaluation.encode_data), reached through validate() inside the training loop
import argparse
import logging
import time

import torch
import torch.utils.data

from vsepp_pkg import tb_logger
from vsepp_pkg.evaluation import i2t, t2i, AverageMeter, LogCollector, encode_data
from vsepp_pkg.model import VSE


class PrecompDataset(torch.utils.data.Dataset):
    """stands for data.get_loaders: images, padded captions, lengths and ids"""

    def __init__(self, n):
        self.images = torch.randn(n, 3, 8, 8)
        self.captions = torch.randint(1, 20, (n, 5))

    def __getitem__(self, index):
        return self.images[index], self.captions[index], index

    def __len__(self):
        return len(self.images)


def collate_fn(data):
    images, captions, ids = zip(*data)
    return torch.stack(images, 0), torch.stack(captions, 0), [5] * len(captions), list(ids)


def main():
    # Hyper Parameters
    parser = argparse.ArgumentParser()
    parser.add_argument('--data_name', default='f30k')
    parser.add_argument('--margin', default=0.2, type=float)
    parser.add_argument('--num_epochs', default=1, type=int)
    parser.add_argument('--batch_size', default=4, type=int)
    parser.add_argument('--word_dim', default=8, type=int)
    parser.add_argument('--embed_size', default=8, type=int)
    parser.add_argument('--grad_clip', default=2., type=float)
    parser.add_argument('--num_layers', default=1, type=int)
    parser.add_argument('--learning_rate', default=.0002, type=float)
    parser.add_argument('--lr_update', default=15, type=int)
    parser.add_argument('--log_step', default=10, type=int)
    parser.add_argument('--val_step', default=2, type=int)
    parser.add_argument('--img_dim', default=4096, type=int)
    parser.add_argument('--finetune', default=True, action='store_true')
    parser.add_argument('--cnn_type', default='vgg19')
    parser.add_argument('--use_abs', action='store_true')
    parser.add_argument('--no_imgnorm', action='store_true')
    parser.add_argument('--measure', default='cosine')
    parser.add_argument('--max_violation', action='store_true')
    opt = parser.parse_args([])
    opt.vocab_size = 20

    logging.basicConfig(format='%(asctime)s %(message)s', level=logging.INFO)
    tb_logger.configure('runs/runX', flush_secs=5)

    # Load data loaders
    train_loader = torch.utils.data.DataLoader(PrecompDataset(16), batch_size=opt.batch_size,
                                               collate_fn=collate_fn)
    val_loader = torch.utils.data.DataLoader(PrecompDataset(8), batch_size=opt.batch_size,
                                             collate_fn=collate_fn)

    # Construct the model
    model = VSE(opt)

    # Train the Model
    best_rsum = 0
    for epoch in range(opt.num_epochs):
        adjust_learning_rate(opt, model.optimizer, epoch)

        # train for one epoch
        train(opt, train_loader, model, epoch, val_loader)

        # evaluate on validation set
        rsum = validate(opt, val_loader, model)
        best_rsum = max(rsum, best_rsum)
    return model


def train(opt, train_loader, model, epoch, val_loader):
    # average meters to record the training statistics
    batch_time = AverageMeter()
    data_time = AverageMeter()
    train_logger = LogCollector()

    # switch to train mode
    model.train_start()

    end = time.time()
    for i, train_data in enumerate(train_loader):
        # measure data loading time
        data_time.update(time.time() - end)

        # make sure train logger is used
        model.logger = train_logger

        # Update the model
        model.train_emb(*train_data)

        # measure elapsed time
        batch_time.update(time.time() - end)
        end = time.time()

        # Print log info
        if model.Eiters % opt.log_step == 0:
            logging.info('Epoch: [{0}][{1}/{2}]\t{e_log}\t'.format(
                epoch, i, len(train_loader), e_log=str(model.logger)))

        # Record logs in tensorboard
        tb_logger.log_value('epoch', epoch, step=model.Eiters)
        tb_logger.log_value('step', i, step=model.Eiters)
        model.logger.tb_log(tb_logger, step=model.Eiters)

        # validate at every val_step
        if model.Eiters % opt.val_step == 0:
            validate(opt, val_loader, model)


def validate(opt, val_loader, model):
    # compute the encoding for all the validation images and captions
    img_embs, cap_embs = encode_data(
        model, val_loader, opt.log_step, logging.info)

    # caption retrieval
    (r1, r5, r10, medr, meanr) = i2t(img_embs, cap_embs, measure=opt.measure)
    logging.info("Image to text: %.1f, %.1f, %.1f, %.1f, %.1f" %
                 (r1, r5, r10, medr, meanr))
    # image retrieval
    (r1i, r5i, r10i, medri, meanr) = t2i(
        img_embs, cap_embs, measure=opt.measure)
    logging.info("Text to image: %.1f, %.1f, %.1f, %.1f, %.1f" %
                 (r1i, r5i, r10i, medri, meanr))
    # sum of recalls to be used for early stopping
    currscore = r1 + r5 + r10 + r1i + r5i + r10i

    # record metrics in tensorboard
    tb_logger.log_value('rsum', currscore, step=model.Eiters)

    return currscore


def adjust_learning_rate(opt, optimizer, epoch):
    """Sets the learning rate to the initial LR
       decayed by 10 every 30 epochs"""
    lr = opt.learning_rate * (0.1 ** (epoch // opt.lr_update))
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr


if __name__ == '__main__':
    model = main()
    # the effect: after the first validation the encoders train in eval mode
    assert model.modes[:2] == [True, True]
    assert not any(model.modes[2:])
