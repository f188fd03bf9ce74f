# source: https://github.com/tulerfeng/Video-R1/issues/31
# expect: shape '[2, 4]' is invalid for input of size 6
# buggy-line: 20
import torch


class GRPOTrainer:
    def __init__(self, num_devices=2, num_generations=4):
        self.num_devices = num_devices
        self.num_generations = num_generations
        self.policy = torch.nn.Linear(5, 1)

    def gather(self, per_device):
        # accelerator.gather: the rewards of every device, concatenated
        return torch.cat(per_device)

    def compute_loss(self, per_device_inputs):
        rewards = [self.policy(x).squeeze(-1) for x in per_device_inputs]
        gathered_rewards = self.gather(rewards)
        rewards_per_device = gathered_rewards.view(self.num_devices, self.num_generations)
        mean = rewards_per_device.mean(1, keepdim=True)
        std = rewards_per_device.std(1, keepdim=True)
        advantages = (rewards_per_device - mean) / (std + 1e-4)
        return -(advantages.detach() * rewards_per_device).mean()


trainer = GRPOTrainer()
steps = [
    [torch.randn(4, 5), torch.randn(4, 5)],
    [torch.randn(4, 5), torch.randn(2, 5)],  # the last iteration: the data ran out
]
for per_device_inputs in steps:
    trainer.compute_loss(per_device_inputs).backward()
