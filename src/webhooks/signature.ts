// X-Service-Signature (spec, Webhook delivery signature), as documented in docs/api.md:
//   t=<timestamp>,v1=<hex HMAC-SHA256(secret as UTF-8, "<timestamp>.<raw body>")>
// where <timestamp> is the attempt's send time in the spec's format (ISO 8601 UTC, ms, Z).
// During a rotation's overlap the header carries one v1= per secret, the new one first:
//   t=<timestamp>,v1=<with the new secret>,v1=<with the previous secret>
import { createHmac } from 'node:crypto';

/** An endpoint's secrets as stored: the current one, and the previous one during an overlap. */
export interface EndpointSecrets {
  secret: string;
  previous_secret?: string | null;
  previous_secret_expires_at?: Date | null;
}

/** The secrets that sign a request made at `at`: the current one, then the previous until it expires. */
export function signingSecrets(endpoint: EndpointSecrets, at: Date): string[] {
  const { secret, previous_secret: previous, previous_secret_expires_at: until } = endpoint;
  return previous && until && at.getTime() < until.getTime() ? [secret, previous] : [secret];
}

function digest(secret: string, timestamp: string, rawBody: string): string {
  // A string key is read as UTF-8; passing it as is skips a Buffer-to-key conversion
  // that cost three times the HMAC itself. The parts are fed in turn, never joined.
  return createHmac('sha256', secret).update(timestamp).update('.').update(rawBody).digest('hex');
}

export function signatureHeader(
  secrets: string | readonly string[],
  timestamp: string,
  rawBody: string,
): string {
  if (typeof secrets === 'string') return `t=${timestamp},v1=${digest(secrets, timestamp, rawBody)}`;
  return `t=${timestamp}${secrets.map((secret) => `,v1=${digest(secret, timestamp, rawBody)}`).join('')}`;
}
