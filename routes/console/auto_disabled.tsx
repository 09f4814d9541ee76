/**
 * What the gateway disabled of a channel on its own (core/channels/auto_disable.ts), as the
 * console shows it: a short state for the channel list, and on the detail page each mark with its
 * reason, since when and the next recovery probe, with the operator's Re-enable.
 */

import type { AutoDisabled, AutoMark } from "../../core/channels/auto_disable.ts";
import type { KeyHint } from "../../core/channels/key_hint.ts";
import { DataTable } from "./data_table.tsx";

/** The channel's state: the operator's switch, then what the gateway disabled. */
export function ChannelState(
  { view }: { view: { enabled: boolean; auto_disabled: AutoDisabled | null; keys: KeyHint[] } },
) {
  const marks = view.auto_disabled;
  const keys = marks ? view.keys.filter((hint) => marks.by_key[hint.fingerprint]).length : 0;
  return (
    <>
      {view.enabled ? "enabled" : <span class="bad">disabled</span>}
      {marks?.channel
        ? (
          <>
            {" · "}
            <span class="bad" title={marks.channel.reason}>
              auto-disabled: {marks.channel.reason}
            </span>
          </>
        )
        : null}
      {keys > 0
        ? (
          <>
            {" · "}
            <span class="bad">{keys} of {view.keys.length} keys auto-disabled</span>
          </>
        )
        : null}
    </>
  );
}

type MarkRow = { what: string; mark: AutoMark };

/** The marks of one channel, each with its reason and its next probe. */
export function AutoDisabledTable(
  { marks, keys }: { marks: AutoDisabled; keys: KeyHint[] },
) {
  const rows: MarkRow[] = [
    ...(marks.channel ? [{ what: "the whole channel", mark: marks.channel }] : []),
    ...Object.entries(marks.by_key).map(([fingerprint, mark]) => {
      const hint = keys.find((candidate) => candidate.fingerprint === fingerprint);
      return { what: `key ${fingerprint}${hint ? ` (…${hint.last4})` : " (removed)"}`, mark };
    }),
  ];
  return (
    <DataTable
      caption="Disabled by the gateway"
      rows={rows}
      empty="Nothing is disabled by the gateway."
      columns={[
        { header: "What", cell: (row) => row.what },
        { header: "Reason", cell: (row) => <span class="bad">{row.mark.reason}</span> },
        { header: "Since", cell: (row) => row.mark.at },
        {
          header: "Next probe",
          cell: (row) =>
            `${new Date(row.mark.next_probe_at).toISOString()} (${row.mark.probes} failed)`,
        },
      ]}
    />
  );
}
