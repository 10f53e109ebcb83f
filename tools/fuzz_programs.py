"""Differential fuzzing of tensorflux: random small TensorFlow programs, eager vs tf.function.

    python tools/fuzz_programs.py --count 1000            # a random seed, printed first
    python tools/fuzz_programs.py --count 200 --seed 0    # the programs CI runs
    python tools/fuzz_programs.py --count 1 --seed 3 --first 198 --show   # one program's source

Program i of seed S is generated from `numpy.random.default_rng([S, i])`, so any mismatch can be replayed
from its (seed, index). Each mismatch is printed as a minimal reproducer script (the program shrunk to
the statements that still show it), then a summary counts programs and mismatches by kind and mode.
The generator and the comparison live in tests/fuzz/ (fuzz_generator.py, fuzz_compare.py).
"""
import argparse
import collections
import os
import sys
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "fuzz"))

import numpy as np  # noqa: E402

import fuzz_compare  # noqa: E402
import fuzz_generator  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100, help="number of programs")
    parser.add_argument("--seed", type=int, default=None, help="seed (default: a random one)")
    parser.add_argument("--first", type=int, default=0, help="index of the first program")
    parser.add_argument("--show", action="store_true", help="print every program's source")
    parser.add_argument("--no-shrink", action="store_true", help="print mismatching programs whole")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % (1 << 31))
    print(f"# seed {seed}, programs {args.first}..{args.first + args.count - 1}", flush=True)
    warnings.simplefilter("ignore")   # NumPy's overflow/NaN warnings are expected in random programs
    kinds = collections.Counter()
    failing = 0
    start = time.perf_counter()
    for i in range(args.first, args.first + args.count):
        program = fuzz_generator.generate(np.random.default_rng([seed, i]), label=f"{seed}/{i}")
        if args.show:
            print(program.source())
        mismatches = fuzz_compare.check(program)
        failing += bool(mismatches)
        for m in mismatches:
            kinds[m.key()] += 1
        if mismatches:   # one reproducer per program: the first mismatch (the others often share its cause)
            m = mismatches[0]
            small = program if args.no_shrink else fuzz_compare.shrink(program, m)
            others = "".join(f"# also: {o.kind} ({o.mode}): {o.detail}\n" for o in mismatches[1:])
            print(f"\n# ---- program {seed}/{i} ----\n" + others + fuzz_compare.reproducer(small, m), flush=True)
    elapsed = time.perf_counter() - start
    print(f"\n# {args.count} programs in {elapsed:.1f} s, {failing} with mismatches")
    for (kind, mode), n in sorted(kinds.items()):
        print(f"#   {kind:20s} {mode:7s} {n}")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
