import { assertEquals, assertOk } from "../../helpers/assert.ts";
import type { Channel } from "../../../core/channels/channel_schema.ts";
import { describeKeyHint, keyHint } from "../../../core/channels/key_hint.ts";
import {
  readVertexTokenCount,
  vertexAnthropicBody,
  vertexClaudeCountBody,
  vertexFormat,
  vertexGeminiCountBody,
  vertexUrl,
} from "../../../core/providers/vertex.ts";
import {
  CLOUD_PLATFORM_SCOPE,
  readServiceAccount,
  serviceAccountAssertion,
  serviceAccountProblem,
  vertexAccessToken,
} from "../../../core/providers/vertex_auth.ts";
import { UpstreamAttemptError } from "../../../core/upstream/attempt.ts";
import { makeServiceAccount } from "../../upstream/vertex.ts";

function channelOf(extra: Partial<Channel> = {}): Channel {
  return {
    type: "vertex",
    base_url: "https://aiplatform.googleapis.com",
    project: "p-1",
    location: "us-central1",
    keys: ["{}"],
    ...extra,
  } as Channel;
}

const TOKEN_URI = "https://oauth2.googleapis.com/token";

Deno.test("vertex URLs: a regional host for a region, the global one for global, any other base as it is", () => {
  const model = {
    publisher: "google" as const,
    model: "gemini-2.5-flash",
    method: "generateContent",
  };
  assertEquals(
    vertexUrl(channelOf(), model),
    "https://us-central1-aiplatform.googleapis.com/v1/projects/p-1/locations/us-central1/" +
      "publishers/google/models/gemini-2.5-flash:generateContent",
  );
  assertEquals(
    vertexUrl(channelOf({ location: "global" }), model),
    "https://aiplatform.googleapis.com/v1/projects/p-1/locations/global/" +
      "publishers/google/models/gemini-2.5-flash:generateContent",
  );
  assertEquals(
    vertexUrl(channelOf({ base_url: "http://127.0.0.1:9" }), {
      publisher: "anthropic",
      model: "claude-sonnet-4-5@20250929",
      method: "streamRawPredict",
    }),
    "http://127.0.0.1:9/v1/projects/p-1/locations/us-central1/publishers/anthropic/models/" +
      "claude-sonnet-4-5@20250929:streamRawPredict",
  );
});

Deno.test("vertex publisher: claude-* is Anthropic's unless the channel says otherwise", () => {
  assertEquals(vertexFormat(channelOf(), "claude-opus-4-1@20250805"), "anthropic");
  assertEquals(vertexFormat(channelOf(), "gemini-2.5-pro"), "gemini");
  assertEquals(vertexFormat(channelOf({ vertex_publisher: "anthropic" }), "my-tuned"), "anthropic");
  assertEquals(vertexFormat(channelOf({ vertex_publisher: "google" }), "claude-x"), "gemini");
});

Deno.test("a Claude body on Vertex has no model and Vertex's anthropic_version", () => {
  const body = JSON.parse(vertexAnthropicBody(JSON.stringify({
    model: "claude-x",
    anthropic_version: "2023-06-01",
    max_tokens: 5,
    messages: [{ role: "user", content: "hi" }],
  })));
  assertEquals(body, {
    anthropic_version: "vertex-2023-10-16",
    max_tokens: 5,
    messages: [{ role: "user", content: "hi" }],
  });
});

Deno.test("a service account key is checked, and the problem quotes none of it", async () => {
  const account = await makeServiceAccount({ name: "a", project: "p-1", tokenUri: TOKEN_URI });
  assertEquals(serviceAccountProblem(account.json), undefined);
  const fields = JSON.parse(account.json);
  const without = (name: string) => {
    const copy = { ...fields };
    delete copy[name];
    return JSON.stringify(copy);
  };
  const problems = [
    serviceAccountProblem("sk-not-json-secret"),
    serviceAccountProblem("[1,2]"),
    serviceAccountProblem(without("private_key")),
    serviceAccountProblem(without("client_email")),
    serviceAccountProblem(JSON.stringify({ ...fields, type: "authorized_user" })),
    serviceAccountProblem(JSON.stringify({ ...fields, private_key: "secret-text" })),
    serviceAccountProblem(JSON.stringify({ ...fields, token_uri: "file:///etc/passwd" })),
  ];
  assertOk(problems[0]!.startsWith("is not JSON"), problems[0]);
  assertOk(problems[1]!.startsWith("is not a JSON object"), problems[1]);
  assertOk(problems[2]!.startsWith("has no private_key"), problems[2]);
  assertOk(problems[3]!.startsWith("has no client_email"), problems[3]);
  assertOk(problems[4]!.includes("not a service account"), problems[4]);
  assertOk(problems[5]!.includes("PKCS#8"), problems[5]);
  assertOk(problems[6]!.includes("token_uri"), problems[6]);
  for (const problem of problems) {
    assertOk(!/secret|PRIVATE KEY-----\n|MII/.test(problem!), problem);
  }
  const read = readServiceAccount(without("token_uri"));
  assertOk(!("problem" in read));
  assertEquals(read.token_uri, TOKEN_URI, "Google's token endpoint when the key names none");
});

