// node tools/make-envelope.mjs GAME_FILE KEY_FILE PASSPHRASE PICK [ORDERS_FILE]
// Answer the pending decision as the page does (core.js): open the part, read the order strictly,
// sign and seal; print the armoured envelope. The join is written by the page's code itself
// (core.joinOrder), as the page does. Another decision's order: ORDERS_FILE's text (what the page's
// rules give, e.g. koryo_pbm/pagecore.py), or, for a file of an older koryo-pbm, the menu sealed in
// the part walked (PICK: "first" or "suggested" at every question).
import { readFileSync } from "node:fs";
import * as core from "../src/core.js";

const [gameFile, keyFile, passphrase, how = "suggested", ordersFile] = process.argv.slice(2);
try {
  const game = core.readGame(new Uint8Array(readFileSync(gameFile)));
  const identity = core.parseKeyFile(readFileSync(keyFile, "utf8"), passphrase);
  const { seat, menu } = await core.openPart(game, identity);
  let order;
  if (game.top.decision?.kind === "join") order = core.joinOrder(game);
  else if (ordersFile) order = core.readOrder(readFileSync(ordersFile, "utf8"), core.orderContext(game));
  else {
    if (!menu) throw new core.PageError("no menu in the part: give the orders (ORDERS_FILE)");
    const orders = core.readMenuOrders(menu, core.orderContext(game));
    let option = menu.root;
    while (!("t" in option)) {
      const node = menu.nodes[option.n];
      option = node.o[how === "suggested" && node.d !== undefined ? node.d : 0];
    }
    order = orders[option.t];
  }
  const { armored } = await core.makeEnvelope(identity, game.moderator, {
    gameId: game.top.game_id, decision: game.top.decision.id, answers: core.historyHead(game), player: seat,
    ordersText: order.text });
  process.stdout.write(armored);
} catch (e) {
  process.stderr.write(`${e.message}\n`);
  process.exit(e instanceof core.PageError ? 1 : 2);
}
