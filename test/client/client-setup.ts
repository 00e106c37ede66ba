// What the @signet/client suites in this folder share (client, client-download,
// client-writes): `failure`, the SignetApiError a call rejects with, and a stream's bytes and
// their SHA-256, to hold a download to the API's sha256.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { SignetApiError } from '../../packages/client/src/index.ts';

/** The SignetApiError `promise` rejects with (anything else fails the test). */
export async function failure(promise: Promise<unknown>): Promise<SignetApiError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof SignetApiError, `expected SignetApiError, got ${error}`);
    return error;
  }
  assert.fail('expected a failure');
}

export async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

export const sha256Hex = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
