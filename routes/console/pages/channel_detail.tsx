/**
 * Operator's channel detail: facts and health, Disable/Enable, what the gateway disabled on its
 * own with Re-enable, edit, Test a model, and the
 * upstream keys (shown only by fingerprint; add one, replace all, remove one). Changes go through
 * the same service calls as /admin/channels and are audited as the console session's.
 */

import { Hono } from "hono";
import { describeKeyHint, FINGERPRINT_PATTERN } from "../../../core/channels/key_hint.ts";
import { GatewayError } from "../../../core/errors.ts";
import type { Gateway } from "../../../core/gateway.ts";
import {
  type ChannelProbeResult,
  channelProbeSchema,
  testChannel,
} from "../../admin/channel_test.ts";
import { validate } from "../../validation.ts";
import { channelKeysPatchOf } from "../channel_form.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { consoleChange } from "../console_change.ts";
import { readForm } from "../form_body.ts";
import { DataTable } from "../data_table.tsx";
import { Field } from "../field.tsx";
import { CopyAsCurl, CsrfField } from "../layout.tsx";
import { renderPage } from "../render.tsx";
import { SectionToc } from "../section_nav.tsx";
import { requireOperator } from "../session.ts";
import { adminCurl } from "../snippets.ts";
import { type ChannelView, healthColumns } from "./channels.tsx";
import { BreakersSection } from "../breaker_rows.tsx";
import { AutoDisabledTable, ChannelState } from "../auto_disabled.tsx";
import { modelsOnlyServedBy } from "../../../core/channels/sole_models.ts";
import { DeleteSection, ModelsSection, TestAllResults } from "../channel_sections.tsx";
import { nameBook } from "../name_links.tsx";
import { channelIdOf, consolePatchChannel } from "./channel_edit.tsx";

function TestResult({ result }: { result: ChannelProbeResult }) {
  return (
    <div role="status" class={result.ok ? "notice" : "error"}>
      <dl class="facts">
        <dt>Model</dt>
        <dd>{result.model}</dd>
        <dt>Call</dt>
        <dd>{result.call}</dd>
        <dt>Result</dt>
        <dd class={result.ok ? "ok" : "bad"}>{result.ok ? "ok" : "failed"}</dd>
        <dt>Upstream status</dt>
        <dd>{result.status ?? "no answer"}</dd>
        <dt>Latency</dt>
        <dd>{result.latency_ms} ms</dd>
        {result.error
          ? (
            <>
              <dt>Error</dt>
              <dd>{result.error_class ? `${result.error_class}: ` : ""}{result.error}</dd>
            </>
          )
          : null}
      </dl>
    </div>
  );
}

function KeysSection(
  { c, view, base }: { c: ConsoleContext; view: ChannelView; base: string },
) {
  const session = c.get("session");
  const action = `/console/channels/${view.id}/keys`;
  return (
    <section class="card" aria-labelledby="keys-heading">
      <h2 id="keys-heading">Upstream keys</h2>
      <p class="muted">Keys are never shown; each is named by its fingerprint.</p>
      <ul>
        {view.keys.map((hint) => (
          <li>
            <form method="post" action={action} class="row">
              <CsrfField session={session} />
              <input type="hidden" name="action" value="remove" />
              <input type="hidden" name="fingerprint" value={hint.fingerprint} />
              <code>{describeKeyHint(hint)}</code>
              {view.auto_disabled?.by_key[hint.fingerprint]
                ? <span class="bad">auto-disabled</span>
                : null}
              <button type="submit" class="quiet" aria-label={`Remove key ${hint.fingerprint}`}>
                Remove
              </button>
            </form>
          </li>
        ))}
      </ul>
      <form method="post" action={action} class="row">
        <CsrfField session={session} />
        <input type="hidden" name="action" value="add" />
        <Field
          name="key"
          id="add-key"
          label="Add a key"
          type="password"
          autocomplete="off"
          required
        />
        <div>
          <button type="submit">Add key</button>
        </div>
      </form>
      <form method="post" action={action}>
        <CsrfField session={session} />
        <input type="hidden" name="action" value="replace" />
        <Field
          name="keys"
          id="replace-keys"
          label="Replace all keys"
          rows={3}
          autocomplete="off"
          hint="one key per line"
          required
        />
        <p>
          <button type="submit" class="danger">Replace keys</button>
        </p>
      </form>
      <CopyAsCurl
        id="curl-keys"
        curl={adminCurl(base, {
          method: "PATCH",
          path: `/admin/channels/${view.id}`,
          body: { add_keys: ["$UPSTREAM_KEY"] },
        })}
      />
    </section>
  );
}

