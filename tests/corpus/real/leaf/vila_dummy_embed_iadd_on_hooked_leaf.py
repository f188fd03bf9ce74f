# source: https://github.com/NVlabs/VILA/pull/199
# expect: a leaf Variable that requires grad is being used in an in-place operation
# buggy-line: 43
from collections import deque

import torch
import torch.nn as nn


class LLM(nn.Module):
    def __init__(self, vocab=32, hidden=8):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, hidden)
        self.layers = nn.Sequential(nn.Linear(hidden, hidden), nn.GELU(), nn.Linear(hidden, vocab))

    def get_input_embeddings(self):
        return self.embed_tokens

    def enable_input_require_grads(self):
        """as transformers' PreTrainedModel does, for gradient checkpointing with frozen embeddings"""

        def make_inputs_require_grads(module, input, output):
            output.requires_grad_(True)

        self._require_grads_hook = self.get_input_embeddings().register_forward_hook(make_inputs_require_grads)


class LlavaLlamaModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.llm = LLM()
        self.mm_projector = nn.Linear(4, 8)

    def _embed(self, input_ids, media, labels, attention_mask):
        media_embeds = {"dummy": deque()}
        if "image" not in media:
            # a text-only batch: a dummy image keeps the projector in the graph
            media_embeds["dummy"].append(self.mm_projector(torch.zeros(1, 4)))
        text_embeds = self.llm.embed_tokens(input_ids)
        # This is a workaround to make sure the dummy embeddings are consumed
        while media_embeds.get("dummy"):
            dummy_embed = media_embeds["dummy"].popleft()
            text_embeds += torch.sum(dummy_embed) * 0
        return text_embeds, labels, attention_mask

    def forward(self, input_ids, media, labels, attention_mask):
        inputs_embeds, labels, attention_mask = self._embed(input_ids, media, labels, attention_mask)
        logits = self.llm.layers(inputs_embeds)
        return nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1))


model = LlavaLlamaModel()
# tune the projector only; the LLM is frozen and trained with gradient checkpointing
model.llm.requires_grad_(False)
model.llm.enable_input_require_grads()
optimizer = torch.optim.AdamW(model.mm_projector.parameters(), lr=1e-4)
input_ids = torch.randint(0, 32, (2, 5))
loss = model(input_ids, {}, input_ids, torch.ones(2, 5, dtype=torch.bool))
loss.backward()
optimizer.step()
