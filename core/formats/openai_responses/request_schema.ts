/** The responses request as the gateway checks it; other fields pass through or are named. */

import { z } from "zod";

export const responsesRequestSchema = z.looseObject({
  model: z.string({ error: "model is required" }).min(1, "model is required"),
  input: z.union([z.string(), z.array(z.looseObject({}))], {
    error: "input must be a string or an array of input items",
  }).optional(),
  instructions: z.string().nullish(),
  stream: z.boolean().nullish(),
  max_output_tokens: z.int().positive().nullish(),
  tools: z.array(z.looseObject({ type: z.string() })).nullish(),
  previous_response_id: z.string().nullish(),
}).superRefine((body, ctx) => {
  if (
    body.input === undefined && !body.previous_response_id && !body.prompt && !body.conversation
  ) {
    ctx.addIssue({ code: "custom", path: ["input"], message: "input is required" });
  }
});
