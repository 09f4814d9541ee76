import { assertEquals } from "../../helpers/assert.ts";
import { withoutForeignReasoning } from "../../../core/formats/foreign_reasoning.ts";

const GEMINI = "gwsig1GECiQB";
const ANTHROPIC = "gwsig1ANEqQB";
const OPENAI = "gwsig1ORgAAAA";

Deno.test("pass-through: a body without labelled reasoning is the same object", () => {
  const body = {
    model: "m",
    max_tokens: 10,
    messages: [{
      role: "assistant",
      content: [{ type: "thinking", thinking: "t", signature: "EqQBown" }],
    }],
  };
  assertEquals(withoutForeignReasoning("anthropic", body).body === body, true);
  assertEquals(withoutForeignReasoning("openai-chat", body), { body, dropped: [] });
});

Deno.test("pass-through to Anthropic: another provider's thinking dropped, and thinking when the tool turn needs it", () => {
  const body = {
    model: "m",
    max_tokens: 4000,
    thinking: { type: "enabled", budget_tokens: 2048 },
    messages: [
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "", signature: GEMINI },
          { type: "tool_use", id: "t1", name: "f", input: {} },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] },
    ],
  };
  const { body: out, dropped } = withoutForeignReasoning("anthropic", body);
  assertEquals(out.messages[1].content, [{ type: "tool_use", id: "t1", name: "f", input: {} }]);
  assertEquals(out.thinking, undefined);
  assertEquals(dropped, ["messages[].content[type=thinking]", "thinking"]);
  // The client's body is not changed.
  assertEquals(body.messages[1].content.length, 2);
  // Thinking that came unsigned (from a chat upstream) cannot go to Anthropic either.
  const unsigned = withoutForeignReasoning("anthropic", {
    messages: [{
      role: "assistant",
      content: [{ type: "thinking", thinking: "t", signature: "" }, { type: "text", text: "a" }],
    }],
  });
  assertEquals(unsigned.body.messages[0].content, [{ type: "text", text: "a" }]);
  assertEquals(unsigned.dropped, ["messages[].content[type=thinking]"]);
  // Anthropic's own labelled signature goes back bare.
  const own = withoutForeignReasoning("anthropic", {
    messages: [{
      role: "assistant",
      content: [{ type: "thinking", thinking: "t", signature: ANTHROPIC }],
    }],
  });
  assertEquals(own.body.messages[0].content[0].signature, "EqQB");
});

Deno.test("pass-through to responses and Gemini: foreign reasoning dropped, own unlabelled", () => {
  const responses = withoutForeignReasoning("openai-responses", {
    input: [
      { type: "reasoning", summary: [], encrypted_content: ANTHROPIC },
      { type: "reasoning", summary: [], encrypted_content: OPENAI },
      { type: "reasoning", summary: [], encrypted_content: "gAAAAown" },
    ],
  });
  assertEquals(
    responses.body.input.map((item: { encrypted_content: string }) => item.encrypted_content),
    [
      "gAAAA",
      "gAAAAown",
    ],
  );
  assertEquals(responses.dropped, ["input[type=reasoning]"]);
  const gemini = withoutForeignReasoning("gemini", {
    contents: [{
      role: "model",
      parts: [
        { text: "t", thought: true, thoughtSignature: ANTHROPIC },
        { functionCall: { name: "f", args: {} }, thoughtSignature: OPENAI },
        { text: "own", thought: true, thoughtSignature: GEMINI },
      ],
    }],
  });
  assertEquals(gemini.body.contents[0].parts, [
    { functionCall: { name: "f", args: {} }, thoughtSignature: "skip_thought_signature_validator" },
    { text: "own", thought: true, thoughtSignature: "CiQB" },
  ]);
  assertEquals(gemini.dropped, ["contents[].parts[thought]"]);
});
