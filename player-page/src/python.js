// The page's Python: Pyodide (CPython compiled to WebAssembly, the pinned npm package) running
// koryo-pbm's own rules (koryo_pbm/pagecore.py, the engine, the games) from data carried in this
// very file. Nothing is fetched: the WebAssembly binary, the standard library (.pyc) and
// koryo-pbm's player side (.pyc) sit in non-executed <script type="application/x-gzip-base64">
// blocks, unpacked with the browser's own DecompressionStream; Pyodide's two loads (the binary
// and the standard library) are answered from them during loadPyodide only, and it is given its
// Emscripten factory (bundled here) and its lock file, so that it asks for nothing else.
import { loadPyodide } from "pyodide";
import createPyodideModule from "pyodide/pyodide.asm.mjs";

/** The bytes of the embedded block ``id`` (gzip, base64). */
async function embedded(id) {
  const block = document.getElementById(id);
  if (!block) throw new Error(`this page lacks its part ${id}`);
  const text = block.textContent.trim();
  let bytes;
  if (Uint8Array.fromBase64) {
    bytes = Uint8Array.fromBase64(text);  // native (Chromium 140, Firefox 133 on): milliseconds for megabytes
  } else {
    const binary = atob(text);
    bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  }
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

let started = null;

/** Pyodide started with koryo-pbm's player side (once; later calls get the same promise). */
export function python() {
  if (!started) started = start();
  return started;
}

async function start() {
  const [wasm, stdlib, packages, lock] = await Promise.all([
    embedded("py-wasm"), embedded("py-stdlib"), embedded("py-packages"),
    embedded("py-lock").then((b) => new TextDecoder().decode(b))]);
  const plugins = document.getElementById("py-plugins") ? await embedded("py-plugins") : null;
  const served = { "pyodide.asm.wasm": [wasm, "application/wasm"], "python_stdlib.zip": [stdlib, "application/zip"] };
  const realFetch = globalThis.fetch;
  // Pyodide's two loads, answered from this file; any other request is refused (the CSP's
  // connect-src 'none' would refuse it anyway)
  globalThis.fetch = async (url) => {
    const name = String(url).split("/").pop();
    const found = served[name];
    if (!found) throw new Error(`the page fetches nothing (asked for ${name})`);
    return new Response(found[0], { headers: { "Content-Type": found[1] } });
  };
  let py;
  try {
    py = await loadPyodide({ indexURL: "./", lockFileContents: lock, packageBaseUrl: "./", createPyodideModule,
      stdout: () => {}, stderr: () => {}, checkAPIVersion: true });
  } finally {
    globalThis.fetch = realFetch;
  }
  py.FS.writeFile("/lib/koryo-pbm-page.zip", packages);
  if (plugins) py.FS.writeFile("/lib/koryo-pbm-plugins.zip", plugins);
  py.runPython(`import sys
sys.path[:0] = ["/lib/koryo-pbm-page.zip", "/lib/koryo-pbm-plugins.zip"]
from koryo_pbm import pagecore
pagecore.start()`);
  return py.pyimport("koryo_pbm.pagecore");
}

/** Call ``pagecore.page_NAME`` with JSON-able arguments; its JSON answer, parsed. */
export async function ask(name, ...args) {
  const core = await python();
  const answer = JSON.parse(core[`page_${name}`](...args.map((a) => JSON.stringify(a))));
  if (answer && answer.error) throw Object.assign(new Error(answer.error), { fromRules: true });
  return answer;
}
