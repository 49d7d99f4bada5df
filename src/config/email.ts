import { ConfigError, type EnvReader } from './env-reader.js';

/** EMAIL_TRANSPORT values this build can send with (Directus 10 has more). */
const EMAIL_TRANSPORTS = ['sendmail', 'smtp'] as const;
type EmailTransport = (typeof EMAIL_TRANSPORTS)[number];

export interface EmailConfig {
  readonly from: string;
  readonly transport: EmailTransport;
  /**
   * False on a fresh install (EMAIL_TRANSPORT unset): an unusable default
   * sendmail then means "mail not set up", an `ok` with a note in /server/health and an info
   * line at start, rather than a transport that broke.
   */
  readonly isConfigured: boolean;
  /** Check the transport at boot (a failure is logged, not fatal). */
  readonly verifySetup: boolean;
  readonly sendmail: { readonly newline: 'unix' | 'windows'; readonly path: string };
  readonly smtp: {
    readonly host: string | undefined;
    readonly port: number | undefined;
    readonly user: string | undefined;
    readonly password: string | undefined;
    readonly pool: boolean;
    readonly secure: boolean;
    readonly ignoreTls: boolean;
    readonly name: string | undefined;
  };
}

/** EMAIL_*: the sender address and the transport (sendmail or SMTP) with its settings. */
export function readEmailConfig(env: EnvReader): EmailConfig {
  const transport = env.string('EMAIL_TRANSPORT', 'sendmail');
  if (!(EMAIL_TRANSPORTS as readonly string[]).includes(transport)) {
    throw new ConfigError('EMAIL_TRANSPORT', `"${transport}" is not supported (use ${EMAIL_TRANSPORTS.join(' or ')})`);
  }
  return {
    from: env.string('EMAIL_FROM', 'no-reply@example.com'),
    transport: transport as EmailTransport,
    isConfigured: env.raw('EMAIL_TRANSPORT') !== undefined,
    verifySetup: env.bool('EMAIL_VERIFY_SETUP', true),
    sendmail: {
      newline: env.oneOf('EMAIL_SENDMAIL_NEW_LINE', ['unix', 'windows'] as const, 'unix'),
      path: env.string('EMAIL_SENDMAIL_PATH', '/usr/sbin/sendmail'),
    },
    smtp: {
      host: env.string('EMAIL_SMTP_HOST'),
      port:
        env.raw('EMAIL_SMTP_PORT') === undefined ? undefined : env.int('EMAIL_SMTP_PORT', 0, { min: 1, max: 65535 }),
      user: env.string('EMAIL_SMTP_USER'),
      password: env.string('EMAIL_SMTP_PASSWORD'),
      pool: env.bool('EMAIL_SMTP_POOL', false),
      secure: env.bool('EMAIL_SMTP_SECURE', false),
      ignoreTls: env.bool('EMAIL_SMTP_IGNORE_TLS', false),
      name: env.string('EMAIL_SMTP_NAME'),
    },
  };
}
