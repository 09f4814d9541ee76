/**
 * OpenAI's moderations call on an `openai` channel: the client's body passed through (its model
 * mapped) to `{base_url}/moderations`, and the answer passed back as it came.
 */

import { UpstreamAttemptError } from "../upstream/attempt.ts";
import { bearerJson, type ModerationProvider } from "./provider.ts";

export const openAIModerations: ModerationProvider = {
  request: ({ channel, apiKey, model }, body) =>
    Promise.resolve({
      url: `${channel.base_url}/moderations`,
      init: {
        method: "POST",
        headers: bearerJson(apiKey),
        body: JSON.stringify({ ...body, model }),
      },
    }),
  read(text) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const answer = json as Record<string, unknown> | undefined;
    if (!answer || typeof answer !== "object" || !Array.isArray(answer.results)) {
      throw new UpstreamAttemptError(
        "bad_answer: the upstream's moderation answer has no results",
        {
          retryable: true,
          errorClass: "bad_answer",
        },
      );
    }
    return answer;
  },
};
