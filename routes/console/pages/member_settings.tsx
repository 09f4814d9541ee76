/**
 * A member's settings: change the password, set up or turn off the second factor (its secret and
 * recovery codes are shown once), the member's sessions with "Sign out everywhere else", and
 * personal access tokens for the account API (member_access_tokens.tsx).
 */

import { Hono } from "hono";
import type { Gateway } from "../../../core/gateway.ts";
import type { MemberSessionInfo } from "../../../core/console/session_store.ts";
import type { ConsoleContext, ConsoleEnv } from "../console_env.ts";
import { DataTable } from "../data_table.tsx";
import { Field } from "../field.tsx";
import { readForm } from "../form_body.ts";
import { formProblemOf } from "../form_problem.ts";
import { CsrfField } from "../layout.tsx";
import { renderPage } from "../render.tsx";
import { memberOf } from "./member_account.tsx";
import {
  AccessTokensCard,
  serveAccessTokenForms,
  type TokensNotice,
  tokensOf,
} from "./member_access_tokens.tsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";

interface Notice {
  text: string;
  error?: boolean;
}

function NoticeLine({ notice }: { notice?: Notice }) {
  if (!notice) return null;
  return notice.error
    ? <p class="error" role="alert">{notice.text}</p>
    : <p class="notice" role="status">{notice.text}</p>;
}

function PasswordCard({ c, notice }: { c: ConsoleContext; notice?: Notice }) {
  return (
    <section class="card" aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <NoticeLine notice={notice} />
      <form method="post" action="/console/settings/password">
        <CsrfField session={c.get("session")} />
        <Field
          name="current_password"
          label="Current password"
          type="password"
          autocomplete="current-password"
          required
        />
        <Field
          name="new_password"
          label="New password"
          type="password"
          autocomplete="new-password"
          hint="At least 10 characters"
          required
        />
        <p>
          <button type="submit">Change password</button>
        </p>
      </form>
    </section>
  );
}

function SecondFactorCard(
  { c, enabled, left, notice }: {
    c: ConsoleContext;
    enabled: boolean;
    left: number;
    notice?: Notice;
  },
) {
  return (
    <section class="card" aria-labelledby="totp-heading">
      <h2 id="totp-heading">Second factor</h2>
      <NoticeLine notice={notice} />
      {enabled
        ? (
          <>
            <p>
              On: sign-in asks for an authenticator code. Recovery codes left: {left}.
            </p>
            <form method="post" action="/console/settings/totp/disable">
              <CsrfField session={c.get("session")} />
              <Field
                name="password"
                id="totp-password"
                label="Password"
                type="password"
                autocomplete="current-password"
                required
              />
              <p>
                <button type="submit" class="danger">Turn off the second factor</button>
              </p>
            </form>
          </>
        )
        : (
          <form method="post" action="/console/settings/totp/start">
            <CsrfField session={c.get("session")} />
            <p>Off. Add an authenticator app (TOTP) for a code at each sign-in.</p>
            <button type="submit">Set up the second factor</button>
          </form>
        )}
    </section>
  );
}

function SessionsCard(
  { c, sessions, notice }: { c: ConsoleContext; sessions: MemberSessionInfo[]; notice?: Notice },
) {
  return (
    <section class="card" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Sessions</h2>
      <NoticeLine notice={notice} />
      <DataTable
        rows={sessions}
        empty="No session."
        columns={[
          { header: "Session", cell: (s) => <code>{s.label}</code> },
          { header: "Signed in", cell: (s) => s.created_at },
          { header: "Expires", cell: (s) => s.expires_at },
          { header: "", cell: (s) => s.current ? "this one" : "" },
        ]}
      />
      <form method="post" action="/console/settings/sign-out-others">
        <CsrfField session={c.get("session")} />
        <p>
          <button type="submit">Sign out everywhere else</button>
        </p>
      </form>
    </section>
  );
}

function EnrolCard(
  { c, secret, uri, problem }: { c: ConsoleContext; secret: string; uri: string; problem?: string },
) {
  return (
    <section class="card" aria-labelledby="enrol-heading">
      <h2 id="enrol-heading">Set up the second factor</h2>
      <p class="notice">
        Add this to your authenticator app (open the link on a phone, or type the key), then enter
        the code it shows. Keep the key secret.
      </p>
      <p>
        <a href={uri} id="totp-uri">{uri}</a>
      </p>
      <p>
        Key: <code id="totp-secret" class="secret">{secret}</code>
      </p>
      {problem ? <p class="error" role="alert">{problem}</p> : null}
      <form method="post" action="/console/settings/totp/confirm">
        <CsrfField session={c.get("session")} />
        <Field
          name="code"
          label="Code from the app"
          autocomplete="one-time-code"
          inputmode="numeric"
          required
          autofocus
        />
        <p>
          <button type="submit">Turn on</button>
        </p>
      </form>
    </section>
  );
}

