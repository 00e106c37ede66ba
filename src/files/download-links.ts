// Download links: capability URLs outside /v1 (every /v1 answer stays JSON) that answer a
// document's original or sealed PDF until they expire. A link names the document, the kind
// and its expiry, signed with an HMAC key every process shares; it needs no session, so it
// works from a mail, an API client or a signer's browser alike. Like every capability URL
// its query is redacted from the log (http/capability-urls.ts: `sig`). And the name a
// downloaded or attached PDF gets (`pdfFileName`).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from '../context.ts';

export const fileKinds = ['original', 'sealed'] as const;
export type FileKind = (typeof fileKinds)[number];

/** "Service agreement (signed).pdf": the title, without what file systems refuse. */
export function pdfFileName(title: string, kind: FileKind): string {
  const safe = [...title]
    .map((char) => (char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f ? ' ' : char))
    .join('')
    .replace(/[/\\:*?"<>|]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 120);
  return `${safe || 'document'}${kind === 'sealed' ? ' (signed)' : ''}.pdf`;
}

/** How long a link handed out on a page or through the API works. */
export const downloadLinkMs = 15 * 60_000;
/** How long the link in a completion mail works (a file too large to attach). */
export const mailedDownloadLinkMs = 7 * 24 * 3_600_000;

function signature(key: Buffer, documentId: string, kind: FileKind, expires: number): string {
  return createHmac('sha256', key).update(`${documentId}\n${kind}\n${expires}`).digest('base64url');
}

export function downloadPath(documentId: string, kind: FileKind): string {
  return `/files/${documentId}/${kind}.pdf`;
}

export function downloadUrl(
  ctx: Pick<Context, 'config' | 'downloadKey' | 'clock'>,
  documentId: string,
  kind: FileKind,
  validMs = downloadLinkMs,
): string {
  const expires = Math.floor((ctx.clock.now().getTime() + validMs) / 1000);
  const sig = signature(ctx.downloadKey, documentId, kind, expires);
  return `${ctx.config.publicUrl}${downloadPath(documentId, kind)}?expires=${expires}&sig=${sig}`;
}

/** Whether a link's query is one this service signed for this file and it has not expired. */
export function isValidDownload(
  ctx: Pick<Context, 'downloadKey' | 'clock'>,
  link: { documentId: string; kind: FileKind; expires: string; sig: string },
): boolean {
  if (!/^\d{1,12}$/.test(link.expires)) return false;
  const expires = Number(link.expires);
  if (expires * 1000 <= ctx.clock.now().getTime()) return false;
  const expected = Buffer.from(signature(ctx.downloadKey, link.documentId, link.kind, expires));
  const given = Buffer.from(link.sig);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
