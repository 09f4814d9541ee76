/**
 * A key's IP allowlist on the real server: a key that allows the test's address works on every
 * interface; one that does not is refused 403 `ip_not_allowed` on every interface family, in
 * that family's envelope and through the official SDKs, before anything is held or charged.
 * IPv6 peers, IPv4 peers of a dual-stack socket, and x-forwarded-for from untrusted and trusted
 * peers. Bad ranges are a 400 in the admin envelope.
 */

import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { ApiError, GoogleGenAI } from "@google/genai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { assertNothingCharged } from "../helpers/assert_money.ts";
import { assertAdminError } from "../helpers/admin_error.ts";
import { postJson, serverTest, startTestGateway, type TestGateway } from "../helpers/gateway.ts";
import { MODEL_OF, setupText } from "../helpers/text_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const OPENING = 5_000_000;

function openai(url: string, key: string) {
  return new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 });
}

function anthropic(url: string, key: string) {
  return new Anthropic({ apiKey: key, baseURL: url, maxRetries: 0 });
}

function gemini(url: string, key: string) {
  return new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: url } });
}

/** What an SDK call threw (it must throw). */
async function thrown(call: Promise<unknown>): Promise<Json> {
  const error = await call.then(() => null, (e) => e);
  assertOk(error, "the call succeeded; a 403 was expected");
  return error;
}

function assertNamesAddress(message: string, address: string) {
  assertOk(message.includes(address), `the message names ${address}: ${message}`);
  assertOk(message.includes("allowlist"), message);
}

/** An OpenAI-envelope 403 through the openai SDK. */
function assertOpenAIRefusal(error: Json, address = "127.0.0.1") {
  assertOk(error instanceof OpenAI.APIError, String(error));
  assertEquals(error.status, 403);
  assertEquals(error.code, "ip_not_allowed");
  assertEquals(error.type, "permission_error");
  assertOk(error.requestID, "the SDK read the request id");
  assertEquals((error.error as Json).request_id, error.requestID);
  assertNamesAddress(error.message, address);
}

/** A raw OpenAI-envelope 403. */
async function assertRawOpenAIRefusal(response: Response, label: string) {
  const body = await response.json();
  assertEquals(response.status, 403, `${label}: ${JSON.stringify(body)}`);
  assertEquals(body.error.code, "ip_not_allowed", label);
  assertEquals(body.error.request_id, response.headers.get("x-request-id"), label);
  assertNamesAddress(body.error.message, "127.0.0.1");
}

