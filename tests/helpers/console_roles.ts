/**
 * Console sessions of the three kinds, over plain HTTP: the operator (admin token), a key holder
 * (a key made through the admin API) and a member (invited into a new account through the admin
 * API, password set from the link, signed in by email).
 */

import { ADMIN_TOKEN, type TestGateway } from "./gateway.ts";
import { type ConsoleClient, consoleClient } from "./console_client.ts";
import { createAccount, type MemberClient, memberClient } from "./member_console.ts";

const PASSWORD = "a long enough password";

export async function operatorSession(gw: TestGateway): Promise<ConsoleClient> {
  const client = consoleClient(gw.url);
  const response = await client.signIn(ADMIN_TOKEN);
  await response.body?.cancel();
  if (!client.cookie) throw new Error(`operator not signed in: ${response.status}`);
  return client;
}

export async function holderSession(gw: TestGateway): Promise<ConsoleClient> {
  const { key } = await gw.createKey({ name: "holder", balance: 1_000_000 });
  const client = consoleClient(gw.url);
  const response = await client.signIn(key);
  await response.body?.cancel();
  if (!client.cookie) throw new Error(`holder not signed in: ${response.status}`);
  return client;
}

export async function memberSession(gw: TestGateway, email: string): Promise<MemberClient> {
  const account = await createAccount(gw, "Members' account");
  const invited = await gw.admin("POST", `/admin/accounts/${account}/invitations`, {
    email,
    role: "owner",
  });
  if (invited.status !== 201) throw new Error(`not invited: ${JSON.stringify(invited.body)}`);
  const token = new URL(invited.body.link).searchParams.get("token")!;
  const accepted = await consoleClient(gw.url).post("/console/invitation", {
    token,
    name: email.split("@")[0],
    password: PASSWORD,
  });
  await accepted.body?.cancel();
  const client = memberClient(gw.url);
  await (await client.signInMember(email, PASSWORD)).body?.cancel();
  if (!client.cookie) throw new Error("member not signed in");
  return client;
}
