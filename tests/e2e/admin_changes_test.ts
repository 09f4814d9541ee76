/**
 * Admin changes end to end: PATCH changes exactly the fields sent (generated from the schemas, so
 * new fields are covered), lists newest first with order, since, until and cursors, catalog
 * models disabled and deleted, channel checks, and records the config file manages.
 */

import { createHash } from "node:crypto";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import {
  serverTest,
  startTestGateway,
  TEST_TEXT_PRICE,
  type TestGateway,
} from "../helpers/gateway.ts";
import {
  type FieldSamples,
  fieldSamples,
  nullableFields,
  type SampleOverride,
} from "../helpers/schema_samples.ts";
import { setupVideo } from "../helpers/video_setup.ts";
import { startOpenAIChatUpstream } from "../upstream/openai_chat.ts";
import { keyInputSchema, keyPatchSchema } from "../../core/keys/key_schema.ts";
import {
  channelInputSchema,
  channelPatchSchema,
  type ChannelType,
} from "../../core/channels/channel_schema.ts";
import { PROVIDERS } from "../../core/providers/provider_table.ts";
import type { Provider } from "../../core/providers/provider.ts";
import { modelInputSchema, modelPatchSchema } from "../../core/channels/catalog.ts";

// deno-lint-ignore no-explicit-any
type Json = any;
type AdminAnswer = { status: number; body: Json };

/** Checks an admin error: status, and the OpenAI-style envelope with `code` (and `param`). */
function assertAdminError(
  answer: AdminAnswer,
  status: number,
  code: string,
  param?: string,
): string {
  assertEquals(answer.status, status, JSON.stringify(answer.body));
  const error = answer.body?.error;
  assertOk(error, `no error envelope in ${JSON.stringify(answer.body)}`);
  assertEquals(typeof error.message, "string");
  assertOk(error.message.length > 0, "empty error message");
  assertEquals(typeof error.type, "string");
  assertEquals(error.code, code, JSON.stringify(answer.body));
  if (param !== undefined) assertEquals(error.param, param, JSON.stringify(answer.body));
  return error.message;
}

