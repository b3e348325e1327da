"""Fixtures of the attack suite (the helpers are in ``attack_kit``)."""

from __future__ import annotations

import pytest
from attack_kit import Arena, World, build_world


@pytest.fixture(scope="session")
def world(tmp_path_factory) -> World:
    return build_world(tmp_path_factory.mktemp("world"))


@pytest.fixture
def arena(world, tmp_path) -> Arena:
    return Arena(world, tmp_path / "arena")
