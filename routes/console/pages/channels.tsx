/**
 * Operator's channels: the list with each channel's breaker, health (success rate, p50 latency,
 * last error over the health window) and what the gateway disabled on its own, through the same
 * service calls as GET /admin/channels.
 */

import { Hono } from "hono";
import type { Gateway } from "../../../core/gateway.ts";
import type { ChannelHealthView } from "../../../core/telemetry/channel_health.ts";
import { channelNotFound, listed, listOptions } from "../../admin/shared.ts";
import { hasIdShape } from "../../params.ts";
import { readForm, readFormValues } from "../form_body.ts";
import { formProblemOf } from "../form_problem.ts";
import { consolePatchChannel } from "./channel_edit.tsx";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { type Column, DataTable } from "../data_table.tsx";
import { breakerCell } from "../breaker_rows.tsx";
import type { ChannelBreakersView } from "../../../core/channels/breaker_board.ts";
import { CopyAsCurl, CsrfField } from "../layout.tsx";
import { listQuery } from "../list_query.ts";
import { renderPage } from "../render.tsx";
import { requireOperator } from "../session.ts";
import { adminCurl } from "../snippets.ts";
import { ChannelState } from "../auto_disabled.tsx";

export type ChannelView = Awaited<ReturnType<Gateway["registry"]["channelView"]>>;

/** The health columns: success rate (a dash when nothing was served), p50 latency, last error. */
export function healthColumns<Row>(healthOf: (row: Row) => ChannelHealthView): Column<Row>[] {
  return [
    {
      header: "Success",
      cell: (row) => {
        const health = healthOf(row);
        return health.success_rate === null
          ? <span class="muted">no requests</span>
          : `${(health.success_rate * 100).toFixed(1)}% of ${health.requests}`;
      },
    },
    {
      header: "p50",
      cell: (row) => {
        const { p50_latency_ms } = healthOf(row);
        return p50_latency_ms === null ? "—" : `${p50_latency_ms} ms`;
      },
    },
    {
      header: "Last error",
      cell: (row) => {
        const health = healthOf(row);
        return health.last_error
          ? <span class="bad">{health.last_error_at}: {health.last_error}</span>
          : <span class="muted">none</span>;
      },
    },
  ];
}

type ChannelRow = {
  view: ChannelView;
  health: ChannelHealthView;
  breakers: ChannelBreakersView;
};

function ChannelRows({ channels }: { channels: ChannelRow[] }) {
  return (
    <DataTable
      rows={channels}
      empty="No channel yet."
      columns={[
        {
          header: "Select",
          cell: ({ view }) => (
            <input
              type="checkbox"
              name="id"
              value={view.id}
              aria-label={`Select ${view.name}`}
            />
          ),
        },
        {
          header: "Name",
          cell: ({ view }) => <a href={`/console/channels/${view.id}`}>{view.name}</a>,
        },
        { header: "Type", cell: ({ view }) => view.type },
        { header: "Models", cell: ({ view }) => view.models.join(", ") },
        {
          header: "Priority / weight",
          cell: ({ view }) => <>{view.priority} / {view.weight}</>,
        },
        { header: "State", cell: ({ view }) => <ChannelState view={view} /> },
        { header: "Breaker", cell: ({ breakers }) => breakerCell(breakers) },
        ...healthColumns((row: ChannelRow) => row.health),
      ]}
    />
  );
}

async function channelsPage(
  gateway: Gateway,
  c: ConsoleContext,
  shown: { problem?: string; status?: 400 | 409 } = {},
) {
  const url = c.get("url");
  const options = listOptions(url);
  const page = await listed(options, () => gateway.registry.listChannels(options));
  const channels = await Promise.all(
    page.data.map(async (view) => ({
      view,
      health: await gateway.channelHealth.read(view.id),
      breakers: await gateway.breakers.view(await gateway.registry.openChannel(view.id)),
    })),
  );
  return renderPage(
    c,
    <>
      {shown.problem ? <p class="error" role="alert">{shown.problem}</p> : null}
      {url.searchParams.get("deleted") === "1"
        ? <p class="notice" role="status">The channel was deleted.</p>
        : null}
      <p>
        <a href="/console/channels/new" class="button">New channel</a>
      </p>
      <section class="card" aria-label="Channels">
        <form method="post" action="/console/channels/bulk">
          <CsrfField session={c.get("session")} />
          <ChannelRows channels={channels} />
          <p class="row">
            <button type="submit" name="action" value="enable">Enable selected</button>
            <button type="submit" name="action" value="disable" class="danger">
              Disable selected
            </button>
          </p>
        </form>
        {page.cursor
          ? (
            <p>
              <a href={`/console/channels${listQuery(url, page.cursor)}`} rel="next">Next page</a>
            </p>
          )
          : null}
      </section>
      <CopyAsCurl
        id="curl-list"
        curl={adminCurl(baseUrlOf(gateway, url), {
          method: "GET",
          path: `/admin/channels${listQuery(url)}`,
        })}
      />
    </>,
    { title: "Channels", copyButtons: true, status: shown.problem ? shown.status ?? 400 : 200 },
  );
}

/**
 * Enables or disables every ticked channel, each one audited as its own PATCH; a refusal (a
 * channel the config file manages) is named and the others still change.
 */
async function bulkEnabled(gateway: Gateway, c: ConsoleContext) {
  const form = await readForm(c);
  const ids = [...new Set(await readFormValues(c, "id"))];
  if (form.action !== "enable" && form.action !== "disable") {
    return channelsPage(gateway, c, { problem: "Choose Enable selected or Disable selected" });
  }
  if (ids.length === 0) {
    return channelsPage(gateway, c, { problem: "Tick at least one channel; nothing changed" });
  }
  const refused: string[] = [];
  for (const id of ids) {
    try {
      if (!hasIdShape(id, "channel")) throw channelNotFound(id.slice(0, 80));
      await consolePatchChannel(gateway, { c, id, body: { enabled: form.action === "enable" } });
    } catch (error) {
      refused.push(formProblemOf(error).message);
    }
  }
  if (refused.length) return channelsPage(gateway, c, { problem: refused.join("; "), status: 409 });
  return c.redirect("/console/channels", 303);
}

export function channelPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/channels", requireOperator(), (c) => channelsPage(gateway, c));
  app.post("/console/channels/bulk", requireOperator(), (c) => bulkEnabled(gateway, c));
  return app;
}
