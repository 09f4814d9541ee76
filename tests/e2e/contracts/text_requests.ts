/** Requests that draw each kind of answer from a text interface: plain, tool calls, reasoning. */

import { RED_PNG_B64, WEATHER_SCHEMA } from "../../helpers/text_setup.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export type Interface = "chat" | "responses" | "messages" | "generate-content";
export const INTERFACES: Interface[] = ["chat", "responses", "messages", "generate-content"];

export type AnswerKind = "plain" | "tools" | "thinking";
export const ANSWER_KINDS: AnswerKind[] = ["plain", "tools", "thinking"];

/** Two tools: the simulators call the first two offered, so the answer has two tool calls. */
const TOOLS = ["get_weather", "get_time"];

/** Fields added to an interface's plain request (tests/helpers/text_inbound.ts) for each kind. */
export const ASK: Record<Interface, Record<AnswerKind, Json>> = {
  chat: {
    plain: {},
    tools: {
      tools: TOOLS.map((name) => ({
        type: "function",
        function: { name, parameters: WEATHER_SCHEMA },
      })),
    },
    thinking: { reasoning_effort: "low", max_completion_tokens: 4000 },
  },
  responses: {
    plain: {},
    tools: {
      tools: TOOLS.map((name) => ({ type: "function", name, parameters: WEATHER_SCHEMA })),
    },
    thinking: { reasoning: { effort: "low", summary: "auto" }, max_output_tokens: 4000 },
  },
  messages: {
    plain: {},
    tools: { tools: TOOLS.map((name) => ({ name, input_schema: WEATHER_SCHEMA })) },
    thinking: { max_tokens: 4000, thinking: { type: "enabled", budget_tokens: 2048 } },
  },
  "generate-content": {
    plain: {},
    tools: {
      tools: [{
        functionDeclarations: TOOLS.map((name) => ({
          name,
          parametersJsonSchema: WEATHER_SCHEMA,
        })),
      }],
    },
    thinking: {
      generationConfig: {
        maxOutputTokens: 4000,
        thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 },
      },
    },
  },
};

/** An image in the user turn, in each interface's own form (the echo names it). */
export const WITH_IMAGE: Record<Interface, Json> = {
  chat: {
    messages: [{
      role: "user",
      content: [{ type: "text", text: "hi" }, {
        type: "image_url",
        image_url: { url: `data:image/png;base64,${RED_PNG_B64}` },
      }],
    }],
  },
  responses: {
    input: [{
      role: "user",
      content: [{ type: "input_text", text: "hi" }, {
        type: "input_image",
        image_url: `data:image/png;base64,${RED_PNG_B64}`,
      }],
    }],
  },
  messages: {
    messages: [{
      role: "user",
      content: [{ type: "text", text: "hi" }, {
        type: "image",
        source: { type: "base64", media_type: "image/png", data: RED_PNG_B64 },
      }],
    }],
  },
  "generate-content": {
    contents: [{
      role: "user",
      parts: [{ text: "hi" }, { inlineData: { mimeType: "image/png", data: RED_PNG_B64 } }],
    }],
  },
};
