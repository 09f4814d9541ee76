/**
 * The isolation matrix in the console: A's owner and A's plain member, signed in, call every
 * member page the console serves with the ids of account B (keys, requests, members, tokens, the
 * account itself) in the path, the query and the form. Each answer is 404 (or 403 where the
 * route's own rule says so: switching into an account one is not a member of, an owner's page for
 * a plain member), never shows a record of B, and B is the same afterwards. The list of member
 * pages comes from the routes the console registers and its member allowlist: a member page the
 * matrix does not cover fails the test. Every other page after sign-in answers a member 403.
 */

import { createApp } from "../../../app.ts";
import { isMemberPage } from "../../../routes/console/member_guard.ts";
import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { serverTest } from "../../helpers/gateway.ts";
import type { MemberClient } from "../../helpers/member_console.ts";
import {
  assertNoneOf,
  type IsolationWorld,
  markersOf,
  type Role,
  snapshotOf,
  startIsolationWorld,
} from "../../helpers/isolation_world.ts";

interface Probe {
  method: "GET" | "POST";
  path: string;
  form?: Record<string, string>;
  /** The status an owner and a plain member of A get. */
  status: Record<Role, number>;
}

const both = (status: number) => ({ owner: status, member: status });
/** An owner's page: a plain member is refused before any id is looked at. */
const ownerOnly = (status: number) => ({ owner: status, member: 403 });

/**
 * The matrix: every member route of the console (method and template) with its probes as A.
 * Pages without an id act on the session's own account and member only; they are probed with
 * B's ids added as fields or query parameters a careless page might read.
 */
