/**
 * The isolation matrix by API: every account API route (/v1/account/*, read from /openapi.json,
 * tag `account`) called with A's owner's and A's plain member's personal access tokens and the
 * ids of account B in the path, the query and the body; A's API key on the task routes, /v1/me
 * and the key holder's console pages with B's ids; hosted media; the admin API refused to a
 * member's token and session. No answer shows a record of B, and B is the same afterwards.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { ADMIN_TOKEN, serverTest } from "../../helpers/gateway.ts";
import { type ApiAnswer, call } from "../../helpers/account_api.ts";
import { consoleClient } from "../../helpers/console_client.ts";
import {
  assertNoneOf,
  type IsolationWorld,
  markersOf,
  type Role,
  snapshotOf,
  startIsolationWorld,
} from "../../helpers/isolation_world.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

interface Probe {
  method: string;
  path: string;
  body?: unknown;
  /** The status an owner's and a plain member's token get. */
  status: Record<Role, number>;
  /** More checks of an answer that is not refused. */
  check?: (answer: ApiAnswer) => void;
}

const both = (status: number) => ({ owner: status, member: status });

/** Cursors of B's own lists (first pages of one row), read with B's token. */
interface BCursors {
  requests: string;
  ledger: string;
}

async function cursorsOf(w: IsolationWorld): Promise<BCursors> {
  const cursor = async (list: string) => {
    const page = await call(w.gw, w.b.people.owner.token, "GET", `/v1/account/${list}?limit=1`);
    assertOk(page.body.cursor, `B's ${list} has a second page: ${JSON.stringify(page.body)}`);
    return page.body.cursor as string;
  };
  return { requests: await cursor("requests"), ledger: await cursor("ledger") };
}

/** The matrix: every account API route (method and OpenAPI path) with its probes as A. */
function matrix(w: IsolationWorld, cursors: BCursors): Record<string, Probe[]> {
  const { a, b } = w;
  const keyIds = b.keys.map((key) => key.id);
  const intoB = `account_id=${b.id}&account=${b.id}`;
  const perKey = (method: string, tail: string, body?: unknown) =>
    keyIds.map((id): Probe => ({
      method,
      path: `/v1/account/keys/${id}${tail}`,
      body,
      status: both(404),
    }));
  const onlyA = (answer: ApiAnswer) => {
    const keys = (answer.body.data as Json[]).map((row) => row.key_id).filter(Boolean);
    const own = new Set(a.keys.map((key) => key.id));
    assertOk(keys.every((id) => own.has(id)), `rows of A's keys only: ${keys}`);
  };
  return {
    "GET /v1/account": [{
      method: "GET",
      path: `/v1/account?${intoB}`,
      status: both(200),
      check: (answer) => assertEquals(answer.body.id, a.id),
    }],
    "GET /v1/account/models": [
      { method: "GET", path: `/v1/account/models?${intoB}`, status: both(200) },
    ],
    "GET /v1/account/usage": [{
      method: "GET",
      path: `/v1/account/usage?group_by=key,model&interval=day&${intoB}`,
      status: both(200),
      check: onlyA,
    }],
    "GET /v1/account/requests": [
      {
        method: "GET",
        path: `/v1/account/requests?limit=1000&${intoB}`,
        status: both(200),
        check: onlyA,
      },
      ...keyIds.map((id): Probe => ({
        method: "GET",
        path: `/v1/account/requests?key=${id}`,
        status: both(404),
      })),
      // A cursor of B's list only says where to start in A's own.
      {
        method: "GET",
        path: `/v1/account/requests?cursor=${cursors.requests}`,
        status: both(200),
        check: onlyA,
      },
    ],
    "GET /v1/account/requests/{id}": b.requestIds.map((id): Probe => ({
      method: "GET",
      path: `/v1/account/requests/${id}`,
      status: both(404),
    })),
    "GET /v1/account/tasks": [
      {
        method: "GET",
        path: `/v1/account/tasks?limit=1000&${intoB}`,
        status: both(200),
        check: (answer) => {
          onlyA(answer);
          assertEquals(answer.body.data.map((t: Json) => t.id), [a.taskId], "A's task only");
        },
      },
      ...keyIds.map((id): Probe => ({
        method: "GET",
        path: `/v1/account/tasks?key=${id}`,
        status: both(404),
      })),
    ],
    "GET /v1/account/ledger": [{
      method: "GET",
      path: `/v1/account/ledger?limit=1000&${intoB}`,
      status: both(200),
      check: (answer) => {
        const ids = new Set(b.ledgerIds);
        assertOk(answer.body.data.every((entry: Json) => !ids.has(entry.id)));
      },
    }, {
      method: "GET",
      path: `/v1/account/ledger?cursor=${cursors.ledger}`,
      status: both(200),
      check: onlyA,
    }],
    "GET /v1/account/keys": [{
      method: "GET",
      path: `/v1/account/keys?${intoB}`,
      status: both(200),
      check: (answer) => {
        const own = new Set(a.keys.map((key) => key.id));
        assertOk(answer.body.data.every((key: Json) => own.has(key.id)), "A's keys only");
      },
    }],
    "POST /v1/account/keys": [
      // The body is strict: an account or a maker of the caller's choosing is refused.
      {
        method: "POST",
        path: "/v1/account/keys",
        body: { name: "alpha-api-probe", account_id: b.id },
        status: both(400),
      },
      {
        method: "POST",
        path: "/v1/account/keys",
        body: { name: "alpha-api-probe", created_by: b.people.owner.memberId },
        status: both(400),
      },
      {
        method: `POST`,
        path: `/v1/account/keys?${intoB}`,
        body: { name: "alpha-api-probe" },
        status: both(201),
      },
    ],
    "GET /v1/account/keys/{id}": perKey("GET", ""),
    "PATCH /v1/account/keys/{id}": perKey("PATCH", "", { name: "taken-over", enabled: false }),
    "DELETE /v1/account/keys/{id}": perKey("DELETE", ""),
    "POST /v1/account/keys/{id}/rotate": perKey("POST", "/rotate", { grace_seconds: 0 }),
    "POST /v1/account/redeem": [
      // B's code is spent: the route's own 409, and nothing is credited to anyone.
      {
        method: "POST",
        path: `/v1/account/redeem?${intoB}`,
        body: { code: b.code.code },
        status: both(409),
      },
      { method: "POST", path: "/v1/account/redeem", body: { code: b.code.id }, status: both(404) },
    ],
  };
}

