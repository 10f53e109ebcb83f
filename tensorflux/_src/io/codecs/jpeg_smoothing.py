"""libjpeg-turbo's block smoothing for progressive JPEGs whose coefficients are incomplete (a file cut
before its last scan): the first nine AC coefficients of each block that are still zero, and not known
to full precision, are estimated from the DC values of the block and its 24 neighbours; when no AC data
arrived at all, the DC itself is re-estimated too (jdcoefct.c's decompress_smooth_data, which
TensorFlow's decoder runs because libjpeg smooths by default).

What is "known" comes from the scans seen (`coef_bits`: the successive-approximation bit each of the
first ten coefficients is known to, -1 for none); rows past the last MCU row the final, cut scan reached
use the bits from before that scan.
"""
import numpy as np

# (natural position, coef_bits index) of the estimated coefficients, in libjpeg's order
_AC = [(1, 1), (8, 2), (16, 3), (9, 4), (2, 5)]
_AC_DC_ONLY = [(3, 6), (10, 7), (17, 8), (24, 9)]

# Weights over the 5x5 DC window (rows top to bottom, columns left to right), libjpeg's DC01..DC25.
_W = {
    (1, True): [[-1, -1, 0, 1, 1], [-3, 13, 0, -13, 3], [-3, 38, 0, -38, 3], [-3, 13, 0, -13, 3], [-1, -1, 0, 1, 1]],
    (1, False): [[0] * 5, [0] * 5, [-7, 50, 0, -50, 7], [0] * 5, [0] * 5],
    (8, True): [[-1, -3, -3, -3, -1], [-1, 13, 38, 13, -1], [0] * 5, [1, -13, -38, -13, 1], [1, 3, 3, 3, 1]],
    (8, False): [[0, 0, -7, 0, 0], [0, 0, 50, 0, 0], [0] * 5, [0, 0, -50, 0, 0], [0, 0, 7, 0, 0]],
    (16, True): [[0, 0, 1, 0, 0], [0, 2, 7, 2, 0], [0, -5, -14, -5, 0], [0, 2, 7, 2, 0], [0, 0, 1, 0, 0]],
    (16, False): [[0, 0, -1, 0, 0], [0, 0, 13, 0, 0], [0, 0, -24, 0, 0], [0, 0, 13, 0, 0], [0, 0, -1, 0, 0]],
    (9, True): [[-1, 0, 0, 0, 1], [0, 9, 0, -9, 0], [0] * 5, [0, -9, 0, 9, 0], [1, 0, 0, 0, -1]],
    (9, False): [[0, -1, 0, 1, 0], [-1, 10, 0, -10, 1], [0] * 5, [1, -10, 0, 10, -1], [0, 1, 0, -1, 0]],
    (2, True): [[0] * 5, [0, 2, -5, 2, 0], [1, 7, -14, 7, 1], [0, 2, -5, 2, 0], [0] * 5],
    (2, False): [[0] * 5, [0] * 5, [-1, 13, -24, 13, -1], [0] * 5, [0] * 5],
    (3, True): [[0] * 5, [0, 1, 0, -1, 0], [0, 2, 0, -2, 0], [0, 1, 0, -1, 0], [0] * 5],
    (10, True): [[0] * 5, [0, 1, -3, 1, 0], [0] * 5, [0, -1, 3, -1, 0], [0] * 5],
    (17, True): [[0] * 5, [0, 1, 0, -1, 0], [0, -3, 0, 3, 0], [0, 1, 0, -1, 0], [0] * 5],
    (24, True): [[0] * 5, [0, 1, 2, 1, 0], [0] * 5, [0, -1, -2, -1, 0], [0] * 5],
    (0, True): [[-2, -6, -8, -6, -2], [-6, 6, 42, 6, -6], [-8, 42, 152, 42, -8], [-6, 6, 42, 6, -6],
                [-2, -6, -8, -6, -2]],
}
_CHECKED = (0, 1, 8, 16, 9, 2, 3, 10, 17, 24)


def smoothing_ok(components, coef_bits):
    """libjpeg's smoothing_ok: every component's DC partly known and its ten quantisers nonzero, and some
    of the first nine AC coefficients of some component not known to full precision."""
    useful = False
    for comp, bits in zip(components, coef_bits):
        if comp.quant is None or any(int(comp.quant[p]) == 0 for p in _CHECKED) or bits[0] < 0:
            return False
        useful = useful or any(b != 0 for b in bits[1:10])
    return useful


def _predict(num, q, al, clamp=True):
    q = np.int64(q)
    positive = ((q << 7) + num) // (q << 8)
    negative = ((q << 7) - num) // (q << 8)
    if clamp and al > 0:
        positive = np.minimum(positive, (1 << al) - 1)
        negative = np.minimum(negative, (1 << al) - 1)
    return np.where(num >= 0, positive, -negative)


def smooth(coefs, quant, v, mcus_y, width_in_blocks, height_in_blocks, bits, prev_bits, last_good_row):
    """A smoothed copy of one component's `[block rows, block columns, 64]` quantised coefficients."""
    out = coefs.copy()
    dc = coefs[:, :, 0].astype(np.int64)
    rows_total, cols_total = dc.shape
    last_col = width_in_blocks - 1
    columns = np.clip(np.arange(cols_total)[:, None] + np.arange(-2, 3)[None, :], 0, max(last_col, 0))
    last_row = mcus_y - 1
    q00 = np.int64(quant[0])
    for r in range(min(height_in_blocks, rows_total)):
        m, block_row = divmod(r, v)
        block_rows = v if m < last_row else (height_in_blocks % v or v)
        image_row, image_rows = m * block_rows + block_row, block_rows * mcus_y
        prev = r - 1 if image_row > 0 else r
        prev_prev = r - 2 if image_row > 1 else prev
        nxt = r + 1 if image_row < image_rows - 1 else r
        next_next = r + 2 if image_row < image_rows - 2 else nxt
        window_rows = [min(max(x, 0), rows_total - 1) for x in (prev_prev, prev, r, nxt, next_next)]
        window = dc[window_rows][:, columns]              # [5, columns, 5]
        known = prev_bits if m > last_good_row else bits
        change_dc = all(b == -1 for b in known[1:10])
        block = out[r]
        for pos, index in _AC + (_AC_DC_ONLY if change_dc else []):
            al = known[index]
            if al == 0:
                continue
            weights = np.asarray(_W[(pos, change_dc)], np.int64)
            num = q00 * np.einsum("rck,rk->c", window, weights)
            pred = _predict(num, quant[pos], al)
            zero = block[:, pos] == 0
            block[:, pos] = np.where(zero, pred, block[:, pos])
        if change_dc:
            num = q00 * np.einsum("rck,rk->c", window, np.asarray(_W[(0, True)], np.int64))
            block[:, 0] = _predict(num, q00, 0, clamp=False)
    return out
