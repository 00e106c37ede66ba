// X-Service-Signature (spec, Webhook delivery signature), as documented in docs/api.md:
//   t=<timestamp>,v1=<hex HMAC-SHA256(secret as UTF-8, "<timestamp>.<raw body>")>
// where <timestamp> is the attempt's send time in the spec's format (ISO 8601 UTC, ms, Z).
import { createHmac } from 'node:crypto';

export function signatureHeader(secret: string, timestamp: string, rawBody: string): string {
  const digest = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${timestamp}.${rawBody}`)
    .digest('hex');
  return `t=${timestamp},v1=${digest}`;
}
