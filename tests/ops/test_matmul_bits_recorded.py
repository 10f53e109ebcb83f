"""TensorFlow 2.21's float32 MatMul bits (exact_matmul.py): products of each shape class the module
covers, compared bit for bit with what TensorFlow 2.21 returned on an AVX2 CPU for the same inputs
(`_inputs` says how they were made and recorded), and the exact fused multiply-add step checked
against rational arithmetic.
"""
from fractions import Fraction

import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops.linalg import exact_matmul


def _inputs(index, m, k, n):
    """The recorded inputs: under TensorFlow, `rng = np.random.default_rng(1000 + index)`, then
    a = rng.standard_normal((m, k)).astype(np.float32), b likewise (k, n), and the little-endian
    float32 bytes of tf.linalg.matmul(a, b) as hex."""
    rng = np.random.default_rng(1000 + index)
    return rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)


# shape "MxKxN" -> TensorFlow's result bytes. The shapes span the classes: M = 2 (unfused even/odd
# chains), M = 1 below and above K = 128 (Eigen's matrix-vector blocks), a last tile of 3 rows, full
# and 4/5-row tiles in 16-wide and narrow column blocks, 1- and 2-row last tiles after full tiles,
# a last single column, 73 rows (oneDNN's two row blocks of 37 and 36), and one column: Eigen's
# coefficient-by-coefficient product (K + M + 1 < 20), its packets of 8 with the half packet of an odd
# last row, and one row times one column.
RECORDED = {
    "2x3x3": (
        "15572d3f657039c09401743ef063f5be9d34024072aab3bf"
    ),
    "2x16x24": (
        "7aa5133fe58f4340d0290540406f0540abef0bc1162352bf5b09ee3f967cd9bfd842bd3e006c883daae1963f42b8f5bf"
        "3c94a23f4f571dc1c26f47c0d088c54040cd8abefceb7a40d6338cbf56324e40b87f9540ed77b63fe01556bed46c80bf"
        "0fdcd6c0ff5243c005ff173f200fcf3f6de4973f522863c0e57badc0369210402b3e31bf3801633fdf2c82c0b80ff3bf"
        "e42d26bfe65ac4400166944032d5a4bf34ea56bf54a45d40c524aa3f6f5aae4046c5d1bf6894a6bf28344140600de03d"
    ),
    "1x20x5": (
        "96b26540d4b9bb40ca75cfbf042b1e4060cd24c0"
    ),
    "1x130x3": (
        "69be2841d33ac7404d170dc1"
    ),
    "3x7x5": (
        "20ec7bbf14ca1dc0270e1540966324bf2aeefebfcca975bfd6d6dd3ecfe70bc06076a4bf2d19a1bf56ff91bf4579253f"
        "9783b83fe50288bf6e5442bf"
    ),
    "4x9x10": (
        "0d7227bf75c5e34078bebac0f1d013408644db40f782babf4fcc07c0e58215c0ec3902bfe3b63f40e6d1413d97e56ebe"
        "97840bc04014c340f1ef77407f096140d528bf406592debeb67be3bf5fb89a401349a4bffd96b3c0513524c06a3c8b40"
        "99df3c40924d9a40ae099fbfc49c78c02ed5e4beff1b8ebf59663ebfe5a2744019cf343f6b4911c0f4829bbf40e2b2bf"
        "1a5481c0b78e2d3f3939003f352aec3f"
    ),
    "5x6x20": (
        "076e94c0204c81c0b21e67c01fae1c40442502402eec9bc0c7bf49c0684fa3bf8b8376c09d3770bf5d9b65c056bdf13d"
        "b4d2153f229c354081e080bf8af212c19a92f7bfff08f9c033703bbdded8b1c00226c2bf3c006abfeec48ebf51371940"
        "9420d2bf8fd549c0f80cc8c095317ac0680d143e61633b409c54d93d487447c07021d7bfafa30140760839bd32c8c3c0"
        "5522543f73c405c06936963f194bb0c0b3c4613e0f987a3ffe09563f8d6e2cbf5a143dc0b5d887403439674069c81440"
        "fffd133f2b371f3f0d271f405d238dbf493c9ebf79ea90bfbaf4b53fbeb5cd3f78dfb8bf602fe33f10b32b3f31427740"
        "30d82c409dc6a23f6ee0ac3fd8b4b2be3a4e323d326758c03464f3c03058acc0a9783d40216b1040af5b3040983013c0"
        "9fe793bf2462b13ff2bc24bfb121ef3fb35592409eca3a402b41e13fa653abc0baff9abed052123f3cda46bf10163f3e"
        "177ac6bf8fd825be44705dbf439157be698326bf6b070fbf309a593f8c89fd3d0c5243bf079acf3f4ae933bfb654913f"
        "20572d3e811664bfb9f0e83ffc1da1bf"
    ),
    "7x5x9": (
        "440f3bbfe998ae3f0927a5400196cebfefa832c081c207c0c7d73c40a29427c0cc0fc83fca0c8c3fa7cb21c07a6030bf"
        "a4de5d3f2587a9bf9bb3423f3561f9bf86b98a3d55729a4048d1503f10641abfd963e2beafa9e63dfdd5c5be50d186be"
        "67a53d4011e6324034cd1bc04aa04f3fde68da3f5c7273c0ed158c3f29697c4079353340f93098c0f06ca63d3f9f24c0"
        "79fea2bf0563abbd55e193bfce6aa73ea1e2633f7bd205c0331fbcbf5ca44abe22abf3bf728016c03c7bfcbf5aab98bf"
        "2d3d50be6ba939bda03ba9bf1e1ae63f92d1823fc1e794be84679a401763a140df9e1940b2ef573fa2efec3e87ec27bf"
        "02c199c008e3f7bffbd251c0"
    ),
    "8x4x17": (
        "506e86bf16d771bf2c7f20bed1e18440ce15c7bfe3db45bf7016803f92eb933e0477523f6aec76c01759bc401a062340"
        "0df49e3f1b2e1dc0338249c052c7653e398c91402fb931c0af8a2d40babc9dc0af165d3f1ce86b3fa6e86140bd3f8b3f"
        "b981923f18b108bf6c62b2bfce92ed3e544c973ec429efbefbb512beffe4e2bd90d33840f010433e354a4c4092ec5040"
        "f1a6ae3fa1eea6bf5818c2bf0061c33fee410c40757d3340c35fdcbf5a9967401f2cb4bf1c53acbdcf03583f2c00d93f"
        "c8472340b7114cbf1a8af73f8bb72e4038680940bc520ebe35e93040f3e757c0b7d40740642ec93f9c1e4f40b442f4bf"
        "958295be05994540e3c03440759631403cbcc1bffdd7aabf433a573f4bffa3403ee1d03fae2c26c05929143fd697adbf"
        "85799d3b8d3ae1be3a8b75c00b07bcbf987e3bbf06e51f3f1e5357c0cfbbbebe7ef2123f35694ebf0cd663bfb90cf23e"
        "25c778c06fde9a3f50ba84bfca9f96bfa82285bf6a6291bd7d2ba53f885849c0bfd8f0be9199aabf16bc0d3f784951c0"
        "5c41a3bd3915383f66b646bf5d7839bfdee5ca3f506355c0701564400c412a40a0ad1abf96a4e03f090b58c0122d4740"
        "c3f7643fc65e654070822fc0085b5d3f43228f3f8a921e40d0413c40464e96bffef33fbf94f1af3f0cfe744063e78840"
        "a46b453e40ed8b3f0407103f35483ac0dfd5a73fc8cda8bfdf6ded3f542716c0d4dea73fa0e63bbfcc16dc3f4e5e2d40"
        "9937a2bf92ce7bbf3e5a083ff6359d3f"
    ),
    "9x11x4": (
        "da99ef4063bd3fbe4e420abd43bd60408b997c4068635e3f919a64c008f234bfcab9dc40bb9d8ec07afe07c01ee74ebe"
        "de74e84090e29040ea9648bf7a579ac08de9bdbf770ad33f37a210c0fc66dbc0982e0b417ebdb2be895e4cbeb249b93f"
        "8d50503d66ed1ec09c5130c08ee0d9bf0abf3dc07a0e83c0355131bf882f123e0438f03fdf6e2bc0abd6e23ff6848f3f"
    ),
    "73x4x3": (
        "67c611bfecc68fbfd837423f509c53bfd48a3dc0a4559e3ed901d9bf9cc03b3fd2014bbf109a1cbf36de8fc041724a3f"
        "805cd33db8333340724b343f5e41d83fc98ab340d0357dc00b23ffbf6822c5bf3023b2bd609829c03274c93f7cc77cbf"
        "40063f4034a31d3f1a3f1b3f80824cbf035a9e404bb231c05c6fe83f029975bf0871d33e608b403e1006b740035834c0"
        "5da524c076ea1a404a5d73c0636c1d3f28a00d3fa6d27bbf0d3eafbf2a5bdbbf8654b3bf70bf16bf1e659bbfcc02b03e"
        "90451240aba821c028cd404032ef42408c56063f28e7f33e7632454086e9284090eafdbeac7fa63fa8f59840b86b2cc0"
        "0a546b3f9e2ccebf720a0040d8dca83f8461b53ed773ce3e7383f5be78396e40abf407c05496b0bdc998b6bfdc78053f"
        "75f1d33e58d91dc05fb0ea3f58835bbfc09b07bf5604973f99565ebf0e6d984022d6debfc25d4abf45c9fa3f3e28bfbf"
        "6d19a7bf6de98240baffbbbf9ef4e4be35cb0640e70d25bf379d1e3f2c3c16c081f61e3f1c98eebe97f21d4048ab26c0"
        "ec5a20c0dc39823f6496bdbf7c9e64c0961e0a40c5db93c02dd2dc3d164bc63fc8e88ebf5ced90401582e43e0cc25740"
        "ed9168405b8660403c632ebfe8d990bfd76038bf6ab8fb3ec3d43cbedc9af8c0c123ea3f3f1ba53fd06879c07ec8e93f"
        "050da5bf586526bf049d9cbf74247f3f2009883dc43990be14b018c068244fbf30023d3ee6d9a23f01af6140c28c103f"
        "6d8f2240cadc9ac044fa9a40cd7126bf66d1d9c0fa9ccc3fc646bd3fc5351d3f9cb04e3f33ba8fc0c4eaefbe147e57c0"
        "f2d003bf329eba40c941ffbf59c4433f923192c059cbc83f600efe3fe68b0cc1a8e6b5403005c8bfc1f1ccbe909c37bf"
        "70649fbda25ad73e97b6cc3fd4b6253ef4ae82c0197ac53f510c73c03a6283c0b017c3bf6a330fc0e10112c0b4122640"
        "982e0f3f9c26983ef8aafb3e5b7a24bf49e404c1a2a9854004b44ebe81e76ebfe2e325bf2762d53f291e243f5c00973e"
        "7cac9c3fbca9f8bfa42137402a4f943e3177d5bf98b296be41fb1740e758763ff43f4140e2c0cbbfa248873f03d705c0"
        "c42d7bbf76bac8bf322499be702677bcc07e7b403318f5bfb83ee0be380739c0b45cb13f5bbe1840545a093f6bf8e33f"
        "7e8ce0bf75983ac0132cadbec15c7ac022ac31bf442c21c0887acd3e216f01c1c6ec4840a244e7bfba7f0a40f0e39bbe"
        "05d78bbf807dfebfa0918c3f"
    ),
    "6x40x17": (
        "5e44c7bf73901f410625d23f2a6031c0c7125640527762c121f4bec0cc454b41b1eebd40f43da2c0a80f343f91152e40"
        "23c019c044348bc0a13f5c3f45981141f2db2ec1efdbd5c0843477c16c9ef4bd98702e418efd7e417b17f2407d388140"
        "34c225c040eb2ec17ff21ec1ccb1d4c02b546340332ad140f2ea73bfb6add240004a2740dadf7ac10a7b43c04985b9c0"
        "5109603f11caf6c003a88bbffa501cc1775a5a41d1196ec0811989bf6790254173c3a0c0f1ba8bc17c7a114007500941"
        "3d58edbf7f32d13f824b1d4199368240a5c17bc0e8355941ea1208c1437e96c025856cbfc8fd99406a57cbbf01bbb540"
        "fd33f43f9a91e4bd88caadc1e4465cbf625392c082a04140c19bad405a81f5c01f42cf3f507b03c1791fcec02ac59740"
        "0d414540f7e1c84040b2d0c0875ca3c09e6596bff3e179c0640a4ebfc2df77410def53bee170493f34315bbe71de66bf"
        "38e541403e99c540db701b411d120cc0d3ea69bef7e7e3c0e5aca5406f7110c1cafd73c150e0c8400728bb4073c51dbf"
        "fe411c407769d43f73138dc085820cc16a0155bf21364941"
    ),
    "3x31x1": (
        "201f93c085b505c11dac0641"
    ),
    "2x20x1": (
        "24e4c5c0309928c1"
    ),
    "33x7x1": (
        "c20c92bff0a06640c4dcad3fabef4e4022d83c4088b936c0a63cba3e8c6c6dbf2a6e13c0cb3b893f2b9c54c058e7123f"
        "6e2739c0f81a4e4014e04e3fded45dc02366b73f4058803f22d00dc00655c13fc021663fb3d2f4becc7a8e3f4cd87ec0"
        "4edadebf6ac4e63eab53f13f18afda3f0b7b01c0b2f5aec0971e91c0f6d6ba3ee106ca3f"
    ),
    "1x300x1": (
        "3ed4a0c1"
    ),
    "4x12x1": (
        "0f1a8f40ea6ba9bd7992bcc022edbcc0"
    ),
}


