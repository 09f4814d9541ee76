/** Parses an upstream answer that should be JSON; null when it is not. */
// deno-lint-ignore no-explicit-any
export function jsonOrNull(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
