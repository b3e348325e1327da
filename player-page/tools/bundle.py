# Run by build.mjs inside Pyodide's own CPython (under Node), never by the page: find what the
# page's Python imports and write the two zips the page carries, each file compiled to .pyc by
# this very CPython (the one the page runs), with fixed dates and no compression (the page
# gzips each zip whole): /out/stdlib.zip, the standard library modules imported (Pyodide's own
# start-up included), and /out/python.zip, koryo-pbm's player side (build.mjs wrote its sources
# under /src). What is imported is found by running the player side on random positions of
# every bundled game and by importing every standard module its sources name anywhere.
import sys

started = set(sys.modules)  # Pyodide's own start-up

import importlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402

SRC = "/src"
games = json.loads(open(f"{SRC}/games.json").read())
named = json.loads(open(f"{SRC}/named.json").read())  # every module a bundled source imports (build.mjs)
# named but never reached in the page: the registry's fallback (the page registers its games)
NEVER = {"importlib.metadata"}

sys.path.insert(0, SRC)
from koryo_pbm.engine import registry  # noqa: E402

registry.use_table(games)

from koryo_pbm import pagecore  # noqa: E402


def _exercise() -> int:
    """The player side on a few random positions of every bundled game: every decision's table,
    its first steps, its suggestion, as the page asks them."""
    from koryo_pbm.engine import scene
    from koryo_pbm.engine.rng import Rng

    asked = 0
    for name in sorted(games):
        game = registry.find_game(name)
        counts = sorted(game.player_counts)
        for n in counts[-2:]:
            players = [f"p{i}" for i in range(1, n + 1)]
            options = {"teams": [players[i:i + 2] for i in range(0, n, 2)]} if name == "korsar" and n % 2 == 0 else None
            try:
                state = game.setup(players, f"bundle-{name}-{n}", options=options)
            except Exception:
                state = game.setup(players, f"bundle-{name}-{n}")
            rng = Rng.derived("bundle", name, str(n))
            for _ in range(40):
                decision = game.pending(state)
                if decision is None:
                    break
                public = game.public(state)
                for p in decision.players:
                    top = {"game_id": f"{name}-bundle", "game": name, "version": 1, "deal": "seed", "public": public,
                           "decision": {"id": decision.id, "kind": decision.kind, "waiting_for": list(decision.players),
                                        "received": []}}
                    table = pagecore.Table(top, game.private(state, p), p)
                    summary = table.summary()
                    scene.from_json(summary["picture"]["scene"])
                    menu = table.step([])
                    table.leaves([], 16)
                    if menu["o"] and "t" not in menu["o"][0]:
                        table.step([0])
                    asked += 1
                state, _ = game.apply(state, {p: game.random_order(state, p, rng) for p in decision.players})
    return asked


asked = _exercise()

# every module a bundled source names anywhere (at module level or inside a function)
for module in named:
    if module in NEVER:
        continue
    try:
        importlib.import_module(module)
    except Exception:
        pass  # not in Pyodide's library (cryptography, nacl...): a module the page never reaches
reached = dict(sys.modules)

import importlib.util  # noqa: E402
import io  # noqa: E402
import zipfile  # noqa: E402

STDLIB = [p for p in sys.path if p.endswith(".zip") and "python3" in os.path.basename(p)][0]
DATE = (1980, 1, 1, 0, 0, 0)


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for name in sorted(members):
            info = zipfile.ZipInfo(name, DATE)
            info.external_attr = 0o644 << 16
            info.create_system = 3
            z.writestr(info, members[name])
    return out.getvalue()


def _undocumented(tree):
    """``tree`` without its docstrings (the page shows no help): the same code otherwise, asserts
    and line numbers kept."""
    import ast

    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.copy_location(ast.Pass(), body[0])]
    return tree


def _pyc(source: bytes, path: str) -> bytes:
    import ast
    from importlib._bootstrap_external import _code_to_hash_pyc

    tree = _undocumented(ast.parse(source, path))
    code = compile(tree, path, "exec", dont_inherit=True, optimize=0)
    return bytes(_code_to_hash_pyc(code, importlib.util.source_hash(source), checked=False))


stdlib = zipfile.ZipFile(STDLIB)
inside = set(stdlib.namelist())
members: dict[str, bytes] = {}
for name, module in sorted(reached.items()):
    spec = getattr(module, "__spec__", None)
    origin = getattr(spec, "origin", None) or ""
    if not origin.startswith(STDLIB + os.sep):
        continue
    rel = origin[len(STDLIB) + 1:]
    if rel not in inside or not rel.endswith(".py"):
        continue
    members[rel[:-3] + ".pyc"] = _pyc(stdlib.read(rel), f"{STDLIB}/{rel}")
    package = os.path.dirname(rel)
    while package:  # each package's __init__ too
        init = f"{package}/__init__.py"
        if init in inside and init[:-3] + ".pyc" not in members:
            members[init[:-3] + ".pyc"] = _pyc(stdlib.read(init), f"{STDLIB}/{init}")
        package = os.path.dirname(package)
os.makedirs("/out", exist_ok=True)
open("/out/stdlib.zip", "wb").write(_zip(members))

# koryo-pbm's player side: its own modules, each checked imported or importable
mine: dict[str, bytes] = {}
for root, _dirs, files in os.walk(SRC):
    for f in files:
        if f.endswith(".py"):
            path = os.path.join(root, f)
            rel = os.path.relpath(path, SRC)
            mine[rel[:-3] + ".pyc"] = _pyc(open(path, "rb").read(), rel)
table = "GAMES = " + json.dumps(games, sort_keys=True) + "  # the games this page carries (pagecore.start)\n"
mine["koryo_pbm_page_games.pyc"] = _pyc(table.encode("utf-8"), "koryo_pbm_page_games.py")
open("/out/python.zip", "wb").write(_zip(mine))
print(json.dumps({"stdlib_modules": len(members), "at_start_up": len(started), "python_files": len(mine), "tables_asked": asked,
                  "python": sys.version.split()[0]}))
