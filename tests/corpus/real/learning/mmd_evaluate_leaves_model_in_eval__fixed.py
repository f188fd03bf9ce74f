# source: https://github.com/shubhamagarwal92/mmd/issues/14
# expect: clean
import argparse
import math
import time

import numpy as np
import torch
import torch.nn as nn
from torch import optim


def check_cuda(seed):
	"""Check cuda"""
	if torch.cuda.is_available():
		use_cuda = True
		torch.cuda.manual_seed(seed)
	else:
		use_cuda = False
	return use_cuda


def optimizer_wrapper(model, optim_type, lr, weight_decay):
	"""Wrapper for different optimizers"""
	if optim_type == 'adam':
		optimizer = optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
	elif optim_type == 'sgd':
		optimizer = optim.SGD(model.parameters(), lr=lr, weight_decay=weight_decay)
	else:
		raise NotImplementedError("Not avaiable optimizer")
	return optimizer


class HRED(nn.Module):
	"""stands for modules/models.py's HRED: encoder GRU, context GRU and decoder with dropout"""
	def __init__(self, src_vocab_size, tgt_vocab_size, src_emb_dim, tgt_emb_dim, enc_hidden_size, dec_hidden_size,
				context_hidden_size, dropout_enc=0.3, dropout_dec=0.3, dropout_context=0.3):
		super(HRED, self).__init__()
		self.embedding = nn.Embedding(src_vocab_size, src_emb_dim)
		self.encoder = nn.GRU(src_emb_dim, enc_hidden_size, batch_first=True)
		self.dropout_enc = nn.Dropout(dropout_enc)
		self.context = nn.GRU(enc_hidden_size, context_hidden_size, batch_first=True)
		self.dropout_context = nn.Dropout(dropout_context)
		self.decoder = nn.Linear(context_hidden_size, dec_hidden_size)
		self.dropout_dec = nn.Dropout(dropout_dec)
		self.out = nn.Linear(dec_hidden_size, tgt_vocab_size)

	def forward(self, text_enc_input, dec_out_len):
		b, ctx, seq = text_enc_input.size()
		emb = self.embedding(text_enc_input.view(b * ctx, seq))
		_, h = self.encoder(emb)
		h = self.dropout_enc(h[-1].view(b, ctx, -1))
		ctx_out, _ = self.context(h)
		ctx_out = self.dropout_context(ctx_out[:, -1])
		dec = self.dropout_dec(torch.tanh(self.decoder(ctx_out)))
		return torch.log_softmax(self.out(dec), -1).unsqueeze(1).expand(-1, dec_out_len, -1)


def get_batch_mmd_data(batch_size, context_size, vocab_size, dec_len):
	"""stands for utils.get_batch_mmd_data on the pickled dialogues"""
	text_enc_input = torch.randint(0, vocab_size, (batch_size, context_size, 6))
	dec_out_seq = torch.randint(0, vocab_size, (batch_size, dec_len))
	return text_enc_input, dec_out_seq


def evaluate(valid_data, loss_criterion, model, config, vocab_size, use_cuda=False):
	model.eval()
	batch_size = config['data']['batch_size']
	total_loss = 0.
	n_total_words = 0.
	valid_start = time.time()
	for batch_id in range(len(valid_data)):
		text_enc_input, dec_out_seq = valid_data[batch_id]
		dec_output_prob = model(text_enc_input, dec_out_seq.size(1))
		loss_val = loss_criterion(dec_output_prob.contiguous().view(-1, vocab_size), dec_out_seq.view(-1))
		n_total_words += dec_out_seq.numel()
		total_loss += loss_val.item()
	epoch_loss = total_loss / n_total_words
	valid_elapsed = (time.time() - valid_start) / 60
	print('Valid Loss: Loss: %.6f, Perplexity: %5.4f, Run Time:%5.4f'
		  % (epoch_loss, np.exp(epoch_loss), valid_elapsed))
	print("")
	model.train()


def main(args):
	config = {'training': {'seed': 1, 'num_epochs': 3, 'evaluate_every': 1, 'lr': 0.001, 'optimizer': 'adam',
						   'weight_decay': 0.0},
			  'data': {'batch_size': 4, 'vocab_size': 50},
			  'model': {'src_emb_dim': 16, 'enc_hidden_size': 16, 'context_hidden_size': 16, 'dec_hidden_size': 16,
						'dropout_enc': 0.3, 'dropout_dec': 0.3, 'dropout_context': 0.3}}
	torch.manual_seed(config['training']['seed'])  # Seed for reproducability
	use_cuda = check_cuda(config['training']['seed'])
	vocab_size = config['data']['vocab_size']
	model = HRED(src_vocab_size=vocab_size, tgt_vocab_size=vocab_size,
				 src_emb_dim=config['model']['src_emb_dim'], tgt_emb_dim=config['model']['src_emb_dim'],
				 enc_hidden_size=config['model']['enc_hidden_size'], dec_hidden_size=config['model']['dec_hidden_size'],
				 context_hidden_size=config['model']['context_hidden_size'],
				 dropout_enc=config['model']['dropout_enc'],
				 dropout_dec=config['model']['dropout_dec'],
				 dropout_context=config['model']['dropout_context'])
	optimizer = optimizer_wrapper(model, config['training']['optimizer'], config['training']['lr'],
								  config['training']['weight_decay'])
	loss_criterion = nn.NLLLoss()
	train_data = [get_batch_mmd_data(4, args.context_size, vocab_size, 5) for _ in range(3)]
	valid_data = [get_batch_mmd_data(4, args.context_size, vocab_size, 5) for _ in range(2)]
	modes_in_training = []
	model.train()
	for epoch in range(config['training']['num_epochs']):
		for batch_id in range(len(train_data)):
			text_enc_input, dec_out_seq = train_data[batch_id]
			modes_in_training.append(model.training)
			optimizer.zero_grad()
			dec_output_prob = model(text_enc_input, dec_out_seq.size(1))
			loss = loss_criterion(dec_output_prob.contiguous().view(-1, vocab_size), dec_out_seq.view(-1))
			loss.backward()
			optimizer.step()
		if (epoch + 1) % config['training']['evaluate_every'] == 0:
			evaluate(valid_data, loss_criterion, model, config, vocab_size, use_cuda=use_cuda)
	return modes_in_training


parser = argparse.ArgumentParser(description='Train MMD')
parser.add_argument('--context_size', type=int, default=2)
args = parser.parse_args([])
modes_in_training = main(args)
# every training batch runs in training mode
assert all(modes_in_training), modes_in_training
