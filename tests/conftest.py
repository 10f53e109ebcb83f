"""Test configuration: kernels are checked against their static inference on every eager op."""
import os

os.environ.setdefault("TENSORFLUX_CHECK_KERNELS", "1")
