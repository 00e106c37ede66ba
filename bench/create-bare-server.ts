// The ceiling of `npm run bench:create`: a bare Fastify route that receives the same
// multipart body as POST /v1/documents (@fastify/multipart, the same limits as Signet's
// upload scope), parses the `document` part, and stores the `file` part's bytes with the same
// repository call the real path makes (`storeFile` in a transaction, with the arguments
// drafts.ts `storeOriginal` gives it: the PDF's pages and page sizes, read once by the bench
// and handed over in PDF_FACTS, and the workspace whose page images are queued). No key, no
// rate limit, no inspection, no document rows, no envelope: what is left is HTTP, multipart
// and the file's storage. Answers 201 with the file's hash.
// With CEILING_INSPECTS=1, the second ceiling (the restatement proposed in issue 37's note):
// the file is first inspected with the same call Signet makes (`inspectPdfInThread`, the
// upload's safety checks in a thread), and stored with the facts it answers.
import multipart from '@fastify/multipart';
import Fastify from 'fastify';
import { openDatabase } from '../src/db/connect.ts';
import type { PageSize } from '../src/db/schema.ts';
import { storeFile } from '../src/files/files.service.ts';
import { inspectPdfInThread } from '../src/pdf/inspect-thread.ts';

const { DATABASE_URL, PORT, WORKSPACE_ID, PDF_FACTS, SIGNET_DB_POOL_SIZE, CEILING_INSPECTS } = process.env;
const facts = JSON.parse(PDF_FACTS as string) as { pages: number; pageSizes: PageSize[] };
const handle = await openDatabase({
  url: DATABASE_URL as string,
  dataDir: null,
  poolSize: Number(SIGNET_DB_POOL_SIZE ?? 10),
});

const app = Fastify({ logger: false });
await app.register(multipart, {
  limits: { fileSize: 25 * 1024 * 1024, files: 1, fields: 200, fieldSize: 1024 * 1024, parts: 210 },
});
app.post('/v1/documents', async (request, reply) => {
  let document: unknown = null;
  let file: Buffer | null = null;
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      const chunks: Buffer[] = [];
      for await (const chunk of part.file) chunks.push(chunk as Buffer);
      file = Buffer.concat(chunks);
    } else if (part.fieldname === 'document') document = JSON.parse(String(part.value));
  }
  if (!document || !file) return reply.code(400).send({ error: 'a document part and a file part' });
  const { pages, pageSizes } =
    CEILING_INSPECTS === '1' ? await inspectPdfInThread(file, { maxBytes: 25 * 1024 * 1024 }) : facts;
  const stored = await handle.db.transaction().execute((trx) =>
    storeFile(trx, {
      data: file,
      mediaType: 'application/pdf',
      pages,
      pageSizes,
      now: new Date(),
      drawPagesFor: WORKSPACE_ID as string,
    }),
  );
  return reply.code(201).send({ data: { sha256: stored.sha256 } });
});
await app.listen({ host: '127.0.0.1', port: Number(PORT) });
process.stdout.write('ready\n');
process.on('SIGTERM', () =>
  app
    .close()
    .then(() => handle.close())
    .then(() => process.exit(0)),
);
