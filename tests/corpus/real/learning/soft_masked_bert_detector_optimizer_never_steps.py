# source: https://github.com/quantum00549/SoftMaskedBert/issues/7
# expect: silent: the detector has its own optimizer, which is built but never stepped; only the corrector's optimizer steps, so the detector (trained by the joint loss) never changes
# buggy-line: 45
# also-line: 68
# mechanism: the joint loss backpropagates into the detector, whose optimizer (detector_optimizer) never runs step() or zero_grad(); the optimizer that steps holds only the corrector
import torch
import torch.nn as nn


class biGruDetector(nn.Module):
    def __init__(self, input_size, hidden_size, num_layer=1):
        super(biGruDetector, self).__init__()
        self.rnn = nn.GRU(input_size, hidden_size, num_layers=num_layer, bidirectional=True, batch_first=True)
        self.linear = nn.Linear(hidden_size * 2, 1)

    def forward(self, inp):
        rnn_output, _ = self.rnn(inp)
        output = nn.Sigmoid()(self.linear(rnn_output))
        return output


class softMaskedBert(nn.Module):
    def __init__(self, embedding_size, **kwargs):
        super(softMaskedBert, self).__init__()
        self.vocab_size = kwargs['vocab_size']
        self.masked_e = kwargs['masked_e']
        self.bert_encoder = kwargs['bert_encoder']
        self.linear = nn.Linear(embedding_size, self.vocab_size)
        self.log_softmax = nn.LogSoftmax(dim=-1)

    def forward(self, bert_embedding, p):
        soft_bert_embedding = p * self.masked_e + (1 - p) * bert_embedding
        bert_out = self.bert_encoder(soft_bert_embedding)
        h = bert_out + bert_embedding
        out = self.log_softmax(self.linear(h))
        return out


class engines:
    def __init__(self, embedding_size=8, hidden_size=8, vocab_size=20, lr=0.01):
        self.embedding = nn.Embedding(vocab_size, embedding_size)
        self.bert_encoder = nn.Linear(embedding_size, embedding_size)
        self.masked_e = self.embedding(torch.tensor([[3]])).detach()
        self.detector_model = biGruDetector(embedding_size, hidden_size)
        self.detector_optimizer = torch.optim.Adam(self.detector_model.parameters(), lr=lr)
        self.detector_criterion = nn.BCELoss()
        self.model = softMaskedBert(
            embedding_size, vocab_size=vocab_size, masked_e=self.masked_e, bert_encoder=self.bert_encoder
        )
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.criterion = nn.NLLLoss()
        self.gama = 0.7

    def train_model(self, batches):
        self.detector_model.train()
        self.model.train()
        for i, (batch_inp_ids, batch_out_ids, batch_labels, batch_mask) in enumerate(batches):
            batch_inp_embedding = self.embedding(batch_inp_ids).detach()
            prob = self.detector_model(batch_inp_embedding)
            detector_loss = self.detector_criterion(prob.squeeze() * batch_mask, batch_labels.float())
            out = self.model(batch_inp_embedding, prob)
            model_loss = self.criterion(
                (out * batch_mask.unsqueeze(-1)).reshape(-1, out.shape[-1]), batch_out_ids.reshape(-1)
            )
            loss = self.gama * model_loss + (1 - self.gama) * detector_loss
            self.optimizer.zero_grad()
            loss.backward(retain_graph=True)
            self.optimizer.step()


torch.manual_seed(0)
handler = engines()
batches = [
    (torch.randint(0, 20, (2, 6)), torch.randint(0, 20, (2, 6)), torch.randint(0, 2, (2, 6)), torch.ones(2, 6))
    for _ in range(3)
]
before = handler.detector_model.linear.weight.detach().clone()
handler.train_model(batches)
# the effect: the detector gets gradients (accumulated, never cleared) and never changes
assert handler.detector_model.linear.weight.grad.abs().sum() > 0
assert torch.equal(handler.detector_model.linear.weight, before)
