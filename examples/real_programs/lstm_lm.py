"""An LSTM word-level language model on generated sentences of different
lengths, batched with pad_sequence and packed for the LSTM."""
import random

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

random.seed(0)
torch.manual_seed(0)

# sentences from a small grammar: "<s> det adj* noun verb det noun </s>"
det = ["the", "a", "every"]
adj = ["big", "red", "quiet", "old"]
noun = ["dog", "cat", "tree", "car", "house"]
verb = ["sees", "hits", "likes", "finds"]


def sentence():
    words = [random.choice(det)] + random.sample(adj, random.randint(0, 3)) + [random.choice(noun)]
    words += [random.choice(verb), random.choice(det), random.choice(noun)]
    return ["<s>"] + words + ["</s>"]


sentences = [sentence() for _ in range(600)]
vocab = ["<pad>"] + sorted({w for s in sentences for w in s})
word2idx = {w: i for i, w in enumerate(vocab)}
PAD = word2idx["<pad>"]
data = [torch.tensor([word2idx[w] for w in s]) for s in sentences]


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.2):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp, padding_idx=PAD)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout, batch_first=True)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, inputs, lengths):
        emb = self.drop(self.encoder(inputs))
        packed = pack_padded_sequence(emb, lengths, batch_first=True, enforce_sorted=False)
        output, (h, c) = self.rnn(packed)
        output, _ = pad_packed_sequence(output, batch_first=True, total_length=inputs.size(1))
        return self.decoder(self.drop(output))


model = RNNModel(len(vocab), 32, 64, 2)
criterion = nn.CrossEntropyLoss(ignore_index=PAD)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=60, gamma=0.5)
batch_size = 24

step = 0
for epoch in range(5):
    random.shuffle(data)
    model.train()
    for i in range(0, len(data) - batch_size + 1, batch_size):
        batch = data[i:i + batch_size]
        lengths = torch.tensor([len(s) - 1 for s in batch])
        inputs = pad_sequence([s[:-1] for s in batch], batch_first=True, padding_value=PAD)
        targets = pad_sequence([s[1:] for s in batch], batch_first=True, padding_value=PAD)
        optimizer.zero_grad()
        output = model(inputs, lengths)
        loss = criterion(output.reshape(-1, len(vocab)), targets.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        scheduler.step()
        print(f"step {step} loss {loss.item():.4f}")
        step += 1
    print(f"epoch {epoch}: lr {scheduler.get_last_lr()[0]:.5f}")

model.eval()
with torch.no_grad():
    words = [word2idx["<s>"]]
    for _ in range(12):
        out = model(torch.tensor([words]), torch.tensor([len(words)]))
        nxt = int(torch.multinomial(out[0, -1].softmax(-1), 1))
        words.append(nxt)
        if vocab[nxt] == "</s>":
            break
print("sample:", " ".join(vocab[w] for w in words))
