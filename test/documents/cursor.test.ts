// Unit tests for list cursors (src/documents/cursor.ts): signed, scoped to a workspace and a
// status filter, and valid for 24 hours after issue.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import {
  type CursorPosition,
  type CursorScope,
  cursorLifetimeMs,
  decodeCursor,
  encodeCursor,
} from '../../src/documents/cursor.ts';

const key = Buffer.alloc(32, 1);
const otherKey = Buffer.alloc(32, 2);
const issuedAt = new Date('2025-03-14T09:26:53.589Z');
const position: CursorPosition = {
  createdAt: new Date('2025-03-13T17:04:11.123Z'),
  id: '0195936a-2b4c-7d8e-9f01-23456789abcd',
};
const scope: CursorScope = { workspaceId: '01958f00-aaaa-7bbb-8ccc-000000000001', status: null };
const otherWorkspace = '01958f00-aaaa-7bbb-8ccc-000000000002';
const base64urlAlphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function issue(cursorScope: CursorScope = scope): string {
  return encodeCursor(key, position, cursorScope, issuedAt);
}

function later(ms: number): Date {
  return new Date(issuedAt.getTime() + ms);
}

test('cursors live for 24 hours', () => {
  assert.equal(cursorLifetimeMs, 24 * 60 * 60 * 1000);
});

test('a cursor decodes to the exact createdAt (to the millisecond) and id it was made from', () => {
  const decoded = decodeCursor(key, issue(), scope, issuedAt);
  assert.deepEqual(decoded, position);
  assert.equal(decoded?.createdAt.getTime(), Date.parse('2025-03-13T17:04:11.123Z'));
});

test('cursors round-trip across a range of positions and scopes', () => {
  const positions: CursorPosition[] = [
    position,
    { createdAt: new Date(0), id: '00000000-0000-0000-0000-000000000000' },
    { createdAt: new Date('1969-12-31T23:59:59.999Z'), id: 'ffffffff-ffff-ffff-ffff-ffffffffffff' },
    { createdAt: new Date('2099-12-31T23:59:59.999Z'), id: '0195936a-2b4c-7d8e-9f01-000000000001' },
  ];
  const scopes: CursorScope[] = [
    scope,
    { ...scope, status: 'sent' },
    { workspaceId: otherWorkspace, status: 'signed' },
  ];
  for (const p of positions) {
    for (const s of scopes) {
      const cursor = encodeCursor(key, p, s, issuedAt);
      assert.deepEqual(decodeCursor(key, cursor, s, issuedAt), p, `${p.id} in ${JSON.stringify(s)}`);
    }
  }
});

test('a cursor is URL-safe base64url and well under 200 characters', () => {
  const cursor = issue();
  assert.match(cursor, /^[A-Za-z0-9_-]+$/);
  assert.ok(cursor.length < 100, `length ${cursor.length}`);
});

test('the same key also decodes when it is a different Buffer with the same bytes', () => {
  assert.deepEqual(decodeCursor(Buffer.alloc(32, 1), issue(), scope, issuedAt), position);
});

test('a cursor from another workspace is refused', () => {
  assert.equal(decodeCursor(key, issue(), { ...scope, workspaceId: otherWorkspace }, issuedAt), null);
});

test('a cursor issued without a status filter is refused with the filter status=sent', () => {
  assert.equal(decodeCursor(key, issue(), { ...scope, status: 'sent' }, issuedAt), null);
});

test('a cursor issued with status=sent is refused without a status filter', () => {
  assert.equal(decodeCursor(key, issue({ ...scope, status: 'sent' }), scope, issuedAt), null);
});

test('a cursor issued with status=sent is refused with status=signed', () => {
  const cursor = issue({ ...scope, status: 'sent' });
  assert.equal(decodeCursor(key, cursor, { ...scope, status: 'signed' }, issuedAt), null);
  assert.deepEqual(decodeCursor(key, cursor, { ...scope, status: 'sent' }, issuedAt), position);
});

test('a cursor signed with another key is refused', () => {
  assert.equal(decodeCursor(otherKey, issue(), scope, issuedAt), null);
  assert.equal(decodeCursor(key, encodeCursor(otherKey, position, scope, issuedAt), scope, issuedAt), null);
});