@pytest.mark.parametrize("index,shape", list(enumerate(RECORDED)))
def test_recorded_bits(index, shape):
    m, k, n = map(int, shape.split("x"))
    a, b = _inputs(index, m, k, n)
    expected = np.frombuffer(bytes.fromhex("".join(RECORDED[shape])), "<f4").reshape(m, n)
    assert exact_matmul.covers(a, b)
    got = tf.matmul(a, b).numpy()
    np.testing.assert_array_equal(got.view(np.int32), expected.view(np.int32))


def test_numpy_order_differs_on_these_inputs():
    # the recorded shapes are not trivially NumPy's bits: the test above would catch a hook that
    # silently fell back to BLAS
    differing = 0
    for index, shape in enumerate(RECORDED):
        m, k, n = map(int, shape.split("x"))
        a, b = _inputs(index, m, k, n)
        expected = np.frombuffer(bytes.fromhex("".join(RECORDED[shape])), "<f4").reshape(m, n)
        differing += not np.array_equal(a @ b, expected)
    assert differing >= 6


def _exact_fma(a, b, c):
    value = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    # round to float32 by comparing with the two neighbours of float64's nearest value
    guess = np.float32(float(value))
    below, above = np.nextafter(guess, np.float32(-np.inf)), np.nextafter(guess, np.float32(np.inf))
    best = min((guess, below, above), key=lambda x: (abs(Fraction(float(x)) - value),
                                                      int(np.array(x).view(np.int32)) & 1))
    return best


