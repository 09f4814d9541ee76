/**
 * Operator's channels: the list with each channel's health (success rate, p50 latency, last
 * error over the health window), through the same service calls as GET /admin/channels.
 */

import { Hono } from "hono";
import type { Gateway } from "../../../core/gateway.ts";
import type { ChannelHealthView } from "../../../core/telemetry/channel_health.ts";
import { listed, listOptions } from "../../admin/shared.ts";
import { baseUrlOf, type ConsoleContext, type ConsoleEnv } from "../console_env.ts";
import { CopyAsCurl } from "../layout.tsx";
import { listQuery } from "../list_query.ts";
import { renderPage } from "../render.tsx";
import { requireOperator } from "../session.ts";
import { adminCurl } from "../snippets.ts";

export type ChannelView = Awaited<ReturnType<Gateway["registry"]["channelView"]>>;

/** A success rate as a percentage, or a dash when nothing was served in the window. */
export function HealthCells({ health }: { health: ChannelHealthView }) {
  return (
    <>
      <td>
        {health.success_rate === null
          ? <span class="muted">no requests</span>
          : `${(health.success_rate * 100).toFixed(1)}% of ${health.requests}`}
      </td>
      <td>{health.p50_latency_ms === null ? "—" : `${health.p50_latency_ms} ms`}</td>
      <td>
        {health.last_error
          ? <span class="bad">{health.last_error_at}: {health.last_error}</span>
          : <span class="muted">none</span>}
      </td>
    </>
  );
}

function ChannelRows(
  { channels }: { channels: Array<{ view: ChannelView; health: ChannelHealthView }> },
) {
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Models</th>
            <th scope="col">Priority / weight</th>
            <th scope="col">State</th>
            <th scope="col">Success</th>
            <th scope="col">p50</th>
            <th scope="col">Last error</th>
          </tr>
        </thead>
        <tbody>
          {channels.map(({ view, health }) => (
            <tr>
              <td>
                <a href={`/console/channels/${view.id}`}>{view.name}</a>
              </td>
              <td>{view.type}</td>
              <td>{view.models.join(", ")}</td>
              <td>{view.priority} / {view.weight}</td>
              <td>{view.enabled ? "enabled" : <span class="bad">disabled</span>}</td>
              <HealthCells health={health} />
            </tr>
          ))}
        </tbody>
      </table>
      {channels.length === 0 ? <p class="muted">No channel yet.</p> : null}
    </div>
  );
}

async function channelsPage(gateway: Gateway, c: ConsoleContext) {
  const url = c.get("url");
  const options = listOptions(url);
  const page = await listed(options, () => gateway.registry.listChannels(options));
  const channels = await Promise.all(
    page.data.map(async (view) => ({ view, health: await gateway.channelHealth.read(view.id) })),
  );
  return renderPage(
    c,
    <>
      <section class="card" aria-label="Channels">
        <ChannelRows channels={channels} />
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
    { title: "Channels", copyButtons: true },
  );
}

export function channelPages(gateway: Gateway) {
  const app = new Hono<ConsoleEnv>();
  app.get("/console/channels", requireOperator(), (c) => channelsPage(gateway, c));
  return app;
}
