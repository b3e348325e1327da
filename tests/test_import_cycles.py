"""No import circles between the files of koryo_pbm/ and games/.

Every import counts, as :mod:`test_layers` collects them (its :func:`~test_layers.imported`): at
module level, under ``TYPE_CHECKING`` and inside functions, relative ones included; a lazy import
is still a dependency, and a circle hidden inside a function is still a circle. An import of a
name from a module (``from koryo_pbm.store.gamefile import decode``) is an edge to that module's
file; an import of a package is an edge to its ``__init__.py``."""

from __future__ import annotations

from test_layers import imported, modules


def graph(sources: dict[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """``module -> the modules of ours it imports`` for ``sources`` (``module -> (its text, whether
    it is an __init__.py)``); a name imported from a module counts as the module."""
    known = set(sources)
    every = [tuple(sorted(known))]  # one layer of every module: ``from koryo_pbm import blind`` is the module
    edges: dict[str, set[str]] = {}
    for module, (source, package) in sources.items():
        found: set[str] = set()
        for _, target in imported(source, module, package=package, layers=every):
            while target not in known and "." in target:  # koryo_pbm.match.views.load_doc -> koryo_pbm.match.views
                target = target.rsplit(".", 1)[0]
            if target in known and target != module:
                found.add(target)
        edges[module] = found
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One circle through each group of modules that import each other (a strongly connected
    component of more than one module, Tarjan's algorithm), as the path ``a -> b -> ... -> a``
    found by a breadth-first search from its first module, in a fixed order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(start: str) -> None:  # iterative: no recursion limit, whatever the depth
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))

    for module in sorted(edges):
        if module not in index:
            visit(module)
    out = []
    for group in sorted(groups):
        members, first = set(group), group[0]
        came: dict[str, str] = {}
        frontier = [first]
        while frontier and first not in came:
            nxt = []
            for node in frontier:
                for child in sorted(edges[node] & members):
                    if child not in came:
                        came[child] = node
                        nxt.append(child)
            frontier = nxt
        path = [first]
        node = came[first]
        while node != first:
            path.append(node)
            node = came[node]
        out.append([first, *reversed(path[1:]), first])
    return out


def test_no_import_circles():
    sources = {module: (path.read_text(encoding="utf-8"), path.name == "__init__.py") for module, path in modules()}
    found = circles(graph(sources))
    assert found == [], "import circles:\n" + "\n".join(" -> ".join(circle) for circle in found)


def test_the_check_finds_a_circle_wherever_its_imports_are():
    """The check itself, on made-up modules: a circle of three through an import inside a
    function, a relative one and one under TYPE_CHECKING is found and named in order; names
    imported from a module count as the module; a chain without a circle passes."""
    sources = {
        "koryo_pbm.a": ("from koryo_pbm.b import thing\n", False),
        "koryo_pbm.b": ("def f():\n    from .c import other\n", False),
        "koryo_pbm.c": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import koryo_pbm.a\n", False),
        "koryo_pbm.d": ("from koryo_pbm import a\n", False),
        "koryo_pbm.store": ("", True),
        "koryo_pbm.store.x": ("from koryo_pbm.store import y\n", False),
        "koryo_pbm.store.y": ("from koryo_pbm.errors import FormatError\n", False),
    }
    assert circles(graph(sources)) == [["koryo_pbm.a", "koryo_pbm.b", "koryo_pbm.c", "koryo_pbm.a"]]
    del sources["koryo_pbm.c"]
    assert circles(graph(sources)) == []
    # two modules importing each other, one of them only inside a function
    pair = {"koryo_pbm.judge.club": ("from koryo_pbm.judge import service\n", False),
            "koryo_pbm.judge.service": ("def g():\n    from koryo_pbm.judge.club import Club\n", False)}
    assert circles(graph(pair)) == [["koryo_pbm.judge.club", "koryo_pbm.judge.service", "koryo_pbm.judge.club"]]
