# source: https://github.com/google/inspiration_tree/issues/25
# expect: clean
import torch
import torch.nn as nn


class Tokenizer:
    def __init__(self):
        self.vocab = {"<s>": 0, "a": 1, "photo": 2, "of": 3}

    def add_tokens(self, tokens):
        new = [t for t in tokens if t not in self.vocab]
        for t in new:
            self.vocab[t] = len(self.vocab)
        return len(new)

    def tokenize(self, text):
        return text.split()

    def convert_tokens_to_ids(self, tokens):
        return [self.vocab[t] for t in tokens]

    def __len__(self):
        return len(self.vocab)


class CLIPTextModel(nn.Module):
    def __init__(self, vocab=4, dim=8):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab, dim)

    def get_input_embeddings(self):
        return self.token_embedding

    def resize_token_embeddings(self, n):
        old = self.token_embedding
        self.token_embedding = nn.Embedding(n, old.embedding_dim)
        with torch.no_grad():
            self.token_embedding.weight[: old.num_embeddings] = old.weight


class Pipeline:
    def __init__(self):
        self.tokenizer = Tokenizer()
        self.text_encoder = CLIPTextModel()


def load_tokens(pipe, data, device):
    with torch.no_grad():
        added_tokens = []
        for t_ in data.keys():
            added_tokens.append(t_)
        num_added_tokens = pipe.tokenizer.add_tokens(added_tokens)
        pipe.text_encoder.resize_token_embeddings(len(pipe.tokenizer))
        for token_ in data.keys():
            ref_token = pipe.tokenizer.tokenize(token_)
            ref_indx = pipe.tokenizer.convert_tokens_to_ids(ref_token)[0]
            embd_cur = data[token_].to(device).to(dtype=torch.float32)
            pipe.text_encoder.get_input_embeddings().weight[ref_indx] = embd_cur
    return num_added_tokens


pipe = Pipeline()
data = {"<v_l>": torch.randn(8), "<v_r>": torch.randn(8)}
load_tokens(pipe, data, "cpu")
