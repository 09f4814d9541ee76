import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  MEMBER_CSV_COLUMNS,
  memberCsvRow,
} from "../../../core/account_area/member_request_export.ts";
import { CSV_COLUMNS } from "../../../core/telemetry/request_log_csv.ts";

Deno.test("the members' CSV has the operator's columns but the channel", () => {
  assertEquals(MEMBER_CSV_COLUMNS, CSV_COLUMNS.filter((column) => column !== "channel_id"));
  assertOk(!MEMBER_CSV_COLUMNS.includes("channel_id" as never));
});

Deno.test("memberCsvRow() writes a record's fields in column order, formulas defused", () => {
  const row = memberCsvRow({
    id: "req_1",
    at: "2026-11-27T10:00:00.000Z",
    interface: "openai",
    route: "/v1/chat/completions",
    key_id: "key_1",
    model: "=cmd",
    channel_id: "ch_secret",
    status: 200,
    cost: 12,
    ignored_fields: ["a", "b"],
  });
  assertOk(row.endsWith("\r\n"));
  const fields = row.slice(0, -2).split(",");
  assertEquals(fields.slice(0, 5), [
    "req_1",
    "2026-11-27T10:00:00.000Z",
    "openai",
    "/v1/chat/completions",
    "key_1",
  ]);
  assertEquals(fields[5], `"'=cmd"`, "a formula is written as text");
  assertOk(!row.includes("ch_secret"), "no channel");
  assertOk(row.includes(`"a,b"`), "a list quoted");
});
