/**
 * One loop that runs a pass, waits, and runs it again: the task worker's, the webhook worker's
 * and each sweep's. The wait is `intervalMs` from the end of the last pass (no jitter, no
 * backoff); `wake()` ends it at once. Never two passes at once: a pass asked for while one runs
 * joins it. A pass that throws is logged through `onError` and the loop goes on. `stop()` ends
 * the loop and waits for the pass under way.
 */

export interface PollLoopOptions {
  /** One pass of the work. */
  pass: () => Promise<unknown>;
  /** The wait between the end of a pass and the next, when nothing wakes the loop. */
  intervalMs: number;
  /** Logs a pass that threw. */
  onError: (error: unknown) => void;
  /** The first pass waits one interval from construction (the sweeps); else it runs at start. */
  waitFirst?: boolean;
  /** Wraps each pass, e.g. to keep it alive through shutdown (Gateway.track). */
  track?: <T>(work: Promise<T>) => Promise<T>;
}

export class PollLoop {
  readonly #options: PollLoopOptions;
  /** When the next pass is due, unless woken before. */
  #nextAt: number;
  #stopped = false;
  #loop?: Promise<void>;
  #running?: Promise<void>;
  /** Set by wake() and again(): pass again without waiting. */
  #again = false;
  #endWait?: () => void;

  constructor(options: PollLoopOptions) {
    this.#options = options;
    this.#nextAt = options.waitFirst ? Date.now() + options.intervalMs : 0;
  }

  /** Starts the loop (again, after a stop). */
  start(): void {
    this.#stopped = false;
    this.#loop = this.#run();
  }

  /** Runs a pass now rather than at the end of the wait (or right after the pass under way). */
  wake(): void {
    this.#again = true;
    this.#endWait?.();
  }

  /**
   * Asks for another pass straight after the one under way (a pass that found more work than it
   * took). Outside a pass it changes nothing: the loop's next pass comes at its time.
   */
  again(): void {
    this.#again = true;
  }

  /** Runs a pass now, or joins the one under way; resolves when it ends (also before start). */
  async runNow(): Promise<void> {
    const track = this.#options.track ?? ((work) => work);
    await (this.#running ??= track(
      this.#options.pass().then(() => {}, (error) => this.#options.onError(error)).finally(() => {
        this.#running = undefined;
        this.#nextAt = Date.now() + this.#options.intervalMs;
      }),
    ));
  }

  /** Stops the loop and waits for the pass under way. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#endWait?.();
    await this.#loop;
    await this.#running;
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      await this.#wait();
      if (this.#stopped) return;
      this.#again = false;
      await this.runNow();
    }
  }

  /** Waits until the next pass is due, the loop is woken or stopped. */
  async #wait(): Promise<void> {
    while (!this.#again && !this.#stopped && Date.now() < this.#nextAt) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.#nextAt - Date.now());
        this.#endWait = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#endWait = undefined;
    }
  }
}
