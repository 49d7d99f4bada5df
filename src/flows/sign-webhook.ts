import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signing (standardwebhooks.com): `webhook-id` (the same on every retry of
 * one delivery), `webhook-timestamp` (seconds), and `webhook-signature: v1,<base64 HMAC-SHA256
 * of "id.timestamp.body">`. A `whsec_` secret is base64 after its prefix, as the convention
 * writes them; any other secret is used as its UTF-8 bytes.
 */
export function webhookHeaders(secret: string, id: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = String(Math.floor(now / 1000));
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret);
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}
