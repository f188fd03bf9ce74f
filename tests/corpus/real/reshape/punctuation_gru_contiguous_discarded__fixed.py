# source: https://github.com/geyang/deep-auto-punctuation/issues/3
# expect: clean
import torch
from torch.autograd import Variable
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Char2Vec():
    """stands for utils.Char2Vec: one-hot codes of characters"""

    def __init__(self, chars=None, add_unknown=False):
        self.chars = list(chars) + (["<unk>"] if add_unknown else [])
        self.char_dict = {c: i for i, c in enumerate(self.chars)}
        self.size = len(self.chars)

    def char_code_batch(self, batch):
        return torch.LongTensor([[self.char_dict.get(c, self.size - 1) for c in seq] for seq in batch])

    def one_hot_batch(self, batch):
        codes = self.char_code_batch(batch)
        return F.one_hot(codes, self.size).float()


# Implement mini-batch
class GruRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size, batch_size=1, layers=1, bi=False):
        """
        IMPORTANT: Use batch_first convention for ease of use.
                   However, the hidden layer still use batch middle convension.
        """
        super(GruRNN, self).__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.output_size = output_size
        self.batch_size = batch_size
        self.layers = layers
        self.bi_mul = 2 if bi else 1

        self.encoder = nn.Linear(input_size, hidden_size)
        self.gru = nn.GRU(input_size, hidden_size, self.layers, bidirectional=bi, batch_first=True)
        self.decoder = nn.Linear(hidden_size * self.bi_mul, output_size)
        self.softmax = F.softmax

    def forward(self, x, hidden):
        embeded = x
        gru_output, hidden = self.gru(embeded, hidden.view(self.layers * self.bi_mul, -1, self.hidden_size))
        gru_output = gru_output.contiguous()
        output = self.decoder(gru_output.view(-1, self.hidden_size * self.bi_mul))
        return output.view(self.batch_size, -1, self.output_size), hidden

    def init_hidden(self, random=False):
        if random:
            return Variable(torch.randn(self.layers * self.bi_mul, self.batch_size, self.hidden_size))
        else:
            return Variable(torch.zeros(self.layers * self.bi_mul, self.batch_size, self.hidden_size))


class Engadget():
    def __init__(self, model, char2vec=None, output_char2vec=None):
        print('****** Engadget Model Initialize ******')
        self.model = model
        if char2vec is None:
            self.char2vec = Char2Vec()
        else:
            self.char2vec = char2vec

        if output_char2vec is None:
            self.output_char2vec = self.char2vec
        else:
            self.output_char2vec = output_char2vec

        self.loss = 0
        self.losses = []

    def init_hidden_(self, random=False):
        self.hidden = self.model.init_hidden(random)
        return self

    def setup_training(self, learning_rate):
        self.optimizer = optim.Adam(self.model.parameters(), lr=learning_rate)
        self.optimizer.zero_grad()
        self.loss_fn = nn.CrossEntropyLoss()
        self.init_hidden_()

    def reset_loss(self):
        self.loss = 0

    def forward(self, input_batch, target_batch):

        self.hidden = self.hidden.detach()

        self.optimizer.zero_grad()
        self.next_(input_batch)
        self.target_vec = Variable(self.output_char2vec.char_code_batch(target_batch))
        new_loss = self.loss_fn(self.output.view(-1, self.model.output_size), self.target_vec.view(-1))
        self.loss += new_loss

    def descent(self):
        if self.loss == 0:
            print(self.loss)
            print('Warning: loss is zero.')
            return

        self.loss.backward()
        self.optimizer.step()
        self.losses.append(self.loss.item())
        self.reset_loss()

    def embed(self, input_data):
        self.embeded = Variable(self.char2vec.one_hot_batch(input_data))
        return self.embeded

    def next_(self, input_text):
        self.output, self.hidden = self.model(self.embed(input_text), self.hidden)
        return self


input_chars = list(" \nabcdefghijklmnopqrstuvwxyz01234567890")
output_chars = ["<nop>", "<cap>"] + list(".,;:?!\"'$")

batch_size = 4

char2vec = Char2Vec(chars=input_chars, add_unknown=True)
output_char2vec = Char2Vec(chars=output_chars)
input_size = char2vec.size
output_size = output_char2vec.size

print("input_size is: " + str(input_size) + "; ouput_size is: " + str(output_size))
hidden_size = input_size
layers = 1

rnn = GruRNN(input_size, hidden_size, output_size, batch_size=batch_size, layers=layers, bi=True)
egdt = Engadget(rnn, char2vec, output_char2vec)

learning_rate = 0.5e-2
egdt.setup_training(learning_rate)

seq_len = 12
# stands for data.batch_gen / data.chunk_gen over the Engadget articles
input_srcs = [list("the quick brown fox jumps"[i:] + " over the lazy dog")[:seq_len] for i in range(batch_size)]
punc_targs = [["<cap>"] + ["<nop>"] * (seq_len - 2) + ["."] for _ in range(batch_size)]

for epoch_num in range(2):
    egdt.init_hidden_(random=False)
    egdt.forward(input_srcs, punc_targs)
    egdt.descent()
