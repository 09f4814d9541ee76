/**
 * An upstream's result URL is stored in a task and linked to clients (image `url` answers, video
 * `result_url`), so only an absolute http(s) URL is: a `javascript:` or `data:text/html` link
 * would run in whatever page shows it. Pure.
 */

/** Why `url` may not be stored or linked; null when it is an absolute http(s) URL. */
export function resultUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "the upstream's result URL is not a valid absolute URL";
  }
  if (parsed.protocol === "http:" || parsed.protocol === "https:") return null;
  // The parser leaves only scheme characters here; quoting it shows nothing else of the URL.
  return `the upstream's result URL is not http(s) (its scheme is ${parsed.protocol.slice(0, 20)})`;
}
