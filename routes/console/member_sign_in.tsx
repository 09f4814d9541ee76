/**
 * A member's sign-in: the email and password form (on /console/sign-in, beside the token form),
 * and the second-factor step. Between the two steps the browser holds only a challenge cookie
 * (a single-use token, 10 minutes); a session is made once both steps pass, with a fresh id.
 */

import { Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Gateway } from "../../core/gateway.ts";
import { CHALLENGE_TTL_MS } from "../../core/members/invitations.ts";
import { type ConsoleContext, type ConsoleEnv, isHttps, safeNext } from "./console_env.ts";
import { beginSession, memberRole } from "./begin_session.ts";
import { Field } from "./field.tsx";
import { readForm } from "./form_body.ts";
import { formProblemOf, withProblemHeaders } from "./form_problem.ts";
import { renderPage } from "./render.tsx";
import { CsrfField } from "./layout.tsx";
import { signInPage } from "./sign_in.tsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";

const CHALLENGE_COOKIE = "console_challenge";
const CHALLENGE_PATH = "/console/sign-in";

export function MemberSignInForm(
  { next, problem, email }: { next: string; problem?: string; email?: string },
) {
  return (
    <section class="card" aria-labelledby="member-sign-in">
      <h2 id="member-sign-in">Member</h2>
      {problem ? <p class="error" role="alert">{problem}</p> : null}
      <form method="post" action="/console/sign-in">
        <input type="hidden" name="next" value={next} />
        <Field
          name="email"
          label="Email"
          type="email"
          autocomplete="username"
          value={email}
          required
          autofocus
        />
        <Field
          name="password"
          label="Password"
          type="password"
          autocomplete="current-password"
          required
        />
        <p>
          <button type="submit">Sign in with email</button>{" "}
          <a href="/console/forgot">Forgot password?</a>
        </p>
      </form>
    </section>
  );
}

const clientAddressOf = (c: ConsoleContext) => c.get("clientAddress") ?? "unknown";

async function signedIn(c: ConsoleContext, gateway: Gateway, memberId: string, next: string) {
  await beginSession(c, gateway, await memberRole(gateway, memberId));
  return c.redirect(next === "/console" ? "/console/account" : next, 303);
}

/** POST /console/sign-in with `email`: the first step. */
export async function memberSignIn(
  c: ConsoleContext,
  gateway: Gateway,
  form: Record<string, string>,
): Promise<Response> {
  const next = safeNext(form.next);
  let step;
  try {
    step = await gateway.members.signIn(
      { email: form.email, password: form.password },
      clientAddressOf(c),
    );
  } catch (error) {
    const problem = formProblemOf(error);
    return withProblemHeaders(
      signInPage(c, {
        next,
        memberProblem: problem.message,
        email: form.email,
        status: problem.status,
      }),
      problem,
    );
  }
  if (step.kind === "signed_in") return await signedIn(c, gateway, step.member.id, next);
  setCookie(c, CHALLENGE_COOKIE, step.challenge, {
    path: CHALLENGE_PATH,
    httpOnly: true,
    sameSite: "Strict",
    secure: isHttps(gateway, c.get("url")),
    maxAge: Math.floor(CHALLENGE_TTL_MS / 1000),
  });
  return c.redirect(`/console/sign-in/second-factor?next=${encodeURIComponent(next)}`, 303);
}

function SecondFactorForm(
  { c, next, problem }: { c: ConsoleContext; next: string; problem?: string },
) {
  return (
    <section class="card">
      {problem ? <p class="error" role="alert">{problem}</p> : null}
      <form method="post" action="/console/sign-in/second-factor">
        <CsrfField session={c.get("session")} />
        <input type="hidden" name="next" value={next} />
        <Field
          name="code"
          label="Code"
          autocomplete="one-time-code"
          hint="The 6-digit code of your authenticator app, or one of your recovery codes"
          required
          autofocus
        />
        <p>
          <button type="submit">Continue</button>
        </p>
      </form>
    </section>
  );
}

function secondFactorPage(
  c: ConsoleContext,
  next: string,
  problem?: string,
  status?: ContentfulStatusCode,
) {
  return renderPage(c, <SecondFactorForm c={c} next={next} problem={problem} />, {
    title: "Second factor",
    status,
  });
}

/** The second-factor step's page and form. */
export function secondFactorRoutes(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/sign-in/second-factor", async (c) => {
    const challenge = getCookie(c, CHALLENGE_COOKIE) ?? "";
    if (!(await gateway.members.challengeLive(challenge))) {
      return c.redirect("/console/sign-in", 303);
    }
    return secondFactorPage(c, safeNext(c.req.query("next")));
  });
  app.post("/console/sign-in/second-factor", async (c) => {
    const form = await readForm(c);
    const next = safeNext(form.next);
    const challenge = getCookie(c, CHALLENGE_COOKIE) ?? "";
    let member;
    try {
      member = await gateway.members.completeSignIn(challenge, form.code, clientAddressOf(c));
    } catch (error) {
      const problem = formProblemOf(error);
      if (problem.status === 404) return c.redirect("/console/sign-in", 303);
      return withProblemHeaders(
        secondFactorPage(c, next, problem.message, problem.status),
        problem,
      );
    }
    deleteCookie(c, CHALLENGE_COOKIE, { path: CHALLENGE_PATH });
    return await signedIn(c, gateway, member.id, next);
  });
  return app;
}
