/**
 * Every paged list refuses a cursor it did not give: cut short, changed or made up is 400
 * `invalid_cursor` naming `cursor` (the admin envelope, or the OpenAI one on /v1/me), never a
 * page read from wherever KV would make of it (`AAAA` is the first key).
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { assertAdminError } from "../helpers/admin_error.ts";
import { serverTest } from "../helpers/gateway.ts";
import { MODEL, setupChat } from "../helpers/text_setup.ts";

/** Lists that hold two records or more here, so their first page of one has a cursor. */
const FILLED = [
  "/admin/keys",
  "/admin/keys?sort=spend",
  "/admin/keys?sort=last_used",
  "/admin/channels",
  "/admin/ledger",
  "/admin/ledger?key={key}",
  "/admin/requests",
  "/admin/requests?key={key}",
  "/admin/audit",
  "/admin/webhooks",
  "/v1/me/requests",
  "/v1/me/ledger",
];
/** Lists left empty here: a made-up cursor is refused all the same. */
const EMPTY = [
  "/admin/tasks",
  "/admin/webhooks/{webhook}/deliveries",
  "/admin/tasks/task_00000000000000000000000000/deliveries",
];

/** Cursors nobody was given, made from `real` (a cursor this list gave) when there is one. */
function badCursors(real?: string): Record<string, string> {
  const made = {
    "made up (KV's first key)": "AAAA",
    "made up with a check": "AAAA.AAAAAAAAAAA",
    "made up, base64 of text": "Zm9vYmFy",
  };
  if (!real) return made;
  const dot = real.lastIndexOf(".");
  const changed = real[0] === "A" ? `B${real.slice(1)}` : `A${real.slice(1)}`;
  return {
    ...made,
    "without its check": real.slice(0, dot),
    "cut short by one character": real.slice(0, -1),
    "cut short in its list part": `${real.slice(0, Math.max(1, dot - 4))}${real.slice(dot)}`,
    "with one character changed": changed,
  };
}

Deno.test(
  "admin lists: a cut-short, changed or made-up cursor is 400 invalid_cursor on every list; a given one pages",
  serverTest,
  async () => {
    await using s = await setupChat({ key: { name: "cursors" } });
    const gw = s.gw;
    await gw.createKey({ name: "second", balance: 5 });
    await gw.createKey({ name: "third", balance: 7 });
    await gw.admin("POST", `/admin/keys/${s.keyId}/credit`, { amount: 11 });
    await gw.addChannel({ name: "second", base_url: s.upstream.baseUrl, models: [MODEL] });
    for (const name of ["a", "b"]) {
      const made = await gw.admin("POST", "/admin/webhooks", {
        url: `https://hooks-${name}.example.com/in`,
      });
      assertEquals(made.status, 201, JSON.stringify(made.body));
    }
    const webhook = (await gw.admin("GET", "/admin/webhooks")).body.data[0].id;
    for (let i = 0; i < 2; i++) {
      await s.client.chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: `hi ${i}` }],
      });
    }
    await gw.settle();
    const opening = await gw.assertLedgerInvariant(s.keyId);

    const get = async (path: string) => {
      const response = await fetch(`${gw.url}${path}`, {
        headers: {
          authorization: `Bearer ${path.startsWith("/v1/") ? s.key : "test-admin-token"}`,
        },
      });
      return { status: response.status, body: await response.json() };
    };
    const withCursor = (path: string, cursor: string) =>
      `${path}${path.includes("?") ? "&" : "?"}limit=1&cursor=${encodeURIComponent(cursor)}`;
    const failures: string[] = [];
    const expectRefused = async (path: string, name: string, cursor: string) => {
      const answer = await get(withCursor(path, cursor));
      try {
        assertAdminError(answer, 400, "invalid_cursor");
        assertEquals(answer.body.error.param, "cursor");
      } catch (error) {
        failures.push(`${path}, ${name} (${cursor}): ${(error as Error).message}`);
      }
    };
    for (const template of [...FILLED, ...EMPTY]) {
      const path = template.replace("{key}", s.keyId).replace("{webhook}", webhook);
      let real: string | undefined;
      if (FILLED.includes(template)) {
        const first = await get(`${path}${path.includes("?") ? "&" : "?"}limit=1`);
        assertEquals(first.status, 200, `${path}: ${JSON.stringify(first.body)}`);
        real = first.body.cursor;
        assertOk(typeof real === "string", `${path} gave no cursor: ${JSON.stringify(first.body)}`);
        const second = await get(withCursor(path, real!));
        assertEquals(
          second.status,
          200,
          `${path} with its own cursor: ${JSON.stringify(second.body)}`,
        );
        assertOk(
          JSON.stringify(second.body.data) !== JSON.stringify(first.body.data),
          `${path}: the second page repeats the first`,
        );
      }
      for (const [name, cursor] of Object.entries(badCursors(real))) {
        await expectRefused(path, name, cursor);
      }
    }
    assertEquals(failures, []);
    assertEquals(await gw.assertLedgerInvariant(s.keyId), opening);
  },
);
