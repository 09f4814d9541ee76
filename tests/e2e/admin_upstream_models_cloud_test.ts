/**
 * "Fetch models" of the cloud types through `GET /admin/channels/{id}/upstream-models`: a
 * `vertex` channel reads Model Garden's publisher lists with its service account's token (every
 * page, Google's then Anthropic's, or its publisher's alone), a `bedrock` channel Bedrock's
 * foundation models and inference profiles, signed; a refused credential is said with the
 * upstream's status and without the secret.
 */

import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTest, startTestGateway } from "../helpers/gateway.ts";
import { makeServiceAccount, startVertexUpstream } from "../upstream/vertex.ts";
import {
  BEDROCK_TEST_ACCESS_KEY,
  BEDROCK_TEST_SECRET,
  startBedrockUpstream,
} from "../upstream/bedrock.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test(
  "upstream models of a vertex channel: Model Garden's pages with the channel's token, a refused key without the key",
  serverTest,
  async () => {
    await using sim = await startVertexUpstream({ listedPageSize: 2 });
    await using gw = await startTestGateway();
    const channel = (keys: string[], fields: Record<string, unknown> = {}) =>
      gw.addChannel({
        name: `vertex-${crypto.randomUUID().slice(0, 8)}`,
        type: "vertex",
        base_url: sim.baseUrl,
        project: sim.project,
        location: sim.location,
        keys,
        models: [`m-${crypto.randomUUID()}`],
        create_models: true,
        ...fields,
      });
    const list = async (id: string) =>
      (await gw.admin("GET", `/admin/channels/${id}/upstream-models`)) as {
        status: number;
        body: Json;
      };

    const both = await channel([sim.account.json]);
    assertEquals((await list(both.id)).body, {
      ok: true,
      models: [
        { id: "gemini-2.5-flash" },
        { id: "gemini-2.5-pro" },
        { id: "gemini-2.0-flash-001" },
        { id: "text-embedding-005" },
        { id: "claude-sonnet-4-5" },
        { id: "claude-haiku-4-5" },
        { id: "claude-opus-4-1" },
      ],
    });
    // Google's 5 in pages of 2, then Anthropic's 3: each token sent back to its own publisher.
    assertEquals(
      sim.listCalls.map(({ publisher, pageToken, status }) => [publisher, !!pageToken, status]),
      [
        ["google", false, 200],
        ["google", true, 200],
        ["google", true, 200],
        ["anthropic", false, 200],
        ["anthropic", true, 200],
      ],
    );
    assertOk(sim.listCalls.every((call) => call.pageSize === "100" && call.token), "asked");
    assertEquals(sim.tokenCalls.issued, 1, "one token for every page");
    assertEquals(sim.requests.length, 0, "no model called");

    const claudeOnly = await channel([sim.account.json], { vertex_publisher: "anthropic" });
    sim.listCalls.length = 0;
    assertEquals((await list(claudeOnly.id)).body.models.map((m: Json) => m.id), [
      "claude-sonnet-4-5",
      "claude-haiku-4-5",
      "claude-opus-4-1",
    ]);
    assertEquals(sim.listCalls.map((call) => call.publisher), ["anthropic", "anthropic"]);

    // A revoked token: the list's 401 said, the token dropped, the next fetch gets a fresh one.
    sim.revokeTokens();
    const revoked = await list(both.id);
    assertEquals([revoked.status, revoked.body.ok, revoked.body.status], [200, false, 401]);
    assertEquals((await list(both.id)).body.ok, true);
    assertEquals(sim.tokenCalls.issued, 2);

    // A key the token endpoint does not know: refused, and nothing of the key in the answer.
    const stranger = await makeServiceAccount({
      name: "stranger",
      project: sim.project,
      tokenUri: sim.tokenUri,
    });
    const refused = await list((await channel([stranger.json])).id);
    assertEquals([refused.status, refused.body.ok, refused.body.status], [200, false, 401]);
    const said = JSON.stringify(refused.body);
    const key = JSON.parse(stranger.json);
    assertOk(said.includes("refused"), said);
    for (const secret of [key.private_key_id, key.private_key.slice(40, 80)]) {
      assertOk(!said.includes(secret), said);
    }
  },
);

Deno.test(
  "upstream models of a bedrock channel: on-demand text and text embedding models and inference profiles, signed or by API key; a wrong secret without the secret",
  serverTest,
  async () => {
    await using sim = startBedrockUpstream({ apiKeys: ["ABSK-sim-key"], profilesPageSize: 1 });
    await using gw = await startTestGateway();
    const channel = (keys: string[], fields: Record<string, unknown> = {}) =>
      gw.addChannel({
        name: `bedrock-${crypto.randomUUID().slice(0, 8)}`,
        type: "bedrock",
        base_url: sim.endpoint,
        region: sim.region,
        keys,
        models: [`m-${crypto.randomUUID()}`],
        create_models: true,
        ...fields,
      });
    const list = async (id: string) =>
      (await gw.admin("GET", `/admin/channels/${id}/upstream-models`)) as {
        status: number;
        body: Json;
      };
    const expected = {
      ok: true,
      models: [
        { id: "anthropic.claude-3-5-sonnet-20240620-v1:0", label: "Claude 3.5 Sonnet" },
        { id: "amazon.nova-pro-v1:0", label: "Nova Pro" },
        { id: "amazon.titan-embed-text-v2:0", label: "Titan Text Embeddings V2" },
        { id: "amazon.nova-canvas-v1:0", label: "Nova Canvas" },
        { id: "us.anthropic.claude-sonnet-4-20250514-v1:0", label: "US Claude Sonnet 4" },
        { id: "us.amazon.nova-pro-v1:0", label: "US Nova Pro" },
      ],
    };

    const signed = await channel([`${BEDROCK_TEST_ACCESS_KEY}:${BEDROCK_TEST_SECRET}`]);
    assertEquals((await list(signed.id)).body, expected);
    assertEquals(
      sim.requests.map(({ path, auth, refused }) => [path, auth, refused]),
      [
        ["/foundation-models", "sigv4", undefined],
        ["/inference-profiles", "sigv4", undefined],
        ["/inference-profiles", "sigv4", undefined],
      ],
      "every page signed and taken; the profiles paged by nextToken",
    );

    sim.requests.length = 0;
    const byApiKey = await channel(["ABSK-sim-key"], { bedrock_auth: "api-key" });
    assertEquals((await list(byApiKey.id)).body, expected);
    assertOk(sim.requests.every(({ auth, refused }) => auth === "api-key" && !refused), "api key");

    const wrong = await channel([`${BEDROCK_TEST_ACCESS_KEY}:wrong-secret-0123456789abcdef`]);
    const refused = await list(wrong.id);
    assertEquals([refused.status, refused.body.ok, refused.body.status], [200, false, 403]);
    const said = JSON.stringify(refused.body);
    assertOk(said.includes("refused"), said);
    assertOk(!said.includes("wrong-secret-0123456789abcdef"), said);
  },
);
