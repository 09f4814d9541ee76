/**
 * Self sign-up (GATEWAY_SIGNUP=1, off by default): with an invite code the operator made
 * (POST /admin/signup-codes), a person becomes the owner of a new account with a zero balance.
 * With sign-up off the page does not exist (404).
 */

import { Hono } from "hono";
import type { Gateway } from "../../../core/gateway.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { ConsoleContext, ConsoleEnv } from "../console_env.ts";
import { Field } from "../field.tsx";
import { readForm } from "../form_body.ts";
import { formProblemOf } from "../form_problem.ts";
import { CsrfField } from "../layout.tsx";
import { renderPage } from "../render.tsx";
import { beginSession } from "../begin_session.ts";
import type { ContentfulStatusCode } from "hono/utils/http-status";

function SignUpForm(
  { c, problem, form = {} }: { c: ConsoleContext; problem?: string; form?: Record<string, string> },
) {
  return (
    <section class="card">
      {problem ? <p class="error" role="alert">{problem}</p> : null}
      <form method="post" action="/console/sign-up">
        <CsrfField session={c.get("session")} />
        <Field name="code" label="Invite code" value={form.code} required autofocus />
        <Field name="name" label="Your name" autocomplete="name" value={form.name} required />
        <Field
          name="email"
          label="Email"
          type="email"
          autocomplete="username"
          value={form.email}
          required
        />
        <Field
          name="password"
          label="Password"
          type="password"
          autocomplete="new-password"
          hint="At least 10 characters"
          required
        />
        <p>
          <button type="submit">Sign up</button>
        </p>
      </form>
    </section>
  );
}

export function signUpPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  const members = gateway.members;
  app.use("/console/sign-up", async (_c, next) => {
    if (!members.signup) {
      throw new GatewayError("not_found", 404, "Self sign-up is not enabled on this gateway");
    }
    await next();
  });
  app.get("/console/sign-up", (c) => renderPage(c, <SignUpForm c={c} />, { title: "Sign up" }));
  app.post("/console/sign-up", async (c) => {
    const form = await readForm(c);
    let signedUp;
    try {
      const { email, name, password, code } = form;
      signedUp = await members.signUp({ email, name, password, code });
    } catch (error) {
      const problem = formProblemOf(error);
      return renderPage(c, <SignUpForm c={c} problem={problem.message} form={form} />, {
        title: "Sign up",
        status: problem.status as ContentfulStatusCode,
      });
    }
    await beginSession(c, gateway, {
      kind: "member",
      memberId: signedUp.member.id,
      accountId: signedUp.accountId,
    });
    return c.redirect("/console/account", 303);
  });
  return app;
}
