"""`tf.distribute.MultiWorkerMirroredStrategy` on MPI: one synchronous replica per rank of the job.

Launch with `mpiexec -n N python train.py` (one host) or with a host file (several hosts); the strategy
learns its rank and the world size from MPI (`cluster_resolver.task_id`, `num_replicas_in_sync`). Run
without `mpiexec`, it is a job of one worker. TensorFlow's `TF_CONFIG` describes gRPC workers, which
tensorflux does not start: a `TF_CONFIG` naming several workers in a process not launched by `mpiexec`
is refused with the command to use instead.
"""
import enum
import json
import os

from . import mpi
from .strategies import _CPU, Strategy

__all__ = ["MultiWorkerMirroredStrategy", "CommunicationOptions", "CommunicationImplementation",
           "ClusterSpec", "MPIClusterResolver"]


class CommunicationImplementation(enum.Enum):
    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


class CommunicationOptions:
    """How collectives run. `bytes_per_pack` splits a fused all-reduce into packs of that many bytes (0:
    one pack per 64 MB); `timeout_seconds` and `implementation` are accepted (MPI chooses its algorithm)."""

    def __init__(self, bytes_per_pack=0, timeout_seconds=None, implementation=CommunicationImplementation.AUTO):
        if bytes_per_pack < 0:
            raise ValueError(f"bytes_per_pack must be non-negative, got {bytes_per_pack}.")
        if isinstance(implementation, str):
            implementation = CommunicationImplementation[implementation.upper()]
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation


class ClusterSpec:
    """`tf.train.ClusterSpec`: job names mapped to lists of task addresses."""

    def __init__(self, cluster):
        if isinstance(cluster, ClusterSpec):
            cluster = cluster.as_dict()
        if not isinstance(cluster, dict):
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to (i) a list of task "
                            "addresses, or (ii) a dictionary mapping integer task indices to addresses.")
        self._cluster = {}
        for job, tasks in cluster.items():
            self._cluster[job] = dict(tasks) if isinstance(tasks, dict) else dict(enumerate(tasks))

    def as_dict(self):
        out = {}
        for job, tasks in self._cluster.items():
            indices = sorted(tasks)
            out[job] = [tasks[i] for i in indices] if indices == list(range(len(indices))) else dict(tasks)
        return out

    @property
    def jobs(self):
        return list(self._cluster)

    def num_tasks(self, job_name):
        if job_name not in self._cluster:
            raise ValueError(f"No such job in cluster: {job_name!r}")
        return len(self._cluster[job_name])

    def task_indices(self, job_name):
        if job_name not in self._cluster:
            raise ValueError(f"No such job in cluster: {job_name!r}")
        return sorted(self._cluster[job_name])

    def task_address(self, job_name, task_index):
        try:
            return self._cluster[job_name][task_index]
        except KeyError:
            raise ValueError(f"No task with index {task_index!r} in job {job_name!r}") from None

    def __bool__(self):
        return bool(self._cluster)

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self._cluster == other._cluster

    __hash__ = None

    def __repr__(self):
        return f"ClusterSpec({self.as_dict()!r})"


class MPIClusterResolver:
    """Where this worker sits in the MPI job: task type "worker", task id = rank."""

    rpc_layer = "mpi"
    environment = "mpi"

    def __init__(self, world):
        self._world = world
        self.task_type = "worker" if world.size > 1 else None
        self.task_id = world.rank if world.size > 1 else None

    def cluster_spec(self):
        if self._world.size == 1:
            return ClusterSpec({})
        return ClusterSpec({"worker": [f"mpi-rank-{i}" for i in range(self._world.size)]})

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        return {}

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        return ""


def _refuse_grpc_cluster(world):
    raw = os.environ.get("TF_CONFIG")
    if not raw or world.size > 1:
        return
    try:
        config = json.loads(raw)
        workers = len(config.get("cluster", {}).get("worker", [])) + len(config.get("cluster", {}).get("chief", []))
    except (ValueError, AttributeError, TypeError):
        raise ValueError(f"TF_CONFIG is not valid JSON: {raw[:200]!r}") from None
    if workers > 1:
        raise ValueError(f"TF_CONFIG describes a cluster of {workers} gRPC workers, but this process was not "
                         f"launched by mpiexec. {mpi.LAUNCH_HINT}")


class MultiWorkerMirroredStrategy(Strategy):
    """Synchronous data parallelism across the workers of an MPI job (one replica each)."""

    def __init__(self, cluster_resolver=None, communication_options=None):
        world = mpi.world()
        _refuse_grpc_cluster(world)
        options = communication_options or CommunicationOptions()
        if not isinstance(options, CommunicationOptions):
            raise ValueError("communication_options must be an instance of "
                             "tf.distribute.experimental.CommunicationOptions")
        if options.bytes_per_pack:
            world.bucket_bytes = options.bytes_per_pack
        super().__init__((_CPU,), world)
        self._communication_options = options
        self._cluster_resolver = cluster_resolver or MPIClusterResolver(world)

    @property
    def cluster_resolver(self):
        return self._cluster_resolver


API = {"distribute": ["MultiWorkerMirroredStrategy"],
       "distribute.experimental": ["MultiWorkerMirroredStrategy", "CommunicationOptions",
                                   "CommunicationImplementation"],
       "train": ["ClusterSpec"]}
