/**
 * An `openai` channel's float answer to a float request, passed on as the upstream wrote it with
 * only the top-level `model` renamed (design: same format, pass the body through). Writing a
 * thousand-number vector per input back out of numbers costs more than the parse that checked it;
 * the bytes are the upstream's own. Pure.
 */

/**
 * `text` (a JSON object whose data holds only numbers and strings without `"model"`) with its
 * last `"model": "…"` member set to `model`, or null when there is none to set. Embedding arrays
 * hold numbers only, so the last `"model"` key is the top-level one (OpenAI writes it after
 * `data`); a string value that itself contains `"model"` would be found first from the end only
 * if it came after, which JSON.stringify-escaped text cannot do unescaped.
 */
export function withModelRenamed(text: string, model: string): string | null {
  const match = /"model"\s*:\s*"(?:[^"\\]|\\.)*"/g;
  let last: RegExpExecArray | null = null;
  for (let found = match.exec(text); found; found = match.exec(text)) last = found;
  if (!last) return null;
  return `${text.slice(0, last.index)}"model":${JSON.stringify(model)}${
    text.slice(last.index + last[0].length)
  }`;
}