Deno.test(
  "isolation, account API: every /v1/account route with account B's ids answers A's tokens 404 (or its own rule), never B's records, and B is unchanged",
  serverTest,
  async () => {
    await using w = await startIsolationWorld();
    const { gw, a, b } = w;
    const document: Json = await (await fetch(`${gw.url}/openapi.json`)).json();
    const routes: string[] = [];
    for (const [path, item] of Object.entries<Json>(document.paths)) {
      for (const [method, operation] of Object.entries<Json>(item)) {
        if (operation?.tags?.includes("account")) routes.push(`${method.toUpperCase()} ${path}`);
      }
    }
    assertOk(routes.length >= 12, `account routes: ${routes}`);
    const table = matrix(w, await cursorsOf(w));
    assertEquals(
      routes.filter((route) => !(route in table)),
      [],
      "account API routes the isolation matrix does not cover: add them to matrix()",
    );
    assertEquals(Object.keys(table).filter((route) => !routes.includes(route)), []);

    const markers = markersOf(b);
    const before = await snapshotOf(gw, b);
    for (const role of ["owner", "member"] as const) {
      const token = a.people[role].token;
      for (const probes of Object.values(table)) {
        for (const probe of probes) {
          const answer = await call(gw, token, probe.method, probe.path, probe.body);
          const what = `${role}: ${probe.method} ${probe.path}`;
          const text = JSON.stringify(answer.body);
          assertEquals(answer.status, probe.status[role], `${what}: ${text}`);
          if (answer.status < 400) probe.check?.(answer);
          assertNoneOf(markers, text, `${probe.path} ${JSON.stringify(probe.body ?? {})}`, what);
        }
      }
    }
    assertEquals(await snapshotOf(gw, b), before, "B is unchanged");
  },
);

