"""Eigen's ThreadPoolDevice as TensorFlow's CPU kernels use it: the intra-op pool's size, and the blocks
its `parallelFor` cuts n units of work into by the cost model. Kernels whose order of additions or of
random draws follows those blocks (BiasAddGrad, Multinomial's streams, full float32 sums) compute them
here, so that their results are TensorFlow's for this machine's CPU count.
"""
import os

__all__ = ["pool_size", "cost_model_threads", "parallel_for_blocks", "STARTUP_CYCLES", "PER_THREAD_CYCLES",
           "TASK_CYCLES"]

# Eigen's cost model (TensorCostModel.h): the cycles a thread must save to be started and the work one
# more thread needs, and the work of one parallelFor task; parallelFor over-shards by 4.
STARTUP_CYCLES = 100000.0
PER_THREAD_CYCLES = 100000.0
TASK_CYCLES = 40000.0
_OVERSHARDING = 4


def pool_size():
    """TensorFlow's intra-op pool size: the CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:      # not on Linux
        return os.cpu_count() or 1


def _divup(a, b):
    return -(-a // b)


def cost_model_threads(count, cost, threads):
    """Eigen's CostModel::numThreads for `count` coefficients of `cost` cycles each."""
    wanted = (count * cost - STARTUP_CYCLES) / PER_THREAD_CYCLES + 0.9
    return min(threads, max(1, int(wanted)))


def parallel_for_blocks(n, cost, threads):
    """The [start, limit) ranges Eigen's ThreadPoolDevice::parallelFor(n, cost, f) calls f with: blocks of
    at least a task's work, made coarser while the threads stay as busy."""
    if n <= 0:
        return []
    if n == 1 or threads <= 1 or cost_model_threads(n, cost, threads) == 1:
        return [(0, n)]
    block_size_f = 1.0 / (cost / TASK_CYCLES) if cost > 0 else float(n)    # Eigen's 1 / taskSize(1, cost)
    block_size = min(n, max(_divup(n, _OVERSHARDING * threads), int(block_size_f)))
    max_block_size = min(n, 2 * block_size)
    block_count = _divup(n, block_size)
    best = block_count / (_divup(block_count, threads) * threads)
    previous = block_count
    while best < 1.0 and previous > 1:
        coarser = _divup(n, previous - 1)
        if coarser > max_block_size:
            break
        count = _divup(n, coarser)
        previous = count
        efficiency = count / (_divup(count, threads) * threads)
        if efficiency + 0.01 >= best:
            block_size, block_count = coarser, count
            best = max(best, efficiency)
    return [(i * block_size, min(n, (i + 1) * block_size)) for i in range(block_count)]