function matrix(w: IsolationWorld): Record<string, Probe[]> {
  const { b } = w;
  const keyIds = b.keys.map((key) => key.id);
  const memberIds = Object.values(b.people).map((p) => p.memberId);
  const perKey = (method: "GET" | "POST", tail: string, form?: Record<string, string>) =>
    keyIds.map((id): Probe => ({
      method,
      path: `/console/account/keys/${id}${tail}`,
      form,
      status: both(404),
    }));
  const perMember = (tail: string, form: Record<string, string>) =>
    memberIds.map((id): Probe => ({
      method: "POST",
      path: `/console/members/${id}${tail}`,
      form,
      status: ownerOnly(404),
    }));
  const intoB = { account_id: b.id, account: b.id, member_id: b.people.owner.memberId };
  return {
    "GET /console/account": [
      { method: "GET", path: `/console/account?account_id=${b.id}`, status: both(200) },
    ],
    "POST /console/account": [
      // Switching into an account one is not a member of: the route's own 403.
      { method: "POST", path: "/console/account", form: { account_id: b.id }, status: both(403) },
    ],
    "GET /console/account/keys": [
      { method: "GET", path: `/console/account/keys?account_id=${b.id}`, status: both(200) },
    ],
    "GET /console/account/keys/new": [
      { method: "GET", path: "/console/account/keys/new", status: both(200) },
    ],
    "POST /console/account/keys": [{
      method: "POST",
      path: "/console/account/keys",
      form: { name: "alpha-probe", enabled: "true", ...intoB, created_by: intoB.member_id },
      status: both(303),
    }],
    "GET /console/account/keys/:id/created": perKey("GET", "/created"),
    "GET /console/account/keys/:id": perKey("GET", ""),
    "POST /console/account/keys/:id/enabled": perKey("POST", "/enabled", { enabled: "false" }),
    "POST /console/account/keys/:id/edit": perKey("POST", "/edit", { name: "taken-over" }),
    "POST /console/account/keys/:id/rotate": perKey("POST", "/rotate", { grace_seconds: "0" }),
    "POST /console/account/keys/:id/delete": perKey("POST", "/delete", { confirm: "yes" }),
    "GET /console/account/usage": [
      { method: "GET", path: `/console/account/usage?account_id=${b.id}`, status: both(200) },
      ...keyIds.map((id): Probe => ({
        method: "GET",
        path: `/console/account/usage?key=${id}`,
        status: both(404),
      })),
    ],
    "GET /console/account/usage/export": [
      { method: "GET", path: "/console/account/usage/export?format=csv", status: both(200) },
      {
        method: "GET",
        path: `/console/account/usage/export?format=jsonl&account_id=${b.id}`,
        status: both(200),
      },
      ...keyIds.map((id): Probe => ({
        method: "GET",
        path: `/console/account/usage/export?format=csv&key=${id}`,
        status: both(404),
      })),
    ],
    "GET /console/account/requests/:id": b.requestIds.map((id): Probe => ({
      method: "GET",
      path: `/console/account/requests/${id}`,
      status: both(404),
    })),
    "GET /console/account/models": [
      { method: "GET", path: `/console/account/models?account_id=${b.id}`, status: both(200) },
    ],
    "GET /console/account/wallet": [
      { method: "GET", path: `/console/account/wallet?account_id=${b.id}`, status: both(200) },
    ],
    "POST /console/account/wallet/redeem": [
      // B's code is spent: the route's own 409, and nothing is credited to anyone.
      {
        method: "POST",
        path: "/console/account/wallet/redeem",
        form: { code: b.code.code, ...intoB },
        status: both(409),
      },
      {
        method: "POST",
        path: "/console/account/wallet/redeem",
        form: { code: b.code.id },
        status: both(404),
      },
    ],
    "GET /console/members": [
      { method: "GET", path: `/console/members?account_id=${b.id}`, status: ownerOnly(200) },
    ],
    "POST /console/members": [
      {
        method: "POST",
        path: "/console/members",
        form: { email: "alpha-invitee@example.com", role: "member", ...intoB },
        status: ownerOnly(201),
      },
      // Inviting B's owner into A says nothing of B (nor whether the email has a member).
      {
        method: "POST",
        path: "/console/members",
        form: { email: b.people.owner.email, role: "owner" },
        status: ownerOnly(201),
      },
    ],
    "POST /console/members/:memberId/role": perMember("/role", { role: "member" }),
    "POST /console/members/:memberId/remove": perMember("/remove", {}),
    "GET /console/settings": [
      { method: "GET", path: `/console/settings?member_id=${intoB.member_id}`, status: both(200) },
    ],
    "POST /console/settings/password": [{
      method: "POST",
      path: "/console/settings/password",
      form: {
        current_password: "not the password",
        new_password: "another long password",
        ...intoB,
      },
      status: both(400),
    }],
    "POST /console/settings/totp/start": [
      { method: "POST", path: "/console/settings/totp/start", form: intoB, status: both(200) },
    ],
    "POST /console/settings/totp/confirm": [{
      method: "POST",
      path: "/console/settings/totp/confirm",
      form: { code: "000000", ...intoB },
      status: both(400),
    }],
    "POST /console/settings/totp/disable": [{
      method: "POST",
      path: "/console/settings/totp/disable",
      form: { password: "not the password", ...intoB },
      status: both(400),
    }],
    "POST /console/settings/sign-out-others": [
      { method: "POST", path: "/console/settings/sign-out-others", form: intoB, status: both(200) },
    ],
    "POST /console/settings/tokens": [{
      method: "POST",
      path: "/console/settings/tokens",
      form: { name: "alpha-probe", expires_in_days: "30", ...intoB },
      status: both(303),
    }],
    "GET /console/settings/tokens/created": Object.values(b.people).map((p): Probe => ({
      method: "GET",
      path: `/console/settings/tokens/created?id=${p.tokenId}`,
      status: both(200),
    })),
    "POST /console/settings/tokens/revoke": Object.values(b.people).map((p): Probe => ({
      method: "POST",
      path: "/console/settings/tokens/revoke",
      form: { id: p.tokenId },
      status: both(404),
    })),
    "POST /console/theme": [
      {
        method: "POST",
        path: "/console/theme",
        form: { theme: "dark", ...intoB },
        status: both(303),
      },
    ],
    // Last: it ends the session.
    "POST /console/sign-out": [
      { method: "POST", path: "/console/sign-out", form: intoB, status: both(303) },
    ],
  };
}

/** The console's routes after sign-in, as `METHOD /template` (the app's own route table). */
function consoleRoutesOf(w: IsolationWorld): string[] {
  const app = createApp(w.gw.running.gateway, "unused", () => true);
  const routes = app.routes
    .filter((r) => r.method !== "ALL" && r.path.startsWith("/console") && !r.path.endsWith("*"))
    .map((r) => `${r.method} ${r.path}`);
  return [...new Set(routes)];
}

/** A path of the template with a placeholder for each parameter, to test against the allowlist. */
const samplePath = (template: string) => template.replace(/:[^/]+/g, "x1");

