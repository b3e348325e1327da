// Build the player page: one self-contained HTML file (inline script and style, a strict
// Content-Security-Policy, no network), the same bytes from the same sources and the pinned
// versions of package-lock.json. Usage: npm ci && node build.mjs [OUT] (default: the page shipped in the
// Python package, koryo_pbm/assets/player-page.html).
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] ?? join(here, "..", "koryo_pbm", "assets", "player-page.html");

const result = await build({
  entryPoints: [join(here, "src", "main.js")],
  bundle: true, write: false, format: "iife", target: "es2020", platform: "browser",
  minify: true, charset: "ascii", legalComments: "eof", sourcemap: false, treeShaking: true,
  absWorkingDir: here, logLevel: "warning",
});
let script = result.outputFiles[0].text;
script = script.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
const style = readFileSync(join(here, "src", "style.css"), "utf8");
const hash = (s) => createHash("sha256").update(s, "utf8").digest("base64");
const csp = [
  "default-src 'none'", `script-src 'sha256-${hash(script)}'`, `style-src 'sha256-${hash(style)}'`,
  "img-src data:", "connect-src 'none'", "font-src 'none'", "form-action 'none'", "base-uri 'none'",
  "object-src 'none'", "frame-src 'none'", "worker-src 'none'", "manifest-src 'none'",
].join("; ");
const pkg = JSON.parse(readFileSync(join(here, "package.json"), "utf8"));
const versions = Object.entries(pkg.dependencies).map(([n, v]) => `${n} ${v}`).join(", ");
const template = readFileSync(join(here, "src", "page.html"), "utf8");
const parts = template.split(/@(CSP|STYLE|SCRIPT)@/);
const fill = { CSP: csp, STYLE: style, SCRIPT: script };
let html = parts.map((p, i) => (i % 2 ? fill[p] : p)).join("");
html = html.replace("<head>", `<head>\n<!-- koryo-pbm player page ${pkg.version}, built from player-page/ with ${versions} -->`);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, html);
console.log(`${out}: ${html.length} bytes, sha256 ${createHash("sha256").update(html).digest("hex")}`);