def test_fused_step_is_exact_on_random_and_midpoint_inputs():
    rng = np.random.default_rng(7)
    a = rng.standard_normal(3000).astype(np.float32)
    b = rng.standard_normal(3000).astype(np.float32)
    c = (rng.standard_normal(3000) * 4.0).astype(np.float32)
    # The double-rounding trap: c + a*b lies 2**-54 (relative) below a float32 midpoint, a distance
    # float64 drops, so the float64 sum lands exactly on the midpoint and a plain conversion breaks
    # the tie (to even: up) where the exact value rounds down. (1 - 2**-15)(1 + 2**-15) = 1 - 2**-30;
    # scaled by powers of two and signs.
    f32 = np.float32
    scale = (2.0 ** rng.integers(-20, 21, 400)) * rng.choice([-1.0, 1.0], 400)
    a[:400] = (1 - 2.0 ** -15) * scale
    b[:400] = 2.0 ** -24 * (1 + 2.0 ** -15)
    c[:400] = (1 + 2.0 ** -23) * scale
    # results in float32's subnormal range
    a[400:500] = f32(2.0 ** -70) * rng.uniform(1, 2, 100).astype(f32)
    b[400:500] = f32(2.0 ** -70)
    c[400:500] = rng.standard_normal(100).astype(f32) * f32(2.0 ** -140)
    got = exact_matmul._fma(a.astype(np.float64), b.astype(np.float64), c)
    want = np.array([_exact_fma(x, y, z) for x, y, z in zip(a, b, c)], np.float32)
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))
    naive = (a.astype(np.float64) * b.astype(np.float64) + c).astype(np.float32)
    assert (naive[:400] != want[:400]).all()      # the trap is real on these inputs


