# source: https://github.com/huggingface/transformers/blob/main/src/transformers/generation/logits_process.py
# expect: clean
# note: logits processors write -inf into the scores in place; generate() runs them under torch.no_grad()
import torch
import torch.nn as nn


class MinLengthLogitsProcessor:
    def __init__(self, min_length, eos_token_id):
        self.min_length = min_length
        self.eos_token_id = eos_token_id

    def __call__(self, input_ids, scores):
        cur_len = input_ids.shape[-1]
        if cur_len < self.min_length:
            scores[:, self.eos_token_id] = -float("inf")
        return scores


class RepetitionPenaltyLogitsProcessor:
    def __init__(self, penalty):
        self.penalty = penalty

    def __call__(self, input_ids, scores):
        score = torch.gather(scores, 1, input_ids)
        score = torch.where(score < 0, score * self.penalty, score / self.penalty)
        scores.scatter_(1, input_ids, score)
        return scores


class TinyLM(nn.Module):
    def __init__(self, vocab=12, dim=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, input_ids):
        return self.head(self.embed(input_ids).mean(1, keepdim=True))

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens, logits_processor):
        for _ in range(max_new_tokens):
            next_token_logits = self(input_ids)[:, -1, :]
            for processor in logits_processor:
                next_token_logits = processor(input_ids, next_token_logits)
            next_tokens = torch.argmax(next_token_logits, dim=-1)
            input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
        return input_ids


model = TinyLM()
processors = [MinLengthLogitsProcessor(4, eos_token_id=2), RepetitionPenaltyLogitsProcessor(1.2)]
print(model.generate(torch.tensor([[1, 5]]), max_new_tokens=3, logits_processor=processors))
