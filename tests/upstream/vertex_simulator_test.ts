/** The Vertex simulator is as strict as the service where the gateway meets it. */

import { importPKCS8, SignJWT } from "jose";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import {
  makeServiceAccount,
  type ServiceAccount,
  startVertexUpstream,
  type VertexUpstream,
} from "./vertex.ts";

const SCOPE = "https://www.googleapis.com/auth/cloud-platform";

async function jwt(
  sim: VertexUpstream,
  options: {
    signer?: ServiceAccount;
    iss?: string;
    iatS?: number;
    lifetimeS?: number;
    scope?: string;
  } = {},
): Promise<string> {
  const signer = options.signer ?? sim.account;
  const key = await importPKCS8(JSON.parse(signer.json).private_key, "RS256");
  const iat = options.iatS ?? Math.floor(Date.now() / 1000);
  return await new SignJWT({ scope: options.scope ?? SCOPE })
    .setProtectedHeader({ alg: "RS256", typ: "JWT" })
    .setIssuer(options.iss ?? sim.account.email)
    .setAudience(sim.tokenUri)
    .setIssuedAt(iat)
    .setExpirationTime(iat + (options.lifetimeS ?? 3600))
    .sign(key);
}

async function exchange(sim: VertexUpstream, assertion: string) {
  const response = await fetch(sim.tokenUri, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
      assertion,
    }),
  });
  return { status: response.status, body: await response.json() };
}

function generate(sim: VertexUpstream, token: string | null, path?: string) {
  return fetch(
    `${sim.baseUrl}${
      path ??
        `/v1/projects/${sim.project}/locations/${sim.location}/publishers/google/models/gemini-2.5-flash:generateContent`
    }`,
    {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
    },
  );
}

Deno.test("vertex simulator: the token endpoint verifies the JWT and refuses bad ones", async () => {
  await using sim = await startVertexUpstream();
  const good = await exchange(sim, await jwt(sim));
  assertEquals(good.status, 200);
  assertEquals(good.body.expires_in, 3599);
  assertOk(typeof good.body.access_token === "string");

  const stranger = await makeServiceAccount({ name: "x", project: "p", tokenUri: sim.tokenUri });
  const wrongSignature = await exchange(sim, await jwt(sim, { signer: stranger }));
  assertEquals(wrongSignature, {
    status: 400,
    body: { error: "invalid_grant", error_description: "Invalid JWT Signature." },
  });
  const unknown = await exchange(sim, await jwt(sim, { signer: stranger, iss: stranger.email }));
  assertEquals(unknown.body.error, "invalid_grant");
  const expired = await exchange(
    sim,
    await jwt(sim, { iatS: Math.floor(Date.now() / 1000) - 7200 }),
  );
  assertEquals(expired.status, 400);
  assertOk(expired.body.error_description.includes("iat and exp"));
  const tooLong = await exchange(sim, await jwt(sim, { lifetimeS: 7200 }));
  assertEquals(tooLong.status, 400);
  const noScope = await exchange(sim, await jwt(sim, { scope: "email" }));
  assertEquals(noScope.body.error, "invalid_scope");
  assertEquals(sim.tokenCalls.issued, 1);
  assertEquals(sim.tokenCalls.refused.length, 5);
});

