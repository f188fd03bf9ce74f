# source: https://github.com/spro/practical-pytorch/issues/9
# expect: clean
import random
import string

import torch
import torch.nn as nn
from torch.autograd import Variable

all_letters = string.ascii_letters
n_letters = len(all_letters)

# stands for data.py's reading of data/names/*.txt
lang_names = {
    "Czech": ["Jedynak", "Chemlik", "Dvorak", "Novak"],
    "Japanese": ["Watnabe", "Hazaki", "Suzuki", "Tanaka"],
    "Irish": ["Cassidy", "Murphy", "Kelly", "Ryan"],
}
all_langs = list(lang_names)
n_langs = len(all_langs)


# Find letter index from all_letters, e.g. "a" = 0
def letterToIndex(letter):
    return all_letters.find(letter)


# Turn a name into a <name_length x 1 x n_letters>,
# or an array of one-hot letter vectors
def nameToTensor(name):
    tensor = torch.zeros(len(name), 1, n_letters)
    for li, letter in enumerate(name):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(RNN, self).__init__()

        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(input_size + hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        data = torch.cat((input, hidden), 1)
        hidden = self.i2h(data)
        output = self.i2o(data)
        output = self.softmax(output)
        return output, hidden


n_hidden = 32
rnn = RNN(n_letters, n_hidden, n_langs)

learning_rate = 0.005


def classFromOutput(output):
    top_n, top_i = output.data.topk(1)  # Tensor out of Variable with .data
    class_i = top_i[0][0].item()
    return all_langs[class_i], class_i


def randomChoice(l):
    return l[random.randint(0, len(l) - 1)]


def randomTrainingPair():
    lang = randomChoice(all_langs)
    name = randomChoice(lang_names[lang])
    return lang, name


criterion = nn.NLLLoss()


def train(target_lang, input_name):
    input = Variable(nameToTensor(input_name))
    target = Variable(torch.LongTensor([all_langs.index(target_lang)]))
    hidden = Variable(torch.zeros(1, n_hidden))

    optimizer.zero_grad()

    for i in range(len(input_name)):
        output, hidden = rnn(input[i], hidden)

    loss = criterion(output, target)
    loss.backward()

    optimizer.step()

    return output, loss.item()


n_epochs = 300
print_every = 100
plot_every = 50

rnn = RNN(n_letters, n_hidden, n_langs)
optimizer = torch.optim.SGD(rnn.parameters(), lr=learning_rate)

# Keep track of losses for plotting
current_loss = 0
all_losses = []
before = [p.detach().clone() for p in rnn.parameters()]

for epoch in range(1, n_epochs):
    target_lang, input_name = randomTrainingPair()
    output, loss = train(target_lang, input_name)
    current_loss += loss

    # Print epoch number, loss, name and guess
    if epoch % print_every == 0:
        guess, guess_i = classFromOutput(output)
        correct = 'OK' if guess == target_lang else 'X (%s)' % target_lang
        print('%d (%.2f) %s / %s %s' % (epoch, current_loss, input_name, guess, correct))

    # Add current loss avg to list of losses
    if epoch % plot_every == 0:
        all_losses.append(current_loss / plot_every)
        current_loss = 0

# the RNN that was trained has moved
assert not any(torch.equal(p, b) for p, b in zip(rnn.parameters(), before))
