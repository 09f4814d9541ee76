import { assertEquals, assertOk, assertRejects } from "../../helpers/assert.ts";
import type { Channel } from "../../../core/channels/channel_schema.ts";
import {
  azureChannelProblem,
  azureOpenAIProvider,
  azureOpenAIResponsesProvider,
  azureOpenAIUrl,
} from "../../../core/providers/azure_openai.ts";
import { azureAuthHeaders, fetchEntraToken } from "../../../core/providers/azure_openai_auth.ts";
import { UpstreamAttemptError } from "../../../core/upstream/attempt.ts";
import type { ClientHints } from "../../../core/providers/client_hints.ts";

function channel(fields: Partial<Channel> = {}): Channel {
  return {
    id: "ch_1",
    name: "azure",
    type: "azure-openai",
    base_url: "https://res.openai.azure.com",
    keys: ["azure-key"],
    models: ["m"],
    model_map: {},
    priority: 0,
    weight: 1,
    groups: ["default"],
    enabled: true,
    timeout_ms: 10_000,
    stream_idle_ms: 10_000,
    source: "admin",
    created_at: "",
    updated_at: "",
    api_version: "2024-10-21",
    ...fields,
  } as Channel;
}

const target = (fields: Partial<Channel> = {}, model = "my-deployment") => ({
  channel: channel(fields),
  apiKey: "azure-key",
  model,
});

Deno.test("azure URLs: the deployment shape puts the deployment in the path and always the api-version", () => {
  assertEquals(
    azureOpenAIUrl(target(), "/chat/completions"),
    "https://res.openai.azure.com/openai/deployments/my-deployment/chat/completions?api-version=2024-10-21",
  );
  assertEquals(
    azureOpenAIUrl(target({}, "a/b c"), "/embeddings"),
    "https://res.openai.azure.com/openai/deployments/a%2Fb%20c/embeddings?api-version=2024-10-21",
  );
  assertEquals(
    azureOpenAIUrl(target(), "/responses"),
    "https://res.openai.azure.com/openai/responses?api-version=2024-10-21",
  );
});

Deno.test("azure URLs: v1 has no deployment in the path, and only preview or latest as api-version", () => {
  assertEquals(
    azureOpenAIUrl(target({ url_shape: "v1" }), "/images/generations"),
    "https://res.openai.azure.com/openai/v1/images/generations",
  );
  assertEquals(
    azureOpenAIUrl(target({ url_shape: "v1", api_version: "preview" }), "/responses"),
    "https://res.openai.azure.com/openai/v1/responses?api-version=preview",
  );
});

Deno.test("azure requests: OpenAI's bodies, Azure's URL, api-key in place of the bearer key", async () => {
  const hints = {} as ClientHints;
  const body = JSON.stringify({ model: "my-deployment", messages: [] });
  const chat = await azureOpenAIProvider.text!.request(target(), { stream: true, body, hints });
  assertEquals(chat.init.body, body);
  const headers = chat.init.headers as Record<string, string>;
  assertEquals(headers["api-key"], "azure-key");
  assertEquals(headers.authorization, undefined);
  assertEquals(headers.accept, "text/event-stream");
  const responses = await azureOpenAIResponsesProvider.text!.request(
    target({ azure_auth: "bearer" }),
    { stream: false, body, hints },
  );
  assertEquals(
    (responses.init.headers as Record<string, string>).authorization,
    "Bearer azure-key",
  );
  assertOk(responses.url.endsWith("/openai/responses?api-version=2024-10-21"));
});

Deno.test("azure settings: the deployment shape needs an api_version; entra needs a tenant and a client", () => {
  const base = { ...channel(), keys: undefined };
  assertEquals(azureChannelProblem({ ...base, api_version: undefined })?.param, "api_version");
  assertEquals(
    azureChannelProblem({ ...base, url_shape: "v1", api_version: undefined }),
    undefined,
  );
  assertEquals(
    azureChannelProblem({ ...base, azure_auth: "entra", entra_client_id: "app" })?.param,
    "entra_tenant_id",
  );
  assertEquals(
    azureChannelProblem({
      ...base,
      azure_auth: "entra",
      entra_tenant_id: "t",
      entra_client_id: "app",
    }),
    undefined,
  );
});

/** A token endpoint on a free port that answers `answer` (and counts its calls). */
function tokenEndpoint(answer: () => Response) {
  let calls = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    calls++;
    return answer();
  });
  return {
    authority: `http://127.0.0.1:${server.addr.port}`,
    calls: () => calls,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test("entra: a refused secret is a refused credential (401, failed over), never quoting the secret", async () => {
  await using endpoint = tokenEndpoint(() =>
    Response.json({
      error: "invalid_client",
      error_description: "AADSTS7000215: Invalid client secret provided: s3cret-value",
    }, { status: 401 })
  );
  const entra = channel({
    azure_auth: "entra",
    entra_tenant_id: "t",
    entra_client_id: "app",
    entra_authority: endpoint.authority,
  });
  let caught: unknown;
  await assertRejects(() =>
    fetchEntraToken(entra, "s3cret-value").catch((error) => {
      caught = error;
      throw error;
    })
  );
  assertOk(caught instanceof UpstreamAttemptError);
  assertEquals([caught.status, caught.retryable], [401, true]);
  assertOk(caught.message.includes("invalid_client"), caught.message);
  assertOk(!caught.message.includes("s3cret-value"), caught.message);
});

Deno.test("entra: a token is fetched once per secret and kept", async () => {
  await using endpoint = tokenEndpoint(() =>
    Response.json({ token_type: "Bearer", expires_in: 3599, access_token: "tok-1" })
  );
  const entra = channel({
    azure_auth: "entra",
    entra_tenant_id: "unit-tenant",
    entra_client_id: "app",
    entra_authority: endpoint.authority,
  });
  assertEquals(await azureAuthHeaders(entra, "secret-a"), { authorization: "Bearer tok-1" });
  assertEquals(await azureAuthHeaders(entra, "secret-a"), { authorization: "Bearer tok-1" });
  assertEquals(endpoint.calls(), 1);
  await azureAuthHeaders(entra, "secret-b");
  assertEquals(endpoint.calls(), 2);
});

Deno.test("entra: an answer without a token is a failed attempt", async () => {
  await using endpoint = tokenEndpoint(() => Response.json({ token_type: "Bearer" }));
  const entra = channel({
    azure_auth: "entra",
    entra_tenant_id: "t",
    entra_client_id: "app",
    entra_authority: endpoint.authority,
  });
  await assertRejects(() => fetchEntraToken(entra, "secret"));
});
