/** The text fields of a video request (multipart, so every value arrives as a string). */

import { z } from "zod";
import { DEFAULT_DURATION, MAX_DURATION, MIN_DURATION } from "./video_models.ts";

export const KNOWN_VIDEO_FIELDS = new Set(["model", "prompt", "duration", "ratio", "resolution"]);

export const videoFieldsSchema = z.object({
  model: z.string({ error: "model is required" }).min(1, "model is required"),
  // The longest prompt is the model's (video_models.ts), checked once the model is known.
  prompt: z.string({ error: "prompt is required" }).trim().min(1, "prompt must not be empty"),
  duration: z.string().optional().transform((value, ctx) => {
    if (value === undefined) return DEFAULT_DURATION;
    const seconds = /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
    if (!Number.isInteger(seconds) || seconds < MIN_DURATION || seconds > MAX_DURATION) {
      ctx.addIssue({
        code: "custom",
        message:
          `duration must be a whole number of seconds from ${MIN_DURATION} to ${MAX_DURATION}`,
      });
      return z.NEVER;
    }
    return seconds;
  }),
  ratio: z.string().optional(),
  resolution: z.undefined({
    error: "resolution is not accepted: it comes from the model name (vid-2-480p, vid-2-720p, " +
      "vid-2-1080p, vid-2-2k, vid-2-4k; vid-2 is 720p)",
  }).optional(),
});
