/**
 * The gateway's text answers as the vendors define them: every inbound interface over every
 * channel type (4 × 4, pass-through and converted), whole and streamed, for a plain answer, two
 * tool calls and reasoning, each answer and every stream event validated against the
 * interface's vendor definition (tests/fixtures/contracts/), and token counts.
 */

import { assertEquals } from "../../helpers/assert.ts";
import { Contracts } from "../../helpers/contracts.ts";
import { postJson, serverTest } from "../../helpers/gateway.ts";
import { INBOUND } from "../../helpers/text_inbound.ts";
import { CHANNEL_TYPES, MODEL_OF, setupText, type TextSetup } from "../../helpers/text_setup.ts";
import { KNOWN_GAPS } from "./known_gaps.ts";
import { ANSWER_KINDS, ASK, type Interface, INTERFACES, WITH_IMAGE } from "./text_requests.ts";
import { checkAnswer } from "./wire_checks.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const contracts = new Contracts(KNOWN_GAPS);

function send(s: TextSetup, iface: Interface, model: string, stream: boolean, extra: Json) {
  const spec = INBOUND[iface];
  return postJson(
    s.gw,
    spec.path(model, stream),
    null,
    { ...spec.body(model, stream), ...extra },
    spec.headers(s.key),
  );
}

/** A Responses answer (whole, or every Response a stream carries) names the declared tools. */
function checkDeclaredTools(read: Json[], declared: Json[] | undefined, label: string) {
  const responses = read.map((value) => value.object === "response" ? value : value.response)
    .filter(Boolean);
  for (const response of responses) {
    contracts.expect(
      "responses-declared-tools",
      response.tools.map((tool: Json) => tool.name),
      (declared ?? []).map((tool) => tool.name),
      `${label}: tools`,
    );
  }
}

for (const iface of INTERFACES) {
  Deno.test(`contracts: ${iface} answers from every channel type`, serverTest, async () => {
    await using s = await setupText();
    for (const channel of CHANNEL_TYPES) {
      for (const kind of ANSWER_KINDS) {
        for (const stream of [false, true]) {
          const label = `${iface} → ${channel}, ${kind}, ${stream ? "streamed" : "whole"}`;
          // A chat stream asked for usage ends with a usage chunk (no choices) to check too.
          const usage = iface === "chat" && stream
            ? { stream_options: { include_usage: true } }
            : {};
          const extra = { ...ASK[iface][kind], ...usage };
          const response = await send(s, iface, MODEL_OF[channel], stream, extra);
          const read = await checkAnswer(contracts, iface, response, stream, label);
          if (iface === "responses") checkDeclaredTools(read, ASK.responses[kind].tools, label);
        }
      }
      const response = await send(s, iface, MODEL_OF[channel], false, WITH_IMAGE[iface]);
      await checkAnswer(contracts, iface, response, false, `${iface} → ${channel}, an image`);
    }
  });
}

Deno.test("contracts: token counts of every channel type", serverTest, async () => {
  await using s = await setupText();
  for (const channel of CHANNEL_TYPES) {
    const model = MODEL_OF[channel];
    const anthropic = await postJson(
      s.gw,
      "/v1/messages/count_tokens",
      null,
      { model, messages: [{ role: "user", content: "hi" }] },
      INBOUND.messages.headers(s.key),
    );
    assertEquals(anthropic.status, 200, `count_tokens → ${channel}`);
    contracts.assert("anthropic", "MessageTokensCount", await anthropic.json(), channel);

    if (contracts.skips("gemini-count-tokens")) continue;
    const gemini = await postJson(
      s.gw,
      `/v1beta/models/${model}:countTokens`,
      null,
      { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
      INBOUND["generate-content"].headers(s.key),
    );
    assertEquals(gemini.status, 200, `countTokens → ${channel}`);
    contracts.assert("gemini", "CountTokensResponse", await gemini.json(), channel);
  }
});
