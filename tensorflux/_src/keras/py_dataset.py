"""`keras.utils.PyDataset`: a Python object that gives `fit`/`evaluate`/`predict` batches by index.

    class Batches(keras.utils.PyDataset):
        def __len__(self):            # the number of batches
            ...
        def __getitem__(self, index): # batch `index`: x, (x, y) or (x, y, sample_weight)
            ...

`fit` asks for batches 0 … len-1 each epoch (in a random order with `shuffle=True`) and calls
`on_epoch_begin`/`on_epoch_end` around each epoch. `workers`, `use_multiprocessing` and
`max_queue_size` are kept as given (Keras' defaults 1, False, 10); tensorflux reads the batches in the
training thread, one after the other, which gives the same batches in the same order.
"""


class PyDataset:
    """Base class of datasets that produce batches from Python code (`__len__` and `__getitem__`)."""

    def __init__(self, workers=1, use_multiprocessing=False, max_queue_size=10):
        self._workers = workers
        self._use_multiprocessing = use_multiprocessing
        self._max_queue_size = max_queue_size

    @property
    def workers(self):
        return self._workers

    @workers.setter
    def workers(self, value):
        self._workers = value

    @property
    def use_multiprocessing(self):
        return self._use_multiprocessing

    @use_multiprocessing.setter
    def use_multiprocessing(self, value):
        self._use_multiprocessing = value

    @property
    def max_queue_size(self):
        return self._max_queue_size

    @max_queue_size.setter
    def max_queue_size(self, value):
        self._max_queue_size = value

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must implement `__getitem__(index)`.")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement `__len__()` (the number of batches).")

    @property
    def num_batches(self):
        try:
            return len(self)
        except NotImplementedError:
            return None

    def on_epoch_begin(self):
        pass

    def on_epoch_end(self):
        pass


API = {"keras.utils": ["PyDataset"]}
