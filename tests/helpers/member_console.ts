/**
 * A member in the web console over plain HTTP (no browser): the console client plus the email and
 * password sign-in, its second-factor step (with the challenge cookie), and reading values off
 * pages; and the real account a member is invited into.
 */

import { consoleClient } from "./console_client.ts";
import type { TestGateway } from "./gateway.ts";

/** Creates an account named `name` through the admin API; returns its id (`acct_…`). */
export async function createAccount(gw: TestGateway, name: string): Promise<string> {
  const created = await gw.admin("POST", "/admin/accounts", { name });
  if (created.status !== 201) {
    throw new Error(`account ${name} not created: ${JSON.stringify(created.body)}`);
  }
  return created.body.id as string;
}

function cookiePair(response: Response, name: string): string | undefined {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(";");
    if (pair.startsWith(`${name}=`)) return pair;
  }
  return undefined;
}

export type MemberClient = ReturnType<typeof memberClient>;

export function memberClient(url: string) {
  const client = consoleClient(url);
  let challenge = "";
  return Object.assign(client, {
    /** POSTs the member form of /console/sign-in; keeps the session or challenge cookie. */
    async signInMember(email: string, password: string): Promise<Response> {
      const response = await fetch(`${url}/console/sign-in`, {
        method: "POST",
        redirect: "manual",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: url,
          ...(client.cookie ? { cookie: client.cookie } : {}),
        },
        body: new URLSearchParams({ email, password }),
      });
      const session = cookiePair(response, "console_session");
      if (session) client.cookie = session;
      challenge = cookiePair(response, "console_challenge") ?? challenge;
      return response;
    },
    /** POSTs the second-factor step with the challenge cookie. */
    async secondFactor(code: string): Promise<Response> {
      const response = await fetch(`${url}/console/sign-in/second-factor`, {
        method: "POST",
        redirect: "manual",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: url,
          cookie: challenge,
        },
        body: new URLSearchParams({ code }),
      });
      const session = cookiePair(response, "console_session");
      if (session) client.cookie = session;
      return response;
    },
    /** The CSRF token of the signed-in member, read off the settings page. */
    async memberCsrf(): Promise<string> {
      const page = await (await client.get("/console/settings")).text();
      const match = page.match(/name="csrf" value="([^"]+)"/);
      if (!match) throw new Error("no CSRF token on the settings page: not signed in?");
      return match[1];
    },
    /** POSTs a form as the signed-in member. */
    async postMember(path: string, fields: Record<string, string>): Promise<Response> {
      return await client.post(path, fields, { csrf: await this.memberCsrf() });
    },
  });
}

/** The text of the element with `id` on an HTML page (tags it opens with, e.g. an amount's, dropped). */
export function textOf(html: string, id: string): string {
  const match = html.match(new RegExp(`id="${id}"[^>]*>((?:<[^/][^>]*>)*[^<]*)<`));
  if (!match) throw new Error(`no element #${id} on the page`);
  return match[1].replace(/<[^>]*>/g, "").replaceAll("&lt;", "<").replaceAll("&amp;", "&");
}

/** POSTs `body` as it is (a field may repeat), with the member's CSRF token. */
export async function postRaw(
  url: string,
  client: MemberClient,
  path: string,
  body: URLSearchParams,
) {
  body.set("csrf", await client.memberCsrf());
  return await fetch(`${url}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: url,
      cookie: client.cookie,
    },
    body,
  });
}
