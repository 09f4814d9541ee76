/**
 * Sign-in and sign-out. A member signs in with an email and a password (then the second factor,
 * member_sign_in.tsx); the admin token signs in as operator, a client key (`sk-gw-…`) as a
 * read-only view of that key (a disabled or expired key is refused). A failed token sign-in
 * counts against the client's address exactly like a failed API authentication
 * (core/keys/auth_throttle.ts); member sign-ins have their own throttle per email and address.
 */

import { Hono } from "hono";
import { deleteCookie } from "hono/cookie";
import type { Context } from "hono";
import type { ConsoleRole } from "../../core/console/session_store.ts";
import { GatewayError } from "../../core/errors.ts";
import type { Gateway } from "../../core/gateway.ts";
import { isAdminToken } from "../../core/keys/admin_token.ts";
import { checkIpAllowlist } from "../../core/keys/ip_allowlist.ts";
import { type AppEnv, authFailure } from "../middleware.ts";
import { type ConsoleContext, type ConsoleEnv, safeNext, SESSION_COOKIE } from "./console_env.ts";
import { beginSession } from "./begin_session.ts";
import { memberSignIn, MemberSignInForm } from "./member_sign_in.tsx";
import { Field } from "./field.tsx";
import { readForm } from "./form_body.ts";
import { renderPage } from "./render.tsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";

function SignInForm(
  { next, problem, memberProblem, email }: {
    next: string;
    problem?: string;
    memberProblem?: string;
    email?: string;
  },
) {
  return (
    <div class="panes">
      <MemberSignInForm next={next} problem={memberProblem} email={email} />
      <TokenSignInForm next={next} problem={problem} />
    </div>
  );
}

function TokenSignInForm({ next, problem }: { next: string; problem?: string }) {
  return (
    <section class="card" aria-labelledby="token-sign-in">
      <h2 id="token-sign-in">Operator or key</h2>
      {problem ? <p class="error" role="alert">{problem}</p> : null}
      <p id="sign-in-help" class="muted">
        Sign in with the admin token to manage the gateway, or with a client key (sk-gw-…) for a
        read-only view of that key.
      </p>
      <form method="post" action="/console/sign-in">
        <input type="hidden" name="next" value={next} />
        <Field
          name="token"
          label="Token"
          type="password"
          autocomplete="current-password"
          required
        />
        <p>
          <button type="submit">Sign in</button>
        </p>
      </form>
    </section>
  );
}

export function signInPage(
  c: ConsoleContext,
  { next, problem, memberProblem, email, status }: {
    next: string;
    problem?: string;
    memberProblem?: string;
    email?: string;
    status?: ContentfulStatusCode;
  },
) {
  return renderPage(
    c,
    <SignInForm next={next} problem={problem} memberProblem={memberProblem} email={email} />,
    { title: "Sign in", status },
  );
}

/**
 * Who `token` signs in as; throws the API's 401 (with `key_disabled`/`key_expired` where so), or
 * 403 `ip_not_allowed` for a key whose IP allowlist leaves out `address`.
 */
async function roleOf(
  gateway: Gateway,
  { token, adminTokenHash, address }: { token: string; adminTokenHash: string; address: string },
): Promise<ConsoleRole> {
  if (token.startsWith("sk-gw-")) {
    const key = await gateway.keys.authenticate(token);
    checkIpAllowlist(key, address);
    return { kind: "holder", keyId: key.id };
  }
  if (token && await isAdminToken(token, adminTokenHash)) return { kind: "operator" };
  throw new GatewayError("invalid_token", 401, "The token is not valid; check it and try again");
}

export function signInRoutes(gateway: Gateway, adminTokenHash: string) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/sign-in", (c) => {
    const next = safeNext(c.req.query("next"));
    if (c.get("session")) return c.redirect(next, 303);
    return signInPage(c, { next });
  });

  app.post("/console/sign-in", async (c) => {
    const form = await readForm(c);
    const next = safeNext(form.next);
    if (form.email !== undefined) return await memberSignIn(c, gateway, form);
    let role: ConsoleRole;
    try {
      role = await roleOf(gateway, {
        token: (form.token ?? "").trim(),
        adminTokenHash,
        address: c.get("clientAddress") ?? "unknown",
      });
    } catch (error) {
      if (!(error instanceof GatewayError) || error.status >= 500) throw error;
      const answer = authFailure(c as unknown as Context<AppEnv>, error);
      const problem = answer.status === 429
        ? answer.message
        : answer.code === "key_disabled"
        ? "This key is disabled; ask the operator to enable it"
        : answer.code === "key_expired"
        ? "This key has expired"
        : answer.code === "ip_not_allowed"
        ? answer.message
        : "The token is not valid; check it and try again";
      const response = signInPage(c, {
        next,
        problem,
        status: answer.status as ContentfulStatusCode,
      });
      for (const [name, value] of Object.entries(answer.headers)) {
        response.headers.set(name, value);
      }
      return response;
    }
    await beginSession(c, gateway, role);
    return c.redirect(role.kind === "holder" && next === "/console" ? "/console/me" : next, 303);
  });

  app.post("/console/sign-out", async (c) => {
    const session = c.get("session");
    if (session) await gateway.consoleSessions.delete(session.id);
    deleteCookie(c, SESSION_COOKIE, { path: "/console" });
    return c.redirect("/console/sign-in", 303);
  });
  return app;
}
