/**
 * The theme switch, a plain form (works without JS): remembers light, dark or system in a cookie
 * and goes back to the page it was posted from.
 */

import { Hono, type MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { Gateway } from "../../core/gateway.ts";
import {
  type ConsoleEnv,
  isHttps,
  safeNext,
  type Theme,
  THEME_COOKIE,
  THEMES,
} from "./console_env.ts";
import { readForm } from "./form_body.ts";

function themeOf(value: string | undefined): Theme {
  return THEMES.find((theme) => theme === value) ?? "system";
}

/** Sets `theme` from the cookie for the layout. */
export function readTheme(): MiddlewareHandler<ConsoleEnv> {
  return async function consoleTheme(c, next) {
    c.set("theme", themeOf(getCookie(c, THEME_COOKIE)));
    await next();
  };
}

export function themeRoutes(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.post("/console/theme", async (c) => {
    const form = await readForm(c);
    setCookie(c, THEME_COOKIE, themeOf(form.theme), {
      path: "/console",
      httpOnly: true,
      sameSite: "Strict",
      secure: isHttps(gateway, c.get("url")),
      maxAge: 365 * 86_400,
    });
    return c.redirect(safeNext(form.next), 303);
  });
  return app;
}
