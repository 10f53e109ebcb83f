"""The per-output Philox streams of TensorFlow's gamma and Poisson kernels (RandomGamma, RandomPoissonV2 and
their stateless forms).

Each output reads its own part of the stream, 256 blocks after the previous output's, so its numbers do
not depend on how TensorFlow splits the work. An output's sampler takes blocks one at a time; the first few
blocks of every output are generated at once, the rest on demand. Uniform and normal float64 pairs come
from one block each and are consumed last first, as TensorFlow's kernels consume them.
"""
import numpy as np

from ...framework import errors
from .. import philox

RESERVED_BLOCKS = 256      # Philox blocks between the starts of two outputs' streams


def uniform_pair(block):
    """Two float64 uniforms in [0, 1) from one block (four uint32 words)."""
    w = np.array(block, np.uint32)
    return [float(philox._unit_float64(w[0:1], w[1:2])[0]), float(philox._unit_float64(w[2:3], w[3:4])[0])]


def normal_pair(block):
    """Two float64 standard normals from one block (Box-Muller)."""
    w = np.array(block, np.uint32)
    z0, z1 = philox._box_muller_float64(w[0:1], w[1:2], w[2:3], w[3:4])
    return [float(z0[0]), float(z1[0])]


def draw_each(position, sample_shape, params, sampler_for, prefetch):
    """float64 draws of shape `sample_shape + params.shape`: for each parameter value p, `sampler_for(p)` is
    called once and gives `draw(next_block)`, which makes one output from its blocks. Outputs are numbered
    parameter-major (TensorFlow's order), written sample-major."""
    params = np.asarray(params)
    per_param = int(np.prod(sample_shape, dtype=np.int64))
    flat_params = params.reshape(-1).astype(np.float64)
    outputs = per_param * flat_params.size
    flat = np.empty(outputs, np.float64)
    if outputs:
        ahead = [philox.philox_words(position, outputs, stride=RESERVED_BLOCKS, start=k) for k in range(prefetch)]
        samplers = [sampler_for(p) for p in flat_params]
        for output in range(outputs):
            param_index, sample_index = divmod(output, per_param)
            taken = [0]

            def next_block(output=output, taken=taken):
                k = taken[0]
                taken[0] += 1
                if k < prefetch:
                    return ahead[k][output].tolist()
                return philox.philox_words(position, 1, start=RESERVED_BLOCKS * output + k)[0].tolist()
            flat[param_index + sample_index * flat_params.size] = samplers[param_index](next_block)
    return flat.reshape(tuple(sample_shape) + params.shape)


def leading_dims(dims, tail):
    """The stateless ops' sample dimensions: `dims` must end with the parameters' shape `tail`."""
    if len(dims) < len(tail) or (tail and tuple(dims[len(dims) - len(tail):]) != tuple(tail)):
        raise errors.InvalidArgumentError(None, None, "Shape passed in must end with broadcasted shape.")
    return dims[:len(dims) - len(tail)]
