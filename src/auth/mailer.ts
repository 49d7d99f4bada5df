import { access, constants } from 'node:fs/promises';
import nodemailer, { type Transporter } from 'nodemailer';
import type { EmailConfig } from '../config/index.js';
import type { HealthCheck } from '../db/health.js';

interface Mail {
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
  /**
   * `/server/health`'s `email:connection` check: the outcome of the last verify or send
   * (`warn` with the reason when it failed, `ok` with a note when mail was never set up);
   * undefined while the transport is untried.
   */
  health(): HealthCheck | undefined;
  close(): void;
}

/** How health and the start line call mail that nobody set up (EmailConfig.isConfigured false). */
export const NOT_CONFIGURED = 'e-mail not configured (EMAIL_TRANSPORT unset), mails are not sent';

export function createMailer(config: EmailConfig): Mailer {
  const transporter = createTransport(config);
  // undefined: untried; null: the last verify or send worked; else why it failed.
  let problem: string | null | undefined;
  const track = async (work: () => Promise<unknown>) => {
    try {
      await work();
      problem = null;
    } catch (error) {
      problem = error instanceof Error ? error.message : String(error);
      throw error;
    }
  };
  return {
    async send(mail) {
      await track(() => transporter.sendMail({ from: config.from, ...mail }));
    },
    async verify() {
      await track(async () => {
        // nodemailer verifies SMTP only; for sendmail, the binary must be there.
        if (config.transport === 'sendmail') await assertExecutable(config.sendmail.path);
        else await transporter.verify();
      });
    },
    health() {
      if (problem === undefined) return undefined;
      if (problem === null) return { componentType: 'email', status: 'ok' };
      // A fresh install without mail set up is fine: it says so, and stays `ok`.
      return config.isConfigured
        ? { componentType: 'email', status: 'warn', output: problem }
        : { componentType: 'email', status: 'ok', output: `${NOT_CONFIGURED}: ${problem}` };
    },
    close() {
      transporter.close();
    },
  };
}

async function assertExecutable(path: string): Promise<void> {
  try {
    await access(path, constants.X_OK);
  } catch {
    throw new Error(`${path} is not an executable program (EMAIL_SENDMAIL_PATH)`);
  }
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
