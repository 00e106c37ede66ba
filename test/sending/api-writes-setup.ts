// What the suites of /v1's document writes (issue 37) share, api-access, api-create,
// api-field-values, api-lifecycle and api-idempotency in this folder: the harness they run on
// (an upload limit of 400 KB, so a file can be too large without being large), a workspace
// with a write key beside its read key, POST /v1/documents, and the PDFs and people they send.
import { createHash } from 'node:crypto';
import { PDFDocument } from '@cantoo/pdf-lib';
import type { DatabaseKind } from '../../src/db/connect.ts';
import { createApiKey } from '../../src/keys/keys.service.ts';
import { textPdf } from '../support/factories.ts';
import { callApi, createTestWorkspace, useHarness } from '../support/harness.ts';

export const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** Acme's service level agreement, about `pages` pages of it, as Signet draws a text. */
export const contractPdf = (pages = 2) =>
  textPdf({
    title: 'Service level agreement',
    body: 'The supplier answers within four hours.\n'.repeat(pages * 40),
    workspaceName: 'Acme',
    createdAt: new Date('2026-11-01T00:00:00Z'),
  });

export async function encryptedLikePdf(): Promise<Buffer> {
  // A PDF whose trailer names an encryption dictionary: refused like any encrypted file.
  const doc = await PDFDocument.create();
  doc.addPage([200, 200]);
  const bytes = Buffer.from(await doc.save({ useObjectStreams: false }));
  return Buffer.from(bytes.toString('latin1').replace('/Root', '/Encrypt 1 0 R /Root'), 'latin1');
}

export const ann = { email: 'ann@northwind.example', fullName: 'Ann Lee' };
export const bob = { email: 'bob@northwind.example', fullName: 'Bob Ray', signingOrder: 2 };

/**
 * The enclosing suite's harness (uploads up to 400 KB), `workspace()`: a new workspace with
 * its read key and a write key, and `newDocument`: POST /v1/documents with a key.
 */
export function useWriteApi(kind: DatabaseKind) {
  const h = useHarness(kind, { env: { SIGNET_MAX_UPLOAD_BYTES: String(400 * 1024) } });

  async function workspace() {
    const ws = await createTestWorkspace(h.ctx);
    const write = await createApiKey(h.ctx, { workspaceId: ws.id, name: 'writer', scope: 'write' });
    return { ...ws, readKey: ws.apiKey, writeKey: write.secret };
  }

  async function newDocument(key: string, body: object, headers: Record<string, string> = {}) {
    return callApi(h, 'POST', '/v1/documents', { key, body, headers });
  }

  return { h, workspace, newDocument };
}