/** Sends a client request with `key` and reads its JSON answer. */
async function client(
  gw: TestGateway,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<AdminAnswer & { requestId: string | null }> {
  const response = await fetch(`${gw.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? JSON.parse(text) : null,
    requestId: response.headers.get("x-request-id"),
  };
}

function chat(gw: TestGateway, key: string, model: string) {
  return client(gw, key, "POST", "/v1/chat/completions", {
    model,
    messages: [{ role: "user", content: "hello" }],
  });
}

async function modelIds(gw: TestGateway, key: string): Promise<string[]> {
  const answer = await client(gw, key, "GET", "/v1/models");
  assertEquals(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.data.map((model: { id: string }) => model.id);
}

function omit(record: Record<string, unknown>, ...names: string[]) {
  return Object.fromEntries(Object.entries(record).filter(([name]) => !names.includes(name)));
}

/** Reads every page of an admin list with `limit` per page; fails on a repeated or overfull page. */
async function readAllPages(gw: TestGateway, path: string, limit: number): Promise<Json[]> {
  const all: Json[] = [];
  let cursor = "";
  for (let page = 0; page < 100; page++) {
    const separator = path.includes("?") ? "&" : "?";
    const answer = await gw.admin("GET", `${path}${separator}limit=${limit}&cursor=${cursor}`);
    assertEquals(answer.status, 200, JSON.stringify(answer.body));
    assertOk(answer.body.data.length <= limit, `page longer than ${limit}`);
    all.push(...answer.body.data);
    cursor = answer.body.cursor ?? "";
    if (!cursor) return all;
  }
  throw new Error(`${path}: still paging after 100 pages`);
}

/** Ids of every record of an admin list, read whole and read in pages of 2: both must agree. */
async function listedIds(gw: TestGateway, path: string, field = "id"): Promise<string[]> {
  const whole = await gw.admin("GET", path);
  assertEquals(whole.status, 200, JSON.stringify(whole.body));
  const ids = whole.body.data.map((record: Json) => record[field]);
  const paged = (await readAllPages(gw, path, 2)).map((record) => record[field]);
  assertEquals(paged, ids, `${path} in pages of 2`);
  assertEquals(new Set(paged).size, paged.length, `${path}: a record listed twice`);
  return ids;
}

/** Checks that `path` lists `ids` (given oldest first) newest first, and oldest first on asc. */
async function assertListOrder(gw: TestGateway, path: string, ids: string[], field = "id") {
  const separator = path.includes("?") ? "&" : "?";
  const newestFirst = [...ids].reverse();
  const cases: Array<[string, string[]]> = [
    [path, newestFirst],
    [`${path}${separator}order=desc`, newestFirst],
    [`${path}${separator}order=asc`, ids],
  ];
  for (const [listPath, expected] of cases) {
    const actual = await listedIds(gw, listPath, field);
    assertEquals(
      actual,
      expected,
      `${listPath}: listed ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`,
    );
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An ISO time strictly between records written before and after the call. */
async function timeBetween(): Promise<string> {
  await sleep(5);
  const at = new Date().toISOString();
  await sleep(5);
  return at;
}

// --- PATCH changes exactly the fields sent, generated from the schemas ---

/** A kind of admin record whose PATCH is checked field by field. */
interface PatchedResource {
  name: string;
  samples: Record<string, FieldSamples>;
  /** Creates a record from `body`; returns its admin path. */
  create(gw: TestGateway, body: Record<string, unknown>, field: string): Promise<string>;
  /** How GET shows a field that it does not show as itself (channel keys as a count and hints). */
  shown?: Record<string, (value: unknown) => Array<[string, unknown]>>;
  /** Views GET derives from a field, left out of the comparison (a channel's breakers, per key). */
  derived?: string[];
}

function shownAs(
  resource: PatchedResource,
  field: string,
  value: unknown,
): Array<[string, unknown]> {
  return resource.shown?.[field]?.(value) ?? [[field, value]];
}

/**
 * For each field F of the resource's PATCH schema: creates a record with every field at a
 * non-default sample, PATCHes F alone to another sample, and checks with GET that F changed and
 * every other field, schema field or not, kept its value.
 */
async function checkEachFieldPatchesAlone(gw: TestGateway, resource: PatchedResource) {
  const fields = Object.keys(resource.samples);
  assertOk(fields.length > 0, `${resource.name}: no fields`);
  const createBody = Object.fromEntries(
    fields.map((field) => [field, resource.samples[field].create]),
  );
  for (const field of fields) {
    const samples = resource.samples[field];
    const path = await resource.create(gw, createBody, field);
    const before = (await gw.admin("GET", path)).body;
    for (const other of fields) {
      for (const [name, value] of shownAs(resource, other, resource.samples[other].createParsed)) {
        assertOk(name in before, `${resource.name}: GET does not show field '${name}'`);
        assertEquals(before[name], value, `${resource.name}: created with ${other}`);
      }
    }

    const patch = { [field]: samples.patch, ...samples.alsoPatch };
    const patched = await gw.admin("PATCH", path, patch);
    assertEquals(
      patched.status,
      200,
      `PATCH ${JSON.stringify(patch)}: ${JSON.stringify(patched.body)}`,
    );
    const after = (await gw.admin("GET", path)).body;
    assertEquals(patched.body, after, `${resource.name}: PATCH answer and GET differ`);

    const expected = { ...before };
    for (
      const [name, value] of Object.entries({
        [field]: samples.patchParsed,
        ...samples.alsoPatchParsed,
      })
    ) {
      const shown = shownAs(resource, name, value);
      assertOk(
        shown.some(([shownName, shownValue]) =>
          JSON.stringify(before[shownName]) !== JSON.stringify(shownValue)
        ),
        `${resource.name}.${name}: the PATCH sample equals the created value`,
      );
      for (const [shownName, shownValue] of shown) expected[shownName] = shownValue;
    }
    const derived = resource.derived ?? [];
    assertEquals(
      omit(after, "updated_at", ...derived),
      omit(expected, "updated_at", ...derived),
      `${resource.name}: PATCH ${JSON.stringify(patch)} changed other fields`,
    );
  }
}

/** Key fields the generator's samples cannot fill: addresses. */
const KEY_SAMPLES: Record<string, SampleOverride> = {
  ip_allowlist: { create: ["203.0.113.0/24"], patch: ["2001:db8::/32", "10.1.2.3"] },
};

Deno.test(
  "admin PATCH: each key field changes alone, the others keep their values (from keyPatchSchema)",
  serverTest,
  async () => {
    const gw = await startTestGateway();
    try {
      await checkEachFieldPatchesAlone(gw, {
        name: "key",
        samples: fieldSamples(keyPatchSchema, keyInputSchema, KEY_SAMPLES),
        async create(gw, body) {
          return `/admin/keys/${(await gw.createKey({ ...body, balance: 7 })).id}`;
        },
      });
    } finally {
      await gw.close();
    }
  },
);

/** Catalog models a generated channel serves. */
const CHANNEL_MODELS = ["patch-a", "patch-b", "patch-c"];

/** How a channel view shows an upstream key: the first 8 hex of its SHA-256 and its last 4. */
function keyHintOf(key: string) {
  return {
    fingerprint: createHash("sha256").update(key).digest("hex").slice(0, 8),
    last4: key.slice(-4),
  };
}

Deno.test(
  "admin PATCH: each channel field changes alone, the others keep their values (from channelPatchSchema)",
  serverTest,
  async () => {
    const gw = await startTestGateway();
    try {
      for (const id of CHANNEL_MODELS) {
        await gw.putModel(id, { kind: "text", price: TEST_TEXT_PRICE });
      }
      const overrides: Record<string, SampleOverride> = {
        // A channel's models must be catalog models.
        models: { create: ["patch-a"], patch: ["patch-b", "patch-c"] },
        // A rate in (0, 1], which the generator's whole numbers cannot sample.
        breaker: {
          create: { min_failures: 4, failure_rate: 0.5, window: 20, cooldowns_ms: [1000] },
          patch: { min_failures: 6, failure_rate: 0.75, window: 30, cooldowns_ms: [2000, 4000] },
        },
        // Azure's api-version, by its pattern; its auth needs no Entra fields until `entra`.
        api_version: { create: "2024-10-21", patch: "2025-04-01-preview" },
        azure_auth: { create: "bearer", patch: "api-key" },
        entra_tenant_id: { create: "tenant-a", patch: "tenant-b" },
        // Bedrock's region, by its pattern.
        region: { create: "us-east-1", patch: "eu-west-1" },
        // API keys take any key's form (the sample's); AWS access keys would not.
        bedrock_auth: { create: "api-key", patch: "sigv4" },
        entra_client_id: { create: "client-a", patch: "client-b" },
        // Vertex channels' project and region, by their patterns.
        project: { create: "project-a", patch: "project-b" },
        location: { create: "us-central1", patch: "europe-west4" },
      };
      const all = fieldSamples(channelPatchSchema, channelInputSchema, overrides);
      // A type's own settings (Azure's, `send_stream_options`) are refused on other types: they
      // are patched on a channel of their type, the type-neutral fields on one of every kind.
      const ownSettings = new Set(Object.values(PROVIDERS).flatMap((p) => p.settings ?? []));
      const pick = (keep: (field: string) => boolean) =>
        Object.fromEntries(Object.entries(all).filter(([field]) => keep(field)));
      const neutral = pick((field) => !ownSettings.has(field));
      const channelResource = (
        samples: Record<string, FieldSamples>,
        type?: ChannelType,
      ): PatchedResource => ({
        name: type ? `channel (${type})` : "channel",
        samples,
        async create(gw, body) {
          const created = await gw.admin(
            "POST",
            "/admin/channels",
            type ? { ...body, type } : body,
          );
          assertEquals(created.status, 201, JSON.stringify(created.body));
          return `/admin/channels/${created.body.id}`;
        },
        // Upstream keys are never shown, only counted and hinted.
        shown: {
          keys: (value) => [
            ["key_count", (value as string[]).length],
            ["keys", (value as string[]).map(keyHintOf)],
          ],
        },
        // The breakers view lists each key's breaker, so it follows `keys`.
        derived: ["breakers"],
      });
      await checkEachFieldPatchesAlone(gw, channelResource(neutral));
      for (const [type, provider] of Object.entries(PROVIDERS) as [ChannelType, Provider][]) {
        const own = provider.settings ?? [];
        if (own.length === 0) continue;
        const samples = pick((field) =>
          (field !== "type" && !ownSettings.has(field)) || own.includes(field)
        );
        await checkEachFieldPatchesAlone(gw, channelResource(samples, type));
      }
    } finally {
      await gw.close();
    }
  },
);

Deno.test(
  "admin PATCH: each catalog model field changes alone, the others keep their values (from modelPatchSchema)",
  serverTest,
  async () => {
    const gw = await startTestGateway();
    try {
      const overrides: Record<string, SampleOverride> = {
        // A price's shape depends on the kind: a new kind needs a price of that kind.
        kind: { create: "text", patch: "video", alsoPatch: { price: { per_second: 9 } } },
        price: {
          create: { input: 11, output: 12, cached_input: 6 },
          patch: { input: 21, output: 22, cached_input: 7 },
        },
      };
      await checkEachFieldPatchesAlone(gw, {
        name: "model",
        samples: fieldSamples(modelPatchSchema, modelInputSchema, overrides),
        async create(gw, body, field) {
          await gw.putModel(`patched-${field}`, body);
          return `/admin/models/patched-${field}`;
        },
      });
    } finally {
      await gw.close();
    }
  },
);

Deno.test(
  "admin PATCH: a channel patched with only new keys keeps the priority an earlier PATCH set",
  serverTest,
  async () => {
    const upstream = startOpenAIChatUpstream({ keys: ["sk-old", "sk-rotated"] });
    const gw = await startTestGateway();
    try {
      await gw.putModel("m", { kind: "text", price: TEST_TEXT_PRICE });
      const channel = await gw.addChannel({
        base_url: upstream.baseUrl,
        keys: ["sk-old"],
        models: ["m"],
      });
      const path = `/admin/channels/${channel.id}`;
      assertEquals((await gw.admin("PATCH", path, { priority: 5 })).body.priority, 5);
      const before = (await gw.admin("GET", path)).body;
      const rotated = await gw.admin("PATCH", path, { keys: ["sk-rotated"] });
      assertEquals(rotated.status, 200, JSON.stringify(rotated.body));
      const after = (await gw.admin("GET", path)).body;
      assertEquals(after.priority, 5);
      assertEquals(after.keys, [keyHintOf("sk-rotated")]);
      // The breakers are per key, so they follow the keys.
      assertEquals(
        omit(after, "updated_at", "keys", "breakers"),
        omit(before, "updated_at", "keys", "breakers"),
      );

      const { key } = await gw.createKey({ balance: 10_000_000 });
      const answer = await chat(gw, key, "m");
      assertEquals(answer.status, 200, JSON.stringify(answer.body));
      assertEquals(upstream.requests.at(-1)?.authorization, "Bearer sk-rotated");
    } finally {
      await gw.close();
      await upstream.close();
    }
  },
);

Deno.test(
  "admin PATCH: renaming a disabled unlimited key keeps owner, expiry and how it authenticates",
  serverTest,
  async () => {
    const gw = await startTestGateway();
    try {
      const expiry = new Date(Date.now() + 30 * 86_400_000).toISOString();
      const { id, key } = await gw.createKey({
        name: "before",
        enabled: false,
        unlimited: true,
        owner: "team-x",
        expires_at: expiry,
      });
      assertAdminError(await client(gw, key, "GET", "/v1/models"), 401, "key_disabled");
      const before = (await gw.admin("GET", `/admin/keys/${id}`)).body;

      const renamed = await gw.admin("PATCH", `/admin/keys/${id}`, { name: "after" });
      assertEquals(renamed.status, 200, JSON.stringify(renamed.body));
      const after = (await gw.admin("GET", `/admin/keys/${id}`)).body;
      assertEquals(after.name, "after");
      assertEquals(after.enabled, false);
      assertEquals(after.unlimited, true);
      assertEquals(after.owner, "team-x");
      assertEquals(after.expires_at, expiry);
      assertEquals(omit(after, "updated_at", "name"), omit(before, "updated_at", "name"));
      assertAdminError(await client(gw, key, "GET", "/v1/models"), 401, "key_disabled");

      assertEquals((await gw.admin("PATCH", `/admin/keys/${id}`, { enabled: true })).status, 200);
      assertEquals((await client(gw, key, "GET", "/v1/models")).status, 200);
      const enabled = (await gw.admin("GET", `/admin/keys/${id}`)).body;
      assertEquals([enabled.unlimited, enabled.owner, enabled.expires_at], [
        true,
        "team-x",
        expiry,
      ]);
    } finally {
      await gw.close();
    }
  },
);

Deno.test(
  "admin PATCH: null clears a nullable key field, an absent field is untouched",
  serverTest,
  async () => {
    const gw = await startTestGateway();
    try {
      const nullable = nullableFields(keyPatchSchema);
      for (const field of ["expires_at", "rpm", "models", "owner"]) {
        assertOk(nullable.includes(field), `${field} is not nullable in keyPatchSchema`);
      }
      const samples = fieldSamples(keyPatchSchema, keyInputSchema, KEY_SAMPLES);
      const body = Object.fromEntries(
        Object.entries(samples).map(([field, sample]) => [field, sample.create]),
      );
      const { id } = await gw.createKey(body);
      const path = `/admin/keys/${id}`;

      const untouched = (await gw.admin("GET", path)).body;
      const empty = await gw.admin("PATCH", path, {});
      assertEquals(empty.status, 200);
      assertEquals(
        omit((await gw.admin("GET", path)).body, "updated_at"),
        omit(untouched, "updated_at"),
      );

      for (const field of nullable) {
        const before = (await gw.admin("GET", path)).body;
        assertOk(before[field] !== null, `${field} is already null`);
        const cleared = await gw.admin("PATCH", path, { [field]: null });
        assertEquals(cleared.status, 200, JSON.stringify(cleared.body));
        const after = (await gw.admin("GET", path)).body;
        assertEquals(after[field], null, `${field} not cleared`);
        assertEquals(
          omit(after, "updated_at"),
          { ...omit(before, "updated_at"), [field]: null },
          `clearing ${field} changed other fields`,
        );
      }

      const notNullable = Object.keys(keyPatchSchema.shape).filter((f) => !nullable.includes(f));
      for (const field of notNullable) {
        const refused = await gw.admin("PATCH", path, { [field]: null });
        assertAdminError(refused, 400, "invalid_request", field);
      }
    } finally {
      await gw.close();
    }
  },
);

// --- lists: newest first, order, since/until, cursors ---

Deno.test(
  "admin lists: keys and channels newest first; order=asc; every record once across pages",
  serverTest,
  async () => {
    const gw = await startTestGateway();
    try {
      await gw.putModel("m", { kind: "text", price: TEST_TEXT_PRICE });
      const keys = [];
      const channels = [];
      for (let i = 0; i < 5; i++) {
        keys.push((await gw.createKey({ name: `key-${i}` })).id);
        channels.push(
          (await gw.addChannel({
            name: `ch-${i}`,
            base_url: "http://127.0.0.1:9/v1",
            models: ["m"],
          }))
            .id,
        );
      }
      await assertListOrder(gw, "/admin/keys", keys);
      await assertListOrder(gw, "/admin/channels", channels);
    } finally {
      await gw.close();
    }
  },
);

Deno.test(
  "admin lists: ledger newest first with and without ?key=, since/until limit the range",
  serverTest,
  async () => {
    const gw = await startTestGateway();
    try {
      const a = (await gw.createKey({ name: "a" })).id;
      const b = (await gw.createKey({ name: "b" })).id;
      const credit = async (key: string, amount: number) => {
        const answer = await gw.admin("POST", `/admin/keys/${key}/credit`, { amount });
        assertEquals(answer.status, 201, JSON.stringify(answer.body));
        return { id: answer.body.id as string, key };
      };
      const start = await timeBetween();
      const early = [await credit(a, 1), await credit(b, 2), await credit(a, 3)];
      const middle = await timeBetween();
      const late = [await credit(b, 4), await credit(a, 5), await credit(b, 6)];
      const end = await timeBetween();
      const all = [...early, ...late];
      const ids = (entries: typeof all, key?: string) =>
        entries.filter((entry) => !key || entry.key === key).map((entry) => entry.id);

      await assertListOrder(gw, "/admin/ledger", ids(all));
      await assertListOrder(gw, `/admin/ledger?key=${a}`, ids(all, a));
      await assertListOrder(gw, `/admin/ledger?key=${b}`, ids(all, b));

      await assertListOrder(gw, `/admin/ledger?since=${middle}`, ids(late));
      await assertListOrder(gw, `/admin/ledger?until=${middle}`, ids(early));
      await assertListOrder(gw, `/admin/ledger?since=${start}&until=${middle}`, ids(early));
      await assertListOrder(gw, `/admin/ledger?since=${middle}&until=${end}`, ids(late));
      await assertListOrder(gw, `/admin/ledger?key=${a}&since=${middle}`, ids(late, a));
      await assertListOrder(gw, `/admin/ledger?key=${b}&until=${middle}`, ids(early, b));
      assertEquals(await listedIds(gw, `/admin/ledger?since=${end}`), []);
      assertEquals(await listedIds(gw, `/admin/ledger?until=${start}`), []);
    } finally {
      await gw.close();
    }
  },
);

Deno.test(
  "admin lists: requests newest first, since/until limit the range, every record once across pages",
  serverTest,
  async () => {
    const gw = await startTestGateway();
    try {
      const a = await gw.createKey({ name: "a" });
      const b = await gw.createKey({ name: "b" });
      const request = async (key: { id: string; key: string }) => {
        const answer = await client(gw, key.key, "GET", "/v1/models");
        assertEquals(answer.status, 200);
        assertOk(answer.requestId, "no x-request-id");
        return { id: answer.requestId, key: key.id };
      };
      const start = await timeBetween();
      const early = [await request(a), await request(b), await request(a)];
      const middle = await timeBetween();
      const late = [await request(b), await request(a), await request(b)];
      const end = await timeBetween();
      await gw.settle();
      const all = [...early, ...late];
      const ids = (entries: typeof all, key?: string) =>
        entries.filter((entry) => !key || entry.key === key).map((entry) => entry.id);

      await assertListOrder(gw, "/admin/requests", ids(all));
      await assertListOrder(gw, `/admin/requests?key=${a.id}`, ids(all, a.id));
      await assertListOrder(gw, `/admin/requests?since=${middle}`, ids(late));
      await assertListOrder(gw, `/admin/requests?until=${middle}`, ids(early));
      await assertListOrder(gw, `/admin/requests?since=${start}&until=${middle}`, ids(early));
      await assertListOrder(gw, `/admin/requests?since=${middle}&until=${end}`, ids(late));
      assertEquals(await listedIds(gw, `/admin/requests?since=${end}`), []);
    } finally {
      await gw.close();
    }
  },
);

Deno.test(
  "admin lists: tasks newest first; order=asc; every task once across pages",
  serverTest,
  async () => {
    const s = await setupVideo();
    try {
      const tasks = [];
      for (let i = 0; i < 5; i++) {
        const response = await s.submit({ model: "vid-2", prompt: `task ${i}` });
        const body = await response.json();
        assertEquals(response.status, 200, JSON.stringify(body));
        tasks.push(body.id as string);
      }
      await assertListOrder(s.gw, "/admin/tasks", tasks);
      for (const id of tasks) await s.waitForTask(id);
    } finally {
      await s.close();
    }
  },
);

Deno.test(
  "admin lists: a bad order, since, until or limit is a 400 naming the parameter",
  serverTest,
  async () => {
    const gw = await startTestGateway();
    try {
      for (const list of ["/admin/keys", "/admin/channels", "/admin/ledger", "/admin/requests"]) {
        assertAdminError(
          await gw.admin("GET", `${list}?order=newest`),
          400,
          "invalid_request",
          "order",
        );
        assertAdminError(await gw.admin("GET", `${list}?limit=0`), 400, "invalid_request", "limit");
      }
      assertAdminError(
        await gw.admin("GET", "/admin/tasks?order=up"),
        400,
        "invalid_request",
        "order",
      );
      for (const list of ["/admin/ledger", "/admin/requests"]) {
        for (const bad of ["yesterday", "1700000000", "2026-13-45T99:00:00Z"]) {
          const message = assertAdminError(
            await gw.admin("GET", `${list}?since=${bad}`),
            400,
            "invalid_request",
            "since",
          );
          assertOk(message.includes(bad), message);
          assertAdminError(
            await gw.admin("GET", `${list}?until=${bad}`),
            400,
            "invalid_request",
            "until",
          );
        }
      }
    } finally {
      await gw.close();
    }
  },
);

// --- catalog models ---

Deno.test(
  "admin models: a disabled model leaves /v1/models and answers 404 model_not_found; its channel is untouched",
  serverTest,
  async () => {
    const upstream = startOpenAIChatUpstream();
    const gw = await startTestGateway();
    try {
      await gw.putModel("switchable", { kind: "text", price: TEST_TEXT_PRICE });
      const channel = await gw.addChannel({ base_url: upstream.baseUrl, models: ["switchable"] });
      const channelPath = `/admin/channels/${channel.id}`;
      const channelBefore = (await gw.admin("GET", channelPath)).body;
      const { key } = await gw.createKey({ balance: 10_000_000 });
      assertEquals(await modelIds(gw, key), ["switchable"]);
      assertEquals((await chat(gw, key, "switchable")).status, 200);

      const disabled = await gw.admin("PATCH", "/admin/models/switchable", { enabled: false });
      assertEquals(disabled.status, 200, JSON.stringify(disabled.body));
      assertEquals(disabled.body.enabled, false);
      assertEquals(await modelIds(gw, key), []);
      assertAdminError(
        await client(gw, key, "GET", "/v1/models/switchable"),
        404,
        "model_not_found",
      );
      const requests = upstream.requests.length;
      const refused = await chat(gw, key, "switchable");
      const unknown = await chat(gw, key, "no-such-model");
      assertAdminError(refused, 404, "model_not_found", "model");
      assertAdminError(unknown, 404, "model_not_found", "model");
      assertEquals(refused.body.error.type, unknown.body.error.type);
      assertEquals(
        refused.body.error.message.replace("switchable", "X"),
        unknown.body.error.message.replace("no-such-model", "X"),
      );
      assertEquals(upstream.requests.length, requests, "a disabled model reached the upstream");
      // Its health counts the requests; the channel itself is as it was.
      assertEquals(
        omit((await gw.admin("GET", channelPath)).body, "health"),
        omit(channelBefore, "health"),
      );
      const listed = (await gw.admin("GET", "/admin/models")).body.data;
      assertEquals(listed.find((m: Json) => m.id === "switchable")?.enabled, false);

      const enabled = await gw.admin("PATCH", "/admin/models/switchable", { enabled: true });
      assertEquals(enabled.status, 200, JSON.stringify(enabled.body));
      assertEquals(await modelIds(gw, key), ["switchable"]);
      assertEquals((await chat(gw, key, "switchable")).status, 200);
      // Its health counts the requests; the channel itself is as it was.
      assertEquals(
        omit((await gw.admin("GET", channelPath)).body, "health"),
        omit(channelBefore, "health"),
      );
    } finally {
      await gw.close();
      await upstream.close();
    }
  },
);

Deno.test(
  "admin models: DELETE removes a model, refuses one a channel serves, and a built-in stays deleted",
  serverTest,
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "gateway-test-delete-" });
    const env = { GATEWAY_KV: `${dir}/gateway.kv` };
    let gw = await startTestGateway(env);
    try {
      await gw.putModel("solo", { kind: "text", price: TEST_TEXT_PRICE });
      assertEquals((await gw.admin("DELETE", "/admin/models/solo")).status, 204);
      assertAdminError(await gw.admin("GET", "/admin/models/solo"), 404, "model_not_found");
      assertAdminError(await gw.admin("DELETE", "/admin/models/solo"), 404, "model_not_found");

      await gw.putModel("served", { kind: "text", price: TEST_TEXT_PRICE });
      const channel = await gw.addChannel({
        base_url: "http://127.0.0.1:9/v1",
        models: ["served"],
      });
      const message = assertAdminError(
        await gw.admin("DELETE", "/admin/models/served"),
        409,
        "model_in_use",
      );
      assertOk(message.includes(channel.id), message);
      assertEquals((await gw.admin("GET", "/admin/models/served")).status, 200);

      assertEquals((await gw.admin("GET", "/admin/models/gen-image-2-4k")).status, 200);
      assertEquals((await gw.admin("DELETE", "/admin/models/gen-image-2-4k")).status, 204);
      assertAdminError(
        await gw.admin("GET", "/admin/models/gen-image-2-4k"),
        404,
        "model_not_found",
      );
      const ids = (await gw.admin("GET", "/admin/models")).body.data.map((m: Json) => m.id);
      assertOk(!ids.includes("gen-image-2-4k"), "the deleted built-in is listed");
      assertOk(ids.includes("gen-image-2"), "another built-in went too");

      // After a restart on the same KV, the built-in is still gone.
      await gw.close();
      gw = await startTestGateway(env);
      assertAdminError(
        await gw.admin("GET", "/admin/models/gen-image-2-4k"),
        404,
        "model_not_found",
      );
      assertEquals((await gw.admin("GET", "/admin/models/served")).status, 200);
      assertEquals((await gw.admin("GET", "/admin/models/gen-image-2")).status, 200);
    } finally {
      await gw.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
);

Deno.test(
  "admin models: a PATCH that makes the merged model invalid is a 400 and changes nothing",
  serverTest,
  async () => {
    const gw = await startTestGateway();
    try {
      await gw.putModel("texty", { kind: "text", price: TEST_TEXT_PRICE, description: "keep" });
      const before = (await gw.admin("GET", "/admin/models/texty")).body;
      assertAdminError(
        await gw.admin("PATCH", "/admin/models/texty", { kind: "video" }),
        400,
        "invalid_request",
        "price",
      );
      assertAdminError(
        await gw.admin("PATCH", "/admin/models/texty", { price: { per_image: 5 } }),
        400,
        "invalid_request",
        "price",
      );
      assertAdminError(
        await gw.admin("PATCH", "/admin/models/texty", { colour: "red" }),
        400,
        "invalid_request",
      );
      assertAdminError(
        await gw.admin("PATCH", "/admin/models/nothing-here", { enabled: false }),
        404,
        "model_not_found",
      );
      assertEquals((await gw.admin("GET", "/admin/models/texty")).body, before);
    } finally {
      await gw.close();
    }
  },
);

// --- channel checks ---

Deno.test(
  "admin channels: a base_url that already ends with the path the gateway adds is a 400 showing the right form",
  serverTest,
  async () => {
    const gw = await startTestGateway();
    try {
      await gw.putModel("m", { kind: "text", price: TEST_TEXT_PRICE });
      const cases = [
        ["anthropic", "http://127.0.0.1:9/v1", "'https://api.anthropic.com'"],
        ["anthropic", "http://127.0.0.1:9/v1/messages", "'https://api.anthropic.com'"],
        ["gemini", "http://127.0.0.1:9/v1beta", "'https://generativelanguage.googleapis.com'"],
        ["openai", "http://127.0.0.1:9/v1/chat/completions", "'https://api.openai.com/v1'"],
      ];
      for (const [type, baseUrl, form] of cases) {
        const refused = await gw.admin("POST", "/admin/channels", {
          name: "bad",
          type,
          base_url: baseUrl,
          keys: ["k"],
          models: ["m"],
        });
        const message = assertAdminError(refused, 400, "invalid_base_url", "base_url");
        assertOk(message.includes(form), `${type} ${baseUrl}: ${message}`);
        assertOk(message.includes(baseUrl), message);
      }
      assertEquals((await gw.admin("GET", "/admin/channels")).body.data, []);

      const anthropic = await gw.addChannel({
        type: "anthropic",
        base_url: "http://127.0.0.1:9",
        models: ["m"],
      });
      const openai = await gw.addChannel({ base_url: "http://127.0.0.1:9/v1", models: ["m"] });
      const before = (await gw.admin("GET", "/admin/channels")).body.data;
      const patches: Array<[string, Record<string, unknown>]> = [
        [anthropic.id, { base_url: "http://127.0.0.1:9/v1", priority: 3 }],
        [openai.id, { base_url: "http://127.0.0.1:9/v1/chat/completions" }],
        // The merged channel is checked: an openai base URL does not fit an anthropic channel.
        [openai.id, { type: "anthropic" }],
      ];
      for (const [id, patch] of patches) {
        assertAdminError(
          await gw.admin("PATCH", `/admin/channels/${id}`, patch),
          400,
          "invalid_base_url",
          "base_url",
        );
      }
      assertEquals((await gw.admin("GET", "/admin/channels")).body.data, before);
    } finally {
      await gw.close();
    }
  },
);

Deno.test(
  "admin channels: a model not in the catalog is a 400 listing the catalog; create_models creates it disabled at price 0",
  serverTest,
  async () => {
    const gw = await startTestGateway();
    try {
      await gw.putModel("known", { kind: "text", price: TEST_TEXT_PRICE });
      const input = {
        name: "new",
        type: "openai",
        base_url: "http://127.0.0.1:9/v1",
        keys: ["k"],
        models: ["known", "x-new"],
      };
      const message = assertAdminError(
        await gw.admin("POST", "/admin/channels", input),
        400,
        "model_not_in_catalog",
        "models",
      );
      for (const text of ["'x-new'", "known", "gen-image-2", "vid-2-cheap"]) {
        assertOk(message.includes(text), `${text} not in: ${message}`);
      }
      assertEquals((await gw.admin("GET", "/admin/channels")).body.data, []);
      assertAdminError(await gw.admin("GET", "/admin/models/x-new"), 404, "model_not_found");

      const created = await gw.admin("POST", "/admin/channels", { ...input, create_models: true });
      assertEquals(created.status, 201, JSON.stringify(created.body));
      assertEquals(created.body.created_models, ["x-new"]);
      const model = await gw.admin("GET", "/admin/models/x-new");
      assertEquals(model.status, 200);
      assertEquals(model.body.enabled, false);
      assertEquals(model.body.kind, "text");
      assertEquals(model.body.price, { input: 0, output: 0 });
      const { key } = await gw.createKey();
      assertEquals(await modelIds(gw, key), ["known"]);

      // The same on PATCH: adding a model the catalog lacks.
      const path = `/admin/channels/${created.body.id}`;
      const before = (await gw.admin("GET", path)).body;
      assertAdminError(
        await gw.admin("PATCH", path, { models: ["known", "x-newer"] }),
        400,
        "model_not_in_catalog",
        "models",
      );
      assertEquals((await gw.admin("GET", path)).body, before);
      const patched = await gw.admin("PATCH", path, {
        models: ["known", "x-newer"],
        create_models: true,
      });
      assertEquals(patched.status, 200, JSON.stringify(patched.body));
      assertEquals(patched.body.created_models, ["x-newer"]);
      assertEquals((await gw.admin("GET", "/admin/models/x-newer")).body.enabled, false);
    } finally {
      await gw.close();
    }
  },
);

// --- records the config file manages ---

Deno.test(
  "admin config: a channel and model from GATEWAY_CONFIG refuse PATCH, PUT and DELETE with 409 managed_by_config",
  serverTest,
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "gateway-config-" });
    const configPath = `${dir}/gateway.json`;
    await Deno.writeTextFile(
      configPath,
      JSON.stringify({
        models: { "cfg-model": { kind: "text", price: { input: 1, output: 2 } } },
        channels: [{
          id: "cfg-channel",
          name: "From the config file",
          type: "openai",
          base_url: "http://127.0.0.1:9/v1",
          keys: ["sk-config"],
          models: ["cfg-model"],
        }],
      }),
    );
    const gw = await startTestGateway({ GATEWAY_CONFIG: configPath });
    try {
      const channelPath = "/admin/channels/cfg-channel";
      const modelPath = "/admin/models/cfg-model";
      const channel = await gw.admin("GET", channelPath);
      const model = await gw.admin("GET", modelPath);
      assertEquals([channel.status, channel.body.source], [200, "config"]);
      assertEquals([model.status, model.body.source], [200, "config"]);

      const attempts: Array<[string, string, unknown?]> = [
        ["PATCH", channelPath, { priority: 9 }],
        ["DELETE", channelPath],
        ["PUT", modelPath, { kind: "text", price: { input: 5, output: 5 } }],
        ["PATCH", modelPath, { enabled: false }],
        ["DELETE", modelPath],
      ];
      for (const [method, path, body] of attempts) {
        const message = assertAdminError(
          await gw.admin(method, path, body),
          409,
          "managed_by_config",
        );
        assertOk(message.includes(configPath), `${method} ${path}: ${message}`);
      }
      assertEquals((await gw.admin("GET", channelPath)).body, channel.body);
      assertEquals((await gw.admin("GET", modelPath)).body, model.body);

      // Records made through the admin API stay changeable beside them.
      const own = await gw.addChannel({ base_url: "http://127.0.0.1:9/v1", models: ["cfg-model"] });
      assertEquals(
        (await gw.admin("PATCH", `/admin/channels/${own.id}`, { priority: 9 })).status,
        200,
      );
    } finally {
      await gw.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
);
