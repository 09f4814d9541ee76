/**
 * Pages still to be built, clearly marked, with the admin API call that does the job today:
 * the operator's Channels, Requests, Tasks, Models and Audit, and the holder's
 * Requests and Tasks.
 */

import { Hono } from "hono";
import type { Gateway } from "../../../core/gateway.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { requireOperator } from "../session.ts";
import { renderPage } from "../render.tsx";
import { adminCurl } from "../snippets.ts";
import { CopyAsCurl } from "../layout.tsx";

interface ComingPage {
  path: string;
  title: string;
  what: string;
  /** The admin API path that serves it today. */
  api: string;
}

const OPERATOR_PAGES: ComingPage[] = [];

const SHARED_PAGES: ComingPage[] = [];

function comingPage(gateway: Gateway, { c, page }: { c: ConsoleContext; page: ComingPage }) {
  const holder = c.get("session").role.kind === "holder";
  const base = baseUrlOf(gateway, c.get("url"));
  const curl = holder
    ? `curl '${base}/v1/me${
      page.api.replace("/admin", "")
    }' \\\n  -H "Authorization: Bearer $GATEWAY_KEY"`
    : adminCurl(base, { method: "GET", path: page.api });
  return renderPage(
    c,
    <section class="card">
      <p class="notice">
        <strong>Coming:</strong> this page is not built yet. It will show: {page.what}.
      </p>
      <p>Until then the API answers it:</p>
      <CopyAsCurl id="curl-coming" curl={curl} />
    </section>,
    { title: page.title, copyButtons: true },
  );
}

export function comingPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  for (const page of OPERATOR_PAGES) {
    app.get(page.path, requireOperator(), (c) => comingPage(gateway, { c, page }));
  }
  for (const page of SHARED_PAGES) {
    app.get(page.path, (c) => comingPage(gateway, { c, page }));
  }
  return app;
}