test('a cursor with any one character changed, at any position, is refused', () => {
  const cursor = issue();
  for (let i = 0; i < cursor.length; i++) {
    for (const replacement of base64urlAlphabet) {
      if (replacement === cursor[i]) continue;
      const tampered = cursor.slice(0, i) + replacement + cursor.slice(i + 1);
      assert.equal(decodeCursor(key, tampered, scope, issuedAt), null, `position ${i} -> ${replacement}`);
    }
  }
});

test('a truncated cursor is refused, down to the empty string', () => {
  const cursor = issue();
  for (let length = cursor.length - 1; length >= 0; length--) {
    assert.equal(decodeCursor(key, cursor.slice(0, length), scope, issuedAt), null, `length ${length}`);
  }
});

test('a cursor with characters appended is refused', () => {
  const cursor = issue();
  for (const extra of ['A', 'AA', 'AAA', 'AAAA', '_', '-', 'x1', '=', '==']) {
    assert.equal(decodeCursor(key, cursor + extra, scope, issuedAt), null, `+${extra}`);
  }
  assert.equal(decodeCursor(key, cursor + cursor, scope, issuedAt), null);
});

test('a cursor containing characters outside base64url is refused', () => {
  const cursor = issue();
  for (const bad of ['+', '/', '=', ' ', '.', '%', '~', '\n', 'é']) {
    assert.equal(
      decodeCursor(key, `${cursor.slice(0, 10)}${bad}${cursor.slice(11)}`, scope, issuedAt),
      null,
      bad,
    );
    assert.equal(decodeCursor(key, `${bad}${cursor}`, scope, issuedAt), null, `${bad} before`);
  }
});

test('the same bytes in standard padded base64 are refused', () => {
  const cursor = issue();
  const standard = Buffer.from(cursor, 'base64url').toString('base64');
  assert.notEqual(standard, cursor);
  assert.equal(decodeCursor(key, standard, scope, issuedAt), null);
});

test('an empty cursor is refused', () => {
  assert.equal(decodeCursor(key, '', scope, issuedAt), null);
});

test('a cursor is still valid 23h59m59.999s after issue', () => {
  assert.deepEqual(decodeCursor(key, issue(), scope, later(cursorLifetimeMs - 1)), position);
});

test('a cursor is refused exactly 24 hours after issue', () => {
  assert.equal(decodeCursor(key, issue(), scope, later(cursorLifetimeMs)), null);
});

test('a cursor is refused long after it expired', () => {
  assert.equal(decodeCursor(key, issue(), scope, later(30 * cursorLifetimeMs)), null);
});

test('a cursor whose expiry was pushed back by the client is refused', () => {
  const bytes = Buffer.from(issue(), 'base64url');
  // Bytes 25..32 hold the expiry in milliseconds; add a year to it and keep the old signature.
  bytes.writeBigInt64BE(bytes.readBigInt64BE(25) + 365n * 24n * 3600n * 1000n, 25);
  const forged = bytes.toString('base64url');
  assert.equal(decodeCursor(key, forged, scope, issuedAt), null);
  assert.equal(decodeCursor(key, forged, scope, later(cursorLifetimeMs)), null);
});

test('a cursor whose position was changed by the client is refused', () => {
  const bytes = Buffer.from(issue(), 'base64url');
  // Bytes 1..8 hold createdAt in milliseconds.
  bytes.writeBigInt64BE(bytes.readBigInt64BE(1) - 1n, 1);
  assert.equal(decodeCursor(key, bytes.toString('base64url'), scope, issuedAt), null);
});

test('a random 60-character base64url string is refused', () => {
  const fixed = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGhIjKlMnOpQrStUv';
  assert.equal(fixed.length, 60);
  assert.equal(decodeCursor(key, fixed, scope, issuedAt), null);
  for (let i = 0; i < 100; i++) {
    const random = randomBytes(45).toString('base64url');
    assert.equal(random.length, 60);
    assert.equal(decodeCursor(key, random, scope, issuedAt), null, random);
  }
});

test('random bytes of exactly a cursor length are refused', () => {
  const length = Buffer.from(issue(), 'base64url').length;
  for (let i = 0; i < 100; i++) {
    const random = randomBytes(length).toString('base64url');
    assert.equal(decodeCursor(key, random, scope, issuedAt), null, random);
  }
});
