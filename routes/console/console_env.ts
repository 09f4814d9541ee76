/** What every console route shares: its Hono environment and the gateway's own origin. */

import type { Context } from "hono";
import type { ConsoleSession } from "../../core/console/session_store.ts";
import type { Gateway } from "../../core/gateway.ts";
import type { AppEnv } from "../middleware.ts";
import type { AccountRole } from "../../core/account_area/actor.ts";
import type { ConsoleMoney } from "./money.tsx";

export type ConsoleEnv = {
  Bindings: AppEnv["Bindings"];
  Variables: AppEnv["Variables"] & {
    /** This response's CSP nonce, for the one inline style and script. */
    nonce: string;
    /** The signed-in session (absent on the sign-in page). */
    session: ConsoleSession;
    /** light, dark, or system (follow `prefers-color-scheme`). */
    theme: Theme;
    /** On member pages: the member's role in the account they view (the nav shows it). */
    accountRole?: AccountRole;
    /** The operator's money format, the formatter of every amount on a page (money.tsx). */
    money: ConsoleMoney;
  };
};

export type ConsoleContext = Context<ConsoleEnv>;

export const THEMES = ["system", "light", "dark"] as const;
export type Theme = typeof THEMES[number];

/** The session cookie's name; its value is the session id, never a token. */
export const SESSION_COOKIE = "console_session";
export const THEME_COOKIE = "console_theme";

/** The gateway's own origin: GATEWAY_PUBLIC_URL's when set (behind a proxy), else the request's. */
export function ownOrigin(gateway: Gateway, url: URL): string {
  const publicUrl = gateway.options.publicUrl;
  return publicUrl ? new URL(publicUrl).origin : url.origin;
}

/** The base URL clients use, for snippets: GATEWAY_PUBLIC_URL, else the request's origin. */
export function baseUrlOf(gateway: Gateway, url: URL): string {
  return (gateway.options.publicUrl ?? url.origin).replace(/\/+$/, "");
}

/** Whether cookies must be `Secure`: the request came over HTTPS, or the public URL is https. */
export function isHttps(gateway: Gateway, url: URL): boolean {
  return url.protocol === "https:" || gateway.options.publicUrl?.startsWith("https:") === true;
}

/**
 * A console path to return to after sign-in; anything else (another site) becomes /console. It
 * goes into a `location` header, so only visible ASCII is taken (a console link is
 * percent-encoded): a CR LF, a control character, a space or non-ASCII text is dropped, never
 * written into the header.
 */
export function safeNext(next: string | undefined | null): string {
  return next && /^\/console(\/[^\\]*)?(\?.*)?$/.test(next) && /^[\x21-\x7e]+$/.test(next)
    ? next
    : "/console";
}