export function memberSettingsPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  const members = gateway.members;

  async function settingsPage(
    c: ConsoleContext,
    notices: { password?: Notice; totp?: Notice; sessions?: Notice; tokens?: TokensNotice } = {},
    status?: ContentfulStatusCode,
  ) {
    const { memberId, accountId } = memberOf(c);
    const member = await members.view(memberId);
    const sessions = await gateway.consoleSessions.ofMember(memberId, c.get("session").id);
    const tokens = await tokensOf(gateway, c);
    return renderPage(
      c,
      <>
        <p class="muted">
          Signed in as {member.name} &lt;{member.email}&gt;
        </p>
        <PasswordCard c={c} notice={notices.password} />
        <SecondFactorCard
          c={c}
          enabled={member.totp_enabled}
          left={member.recovery_codes_left}
          notice={notices.totp}
        />
        <SessionsCard c={c} sessions={sessions} notice={notices.sessions} />
        <AccessTokensCard
          c={c}
          tokens={tokens}
          accountId={accountId}
          notice={notices.tokens}
        />
      </>,
      { title: "Settings", status },
    );
  }

  app.get("/console/settings", (c) => settingsPage(c));
  serveAccessTokenForms(app, gateway, settingsPage);
  app.post("/console/settings/password", async (c) => {
    const form = await readForm(c);
    try {
      await members.changePassword(memberOf(c).memberId, form.current_password, form.new_password);
    } catch (error) {
      const problem = formProblemOf(error);
      return await settingsPage(
        c,
        { password: { text: problem.message, error: true } },
        problem.status,
      );
    }
    return await settingsPage(c, { password: { text: "Your password is changed." } });
  });
  app.post("/console/settings/totp/start", async (c) => {
    const { secret, uri } = await members.startTotp(memberOf(c).memberId);
    return renderPage(c, <EnrolCard c={c} secret={secret} uri={uri} />, {
      title: "Second factor",
    });
  });
  app.post("/console/settings/totp/confirm", async (c) => {
    const form = await readForm(c);
    const { memberId } = memberOf(c);
    let codes: string[];
    try {
      codes = await members.confirmTotp(memberId, form.code);
    } catch (error) {
      const problem = formProblemOf(error);
      const pending = await members.pendingTotp(memberId);
      if (!pending) {
        return await settingsPage(
          c,
          { totp: { text: problem.message, error: true } },
          problem.status,
        );
      }
      return renderPage(c, <EnrolCard c={c} {...pending} problem={problem.message} />, {
        title: "Second factor",
        status: problem.status,
      });
    }
    return renderPage(
      c,
      <section class="card" aria-labelledby="codes-heading">
        <h2 id="codes-heading">Recovery codes</h2>
        <p class="notice">
          The second factor is on. Keep these recovery codes somewhere safe: each works once, in
          place of a code, and they are shown this once.
        </p>
        <pre id="recovery-codes">{codes.join("\n")}</pre>
        <button type="button" data-copy="recovery-codes" hidden>Copy</button>
        <p>
          <a href="/console/settings">Back to settings</a>
        </p>
      </section>,
      { title: "Second factor", copyButtons: true },
    );
  });
  app.post("/console/settings/totp/disable", async (c) => {
    const form = await readForm(c);
    try {
      await members.disableTotp(memberOf(c).memberId, form.password);
    } catch (error) {
      const problem = formProblemOf(error);
      return await settingsPage(
        c,
        { totp: { text: problem.message, error: true } },
        problem.status,
      );
    }
    return await settingsPage(c, { totp: { text: "The second factor is off." } });
  });
  app.post("/console/settings/sign-out-others", async (c) => {
    const ended = await gateway.consoleSessions.endMemberSessions(
      memberOf(c).memberId,
      c.get("session").id,
    );
    return await settingsPage(c, {
      sessions: { text: `Signed out ${ended} other session${ended === 1 ? "" : "s"}.` },
    });
  });
  return app;
}
