/**
 * A real SMTP server (npm `smtp-server`), run as its own process by tests/helpers/smtp_server.ts:
 * `deno run -A --config tests/deno.json tests/helpers/smtp_server_process.ts`. It listens on
 * 127.0.0.1 on a free port, takes AUTH PLAIN/LOGIN with `test`/`test-pass` (no TLS: loopback),
 * parses each mail with `mailparser` and prints one JSON line per mail on stdout:
 * {"from","to","subject","text"}. Its first line is {"listening": <port>}.
 */

import { SMTPServer } from "smtp-server";
import { simpleParser } from "mailparser";

const server = new SMTPServer({
  secure: false,
  disabledCommands: ["STARTTLS"],
  allowInsecureAuth: true,
  authMethods: ["PLAIN", "LOGIN"],
  logger: false,
  onAuth(auth, _session, callback) {
    if (auth.username === "test" && auth.password === "test-pass") {
      return callback(null, { user: auth.username });
    }
    callback(new Error("Invalid username or password"));
  },
  onData(stream, session, callback) {
    simpleParser(stream).then((mail) => {
      const line = {
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
        to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
        subject: mail.subject ?? "",
        text: mail.text ?? "",
        user: session.user ?? null,
      };
      console.log(JSON.stringify(line));
      callback();
    }, (error) => callback(error));
  },
});

server.listen(0, "127.0.0.1", () => {
  const address = server.server.address();
  console.log(JSON.stringify({ listening: typeof address === "object" ? address?.port : null }));
});
