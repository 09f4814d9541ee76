/**
 * A gateway with an account in it for the token management area's tests: two text models served
 * by a simulated OpenAI upstream, an account funded with 10.00, and members of it signed in over
 * HTTP through the real invitation and sign-in flow.
 */

import { consoleClient } from "./console_client.ts";
import { type MemberClient, memberClient } from "./member_console.ts";
import { startTestGateway, TEST_TEXT_PRICE, type TestGateway } from "./gateway.ts";
import { startOpenAIChatUpstream } from "../upstream/openai_chat.ts";

export const MEMBER_PASSWORD = "a long enough password";
export const MODELS = ["gpt-test", "gpt-other"];

export interface MemberArea extends AsyncDisposable {
  gw: TestGateway;
  accountId: string;
  /** Invites `email` to `accountId` as `role`, sets the password, and signs in over HTTP. */
  member(email: string, role: "owner" | "member", accountId?: string): Promise<MemberClient>;
  /** A new account funded with `balance`. */
  account(name: string, balance?: number): Promise<string>;
}

/** Makes `email` a member of `accountId` (the invitation link sets its password). */
export async function inviteMember(
  gw: TestGateway,
  { email, role, accountId }: { email: string; role: string; accountId: string },
): Promise<void> {
  const invited = await gw.admin("POST", `/admin/accounts/${accountId}/invitations`, {
    email,
    role,
  });
  if (invited.status !== 201) throw new Error(`invite: ${JSON.stringify(invited.body)}`);
  const token = new URL(invited.body.link).searchParams.get("token")!;
  const accepted = await consoleClient(gw.url).post("/console/invitation", {
    token,
    name: email.split("@")[0],
    password: MEMBER_PASSWORD,
  });
  await accepted.body?.cancel();
}

export async function startMemberArea(): Promise<MemberArea> {
  const upstream = startOpenAIChatUpstream();
  const gw = await startTestGateway();
  for (const model of MODELS) {
    await gw.putModel(model, { kind: "text", price: TEST_TEXT_PRICE });
  }
  await gw.addChannel({
    name: "sim",
    type: "openai",
    base_url: upstream.baseUrl,
    keys: ["sk-upstream-test"],
    models: MODELS,
  });
  const account = async (name: string, balance = 10_000_000) => {
    const created = await gw.admin("POST", "/admin/accounts", { name, balance });
    if (created.status !== 201) throw new Error(`account: ${JSON.stringify(created.body)}`);
    return created.body.id as string;
  };
  const accountId = await account("acme");
  return {
    gw,
    accountId,
    account,
    async member(email, role, inAccount = accountId) {
      await inviteMember(gw, { email, role, accountId: inAccount });
      const client = memberClient(gw.url);
      const signedIn = await client.signInMember(email, MEMBER_PASSWORD);
      await signedIn.body?.cancel();
      if (signedIn.status !== 303) throw new Error(`sign-in: ${signedIn.status}`);
      return client;
    },
    async [Symbol.asyncDispose]() {
      await gw.close();
      await upstream[Symbol.asyncDispose]();
    },
  };
}

/** A chat completion with `key`: the response's status and JSON body. */
export async function chatWith(
  gw: TestGateway,
  key: string,
  model = MODELS[0],
): Promise<{ status: number; body: { error?: { code?: string } } }> {
  const response = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "Hi" }] }),
  });
  return { status: response.status, body: await response.json() };
}
