// The press part of the page (press.js does the cryptography): read a press pasted or dropped,
// write one to chosen players, ready to mail to the judge, who relays it.
import * as core from "./core.js";
import { makePress, openPress, policy, readers, scanPress } from "./press.js";
import { mailto } from "./reply.js";

const $ = (id) => document.getElementById(id);

function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }
function add(parent, tag, text, attrs = {}) {
  const el = document.createElement(tag);
  if (text !== undefined && text !== null) el.textContent = text;
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  parent.appendChild(el);
  return el;
}

/** The press part for the game ``page`` holds open (its game, identity and seat), or asks for one. */
export function showPressFor(page) {
  const box = $("press-to");
  for (const el of [...box.querySelectorAll("p")]) el.remove();
  $("press-made").hidden = true;
  $("press-out").value = "";
  if (!page.game) return;
  const allowed = policy(page.game);
  const others = readers(page.game, page.seat);
  if (allowed === "none" || !others.length) {
    add(box, "p", allowed === "none" ? `game ${page.game.top.game_id} allows no press` : "there is no other player to write to");
    $("press-seal").disabled = true;
    return;
  }
  $("press-seal").disabled = false;
  for (const n of others) {
    const p = add(box, "p");
    const input = add(p, "input", null, { type: "checkbox", id: `press-to-${n}`, "data-press-to": n });
    if (allowed === "public") { input.checked = true; input.disabled = true; }
    add(p, "label", n, { for: `press-to-${n}` });
  }
  if (allowed === "public") add(box, "p", "this game allows only press to every player", { class: "note" });
}

export async function readPasted(page, text) {
  const out = $("press-read");
  clear(out);
  if (!String(text).trim()) return null;
  if (!page.game) throw new core.PageError("open the game first (the game file and your key): a press is read with the game's keys");
  const found = scanPress(text);
  if (!found.length) throw new core.PageError("this holds no press (a block starting -----BEGIN KORYO-PBM PRESS-----)");
  const opened = [];
  for (const item of found) {
    if (item instanceof core.PageError) throw item;
    opened.push(await openPress(page.game, page.identity, page.seat, item));
  }
  for (const p of opened) {
    const art = add(out, "article", null, { class: "press", "aria-label": `Press from ${p.from}` });
    add(art, "p", `Press from ${p.from} to ${p.to.join(", ")}, sent ${p.sent} (signed by ${p.from}'s key in this game, sealed to you):`, { class: "note" });
    add(art, "pre", p.text, { tabindex: "0" });
  }
  return opened;
}

export async function writePress(page) {
  if (!page.game) throw new core.PageError("open the game first (the game file and your key): press is signed with your key");
  const names = [...document.querySelectorAll("[data-press-to]")].filter((x) => x.checked).map((x) => x.dataset.pressTo);
  const { header, armored } = await makePress(page.game, page.identity, page.seat, names, $("press-text").value);
  $("press-out").value = armored;
  $("press-made").hidden = false;
  $("press-reply").href = mailto(page.game.top, `press from ${page.seat} to ${header.to.replace(/,/g, ", ")}`, armored);
  try { await navigator.clipboard.writeText(armored); } catch { /* the Copy button */ }
  $("press-out").focus();
  $("press-out").select();
  return header;
}
