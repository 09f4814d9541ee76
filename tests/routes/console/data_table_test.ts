import { assertEquals, assertOk } from "../../helpers/assert.ts";
import { type Columns, DataTable } from "../../../routes/console/data_table.tsx";

type Row = { name: string; n: number };

const COLUMNS: Columns<Row> = [
  { header: "Name", cell: (row) => row.name },
  false,
  { header: "N", cell: (row) => row.n, cellClass: (row) => row.n < 0 ? "bad" : undefined },
  { header: "Fixed", cell: () => "x", cellClass: "muted" },
];

Deno.test("DataTable: headers and a cell per column, in the scrolling box; a left-out column is gone", () => {
  const html = String(
    DataTable({ columns: COLUMNS, rows: [{ name: "a", n: 1 }, { name: "b", n: -1 }] }),
  );
  assertOk(html.startsWith('<div class="table-wrap"><table><thead><tr>'), html);
  assertOk(
    html.includes(
      '<tr><th scope="col">Name</th><th scope="col">N</th><th scope="col">Fixed</th></tr>',
    ),
    html,
  );
  assertOk(html.includes('<tr><td>a</td><td>1</td><td class="muted">x</td></tr>'), html);
  assertOk(
    html.includes('<tr><td>b</td><td class="bad">-1</td><td class="muted">x</td></tr>'),
    html,
  );
  assertOk(!html.includes("<caption") && !html.includes("<p"), html);
});

Deno.test("DataTable: a caption with its class, and an id per row", () => {
  const html = String(DataTable({
    columns: COLUMNS,
    rows: [{ name: "a", n: 1 }],
    caption: "Per day",
    captionClass: "muted",
    rowId: (row) => `row-${row.name}`,
  }));
  assertOk(html.includes('<table><caption class="muted">Per day</caption><thead>'), html);
  assertOk(html.includes('<tr id="row-a"><td>a</td>'), html);
});

Deno.test("DataTable: an empty table says so under its headers, or as a row across every column", () => {
  const note = String(DataTable({ columns: COLUMNS, rows: [], empty: "Nothing yet." }));
  assertOk(note.endsWith('<tbody></tbody></table><p class="muted">Nothing yet.</p></div>'), note);
  const row = String(
    DataTable({ columns: COLUMNS, rows: [], empty: "Nothing yet.", emptyAsRow: true }),
  );
  assertOk(
    row.includes('<tbody><tr><td colspan="3" class="muted">Nothing yet.</td></tr></tbody>'),
    row,
  );
  assertEquals(
    String(DataTable({ columns: COLUMNS, rows: [{ name: "a", n: 1 }], empty: "Nothing yet." }))
      .includes("Nothing"),
    false,
  );
});