Deno.test(
  "isolation, API keys: A's key cannot read B's tasks, requests or key holder pages; media ids are unguessable",
  serverTest,
  async () => {
    await using w = await startIsolationWorld();
    const { gw, a, b } = w;
    const markers = markersOf(b);
    const before = await snapshotOf(gw, b);
    for (const key of a.keys) {
      const probes = [
        `/v1/images/tasks/${b.taskId}`,
        `/v1/video/generations/${b.taskId}`,
        `/v1/me?account_id=${b.id}`,
        `/v1/me/requests?key=${b.keys[0].id}&account=${b.id}`,
        `/v1/me/ledger?key=${b.keys[0].id}&limit=1000`,
        `/v1/me/usage?key=${b.keys[0].id}`,
      ];
      for (const path of probes) {
        const answer = await call(gw, key.secret, "GET", path);
        if (path.includes(b.taskId)) assertEquals(answer.status, 404, JSON.stringify(answer.body));
        else assertEquals(answer.status, 200, `${path}: ${JSON.stringify(answer.body)}`);
        assertNoneOf(markers, JSON.stringify(answer.body), path, `${key.name}: GET ${path}`);
      }
    }
    // A's own task is still A's to read: the 404 above is about B, not about the route.
    assertEquals(
      (await call(gw, a.keys[0].secret, "GET", `/v1/images/tasks/${a.taskId}`)).status,
      200,
    );

    // The key holder's read-only console, signed in with A's key.
    const holder = consoleClient(gw.url);
    await (await holder.signIn(a.keys[0].secret)).body?.cancel();
    assertOk(holder.cookie, "signed in with A's key");
    const pages: Array<[string, number]> = [
      ["/console/me", 200],
      [`/console/requests?key=${b.keys[0].id}`, 200],
      ["/console/requests", 200],
      [`/console/requests/export?format=csv&key=${b.keys[0].id}`, 403],
      ["/console/tasks", 200],
      ...b.requestIds.map((id): [string, number] => [`/console/requests/${id}`, 404]),
      [`/console/tasks/${b.taskId}`, 404],
      [`/console/keys/${b.keys[0].id}`, 403],
      [`/console/accounts/${b.id}`, 403],
      ["/console/account", 403],
    ];
    for (const [path, status] of pages) {
      const response = await holder.get(path);
      const body = await response.text();
      assertEquals(response.status, status, `holder ${path}: ${body.slice(0, 200)}`);
      assertNoneOf(markers, body, path, `holder ${path}`);
    }

    // Hosted media is served by id without a key, by design (an <img> or a player fetches it),
    // so the id itself is the secret: at least 20 random characters (med_ + 32 base62 today).
    const random = b.mediaId.replace(/^med_/, "");
    assertOk(/^[0-9A-Za-z]{20,}$/.test(random), `media id ${b.mediaId}`);
    assertEquals(new Set(random).size > 10, true, "the id is not a pattern");
    const served = await fetch(b.mediaUrl);
    await served.body?.cancel();
    assertEquals(served.status, 200);
    const guessed = await fetch(`${gw.url}/media/med_${"A".repeat(32)}.png`);
    await guessed.body?.cancel();
    assertEquals(guessed.status, 404);

    assertEquals(await snapshotOf(gw, b), before, "B is unchanged");
  },
);

Deno.test(
  "isolation: a member never reaches the operator: the admin API refuses a member's token and session, operator pages answer 403",
  serverTest,
  async () => {
    await using w = await startIsolationWorld();
    const { gw, a } = w;
    const owner = a.people.owner;
    // Eight refusals in all: under the failed-authentication throttle's ten, so each is a 401.
    for (const path of ["/admin/keys", "/admin/accounts"]) {
      const byToken = await call(gw, owner.token, "GET", path);
      assertEquals(byToken.status, 401, `${path} with a personal access token`);
      const bySession = await fetch(`${gw.url}${path}`, {
        headers: { cookie: owner.client.cookie },
      });
      await bySession.body?.cancel();
      assertEquals(bySession.status, 401, `${path} with a member's session cookie`);
      const byKey = await call(gw, a.keys[0].secret, "GET", path);
      assertEquals(byKey.status, 401, `${path} with an API key`);
    }
    const deleted = await call(gw, owner.token, "DELETE", `/admin/accounts/${w.b.id}`);
    assertEquals(deleted.status, 401);
    for (
      const path of ["/console/keys", "/console/channels", "/console/audit", "/console/accounts"]
    ) {
      const response = await owner.client.get(path);
      await response.body?.cancel();
      assertEquals(response.status, 403, path);
    }
    // The admin token is not a personal access token either.
    assertEquals((await call(gw, ADMIN_TOKEN, "GET", "/v1/account")).status, 401);
  },
);
