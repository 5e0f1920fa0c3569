"""The seeds' distributed examples run as written under ``python -m ember run`` (``torch``
resolves to ember), on CPU: seed 004's four DDP steps with ``mp.spawn`` and its model-
parallel + DDP example, seed 002's DataParallel / DistributedDataParallel lines. Where the
seed names a GPU rank (``model.to(rank)``, ``input.to(dev0)``) the device is 'cpu'; the
seed's typos (``input.to(dev0),``, ``labels,to(dev1)``) are fixed, ``model.to(rank)`` becomes
a private copy (what a copy to the rank's GPU is; the spawned model is in shared memory) and the names it leaves
free (dataloader, model, loss, optimizer class, ``setup``/``cleanup`` from the PyTorch
tutorial) are defined. Each script checks that the ranks end with identical weights that
moved from the start."""
import os
import subprocess
import sys

import pytest

import ember.distributed as edist

sys.path.insert(0, os.path.dirname(__file__))
from _ranks import free_port  # noqa: E402

COMMON = r'''
import os
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset

n_epochs = 2


def check_replicas(model, start):
    """Every rank holds the same weights, and they moved from the start."""
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    outs = [torch.zeros_like(flat) for _ in range(dist.get_world_size())]
    dist.all_gather(outs, flat)
    assert all(torch.equal(outs[0], o) for o in outs), 'replicas differ'
    assert not torch.equal(flat, start), 'weights did not move'
    import sys
    sys.stdout.write(f'rank {dist.get_rank()} ok\n')   # one write: lines of ranks don't mix
    sys.stdout.flush()
'''

SEED004_DDP = COMMON + r'''
import copy

def dist_training_loop(rank,
                       world_size,
                       dataloader,
                       model,
                       loss_fn,
                       optimizer):
    dist.init_process_group("gloo",
                            rank=rank,
                            world_size=world_size)  # ①
    # ②  seed: model.to(rank), a private copy of the model on this rank's GPU; on CPU the
    # model spawn handed over lives in shared memory (as torch.multiprocessing does it), so
    # the private copy is made explicitly
    model = copy.deepcopy(model).to('cpu')
    ddp_model = DDP(model,
                    device_ids=[rank])  # ③
    start = torch.cat([p.detach().reshape(-1) for p in model.parameters()]).clone()
    optimizer = optimizer(
        ddp_model.parameters(),
        lr=0.001)
    for epochs in range(n_epochs):
        for input, labels in dataloader:
            input = input.to('cpu')      # seed: input.to(rank)
            labels = labels.to('cpu')    # ④   (seed: labels.to(rank))
            optimizer.zero_grad()
            outputs = ddp_model(input)  # ⑤
            loss = loss_fn(outputs, labels)
            loss.backward()
            optimizer.step()
    check_replicas(model, start)
    dist.destroy_process_group()


if __name__=="__main__":
    os.environ['MASTER_ADDR'] = 'localhost'
    torch.manual_seed(0)
    dataloader = DataLoader(TensorDataset(torch.randn(32, 10), torch.randn(32, 5)), batch_size=8)
    model = nn.Sequential(nn.Linear(10, 10), nn.ReLU(), nn.Linear(10, 5))
    world_size = 2
    mp.spawn(dist_training_loop,
             args=(world_size, dataloader, model, nn.MSELoss(), optim.SGD),
             nprocs=world_size,
             join=True)
    print('main done')
'''

