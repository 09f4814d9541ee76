/**
 * Starts a real SMTP server process (smtp_server_process.ts: npm `smtp-server` + `mailparser`)
 * and reads the mails it receives from its stdout, one JSON line each.
 */

export interface ReceivedMail {
  from: string | null;
  to: string[];
  subject: string;
  text: string;
  /** The user the sender authenticated as. */
  user: string | null;
}

export interface SmtpServer extends AsyncDisposable {
  /** GATEWAY_SMTP_URL for the gateway: smtp://test:test-pass@127.0.0.1:<port>. */
  url: string;
  mails: ReceivedMail[];
  /** Waits for the next mail to `to` (at most `timeoutMs`). */
  nextMailTo(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

const SCRIPT = new URL("./smtp_server_process.ts", import.meta.url).pathname;
const CONFIG = new URL("../deno.json", import.meta.url).pathname;

export async function startSmtpServer(): Promise<SmtpServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", CONFIG, SCRIPT],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const mails: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const waiters = new Set<() => void>();
  let resolvePort!: (port: number) => void;
  let rejectPort!: (error: Error) => void;
  const port = new Promise<number>((resolve, reject) => {
    resolvePort = resolve;
    rejectPort = reject;
  });
  const reading = (async () => {
    const lines = child.stdout.pipeThrough(new TextDecoderStream());
    let buffer = "";
    for await (const chunk of lines) {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, end).trim();
        buffer = buffer.slice(end + 1);
        if (!line) continue;
        const parsed = JSON.parse(line);
        if ("listening" in parsed) resolvePort(parsed.listening);
        else {
          mails.push(parsed);
          for (const wake of waiters) wake();
        }
      }
    }
    rejectPort(new Error("the SMTP server process ended before listening"));
  })();
  const timer = setTimeout(() => rejectPort(new Error("the SMTP server did not start")), 30_000);
  const listening = await port.finally(() => clearTimeout(timer));
  const server: SmtpServer = {
    url: `smtp://test:test-pass@127.0.0.1:${listening}`,
    mails,
    nextMailTo(to, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const look = () => {
          const mail = mails.find((m) => !taken.has(m) && m.to.includes(to));
          if (!mail) return false;
          taken.add(mail);
          waiters.delete(check);
          clearTimeout(timeout);
          resolve(mail);
          return true;
        };
        const check = () => void look();
        const timeout = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no mail to ${to} within ${timeoutMs} ms`));
        }, timeoutMs);
        if (!look()) waiters.add(check);
      });
    },
    async close() {
      try {
        child.kill();
      } catch {
        // ended already
      }
      await child.status;
      await reading.catch(() => {});
    },
    [Symbol.asyncDispose]() {
      return server.close();
    },
  };
  return server;
}

/** The first http(s) link in a mail's text. */
export function linkIn(mail: ReceivedMail): string {
  const match = mail.text.match(/https?:\/\/\S+/);
  if (!match) throw new Error(`no link in the mail '${mail.subject}'`);
  return match[0];
}
