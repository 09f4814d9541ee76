/**
 * Settings → Personal access tokens: a member makes a token for the account they are viewing
 * (a name and a life), sees its secret once (with a Copy button), lists and revokes their
 * tokens. Each change is audited as the session's. The token acts on /v1/account as the member,
 * with the member's role of the moment (docs/accounts.md, "Account API").
 */

import type { Hono } from "hono";
import { GatewayError } from "../../../core/errors.ts";
import type { Gateway } from "../../../core/gateway.ts";
import type { AccessTokenView } from "../../../core/members/access_tokens.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { consoleChange } from "../console_change.ts";
import { DataTable } from "../data_table.tsx";
import { Field } from "../field.tsx";
import { readForm } from "../form_body.ts";
import { formProblemOf } from "../form_problem.ts";
import { CsrfField } from "../layout.tsx";
import { renderPage } from "../render.tsx";
import { SecretOnce } from "../secret_once.tsx";
import { memberOf } from "./member_account.tsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** The lives offered: days, or empty for none. */
const LIVES = [
  ["30", "30 days"],
  ["7", "7 days"],
  ["90", "90 days"],
  ["365", "1 year"],
  ["", "No expiry"],
] as const;

export interface TokensNotice {
  text: string;
  error?: boolean;
}

/** The section of the settings page. */
export function AccessTokensCard(
  { c, tokens, accountId, notice }: {
    c: ConsoleContext;
    tokens: AccessTokenView[] | null;
    accountId: string;
    notice?: TokensNotice;
  },
) {
  const session = c.get("session");
  return (
    <section class="card" aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">Personal access tokens</h2>
      {notice
        ? notice.error
          ? <p class="error" role="alert">{notice.text}</p>
          : <p class="notice" role="status">{notice.text}</p>
        : null}
      <p class="muted">
        A token lets a script manage account <code>{accountId || "—"}</code>{" "}
        through the account API (<code>/v1/account</code>) as you, with your role. It is not an API
        key: model requests need a key.
      </p>
      {tokens === null ? <p class="notice">You are not a member of any account now.</p> : (
        <>
          <DataTable
            rows={tokens}
            empty="No token yet."
            columns={[
              { header: "Name", cell: (t) => t.name },
              { header: "Token", cell: (t) => <code>{t.prefix}…</code> },
              { header: "Created", cell: (t) => t.created_at },
              { header: "Last used", cell: (t) => t.last_used_at ?? "never" },
              { header: "Expires", cell: (t) => t.expires_at ?? "never" },
              {
                header: "",
                cell: (t) => (
                  <form method="post" action="/console/settings/tokens/revoke">
                    <CsrfField session={session} />
                    <input type="hidden" name="id" value={t.id} />
                    <button type="submit" class="danger" aria-label={`Revoke ${t.name}`}>
                      Revoke
                    </button>
                  </form>
                ),
              },
            ]}
          />
          <form method="post" action="/console/settings/tokens">
            <CsrfField session={session} />
            <Field name="name" id="token-name" label="Token name" required />
            <Field name="expires_in_days" label="Expires" value="30" options={LIVES} />
            <p>
              <button type="submit">Create token</button>
            </p>
          </form>
        </>
      )}
    </section>
  );
}

/** The tokens of the signed-in member for the account viewed; null when not a member of it. */
export async function tokensOf(gateway: Gateway, c: ConsoleContext) {
  const { memberId, accountId } = memberOf(c);
  if (!(await gateway.members.store.roleIn(memberId, accountId))) return null;
  return await gateway.members.accessTokens.list(memberId, accountId);
}

/** `expires_in_days` of the form as `expires_at`: one of the lives offered, else a 400. */
function expiresAtOf(raw: string | undefined, now: number): string | null {
  const days = raw ?? "";
  if (!LIVES.some(([value]) => value === days)) {
    throw new GatewayError("invalid_request", 400, "Choose one of the lives offered", {
      param: "expires_in_days",
    });
  }
  return days === "" ? null : new Date(now + Number(days) * 86_400_000).toISOString();
}

type SettingsPage = (
  c: ConsoleContext,
  notices: { tokens?: TokensNotice },
  status?: ContentfulStatusCode,
) => Promise<Response>;

/** Create, show once, revoke; `settingsPage` renders the settings page with a notice. */
export function serveAccessTokenForms(
  app: Hono<ConsoleEnv>,
  gateway: Gateway,
  settingsPage: SettingsPage,
) {
  const tokens = gateway.members.accessTokens;
  const refused = async (c: ConsoleContext, error: unknown) => {
    const problem = formProblemOf(error);
    return await settingsPage(
      c,
      { tokens: { text: problem.message, error: true } },
      problem.status,
    );
  };

  app.post("/console/settings/tokens", async (c) => {
    const form = await readForm(c);
    const { memberId, accountId } = memberOf(c);
    let created;
    try {
      if (!(await gateway.members.store.roleIn(memberId, accountId))) {
        throw new GatewayError("not_a_member", 403, "You are not a member of this account now");
      }
      const input = {
        name: form.name ?? "",
        expires_at: expiresAtOf(form.expires_in_days, Date.now()),
      };
      created = await consoleChange(gateway, {
        c,
        change: {
          route: "/console/settings/tokens",
          method: "POST",
          target: { kind: "access_token", id: null },
          apply: () => tokens.create(memberId, accountId, input),
          outcomeOf: (made) => ({
            status: 201,
            createdId: made.id,
            returned: { ...made, token: undefined, member_id: memberId },
          }),
        },
      });
    } catch (error) {
      return await refused(c, error);
    }
    await gateway.consoleSessions.putFlash(
      c.get("session").id,
      { owner: created.id, secret: created.token },
    );
    return c.redirect(`/console/settings/tokens/created?id=${created.id}`, 303);
  });

  app.get("/console/settings/tokens/created", async (c) => {
    const id = c.req.query("id") ?? "";
    const secret = /^pat_[0-9A-Za-z]{1,64}$/.test(id)
      ? await gateway.consoleSessions.takeFlash(c.get("session").id, id)
      : null;
    const base = baseUrlOf(gateway, c.get("url"));
    return renderPage(
      c,
      <>
        <SecretOnce
          secret={secret}
          heading="Your new personal access token"
          keep="only its hash"
          again="Revoke it and make a new one."
          back={{ href: "/console/settings", label: "Back to settings" }}
        />
        {secret
          ? (
            <section class="card" aria-labelledby="token-use-heading">
              <h2 id="token-use-heading">Use it</h2>
              <pre id="token-example">{`curl ${base}/v1/account \\\n  -H "Authorization: Bearer ${secret}"`}</pre>
              <button type="button" data-copy="token-example" hidden>Copy</button>
            </section>
          )
          : null}
      </>,
      { title: "Personal access token", copyButtons: Boolean(secret) },
    );
  });

  app.post("/console/settings/tokens/revoke", async (c) => {
    const form = await readForm(c);
    const { memberId, accountId } = memberOf(c);
    const id = form.id ?? "";
    try {
      await consoleChange(gateway, {
        c,
        change: {
          route: "/console/settings/tokens/revoke",
          method: "POST",
          target: { kind: "access_token", id },
          readTarget: (tokenId) => tokens.get(memberId, accountId, tokenId),
          apply: () => tokens.revoke(memberId, accountId, id),
        },
      });
    } catch (error) {
      return await refused(c, error);
    }
    return await settingsPage(c, { tokens: { text: "The token is revoked." } });
  });
}
