"""The type stubs (python/simdfilter/__init__.pyi) say what the package has:
every public name, and for each function the parameters the extension and the
package really take (names, kinds, defaults), read with inspect."""

import ast
import inspect
import pathlib

import pytest

import simdfilter

STUB = pathlib.Path(simdfilter.__file__).with_name("__init__.pyi")


def stub_defs():
    tree = ast.parse(STUB.read_text())
    defs = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            defs[node.name] = node
        elif isinstance(node, ast.ClassDef):
            defs[node.name] = next(
                n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"
            )
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            defs[node.target.id] = node
    return defs


def stub_parameters(fn):
    """[(name, kind, default)] of a stub's def, self left out."""
    a = fn.args
    out = []
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for arg, default in zip(positional, defaults):
        kind = "POSITIONAL_ONLY" if arg in a.posonlyargs else "POSITIONAL_OR_KEYWORD"
        out.append(
            (arg.arg, kind, ast.literal_eval(default) if default else inspect.Parameter.empty)
        )
    for arg, default in zip(a.kwonlyargs, a.kw_defaults):
        out.append(
            (
                arg.arg,
                "KEYWORD_ONLY",
                ast.literal_eval(default) if default else inspect.Parameter.empty,
            )
        )
    return [p for p in out if p[0] != "self"]


def runtime_parameters(obj):
    sig = inspect.signature(obj.__init__ if inspect.isclass(obj) else obj)
    return [(p.name, p.kind.name, p.default) for p in sig.parameters.values() if p.name != "self"]


def test_every_public_name_has_a_stub_and_no_stub_is_extra():
    public = {n for n in stub_defs() if not n.startswith("_")} | {"__version__"}
    assert set(simdfilter.__all__) == public


@pytest.mark.parametrize("name", [n for n in simdfilter.__all__ if n != "__version__"])
def test_stub_parameters_are_the_real_ones(name):
    obj = getattr(simdfilter, name)
    assert stub_parameters(stub_defs()[name]) == runtime_parameters(obj), name
