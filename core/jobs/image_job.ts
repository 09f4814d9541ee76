/** The neutral form of one image request, whatever interface it came in on and channel it goes to. */

/** An image sent to the upstream: a source image of an edit, or a mask. */
export interface InputImage {
  bytes: Uint8Array<ArrayBuffer>;
  mimeType: string;
  filename: string;
}

export interface ImageJob {
  action: "generations" | "edits";
  /** The public model id. */
  model: string;
  prompt: string;
  n: number;
  /** `auto` or `WIDTHxHEIGHT`. */
  size: string;
  quality: "auto" | "low" | "medium" | "high";
  user?: string;
  /** Source images of an edit, in order; empty for a generation. */
  images: InputImage[];
  mask?: InputImage;
}

/** One image as an upstream returned it: base64 (maybe a data URL) or a URL to fetch. */
export interface UpstreamImage {
  b64?: string;
  url?: string;
  mimeType: string;
  revisedPrompt?: string;
}

/** What one channel produced for a job. */
export interface ImageAttemptResult {
  images: UpstreamImage[];
  /** Request fields this channel could not honour (named in `x-gateway-ignored-fields`). */
  ignoredFields: string[];
}

export interface Dimensions {
  width: number;
  height: number;
}

/** Parses `WIDTHxHEIGHT`; null for anything else (including `auto`). */
export function parseSize(size: string): Dimensions | null {
  const match = /^(\d{1,5})x(\d{1,5})$/.exec(size);
  if (!match) return null;
  return { width: Number(match[1]), height: Number(match[2]) };
}
