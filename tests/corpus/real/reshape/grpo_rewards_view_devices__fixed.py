# source: https://github.com/tulerfeng/Video-R1/issues/31
# expect: clean
import torch


class GRPOTrainer:
    def __init__(self, num_devices=2, num_generations=4):
        self.num_devices = num_devices
        self.num_generations = num_generations
        self.policy = torch.nn.Linear(5, 1)

    def gather(self, per_device):
        return torch.cat(per_device)

    def compute_loss(self, per_device_inputs):
        rewards = [self.policy(x).squeeze(-1) for x in per_device_inputs]
        gathered_rewards = self.gather(rewards)
        rewards_per_device = gathered_rewards.view(-1, self.num_generations)
        mean = rewards_per_device.mean(1, keepdim=True)
        std = rewards_per_device.std(1, keepdim=True)
        advantages = (rewards_per_device - mean) / (std + 1e-4)
        return -(advantages.detach() * rewards_per_device).mean()


def full_groups(steps, num_generations=4):
    # drop the incomplete last batch (dataloader drop_last=True)
    return [s for s in steps if sum(x.size(0) for x in s) % num_generations == 0 and all(x.size(0) == num_generations for x in s)]


trainer = GRPOTrainer()
steps = [
    [torch.randn(4, 5), torch.randn(4, 5)],
    [torch.randn(4, 5), torch.randn(2, 5)],
]
for per_device_inputs in full_groups(steps):
    trainer.compute_loss(per_device_inputs).backward()
