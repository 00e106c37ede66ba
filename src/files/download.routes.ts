// GET /files/{documentId}/{original|sealed}.pdf?expires=…&sig=…: a document's PDF for
// whoever holds a download link (download-links.ts), streamed chunk by chunk from the
// database. Outside /v1, so every /v1 answer stays JSON; outside the web application's
// session, so a link works from a mail or an API client. A link that is not ours answers
// 404 like any unknown address; one that has expired says so (410), and how to get another.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Context } from '../context.ts';
import { uuidRegExp } from '../ids.ts';
import { messagePage, sendPlainPage } from '../ui/shell.ts';
import { type FileKind, fileKinds, isValidDownload } from './download-links.ts';
import { fileStream, findDownload } from './files.service.ts';

const notFound = messagePage({
  title: 'Not found · Signet',
  heading: 'Not found',
  message: 'There is nothing at this address.',
  status: 404,
});

const expired = messagePage({
  title: 'Link expired · Signet',
  heading: 'This download link has expired',
  message:
    'Download links work for a limited time. Open the document again (its page, your signing link or the API) for a new one.',
  status: 410,
});

/** RFC 6266: an ASCII fallback and the exact UTF-8 name (RFC 8187: ' ( ) * escaped too). */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const exact = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

function isKind(value: string): value is FileKind {
  return (fileKinds as readonly string[]).includes(value);
}

export function downloadRoutes(ctx: Context) {
  return async function register(app: FastifyInstance) {
    app.get<{ Params: { documentId: string; file: string }; Querystring: Record<string, string | string[]> }>(
      '/:documentId/:file',
      async (request, reply): Promise<FastifyReply> => {
        const { documentId, file } = request.params;
        const kind = file.endsWith('.pdf') ? file.slice(0, -4) : '';
        const { expires, sig } = request.query;
        if (
          !uuidRegExp.test(documentId) ||
          !isKind(kind) ||
          typeof expires !== 'string' ||
          typeof sig !== 'string'
        ) {
          return sendPlainPage(reply, 404, notFound);
        }
        if (!isValidDownload(ctx, { documentId, kind, expires, sig })) {
          const genuine = isValidDownload(
            { ...ctx, clock: { now: () => new Date(0) } },
            { documentId, kind, expires, sig },
          );
          return genuine ? sendPlainPage(reply, 410, expired) : sendPlainPage(reply, 404, notFound);
        }
        const found = await findDownload(ctx.db, documentId, kind);
        if (!found) return sendPlainPage(reply, 404, notFound);
        return reply
          .header('content-type', 'application/pdf')
          .header('content-length', String(found.file.bytes))
          .header('content-disposition', contentDisposition(found.fileName))
          .header('cache-control', 'private, no-store')
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "sandbox; default-src 'none'")
          .header('referrer-policy', 'no-referrer')
          .send(fileStream(ctx.db, found.file));
      },
    );
  };
}
