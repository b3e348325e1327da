"""docs/adding-a-game.md against the code: every method it shows exists with the parameters the
engine passes (names, kinds, defaults), every hook of the contract is shown, and the GOPS
example is GOPS's code."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
import textwrap
from pathlib import Path

import pytest
from koryo_pbm_games.gops.game import GopsGame, GopsState

from koryo_pbm.engine import contract

DOC = (Path(__file__).resolve().parents[1] / "docs" / "adding-a-game.md").read_text()
BLOCKS = [ast.parse(textwrap.dedent(block)) for block in re.findall(r"```python\n(.*?)```", DOC, re.S)]
CLASSES = {node.name: node for tree in BLOCKS for node in tree.body if isinstance(node, ast.ClassDef)}
CODE = {"Game": contract.Game, "BlindRules": contract.BlindRules, "BlindHooks": contract.BlindHooks,
        "GopsGame": GopsGame}


def shown(cls_name):
    return {f.name: f for f in CLASSES[cls_name].body if isinstance(f, ast.FunctionDef)}


def params_of_doc(f: ast.FunctionDef):
    a = f.args
    plain = a.posonlyargs + a.args
    defaults = [None] * (len(plain) - len(a.defaults)) + list(a.defaults)
    out = [(p.arg, "positional", None if d is None else ast.literal_eval(d)) for p, d in zip(plain, defaults, strict=True)]
    out += [(p.arg, "keyword", None if d is None else ast.literal_eval(d)) for p, d in zip(a.kwonlyargs, a.kw_defaults,
                                                                                          strict=True)]
    return out


def params_of_code(func):
    out = []
    for p in inspect.signature(func).parameters.values():
        kind = "keyword" if p.kind is p.KEYWORD_ONLY else "positional"
        out.append((p.name, kind, None if p.default is p.empty else p.default))
    return out


@pytest.mark.parametrize("cls_name", sorted(CODE))
def test_every_method_the_doc_shows_exists_with_those_parameters(cls_name):
    methods = shown(cls_name)
    assert methods, cls_name
    for name, f in methods.items():
        real = getattr(CODE[cls_name], name, None)
        assert callable(real), f"{cls_name}.{name} is in the doc, not in the code"
        assert params_of_doc(f) == params_of_code(real), f"{cls_name}.{name}"


def test_every_hook_is_in_the_doc():
    assert set(contract.hooks()) <= set(shown("Game")), set(contract.hooks()) - set(shown("Game"))
    assert set(contract.BlindRules.__abstractmethods__) <= set(shown("BlindRules"))
    hooks = {k for k, v in vars(contract.BlindHooks).items() if not k.startswith("_") and callable(v)}
    assert set(contract.BLIND_HOOKS) == hooks == set(shown("BlindHooks"))
    for required in contract.REQUIRED:
        assert f"`{required}`" in DOC.split("### The whole contract")[0], required
    for attr in ("name", "title", "player_counts", "decision_kinds", "options", "marks", "state_type",
                 "secret_fields", "private_fields", "order_questions"):
        assert f"`{attr}`" in DOC or attr in DOC.split("class Game:")[1].split("def setup")[0], attr
    documented = {a for a, v in vars(contract.Game).items() if not a.startswith("_") and not callable(v)}
    assert documented <= {"decision_kinds", "options", "marks", "state_type", "secret_fields", "private_fields",
                          "order_questions"}, documented


@pytest.mark.parametrize("name", ["koryo", "korsar"])
def test_the_built_in_blind_rules_give_the_optional_hooks_the_documented_parameters(name):
    from koryo_pbm.engine.registry import find_game

    rules = find_game(name).blind_rules()
    given = [h for h in contract.BLIND_HOOKS if contract.blind_hook(rules, h) is not None]
    assert given
    for hook in given:
        raw = next(vars(c)[hook] for c in type(rules).__mro__ if hook in vars(c))
        if isinstance(raw, staticmethod):
            raw = raw.__func__
            want = [p for p in params_of_code(getattr(contract.BlindHooks, hook)) if p[0] != "self"]
        else:
            want = params_of_code(getattr(contract.BlindHooks, hook))
        assert [p[0] for p in params_of_code(raw)] == [p[0] for p in want], (name, hook)


def test_the_gops_example_is_gopss_code():
    fields = [n.target.id for n in CLASSES["GopsState"].body if isinstance(n, ast.AnnAssign)]
    assert fields == [f.name for f in dataclasses.fields(GopsState)]
    for node in CLASSES["GopsGame"].body:
        if isinstance(node, ast.Assign):
            name = node.targets[0].id
            want = ast.literal_eval(node.value) if name != "state_type" else GopsState
            assert getattr(GopsGame, name) == want, name


def test_the_mark_styles_the_doc_shows_are_the_engine_s_and_its_example_is_accepted():
    from koryo_pbm.engine.scene import MARK_STYLES, Mark, mark_problem

    pictures = DOC.split("### Pictures")[1].split("\n### ")[0]
    assert tuple(re.findall(r"^\| `(\w+)` \|", pictures, re.M)) == MARK_STYLES
    example = next(node for node in CLASSES["MyGame"].body if isinstance(node, ast.Assign))
    marks = eval(compile(ast.Expression(example.value), "doc", "eval"), {"Mark": Mark})  # the doc's own text
    assert {m.style if isinstance(m, Mark) else "plain" for m in marks.values()} == set(MARK_STYLES)
    assert all(mark_problem(name, m) is None for name, m in marks.items())
