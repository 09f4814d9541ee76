/** The From / To (UTC) / Order fields every filtered console list ends with. */

import { Field } from "./field.tsx";
import { minutesOf } from "./time_range.ts";

/** The fields for `url`'s `since`, `until` and `order`. */
export function RangeAndOrderFields({ url }: { url: URL }) {
  const value = (name: string) => url.searchParams.get(name) ?? "";
  return (
    <>
      <Field
        name="since"
        label="From (UTC)"
        type="datetime-local"
        value={minutesOf(value("since"))}
      />
      <Field
        name="until"
        label="To (UTC)"
        type="datetime-local"
        value={minutesOf(value("until"))}
      />
      <Field
        name="order"
        label="Order"
        value={value("order") || "desc"}
        options={[["desc", "Newest first"], ["asc", "Oldest first"]]}
      />
    </>
  );
}