export async function channelDetailPage(
  gateway: Gateway,
  options: {
    c: ConsoleContext;
    id: string;
    problem?: string;
    test?: ChannelProbeResult;
    tests?: ChannelProbeResult[];
    status?: 400 | 409;
  },
) {
  const { c, id, problem, test, tests } = options;
  const view = await gateway.registry.channelView(await gateway.registry.getChannel(id));
  const health = await gateway.channelHealth.read(id);
  const breakers = await gateway.breakers.view(await gateway.registry.openChannel(id));
  const base = baseUrlOf(gateway, c.get("url"));
  const path = `/admin/channels/${id}`;
  return renderPage(
    c,
    <>
      {problem ? <p class="error" role="alert">{problem}</p> : null}
      <SectionToc
        sections={[
          ["facts-heading", "Channel"],
          ["breakers-heading", "Breakers"],
          ...(view.auto_disabled ? [["auto-heading", "Disabled by the gateway"] as const] : []),
          ["models-heading", "Models"],
          ["test-heading", "Test"],
          ["keys-heading", "Upstream keys"],
          ["delete-heading", "Delete"],
        ]}
      />
      <section class="card" aria-labelledby="facts-heading">
        <h2 id="facts-heading">Channel</h2>
        <dl class="facts">
          <dt>Id</dt>
          <dd>
            <code>{view.id}</code>
          </dd>
          <dt>Type</dt>
          <dd>{view.type}</dd>
          <dt>State</dt>
          <dd>
            <ChannelState view={view} />
          </dd>
          <dt>Source</dt>
          <dd>{view.source === "config" ? "config file (changes are refused)" : "admin"}</dd>
        </dl>
        <p class="row">
          <a href={`/console/channels/${id}/edit`} class="button">Edit settings</a>
          <a href={`/console/channels/new?from=${id}`} class="button">Clone</a>
        </p>
        <DataTable
          caption={`Health over the last ${health.window_minutes} minutes`}
          captionClass="muted"
          rows={[health]}
          columns={healthColumns((row: typeof health) => row)}
        />
        <form method="post" action={`/console/channels/${id}/enabled`} class="row">
          <CsrfField session={c.get("session")} />
          {view.enabled
            ? <button type="submit" class="danger" name="enabled" value="false">Disable</button>
            : <button type="submit" name="enabled" value="true">Enable</button>}
        </form>
        <CopyAsCurl
          id="curl-enabled"
          curl={adminCurl(base, { method: "PATCH", path, body: { enabled: !view.enabled } })}
        />
      </section>
      <BreakersSection c={c} channelId={id} view={breakers} />
      {view.auto_disabled
        ? (
          <section class="card" aria-labelledby="auto-heading">
            <h2 id="auto-heading">Disabled by the gateway</h2>
            <p class="muted">
              Keys the upstream refused (401/403) in a row, or the whole channel after failing for
              too long. Recovery probes (the Test call, never billed) enable them again when they
              answer; Re-enable clears them now. The Enable/Disable switch above is yours alone.
            </p>
            <AutoDisabledTable marks={view.auto_disabled} keys={view.keys} />
            <form method="post" action={`/console/channels/${id}/reenable`} class="row">
              <CsrfField session={c.get("session")} />
              <button type="submit">Re-enable</button>
            </form>
            <CopyAsCurl
              id="curl-reenable"
              curl={adminCurl(base, { method: "PATCH", path, body: { clear_auto_disabled: true } })}
            />
          </section>
        )
        : null}
      <ModelsSection c={c} view={view} book={await nameBook(gateway)} />
      <section class="card" aria-labelledby="test-heading">
        <h2 id="test-heading">Test</h2>
        <p class="muted">
          One minimal real call of the model's kind, never billed by the gateway: a text model gets
          one short turn; an image model draws one 1024x1024 image (which the upstream bills); a
          video model gets a call that makes no task.
        </p>
        {test ? <TestResult result={test} /> : null}
        {tests ? <TestAllResults results={tests} /> : null}
        <form method="post" action={`/console/channels/${id}/test-all`} class="row">
          <CsrfField session={c.get("session")} />
          <button type="submit">Test every model</button>
          <span class="muted">one call per model, one after another</span>
        </form>
        <form method="post" action={`/console/channels/${id}/test`} class="row">
          <CsrfField session={c.get("session")} />
          <Field
            name="model"
            id="test-model"
            label="Model"
            value={test?.model}
            options={view.models.map((model) => [model, model] as const)}
          />
          <div>
            <button type="submit">Test</button>
          </div>
        </form>
        <CopyAsCurl
          id="curl-test"
          curl={adminCurl(base, {
            method: "POST",
            path: `${path}/test`,
            body: { model: test?.model ?? view.models[0] },
          })}
        />
      </section>
      <KeysSection c={c} view={view} base={base} />
      <DeleteSection
        c={c}
        view={view}
        unserved={modelsOnlyServedBy(gateway.registry.channels, id)}
      />
    </>,
    {
      title: `Channel ${view.name}`,
      copyButtons: true,
      status: problem ? options.status ?? 400 : 200,
    },
  );
}

