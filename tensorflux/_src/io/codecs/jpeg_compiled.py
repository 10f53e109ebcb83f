"""Baseline JPEG entropy decoding as one compiled loop (numba, the optional `jit` extra).

The Python loop in jpeg_decode.py spends about a microsecond per Huffman symbol: ~100 ms for a 500x375
photo, where TensorFlow's libjpeg-turbo takes ~3 ms. The same loop compiled reads the same 16-bit
windows and lookup tables and writes the same coefficients, in a few milliseconds. It is built once
JPEG decoding is hot (`jit.when_hot`); until then, and without numba, the Python loop runs. Both report
malformed data the same way (a status code the caller turns into the same error).
"""

from ...ops import jit

__all__ = ["baseline_segment", "OK", "BAD_CODE", "BAD_DC", "BAD_RUN", "PREMATURE_END"]

HOT_CALLS = 3
OK, BAD_CODE, BAD_DC, BAD_RUN, PREMATURE_END = 0, 1, 2, 3, 4


def _segment_loop(windows, dc_tables, ac_tables, unit_comp, unit_base, flat, zigzag, predictions):
    """Decodes the blocks listed by (component, coefficient offset) from one segment's bit windows;
    returns a status code."""
    pos = 0
    limit = windows.shape[0]
    for u in range(unit_comp.shape[0]):
        comp = unit_comp[u]
        base = unit_base[u]
        if pos >= limit:
            return PREMATURE_END
        e = dc_tables[comp, windows[pos]]
        if e == 0:
            return BAD_CODE
        pos += e & 255
        t = e >> 8
        if t:
            if t > 16:
                return BAD_DC
            if pos >= limit:
                return PREMATURE_END
            v = windows[pos] >> (16 - t)
            pos += t
            if v < (1 << (t - 1)):
                v -= (1 << t) - 1
            predictions[comp] += v
        flat[base] = predictions[comp]
        k = 1
        while k < 64:
            if pos >= limit:
                return PREMATURE_END
            e = ac_tables[comp, windows[pos]]
            if e == 0:
                return BAD_CODE
            pos += e & 255
            s = (e >> 8) & 15
            r = e >> 12
            if s:
                k += r
                if k > 63:
                    return BAD_RUN
                if pos >= limit:
                    return PREMATURE_END
                v = windows[pos] >> (16 - s)
                pos += s
                if v < (1 << (s - 1)):
                    v -= (1 << s) - 1
                flat[base + zigzag[k]] = v
                k += 1
            elif r == 15:
                k += 16
            else:
                break
    return OK


def _compile(numba):
    return numba.njit(nogil=True, cache=True)(_segment_loop)


def baseline_segment():
    """The compiled loop, or None while JPEG decoding is not hot yet (or numba is missing)."""
    return jit.when_hot("jpeg_baseline_segment", _compile, HOT_CALLS)
