"""A small CNN classifying generated shape images (square / cross / ring / bar, some
mislabelled),
with flips and random crops as augmentation, a Dataset and a DataLoader,
BatchNorm, Dropout and a OneCycle learning-rate schedule."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
SIZE = 16


def draw(kind, g):
    img = torch.zeros(SIZE, SIZE)
    c = torch.randint(5, SIZE - 5, (2,), generator=g)
    r = int(torch.randint(2, 4, (1,), generator=g))
    y, x = int(c[0]), int(c[1])
    if kind == 0:  # filled square
        img[y - r:y + r + 1, x - r:x + r + 1] = 1.0
    elif kind == 1:  # cross
        img[y - r:y + r + 1, x] = 1.0
        img[y, x - r:x + r + 1] = 1.0
    elif kind == 2:  # ring
        yy, xx = torch.meshgrid(torch.arange(SIZE), torch.arange(SIZE), indexing="ij")
        d = ((yy - y) ** 2 + (xx - x) ** 2).float().sqrt()
        img[(d - r).abs() < 0.7] = 1.0
    else:  # horizontal bar
        img[y:y + 2, 1:SIZE - 1] = 1.0
    return img + 0.1 * torch.randn(SIZE, SIZE, generator=g)


class Shapes(Dataset):
    def __init__(self, n, seed, train):
        g = torch.Generator().manual_seed(seed)
        self.labels = torch.randint(0, 4, (n,), generator=g)
        self.images = torch.stack([draw(int(k), g) for k in self.labels]).unsqueeze(1)
        # a fifth of the labels are wrong: the loss floor stays well above zero
        noisy = torch.rand(n, generator=g) < 0.2
        self.labels[noisy] = torch.randint(0, 4, (int(noisy.sum()),), generator=g)
        self.train = train

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        img = self.images[i]
        if self.train:
            if torch.rand(1).item() < 0.5:
                img = torch.flip(img, dims=[2])
            padded = F.pad(img, (2, 2, 2, 2))
            dy, dx = torch.randint(0, 5, (2,)).tolist()
            img = padded[:, dy:dy + SIZE, dx:dx + SIZE]
        return img, self.labels[i]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(16)
        self.dropout = nn.Dropout(0.25)
        self.fc1 = nn.Linear(16 * 4 * 4, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        x = torch.flatten(x, 1)
        x = self.dropout(F.relu(self.fc1(x)))
        return self.fc2(x)


train_set = Shapes(512, seed=1, train=True)
test_set = Shapes(256, seed=2, train=False)
train_loader = DataLoader(train_set, batch_size=32, shuffle=True, drop_last=True)
test_loader = DataLoader(test_set, batch_size=64)

model = Net()
epochs = 6
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, epochs=epochs,
                                                steps_per_epoch=len(train_loader))
step = 0
for epoch in range(epochs):
    model.train()
    for data, target in train_loader:
        optimizer.zero_grad()
        output = model(data)
        loss = F.cross_entropy(output, target)
        loss.backward()
        optimizer.step()
        scheduler.step()
        print(f"step {step} loss {loss.item():.4f}")
        step += 1
    model.eval()
    correct = 0
    test_loss = 0.0
    with torch.no_grad():
        for data, target in test_loader:
            output = model(data)
            test_loss += F.cross_entropy(output, target, reduction="sum").item()
            correct += (output.argmax(dim=1) == target).sum().item()
    print(f"epoch {epoch}: test loss {test_loss / len(test_set):.4f}, "
          f"accuracy {100.0 * correct / len(test_set):.1f}%, lr {scheduler.get_last_lr()[0]:.4f}")
