/**
 * The operator's global search (`/console/search?q=`, the box in the top bar): the exact id of a
 * key, account, request, task or channel goes straight to its page (303); anything else lists the
 * keys (by name, id or the secret's visible prefix: never by the secret itself), accounts,
 * channels and models it matches, by kind, each linked. Operator only: members are refused by the
 * member guard, key holders here.
 */

import { Hono } from "hono";
import { GatewayError } from "../../../core/errors.ts";
import type { Gateway } from "../../../core/gateway.ts";
import {
  accountNames,
  accountSummaries,
  type AccountSummary,
  keyNames,
  keySummaries,
  type KeySummary,
} from "../../../core/console/directory.ts";
import { hasIdShape, invalidQueryParameter, queryValue } from "../../params.ts";
import type { ConsoleContext, ConsoleEnv } from "../console_env.ts";
import { DataTable } from "../data_table.tsx";
import { renderPage } from "../render.tsx";
import { requireOperator } from "../session.ts";
import {
  accountHref,
  channelHref,
  keyHref,
  modelPageHref,
  requestHref,
  taskHref,
} from "../name_links.tsx";

/** Matches listed per kind at most. */
export const SEARCH_LIMIT = 20;
const MAX_QUERY_CHARS = 200;
/** An API key's secret (`sk-gw-` and 43 letters and digits): never a search term. */
const SECRET_SHAPE = /^sk-gw-[0-9A-Za-z]{5,}/;
const REQUEST_ID = /^req_[0-9A-Za-z]{1,64}$/;

/** The search term: trimmed, present, short, and no key's secret. */
export function searchTerm(url: URL): string {
  // A prefix copied from a list keeps its ellipsis.
  const q = queryValue(url, "q")?.trim().replace(/…$/, "") ?? "";
  if (!q) throw invalidQueryParameter("q", "is empty: type a name or an id to search for");
  if (q.length > MAX_QUERY_CHARS) {
    throw invalidQueryParameter("q", `must be at most ${MAX_QUERY_CHARS} characters`);
  }
  if (SECRET_SHAPE.test(q)) {
    throw new GatewayError(
      "invalid_request",
      400,
      "That looks like a key's secret, which the console never searches by: search by the " +
        "key's name, its id or the visible prefix shown in lists (its first 10 characters)",
      { param: "q" },
    );
  }
  return q;
}

/** The page of the record whose exact id `q` is, if there is one. */
async function exactPage(gateway: Gateway, q: string): Promise<string | undefined> {
  if (hasIdShape(q, "key") && (await keyNames(gateway.kv, [q])).has(q)) return keyHref(q);
  if (hasIdShape(q, "account") && (await accountNames(gateway.kv, [q])).has(q)) {
    return accountHref(q);
  }
  if (REQUEST_ID.test(q) && await gateway.requestLog.get(q)) return requestHref(q);
  if (hasIdShape(q, "task") && await gateway.tasks.get(q)) return taskHref(q);
  if (gateway.registry.channels.some((channel) => channel.id === q)) return channelHref(q);
  return undefined;
}

export interface SearchMatches {
  keys: KeySummary[];
  accounts: AccountSummary[];
  channels: Array<{ id: string; name: string; enabled: boolean }>;
  models: Array<{ id: string; kind: string }>;
}

/** Whether `text` holds `q`, ignoring case. */
function holds(text: string, q: string): boolean {
  return text.toLowerCase().includes(q.toLowerCase());
}

