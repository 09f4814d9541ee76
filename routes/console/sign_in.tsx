/**
 * Sign-in and sign-out. The admin token signs in as operator, a client key (`sk-gw-…`) as that
 * key's holder (a disabled or expired key is refused). A failed sign-in counts against the
 * client's address exactly like a failed API authentication (core/keys/auth_throttle.ts).
 */

import { Hono } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import type { Context } from "hono";
import type { ConsoleRole } from "../../core/console/session_store.ts";
import { GatewayError } from "../../core/errors.ts";
import type { Gateway } from "../../core/gateway.ts";
import { isAdminToken } from "../../core/keys/admin_token.ts";
import { checkIpAllowlist } from "../../core/keys/ip_allowlist.ts";
import { type AppEnv, authFailure } from "../middleware.ts";
import {
  type ConsoleContext,
  type ConsoleEnv,
  isHttps,
  safeNext,
  SESSION_COOKIE,
} from "./console_env.ts";
import { Field } from "./field.tsx";
import { readForm } from "./form_body.ts";
import { renderPage } from "./render.tsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";

function SignInForm({ next, problem }: { next: string; problem?: string }) {
  return (
    <section class="card">
      {problem ? <p class="error" role="alert">{problem}</p> : null}
      <p id="sign-in-help" class="muted">
        Sign in with the admin token to manage the gateway, or with your client key (sk-gw-…) to see
        your own key.
      </p>
      <form method="post" action="/console/sign-in">
        <input type="hidden" name="next" value={next} />
        <Field
          name="token"
          label="Token"
          type="password"
          autocomplete="current-password"
          required
          autofocus
        />
        <p>
          <button type="submit">Sign in</button>
        </p>
      </form>
    </section>
  );
}

function signInPage(
  c: ConsoleContext,
  { next, problem, status }: { next: string; problem?: string; status?: ContentfulStatusCode },
) {
  return renderPage(c, <SignInForm next={next} problem={problem} />, { title: "Sign in", status });
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
    const old = c.get("session");
    if (old) await gateway.consoleSessions.delete(old.id);
    const session = await gateway.consoleSessions.create(role);
    setCookie(c, SESSION_COOKIE, session.id, {
      path: "/console",
      httpOnly: true,
      sameSite: "Strict",
      secure: isHttps(gateway, c.get("url")),
      maxAge: Math.floor(gateway.consoleSessions.ttlMs / 1000),
    });
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
