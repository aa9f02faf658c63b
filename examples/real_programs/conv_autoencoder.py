"""A convolutional autoencoder on generated noisy blob images: Conv2d encoder,
ConvTranspose2d + Upsample / F.interpolate decoder, MSE loss."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


def make_images(n, size=16):
    yy, xx = torch.meshgrid(torch.linspace(-1, 1, size), torch.linspace(-1, 1, size),
                            indexing="ij")
    centers = torch.rand(n, 2, 1, 1) * 1.4 - 0.7
    widths = torch.rand(n, 1, 1) * 0.3 + 0.15
    d2 = (yy - centers[:, 0]) ** 2 + (xx - centers[:, 1]) ** 2
    clean = torch.exp(-d2 / (2 * widths ** 2)).unsqueeze(1)
    # sensor noise: the 64-number code cannot carry it, so the loss floors near its variance
    return clean + 0.15 * torch.randn_like(clean)


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 8, 3, stride=2, padding=1),   # 8x8
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(8, 16, 3, stride=2, padding=1),  # 4x4
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(16, 4, 1),
        )
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(4, 16, 2, stride=2),    # 8x8
            nn.LeakyReLU(0.2, inplace=True),
            nn.Upsample(scale_factor=2, mode="nearest"),  # 16x16
            nn.Conv2d(16, 8, 3, padding=1),
            nn.LeakyReLU(0.2, inplace=True),
        )
        self.head = nn.Conv2d(8, 1, 3, padding=1)

    def forward(self, x):
        z = self.encoder(x)
        y = self.decoder(z)
        y = F.interpolate(y, size=x.shape[-2:], mode="bilinear", align_corners=False)
        return self.head(y)


images = make_images(512)
loader = DataLoader(TensorDataset(images), batch_size=32, shuffle=True)
model = AutoEncoder()
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)

step = 0
for epoch in range(10):
    total = 0.0
    for (img,) in loader:
        output = model(img)
        loss = criterion(output, img)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * img.size(0)
        print(f"step {step} loss {loss.item():.5f}")
        step += 1
    print(f"epoch [{epoch + 1}/10], loss:{total / len(images):.5f}")
