"""Test configuration: kernels are checked against their static inference on every eager op, and the
shared helpers of `tests/helpers.py` are importable from every test folder."""
import os
import sys

os.environ.setdefault("TENSORFLUX_CHECK_KERNELS", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
