/**
 * The console's view of breakers (core/channels/breaker_board.ts): a channel's own breaker and
 * each upstream key's, with the state, when a cooldown or a retry-after ends, the last reasons,
 * and a Reset button (a form with the session's CSRF field, audited like the API's reset).
 */

import type { BreakerView, ChannelBreakersView } from "../../core/channels/breaker_board.ts";
import { DataTable } from "./data_table.tsx";
import { CsrfField } from "./layout.tsx";
import type { ConsoleContext } from "./console_env.ts";

/** A breaker in a few words: `closed`, `open until …`, `half-open`, `aside until …`. */
export function breakerSummary(view: BreakerView): string {
  if (view.aside_until) return `aside until ${view.aside_until} (retry-after)`;
  if (view.state === "open") return `open until ${view.open_until}`;
  return view.state === "half_open" ? "half-open (next request probes)" : "closed";
}

/** A not-closed breaker's last reason, as ` (timeout)`, or "". */
function lastReason(view: BreakerView): string {
  const reason = view.reasons.at(-1)?.reason;
  return reason ? ` (${reason})` : "";
}

function isOut(view: BreakerView): boolean {
  return view.state !== "closed" || view.aside_until !== null;
}

/** The channel list's cell: the channel's breaker, and each key's that is not closed. */
export function breakerCell(view: ChannelBreakersView) {
  const keysOut = view.keys.filter(isOut);
  if (!isOut(view) && !keysOut.length) return <span class="muted">closed</span>;
  return (
    <span class="bad">
      {isOut(view) ? `channel ${breakerSummary(view)}${lastReason(view)}` : "channel closed"}
      {keysOut.map((key) => (
        <>
          <br />
          {`key ${key.fingerprint} ${breakerSummary(key)}${lastReason(key)}`}
        </>
      ))}
    </span>
  );
}

type Row = BreakerView & { name: string; fingerprint?: string };

export function BreakersSection(
  { c, channelId, view }: { c: ConsoleContext; channelId: string; view: ChannelBreakersView },
) {
  const rows: Row[] = [
    { ...view, name: "channel" },
    ...view.keys.map((key) => ({ ...key, name: `key ${key.fingerprint}` })),
  ];
  return (
    <section class="card" aria-labelledby="breakers-heading">
      <h2 id="breakers-heading">Breakers</h2>
      <p class="muted">
        An open breaker is skipped by routing at no cost until its cooldown ends; then one request
        probes it. A 429's retry-after sets a key (or a one-key channel) aside until then.
      </p>
      <DataTable
        rows={rows}
        columns={[
          { header: "Breaker", cell: (row) => row.name },
          {
            header: "State",
            cell: (row) => breakerSummary(row),
            cellClass: (row) => row.state === "closed" && !row.aside_until ? "ok" : "bad",
          },
          {
            header: "Last reasons",
            cell: (row) =>
              row.reasons.length
                ? row.reasons.map((reason) => `${reason.at}: ${reason.reason}`).join("; ")
                : <span class="muted">none</span>,
          },
          {
            header: "Reset",
            cell: (row) => (
              <form method="post" action={`/console/channels/${channelId}/breakers/reset`}>
                <CsrfField session={c.get("session")} />
                {row.fingerprint
                  ? <input type="hidden" name="key" value={row.fingerprint} />
                  : null}
                <button
                  type="submit"
                  class="quiet"
                  aria-label={`Reset the ${row.name} breaker`}
                >
                  Reset
                </button>
              </form>
            ),
          },
        ]}
      />
    </section>
  );
}
