/**
 * The answers this process is still relaying to clients (text streams, speech audio), so that a
 * graceful stop can end them at its deadline rather than leave them to die with the process.
 */

/** A relay a stop can end: it bills or releases by its own rule and closes the client's body. */
export interface CuttableStream {
  cut(): void;
}

const OPEN = new Set<CuttableStream>();

/** `stream` is relaying; `streamEnded` when it is over, however it ended. */
export function streamOpened(stream: CuttableStream): void {
  OPEN.add(stream);
}

export function streamEnded(stream: CuttableStream): void {
  OPEN.delete(stream);
}

/** Ends every relay still open (a graceful stop at its deadline). Returns how many were. */
export function cutOpenStreams(): number {
  const open = [...OPEN];
  for (const stream of open) stream.cut();
  return open.length;
}
