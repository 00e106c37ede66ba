// List cursors (spec, GET /documents): opaque to clients, issued only by the service.
// A cursor carries the last row's (createdAt, id) and an expiry, and is signed with
// HMAC-SHA256 over those bytes plus the workspace id, the status filter and the web app's
// search (when there is one), so a cursor from another workspace, another filter or search,
// a client's own making or older than 24 hours is refused. 66 base64url characters, well under the 200 the spec allows.
import { createHmac, type KeyObject, timingSafeEqual } from 'node:crypto';

export const cursorLifetimeMs = 24 * 60 * 60 * 1000;
/** Spec, GET /documents: a cursor is at most 200 characters (longer is invalid-query). */
export const maxCursorLength = 200;

export interface CursorPosition {
  createdAt: Date;
  id: string;
}

export interface CursorScope {
  workspaceId: string;
  status: string | null;
  /** The web app's search; absent or null signs as before it existed. */
  search?: string | null;
}

/** A KeyObject made once (createSecretKey) saves rebuilding one per request; a Buffer works too. */
export type CursorKey = KeyObject | Buffer;

const version = 1;
const payloadLength = 1 + 8 + 16 + 8; // version, createdAt ms, id, expiry ms
const macLength = 16;

function mac(key: CursorKey, payload: Buffer, scope: CursorScope): Buffer {
  return createHmac('sha256', key)
    .update(payload)
    .update(`\0${scope.workspaceId}\0${scope.status ?? ''}`)
    .update(scope.search ? `\0${scope.search}` : '')
    .digest()
    .subarray(0, macLength);
}

export function encodeCursor(
  key: CursorKey,
  position: CursorPosition,
  scope: CursorScope,
  now: Date,
): string {
  const payload = Buffer.alloc(payloadLength);
  payload.writeUInt8(version, 0);
  payload.writeBigInt64BE(BigInt(position.createdAt.getTime()), 1);
  Buffer.from(position.id.replaceAll('-', ''), 'hex').copy(payload, 9);
  payload.writeBigInt64BE(BigInt(now.getTime() + cursorLifetimeMs), 25);
  return Buffer.concat([payload, mac(key, payload, scope)]).toString('base64url');
}

/** The position a cursor points after, or null when this service did not issue it for this scope. */
export function decodeCursor(
  key: CursorKey,
  cursor: string,
  scope: CursorScope,
  now: Date,
): CursorPosition | null {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.length !== payloadLength + macLength || bytes.toString('base64url') !== cursor) return null;
  const payload = bytes.subarray(0, payloadLength);
  if (!timingSafeEqual(bytes.subarray(payloadLength), mac(key, payload, scope))) return null;
  if (payload.readUInt8(0) !== version) return null;
  if (Number(payload.readBigInt64BE(25)) <= now.getTime()) return null;
  const hex = payload.subarray(9, 25).toString('hex');
  const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return { createdAt: new Date(Number(payload.readBigInt64BE(1))), id };
}
