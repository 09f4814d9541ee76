/** What the key detail and My key pages both show: a key's limits and spend, and SDK snippets. */

import type { Gateway } from "../../core/gateway.ts";
import { sdkSnippets } from "./snippets.ts";
import type { ConsoleMoney } from "./money.tsx";

export type KeyView = Awaited<ReturnType<Gateway["keys"]["get"]>>;

/** Balance, limits, window spend and expiry as a definition list. */
export function KeyFacts({ keyView, money }: { keyView: KeyView; money: ConsoleMoney }) {
  const caps = keyView.spend_limits ?? {};
  const period = (name: "day" | "week" | "month") => {
    const cap = caps[name];
    const spent = money.amount(keyView.period_spend[name]);
    return cap === undefined ? <>{spent} (no cap)</> : <>{spent} of {money.amount(cap)}</>;
  };
  return (
    <dl class="facts">
      <dt>Balance</dt>
      <dd>{money.amount(keyView.balance)}</dd>
      <dt>State</dt>
      <dd>{keyView.enabled ? "enabled" : <span class="bad">disabled</span>}</dd>
      <dt>Prefix</dt>
      <dd>
        <code>{keyView.prefix}…</code>
      </dd>
      <dt>Group</dt>
      <dd>{keyView.group}</dd>
      <dt>Models</dt>
      <dd>{keyView.models ? keyView.models.join(", ") : "every model of the group"}</dd>
      <dt>IP allowlist</dt>
      <dd>{keyView.ip_allowlist ? keyView.ip_allowlist.join(", ") : "any address"}</dd>
      <dt>Expires</dt>
      <dd>{keyView.expires_at ?? "never"}</dd>
      <dt>Requests per minute</dt>
      <dd>{keyView.rpm ?? "no limit"}</dd>
      <dt>Tokens per minute</dt>
      <dd>{keyView.tpm ?? "no limit"}</dd>
      <dt>Credit limit</dt>
      <dd>{keyView.unlimited ? "unlimited" : money.amount(keyView.credit_limit)}</dd>
      <dt>Spent today</dt>
      <dd>{period("day")}</dd>
      <dt>Spent this week</dt>
      <dd>{period("week")}</dd>
      <dt>Spent this month</dt>
      <dd>{period("month")}</dd>
      <dt>Shortfall</dt>
      <dd>
        {money.amount(keyView.shortfall_total)}{" "}
        <span class="muted">(uncollected at the credit floor)</span>
      </dd>
      <dt>Last used</dt>
      <dd>{keyView.last_used_at ?? "never"}</dd>
    </dl>
  );
}

/** The OpenAI, Anthropic and Google SDK snippets for `baseUrl`, each with a copy button. */
export function SdkSnippets({ baseUrl, model }: { baseUrl: string; model?: string }) {
  return (
    <section class="card" aria-labelledby="snippets-heading">
      <h2 id="snippets-heading">Use the key</h2>
      <p>
        Base URL: <code>{baseUrl}</code>. Put the key in <code>GATEWAY_KEY</code>.
      </p>
      {sdkSnippets(baseUrl, model).map(({ sdk, code }, index) => (
        <>
          <h3>{sdk}</h3>
          <pre id={`snippet-${index}`}>{code}</pre>
          <button type="button" class="quiet" data-copy={`snippet-${index}`} hidden>Copy</button>
        </>
      ))}
    </section>
  );
}
