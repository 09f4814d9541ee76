/**
 * Checks of one HTTP answer of a text interface against its vendor's definitions: a whole answer,
 * every event of a stream (each against its own event schema, in the order the vendor sends
 * them), or an error in the interface's envelope. Used on the gateway and on the simulators.
 */

import { assertEquals, assertOk } from "../../helpers/assert.ts";
import {
  ANTHROPIC_EVENT_SCHEMAS,
  type Contracts,
  geminiHttpStatus,
  openaiResponseEventSchemas,
} from "../../helpers/contracts.ts";
import { readSseEvents, type SseEvent } from "../../helpers/sse_events.ts";
import type { Interface } from "./text_requests.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const RESPONSE_EVENTS = openaiResponseEventSchemas();
const GOOGLE_HTTP_STATUS = geminiHttpStatus();

/** The error types Anthropic documents with their HTTP statuses (docs: "Errors"). */
const ANTHROPIC_ERROR_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/** Reads and checks a 200 answer, whole or streamed; returns what was read. */
export async function checkAnswer(
  contracts: Contracts,
  iface: Interface,
  response: Response,
  stream: boolean,
  label: string,
): Promise<Json[]> {
  assertEquals(response.status, 200, `${label}: status`);
  if (!stream) {
    const body = await response.json();
    checkWhole(contracts, iface, body, label);
    return [body];
  }
  const events = await readSseEvents(response);
  checkStream(contracts, iface, events, label);
  return events.map((event) => event.data === "[DONE]" ? event.data : JSON.parse(event.data));
}

export function checkWhole(contracts: Contracts, iface: Interface, body: Json, label: string) {
  if (iface === "chat") contracts.assert("openai", "CreateChatCompletionResponse", body, label);
  if (iface === "responses") contracts.assert("openai", "Response", body, label);
  if (iface === "messages") contracts.assert("anthropic", "Message", body, label);
  if (iface === "generate-content") {
    contracts.assert("gemini", "GenerateContentResponse", body, label);
  }
}

export function checkStream(
  contracts: Contracts,
  iface: Interface,
  events: SseEvent[],
  label: string,
) {
  assertOk(events.length > 0, `${label}: the stream has events`);
  const check = {
    chat: checkChatStream,
    responses: checkResponsesStream,
    messages: checkMessagesStream,
    "generate-content": checkGeminiStream,
  }[iface];
  check(contracts, events, label);
}

function checkChatStream(contracts: Contracts, events: SseEvent[], label: string) {
  const last = events.at(-1)!;
  events.forEach((event, index) => {
    const where = `${label}: chunk ${index}`;
    if (event.data === "[DONE]") {
      assertEquals(index, events.length - 1, `${where}: [DONE] ends the stream`);
      return;
    }
    const data = JSON.parse(event.data);
    if ("error" in data) {
      contracts.assert("openai", "ErrorResponse", data, where, "stream-error");
      assertEquals(index, events.length - 1, `${where}: an error ends the stream`);
      return;
    }
    contracts.assert("openai", "CreateChatCompletionStreamResponse", data, where, "stream");
  });
  if (!last.data.includes('"error"')) assertEquals(last.data, "[DONE]", `${label}: ends [DONE]`);
}

function checkResponsesStream(contracts: Contracts, events: SseEvent[], label: string) {
  const open = new Set<number>();
  events.forEach((event, index) => {
    const data = JSON.parse(event.data);
    const where = `${label}: event ${index} (${data.type})`;
    assertEquals(event.event, data.type, `${where}: the SSE event is named as its type`);
    const schema = RESPONSE_EVENTS[data.type];
    assertOk(schema, `${where}: a Responses stream event type`);
    contracts.assert(
      "openai",
      schema,
      data,
      where,
      data.type === "error" ? "stream-error" : "stream",
    );
    contracts.expect(
      `responses-sequence-number ${data.type}`,
      data.sequence_number,
      index,
      `${where}: sequence_number counts the events`,
    );
    if (data.type === "response.output_item.added") {
      contracts.expect(
        "responses-items-one-after-another",
        [...open],
        [],
        `${where}: an item starts once the one before is done`,
      );
      open.add(data.output_index);
    }
    if (data.type === "response.output_item.done") open.delete(data.output_index);
  });
  const first = JSON.parse(events[0].data).type;
  assertEquals(first, "response.created", `${label}: starts with response.created`);
}

function checkMessagesStream(contracts: Contracts, events: SseEvent[], label: string) {
  events.forEach((event, index) => {
    const data = JSON.parse(event.data);
    const where = `${label}: event ${index} (${data.type})`;
    assertEquals(event.event, data.type, `${where}: the SSE event is named as its type`);
    if (data.type === "ping") return assertEquals(data, { type: "ping" }, where);
    const schema = ANTHROPIC_EVENT_SCHEMAS[data.type];
    assertOk(schema, `${where}: a messages stream event type`);
    contracts.assert(
      "anthropic",
      schema,
      data,
      where,
      data.type === "error" ? "stream-error" : "stream",
    );
  });
  const types = events.map((event) => JSON.parse(event.data).type);
  assertEquals(types[0], "message_start", `${label}: starts with message_start`);
  if (!types.includes("error")) {
    assertEquals(types.at(-1), "message_stop", `${label}: ends with message_stop`);
  }
}

function checkGeminiStream(contracts: Contracts, events: SseEvent[], label: string) {
  events.forEach((event, index) => {
    const data = JSON.parse(event.data);
    const where = `${label}: chunk ${index}`;
    if ("error" in data) {
      checkGeminiError(contracts, data, null, where, "stream-error");
      assertEquals(index, events.length - 1, `${where}: an error ends the stream`);
      return;
    }
    contracts.assert("gemini", "GenerateContentResponse", data, where, "stream");
  });
}

function checkGeminiError(
  contracts: Contracts,
  body: Json,
  status: number | null,
  label: string,
  place: "whole" | "stream-error",
) {
  contracts.assert("gemini", "ErrorResponse", body, label, place);
  if (status !== null) assertEquals(body.error.code, status, `${label}: error.code is the status`);
  contracts.expect(
    `gemini-status-agrees ${body.error.code} ${body.error.status}`,
    body.error.code,
    GOOGLE_HTTP_STATUS[body.error.status],
    `${label}: the HTTP status of ${body.error.status}`,
  );
}

/** Reads and checks an error answer in the interface's envelope; returns its body. */
export async function checkError(
  contracts: Contracts,
  iface: Interface | "images" | "models",
  response: Response,
  label: string,
): Promise<Json> {
  assertOk(response.status >= 400, `${label}: an error status, got ${response.status}`);
  const body = await response.json();
  if (iface === "messages") {
    contracts.assert("anthropic", "ErrorResponse", body, label);
    contracts.expect(
      `anthropic-error-status ${response.status} ${body.error.type}`,
      response.status,
      ANTHROPIC_ERROR_STATUS[body.error.type],
      `${label}: the HTTP status of ${body.error.type}`,
    );
  } else if (iface === "generate-content") {
    checkGeminiError(contracts, body, response.status, label, "whole");
  } else {
    contracts.assert("openai", "ErrorResponse", body, label);
  }
  return body;
}
