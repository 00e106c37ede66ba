// A secret shown once after a form made it (an API key, an endpoint's signing secret),
// carried across the form's redirect (post, redirect, get), so a reload shows the page
// again instead of sending the form twice: sealed with AES-256-GCM (a key derived from the
// secret every process shares) in a cookie for the integrations pages alone, bound to the
// session that made it, good for two minutes, read once and cleared. The database keeps
// only the secret's hash, as before.
import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SessionUser } from '../accounts/accounts.service.ts';
import type { Web } from './kit.ts';

const cookieName = 'signet_reveal';
const cookiePath = '/settings/integrations';
const lifetimeMs = 2 * 60_000;

export interface Revealed {
  /** A new API key, a new endpoint's secret, or an endpoint's rotated secret. */
  kind: 'key' | 'endpoint' | 'rotated';
  id: string;
  secret: string;
}

interface Sealed extends Revealed {
  session: string;
  expires: number;
}

const keys = new WeakMap<Buffer, Buffer>();

function keyOf(web: Web): Buffer {
  let key = keys.get(web.ctx.csrfKey);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', web.ctx.csrfKey, '', 'signet reveal cookie', 32));
    keys.set(web.ctx.csrfKey, key);
  }
  return key;
}

/** Keeps `value` for the page the form redirects to. */
export function revealOnce(
  web: Web,
  request: FastifyRequest,
  reply: FastifyReply,
  member: SessionUser,
  value: Revealed,
) {
  const sealed: Sealed = {
    ...value,
    session: member.sessionId,
    expires: web.ctx.clock.now().getTime() + lifetimeMs,
  };
  const iv = web.ctx.ids.randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(web), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(sealed), 'utf8'), cipher.final()]);
  reply.setCookie(cookieName, Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url'), {
    path: cookiePath,
    httpOnly: true,
    sameSite: 'strict',
    secure: request.protocol === 'https',
    maxAge: lifetimeMs / 1000,
  });
}

/** The value kept for this session's page, once: the cookie is cleared whatever it held. */
export function takeRevealed(
  web: Web,
  request: FastifyRequest,
  reply: FastifyReply,
  member: SessionUser,
): Revealed | null {
  const cookie = request.cookies[cookieName];
  if (cookie === undefined) return null;
  reply.clearCookie(cookieName, { path: cookiePath });
  try {
    const raw = Buffer.from(cookie, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keyOf(web), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    const sealed = JSON.parse(
      Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8'),
    ) as Sealed;
    if (sealed.session !== member.sessionId || sealed.expires <= web.ctx.clock.now().getTime()) return null;
    return { kind: sealed.kind, id: sealed.id, secret: sealed.secret };
  } catch {
    return null; // not one of ours, or tampered with
  }
}
