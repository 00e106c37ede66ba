// The line each request ends with (Fastify's "request completed", through context.ts's
// loggerOptions): beside its reqId (the answer's X-Request-Id), the envelope's errorCode of a
// refusal, and the key's id and workspace's id once the key is known, never the key itself
// (issue 49), so a request id an integrator quotes leads an operator to the cause.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLogger } from '../../src/context.ts';
import { setWorkspacePlan } from '../../src/workspaces/workspaces.service.ts';
import { callApi, createTestWorkspace, describeEachDatabase, useHarness } from '../support/harness.ts';

interface LogLine {
  msg?: string;
  reqId?: string;
  res?: { statusCode?: number; errorCode?: string; keyId?: string; workspaceId?: string };
}

describeEachDatabase('the request log line', (kind) => {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const h = useHarness(kind, { log: createLogger('info', destination) });

  /** The "request completed" line of the answer whose X-Request-Id is `id`. */
  function completed(id: string | null): LogLine {
    const found = lines
      .map((line) => JSON.parse(line) as LogLine)
      .find((line) => line.msg === 'request completed' && line.reqId === id);
    assert.ok(found, `a line for ${id}`);
    return found;
  }

  test('carries errorCode, keyId and workspaceId beside the request id; never the key', async () => {
    const ws = await createTestWorkspace(h.ctx);
    const refused = await callApi(h, 'GET', '/v1/documents/not-a-uuid', { key: ws.apiKey });
    assert.equal(refused.status, 400);
    const line = completed(refused.headers.get('x-request-id'));
    assert.deepEqual(line.res, {
      statusCode: 400,
      errorCode: 'invalid-id',
      keyId: ws.keyId,
      workspaceId: ws.id,
    });

    const listed = await callApi(h, 'GET', '/v1/documents', { key: ws.apiKey });
    assert.equal(listed.status, 200);
    assert.deepEqual(completed(listed.headers.get('x-request-id')).res, {
      statusCode: 200,
      keyId: ws.keyId,
      workspaceId: ws.id,
    });

    const stranger = await callApi(h, 'GET', '/v1/documents', { key: 'sgn_nobody' });
    assert.deepEqual(completed(stranger.headers.get('x-request-id')).res, {
      statusCode: 401,
      errorCode: 'invalid-api-key',
    });

    // A key refused for its plan is still named: its workspace is the cause.
    await setWorkspacePlan(h.ctx, ws.id, 'free');
    const free = await callApi(h, 'GET', '/v1/documents', { key: ws.apiKey });
    assert.equal(free.status, 403);
    assert.deepEqual(completed(free.headers.get('x-request-id')).res, {
      statusCode: 403,
      errorCode: 'plan-required',
      keyId: ws.keyId,
      workspaceId: ws.id,
    });
    assert.ok(!lines.join('').includes(ws.apiKey), 'the key itself is never logged');
  });
});
