import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One received message: envelope recipients and the raw RFC 5322 text, decoded bodies. */
export interface ReceivedMail {
  readonly to: readonly string[];
  readonly raw: string;
  /** Every quoted-printable or base64 body part, decoded and joined. */
  readonly text: string;
}

/**
 * A real SMTP receiver on a random local port, for tests that follow a link out of an
 * e-mail. `env()` configures the service to send to it.
 */
export class SmtpInbox {
  readonly #received: ReceivedMail[] = [];
  readonly #waiters: { to: string; resolve: (mail: ReceivedMail) => void }[] = [];
  readonly #server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
        this.#deliver({ to, raw, text: decodeBodies(raw) });
        callback();
      });
    },
  });
  #port = 0;

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.#port = (this.#server.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.close(resolve));
  }

  env(): Record<string, string> {
    return {
      EMAIL_TRANSPORT: 'smtp',
      EMAIL_SMTP_HOST: '127.0.0.1',
      EMAIL_SMTP_PORT: String(this.#port),
      EMAIL_SMTP_IGNORE_TLS: 'true',
      EMAIL_FROM: 'service@example.com',
    };
  }

  /** Messages received so far for `to`. */
  mailsTo(to: string): ReceivedMail[] {
    return this.#received.filter((m) => m.to.includes(to.toLowerCase()));
  }

  /** The next message for `to` (or one already received and not yet taken), within `timeoutMs`. */
  next(to: string, timeoutMs = 5000): Promise<ReceivedMail> {
    const index = this.#received.findIndex((m) => m.to.includes(to.toLowerCase()));
    if (index !== -1) return Promise.resolve(this.#received.splice(index, 1)[0] as ReceivedMail);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no mail for ${to} within ${timeoutMs} ms`)), timeoutMs);
      this.#waiters.push({
        to: to.toLowerCase(),
        resolve: (mail) => {
          clearTimeout(timer);
          resolve(mail);
        },
      });
    });
  }

  /** The first link of the next message for `to` (HTML-escaped `&` undone). */
  async nextLink(to: string): Promise<URL> {
    const mail = await this.next(to);
    const link = /https?:\/\/[^\s"<>]+/.exec(mail.text)?.[0];
    if (link === undefined) throw new Error(`no link in the mail to ${to}: ${mail.text}`);
    return new URL(link.replace(/&amp;/g, '&'));
  }

  #deliver(mail: ReceivedMail): void {
    const waiter = this.#waiters.findIndex((w) => mail.to.includes(w.to));
    if (waiter === -1) {
      this.#received.push(mail);
      return;
    }
    this.#waiters.splice(waiter, 1)[0]?.resolve(mail);
  }
}

function decodeBodies(raw: string): string {
  const parts: string[] = [];
  // Split on the boundaries the message declares, not on any line starting with "--": a
  // quoted-printable line of a link's token may start with "--" (base64url has dashes).
  const boundaries = [...raw.matchAll(/boundary="?([^";\r\n]+)"?/gi)].map((m) => m[1] ?? '');
  const delimiter = boundaries.map((b) => b.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const sections = delimiter === '' ? [raw] : raw.split(new RegExp(`\\r?\\n--(?:${delimiter})(?:--)?\\r?\\n`));
  for (const section of sections) {
    const split = /\r?\n\r?\n/.exec(section);
    if (split === null) continue;
    const headers = section.slice(0, split.index).toLowerCase();
    const body = section.slice(split.index + split[0].length);
    if (headers.includes('content-transfer-encoding: quoted-printable')) parts.push(decodeQuotedPrintable(body));
    else if (headers.includes('content-transfer-encoding: base64'))
      parts.push(Buffer.from(body, 'base64').toString('utf8'));
    else parts.push(body);
  }
  return parts.join('\n');
}

function decodeQuotedPrintable(text: string): string {
  const bytes = text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}
