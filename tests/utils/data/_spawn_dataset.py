"""A dataset importable without torch, for the DataLoader test with the 'spawn' start
method (a spawned worker imports the module that defines its dataset)."""
import ember
import ember.utils.data as ED


class Picklable(ED.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return ember.tensor([i, ED.get_worker_info().id])
