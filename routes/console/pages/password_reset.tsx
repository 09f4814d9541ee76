/**
 * "Forgot password" and the reset page. Asking for a link answers the same whether or not the
 * email has a member (nothing tells who is a member); the link is mailed when SMTP is set up, and
 * otherwise the operator makes one (POST /admin/members/{id}/reset-link). A reset ends the
 * member's sessions.
 */

import { Hono } from "hono";
import type { Gateway } from "../../../core/gateway.ts";
import { baseUrlOf, type ConsoleEnv } from "../console_env.ts";
import { Field } from "../field.tsx";
import { readForm } from "../form_body.ts";
import { formProblemOf } from "../form_problem.ts";
import { CsrfField } from "../layout.tsx";
import { renderPage } from "../render.tsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ConsoleContext } from "../console_env.ts";

function ForgotForm({ c, problem }: { c: ConsoleContext; problem?: string }) {
  return (
    <section class="card">
      {problem ? <p class="error" role="alert">{problem}</p> : null}
      <form method="post" action="/console/forgot">
        <CsrfField session={c.get("session")} />
        <Field name="email" label="Email" type="email" autocomplete="username" required autofocus />
        <p>
          <button type="submit">Send a reset link</button>
        </p>
      </form>
    </section>
  );
}

function ResetForm(
  { c, token, problem }: { c: ConsoleContext; token: string; problem?: string },
) {
  return (
    <section class="card">
      {problem ? <p class="error" role="alert">{problem}</p> : null}
      <form method="post" action="/console/reset">
        <CsrfField session={c.get("session")} />
        <input type="hidden" name="token" value={token} />
        <Field
          name="password"
          label="New password"
          type="password"
          autocomplete="new-password"
          hint="At least 10 characters"
          required
          autofocus
        />
        <p>
          <button type="submit">Set password</button>
        </p>
      </form>
    </section>
  );
}

const expiredLink = (c: ConsoleContext) =>
  renderPage(
    c,
    <p class="error" role="alert">
      This link is not valid: it was used already, has expired, or was mistyped.{" "}
      <a href="/console/forgot">Ask for a new one</a>.
    </p>,
    { title: "Reset password", status: 404 },
  );

export function passwordResetPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get(
    "/console/forgot",
    (c) => renderPage(c, <ForgotForm c={c} />, { title: "Forgot password" }),
  );
  app.post("/console/forgot", async (c) => {
    const form = await readForm(c);
    try {
      await gateway.members.requestReset(form.email, baseUrlOf(gateway, c.get("url")));
    } catch (error) {
      const problem = formProblemOf(error);
      return renderPage(c, <ForgotForm c={c} problem={problem.message} />, {
        title: "Forgot password",
        status: problem.status,
      });
    }
    const how = gateway.members.mailer.configured
      ? "we have sent a link to set a new password. It works once, within an hour."
      : "ask the gateway's operator for a reset link (this gateway sends no mail).";
    return renderPage(
      c,
      <section class="card">
        <p class="notice" role="status">If this email belongs to a member, {how}</p>
        <p>
          <a href="/console/sign-in">Back to sign-in</a>
        </p>
      </section>,
      { title: "Forgot password" },
    );
  });
  app.get("/console/reset", async (c) => {
    const token = c.req.query("token") ?? "";
    if (!(await gateway.members.peekReset(token))) return expiredLink(c);
    return renderPage(c, <ResetForm c={c} token={token} />, { title: "Reset password" });
  });
  app.post("/console/reset", async (c) => {
    const form = await readForm(c);
    const token = form.token ?? "";
    let memberId: string;
    try {
      memberId = await gateway.members.resetPassword(token, form.password);
    } catch (error) {
      const problem = formProblemOf(error);
      if (problem.status === 404) return expiredLink(c);
      return renderPage(c, <ResetForm c={c} token={token} problem={problem.message} />, {
        title: "Reset password",
        status: problem.status as ContentfulStatusCode,
      });
    }
    await gateway.consoleSessions.endMemberSessions(memberId);
    return renderPage(
      c,
      <section class="card">
        <p class="notice" role="status">
          Your password is set. Every other session was signed out.
        </p>
        <p>
          <a href="/console/sign-in">Sign in</a>
        </p>
      </section>,
      { title: "Reset password" },
    );
  });
  return app;
}
