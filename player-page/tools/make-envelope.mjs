// node tools/make-envelope.mjs GAME_FILE KEY_FILE PASSPHRASE PICK
// Answer the pending decision as the page does (core.js): open the part, walk the sealed menu
// (PICK: "first" or "suggested" at every question), sign and seal; print the armoured envelope.
import { readFileSync } from "node:fs";
import * as core from "../src/core.js";

const [gameFile, keyFile, passphrase, how = "suggested"] = process.argv.slice(2);
try {
  const game = core.readGame(new Uint8Array(readFileSync(gameFile)));
  const identity = core.parseKeyFile(readFileSync(keyFile, "utf8"), passphrase);
  const { seat, menu } = await core.openPart(game, identity);
  if (!menu) throw new core.PageError("no menu in the part");
  let option = menu.root;
  while (!("t" in option)) {
    const node = menu.nodes[option.n];
    option = node.o[how === "suggested" && node.d !== undefined ? node.d : 0];
  }
  const { armored } = await core.makeEnvelope(identity, game.moderator, {
    gameId: game.top.game_id, decision: game.top.decision.id, answers: core.historyHead(game), player: seat,
    ordersText: core.leafOrders(menu, option.t) });
  process.stdout.write(armored);
} catch (e) {
  process.stderr.write(`${e.message}\n`);
  process.exit(e instanceof core.PageError ? 1 : 2);
}
