"""Which of two ways runs a step of several local replicas faster, learnt from timing both.

The ways give the same bits (the replicas' values are reduced in replica order either way), so the choice
is speed only, and it depends on the model and on the machine's load: the steps alternate between the two
until each has PROBES timed steps, the faster median wins, and after REPROBE_AFTER steps both are timed
again (the load may have changed).
"""
import numpy as np

__all__ = ["FasterWay"]


class FasterWay:
    PROBES = 5
    REPROBE_AFTER = 500

    def __init__(self, ways=("whole", "at once")):
        self._ways = tuple(ways)
        self._times = {way: [] for way in self._ways}
        self._chosen, self._steps = None, 0

    def choose(self, way):
        """Runs every step `way`, untimed."""
        self._chosen, self._steps = way, float("-inf")

    def next(self):
        if self._chosen is not None:
            self._steps += 1
            if self._steps <= self.REPROBE_AFTER:
                return self._chosen
            self._times, self._chosen = {way: [] for way in self._ways}, None
        return min(self._times, key=lambda way: len(self._times[way]))

    def record(self, way, seconds):
        if self._chosen is not None:
            return
        self._times[way].append(seconds)
        if all(len(times) >= self.PROBES for times in self._times.values()):
            self._chosen = min(self._times, key=lambda w: float(np.median(self._times[w])))
            self._steps = 0
