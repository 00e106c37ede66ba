// `signet seed` and the first `npm start`: a Max workspace, an API key and N sample
// documents, written in batches so 100,000 documents take seconds, not minutes.
import type { Context } from '../context.ts';
import { importDocuments } from '../documents/documents.service.ts';
import { type CreatedApiKey, createApiKey } from '../keys/keys.service.ts';
import { createWorkspace, type Workspace } from '../workspaces/workspaces.service.ts';
import { createRandom, type DocumentGraph, sampleDocument } from './sample-documents.ts';

export interface SeedResult {
  workspace: Workspace;
  apiKey: CreatedApiKey;
  documents: number;
}

const batchSize = 500;

export async function seedWorkspace(
  ctx: Context,
  input: {
    documents: number;
    name?: string;
    seed?: number;
    onProgress?: (done: number, total: number) => void;
  },
): Promise<SeedResult> {
  const workspace = await createWorkspace(ctx, { name: input.name ?? 'Demo workspace', plan: 'max' });
  const apiKey = await createApiKey(ctx, { workspaceId: workspace.id, name: 'Demo key' });
  await insertSampleDocuments(ctx, workspace.id, input.documents, input);
  return { workspace, apiKey, documents: input.documents };
}

/** N documents created three minutes apart. */
export async function insertSampleDocuments(
  ctx: Context,
  workspaceId: string,
  count: number,
  options: { seed?: number; onProgress?: (done: number, total: number) => void } = {},
): Promise<void> {
  const random = createRandom(options.seed ?? 1);
  // Six hours back, so even the newest sample's history (sent, opened, signed) lies in the past.
  const newest = ctx.clock.now().getTime() - 6 * 60 * 60_000;
  for (let start = 0; start < count; start += batchSize) {
    const graphs: DocumentGraph[] = [];
    for (let i = start; i < Math.min(count, start + batchSize); i++) {
      const createdAt = new Date(newest - (count - 1 - i) * 3 * 60_000);
      graphs.push(sampleDocument(random, ctx.ids, { workspaceId, createdAt }));
    }
    await importDocuments(ctx, graphs);
    options.onProgress?.(Math.min(count, start + batchSize), count);
  }
}
