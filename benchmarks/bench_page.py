"""The player page's budgets, measured in headless Chromium (Debian's, through Selenium, the
network off), as a player meets them: the page's size; a 4-player game file opened to its first
choice cold (the page just loaded: its Python starts as it opens, and the file is chosen at once)
and warm (the page kept open: the next file); what blocks the main thread meanwhile (the long
tasks, over 50 ms, the browser reports); memory (the browser's processes, resident, with the
rules started against the same page before they start, and the JavaScript heap).

Run: ``python benchmarks/bench_page.py [--runs 5]``. Needs chromium and chromium-driver.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "page"))

OBSERVE = """
window.__long = [];
new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push([e.startTime, e.duration]); })
  .observe({ type: "longtask", buffered: true });
"""
FIRST = """
const done = arguments[0];
const seen = () => document.querySelector('[data-choice]');
if (seen()) { done(performance.now()); return; }
new MutationObserver((m, o) => { if (seen()) { o.disconnect(); done(performance.now()); } })
  .observe(document.body, { childList: true, subtree: true });
"""


def _rss(pid: int) -> int:
    """Resident bytes of the process ``pid`` and every process below it."""
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid=,rss="], capture_output=True, text=True).stdout
    rows = [tuple(map(int, line.split())) for line in out.splitlines() if line.strip()]
    tree, todo = {pid}, [pid]
    while todo:
        p = todo.pop()
        for child, parent, _ in rows:
            if parent == p and child not in tree:
                tree.add(child)
                todo.append(child)
    return sum(rss for p, _, rss in rows if p in tree) * 1024


def _game(work: Path) -> tuple[Path, Path, Path]:
    """A 4-player Koryo game dealt from a seed, waiting for every player's orders; two of its
    players' keys (without passphrase)."""
    env_home = work / "home"
    def run(*args):
        r = subprocess.run([sys.executable, "-m", "koryo_pbm", *map(str, args)], capture_output=True, text=True,
                           env={"KORYO_PBM_HOME": str(env_home), "PATH": "/usr/bin:/bin"}, cwd=work)
        assert r.returncode == 0, r.stderr
    names = ("alice", "bob", "carol", "dave")
    for n in (*names, "mod"):
        run("keygen", n)
    keys = env_home / "keys"
    run("new", work / "g", "--as", "mod", "--seed", "bench page", *[f"--player={n}={keys / (n + '.pub')}" for n in names])
    return work / "g" / "game.toml", keys / "alice.key", keys / "bob.key"


def main() -> None:
    from page_kit import start

    from koryo_pbm.assets import player_page
    from koryo_pbm.store.gamefile import player_copy

    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-page-"))
    page = work / "page.html"
    page.write_bytes(player_page())
    game, alice, bob = _game(work)
    copy = work / "game.toml"
    copy.write_bytes(player_copy(game.read_bytes()))
    again = work / "next" / "game.toml"  # another mail's attachment (the same path again fires no change)
    again.parent.mkdir()
    again.write_bytes(copy.read_bytes())
    cold, warm, long_tasks, started, rss_before, rss_after, heap = [], [], [], [], [], [], []
    for run in range(args.runs):
        d = start(work / f"profile-{run}")
        try:
            d.set_script_timeout(300)
            d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": OBSERVE})
            d.get(page.as_uri())
            d.find_element("css selector", "#key-file").send_keys(str(alice))
            d.find_element("css selector", "#game-file").send_keys(str(copy))
            cold.append(d.execute_async_script(FIRST) / 1000)
            ready = d.execute_script("return performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd")
            long_tasks.append(d.execute_script("return window.__long"))
            started.append(ready / 1000)
            # warm: the page kept open, the next player's file
            d.execute_script("document.getElementById('choices').textContent = ''")
            t = d.execute_script("return performance.now()")
            d.find_element("css selector", "#key-file").send_keys(str(bob))
            d.find_element("css selector", "#game-file").send_keys(str(again))
            warm.append((d.execute_async_script(FIRST) - t) / 1000)
            heap.append(d.execute_script("return performance.memory.usedJSHeapSize"))
            pid = d.service.process.pid
            rss_after.append(_rss(pid))
            d.get("about:blank")
            time.sleep(1)
            rss_before.append(_rss(pid))
        finally:
            d.quit()
    blocking = [sum(dur for _, dur in tasks) / 1000 for tasks in long_tasks]
    longest = [max((dur for _, dur in tasks), default=0) / 1000 for tasks in long_tasks]
    figures = {
        "page_bytes": len(player_page()),
        "game_file_bytes": copy.stat().st_size,
        "cold_first_choice_s_median": round(statistics.median(cold), 3), "cold_s_all": [round(x, 3) for x in cold],
        "warm_first_choice_s_median": round(statistics.median(warm), 3), "warm_s_all": [round(x, 3) for x in warm],
        "dom_content_loaded_s_median": round(statistics.median(started), 3),
        "main_thread_long_tasks_s_median": round(statistics.median(blocking), 3),
        "longest_task_s_median": round(statistics.median(longest), 3),
        "browser_rss_mib_rules_started_median": round(statistics.median(rss_after) / 2**20, 1),
        "browser_rss_mib_blank_page_median": round(statistics.median(rss_before) / 2**20, 1),
        "js_heap_mib_median": round(statistics.median(heap) / 2**20, 1),
    }
    figures["load_average_after"] = Path("/proc/loadavg").read_text().split()[0]
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
