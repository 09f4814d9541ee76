/**
 * Sections of a channel's page: its models (with the model map and "Fetch models" where the
 * upstream has a list), the results of "Test every model" (a row per model), and Delete, which
 * names the models that stop being served.
 */

import type { ChannelProbeResult } from "../../core/upstream/channel_probe.ts";
import { articled, hasModelList } from "../admin/upstream_models.ts";
import type { ConsoleContext } from "./console_env.ts";
import { DataTable } from "./data_table.tsx";
import { CsrfField } from "./layout.tsx";
import { ModelName, type NameBook } from "./name_links.tsx";
import type { ChannelView } from "./pages/channels.tsx";

export function ModelsSection(
  { c, view, book }: { c: ConsoleContext; view: ChannelView; book: NameBook },
) {
  const rows = view.models.map((model) => ({ model, upstream: view.model_map[model] ?? model }));
  return (
    <section class="card" aria-labelledby="models-heading">
      <h2 id="models-heading">Models</h2>
      <DataTable
        rows={rows}
        empty="No model."
        columns={[
          { header: "Public name", cell: ({ model }) => <ModelName id={model} book={book} /> },
          {
            header: "Upstream name",
            cell: ({ model, upstream }) =>
              upstream === model ? <span class="muted">the same</span> : <code>{upstream}</code>,
          },
        ]}
      />
      {hasModelList(view)
        ? (
          <form method="post" action={`/console/channels/${view.id}/models/fetch`} class="row">
            <CsrfField session={c.get("session")} />
            <button type="submit">Fetch models</button>
            <span class="muted">
              reads the upstream's model list with one of the channel's keys
            </span>
          </form>
        )
        : (
          <p class="muted">
            {articled(view.type)}{" "}
            upstream has no model list to fetch: type the models under Edit settings.
          </p>
        )}
    </section>
  );
}

export function TestAllResults({ results }: { results: ChannelProbeResult[] }) {
  const failed = results.filter((result) => !result.ok).length;
  return (
    <div role="status" class={failed ? "error" : "notice"}>
      <p>
        {results.length} model{results.length === 1 ? "" : "s"} tested:{" "}
        {failed ? `${failed} failed` : "all passed"}.
      </p>
      <DataTable
        rows={results}
        caption="Test results"
        columns={[
          { header: "Model", cell: (result) => <code>{result.model}</code> },
          {
            header: "Result",
            cell: (result) => result.ok ? "ok" : "failed",
            cellClass: (result) => result.ok ? "ok" : "bad",
          },
          { header: "Upstream status", cell: (result) => result.status ?? "no answer" },
          { header: "Latency", cell: (result) => `${result.latency_ms} ms` },
          {
            header: "Error",
            cell: (result) =>
              result.error
                ? `${result.error_class ? `${result.error_class}: ` : ""}${result.error}`
                : "—",
          },
          { header: "Call", cell: (result) => <span class="muted">{result.call}</span> },
        ]}
      />
    </div>
  );
}

export function DeleteSection(
  { c, view, unserved }: { c: ConsoleContext; view: ChannelView; unserved: string[] },
) {
  return (
    <section class="card" aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete</h2>
      {unserved.length
        ? (
          <p id="delete-unserved">
            Deleting it stops serving {unserved.map((model, index) => (
              <>
                {index ? ", " : ""}
                <code>{model}</code>
              </>
            ))}: no other enabled channel serves {unserved.length === 1 ? "it" : "them"}.
          </p>
        )
        : (
          <p id="delete-unserved">
            Every model of this channel is served by another enabled channel too.
          </p>
        )}
      <form method="post" action={`/console/channels/${view.id}/delete`} class="row">
        <CsrfField session={c.get("session")} />
        <label class="choice">
          <input
            type="checkbox"
            id="delete-confirm"
            name="confirm"
            required
            aria-describedby="delete-unserved"
          />
          Delete channel {view.name} and its upstream keys
        </label>
        <button type="submit" class="danger">Delete channel</button>
      </form>
    </section>
  );
}
