/** What a duration reader (ffprobe or the in-process one) answers for one media file. */
export interface ProbedMedia {
  /** Seconds, as the container reports it. */
  seconds: number;
  /** The kinds of stream present: `video`, `audio`, … */
  streams: string[];
  formatName: string;
}
