"""A background compile must not swallow the warnings other threads raise (numba compiles inside
`warnings.catch_warnings`, whose state is process-wide before Python 3.14)."""
import threading
import warnings

from tensorflux._src.ops import jit


def _compile_like_numba(entered, release):
    with jit.background_compile():
        with warnings.catch_warnings(record=True):     # what numba's compiler does around each phase
            entered.set()
            release.wait(10)


def test_warnings_raised_while_a_background_compile_runs_reach_the_program():
    entered, release = threading.Event(), threading.Event()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiler = threading.Thread(target=_compile_like_numba, args=(entered, release))
        compiler.start()
        assert entered.wait(10)
        warnings.warn("raised while the compiler is inside its catch_warnings", UserWarning)
        release.set()
        compiler.join(10)
        warnings.warn("raised after it", UserWarning)
    assert [str(w.message) for w in caught] == ["raised while the compiler is inside its catch_warnings",
                                                "raised after it"]


def test_catch_warnings_still_works_on_the_calling_thread_and_outside_compiles():
    with jit.background_compile():
        pass                                            # installs the thread-aware class
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("recorded", UserWarning)
    assert [str(w.message) for w in caught] == ["recorded"]
    assert issubclass(warnings.catch_warnings, jit._ORIGINAL_CATCH_WARNINGS)
