"""Package discovery that pyproject.toml cannot express alone.

The repository keeps the games in ``games/`` (one folder per game), but they ship as the
package ``koryo_pbm_games`` so that no top-level package called ``games`` lands in
site-packages. Every sub-folder with an ``__init__.py`` is found, so adding a game needs no
change here.
"""

from setuptools import find_packages, setup

engine = find_packages(include=["koryo_pbm", "koryo_pbm.*"])
games = ["koryo_pbm_games" + name[len("games"):] for name in find_packages(include=["games", "games.*"])]

setup(packages=engine + games, package_dir={"koryo_pbm_games": "games"})
