import { assertEquals } from "../../helpers/assert.ts";
import { signatureFor, signatureFrom, signedBy } from "../../../core/formats/signature.ts";

Deno.test("signatures: a bare one is its format's own, a labelled one keeps its signer", () => {
  const anthropic = signatureFrom("EqQBCg==", { format: "anthropic" })!;
  assertEquals(anthropic, "gwsig1ANEqQBCg==");
  assertEquals(signatureFrom(anthropic, { format: "openai-responses" }), anthropic);
  assertEquals(signedBy(anthropic), { signer: "anthropic", kind: "thinking", value: "EqQBCg==" });
  assertEquals(
    signatureFrom("ZGF0YQ==", { format: "anthropic", kind: "redacted" }),
    "gwsig1ARZGF0YQ==",
  );
  assertEquals(signatureFrom("gAAAA", { format: "openai-responses" }), "gwsig1ORgAAAA");
  assertEquals(signatureFrom("CiQB", { format: "gemini" }), "gwsig1GECiQB");
  // Chat completions has no signatures; an empty one is none.
  assertEquals(signatureFrom("abc", { format: "openai-chat" }), undefined);
  assertEquals(signatureFrom("", { format: "anthropic" }), undefined);
});

Deno.test("signatures: the provider's own value goes only to that provider", () => {
  const gemini = signatureFrom("CiQB", { format: "gemini" });
  assertEquals(signatureFor(gemini, "gemini"), { value: "CiQB", kind: "thinking" });
  assertEquals(signatureFor(gemini, "anthropic"), undefined);
  assertEquals(signatureFor(gemini, "openai-responses"), undefined);
  assertEquals(signatureFor("gwsig1ARZGF0YQ==", "anthropic"), {
    value: "ZGF0YQ==",
    kind: "redacted",
  });
  assertEquals(signatureFor(undefined, "anthropic"), undefined);
  assertEquals(signatureFor("gwsig1ZZunknown", "anthropic"), undefined);
});
