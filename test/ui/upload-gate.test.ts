// A form that carries a file is read only once it is known who sends it: a visitor's post
// is answered (303 to /login) before a byte of its body is read, and a member's before its
// file is read when the form's first field, its CSRF token, is wrong. Observed by sending
// only the head of a 20 MB body: the answer must come while the client still owes the rest
// (a server that read the body first would wait for it). Sent whole, the rest is dropped as
// it comes and the client gets its answer.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { countRows, createDraftDocument, describeEachDatabase, useHarness } from '../support/harness.ts';
import { type WebClient, webPeople } from '../support/web-client.ts';

const bodyBytes = 20 * 1024 * 1024;

/** A multipart body: the fields in this order, then a file of `bodyBytes` (zeros). */
function multipartBody(fields: Array<[string, string]>, fileFirst = false): { type: string; body: Blob } {
  const boundary = '----signet-upload-gate';
  const field = ([name, value]: [string, string]) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const fileHead = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n`;
  const file = [fileHead, new Uint8Array(bodyBytes), '\r\n'];
  const text = fields.map(field);
  const parts = fileFirst ? [...file, ...text] : [...text, ...file];
  return {
    type: `multipart/form-data; boundary=${boundary}`,
    body: new Blob([...parts, `--${boundary}--\r\n`]),
  };
}

/** The body's first 256 KB: the fields and the head of its file; the rest is never sent. */
async function headOf(form: { body: Blob }): Promise<Buffer> {
  return Buffer.from(await form.body.slice(0, 256 * 1024).arrayBuffer());
}

describeEachDatabase('a form with a file is read only for a member, after its token', (kind) => {
  const h = useHarness(kind);
  const people = webPeople(h, '10.31');

  /**
   * Sends the request's head and the first 256 KB of its 20 MB body, then waits for the
   * answer's head (`waitMs` at most: a server that waits for the rest never answers).
   */
  async function postHead(
    path: string,
    form: { type: string; body: Blob },
    cookie?: string,
    waitMs = 10_000,
  ) {
    const { port } = new URL(h.baseUrl);
    const socket = connect(Number(port), '127.0.0.1');
    const lines = [
      `POST ${path} HTTP/1.1`,
      `host: 127.0.0.1:${port}`,
      `content-type: ${form.type}`,
      `content-length: ${form.body.size}`,
      ...(cookie ? [`cookie: ${cookie}`] : []),
    ];
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    socket.write(await headOf(form));
    let received = '';
    try {
      return await new Promise<{ status: number; head: string }>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no answer while the body was unfinished: ${path}`)),
          waitMs,
        );
        socket.on('data', (chunk: Buffer) => {
          received += chunk.toString('latin1');
          const end = received.indexOf('\r\n\r\n');
          if (end < 0) return;
          clearTimeout(timer);
          resolve({ status: Number(received.slice(9, 12)), head: received.slice(0, end).toLowerCase() });
        });
        socket.on('error', reject);
      });
    } finally {
      socket.destroy();
    }
  }

  const documentsOf = (workspaceId: string) => countRows(h.ctx, 'documents', { workspace_id: workspaceId });

  const cookieOf = (client: WebClient) =>
    [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');

  test('a visitor’s 20 MB upload to /documents or to a draft’s edit form goes to /login before its body is read', async () => {
    const owner = await people.newOwner();
    const { id } = await createDraftDocument(h.ctx, owner.workspaceId, { title: 'Draft', body: '' });
    const form = multipartBody([
      ['_csrf', 'any'],
      ['title', 'By a visitor'],
    ]);
    for (const path of ['/documents', `/documents/${id}/edit`]) {
      const answer = await postHead(path, form);
      assert.equal(answer.status, 303, path);
      assert.match(answer.head, /\r\nlocation: \/login\r\n/);
    }
    // Sent whole, 24 at once: each answered, the rest of each body dropped as it comes.
    const answers = await Promise.all(
      Array.from({ length: 24 }, async () => {
        const response = await fetch(`${h.baseUrl}/documents`, {
          method: 'POST',
          headers: { 'content-type': form.type },
          body: form.body,
          redirect: 'manual',
        });
        await response.arrayBuffer();
        return response.status;
      }),
    );
    assert.deepEqual(new Set(answers), new Set([303]));
    assert.equal(await documentsOf(owner.workspaceId), 1, 'only the draft');
  });

  test('a member’s 20 MB upload whose first field is not its token is refused with 403 before the file is read', async () => {
    const owner = await people.newOwner();
    const member = await people.signedIn(owner);
    await member.get('/documents/new');
    const cookie = cookieOf(member);
    const token = member.csrfToken ?? '';
    const refused: Array<[string, Array<[string, string]>, boolean]> = [
      [
        'a wrong token',
        [
          ['_csrf', 'wrong'],
          ['title', 'Forged'],
        ],
        false,
      ],
      ['no token', [['title', 'Forged']], false],
      [
        'the token after another field',
        [
          ['title', 'Late'],
          ['_csrf', token],
        ],
        false,
      ],
      ['the token after the file', [['_csrf', token]], true],
    ];
    for (const [what, fields, fileFirst] of refused) {
      const answer = await postHead('/documents', multipartBody(fields, fileFirst), cookie);
      assert.equal(answer.status, 403, what);
    }
    // With its token first, the post is read: the head alone gets no answer.
    await assert.rejects(
      postHead(
        '/documents',
        multipartBody([
          ['_csrf', token],
          ['title', 'Mine'],
        ]),
        cookie,
        2000,
      ),
      /no answer while the body was unfinished/,
    );
    assert.equal(await documentsOf(owner.workspaceId), 0, 'nothing made');
  });
});
