"""Layers that point one way: no module imports from a layer above its own.

The layers are :data:`koryo_pbm.LAYERS` (the one table; the package docstring and the README's
Layout describe it). Every ``import`` and ``from ... import`` counts, at module level, under
``TYPE_CHECKING`` and inside functions, relative ones included: a lazy import is still a
dependency."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import koryo_pbm
from koryo_pbm import LAYERS

ROOT = Path(__file__).resolve().parent.parent
ROOTS = {"koryo_pbm": ROOT / "koryo_pbm", "koryo_pbm_games": ROOT / "games"}


def layer_of(module: str, layers=LAYERS) -> int | None:
    """The index of ``module``'s layer (the longest entry naming it), or None if none does."""
    best: tuple[int, int] | None = None
    for i, entries in enumerate(layers):
        for entry in entries:
            exact_only = entry == "koryo_pbm"  # the package's __init__ alone, not all below it
            names = module == entry or (not exact_only and module.startswith(entry + "."))
            if names and (best is None or len(entry) > best[0]):
                best = (len(entry), i)
    return None if best is None else best[1]


def _ours(name: str) -> bool:
    return any(name == top or name.startswith(top + ".") for top in ROOTS)


def imported(source: str, module: str, *, package: bool, layers=LAYERS) -> list[tuple[int, str]]:
    """``(line, module)`` for every import of one of our modules in ``source`` (the text of
    ``module``; ``package``: it is an ``__init__.py``)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if _ours(a.name)]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".") if package else module.split(".")[:-1]
                parts = parts[:len(parts) - (node.level - 1)]
                base = ".".join([*parts, *([base] if base else [])])
            if not _ours(base):
                continue
            for alias in node.names:  # ``from koryo_pbm import match`` imports koryo_pbm.match
                sub = f"{base}.{alias.name}"
                found.append((node.lineno, sub if layer_of(sub, layers) is not None else base))
    return found


def upward(source: str, module: str, *, package: bool = False, layers=LAYERS) -> list[str]:
    """One line for each import in ``source`` of a module from a layer above ``module``'s, or
    of one of ours in no layer."""
    own = layer_of(module, layers)
    assert own is not None, f"{module} is in no layer of koryo_pbm.LAYERS"
    bad = []
    for line, target in imported(source, module, package=package, layers=layers):
        theirs = layer_of(target, layers)
        if theirs is None:
            bad.append(f"{module}:{line} imports {target}, which is in no layer of koryo_pbm.LAYERS")
        elif theirs > own:
            bad.append(f"{module}:{line} imports {target} (layer {theirs}: {layers[theirs][0]}) from below "
                       f"(layer {own}: {layers[own][0]})")
    return bad


def modules() -> list[tuple[str, Path]]:
    out = []
    for top, folder in ROOTS.items():
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out.append((".".join([top, *parts]), path))
    return out


def test_every_module_is_in_a_layer():
    assert [m for m, _ in modules() if layer_of(m) is None] == []


def test_no_module_imports_from_a_layer_above():
    bad = []
    for module, path in modules():
        bad += upward(path.read_text(encoding="utf-8"), module, package=path.name == "__init__.py")
    assert bad == []


def test_the_check_catches_imports_from_above_wherever_they_are():
    """The check itself, on made-up modules: an upward import is found at module level, inside a
    function, under TYPE_CHECKING and written relatively; imports downward or within a layer
    pass."""
    bad_source = (
        "from typing import TYPE_CHECKING\n"
        "import koryo_pbm.store.atomic\n"  # 2: store is above the engine
        "if TYPE_CHECKING:\n"
        "    from koryo_pbm.picture.model import Frame\n"  # 4
        "def f():\n"
        "    from koryo_pbm.cli.resolve import run_resolve\n"  # 6
        "    from .. import match\n"  # 7: relative, koryo_pbm.match
        "    from ..judge import service\n"  # 8
        "    from koryo_pbm.engine.contract import Game\n"  # within its layer
        "    from koryo_pbm import errors, __version__\n"  # below
    )
    found = upward(bad_source, "koryo_pbm.engine.made_up")
    assert [line.split(" ")[0] for line in found] == [
        "koryo_pbm.engine.made_up:2", "koryo_pbm.engine.made_up:4", "koryo_pbm.engine.made_up:6",
        "koryo_pbm.engine.made_up:7", "koryo_pbm.engine.made_up:8",
    ], found
    assert "imports koryo_pbm.match (layer 5" in found[3]
    assert upward("from koryo_pbm.engine.scene import Scene\nfrom koryo_pbm_games.koryo import rules\n",
                  "koryo_pbm.picture.html") == []
    # the judge calling the command line, as it once did
    assert upward("def g():\n    from koryo_pbm.cli.resolve import run_resolve\n", "koryo_pbm.judge.service")
    # a module of ours that no layer names is reported too
    assert upward("import koryo_pbm.nowhere\n", "koryo_pbm.cli.main") == [
        "koryo_pbm.cli.main:1 imports koryo_pbm.nowhere, which is in no layer of koryo_pbm.LAYERS"]
    with pytest.raises(AssertionError, match="in no layer"):
        upward("", "koryo_pbm.nowhere")


def test_the_package_docstring_lists_the_layers_in_order():
    doc = koryo_pbm.__doc__ or ""
    firsts = [entries[0] if entries[0] != "koryo_pbm" else entries[1] for entries in LAYERS]
    where = [doc.find(name if name != "koryo_pbm_games" else "``koryo_pbm_games``") for name in firsts]
    assert -1 not in where and where == sorted(where), dict(zip(firsts, where, strict=True))