@pytest.mark.parametrize("shape", [(2, 300, 4), (40, 120, 8), (3, 600, 1), (3, 1, 4), (2, 4, 49)])
def test_shapes_outside_the_classes_keep_numpy(shape):
    m, k, n = shape
    rng = np.random.default_rng(11)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    assert not exact_matmul.covers(a, b)
    np.testing.assert_array_equal(tf.matmul(a, b).numpy(), a @ b)


def test_float64_and_transposed_vector_operands_keep_numpy():
    rng = np.random.default_rng(12)
    a = rng.standard_normal((5, 6)).astype(np.float32)
    b = rng.standard_normal((6, 7)).astype(np.float32)
    np.testing.assert_array_equal(tf.matmul(a.astype(np.float64), b.astype(np.float64)).numpy(),
                                  a.astype(np.float64) @ b.astype(np.float64))
    row = rng.standard_normal((1, 40)).astype(np.float32)
    matrix = rng.standard_normal((40, 7)).astype(np.float32)
    assert exact_matmul.covers(row, matrix) and not exact_matmul.covers(row, matrix, transposed=True)


# TensorFlow 2.21 returned, for RECORDED's inputs of these shapes given as transposed operands
# (MatMul(a^T, b, transpose_a=True), MatMul(a, b^T, transpose_b=True) and both), the bits of the
# untransposed product: Eigen packs either layout into the same blocks.
@pytest.mark.parametrize("index,shape", [(1, "2x16x24"), (6, "5x6x20"), (11, "6x40x17")])
def test_transposed_operands_give_the_untransposed_bits(index, shape):
    m, k, n = map(int, shape.split("x"))
    a, b = _inputs(index, m, k, n)
    expected = np.frombuffer(bytes.fromhex("".join(RECORDED[shape])), "<f4").reshape(m, n)
    a_t, b_t = np.ascontiguousarray(a.T), np.ascontiguousarray(b.T)
    for got in (tf.matmul(a_t, b, transpose_a=True), tf.matmul(a, b_t, transpose_b=True),
                tf.matmul(a_t, b_t, transpose_a=True, transpose_b=True)):
        np.testing.assert_array_equal(got.numpy().view(np.int32), expected.view(np.int32))


