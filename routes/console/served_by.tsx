/** A model's channels, each name linked to its page, and the warning for an unserved model. */

import type { Channel } from "../../core/channels/channel_schema.ts";
import type { ModelCoverage } from "./model_coverage.ts";

export const UNCOVERED_TEXT = "no enabled channel serves it";

export function ServedBy({ coverage }: { coverage: ModelCoverage }) {
  return (
    <>
      {coverage.listedBy.length === 0 ? <span class="muted">no channel</span> : null}
      {coverage.listedBy.map((channel: Channel, index) => (
        <>
          {index > 0 ? ", " : ""}
          <a href={`/console/channels/${channel.id}`}>{channel.name}</a>
          {channel.enabled ? "" : " "}
          {channel.enabled ? "" : <span class="muted">(disabled)</span>}
        </>
      ))}
      {coverage.uncovered
        ? (
          <div>
            <span class="badge warn" role="status">⚠ {UNCOVERED_TEXT}</span>
          </div>
        )
        : null}
    </>
  );
}
