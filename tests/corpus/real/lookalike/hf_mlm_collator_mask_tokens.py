# source: https://github.com/huggingface/transformers/blob/main/src/transformers/data/data_collator.py
# expect: clean
# note: boolean-mask assignments into token ids and labels (integer data that needs no grad) before the forward pass
import torch
import torch.nn as nn


class DataCollatorForLanguageModeling:
    def __init__(self, vocab_size, mask_token_id, mlm_probability=0.15):
        self.vocab_size = vocab_size
        self.mask_token_id = mask_token_id
        self.mlm_probability = mlm_probability

    def torch_mask_tokens(self, inputs, special_tokens_mask=None):
        labels = inputs.clone()
        probability_matrix = torch.full(labels.shape, self.mlm_probability)
        if special_tokens_mask is not None:
            probability_matrix.masked_fill_(special_tokens_mask, value=0.0)
        masked_indices = torch.bernoulli(probability_matrix).bool()
        labels[~masked_indices] = -100
        indices_replaced = torch.bernoulli(torch.full(labels.shape, 0.8)).bool() & masked_indices
        inputs[indices_replaced] = self.mask_token_id
        indices_random = torch.bernoulli(torch.full(labels.shape, 0.5)).bool() & masked_indices & ~indices_replaced
        random_words = torch.randint(self.vocab_size, labels.shape, dtype=torch.long)
        inputs[indices_random] = random_words[indices_random]
        return inputs, labels


model = nn.Sequential(nn.Embedding(30, 8), nn.Linear(8, 30))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
collator = DataCollatorForLanguageModeling(vocab_size=30, mask_token_id=3, mlm_probability=0.5)
input_ids, labels = collator.torch_mask_tokens(torch.randint(5, 30, (2, 6)))
labels[0, 0] = 7
logits = model(input_ids)
loss = nn.functional.cross_entropy(logits.view(-1, 30), labels.view(-1), ignore_index=-100)
loss.backward()
optimizer.step()
