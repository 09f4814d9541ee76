import { assertEquals } from "../../helpers/assert.ts";
import { betaMatches, filterAnthropicBetas } from "../../../core/providers/anthropic_betas.ts";

const SENT = [
  "claude-code-20250219",
  "oauth-2025-04-20",
  "context-management-2025-06-27",
  "interleaved-thinking-2025-05-14",
];

Deno.test("betaMatches() matches a name exactly, or a prefix that ends with '*'", () => {
  assertEquals(betaMatches("oauth-2025-04-20", "oauth-2025-04-20"), true);
  assertEquals(betaMatches("oauth-2025-04-20", "oauth-2025-04-21"), false);
  assertEquals(betaMatches("oauth-*", "oauth-2025-04-20"), true);
  assertEquals(betaMatches("oauth", "oauth-2025-04-20"), false);
  assertEquals(betaMatches("*", "anything"), true);
});

Deno.test("filterAnthropicBetas() without rules keeps every value", () => {
  assertEquals(filterAnthropicBetas(SENT, undefined), { kept: SENT, removed: [] });
  assertEquals(filterAnthropicBetas(SENT, {}), { kept: SENT, removed: [] });
});

Deno.test("filterAnthropicBetas() with an allow list keeps only what it matches, in order", () => {
  assertEquals(
    filterAnthropicBetas(SENT, { allow: ["interleaved-thinking-2025-05-14", "claude-code-*"] }),
    {
      kept: ["claude-code-20250219", "interleaved-thinking-2025-05-14"],
      removed: ["oauth-2025-04-20", "context-management-2025-06-27"],
    },
  );
  assertEquals(filterAnthropicBetas(SENT, { allow: [] }), { kept: [], removed: SENT });
});

Deno.test("filterAnthropicBetas() with a deny list removes what it matches, also from the allowed", () => {
  assertEquals(filterAnthropicBetas(SENT, { deny: ["oauth-*"] }), {
    kept: [
      "claude-code-20250219",
      "context-management-2025-06-27",
      "interleaved-thinking-2025-05-14",
    ],
    removed: ["oauth-2025-04-20"],
  });
  assertEquals(
    filterAnthropicBetas(SENT, { allow: ["*"], deny: ["context-management-2025-06-27"] }).removed,
    ["context-management-2025-06-27"],
  );
});
