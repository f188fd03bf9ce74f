# A sentiment script scales the LSTM's last time step in place before the classifier:
# nn.LSTM saved its output for backward.
import torch
import torch.nn as nn

lstm = nn.LSTM(4, 8, batch_first=True)
classifier = nn.Linear(8, 2)
opt = torch.optim.SGD(list(lstm.parameters()) + list(classifier.parameters()), lr=0.1)
tokens = torch.randn(3, 5, 4)
labels = torch.tensor([0, 1, 1])
for epoch in range(2):
    output, (h_n, c_n) = lstm(tokens)
    output[:, -1] *= 0.5  # expect: GL103
    loss = nn.functional.cross_entropy(classifier(output[:, -1]), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
