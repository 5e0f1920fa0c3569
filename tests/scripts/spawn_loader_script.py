import torch
from torch.utils.data import DataLoader, TensorDataset
if __name__ == "__main__":
    ds = TensorDataset(torch.arange(8.))
    print([b[0].tolist() for b in DataLoader(ds, batch_size=4, num_workers=2, multiprocessing_context="spawn")])
