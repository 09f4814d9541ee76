/**
 * An account's requests as a download, CSV or JSON Lines, read page by page as the reader pulls
 * (request_log_csv.ts's fields, without the channel: members never see channels).
 */

import { CSV_COLUMNS, csvField } from "../telemetry/request_log_csv.ts";
import type { ListOptions } from "../kv/list_options.ts";
import type { AccountActor } from "./actor.ts";
import type { AccountArea } from "./account_area.ts";

export type ExportFormat = "csv" | "jsonl";

/** The exported columns: the operator's export's, but the channel. */
export const MEMBER_CSV_COLUMNS = CSV_COLUMNS.filter((column) => column !== "channel_id");

const EXPORT_PAGE = 500;

export function memberCsvRow(record: Record<string, unknown>): string {
  return `${MEMBER_CSV_COLUMNS.map((column) => csvField(record[column])).join(",")}\r\n`;
}

export function memberRequestExport(
  area: AccountArea,
  actor: AccountActor,
  query: {
    range: Pick<ListOptions, "since" | "until" | "order">;
    key?: string;
    format: ExportFormat;
  },
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cursor: string | undefined;
  let started = false;
  return new ReadableStream({
    async pull(controller) {
      if (!started && query.format === "csv") {
        controller.enqueue(encoder.encode(`${MEMBER_CSV_COLUMNS.join(",")}\r\n`));
      }
      started = true;
      const page = await area.requests(
        actor,
        { ...query.range, limit: EXPORT_PAGE, cursor },
        query.key ? { key: query.key } : {},
      );
      const lines = page.data.map((record) =>
        query.format === "csv"
          ? memberCsvRow(record as unknown as Record<string, unknown>)
          : `${JSON.stringify(record)}\n`
      );
      if (lines.length) controller.enqueue(encoder.encode(lines.join("")));
      cursor = page.cursor ?? undefined;
      if (cursor === undefined) controller.close();
    },
  }, { highWaterMark: 0 });
}
