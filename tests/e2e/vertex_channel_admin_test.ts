/**
 * A vertex channel through the admin API: its service account key is checked at create (400
 * naming what is wrong, quoting none of it), sealed at rest, and shown only by its account.
 */

import OpenAI from "openai";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { assertAdminError } from "../helpers/admin_error.ts";
import { serverTest, startTestGateway } from "../helpers/gateway.ts";
import { startVertexUpstream } from "../upstream/vertex.ts";
import { setupVertex, VERTEX_CLAUDE, VERTEX_GEMINI } from "../helpers/vertex_setup.ts";

/** Pieces of a key that must never be seen: the private key's body and its PEM marker. */
function secretPieces(json: string): string[] {
  const privateKey: string = JSON.parse(json).private_key;
  const body = privateKey.replace(/-----[A-Z ]+-----/g, "").replaceAll("\n", "");
  return ["PRIVATE KEY", body.slice(100, 140), body.slice(-40)];
}

function assertNoSecret(text: string, pieces: string[], where: string) {
  for (const piece of pieces) assertOk(!text.includes(piece), `${where} holds '${piece}'`);
}

Deno.test(
  "vertex admin: a bad service account key, or a missing project or location, is a 400 naming it",
  serverTest,
  async () => {
    await using s = await setupVertex();
    const fields = JSON.parse(s.sim.account.json);
    const without = (name: string) => {
      const copy = { ...fields };
      delete copy[name];
      return JSON.stringify(copy);
    };
    const create = (input: Record<string, unknown>) =>
      s.gw.admin("POST", "/admin/channels", { ...s.channelFields(), name: "bad", ...input });
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ keys: ["sk-plain-secret-1234"] }, "invalid_upstream_key", "is not JSON"],
      [{ keys: [without("private_key")] }, "invalid_upstream_key", "has no private_key"],
      [{ keys: [without("client_email")] }, "invalid_upstream_key", "has no client_email"],
      [
        { keys: [s.sim.account.json, '{"type": "authorized_user"}'] },
        "invalid_upstream_key",
        "Upstream key 2",
      ],
      [{ project: undefined }, "missing_channel_field", "'project'"],
      [{ location: undefined }, "missing_channel_field", "'location'"],
    ];
    const pieces = [...secretPieces(s.sim.account.json), "sk-plain-secret"];
    for (const [input, code, words] of cases) {
      const answer = await create(input);
      const message = assertAdminError(answer, 400, code);
      assertOk(message.includes(words), message);
      assertNoSecret(JSON.stringify(answer.body), pieces, "the refusal");
    }
    const patched = await s.gw.admin("PATCH", `/admin/channels/${s.channelId}`, {
      add_keys: ["not json at all"],
    });
    assertAdminError(patched, 400, "invalid_upstream_key");
    const listed = await s.gw.admin("GET", "/admin/channels");
    assertEquals(listed.body.data.length, 1, "nothing was created");
    const channel = await s.gw.admin("GET", `/admin/channels/${s.channelId}`);
    assertEquals(channel.body.key_count, 1, "nothing was added");
  },
);

Deno.test(
  "vertex admin: the key is shown by its account only, and is in no view, record or KV in clear",
  serverTest,
  async () => {
    await using s = await setupVertex();
    const openai = new OpenAI({ apiKey: s.key, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
    for (const model of [VERTEX_GEMINI, VERTEX_CLAUDE]) {
      await openai.chat.completions.create({ model, messages: [{ role: "user", content: "hi" }] });
    }
    const added = await s.gw.admin("PATCH", `/admin/channels/${s.channelId}`, {
      add_keys: [s.sim.otherAccount.json],
    });
    assertEquals(added.status, 200, JSON.stringify(added.body));
    await s.gw.settle();
    const tokens = [...new Set(s.sim.requests.map((request) => request.token!))];
    const pieces = [
      ...secretPieces(s.sim.account.json),
      ...secretPieces(s.sim.otherAccount.json),
      ...tokens,
    ];

    const channel = await s.gw.admin("GET", `/admin/channels/${s.channelId}`);
    assertEquals(
      channel.body.keys.map((key: { account: string }) => key.account),
      [s.sim.account.email, s.sim.otherAccount.email],
    );
    assertEquals(channel.body.keys[0].last4, s.sim.account.keyId.slice(-4));
    const views = {
      "the channel view": channel.body,
      "the PATCH answer": added.body,
      "the channel list": (await s.gw.admin("GET", "/admin/channels")).body,
      "the audit log": (await s.gw.admin("GET", "/admin/audit?limit=100")).body,
      "the request records": (await s.gw.admin("GET", `/admin/requests?key=${s.keyId}`)).body,
    };
    for (const [where, body] of Object.entries(views)) {
      assertNoSecret(JSON.stringify(body), pieces, where);
    }
    await s.gw.running.shutdown();
    for (const suffix of ["", "-wal", "-shm"]) {
      const bytes = await Deno.readFile(`${s.gw.kvPath}${suffix}`).catch(() => null);
      if (!bytes) continue;
      assertNoSecret(new TextDecoder("latin1").decode(bytes), pieces, `the KV file${suffix}`);
    }
  },
);

Deno.test(
  "vertex config file: a channel whose key comes from the environment serves; a bad key stops the boot, naming it",
  serverTest,
  async () => {
    await using sim = await startVertexUpstream();
    const dir = await Deno.makeTempDir({ prefix: "gateway-vertex-config-" });
    const configPath = `${dir}/gateway.json`;
    const config = (key: unknown) =>
      JSON.stringify({
        models: { "cfg-gemini": { kind: "text", price: { input: 1, output: 2 } } },
        channels: [{
          id: "cfg-vertex",
          name: "vertex from the config file",
          type: "vertex",
          base_url: sim.baseUrl,
          project: sim.project,
          location: sim.location,
          keys: [key],
          models: ["cfg-gemini"],
          model_map: { "cfg-gemini": "gemini-2.5-flash" },
        }],
      });
    const variable = `GATEWAY_TEST_VERTEX_KEY_${crypto.randomUUID().slice(0, 8)}`;
    Deno.env.set(variable, sim.account.json);
    try {
      await Deno.writeTextFile(configPath, config({ env: variable }));
      {
        await using gw = await startTestGateway({ GATEWAY_CONFIG: configPath });
        const { key } = await gw.createKey({ balance: 1_000_000 });
        const openai = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
        const answer = await openai.chat.completions.create({
          model: "cfg-gemini",
          messages: [{ role: "user", content: "hi" }],
        });
        assertOk(answer.choices[0].message.content);
        const channel = await gw.admin("GET", "/admin/channels/cfg-vertex");
        assertEquals(channel.body.keys[0].account, sim.account.email);
      }
      await Deno.writeTextFile(configPath, config("not-a-service-account-key"));
      let refused = "";
      try {
        await using _gw = await startTestGateway({ GATEWAY_CONFIG: configPath });
      } catch (error) {
        refused = String(error);
      }
      assertOk(refused.includes("is not JSON"), refused);
      assertOk(!refused.includes("not-a-service-account-key"), refused);
    } finally {
      Deno.env.delete(variable);
      await Deno.remove(dir, { recursive: true });
    }
  },
);
