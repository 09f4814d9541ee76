/** A request's error in a table cell: its code, and a short cut of the upstream's message. */

/** Characters of a message a cell shows; the whole message is the cell's title. */
const SHORT = 60;

export function shortText(text: string, max = SHORT): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function ErrorText({ code, message }: { code: string | null; message?: string }) {
  if (!code && !message) return <span class="muted">—</span>;
  return (
    <span class="bad" {...{ title: message && message.length > SHORT ? message : undefined }}>
      {code ? <code>{code}</code> : null}
      {code && message ? " " : null}
      {message ? shortText(message) : null}
    </span>
  );
}
