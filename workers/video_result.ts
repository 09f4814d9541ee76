/**
 * Hosting a finished video whose upstream address needs the channel's key (Sora's `/content`,
 * Veo's `video.uri`): fetched with the key and kept in the media store, so the client gets the
 * gateway's address and never the upstream's. The media id is written to the task before the
 * download, so a run done again (a lost lease, a crash, a retried poll) finds the object stored
 * or stores it under the same id: one object per task, never two.
 */

import type { Channel } from "../core/channels/channel_schema.ts";
import { crashPoint } from "../core/crash_points.ts";
import type { Gateway } from "../core/gateway.ts";
import { hostedExtension, newMediaId } from "../core/media/media_store.ts";
import { providerOf, upstreamTarget } from "../core/providers/provider_table.ts";
import type { TaskRecord } from "../core/tasks/task_record.ts";
import { callUpstreamBytes } from "../core/upstream/call.ts";
import type { VideoTaskInput } from "../core/video/video_service.ts";

/** The hosted address of the task's video: fetched and stored now, or stored by an earlier run. */
export async function hostVideoResult(
  gateway: Gateway,
  task: TaskRecord<VideoTaskInput>,
  input: { channel: Channel; download: string; workerId: string; signal: AbortSignal },
): Promise<string | null> {
  const { channel, workerId, signal } = input;
  let mediaId = task.result_media_id;
  if (!mediaId) {
    mediaId = newMediaId();
    const kept = await gateway.tasks.update(task.id, {
      workerId,
      update: { result_media_id: mediaId },
    });
    if (!kept) return null; // the lease was lost: the run that has it hosts the video
    task.result_media_id = mediaId;
  }
  const stored = await gateway.media.get(mediaId);
  if (stored) return addressOf(task, stored.id, stored.content_type);
  const provider = providerOf(channel);
  // Built here, not in the call: a FinalDownloadError must reach the runner as it is.
  const request = await provider.video!.download!(
    upstreamTarget(channel, task.model),
    input.download,
  );
  const bytes = await callUpstreamBytes(channel, request, {
    signal,
    errors: provider.errors,
    maxBytes: gateway.options.upstreamMaxBytes.media,
  });
  const record = await gateway.media.put(bytes, {
    owner: task.owner,
    id: mediaId,
    contentType: "video/mp4",
  });
  crashPoint("video.after_result_stored");
  return addressOf(task, record.id, record.content_type);
}

function addressOf(task: TaskRecord<VideoTaskInput>, id: string, contentType: string): string {
  return `${task.input.public_url}/media/${id}.${hostedExtension(contentType) ?? "bin"}`;
}
