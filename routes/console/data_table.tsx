/**
 * The console's one table: columns declared as data (a header and a cell of each row), in the box
 * that scrolls sideways on its own at phone width, with an optional caption and what an empty
 * table says.
 *
 * Optional attributes go through a spread: it leaves an unset one out, where a plain
 * `class={undefined}` would still leave a space (`<td >`).
 */

import type { Child } from "hono/jsx";

export interface Column<Row> {
  header: string;
  cell: (row: Row) => Child;
  /** The cell's class (`ok`, `bad`, `muted`), fixed or by row. */
  cellClass?: string | ((row: Row) => string | undefined);
}

/** Columns of a table; `false` or `null` entries (a column only some readers see) are left out. */
export type Columns<Row> = ReadonlyArray<Column<Row> | false | null | undefined>;

export interface DataTableProps<Row> {
  columns: Columns<Row>;
  rows: readonly Row[];
  caption?: string;
  captionClass?: string;
  /** What an empty table says. */
  empty?: string;
  /** Says it as a row of the table; else as a note under the headers. */
  emptyAsRow?: boolean;
  /** The `id` of a row's `<tr>`, for links to one row. */
  rowId?: (row: Row) => string;
}

function headerCell<Row>(column: Column<Row>) {
  return <th scope="col">{column.header}</th>;
}

function bodyCell<Row>(column: Column<Row>, row: Row) {
  const cellClass = typeof column.cellClass === "function"
    ? column.cellClass(row)
    : column.cellClass;
  return <td {...{ class: cellClass }}>{column.cell(row)}</td>;
}

export function DataTable<Row>(props: DataTableProps<Row>) {
  const columns = props.columns.filter((column): column is Column<Row> => Boolean(column));
  const { rows, empty, emptyAsRow } = props;
  const saysEmpty = rows.length === 0 && empty !== undefined;
  return (
    <div class="table-wrap">
      <table>
        {props.caption === undefined
          ? null
          : <caption {...{ class: props.captionClass }}>{props.caption}</caption>}
        <thead>
          <tr>
            {columns.map(headerCell)}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr {...{ id: props.rowId?.(row) }}>
              {columns.map((column) => bodyCell(column, row))}
            </tr>
          ))}
          {saysEmpty && emptyAsRow
            ? (
              <tr>
                <td colspan={columns.length} class="muted">{empty}</td>
              </tr>
            )
            : null}
        </tbody>
      </table>
      {saysEmpty && !emptyAsRow ? <p class="muted">{empty}</p> : null}
    </div>
  );
}
