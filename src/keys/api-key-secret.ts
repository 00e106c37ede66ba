// What an API key looks like and how it is stored. A key is `sgn_` followed by 43
// base62 characters (256 random bits); only its SHA-256 is kept, with the last four
// characters as a hint. A fast hash is right here: the secret is random, not a password.
import { createHash } from 'node:crypto';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const prefix = 'sgn_';
const bodyLength = 43;
const keyPattern = /^sgn_[0-9A-Za-z]{43}$/;

export function generateApiKeySecret(randomBytes: (size: number) => Buffer): string {
  let n = BigInt(`0x${randomBytes(32).toString('hex')}`);
  let body = '';
  for (let i = 0; i < bodyLength; i++) {
    body = alphabet[Number(n % 62n)] + body;
    n /= 62n;
  }
  return prefix + body;
}

export function isWellFormedApiKey(value: string): boolean {
  return keyPattern.test(value);
}

export function hashApiKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function apiKeyHint(secret: string): string {
  return secret.slice(-4);
}