Deno.test("vertex simulator: model methods refuse missing, unknown, expired or revoked tokens", async () => {
  await using sim = await startVertexUpstream();
  sim.tokenLifetimeS = 60;
  const { body } = await exchange(sim, await jwt(sim));
  const token = body.access_token;
  const served = await generate(sim, token);
  assertEquals(served.status, 200);
  await served.body?.cancel();
  const missing = await generate(sim, null);
  assertEquals(missing.status, 401);
  assertEquals((await missing.json()).error.status, "UNAUTHENTICATED");
  const unknown = await generate(sim, "ya29.made-up");
  assertEquals(unknown.status, 401);
  await unknown.body?.cancel();
  const otherProject = await generate(
    sim,
    token,
    `/v1/projects/other/locations/${sim.location}/publishers/google/models/g:generateContent`,
  );
  assertEquals(otherProject.status, 403);
  await otherProject.body?.cancel();
  const otherLocation = await generate(
    sim,
    token,
    `/v1/projects/${sim.project}/locations/europe-west4/publishers/google/models/g:generateContent`,
  );
  assertEquals(otherLocation.status, 404);
  await otherLocation.body?.cancel();
  sim.advance(61_000);
  const expired = await generate(sim, token);
  assertEquals(expired.status, 401);
  await expired.body?.cancel();

  const fresh = (await exchange(sim, await jwt(sim))).body.access_token;
  const again = await generate(sim, fresh);
  assertEquals(again.status, 200);
  await again.body?.cancel();
  sim.revokeTokens();
  const revoked = await generate(sim, fresh);
  assertEquals(revoked.status, 401);
  await revoked.body?.cancel();
});

Deno.test("vertex simulator: rawPredict checks anthropic_version, model and stream as Vertex does", async () => {
  await using sim = await startVertexUpstream();
  const token = (await exchange(sim, await jwt(sim))).body.access_token;
  const call = async (method: string, body: Record<string, unknown>) => {
    const response = await fetch(
      `${sim.baseUrl}/v1/projects/${sim.project}/locations/${sim.location}/publishers/anthropic/models/claude-sonnet-4-5@20250929:${method}`,
      {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      },
    );
    return { status: response.status, text: await response.text() };
  };
  const messages = { max_tokens: 20, messages: [{ role: "user", content: "hi" }] };
  const ok = await call("rawPredict", { anthropic_version: "vertex-2023-10-16", ...messages });
  assertEquals(ok.status, 200, ok.text);
  assertEquals(JSON.parse(ok.text).type, "message");
  const noVersion = await call("rawPredict", messages);
  assertEquals(noVersion.status, 400);
  assertOk(noVersion.text.includes("anthropic_version"));
  const wrongVersion = await call("rawPredict", { anthropic_version: "2023-06-01", ...messages });
  assertEquals(wrongVersion.status, 400);
  const withModel = await call("rawPredict", {
    anthropic_version: "vertex-2023-10-16",
    model: "claude-x",
    ...messages,
  });
  assertEquals(withModel.status, 400);
  assertOk(withModel.text.includes("model: Extra inputs are not permitted"));
  const stream = await call("streamRawPredict", {
    anthropic_version: "vertex-2023-10-16",
    stream: true,
    ...messages,
  });
  assertEquals(stream.status, 200);
  assertOk(stream.text.includes("event: message_stop"), stream.text);
});

