// One signature rule on both sides (issue 29, item 5): the page's verdict on the shared Ed25519 vectors
// (tests/vectors/ed25519-strict-v1.json, read by tests/crypto/test_ed25519_strict.py too) is the
// command line's; noble's ZIP-215 default, which the page used before, accepts the mixed-order key and
// the torsion R that the command line refuses.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ed25519 } from "@noble/curves/ed25519.js";
import * as core from "../src/core.js";

const V = JSON.parse(readFileSync(new URL("../../tests/vectors/ed25519-strict-v1.json", import.meta.url), "utf8")).vectors;
const X25519 = core.fromHex("09" + "00".repeat(31));  // a sealing key of large order, for key lines

function keyLine(edHex) {
  return core.PUBLIC_PREFIX + core.b64(core.concat(core.fromHex(edHex), X25519)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

for (const v of V) {
  test(`strict verdict on "${v.name}": ${v.valid ? "accepted" : "refused"}, as the command line says`, () => {
    const data = core.fromHex(v.data), sig = core.fromHex(v.signature), pub = core.fromHex(v.public);
    assert.equal(core.verify(pub, v.context, data, sig), v.valid, v.why);
    // a key line naming this key is refused as the command line's PublicIdentity refuses it
    if (core.isValidPoint(pub)) assert.equal(core.parsePublic(keyLine(v.public)).fingerprint.length, 16);
    else assert.throws(() => core.parsePublic(keyLine(v.public)), /not a point of the prime-order group/);
    assert.equal(core.isValidPoint(pub), v.name !== "mixed-order key" && v.name !== "small-order key");
  });
  test(`noble's ZIP-215 default says what the vector records for "${v.name}" (the disagreement the page had)`, () => {
    let said;
    try { said = ed25519.verify(core.fromHex(v.signature), core.signedMessage(v.context, core.fromHex(v.data)), core.fromHex(v.public)); } catch { said = false; }
    assert.equal(said, v.zip215);
  });
}
