"""The op interface table is current: `tests/io_formats/fixtures/tensorflux_op_types.txt` lists exactly the op
types tensorflux registers, and `io/formats/op_signatures.py` (generated from that list under TensorFlow)
has TensorFlow's interface for each of them or names it among the op types TensorFlow lacks. A new op
fails here until both are regenerated:

    .venv/bin/python tests/io_formats/test_op_table_fresh.py          # rewrites the fixture
    ~/venv-tf/bin/python tests/io_formats/make_graph_fixtures.py op-table > tensorflux/_src/io/formats/op_signatures.py
"""
import os
import sys

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "tensorflux_op_types.txt")
HOW = ("regenerate with `.venv/bin/python tests/io_formats/test_op_table_fresh.py`, then `~/venv-tf/bin/python "
       "tests/io_formats/make_graph_fixtures.py op-table > tensorflux/_src/io/formats/op_signatures.py`")


def _registered():
    """Every op type: each module is imported, so an op registered by a module loaded only on use (a Keras
    layer's own op) counts too; lazy rooms' op types are listed by their index besides."""
    import importlib
    import pkgutil

    import tensorflux._src as src
    from tensorflux._src.ops.registry import OPS
    for module in pkgutil.walk_packages(src.__path__, "tensorflux._src."):
        importlib.import_module(module.name)
    return OPS.all_types()


def _listed():
    with open(FIXTURE) as f:
        return set(f.read().split())


def test_the_fixture_lists_every_registered_op_type():
    registered, listed = _registered(), _listed()
    assert not registered - listed, f"op types missing from {FIXTURE}: {sorted(registered - listed)}; {HOW}"
    assert not listed - registered, f"op types {FIXTURE} lists that are gone: {sorted(listed - registered)}; {HOW}"


def test_every_listed_op_type_has_tensorflows_interface_or_is_known_to_lack_one():
    from tensorflux._src.io.formats.op_signatures import NOT_TENSORFLOW_OPS, SIGNATURES
    unknown = _listed() - set(SIGNATURES) - set(NOT_TENSORFLOW_OPS)
    assert not unknown, f"op_signatures.py is older than the fixture (no entry for {sorted(unknown)}); {HOW}"
    assert not set(SIGNATURES) & set(NOT_TENSORFLOW_OPS)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    with open(FIXTURE, "w") as f:
        f.write("\n".join(sorted(_registered())) + "\n")
    print(f"wrote {FIXTURE}")
