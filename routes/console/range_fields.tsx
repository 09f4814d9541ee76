/** The From / To (UTC) / Order fields every filtered console list ends with. */

import { minutesOf } from "./time_range.ts";

/** The fields for `url`'s `since`, `until` and `order`. */
export function RangeAndOrderFields({ url }: { url: URL }) {
  const value = (name: string) => url.searchParams.get(name) ?? "";
  const order = value("order") || "desc";
  return (
    <>
      <div>
        <label for="since">From (UTC)</label>
        <input id="since" name="since" type="datetime-local" value={minutesOf(value("since"))} />
      </div>
      <div>
        <label for="until">To (UTC)</label>
        <input id="until" name="until" type="datetime-local" value={minutesOf(value("until"))} />
      </div>
      <div>
        <label for="order">Order</label>
        <select id="order" name="order">
          <option value="desc" selected={order === "desc"}>Newest first</option>
          <option value="asc" selected={order === "asc"}>Oldest first</option>
        </select>
      </div>
    </>
  );
}
