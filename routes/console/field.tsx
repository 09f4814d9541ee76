/**
 * The console's one form field: a label above its control (an `<input>`, a `<select>` when it
 * has options, a `<textarea>` when it has rows) and an optional hint under it that the control
 * names with `aria-describedby`.
 */

/** A `<select>`'s choice: the value sent, and what the reader sees. */
export type FieldOption = readonly [value: string, label: string];

export interface FieldProps {
  label: string;
  name: string;
  /** Defaults to `name`; a page with two forms of the same fields gives each a prefix. */
  id?: string;
  /** The input's value, or the option selected. */
  value?: string;
  /** An `<input>`'s type; `text` when left out. */
  type?: string;
  options?: readonly FieldOption[];
  rows?: number;
  hint?: string;
  placeholder?: string;
  required?: boolean;
  autocomplete?: string;
  autofocus?: boolean;
  inputmode?: "numeric" | "decimal";
  min?: string;
  /** The id of a `<datalist>` of suggestions (a picker that needs no script). */
  list?: string;
}

function Control(props: FieldProps & { id: string; describedBy?: string }) {
  const { id, name, value, options, rows, required, autocomplete } = props;
  const describedBy = { "aria-describedby": props.describedBy };
  // Attributes go in as spreads, so an unset one is left out rather than leaving a space.
  if (options) {
    return (
      <select {...{ id, name, ...describedBy }}>
        {options.map(([option, label]) => (
          <option {...{ value: option, selected: option === value }}>{label}</option>
        ))}
      </select>
    );
  }
  if (rows !== undefined) {
    return (
      <textarea {...{ id, name, rows, autocomplete, ...describedBy, required }}>{value}</textarea>
    );
  }
  const { type = "text", placeholder, inputmode, min, autofocus, list } = props;
  return (
    <input
      {...{ id, name, type, value, placeholder, inputmode, min, autocomplete, list }}
      {...{ ...describedBy, required, autofocus }}
    />
  );
}

export function Field(props: FieldProps) {
  const id = props.id ?? props.name;
  const hintId = props.hint ? `${id}-hint` : undefined;
  return (
    <div>
      <label for={id}>{props.label}</label>
      <Control {...props} id={id} describedBy={hintId} />
      {props.hint ? <small id={hintId} class="muted">{props.hint}</small> : null}
    </div>
  );
}
