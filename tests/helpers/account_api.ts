/**
 * The account API as a script uses it: a gateway with a simulated upstream and a priced model,
 * an account made by the operator, members who join by the invitation link (no SMTP: the admin
 * answer holds the link), sign in to the console and make a personal access token in Settings,
 * and calls with `Authorization: Bearer gwpat-…`.
 */

import { assertEquals, assertOk } from "./assert.ts";
import { startTestGateway, TEST_TEXT_PRICE, type TestGateway } from "./gateway.ts";
import { consoleClient } from "./console_client.ts";
import { type MemberClient, memberClient } from "./member_console.ts";
import { startOpenAIChatUpstream } from "../upstream/openai_chat.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export const MODEL = "gpt-test";
export const OTHER_MODEL = "gpt-other";
export const PASSWORD = "a long enough password";

/** A gateway with an `openai` channel serving MODEL (group default) and OTHER_MODEL (group vip). */
export async function accountApiGateway(env: Record<string, string> = {}) {
  const upstream = startOpenAIChatUpstream();
  const gw = await startTestGateway(env);
  await gw.putModel(MODEL, { kind: "text", price: TEST_TEXT_PRICE });
  await gw.putModel(OTHER_MODEL, { kind: "text", price: TEST_TEXT_PRICE, groups: ["vip"] });
  await gw.addChannel({
    name: "sim",
    type: "openai",
    base_url: upstream.baseUrl,
    keys: ["sk-upstream-test"],
    models: [MODEL, OTHER_MODEL],
  });
  return {
    gw,
    upstream,
    async [Symbol.asyncDispose]() {
      await gw.close();
      await upstream[Symbol.asyncDispose]();
    },
  };
}

export async function createAccount(
  gw: TestGateway,
  input: Record<string, unknown> = {},
): Promise<Json> {
  const created = await gw.admin("POST", "/admin/accounts", { name: "acme", ...input });
  assertEquals(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

/** A member of `accountId` (joined by the invitation link) signed in to the console. */
export async function signedInMember(
  gw: TestGateway,
  accountId: string,
  email: string,
  role: "owner" | "member",
): Promise<{ client: MemberClient; memberId: string }> {
  const invited = await gw.admin("POST", `/admin/accounts/${accountId}/invitations`, {
    email,
    role,
  });
  assertEquals(invited.status, 201, JSON.stringify(invited.body));
  const token = new URL(invited.body.link).searchParams.get("token")!;
  const accepted = await consoleClient(gw.url).post("/console/invitation", {
    token,
    name: email.split("@")[0],
    password: PASSWORD,
  });
  await accepted.body?.cancel();
  const client = memberClient(gw.url);
  const signedIn = await client.signInMember(email, PASSWORD);
  await signedIn.body?.cancel();
  assertEquals(signedIn.status, 303, "signed in");
  const found = await gw.admin("GET", `/admin/members?email=${encodeURIComponent(email)}`);
  return { client, memberId: found.body.data[0].id };
}

/** Makes a token in Settings (create → redirect → the secret shown once); returns the secret. */
export async function tokenFromSettings(
  client: MemberClient,
  name = "script",
  expiresInDays = "30",
): Promise<string> {
  const created = await client.postMember("/console/settings/tokens", {
    name,
    expires_in_days: expiresInDays,
  });
  assertEquals(created.status, 303, await created.text());
  const location = created.headers.get("location")!;
  assertOk(location.startsWith("/console/settings/tokens/created?id=pat_"), location);
  const page = await (await client.get(location)).text();
  const secret = page.match(/id="secret" class="secret">(gwpat-[0-9A-Za-z]{43})</)?.[1];
  assertOk(secret, "the secret is on the page");
  return secret;
}

/** A member with a token: the console client, the member's id and the token's secret. */
export async function memberWithToken(
  gw: TestGateway,
  accountId: string,
  email: string,
  role: "owner" | "member",
) {
  const { client, memberId } = await signedInMember(gw, accountId, email, role);
  return { client, memberId, token: await tokenFromSettings(client) };
}

export interface ApiAnswer {
  status: number;
  body: Json;
  headers: Headers;
}

/** Calls the gateway with `token` as the bearer; a string body goes as it is. */
export async function call(
  gw: { url: string },
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiAnswer> {
  const response = await fetch(`${gw.url}${path}`, {
    method,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? JSON.parse(text) : null,
    headers: response.headers,
  };
}

/** The account API of one token: `api("GET", "/keys")` calls /v1/account/keys. */
export function accountApi(gw: { url: string }, token: string) {
  return (method: string, path = "", body?: unknown, headers?: Record<string, string>) =>
    call(gw, token, method, `/v1/account${path}`, body, headers);
}

/** Asserts an OpenAI-envelope error with `status` and `code`; returns the error object. */
export function assertOpenAIError(answer: ApiAnswer, status: number, code: string): Json {
  assertEquals(answer.status, status, JSON.stringify(answer.body));
  const error = answer.body?.error;
  assertOk(error && typeof error.message === "string", JSON.stringify(answer.body));
  assertEquals(error.code, code, JSON.stringify(answer.body));
  assertOk(typeof error.type === "string", "the OpenAI envelope has a type");
  return error;
}