Deno.test("vertex simulator: token counts for Gemini (Vertex's CountTokensRequest) and Claude (count-tokens:rawPredict) match what a call reports", async () => {
  await using sim = await startVertexUpstream();
  const token = (await exchange(sim, await jwt(sim))).body.access_token;
  const post = async (path: string, body: unknown, bearer: string | null = token) => {
    const response = await fetch(
      `${sim.baseUrl}/v1/projects/${sim.project}/locations/${sim.location}/publishers/${path}`,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
        },
        body: JSON.stringify(body),
      },
    );
    return { status: response.status, body: await response.json() };
  };
  const contents = [{ role: "user", parts: [{ text: "count these words please" }] }];
  const systemInstruction = { parts: [{ text: "be brief" }] };
  const counted = await post("google/models/gemini-2.5-flash:countTokens", {
    contents,
    systemInstruction,
  });
  assertEquals(counted.status, 200, JSON.stringify(counted.body));
  const generated = await post("google/models/gemini-2.5-flash:generateContent", {
    contents,
    systemInstruction,
  });
  assertEquals(counted.body.totalTokens, generated.body.usageMetadata.promptTokenCount);
  assertEquals(counted.body.totalBillableCharacters, "countthesewordspleasebebrief".length);
  assertEquals(counted.body.promptTokensDetails[0].modality, "TEXT");
  const wrapped = await post("google/models/gemini-2.5-flash:countTokens", {
    generateContentRequest: { contents },
  });
  assertEquals(wrapped.status, 400);
  assertOk(wrapped.body.error.message.includes('Unknown name "generateContentRequest"'));
  assertEquals(
    (await post("google/models/gemini-2.5-flash:countTokens", { contents }, null)).status,
    401,
  );

  const messages = [{ role: "user", content: "count these words please" }];
  const claude = await post("anthropic/models/count-tokens:rawPredict", {
    anthropic_version: "vertex-2023-10-16",
    model: "claude-sonnet-4-5@20250929",
    system: "be brief",
    messages,
  });
  assertEquals(claude.status, 200, JSON.stringify(claude.body));
  const answered = await post("anthropic/models/claude-sonnet-4-5@20250929:rawPredict", {
    anthropic_version: "vertex-2023-10-16",
    max_tokens: 20,
    system: "be brief",
    messages,
  });
  assertEquals(claude.body.input_tokens, answered.body.usage.input_tokens);
  const noModel = await post("anthropic/models/count-tokens:rawPredict", {
    anthropic_version: "vertex-2023-10-16",
    messages,
  });
  assertEquals(noModel.status, 400);
  const withMax = await post("anthropic/models/count-tokens:rawPredict", {
    model: "claude-sonnet-4-5@20250929",
    max_tokens: 20,
    messages,
  });
  assertEquals(withMax.status, 400);
  assertOk(withMax.body.error.message.includes("max_tokens: Extra inputs are not permitted"));
});

Deno.test("vertex simulator: Claude's count is not offered in a location without it (404, as a model not offered there)", async () => {
  await using sim = await startVertexUpstream({ claudeCountLocations: [] });
  const token = (await exchange(sim, await jwt(sim))).body.access_token;
  const response = await fetch(
    `${sim.baseUrl}/v1/projects/${sim.project}/locations/${sim.location}/publishers/anthropic/models/count-tokens:rawPredict`,
    {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({
        model: "claude-sonnet-4-5@20250929",
        messages: [{ role: "user", content: "hi" }],
      }),
    },
  );
  assertEquals(response.status, 404);
  assertEquals((await response.json()).error.status, "NOT_FOUND");
});

Deno.test("vertex simulator: Model Garden's list takes a live token and its own page tokens", async () => {
  await using sim = await startVertexUpstream({ listedPageSize: 2 });
  const { body } = await exchange(sim, await jwt(sim));
  const list = async (path: string, token: string | null = body.access_token) => {
    const response = await fetch(`${sim.baseUrl}${path}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    return { status: response.status, body: await response.json() };
  };
  assertEquals((await list("/v1beta1/publishers/google/models", null)).status, 401);
  assertEquals((await list("/v1beta1/publishers/google/models", "ya29.made-up")).status, 401);
  const first = await list("/v1beta1/publishers/google/models?pageSize=100");
  assertEquals(first.body.publisherModels.map((m: { name: string }) => m.name), [
    "publishers/google/models/gemini-2.5-flash",
    "publishers/google/models/gemini-2.5-pro",
  ]);
  const second = await list(
    `/v1beta1/publishers/google/models?pageToken=${encodeURIComponent(first.body.nextPageToken)}`,
  );
  assertEquals(second.status, 200);
  assertEquals(second.body.publisherModels.length, 2);
  for (
    const refused of [
      `/v1beta1/publishers/anthropic/models?pageToken=${
        encodeURIComponent(first.body.nextPageToken)
      }`,
      "/v1beta1/publishers/google/models?pageToken=made-up",
      "/v1beta1/publishers/google/models?pageSize=-1",
    ]
  ) {
    const answer = await list(refused);
    assertEquals([answer.status, answer.body.error.status], [400, "INVALID_ARGUMENT"], refused);
  }
  assertEquals((await list("/v1beta1/publishers/nobody/models")).status, 404);
});
