/** The table of an account's requests, as members see them: no channel, no upstream. */

import type { AccountArea } from "../../core/account_area/account_area.ts";
import { DataTable } from "./data_table.tsx";
import { MemberKeyName } from "./name_links.tsx";
import type { ConsoleMoney } from "./money.tsx";

export type MemberRequest = Awaited<ReturnType<AccountArea["requests"]>>["data"][number];

export function RequestRows(
  { rows, keyNames, money }: {
    rows: MemberRequest[];
    keyNames?: ReadonlyMap<string, string>;
    money: ConsoleMoney;
  },
) {
  return (
    <DataTable
      rows={rows}
      empty="No request in this range."
      columns={[
        {
          header: "When",
          cell: (row) => <a href={`/console/account/requests/${row.id}`}>{row.at}</a>,
        },
        keyNames && {
          header: "Key",
          cell: (row) => <MemberKeyName id={row.key_id} names={keyNames} />,
        },
        { header: "Model", cell: (row) => row.model ?? "" },
        { header: "Interface", cell: (row) => row.interface },
        {
          header: "Status",
          cell: (row) => row.status,
          cellClass: (row) => row.status < 400 ? "ok" : "bad",
        },
        { header: "Tokens in / out", cell: (row) => `${row.input_tokens} / ${row.output_tokens}` },
        { header: "Cost", cell: (row) => money.amount(row.cost) },
      ]}
    />
  );
}
