/**
 * One timer for a deadline that moves: `touch()` pushes it back by noting a time, without
 * clearing and setting a timer each time (a body read or a stream touches it per chunk). The
 * one timer, when it fires early, sets itself again for what is left. Once it fired or was
 * stopped, it waits for the next touch.
 */

export class Deadline {
  readonly #onExpire: () => void;
  #ms: number;
  #due = 0;
  #timer?: ReturnType<typeof setTimeout>;

  /** Calls `onExpire` once `ms` pass without a touch. */
  constructor(ms: number, onExpire: () => void) {
    this.#ms = ms;
    this.#onExpire = onExpire;
    this.touch();
  }

  /** How long the deadline allows from each touch. */
  get ms(): number {
    return this.#ms;
  }

  /** Restarts the deadline; with `ms`, from now on it allows that long. */
  touch(ms?: number): void {
    const shorter = ms !== undefined && ms < this.#ms;
    if (ms !== undefined) this.#ms = ms;
    this.#due = performance.now() + this.#ms;
    if (shorter) this.#clear();
    this.#timer ??= setTimeout(() => this.#fire(), this.#ms);
  }

  #fire(): void {
    this.#timer = undefined;
    const left = this.#due - performance.now();
    if (left > 0) {
      this.#timer = setTimeout(() => this.#fire(), left);
      return;
    }
    this.#onExpire();
  }

  #clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Stops the deadline: it does not fire unless touched again. */
  stop(): void {
    this.#clear();
  }
}
