/**
 * Named values side by side (spend by key, by model): a table whose last column draws each value
 * as a bar against the largest, in SVG without a style attribute (colours from the stylesheet).
 */

import type { Child } from "hono/jsx";
import { DataTable } from "./data_table.tsx";

export interface ShareRow {
  label: string;
  value: number;
  requests: number;
}

/** Each value's bar length in percent of the largest (0 when every value is 0). Pure. */
export function shareWidths(values: readonly number[]): number[] {
  const max = Math.max(0, ...values);
  return values.map((value) => max > 0 ? Math.round(Math.max(0, value) / max * 10_000) / 100 : 0);
}

export function ShareBars(
  { caption, rows, format, empty }: {
    caption: string;
    rows: readonly ShareRow[];
    format: (value: number) => Child;
    empty: string;
  },
) {
  const widths = shareWidths(rows.map((row) => row.value));
  const indexed = rows.map((row, index) => ({ ...row, width: widths[index] }));
  return (
    <DataTable
      caption={caption}
      rows={indexed}
      empty={empty}
      columns={[
        { header: "Name", cell: (row) => row.label },
        { header: "Requests", cell: (row) => row.requests },
        { header: "Spent", cell: (row) => format(row.value) },
        {
          header: "Share",
          cell: (row) => (
            <svg class="share" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
              <rect class="bar" x="0" y="0" width={row.width} height="10" />
            </svg>
          ),
        },
      ]}
    />
  );
}
