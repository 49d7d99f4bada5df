import { pino, type Logger } from 'pino';
import type { Config } from '../config/index.js';

export type { Logger } from 'pino';

/** Structured logs (pino): JSON with LOG_STYLE=raw, human-readable with `pretty`. */
export function createLogger(config: Pick<Config, 'logLevel' | 'logStyle'>): Logger {
  return pino({
    level: config.logLevel,
    redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
    ...(config.logStyle === 'pretty'
      ? { transport: { target: 'pino-pretty', options: { colorize: false, singleLine: true } } }
      : {}),
  });
}
