/** A transcription or translation as the gateway sends it upstream. */

/** The uploaded audio, its format judged from its bytes. */
export interface AudioFile {
  bytes: Uint8Array<ArrayBuffer>;
  /** The name sent upstream: the client's, or `audio.{ext}` when its extension was not the format's. */
  filename: string;
  /** The content type sniffed from the bytes (audio/mpeg, audio/wav, video/mp4, …). */
  contentType: string;
}

export type TranscriptionAction = "transcriptions" | "translations";

/** The answer formats of OpenAI's transcription API. */
export const RESPONSE_FORMATS = ["json", "text", "srt", "vtt", "verbose_json"] as const;
export type TranscriptFormat = typeof RESPONSE_FORMATS[number];

export interface TranscriptionJob {
  action: TranscriptionAction;
  /** The public model id. */
  model: string;
  file: AudioFile;
  /**
   * The request's other form fields passed upstream in order (language, prompt, temperature,
   * response_format, timestamp_granularities[], stream, …), already checked.
   */
  fields: Array<[string, string]>;
  format: TranscriptFormat;
  stream: boolean;
}

/** Whether answers in `format` are plain text (text, srt, vtt) rather than JSON. */
export function isPlainTextFormat(format: TranscriptFormat): boolean {
  return format === "text" || format === "srt" || format === "vtt";
}
