/** The key holder's own key: balance, limits and window spend, expiry, SDK snippets. */

import { Hono } from "hono";
import type { Gateway } from "../../../core/gateway.ts";
import { baseUrlOf, type ConsoleEnv } from "../console_env.ts";
import { KeyFacts, SdkSnippets } from "../key_facts.tsx";
import { renderPage } from "../render.tsx";

export function myKeyPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/me", async (c) => {
    const role = c.get("session").role;
    if (role.kind !== "holder") return c.redirect("/console/keys", 303);
    const keyView = await gateway.keys.get(role.keyId);
    const base = baseUrlOf(gateway, c.get("url"));
    return renderPage(
      c,
      <>
        <section class="card" aria-labelledby="facts-heading">
          <h2 id="facts-heading">{keyView.name}</h2>
          <KeyFacts keyView={keyView} money={c.get("money")} />
          <details>
            <summary>Copy as curl</summary>
            <pre id="curl-me">{`curl '${base}/v1/me' \\\n  -H "Authorization: Bearer $GATEWAY_KEY"`}</pre>
            <button type="button" class="quiet" data-copy="curl-me" hidden>Copy</button>
          </details>
        </section>
        <SdkSnippets baseUrl={base} />
      </>,
      { title: "My key", copyButtons: true },
    );
  });
  return app;
}
