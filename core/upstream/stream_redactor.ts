/**
 * Keeps a channel's keys out of the stream events relayed to a client, pass-through or converted,
 * by cleaning each upstream event before anything reads it.
 *
 * An upstream quotes a credential in its errors, so error events are redacted as non-stream
 * errors are (redact.ts: the keys also split or escaped, and anything key-shaped). Other events
 * are only searched for each key as written: one native substring search per key, and no copy
 * of the event unless a key is there. Error events are recognised by their JSON, in every
 * format: `"error": {…}` or `"error": "…"` (OpenAI chat, Gemini, Anthropic, responses'
 * `response.failed`) or `"type": "error"` (responses' and Anthropic's `error` event).
 */

import type { UpstreamEvent } from "./upstream_events.ts";
import { REDACTED, redactSecrets } from "../util/redact.ts";

const ERROR_EVENT = /"error"\s*:\s*[{"]|"type"\s*:\s*"error"/;

/** Secrets shorter than this are not searched for (redact.ts does the same). */
const MIN_SECRET_LENGTH = 6;

/** Whether an event's data is an error event's. */
export function isErrorEventData(data: string): boolean {
  return data.includes('"error"') && ERROR_EVENT.test(data);
}

/** The redaction of one stream, for the keys of its channel. */
export class StreamRedactor {
  readonly #secrets: readonly string[];

  constructor(secrets: readonly string[]) {
    this.#secrets = secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH);
  }

  /** `event` itself when it holds no key, else a copy with its data redacted. */
  event(event: UpstreamEvent): UpstreamEvent {
    const data = this.data(event.data);
    return data === event.data ? event : { ...event, data };
  }

  /** An event's data, redacted. */
  data(data: string): string {
    if (isErrorEventData(data)) {
      return redactSecrets(data, this.#secrets, { maxLength: Number.MAX_SAFE_INTEGER });
    }
    let out = data;
    for (const secret of this.#secrets) {
      if (out.includes(secret)) out = out.replaceAll(secret, REDACTED);
    }
    return out;
  }

  /** A message the gateway writes itself from what failed (an error's text), redacted. */
  message(text: string): string {
    return redactSecrets(text, this.#secrets);
  }
}
