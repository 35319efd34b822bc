"""The layers import one way only: the import graph of cardzoo, read from the source with ``ast``.

Layers, lowest first (docs/architecture.md): the ground floor (``stats``, ``io``, ``errors``), the
engines and environments (``envs``), the agents (``agents``), the table (``table``, ``evaluation``,
``tournament``, the Gymnasium view, terminal play), training (``training``), the command line
(``cli``). A module may import its own layer and the layers below it; the package face
(``cardzoo/__init__.py``) imports only the list of games. Every import counts, those inside
functions too: a lazy import is still an arrow.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "cardzoo"

LAYERS = {
    "cardzoo.stats": 0,
    "cardzoo.io": 0,
    "cardzoo.errors": 0,
    "cardzoo.extras": 0,
    "cardzoo.envs": 1,
    "cardzoo.agents": 2,
    "cardzoo.table": 3,
    "cardzoo.evaluation": 3,
    "cardzoo.tournament": 3,
    "cardzoo.tournament_plots": 3,
    "cardzoo.single_agent": 3,
    "cardzoo.vector": 3,
    "cardzoo.play": 3,
    "cardzoo.recording": 3,
    "cardzoo.web": 3,
    "cardzoo.training": 4,
    "cardzoo.cli": 5,
    "cardzoo.__main__": 5,
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> int | None:
    """The layer of a cardzoo module (None for the package face ``cardzoo`` itself)."""
    for prefix, layer in sorted(LAYERS.items(), key=lambda item: -len(item[0])):
        if module == prefix or module.startswith(prefix + "."):
            return layer
    if module == "cardzoo":
        return None
    raise AssertionError(f"{module} is in no layer: add it to LAYERS and docs/architecture.md")


def imports_of(module: str) -> set[str]:
    """The cardzoo modules ``module`` imports (a package's submodule where one is named); the
    imports under ``if TYPE_CHECKING:`` are for type checkers only and are left out."""
    tree = ast.parse(MODULES[module].read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            node.body = []
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{module}: cardzoo imports absolutely"
            base = node.module or ""
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in MODULES else base)
    return {name for name in found if name == "cardzoo" or name.startswith("cardzoo.")}


GRAPH = {module: imports_of(module) for module in MODULES}


def test_every_module_is_in_a_layer():
    for module in MODULES:
        layer_of(module)


def test_no_import_points_up_a_layer():
    upward = [
        f"{module} (layer {layer_of(module)}) imports {target} (layer {layer_of(target)})"
        for module, targets in GRAPH.items()
        for target in targets
        if module != "cardzoo"
        and layer_of(target) is not None
        and layer_of(target) > layer_of(module)
    ]
    assert upward == []


def test_the_package_face_imports_only_the_list_of_games():
    assert GRAPH["cardzoo"] == {"cardzoo.envs.registry"}


def test_no_import_cycle():
    """Depth-first search over the whole graph; a cycle is reported as its modules in order."""
    state: dict[str, str] = {}
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = "open"
        for target in sorted(GRAPH.get(module, ())):
            if target not in GRAPH:
                continue
            if state.get(target) == "open":
                cycles.append(path[path.index(target) :] + [target])
            elif target not in state:
                visit(target, [*path, target])
        state[module] = "done"

    for module in sorted(GRAPH):
        if module not in state:
            visit(module, [module])
    assert cycles == []


@pytest.mark.parametrize("module", sorted(m for m in MODULES if not m.startswith("cardzoo.envs")))
def test_no_lazy_loading_tricks_hide_an_arrow(module):
    """No ``importlib.import_module`` and no module ``__getattr__`` above the engines (the
    engines load one game's module on demand; that stays inside their own layer)."""
    tree = ast.parse(MODULES[module].read_text())
    tricks = [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__"
    ]
    tricks += [
        "importlib.import_module"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "import_module"
    ]
    assert tricks == []


def test_the_graph_test_sees_an_upward_import(tmp_path, monkeypatch):
    """The checks above can fail: a made-up agents module that imports training is caught."""
    fake = {**GRAPH, "cardzoo.agents.cheat": {"cardzoo.training.ppo"}}
    upward = [
        (module, target)
        for module, targets in fake.items()
        for target in targets
        if module != "cardzoo" and (layer_of(target) or 0) > layer_of(module)
    ]
    assert upward == [("cardzoo.agents.cheat", "cardzoo.training.ppo")]
