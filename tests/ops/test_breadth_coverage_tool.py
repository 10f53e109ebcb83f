"""tools/api_coverage.py: counts names against the reference list and refuses to count stubs."""
import importlib.util
import os
import types

import pytest

_TOOL = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "api_coverage.py")


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("api_coverage", _TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Fakes compiled with a file name inside tensorflux/, as the tool only judges tensorflux's own code.
_FAKE_SOURCE = '''
def real(x):
    """Does something."""
    return x + 1

def empty(x):
    """Nothing yet."""
    pass

def unimplemented(x):
    raise NotImplementedError("later")

def partial(x):
    if x:
        raise NotImplementedError("only for falsy x")
    return x

class Base:
    def call(self):
        raise NotImplementedError

class Child(Base):
    def call(self):
        return 1

class Lonely:
    def __call__(self):
        raise NotImplementedError
'''


def _fake_namespace(tool, tmp_path, monkeypatch):
    root = tmp_path
    path = root / "tensorflux" / "fake.py"
    path.parent.mkdir()
    path.write_text(_FAKE_SOURCE)
    monkeypatch.setattr(tool, "ROOT", str(root))
    spec = importlib.util.spec_from_file_location("fake_tensorflux_module", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_stubs_are_flagged_and_not_counted(tool, tmp_path, monkeypatch):
    fake = _fake_namespace(tool, tmp_path, monkeypatch)
    tf = types.SimpleNamespace(math=fake)
    monkeypatch.setattr(tool, "NAMESPACES", ("math",))
    names = ["real", "empty", "unimplemented", "partial", "Base", "Child", "Lonely", "absent"]
    (row,) = tool.coverage(tf, {"tensorflow": {"math": names}}, {})
    ns, implemented, total, missing, stubs = row
    assert (ns, total, missing) == ("math", 8, ["absent"])
    assert sorted(stubs) == ["Lonely", "empty", "unimplemented"]
    assert implemented == 4  # real, partial, Base (abstract base of Child), Child


def test_an_alias_of_an_unrelated_name_is_a_stub(tool, tmp_path, monkeypatch):
    fake = _fake_namespace(tool, tmp_path, monkeypatch)
    tf = types.SimpleNamespace(math=types.SimpleNamespace(real=fake.real, other=fake.real),
                               linalg=types.SimpleNamespace(real=fake.real))
    monkeypatch.setattr(tool, "NAMESPACES", ("math", "linalg"))
    reference = {"tensorflow": {"math": ["real", "other"], "linalg": ["real"]}}
    # TensorFlow binds math.real and linalg.real to one object, but math.other to another one.
    rows = tool.coverage(tf, reference, {"linalg.real": "math.real", "math.real": "math.real"})
    assert rows[0][4].keys() == {"other"} and rows[0][1] == 1
    assert rows[1][4] == {} and rows[1][1] == 1


def test_the_table_covers_every_namespace_of_the_issue(tool):
    import tensorflux as tf
    import tensorflux.keras  # noqa: F401
    result = tool.coverage(tf, tool._load("tests/reference/public_names.json"),
                           tool._load("tools/tf_public_aliases.json"))
    assert [r[0] for r in result] == list(tool.NAMESPACES) and len(result) == 33
    text = tool.table(result)
    assert "| tf.linalg |" in text and "| **all** |" in text
    assert all(r[1] <= r[2] for r in result)
