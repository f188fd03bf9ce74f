# source: https://github.com/gupta-abhay/setr-pytorch/issues/4
# expect: clean
import torch
import torch.nn as nn


class TransformerModel(nn.Module):
    """stands for the repo's TransformerModel: the encoded sequence and its intermediates"""

    def __init__(self, dim, depth, heads, mlp_dim, dropout_rate=0.1, attn_dropout_rate=0.1):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(dim, heads, mlp_dim, dropout_rate, batch_first=True)

    def forward(self, x):
        x = self.layer(x)
        return x, {"0": x}


class LearnedPositionalEncoding(nn.Module):
    def __init__(self, max_position_embeddings, embedding_dim, seq_length):
        super(LearnedPositionalEncoding, self).__init__()
        self.position_embeddings = nn.Parameter(torch.zeros(1, seq_length, embedding_dim))

    def forward(self, x):
        return x + self.position_embeddings


class SegmentationTransformer(nn.Module):
    def __init__(self, img_dim, patch_dim, num_channels, embedding_dim, num_heads, num_layers, hidden_dim, dropout_rate=0.0, attn_dropout_rate=0.0):
        super(SegmentationTransformer, self).__init__()
        assert embedding_dim % num_heads == 0
        assert img_dim % patch_dim == 0
        self.img_dim = img_dim
        self.embedding_dim = embedding_dim
        self.num_heads = num_heads
        self.patch_dim = patch_dim
        self.num_channels = num_channels
        self.dropout_rate = dropout_rate
        self.num_patches = int((img_dim // patch_dim) ** 2)
        self.seq_length = self.num_patches
        self.flatten_dim = patch_dim * patch_dim * num_channels
        self.linear_encoding = nn.Linear(self.flatten_dim, embedding_dim)
        self.position_encoding = LearnedPositionalEncoding(self.seq_length, self.embedding_dim, self.seq_length)
        self.pe_dropout = nn.Dropout(p=self.dropout_rate)
        self.transformer = TransformerModel(embedding_dim, num_layers, num_heads, hidden_dim, self.dropout_rate, attn_dropout_rate)
        self.pre_head_ln = nn.LayerNorm(embedding_dim)

    def encode(self, x):
        n, c, h, w = x.shape
        x = x.unfold(2, self.patch_dim, self.patch_dim).unfold(3, self.patch_dim, self.patch_dim).contiguous()
        x = x.view(n, c, -1, self.patch_dim**2)
        x = x.permute(0, 2, 3, 1).contiguous()
        x = x.view(x.size(0), -1, self.flatten_dim)
        x = self.linear_encoding(x)
        x = self.position_encoding(x)
        x = self.pe_dropout(x)
        x, intmd_x = self.transformer(x)
        x = self.pre_head_ln(x)
        return x, intmd_x

    def decode(self, x):
        raise NotImplementedError("Should be implemented in child class!!")

    def forward(self, x, auxillary_output_layers=None):
        encoder_output, intmd_encoder_outputs = self.encode(x)
        decoder_output = self.decode(encoder_output, intmd_encoder_outputs, auxillary_output_layers)
        return decoder_output

    def _get_padding(self, padding_type, kernel_size):
        assert padding_type in ["SAME", "VALID"]
        if padding_type == "SAME":
            _list = [(k - 1) // 2 for k in kernel_size]
            return tuple(_list)
        return tuple(0 for _ in kernel_size)

    def _reshape_output(self, x):
        x = x.view(x.size(0), int(self.img_dim / self.patch_dim), int(self.img_dim / self.patch_dim), self.embedding_dim)
        x = x.permute(0, 3, 1, 2).contiguous()
        return x


class SETR_Naive(SegmentationTransformer):
    def __init__(self, img_dim, patch_dim, num_channels, num_classes, embedding_dim, num_heads, num_layers, hidden_dim, dropout_rate=0.0, attn_dropout_rate=0.0):
        super(SETR_Naive, self).__init__(img_dim=img_dim, patch_dim=patch_dim, num_channels=num_channels, embedding_dim=embedding_dim, num_heads=num_heads, num_layers=num_layers, hidden_dim=hidden_dim, dropout_rate=dropout_rate, attn_dropout_rate=attn_dropout_rate)
        self.num_classes = num_classes
        self.conv1 = nn.Conv2d(self.embedding_dim, self.embedding_dim, kernel_size=1, stride=1, padding=self._get_padding("VALID", (1, 1)))
        self.bn1 = nn.BatchNorm2d(self.embedding_dim)
        self.act1 = nn.ReLU()
        self.conv2 = nn.Conv2d(self.embedding_dim, self.num_classes, kernel_size=1, stride=1, padding=self._get_padding("VALID", (1, 1)))
        self.upsample = nn.Upsample(scale_factor=self.patch_dim, mode="bilinear")

    def decode(self, x, intmd_x, intmd_layers=None):
        x = self._reshape_output(x)
        x = self.act1(self.bn1(self.conv1(x)))
        x = self.conv2(x)
        return self.upsample(x)


model = SETR_Naive(16, 4, 3, 5, embedding_dim=8, num_heads=2, num_layers=1, hidden_dim=16, dropout_rate=0.1, attn_dropout_rate=0.1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
images, masks = torch.randn(2, 3, 16, 16), torch.randint(0, 5, (2, 16, 16))
for _ in range(2):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(images), masks)
    loss.backward()
    optimizer.step()
# the effect: no decoder convolution is a parameter of the model
assert any(p.dim() == 4 for p in model.parameters())
