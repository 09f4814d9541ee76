/** Keeps log lines a test expects out of the test output, so the test can assert on them. */

/**
 * Runs `fn` with `console.error` recording its lines instead of printing them, and puts
 * `console.error` back afterwards. Test files run their tests one at a time, so only the
 * gateway work `fn` awaits writes here.
 */
export async function captureConsoleError<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; lines: string[] }> {
  const original = console.error;
  const lines: string[] = [];
  console.error = (...args: unknown[]) => {
    lines.push(args.map((arg) => typeof arg === "string" ? arg : Deno.inspect(arg)).join(" "));
  };
  try {
    return { result: await fn(), lines };
  } finally {
    console.error = original;
  }
}
