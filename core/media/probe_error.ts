/** Why a duration could not be read; the request is refused and nothing is charged. */
export class ProbeError extends Error {
  constructor(message: string, readonly unavailable = false) {
    super(message);
    this.name = "ProbeError";
  }
}
