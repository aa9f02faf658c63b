"""REINFORCE on a small corridor world written here: the agent starts at a
random cell and is paid for reaching the right end quickly."""
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

random.seed(0)
torch.manual_seed(0)


class Corridor:
    """Cells 0..n-1; actions 0 = left, 1 = stay, 2 = right; +1 at the right end,
    -0.05 for every step, at most max_steps steps."""

    def __init__(self, n=8, max_steps=20):
        self.n, self.max_steps = n, max_steps

    def reset(self):
        self.pos, self.t = random.randrange(self.n - 1), 0
        return self.observe()

    def observe(self):
        obs = np.zeros(self.n, dtype=np.float32)
        obs[self.pos] = 1.0
        return obs

    def step(self, action):
        self.pos = min(max(self.pos + action - 1, 0), self.n - 1)
        self.t += 1
        done = self.pos == self.n - 1 or self.t >= self.max_steps
        reward = 1.0 if self.pos == self.n - 1 else -0.05
        return self.observe(), reward, done


class Policy(nn.Module):
    def __init__(self, n_obs, n_act):
        super().__init__()
        self.affine1 = nn.Linear(n_obs, 32)
        self.affine2 = nn.Linear(32, n_act)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        return F.softmax(self.affine2(F.relu(self.affine1(x))), dim=1)


env = Corridor()
policy = Policy(env.n, 3)
optimizer = optim.Adam(policy.parameters(), lr=1e-2)
eps = np.finfo(np.float32).eps.item()
gamma = 0.95


def select_action(state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    probs = policy(state)
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode():
    R = 0
    returns = []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    policy_loss = [-log_prob * R for log_prob, R in zip(policy.saved_log_probs, returns)]
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]


running = None
for episode in range(400):
    state, ep_reward = env.reset(), 0.0
    for t in range(env.max_steps):
        action = select_action(state)
        state, reward, done = env.step(action)
        policy.rewards.append(reward)
        ep_reward += reward
        if done:
            break
    running = ep_reward if running is None else 0.95 * running + 0.05 * ep_reward
    if len(policy.rewards) > 1:
        finish_episode()
    else:
        del policy.rewards[:]
        del policy.saved_log_probs[:]
    print(f"step {episode} length {t + 1}")
    if episode % 50 == 0:
        print(f"episode {episode}: running reward {running:.3f}")
print(f"final running reward {running:.3f}")