Deno.test(
  "IP allowlist: outside it, every interface family answers 403 ip_not_allowed in its own envelope; nothing charged",
  serverTest,
  async () => {
    await using s = await setupText();
    const url = s.gw.url;
    const allowed = await s.gw.createKey({ balance: OPENING, ip_allowlist: ["127.0.0.1/32"] });
    const refused = await s.gw.createKey({
      balance: OPENING,
      ip_allowlist: ["10.0.0.0/8", "2001:db8::/32"],
    });
    const say = [{ role: "user" as const, content: "hi" }];

    // The allowed key works on each family (the chat fast path, Anthropic, Gemini).
    const chat = await openai(url, allowed.key).chat.completions.create({
      model: MODEL_OF.openai,
      messages: say,
    });
    assertOk(chat.choices[0].message.content);
    const message = await anthropic(url, allowed.key).messages.create({
      model: MODEL_OF.anthropic,
      max_tokens: 20,
      messages: say,
    });
    assertEquals(message.type, "message");
    const generated = await gemini(url, allowed.key).models.generateContent({
      model: MODEL_OF.gemini,
      contents: "hi",
    });
    assertOk(generated.text);
    const upstreamCalls = () =>
      s.count("openai") + s.count("openai-responses") + s.count("anthropic") + s.count("gemini");
    const before = upstreamCalls();

    // OpenAI family, through the SDK: chat (fast path), a chat stream, responses, images, models.
    const client = openai(url, refused.key);
    assertOpenAIRefusal(
      await thrown(client.chat.completions.create({ model: MODEL_OF.openai, messages: say })),
    );
    assertOpenAIRefusal(
      await thrown(
        client.chat.completions.create({ model: MODEL_OF.openai, messages: say, stream: true }),
      ),
    );
    assertOpenAIRefusal(
      await thrown(client.responses.create({ model: MODEL_OF["openai-responses"], input: "hi" })),
    );
    assertOpenAIRefusal(await thrown(client.images.generate({ model: "img", prompt: "a cat" })));
    assertOpenAIRefusal(await thrown(client.models.list()));
    assertOpenAIRefusal(await thrown(client.models.retrieve(MODEL_OF.openai)));
    // …and raw: video, tasks, the key's own view.
    await assertRawOpenAIRefusal(
      await postJson(s.gw, "/v1/video/generations", refused.key, { model: "v", prompt: "p" }),
      "video",
    );
    for (const path of ["/v1/video/generations/task_x", "/v1/images/tasks/task_x", "/v1/me"]) {
      await assertRawOpenAIRefusal(
        await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${refused.key}` } }),
        path,
      );
    }

    // Anthropic family: permission_error, with the request id.
    const claude = anthropic(url, refused.key);
    for (
      const call of [
        () => claude.messages.create({ model: MODEL_OF.anthropic, max_tokens: 20, messages: say }),
        () => claude.messages.countTokens({ model: MODEL_OF.anthropic, messages: say }),
      ]
    ) {
      const error = await thrown(call());
      assertOk(error instanceof Anthropic.PermissionDeniedError, String(error));
      assertEquals(error.status, 403);
      const body = error.error as Json;
      assertEquals(body.type, "error");
      assertEquals(body.error.type, "permission_error");
      assertEquals(body.error.code, "ip_not_allowed");
      assertOk(error.requestID);
      assertEquals(body.request_id, error.requestID);
      assertNamesAddress(body.error.message, "127.0.0.1");
    }

    // Gemini family: PERMISSION_DENIED, reason IP_NOT_ALLOWED, the request id in the details.
    const google = gemini(url, refused.key);
    for (
      const call of [
        () => google.models.generateContent({ model: MODEL_OF.gemini, contents: "hi" }),
        () => google.models.generateContentStream({ model: MODEL_OF.gemini, contents: "hi" }),
        () => google.models.countTokens({ model: MODEL_OF.gemini, contents: "hi" }),
        () => google.models.list().then((pager) => pager.page),
      ]
    ) {
      const error = await thrown(call());
      assertOk(error instanceof ApiError, String(error));
      assertEquals(error.status, 403);
      const body = JSON.parse(error.message.slice(error.message.indexOf("{")));
      assertEquals(body.error.status, "PERMISSION_DENIED");
      assertEquals(body.error.details[0].reason, "IP_NOT_ALLOWED");
      assertOk(body.error.details[0].metadata.request_id);
      assertNamesAddress(body.error.message, "127.0.0.1");
    }

    // Nothing reached an upstream, nothing was held or charged, and the log recorded each.
    assertEquals(upstreamCalls(), before);
    await assertNothingCharged({ gw: s.gw, keyId: refused.id }, OPENING, { untouched: true });
    await s.gw.settle();
    const logged = (await s.gw.admin("GET", `/admin/requests?key=${refused.id}&limit=100`)).body
      .data as Json[];
    assertOk(logged.length >= 14, `${logged.length} records`);
    for (const record of logged) {
      assertEquals([record.status, record.error_code], [403, "ip_not_allowed"], record.route);
    }
    const metrics = await (await fetch(`${url}/metrics`)).text();
    assertOk(/gateway_requests_total\{[^}]*status="403"[^}]*\} \d+/.test(metrics), "403s counted");
  },
);

/** A gateway listening on `::` (IPv4 peers arrive as ::ffff:a.b.c.d) with a funded chat key. */
async function dualStack(env: Record<string, string> = {}) {
  const gw = await startTestGateway({ HOST: "::", ...env });
  const port = gw.running.port;
  return { gw, v4: `http://127.0.0.1:${port}`, v6: `http://[::1]:${port}` };
}

/** The status and error of GET /v1/me with `key` at `base`, with optional extra headers. */
async function me(base: string, key: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}/v1/me`, {
    headers: { authorization: `Bearer ${key}`, ...headers },
  });
  const body = await response.json();
  return { status: response.status, code: body.error?.code, message: body.error?.message ?? "" };
}

async function keyWith(gw: TestGateway, ip_allowlist: string[]) {
  return (await gw.createKey({ ip_allowlist })).key;
}

Deno.test(
  "IP allowlist: IPv6 peers match IPv6 ranges; IPv4 peers of a dual-stack socket match IPv4 ranges",
  serverTest,
  async () => {
    const { gw, v4, v6 } = await dualStack();
    await using _closed = gw;
    const loopback4 = await keyWith(gw, ["127.0.0.1"]);
    const loopback6 = await keyWith(gw, ["::1/128"]);
    const both = await keyWith(gw, ["127.0.0.0/8", "::1"]);
    const mappedForm = await keyWith(gw, ["::ffff:127.0.0.0/104"]);
    const anyV6 = await keyWith(gw, ["::/0"]);

    // Reached over IPv4, the peer is ::ffff:127.0.0.1, and IPv4 rules see 127.0.0.1.
    assertEquals((await me(v4, loopback4)).status, 200);
    assertEquals((await me(v4, both)).status, 200);
    assertEquals((await me(v4, mappedForm)).status, 200);
    const v4Refused = await me(v4, loopback6);
    assertEquals([v4Refused.status, v4Refused.code], [403, "ip_not_allowed"]);
    assertNamesAddress(v4Refused.message, "127.0.0.1");
    // An IPv6 range, however wide, does not take in IPv4 peers.
    assertEquals((await me(v4, anyV6)).status, 403);

    // Over IPv6, the peer is ::1.
    assertEquals((await me(v6, loopback6)).status, 200);
    assertEquals((await me(v6, both)).status, 200);
    assertEquals((await me(v6, anyV6)).status, 200);
    const v6Refused = await me(v6, loopback4);
    assertEquals([v6Refused.status, v6Refused.code], [403, "ip_not_allowed"]);
    assertNamesAddress(v6Refused.message, "::1");
  },
);

Deno.test(
  "IP allowlist: x-forwarded-for is ignored from an untrusted peer and believed from a trusted proxy",
  serverTest,
  async () => {
    // No trusted proxies: the header is never read.
    {
      await using gw = await startTestGateway();
      const key = await keyWith(gw, ["203.0.113.0/24"]);
      const spoofed = await me(gw.url, key, { "x-forwarded-for": "203.0.113.9" });
      assertEquals([spoofed.status, spoofed.code], [403, "ip_not_allowed"]);
      assertNamesAddress(spoofed.message, "127.0.0.1");
    }
    // GATEWAY_TRUSTED_PROXIES=127.0.0.1: IPv4 loopback is the proxy, IPv6 loopback is not.
    const { gw, v4, v6 } = await dualStack({ GATEWAY_TRUSTED_PROXIES: "127.0.0.1/32" });
    await using _closed = gw;
    const key = await keyWith(gw, ["203.0.113.0/24"]);
    // The proxy appended the client it saw; what the client wrote further left is not believed.
    assertEquals((await me(v4, key, { "x-forwarded-for": "203.0.113.9" })).status, 200);
    assertEquals(
      (await me(v4, key, { "x-forwarded-for": "203.0.113.9, 127.0.0.1" })).status,
      200,
    );
    const left = await me(v4, key, { "x-forwarded-for": "203.0.113.9, 198.51.100.4" });
    assertEquals(left.status, 403);
    assertNamesAddress(left.message, "198.51.100.4");
    // Through the proxy without a header: the proxy's own address, not in the list.
    const bare = await me(v4, key);
    assertEquals(bare.status, 403);
    assertNamesAddress(bare.message, "127.0.0.1");
    // An untrusted peer's header is ignored.
    const untrusted = await me(v6, key, { "x-forwarded-for": "203.0.113.9" });
    assertEquals([untrusted.status, untrusted.code], [403, "ip_not_allowed"]);
    assertNamesAddress(untrusted.message, "::1");
    // The chat fast path reads the address the same way.
    const chat = await postJson({ url: v6 }, "/v1/chat/completions", key, {
      model: "m",
      messages: [{ role: "user", content: "hi" }],
    }, { "x-forwarded-for": "203.0.113.9" });
    assertEquals(chat.status, 403);
    assertEquals((await chat.json()).error.code, "ip_not_allowed");
  },
);

Deno.test(
  "IP allowlist: the admin API validates, shows and clears it; bad ranges are a 400 naming the entry",
  serverTest,
  async () => {
    await using gw = await startTestGateway();
    const plain = await gw.createKey();
    assertEquals((await gw.admin("GET", `/admin/keys/${plain.id}`)).body.ip_allowlist, null);
    const created = await gw.admin("POST", "/admin/keys", {
      name: "office",
      ip_allowlist: ["203.0.113.0/24", "2001:db8::/32", "10.1.2.3"],
    });
    assertEquals(created.status, 201);
    assertEquals(created.body.ip_allowlist, ["203.0.113.0/24", "2001:db8::/32", "10.1.2.3"]);
    const id = created.body.id;

    const bad = [
      [["10.0.0.0/8", "10.0.0.300/8"], "ip_allowlist.1", "10.0.0.300/8"],
      [["10.1.2.3/8"], "ip_allowlist.0", "did you mean 10.0.0.0/8?"],
      [["example.com"], "ip_allowlist.0", "example.com"],
      [["2001:db8::/129"], "ip_allowlist.0", "2001:db8::/129"],
      [[], "ip_allowlist", "at least one"],
      [Array.from({ length: 101 }, (_, i) => `10.0.0.${i}`), "ip_allowlist", "at most 100"],
      ["10.0.0.0/8", "ip_allowlist", "ip_allowlist"],
    ] as const;
    for (const [ip_allowlist, param, named] of bad) {
      for (
        const answer of [
          await gw.admin("POST", "/admin/keys", { name: "bad", ip_allowlist }),
          await gw.admin("PATCH", `/admin/keys/${id}`, { ip_allowlist }),
        ]
      ) {
        const message = assertAdminError(answer, 400, "invalid_request");
        assertOk(message.includes(`'${param}'`), message);
        assertOk(message.includes(named), message);
      }
    }
    // Nothing was made or changed by the refusals.
    const keys = (await gw.admin("GET", "/admin/keys?limit=100")).body.data as Json[];
    assertEquals(keys.filter((key) => key.name === "bad").length, 0);
    assertEquals((await gw.admin("GET", `/admin/keys/${id}`)).body.ip_allowlist.length, 3);

    const patched = await gw.admin("PATCH", `/admin/keys/${id}`, { ip_allowlist: ["::1"] });
    assertEquals([patched.status, patched.body.ip_allowlist], [200, ["::1"]]);
    const cleared = await gw.admin("PATCH", `/admin/keys/${id}`, { ip_allowlist: null });
    assertEquals([cleared.status, cleared.body.ip_allowlist], [200, null]);
    const listed = (await gw.admin("GET", "/admin/keys?limit=100")).body.data as Json[];
    assertOk(listed.every((key) => "ip_allowlist" in key));
  },
);