SEED004_MP = COMMON + r'''

def setup(rank, world_size):
    os.environ['MASTER_ADDR'] = 'localhost'
    dist.init_process_group("gloo", rank=rank, world_size=world_size)


def cleanup():
    dist.destroy_process_group()


class Simple2GPUModel(nn.Module):
    def __init__(self, dev0, dev1):
        super(Simple2GPUModel,
              self).__init__()
        self.dev0 = dev0
        self.dev1 = dev1
        self.net1 = torch.nn.Linear(
            10, 10).to(dev0)
        self.relu = torch.nn.ReLU()
        self.net2 = torch.nn.Linear(
            10, 5).to(dev1)

    def forward(self, x):
        x = x.to(self.dev0)
        x = self.relu(self.net1(x))
        x = x.to(self.dev1)
        return self.net2(x)


class PipelinedModel(nn.Module):
    """The seed's pipelining pattern (split the batch, run seq1 on the next split while
    seq2 runs on the previous one), on 'cpu' devices."""
    def __init__(self, split_size=4):
        super().__init__()
        self.seq1 = nn.Sequential(nn.Linear(10, 16), nn.ReLU()).to('cpu')
        self.seq2 = nn.Sequential(nn.Linear(16, 16), nn.ReLU()).to('cpu')
        self.fc = nn.Linear(16, 5).to('cpu')
        self.split_size = split_size

    def forward(self, x):
        splits = iter(x.split(self.split_size, dim=0))
        s_next = next(splits)
        s_prev = self.seq1(s_next).to('cpu')
        ret = []
        for s_next in splits:
            s_prev = self.seq2(s_prev)  # ①
            ret.append(self.fc(s_prev.view(s_prev.size(0), -1)))
            s_prev = self.seq1(s_next).to('cpu')  # ②
        s_prev = self.seq2(s_prev)
        ret.append(self.fc(s_prev.view(s_prev.size(0), -1)))
        return torch.cat(ret)


def model_parallel_training(rank, world_size):
    print(f"Running DDP with a model parallel")
    setup(rank, world_size)
    # set up mp_model and devices for this process
    dev0 = 'cpu'   # seed: rank * 2
    dev1 = 'cpu'   # seed: rank * 2 + 1
    torch.manual_seed(rank)
    mp_model = Simple2GPUModel(dev0, dev1)
    ddp_mp_model = DDP(mp_model)  # ①
    start = torch.cat([p.detach().reshape(-1) for p in mp_model.parameters()]).clone()
    loss_fn = nn.MSELoss()
    optimizer = optim.SGD(
        ddp_mp_model.parameters(), lr=0.001)
    torch.manual_seed(100 + rank)
    dataloader = [(torch.randn(8, 10), torch.randn(8, 5)) for _ in range(3)]
    for epochs in range(n_epochs):
        for input, labels in dataloader:
            input = input.to(dev0)
            labels = labels.to(dev1)  # ②
            optimizer.zero_grad()
            outputs = ddp_mp_model(input)  # ③
            loss = loss_fn(outputs, labels)
            loss.backward()
            optimizer.step()
    check_replicas(mp_model, start)
    # the pipelined model gives the unsplit model's outputs, and trains under DDP
    pm = PipelinedModel()
    x = torch.randn(12, 10)
    ref = pm.fc(pm.seq2(pm.seq1(x)))
    assert torch.allclose(pm(x), ref, atol=1e-6)
    dp = DDP(pm)
    start = torch.cat([p.detach().reshape(-1) for p in pm.parameters()]).clone()
    opt = optim.SGD(dp.parameters(), lr=0.01)
    for input, labels in dataloader:
        opt.zero_grad()
        loss_fn(dp(input), labels).backward()
        opt.step()
    check_replicas(pm, start)
    cleanup()


if __name__ == "__main__":
    mp.spawn(model_parallel_training, args=(2,), nprocs=2, join=True)
    print('main done')
'''

SEED002 = COMMON + r'''

def worker(rank, world_size):
    os.environ['MASTER_ADDR'] = 'localhost'
    dist.init_process_group('gloo', rank=rank, world_size=world_size)
    torch.manual_seed(rank)
    model = nn.Sequential(nn.Linear(6, 4), nn.ReLU(), nn.Linear(4, 2))
    model = torch.nn.parallel.DistributedDataParallel(model)
    start = torch.cat([p.detach().reshape(-1) for p in model.parameters()]).clone()
    opt = optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        model(torch.randn(5, 6)).pow(2).mean().backward()
        opt.step()
    check_replicas(model.module, start)
    dist.destroy_process_group()


if __name__ == '__main__':
    model = nn.Linear(6, 2)
    model = nn.DataParallel(model, device_ids=[0,1], output_device=None, dim=0)
    x = torch.randn(4, 6)
    assert torch.equal(model(x), model.module(x))   # CPU only: the module runs as it is
    mp.spawn(worker, args=(2,), nprocs=2, join=True)
    print('main done')
'''


@pytest.mark.skipif(not edist.is_mpi_available(), reason='mpi4py not installed')
@pytest.mark.parametrize('name', ['SEED004_DDP', 'SEED004_MP', 'SEED002'])
def test_seed_script(name, tmp_path):
    script = tmp_path / f'{name.lower()}.py'
    script.write_text(globals()[name])
    env = dict(os.environ, OMP_NUM_THREADS='1', MASTER_PORT=str(free_port()))
    p = subprocess.run([sys.executable, '-m', 'ember', 'run', str(script)], capture_output=True,
                       text=True, timeout=60, env=env, cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.count(' ok') == (4 if name == 'SEED004_MP' else 2), p.stdout
    assert 'main done' in p.stdout
