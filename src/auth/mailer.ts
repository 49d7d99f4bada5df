import { access, constants } from 'node:fs/promises';
import nodemailer, { type Transporter } from 'nodemailer';
import type { EmailConfig } from '../config/index.js';

export interface Mail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** Outgoing e-mail (password reset, invites) through the EMAIL_TRANSPORT of the config. */
export interface Mailer {
  send(mail: Mail): Promise<void>;
  /** Rejects when the transport cannot be used (EMAIL_VERIFY_SETUP). */
  verify(): Promise<void>;
  close(): void;
}

export function createMailer(config: EmailConfig): Mailer {
  const transporter = createTransport(config);
  return {
    async send(mail) {
      await transporter.sendMail({ from: config.from, ...mail });
    },
    async verify() {
      // nodemailer verifies SMTP only; for sendmail, the binary must be there.
      if (config.transport === 'sendmail') await access(config.sendmail.path, constants.X_OK);
      else await transporter.verify();
    },
    close() {
      transporter.close();
    },
  };
}

function createTransport(config: EmailConfig): Transporter {
  switch (config.transport) {
    case 'sendmail':
      return nodemailer.createTransport({
        sendmail: true,
        newline: config.sendmail.newline,
        path: config.sendmail.path,
      });
    case 'smtp': {
      const { smtp } = config;
      return nodemailer.createTransport({
        ...(smtp.pool ? { pool: true as const } : {}),
        host: smtp.host,
        port: smtp.port,
        secure: smtp.secure,
        ignoreTLS: smtp.ignoreTls,
        ...(smtp.name === undefined ? {} : { name: smtp.name }),
        ...(smtp.user === undefined ? {} : { auth: { user: smtp.user, pass: smtp.password } }),
      });
    }
  }
}