def _trap_operands():
    """[4, 2] @ [2, 16] (fused chains) whose second step hits the double-rounding trap in every
    element: round(a0 * b0) = 1 + 2**-23 and a1 * b1 = 2**-24 (1 - 2**-30), scaled per row."""
    scale = np.float32([1.0, -2.0 ** 5, 2.0 ** -9, -1.0])[:, None]
    a = np.empty((4, 2), np.float32)
    a[:, :1] = scale
    a[:, 1:] = scale * np.float32(1 - 2.0 ** -15)
    b = np.empty((2, 16), np.float32)
    b[0] = np.float32(1 + 2.0 ** -23)
    b[1] = np.float32(2.0 ** -24 * (1 + 2.0 ** -15))
    return a, b


def test_fused_chains_take_the_exact_path_on_midpoints():
    a, b = _trap_operands()
    want = np.array([[_exact_fma(a[i, 1], b[1, j], np.float32(a[i, 0] * b[0, j])) for j in range(16)]
                     for i in range(4)], np.float32)
    naive = (a[:, 1:].astype(np.float64) * b[1:].astype(np.float64) + a[:, :1] * b[:1]).astype(np.float32)
    assert (naive != want).all()
    np.testing.assert_array_equal(exact_matmul._contraction(a, b), want)      # the NumPy form


def test_compiled_loops_give_the_numpy_forms_bits():
    numba = pytest.importorskip("numba")
    kernels = exact_matmul._compiled.build(numba)
    rng = np.random.default_rng(5)
    shapes = [(1, 40, 7), (1, 200, 3), (2, 9, 20), (3, 8, 5), (5, 17, 40), (7, 6, 9), (8, 31, 8),
              (9, 12, 25), (13, 5, 18), (20, 33, 17), (74, 3, 5), (40, 96, 8)]
    for m, k, n in shapes:
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = (rng.standard_normal((k, n)) * np.exp(rng.uniform(-6, 6, (k, n)))).astype(np.float32)
        numpy_form = exact_matmul._row_times_matrix(a, b) if m == 1 else exact_matmul._contraction(a, b)
        np.testing.assert_array_equal(exact_matmul._run_compiled(kernels, a, b).view(np.int32),
                                      numpy_form.view(np.int32))
    a, b = _trap_operands()
    np.testing.assert_array_equal(exact_matmul._run_compiled(kernels, a, b), exact_matmul._contraction(a, b))
