/**
 * Outgoing mail (invitations, reset links) through SMTP with nodemailer, when GATEWAY_SMTP_URL
 * (`smtp://user:pass@host:port`, or `smtps://…`) and GATEWAY_MAIL_FROM are set. Without them
 * nothing is sent: `send` answers false and the caller hands the link to the operator once.
 */

import nodemailer from "nodemailer";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Whether mail is sent at all (SMTP configured). */
  readonly configured: boolean;
  /** Sends `message`; false when SMTP is not configured. Throws when the server refuses it. */
  send(message: MailMessage): Promise<boolean>;
}

export interface MailSettings {
  smtpUrl?: string;
  mailFrom?: string;
}

export function createMailer({ smtpUrl, mailFrom }: MailSettings): Mailer {
  if (!smtpUrl || !mailFrom) {
    return { configured: false, send: () => Promise.resolve(false) };
  }
  const url = new URL(smtpUrl);
  const transport = nodemailer.createTransport({
    host: url.hostname,
    port: Number(url.port || (url.protocol === "smtps:" ? 465 : 587)),
    secure: url.protocol === "smtps:",
    auth: url.username
      ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
      : undefined,
    // Local and test servers offer no certificate; STARTTLS is still used when offered.
    tls: { rejectUnauthorized: url.searchParams.get("tls_verify") !== "0" },
  });
  return {
    configured: true,
    async send(message) {
      await transport.sendMail({ from: mailFrom, ...message });
      return true;
    },
  };
}
