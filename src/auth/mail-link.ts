import type { Config } from '../config/index.js';
import { InvalidPayloadError } from '../errors.js';
import type { AuthContext } from './auth-context.js';

/**
 * A client-supplied link target (reset_url, invite_url, verification_url)
 * must match an entry of its allow-list on origin and path, else INVALID_PAYLOAD
 * `URL "<url>" can't be used to <purpose>`.
 */
export function assertAllowedUrl(url: string | undefined, allowList: readonly string[], purpose: string): void {
  if (url !== undefined && !isAllowedUrl(url, allowList)) {
    throw new InvalidPayloadError(`URL "${url}" can't be used to ${purpose}`);
  }
}

function isAllowedUrl(url: string, allowList: readonly string[]): boolean {
  const target = parseUrl(url);
  if (target === undefined) return false;
  return allowList.some((entry) => {
    const allowed = parseUrl(entry);
    return allowed !== undefined && allowed.origin === target.origin && allowed.pathname === target.pathname;
  });
}

function parseUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** `url` (the client's) or PUBLIC_URL + `path`, with `token` added to its query. */
export function linkWithToken(config: Config, url: string | undefined, path: string, token: string): string {
  const base = url ?? `${config.publicUrl.replace(/\/+$/, '')}${path}`;
  return `${base}${base.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;
}

/** A mail whose point is one link: what happened, the link, what to do if unexpected. */
export interface LinkMail {
  readonly to: string;
  readonly subject: string;
  readonly intro: string;
  /** The link's words: "Reset your password". */
  readonly label: string;
  readonly link: string;
  readonly outro: string;
}

/**
 * Sends in the background: the answer never waits for (or tells about) the mail, and a
 * failure is logged, not reported.
 */
export function sendLinkMail(ctx: Pick<AuthContext, 'mailer' | 'logger'>, mail: LinkMail): void {
  ctx.mailer
    .send({
      to: mail.to,
      subject: mail.subject,
      text: `${mail.intro}\n\n${mail.label}: ${mail.link}\n\n${mail.outro}`,
      html: `<p>${escapeHtml(mail.intro)}</p><p><a href="${escapeHtml(mail.link)}">${escapeHtml(mail.label)}</a></p><p>${escapeHtml(mail.outro)}</p>`,
    })
    .catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      ctx.logger.error(
        { subject: mail.subject, to: mail.to },
        `e-mail "${mail.subject}" to ${mail.to} was not sent: ${reason}`,
      );
    });
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
