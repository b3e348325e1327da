// The player's key in this page: which game a key belongs to, and its public line on request.
// A key unlocked once stays unlocked in this page's memory while it is open (main.js), never
// stored in clear: the page remembers a key only as the passphrase-protected key file.
import * as core from "./core.js";

/** One sentence when ``identity`` holds no seat of ``game``: a key of another game (or another key
 * of the same name), and what to do. Null when it holds a seat. */
export function notInThisGame(game, identity) {
  const seats = Object.keys(game.players);
  const mine = seats.find((n) => game.players[n].fingerprint === identity.fingerprint
    && game.players[n].fingerprint !== game.moderator.fingerprint);
  if (mine) return null;
  const id = game.top.game_id;
  if (identity.fingerprint === game.moderator.fingerprint) {
    return `this is the moderator's key of game ${id} (${identity.fingerprint}), not a player's: open the game with your player key`;
  }
  const named = seats.includes(identity.name) ? identity.name : null;
  if (named) {
    return `your key ${identity.name} (fingerprint ${identity.fingerprint}) is not the key ${named} has in game ${id} `
      + `(${game.players[named].fingerprint}): it is another key of that name (one for another game?); choose the key file whose public line you sent `
      + `the moderator of game ${id} (under "Your key", "Show my public key" shows a key's fingerprint), or, if that key is lost, ask the moderator to give your seat your new key`;
  }
  return `your key ${identity.name} (fingerprint ${identity.fingerprint}) is not the key of any player of game ${id} (the players are ${seats.join(", ")}): `
    + `if it is your key for another game, choose the key file whose public line you sent the moderator of game ${id}`;
}

/** The public line of a key, as `koryo-pbm keygen` prints it (line, then name) and its fingerprint. */
export function publicOf(identity) {
  return { line: `${identity.line} ${identity.name}`, fingerprint: identity.fingerprint };
}
