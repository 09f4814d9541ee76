/**
 * The page body that shows a new batch's codes once: taken from the session's sealed flash by the
 * caller, one a line with Copy all (the copy script) and Download as text (a `data:` link, so it
 * works without JS and nothing is fetched again); a second view has no codes and says so.
 */

import type { Child } from "hono/jsx";

/** A `data:` URL of `text` as a UTF-8 text file. */
export function textDataUrl(text: string): string {
  return `data:text/plain;charset=utf-8,${encodeURIComponent(text)}`;
}

export function CodesOnce(
  { codes, fileName, back, children }: {
    /** The codes, in the order of the batch's code list; null once they were shown. */
    codes: string[] | null;
    fileName: string;
    back: { href: string; label: string };
    /** More about the codes (their ids), under them. */
    children?: Child;
  },
) {
  const backLink = (
    <p>
      <a href={back.href}>{back.label}</a>
    </p>
  );
  if (!codes) {
    return (
      <section class="card">
        <p class="notice">
          The codes were shown once, when the batch was made, and cannot be shown again. Disable the
          batch and make a new one if they were lost.
        </p>
        {backLink}
      </section>
    );
  }
  const text = codes.join("\n") + "\n";
  return (
    <section class="card" aria-labelledby="codes-heading">
      <h2 id="codes-heading">The batch's {codes.length} codes</h2>
      <p class="notice">
        Copy or download them now: they are shown this once and never again (the gateway keeps only
        their hashes).
      </p>
      <p class="row">
        <button type="button" data-copy="codes" hidden>Copy all</button>
        <a class="button" href={textDataUrl(text)} download={fileName}>Download as text</a>
      </p>
      <pre id="codes" class="secret">{text}</pre>
      {children}
      {backLink}
    </section>
  );
}
