/**
 * MP4/MOV boxes parsed by mp4box (GPAC's MP4Box.js), with its complaints collected for an error
 * message instead of printed.
 */

import { createFile, Log, MP4BoxBuffer } from "mp4box";

export type Mp4File = ReturnType<typeof createFile>;
export type Trak = NonNullable<Mp4File["moov"]>["traks"][number];

/** The parsed boxes of `bytes` (a whole file, or a moov box alone), and what mp4box objected to. */
export function parseWithMp4box(bytes: Uint8Array) {
  const file = createFile();
  const problems: string[] = [];
  // mp4box prints parse errors on the console; collect them for the error message instead. The
  // parse below is synchronous, so no other caller sees the swapped logger.
  const logError = Log.error;
  Log.error = (module: string, message?: string) => void problems.push(`${module}: ${message}`);
  file.onError = (module: string, message: string) => void problems.push(`${module}: ${message}`);
  try {
    file.appendBuffer(MP4BoxBuffer.fromArrayBuffer(bytes.slice().buffer, 0), true);
    file.flush();
  } catch (error) {
    problems.push((error as Error).message);
  } finally {
    Log.error = logError;
  }
  return { file, problems };
}
