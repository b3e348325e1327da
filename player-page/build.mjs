// Build the player page: one self-contained HTML file (inline script and style, a strict
// Content-Security-Policy, no network), the same bytes from the same sources and the pinned
// versions of package-lock.json. Usage: npm ci && node build.mjs [OUT] (default: the page shipped in the
// Python package, koryo_pbm/assets/player-page.html).
//
// The page carries Pyodide (npm `pyodide`, pinned) and koryo-pbm's own rules: the WebAssembly
// binary, the standard library modules the player side imports and that player side
// (koryo_pbm/pagecore.py, the engine, the games), both as .pyc made by Pyodide's own CPython
// under Node (tools/python.mjs, tools/bundle.py), each gzipped and base64'd into a
// non-executed <script type="application/x-gzip-base64"> block.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { pythonBundle } from "./tools/python.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] ?? join(here, "..", "koryo_pbm", "assets", "player-page.html");

const result = await build({
  entryPoints: [join(here, "src", "main.js")],
  bundle: true, write: false, format: "iife", target: "es2022", platform: "browser",
  minify: true, charset: "ascii", legalComments: "eof", sourcemap: false, treeShaking: true,
  absWorkingDir: here, logLevel: "error",
  // Pyodide's code for Node (never run in a browser) imports Node's modules
  external: ["node:*", "ws"],
});
let script = result.outputFiles[0].text;
script = script.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
const style = readFileSync(join(here, "src", "style.css"), "utf8");
const hash = (s) => createHash("sha256").update(s, "utf8").digest("base64");
// 'wasm-unsafe-eval': compiling WebAssembly (Pyodide); it allows no eval of JavaScript
const csp = [
  "default-src 'none'", `script-src 'sha256-${hash(script)}' 'wasm-unsafe-eval'`, `style-src 'sha256-${hash(style)}'`,
  "img-src data:", "connect-src 'none'", "font-src 'none'", "form-action 'none'", "base-uri 'none'",
  "object-src 'none'", "frame-src 'none'", "worker-src 'none'", "manifest-src 'none'",
].join("; ");
const pkg = JSON.parse(readFileSync(join(here, "package.json"), "utf8"));
const versions = Object.entries(pkg.dependencies).map(([n, v]) => `${n} ${v}`).join(", ");

const py = await pythonBundle(here);
const wasm = readFileSync(join(here, "node_modules", "pyodide", "pyodide.asm.wasm"));
const lock = JSON.stringify({ info: py.lock, packages: {} });
/** A block of data the page unpacks (never executed: its type is not a script's). */
const block = (id, bytes) => `<script type="application/x-gzip-base64" id="${id}">${gzipSync(bytes, { level: 9 }).toString("base64")}</script>\n`;
const data = block("py-lock", Buffer.from(lock)) + block("py-packages", py.python) + block("py-stdlib", py.stdlib)
  + block("py-wasm", wasm);

const template = readFileSync(join(here, "src", "page.html"), "utf8");
const parts = template.split(/@(CSP|STYLE|SCRIPT|DATA)@/);
const fill = { CSP: csp, STYLE: style, SCRIPT: script, DATA: data };
let html = parts.map((p, i) => (i % 2 ? fill[p] : p)).join("");
html = html.replace("<head>", `<head>\n<!-- koryo-pbm player page ${pkg.version}, built from player-page/ with ${versions}; Python ${py.report.python} (${py.report.stdlib_modules} standard modules) -->`);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, html);
console.log(`${out}: ${html.length} bytes, sha256 ${createHash("sha256").update(html).digest("hex")}`);
