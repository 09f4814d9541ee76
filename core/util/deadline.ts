/**
 * A deadline that moves: `touch()` pushes it back, `stop()` disarms it. Every deadline of the
 * process shares one timer, set for the earliest due time among the armed ones; arming, moving
 * and stopping a deadline only note a time and add or remove it from a set. A request arms two
 * or three of them (body read, upstream call, stream idle), so a timer of its own for each —
 * set, cleared, re-set at each chunk — was measurable per request (docs/performance.md).
 */

export class Deadline {
  readonly #onExpire: () => void;
  #ms: number;
  #due = 0;

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

  /** Restarts the deadline (arming it if it fired or was stopped); with `ms`, from now on it allows that long. */
  touch(ms?: number): void {
    if (ms !== undefined) this.#ms = ms;
    this.#due = performance.now() + this.#ms;
    const armed = Deadline.#armed;
    const first = armed.size === 0;
    armed.add(this);
    if (this.#due < Deadline.#timerAt) Deadline.#schedule(this.#due);
    else if (first && Deadline.#timer !== undefined) Deno.refTimer(Deadline.#timer);
  }

  /** Stops the deadline: it does not fire unless touched again. */
  stop(): void {
    const armed = Deadline.#armed;
    if (armed.delete(this) && armed.size === 0 && Deadline.#timer !== undefined) {
      // The timer stays set for the stopped deadline's time (clearing and setting it again per
      // request would cost what the sharing saves) but no longer keeps the process alive.
      Deno.unrefTimer(Deadline.#timer);
    }
  }

  static #armed = new Set<Deadline>();
  static #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the shared timer fires (Infinity: not set). */
  static #timerAt = Infinity;

  static #schedule(at: number): void {
    clearTimeout(Deadline.#timer);
    Deadline.#timerAt = at;
    Deadline.#timer = setTimeout(Deadline.#tick, Math.max(0, at - performance.now()));
  }

  /** Fires the deadlines that are due and sets the timer for the earliest of the rest. */
  static #tick = (): void => {
    Deadline.#timer = undefined;
    Deadline.#timerAt = Infinity;
    // Timers may fire a little early; a deadline within a millisecond of its time is due.
    const now = performance.now() + 1;
    const due: Deadline[] = [];
    let next = Infinity;
    for (const deadline of Deadline.#armed) {
      if (deadline.#due <= now) due.push(deadline);
      else if (deadline.#due < next) next = deadline.#due;
    }
    for (const deadline of due) Deadline.#armed.delete(deadline);
    if (next < Infinity) Deadline.#schedule(next);
    for (const deadline of due) {
      try {
        deadline.#onExpire();
      } catch (error) {
        // As an error thrown by a timer's callback: reported, and the others still fire.
        reportError(error);
      }
    }
  };
}
