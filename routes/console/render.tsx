/** Renders a console page in the layout, with the request's nonce, theme and session. */

import type { Child } from "hono/jsx";
import type { ConsoleContext } from "./console_env.ts";
import { Layout } from "./layout.tsx";
import { GatewayError } from "../../core/errors.ts";
import type { ContentfulStatusCode } from "hono/utils/http-status";

export interface PageOptions {
  title: string;
  status?: ContentfulStatusCode;
  copyButtons?: boolean;
}

/** The HTML response of a page whose content is `body`. */
export function renderPage(c: ConsoleContext, body: Child, options: PageOptions): Response {
  const page = (
    <Layout
      title={options.title}
      nonce={c.get("nonce")}
      theme={c.get("theme") ?? "system"}
      path={c.get("url").pathname}
      session={c.get("session")}
      accountRole={c.get("accountRole")}
      copyButtons={options.copyButtons}
    >
      {body}
    </Layout>
  );
  return c.html(`<!doctype html>${page}`, options.status ?? 200);
}

/** The page of an error: its status, and its message (messages never hold secrets). */
export function renderErrorPage(c: ConsoleContext, error: unknown): Response {
  const known = error instanceof GatewayError ? error : undefined;
  if (!known) {
    console.error(JSON.stringify({
      msg: "console error",
      request_id: c.get("context")?.id,
      error: error instanceof Error ? error.stack : String(error),
    }));
  }
  const status = (known?.status ?? 500) as ContentfulStatusCode;
  const title = status === 403
    ? "Not allowed"
    : status === 404
    ? "Not found"
    : status === 429
    ? "Too many attempts"
    : status >= 500
    ? "Something went wrong"
    : "Cannot do that";
  const response = renderPage(
    c,
    <p class="error" role="alert">{known?.message ?? "An internal error; it was logged"}</p>,
    { title, status },
  );
  for (const [name, value] of Object.entries(known?.headers ?? {})) {
    response.headers.set(name, value);
  }
  return response;
}
