// **The** device cookie: a browser's proof that it logged in to an account before. A stranger
// behind the owner's own NAT shares the owner's client address, so the "known address" rule
// (account-limits.ts) cannot tell them apart; a cookie set only on a right password can. The
// large identity providers do the same ("device cookies", OWASP's answer to lockout abuse).
//
// Value: `<device id>.<issued, unix seconds>.<HMAC-SHA256>`; the MAC covers the account's id
// and its current password hash too, so the cookie is worth nothing for another account and
// nothing once the password changes (every password set anew has a new salt). It lives a
// year; each log-in sets a new one. One per browser: the last account logged in to.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from '../context.ts';
import { sharedServerSecret } from '../db/server-secrets.ts';

export const deviceCookieName = 'signet_device';
export const deviceCookieMaxAgeSeconds = 365 * 24 * 60 * 60;

type DeviceContext = Pick<Context, 'db' | 'clock' | 'ids'>;
interface DeviceAccount {
  id: string;
  password_hash: string;
}

async function mac(ctx: DeviceContext, account: DeviceAccount, deviceId: string, issued: string) {
  const key = await sharedServerSecret(ctx, 'device-hmac');
  return createHmac('sha256', key)
    .update(`${account.id}\n${account.password_hash}\n${deviceId}\n${issued}`)
    .digest('base64url');
}

/** A new device cookie's value for the account just logged in to. */
export async function issueDeviceCookie(ctx: DeviceContext, account: DeviceAccount): Promise<string> {
  const deviceId = ctx.ids.randomBytes(16).toString('base64url');
  const issued = String(Math.floor(ctx.clock.now().getTime() / 1000));
  return `${deviceId}.${issued}.${await mac(ctx, account, deviceId, issued)}`;
}

/** The device's id when `value` is a live device cookie of this account, else null. */
export async function verifiedDevice(
  ctx: DeviceContext,
  account: DeviceAccount,
  value: string | undefined,
): Promise<string | null> {
  if (!value || value.length > 200) return null;
  const [deviceId, issued, given, extra] = value.split('.');
  if (!deviceId || !issued || !given || extra !== undefined || !/^\d{1,12}$/.test(issued)) return null;
  const ageSeconds = ctx.clock.now().getTime() / 1000 - Number(issued);
  if (ageSeconds < -60 || ageSeconds > deviceCookieMaxAgeSeconds) return null;
  const expected = Buffer.from(await mac(ctx, account, deviceId, issued));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected) ? deviceId : null;
}