Deno.test("the JWT is RS256 with Google's claims, and verifies with the account's public key", async () => {
  const account = await makeServiceAccount({ name: "a", project: "p-1", tokenUri: TOKEN_URI });
  const read = readServiceAccount(account.json);
  assertOk(!("problem" in read));
  const jwt = await serviceAccountAssertion(read, 1_700_000_000_500);
  const [header, claims, signature] = jwt.split(".");
  const json = (part: string) =>
    JSON.parse(new TextDecoder().decode(Uint8Array.fromBase64(part, { alphabet: "base64url" })));
  assertEquals(json(header), { alg: "RS256", typ: "JWT", kid: account.keyId });
  assertEquals(json(claims), {
    scope: CLOUD_PLATFORM_SCOPE,
    iss: account.email,
    aud: TOKEN_URI,
    iat: 1_700_000_000,
    exp: 1_700_003_600,
  });
  const verified = await crypto.subtle.verify(
    "RSASSA-PKCS1-v1_5",
    account.publicKey,
    Uint8Array.fromBase64(signature, { alphabet: "base64url" }) as BufferSource,
    new TextEncoder().encode(`${header}.${claims}`),
  );
  assertOk(verified);
});

Deno.test("a service account key is shown by its account and key id, never its text", async () => {
  const account = await makeServiceAccount({ name: "a", project: "p-1", tokenUri: TOKEN_URI });
  const hint = await keyHint(account.json);
  assertEquals(hint.account, account.email);
  assertEquals(hint.last4, account.keyId.slice(-4));
  assertEquals(
    describeKeyHint(hint),
    `${hint.fingerprint} (${account.email}, key …${account.keyId.slice(-4)})`,
  );
  assertEquals((await keyHint("sk-abcd1234")).account, undefined);
});

Deno.test("the token exchange: a token, a refusal named as the key's, a broken or huge answer", async () => {
  const answers: Array<() => Response> = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const form = new URLSearchParams(await req.text());
    assertEquals(form.get("grant_type"), "urn:ietf:params:oauth:grant-type:jwt-bearer");
    return answers.shift()!();
  });
  try {
    const tokenUri = `http://127.0.0.1:${server.addr.port}/token`;
    const exchange = async (answer: () => Response) => {
      answers.push(answer);
      const account = await makeServiceAccount({ name: "a", project: "p-1", tokenUri });
      try {
        return { token: (await vertexAccessToken(account.json)).token };
      } catch (error) {
        assertOk(error instanceof UpstreamAttemptError, String(error));
        assertOk(!error.message.includes("PRIVATE KEY"), error.message);
        return { status: error.status, errorClass: error.errorClass, message: error.message };
      }
    };
    assertEquals(
      await exchange(() => Response.json({ access_token: "ya29.t", expires_in: 3599 })),
      { token: "ya29.t" },
    );
    const refused = await exchange(() =>
      Response.json({ error: "invalid_grant", error_description: "Invalid JWT Signature." }, {
        status: 400,
      })
    );
    assertEquals([refused.status, refused.errorClass], [401, "http_400"]);
    assertOk(refused.message!.includes("invalid_grant: Invalid JWT Signature."), refused.message);
    const unavailable = await exchange(() => new Response("busy", { status: 503 }));
    assertEquals([unavailable.status, unavailable.errorClass], [503, "http_503"]);
    const empty = await exchange(() => Response.json({ token_type: "Bearer" }));
    assertEquals(empty.errorClass, "bad_answer");
    const huge = await exchange(() =>
      new Response(`{"access_token": "${"x".repeat(1_000_000)}", "expires_in": 3599}`)
    );
    assertEquals(huge.errorClass, "bad_answer");
  } finally {
    await server.shutdown();
  }
});

Deno.test("a Gemini count on Vertex: the request's counted fields at the top level, no generateContentRequest", () => {
  const contents = [{ role: "user", parts: [{ text: "hi" }] }];
  const systemInstruction = { parts: [{ text: "be brief" }] };
  const tools = [{ functionDeclarations: [{ name: "f" }] }];
  assertEquals(
    vertexGeminiCountBody({
      contents,
      systemInstruction,
      tools,
      generationConfig: { temperature: 0 },
      toolConfig: { functionCallingConfig: { mode: "AUTO" } },
      safetySettings: [],
      cachedContent: "c/1",
    }),
    { contents, systemInstruction, tools, generationConfig: { temperature: 0 } },
  );
});

Deno.test("a Claude count on Vertex: count_tokens fields only, the model named in the body, Vertex's anthropic_version", () => {
  assertEquals(
    vertexClaudeCountBody({
      model: "v-claude",
      max_tokens: 1,
      stream: false,
      temperature: 0.2,
      system: "be brief",
      messages: [{ role: "user", content: "hi" }],
    }, "claude-sonnet-4-5@20250929"),
    {
      anthropic_version: "vertex-2023-10-16",
      model: "claude-sonnet-4-5@20250929",
      system: "be brief",
      messages: [{ role: "user", content: "hi" }],
    },
  );
});

Deno.test("a Vertex count answer: Google's CountTokensResponse or Anthropic's input_tokens", () => {
  assertEquals(
    readVertexTokenCount(JSON.stringify({
      totalTokens: 12,
      totalBillableCharacters: 30,
      promptTokensDetails: [{ modality: "TEXT", tokenCount: 12 }],
    })),
    { input: 12, byModality: [{ modality: "TEXT", tokenCount: 12 }] },
  );
  assertEquals(readVertexTokenCount('{"input_tokens":7}'), { input: 7 });
  assertEquals(readVertexTokenCount('{"totalTokens":-1}'), undefined);
  assertEquals(readVertexTokenCount("{}"), undefined);
  assertEquals(readVertexTokenCount("not json"), undefined);
});
