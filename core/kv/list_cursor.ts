/**
 * The cursors the API gives for its lists: the list's own cursor (KV's, or a keyset cursor of a
 * sorted or index walk) followed by `.` and a check of it. A cursor cut short, changed or made up
 * fails the check and is refused, where KV would read many such strings as a place to start
 * (`AAAA` is the first key) and answer a page as if nothing were wrong.
 *
 * The check is a digest, not a signature: it proves the cursor is whole, not who made it. That is
 * enough here: a list's cursor only says where to start in that list (KV refuses one outside it),
 * so someone who builds a cursor on purpose can only page the list they can already read.
 */

import { createHash } from "node:crypto";
import { cursorShapeProblem } from "./list_options.ts";

const CHECK_CHARS = 11; // 8 bytes of SHA-256, base64url

function checkOf(inner: string): string {
  return createHash("sha256").update(`gateway list cursor 1\n${inner}`).digest("base64url")
    .slice(0, CHECK_CHARS);
}

/** The cursor given to clients for the list cursor `inner`. */
export function sealCursor(inner: string): string {
  return `${inner}.${checkOf(inner)}`;
}

/** The list cursor inside `given`, or why `given` is not a cursor this API gave. */
export function openCursor(given: string): { inner: string } | { problem: string } {
  const dot = given.lastIndexOf(".");
  const inner = given.slice(0, Math.max(0, dot));
  const shape = dot < 0
    ? "is not a cursor this API gave: send back the previous page's `cursor` as it is"
    : cursorShapeProblem(inner);
  if (shape) return { problem: shape };
  if (given.slice(dot + 1) !== checkOf(inner)) {
    return {
      problem: "is not a cursor this API gave: it was cut short or changed; send back the " +
        "previous page's `cursor` as it is, or start again without one",
    };
  }
  return { inner };
}