/** What `q` matches of each kind, SEARCH_LIMIT at most. */
async function matchesOf(gateway: Gateway, q: string): Promise<SearchMatches> {
  const keys = await keySummaries(gateway.kv, {
    limit: SEARCH_LIMIT,
    // The visible prefix matches from its start; the secret itself is never compared.
    match: (key) => holds(key.name, q) || key.id === q || key.prefix.startsWith(q),
  });
  const accounts = await accountSummaries(gateway.kv, {
    limit: SEARCH_LIMIT,
    match: (account) => holds(account.name, q) || account.id === q,
  });
  const channels = gateway.registry.channels
    .filter((channel) => holds(channel.name, q) || holds(channel.id, q))
    .slice(0, SEARCH_LIMIT)
    .map(({ id, name, enabled }) => ({ id, name, enabled }));
  const models = gateway.registry.models
    .filter((model) => holds(model.id, q))
    .slice(0, SEARCH_LIMIT)
    .map(({ id, kind }) => ({ id, kind }));
  return { keys, accounts, channels, models };
}

function State({ enabled }: { enabled: boolean }) {
  return enabled ? <>enabled</> : <span class="bad">disabled</span>;
}

function Results({ matches }: { matches: SearchMatches }) {
  const { keys, accounts, channels, models } = matches;
  return (
    <>
      <section class="card" aria-labelledby="keys-heading">
        <h2 id="keys-heading">Keys ({keys.length})</h2>
        <DataTable
          rows={keys}
          empty="No key matches."
          columns={[
            { header: "Name", cell: (key) => <a href={keyHref(key.id)}>{key.name}</a> },
            { header: "Id", cell: (key) => <code>{key.id}</code> },
            { header: "Prefix", cell: (key) => <code>{key.prefix}…</code> },
            { header: "State", cell: (key) => <State enabled={key.enabled} /> },
          ]}
        />
      </section>
      <section class="card" aria-labelledby="accounts-heading">
        <h2 id="accounts-heading">Accounts ({accounts.length})</h2>
        <DataTable
          rows={accounts}
          empty="No account matches."
          columns={[
            {
              header: "Name",
              cell: (account) => <a href={accountHref(account.id)}>{account.name}</a>,
            },
            { header: "Id", cell: (account) => <code>{account.id}</code> },
            { header: "State", cell: (account) => <State enabled={account.enabled} /> },
          ]}
        />
      </section>
      <section class="card" aria-labelledby="channels-heading">
        <h2 id="channels-heading">Channels ({channels.length})</h2>
        <DataTable
          rows={channels}
          empty="No channel matches."
          columns={[
            {
              header: "Name",
              cell: (channel) => <a href={channelHref(channel.id)}>{channel.name}</a>,
            },
            { header: "Id", cell: (channel) => <code>{channel.id}</code> },
            { header: "State", cell: (channel) => <State enabled={channel.enabled} /> },
          ]}
        />
      </section>
      <section class="card" aria-labelledby="models-heading">
        <h2 id="models-heading">Models ({models.length})</h2>
        <DataTable
          rows={models}
          empty="No model matches."
          columns={[
            {
              header: "Model",
              cell: (model) => (
                <a href={modelPageHref(model.id)}>
                  <code>{model.id}</code>
                </a>
              ),
            },
            { header: "Kind", cell: (model) => model.kind },
          ]}
        />
      </section>
    </>
  );
}

async function searchPage(gateway: Gateway, c: ConsoleContext) {
  const q = searchTerm(c.get("url"));
  const exact = await exactPage(gateway, q);
  if (exact) return c.redirect(exact, 303);
  const matches = await matchesOf(gateway, q);
  const idLike = REQUEST_ID.test(q) || hasIdShape(q, "task") || hasIdShape(q, "key") ||
    hasIdShape(q, "account");
  return renderPage(
    c,
    <>
      <form method="get" action="/console/search" class="row card" role="search">
        <div>
          <label for="search-q">Search</label>
          <input type="search" id="search-q" name="q" value={q} />
        </div>
        <div>
          <button type="submit">Search</button>
        </div>
      </form>
      {idLike
        ? (
          <p class="notice">
            No record has the id <code>{q}</code> (a request is kept for the log's retention only).
          </p>
        )
        : null}
      <Results matches={matches} />
    </>,
    { title: `Search: ${q}` },
  );
}

export function searchPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/search", requireOperator(), (c) => searchPage(gateway, c));
  return app;
}
