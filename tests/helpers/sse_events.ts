/** Reads a server-sent-events body into its events, in order. */

import { EventSourceParserStream } from "eventsource-parser/stream";

export interface SseEvent {
  /** The `event:` field, when the stream names its events. */
  event?: string;
  data: string;
}

export async function readSseEvents(response: Response): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const stream = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(
    new EventSourceParserStream(),
  );
  for await (const { event, data } of stream) events.push({ event, data });
  return events;
}
