"""`jit_compile=True` for a ConcreteFunction: its whole graph as one compiled kernel, as XLA does it.

TensorFlow's meaning is kept: the function compiles on its first call, synchronously, or the call raises
TensorFlow's `InvalidArgumentError` ("Detected unsupported operations when trying to compile graph …")
for an op XLA has no kernel for either (strings, Python callbacks, files: `lowering.NOT_XLA_COMPILABLE`).
Two cases TensorFlow does not have, each with a warning: an op XLA compiles but tensorflux's lowering
does not (yet) — matmul, random ops, reductions over some axes, float-to-int casts, broadcasting
selects — makes the function run in compiled regions (runtime/regions.py: each lowerable stretch of the
graph one kernel, the other ops between them on the interpreter; the NumPy path when no region is worth
it; one warning per function), and a machine without numba runs the NumPy path (`pip install
"tensorflux[jit]"`; one warning per process). Captured variables are read and updated inside kernels.

Automatic tiering of a hot function that does not lower whole compiles regions too, in the background,
but only for a function holding a loop: measured on loop-free graphs (two matmuls and an SGD update),
regions ran at 0.86-1.10x the generated NumPy code, no win for a compile.
`experimental_get_compiler_ir(...)(stage='hlo')` returns the kernel's source.
"""
import logging

from ..framework import errors
from ..runtime import lowering, tiering

__all__ = ["must_compile", "lowered_or_none", "worth_tiering", "regions_in_background", "compiler_ir",
           "COMPILER_IR_STAGES"]

logger = logging.getLogger("tensorflux")

_WARNED_NO_NUMBA = []
MIN_TIERING_WORK = 8     # ops (a While loop counts 100) below which a hot function keeps its NumPy code
COMPILER_IR_STAGES = ("hlo", "hlo_serialized", "optimized_hlo", "optimized_hlo_serialized", "optimized_hlo_dot")


def _lower(cf):
    """(Lowered or None, Unsupported or None) for `cf`'s graph, computed once."""
    cached = getattr(cf, "_lowering", None)
    if cached is None:
        try:
            cached = (lowering.lower(cf.graph, list(cf._trace.flat_outputs), list(cf.graph.inputs),
                                     "kernel", parallel=tiering.parallel_available()), None)
        except lowering.Unsupported as e:
            cached = (None, e)
        cf._lowering = cached
    return cached


def lowered_or_none(cf):
    return _lower(cf)[0]


def worth_tiering(cf):
    """The lowered graph when automatic tiering should compile it: bit-equal to the NumPy path and doing
    enough work per call that a kernel call (about 1 us) is a win; else None."""
    lowered = _lower(cf)[0]
    if lowered is None or not lowered.exact or lowered.work < MIN_TIERING_WORK:
        return None
    return lowered


def regions_in_background(cf, switch):
    """For a hot function that does not lower whole: when it holds a loop and numba is installed, its
    compiled regions are planned and built in a background thread and `switch(runner)` is called with
    them; else nothing (numba is asked for last: a loop-free function never imports it)."""
    if _lower(cf)[1] is None or not tiering.holds_loop(cf.graph) or tiering.numba_module() is None:
        return
    from ..runtime import regions    # here, not at import: only a hot function with a loop needs it
    graph, outputs = cf.graph, list(cf._trace.flat_outputs)
    regions.compile_in_background(
        lambda: regions.plan(graph, outputs, list(graph.inputs), inside_control_flow=True,
                             nested_min_elements=regions.AUTOMATIC_NESTED_MIN_ELEMENTS), switch)


def _regions_now(cf):
    """The compiled-regions runner of `cf` built now, or None (no region worth it, no numba, a failure)."""
    from ..runtime import regions
    try:
        region_plan = regions.plan(cf.graph, list(cf._trace.flat_outputs), list(cf.graph.inputs),
                                   inside_control_flow=True)
        return None if region_plan is None else regions.compile_now(region_plan)
    except Exception as e:   # numba could not type a region: the NumPy path gives the same values
        logger.debug("tensorflux: compiling the regions of %s failed: %s", cf.name, e)
        return None


def _unsupported_error(cf, e):
    op, name = e.op, cf.name
    return errors.InvalidArgumentError(
        None, op, f"Detected unsupported operations when trying to compile graph {name}[_XlaMustCompile=true] "
                  f"on XLA_CPU_JIT: {op.type} (No registered '{op.type}' OpKernel for XLA_CPU_JIT devices "
                  f"compatible with node {{{{node {op.name}}}}}){{{{node {op.name}}}}} [Op:{name}]")


def must_compile(cf, numpy_fn, sample_args):
    """The runner a jit_compile=True function calls: its compiled kernel (built now for `sample_args`'
    types), or `numpy_fn` after a warning when tensorflux cannot compile what XLA could."""
    lowered, problem = _lower(cf)
    if problem is not None:
        if problem.xla_has_no_kernel:
            raise _unsupported_error(cf, problem)
        runner = _regions_now(cf) if tiering.numba_module() is not None else None
        if runner is not None:
            logger.warning("tensorflux: %s has jit_compile=True but tensorflux cannot compile it whole (%s); it "
                           "runs in compiled regions around that op", cf.name, problem)
            return runner
        logger.warning("tensorflux: %s has jit_compile=True but tensorflux cannot compile it (%s); it runs "
                       "on the NumPy path", cf.name, problem)
        return numpy_fn
    if not lowered.work:   # nothing to compute (an identity): the generated code is already the fastest
        return numpy_fn
    try:
        runner = tiering.compile_now(lowered, sample_args)
    except Exception as e:   # numba could not type the kernel: the NumPy path gives the same values
        logger.warning("tensorflux: %s has jit_compile=True but numba could not compile it (%s); it runs on "
                       "the NumPy path", cf.name, str(e).splitlines()[0] if str(e) else type(e).__name__)
        return numpy_fn
    if runner is None:
        if not _WARNED_NO_NUMBA:    # once per process: every jit_compile function would say the same
            _WARNED_NO_NUMBA.append(True)
            logger.warning('tensorflux: jit_compile=True needs numba (pip install "tensorflux[jit]"); %s and '
                           'other jit_compile functions run on the NumPy path', cf.name)
        return numpy_fn
    return tiering.guarded(runner, numpy_fn)


def compiler_ir(cf, stage="hlo"):
    """The compiled kernel's source for `cf` (every stage gives the same text: there is one IR)."""
    if stage not in COMPILER_IR_STAGES:
        raise ValueError(f"Invalid stage selected: {stage!r}. Valid values are: "
                         f"{', '.join(repr(s) for s in COMPILER_IR_STAGES)}")
    lowered, problem = _lower(cf)
    if problem is not None:
        if problem.xla_has_no_kernel:
            raise _unsupported_error(cf, problem)
        raise errors.UnimplementedError(None, problem.op, f"tensorflux cannot compile {cf.name}: {problem}")
    return lowered.source
