// The Python the page carries, made with Pyodide's own CPython under Node (tools/bundle.py):
// the standard library modules the player side imports and koryo-pbm's player side, each a zip
// of .pyc files. The sources: the modules of the player side listed here (the engine, the
// games, orders, pagecore), the games registered in ../pyproject.toml, tomli_w from vendor/.
import { loadPyodide } from "pyodide";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

// koryo_pbm's modules the page's Python needs (pagecore's docstring says why no other)
export const MODULES = ["__init__.py", "errors.py", "values.py", "pagecore.py", "history.py", "engine", "match/__init__.py", "match/orders.py"];

function files(dir) {
  return readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "__pycache__" ? [] : files(path);
    return name.endsWith(".py") ? [path] : [];
  });
}

/** The registered games of ../pyproject.toml ([project.entry-points."koryo_pbm.games"]). */
export function registeredGames(root) {
  const text = readFileSync(join(root, "pyproject.toml"), "utf8");
  const section = text.split('[project.entry-points."koryo_pbm.games"]')[1].split(/\n\[/)[0];
  const games = {};
  for (const line of section.split("\n")) {
    const m = line.match(/^\s*([A-Za-z0-9_-]+)\s*=\s*"([^"]+)"\s*$/);
    if (m) games[m[1]] = m[2];
  }
  return games;
}

/** Every module the sources import, at module level or inside a function (absolute imports). */
export function namedModules(texts) {
  const named = new Set();
  for (const text of texts) {
    for (const line of text.split("\n")) {
      let m = line.match(/^\s*from\s+([A-Za-z_][\w.]*)\s+import\b/);
      if (m) { named.add(m[1]); continue; }
      m = line.match(/^\s*import\s+([A-Za-z_][\w., ]*)/);
      if (m) for (const part of m[1].split(",")) named.add(part.trim().split(/\s+/)[0]);
    }
  }
  return [...named].filter(Boolean).sort();
}

export async function pythonBundle(here) {
  const root = join(here, "..");
  const sources = [];
  for (const m of MODULES) {
    const path = join(root, "koryo_pbm", m);
    for (const f of statSync(path).isDirectory() ? files(path) : [path]) sources.push([f, "koryo_pbm/" + relative(join(root, "koryo_pbm"), f)]);
  }
  for (const f of files(join(root, "games"))) sources.push([f, "koryo_pbm_games/" + relative(join(root, "games"), f)]);
  for (const f of files(join(here, "vendor", "tomli_w"))) sources.push([f, "tomli_w/" + relative(join(here, "vendor", "tomli_w"), f)]);
  const out = [];
  const py = await loadPyodide({ indexURL: join(here, "node_modules", "pyodide") + "/", stdout: (s) => out.push(s),
    stderr: (s) => out.push(s), env: { PYTHONHASHSEED: "0" } });
  for (const [from, to] of sources) {
    const parts = to.split("/");
    py.FS.mkdirTree("/src/" + parts.slice(0, -1).join("/"));
    py.FS.writeFile("/src/" + to, readFileSync(from));
  }
  py.FS.writeFile("/src/games.json", JSON.stringify(registeredGames(root)));
  py.FS.writeFile("/src/named.json", JSON.stringify(namedModules(sources.map(([from]) => readFileSync(from, "utf8")))));
  try {
    py.runPython(readFileSync(join(here, "tools", "bundle.py"), "utf8"), { filename: "bundle.py" });
  } catch (e) {
    throw new Error(`tools/bundle.py failed: ${e.message}\n${out.join("\n")}`);
  }
  const report = JSON.parse(out[out.length - 1]);
  return { stdlib: py.FS.readFile("/out/stdlib.zip"), python: py.FS.readFile("/out/python.zip"), report,
    version: py.version, lock: JSON.parse(readFileSync(join(here, "node_modules", "pyodide", "pyodide-lock.json"), "utf8")).info };
}
