/** A video task as the providers see it, and the upstream task states they report. */

import { jsonOrNull } from "../json_or_null.ts";
import { UpstreamAttemptError } from "../upstream.ts";
import type { ReferenceKind } from "./reference_media.ts";

/** A reference file kept in the media store for the task's life. */
export interface VideoReference {
  field: string;
  kind: ReferenceKind;
  media_id: string;
  content_type: string;
  filename: string;
  /** Seconds read by ffprobe (video and audio on per-second models); null when not probed. */
  seconds: number | null;
}

export interface VideoJob {
  model: string;
  prompt: string;
  duration: number;
  ratio: string;
  references: VideoReference[];
}

/** One upstream poll, in neutral terms. */
export type UpstreamVideoState =
  | { state: "queued" | "running"; progress?: string }
  | { state: "succeeded"; videoUrl: string }
  | { state: "failed"; reason: string };

/** The task id in an upstream's create answer (`{id}` on both video upstreams). */
export function readCreatedTaskId(text: string): string {
  const id = jsonOrNull(text)?.id;
  if (typeof id !== "string" || id === "") {
    throw new UpstreamAttemptError("The upstream's create answer has no task id", {
      retryable: true,
    });
  }
  return id;
}