/** Pages for visitors without a session (sign-in, links from mail, sign-up): no account's data. */
const SIGNED_OUT_PAGES = /^\/console\/(sign-in(\/second-factor)?|forgot|reset|invitation|sign-up)$/;

async function send(client: MemberClient, probe: Probe): Promise<Response> {
  if (probe.method === "GET") return await client.get(probe.path);
  return await client.postMember(probe.path, probe.form ?? {});
}

Deno.test(
  "isolation, console: every member page with account B's ids answers A 404 (or its own 403), never B's records, and B is unchanged",
  serverTest,
  async () => {
    await using w = await startIsolationWorld();
    const { gw, a, b } = w;
    const routes = consoleRoutesOf(w);
    const memberRoutes = routes.filter((route) => isMemberPage(samplePath(route.split(" ")[1])));
    const table = matrix(w);
    assertEquals(
      memberRoutes.filter((route) => !(route in table)),
      [],
      "member pages the isolation matrix does not cover: add them to matrix()",
    );
    assertEquals(
      Object.keys(table).filter((route) => !memberRoutes.includes(route)),
      [],
      "matrix entries that are not member pages any more",
    );

    const markers = markersOf(b);
    const before = await snapshotOf(gw, b);
    for (const role of ["owner", "member"] as const) {
      const client = a.people[role].client;
      for (const [route, probes] of Object.entries(table)) {
        assertOk(probes.length > 0, `${route} has probes`);
        for (const probe of probes) {
          const response = await send(client, probe);
          const body = await response.text();
          const what = `${role}: ${probe.method} ${probe.path}`;
          assertEquals(response.status, probe.status[role], `${what}: ${body.slice(0, 300)}`);
          const sent = `${probe.path} ${JSON.stringify(probe.form ?? {})}`;
          assertNoneOf(markers, body, sent, what);
          assertNoneOf(markers, response.headers.get("location") ?? "", sent, `${what} (location)`);
        }
      }
    }

    // What A made while probing with B's ids in its forms is A's.
    const made = (await gw.admin("GET", `/admin/accounts/${a.id}/keys`)).body.data ??
      (await gw.admin("GET", `/admin/accounts/${a.id}/keys`)).body;
    assertEquals(
      made.filter((key: { name: string }) => key.name === "alpha-probe").length,
      2,
      "the keys made with B's ids in the form are A's",
    );
    assertEquals(await snapshotOf(gw, b), before, "B is unchanged");
  },
);

Deno.test(
  "isolation, console: every page that is not a member page answers A's member 403, with B's ids too",
  serverTest,
  async () => {
    await using w = await startIsolationWorld();
    const { a, b } = w;
    const client = a.people.owner.client;
    const markers = markersOf(b);
    const idFor = (template: string) => {
      if (template.startsWith("/console/accounts/")) return b.id;
      if (template.startsWith("/console/keys/")) return b.keys[0].id;
      if (template.startsWith("/console/requests/")) return b.requestIds[0];
      if (template.startsWith("/console/tasks/")) return b.taskId;
      if (template.startsWith("/console/redemption-codes/")) return w.batchId;
      return b.id;
    };
    const others = consoleRoutesOf(w).filter((route) => {
      const template = route.split(" ")[1];
      return !isMemberPage(samplePath(template)) && !SIGNED_OUT_PAGES.test(template);
    });
    for (
      const expected of [
        "GET /console/keys",
        "GET /console/channels",
        "GET /console/audit",
        "GET /console/accounts",
        "GET /console/accounts/:id",
        "GET /console/requests/:id",
        "GET /console/tasks/:id",
        "GET /console/me",
        "GET /console/search",
      ]
    ) {
      assertOk(others.includes(expected), `${expected} among ${others.join(", ")}`);
    }
    for (const route of others) {
      const [method, template] = route.split(" ");
      const path = template.replace(/:[^/]+/g, idFor(template));
      const response = method === "GET"
        ? await client.get(path)
        : await client.postMember(path, { account_id: b.id });
      const body = await response.text();
      if (route === "GET /console") {
        // The operator's overview: a member is sent to the account's dashboard.
        assertEquals([response.status, response.headers.get("location")], [
          303,
          "/console/account",
        ]);
        continue;
      }
      assertEquals(response.status, 403, `${route} as a member: ${body.slice(0, 200)}`);
      assertNoneOf(markers, body, path, route);
    }
  },
);