/** Applies a PATCH from a form; a 400 re-renders the page with the problem. */
async function patchChannel(
  gateway: Gateway,
  { c, id, body }: { c: ConsoleContext; id: string; body: Record<string, unknown> },
) {
  try {
    await consolePatchChannel(gateway, { c, id, body });
  } catch (error) {
    if (error instanceof GatewayError && error.status === 400) {
      return channelDetailPage(gateway, { c, id, problem: error.message });
    }
    throw error;
  }
  return c.redirect(`/console/channels/${id}`, 303);
}

export function channelDetailPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.use("/console/channels/:id/*", requireOperator());
  app.get(
    "/console/channels/:id",
    requireOperator(),
    (c) => channelDetailPage(gateway, { c, id: channelIdOf(c) }),
  );
  app.post("/console/channels/:id/enabled", async (c) => {
    const id = channelIdOf(c);
    const form = await readForm(c);
    return patchChannel(gateway, { c, id, body: { enabled: form.enabled === "true" } });
  });
  app.post("/console/channels/:id/reenable", (c) => {
    const id = channelIdOf(c);
    return patchChannel(gateway, { c, id, body: { clear_auto_disabled: true } });
  });
  app.post("/console/channels/:id/keys", async (c) => {
    const id = channelIdOf(c);
    return patchChannel(gateway, { c, id, body: channelKeysPatchOf(await readForm(c)) });
  });
  app.post("/console/channels/:id/breakers/reset", async (c) => {
    const id = channelIdOf(c);
    const form = await readForm(c);
    const key = typeof form.key === "string" && FINGERPRINT_PATTERN.test(form.key)
      ? form.key
      : undefined;
    await consoleChange(gateway, {
      c,
      change: {
        route: "/admin/channels/:id/breakers/reset",
        method: "POST",
        target: { kind: "channel", id },
        readTarget: async (target) =>
          gateway.breakers.view(await gateway.registry.openChannel(target)),
        apply: () => gateway.breakers.reset(id, key),
      },
    });
    return c.redirect(`/console/channels/${id}`, 303);
  });
  app.post("/console/channels/:id/test-all", async (c) => {
    const id = channelIdOf(c);
    const channel = await gateway.registry.openChannel(id);
    const tests: ChannelProbeResult[] = [];
    // One after another: a burst of calls would be judged by the upstream's rate limits.
    for (const model of new Set(channel.models)) {
      tests.push(await testChannel(gateway, { channel, model, signal: c.req.raw.signal }));
    }
    return channelDetailPage(gateway, { c, id, tests });
  });
  app.post("/console/channels/:id/delete", async (c) => {
    const id = channelIdOf(c);
    const form = await readForm(c);
    if (form.confirm !== "on") {
      return channelDetailPage(gateway, {
        c,
        id,
        problem: "Tick the box to confirm the deletion; nothing was deleted",
      });
    }
    try {
      await consoleChange(gateway, {
        c,
        change: {
          route: "/admin/channels/:id",
          method: "DELETE",
          target: { kind: "channel", id },
          readTarget: async (target) =>
            gateway.registry.channelView(await gateway.registry.getChannel(target)),
          apply: () => gateway.registry.deleteChannel(id),
          outcomeOf: () => ({ status: 204 }),
        },
      });
    } catch (error) {
      if (error instanceof GatewayError && error.status === 409) {
        return channelDetailPage(gateway, { c, id, problem: error.message, status: 409 });
      }
      throw error;
    }
    return c.redirect("/console/channels?deleted=1", 303);
  });
  app.post("/console/channels/:id/test", async (c) => {
    const id = channelIdOf(c);
    const form = await readForm(c);
    let test: ChannelProbeResult;
    try {
      const input = validate(channelProbeSchema, { model: form.model || undefined });
      const channel = await gateway.registry.openChannel(id);
      test = await testChannel(gateway, { channel, model: input.model, signal: c.req.raw.signal });
    } catch (error) {
      if (error instanceof GatewayError && error.status === 400) {
        return channelDetailPage(gateway, { c, id, problem: error.message });
      }
      throw error;
    }
    return channelDetailPage(gateway, { c, id, test });
  });
  return app;
}
