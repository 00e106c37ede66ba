// Page images: each page of a stored PDF drawn once per width, kept in `page_images`, and
// served from there ever after (the signing page shows a document's pages without
// JavaScript; the sender's page shows thumbnails). Two widths only, so the cache stays
// small and every image is reused: a page to read and a thumbnail.
//
// Drawing is the costly part (a parse of the whole file, then about 150 ms a page), a
// browser asks for every image of a page at once, and any account holder can upload a file
// whose pages take forever. So drawing is scheduled, bounded and remembered:
//
// - A stored image, and a page remembered as failed, are answered from the database at
//   once, outside the schedule below.
// - Each workspace draws in turn. A workspace has at most one render session (one file,
//   parsed once and shared by every waiting request of that workspace for that file: 36
//   images of one document cost one parse), and the process at most `sessions` open at
//   once (2: drawing is CPU work, a small server has 2 cores, and each session may hold its
//   parser's heap). A turn is one page; after it the workspace goes to the back of the round
//   if it asked for more, and a free place goes to the workspace that has waited longest. A
//   session stays open between turns while no other workspace needs its place, and for
//   `idleMs` after its workspace's last page.
// - A turn has one budget, `turnMs` (10 s; a page of an ordinary contract takes well under a
//   second, with its file's opening): opening the file when its session is not open, then
//   reading the page and drawing it, all within it. Past it the parser's thread is ended.
//   Its heap is capped (`parserHeapMb`, 256 MB: a 500-page contract opens in 32 MB); past
//   that the thread dies. Either way the thread's memory goes with it, and a session that is
//   closed ends its thread the same way.
// - The bound: another workspace's page starts at once while fewer than `sessions` other
//   workspaces are drawing, and otherwise waits at most one turn (10 s, plus reading a file
//   and encoding a PNG: well under a second), as long as no other workspace waits ahead of
//   it; with k workspaces waiting ahead of it, at most ⌊k / sessions⌋ + 1 turns. One
//   workspace asking for a thousand slow pages holds one place, never both; only many
//   workspaces at once (k) can make a page wait longer, each for one turn.
// - A page given up (out of time, out of memory, or unreadable by pdf.js) is remembered in
//   `page_image_failures` (migration 0021), and every later request for it, at either
//   width, gets a placeholder at once (page-placeholder.ts): no second drawing, no turn. A
//   file that cannot even be opened is remembered as a whole (page 0). A failure is never
//   tried again by the same version of Signet: a page that took 10 s once would take them
//   again, at everyone's expense. A newer version (`renderer`, the version that gave up)
//   tries once more, since its pdf.js may draw the page. An operator who wants a page tried
//   again deletes its row.
// - Pages are also drawn ahead of time: the worker draws every page of a newly stored PDF
//   (background-pages.ts) through this same schedule, one page at a time in the turns of
//   the workspace that stored it, so it takes one place at most and waits its turn like any
//   request; within the workspace's lane a person's request goes before it.
// - The placeholder is answered with `no-store`: it costs a lookup and a kept PNG, and a
//   page drawn later (after an upgrade) shows at the next visit. A drawn image is kept by
//   the browser for a day (it never changes: files are addressed by their hash).
import type { Context } from '../context.ts';
import { inEnglish } from '../i18n/refusals.ts';
import { decodeBudgetInThread } from '../pdf/inspect-thread.ts';
import { fitRenderSize, openForRendering, RenderError, type RenderSession } from '../pdf/render.ts';
import { signetVersion } from '../version.ts';
import {
  findFile,
  findPageImage,
  findPageImageFailure,
  findPageSizes,
  insertPageImage,
  recordPageImageFailure,
} from './files.repository.ts';
import { readFile } from './files.service.ts';
import { placeholderPng } from './page-placeholder.ts';

export const pageImageWidths = { page: 1200, thumbnail: 240 } as const;
export type PageImageSize = keyof typeof pageImageWidths;

export function isPageImageSize(value: unknown): value is PageImageSize {
  return value === 'page' || value === 'thumbnail';
}

export interface PageImageLimits {
  /** Render sessions open at once in this process (each one workspace's, on one file). */
  sessions: number;
  /** One turn: opening the file when its session is not open, then reading and drawing one page. */
  turnMs: number;
  /** The heap of a session's parser thread, in MB. */
  parserHeapMb: number;
  /** How long a session stays open after its workspace's last page. */
  idleMs: number;
}

export const pageImageLimits: Readonly<PageImageLimits> = {
  sessions: 2,
  turnMs: 10_000,
  parserHeapMb: 256,
  idleMs: 5_000,
};

let limits: Readonly<PageImageLimits> = pageImageLimits;

/** Tests only: other limits (a budget a test can run out of quickly); returns the way back. */
export function setPageImageLimits(changes: Partial<PageImageLimits>): () => void {
  const previous = limits;
  limits = { ...limits, ...changes };
  return () => {
    limits = previous;
  };
}

/** Who gave up on a page: a failure recorded by another version is tried again. */
const renderer = `signet ${signetVersion}`;

type PageImageContext = Pick<Context, 'db' | 'clock' | 'metrics'>;

export interface PageImage {
  png: Buffer;
  /** Whether this is the placeholder of a page that could not be drawn. */
  placeholder: boolean;
  /** The answer's Cache-Control (see the header). */
  cacheControl: string;
}

const drawnCaching = 'private, max-age=86400';
const placeholderCaching = 'no-store';

// One drawing per workspace, page and width at a time: the same image asked for twice is
// drawn once. (Per workspace: a request never waits in another workspace's turn.)
const inFlight = new Map<string, Promise<PageImage | null>>();

/**
 * The PNG of `page` of the stored file `sha256` at `size`, for a document of `workspaceId`:
 * the stored image, else drawn in that workspace's turn and stored, or a placeholder when
 * the page could not be drawn (then or before). Null when the file or the page does not
 * exist.
 */
export function pageImage(
  ctx: PageImageContext,
  workspaceId: string,
  sha256: string,
  page: number,
  size: PageImageSize,
  options: { background?: boolean } = {},
): Promise<PageImage | null> {
  const width = pageImageWidths[size];
  const key = jobKey(workspaceId, { sha256, page, width });
  let pending = inFlight.get(key);
  // A person asks for a page the worker has queued: it is theirs now, and goes first.
  if (pending && !options.background) {
    const queued = queuedJobs.get(key);
    if (queued) queued.background = false;
  }
  if (!pending) {
    const background = options.background ?? false;
    pending = loadOrRender(ctx, workspaceId, { sha256, page, width }, background).finally(() =>
      inFlight.delete(key),
    );
    inFlight.set(key, pending);
  }
  return pending;
}

interface PageKey {
  sha256: string;
  page: number;
  width: number;
}

async function loadOrRender(
  ctx: PageImageContext,
  workspaceId: string,
  key: PageKey,
  background: boolean,
): Promise<PageImage | null> {
  const cached = await findPageImage(ctx.db, key);
  if (cached) return { png: cached.png, placeholder: false, cacheControl: drawnCaching };
  const file = await findFile(ctx.db, key.sha256);
  if (!file?.pages || key.page < 1 || key.page > file.pages) return null;
  return (await rememberedFailure(ctx, key)) ?? inTurn(ctx, workspaceId, key, background);
}

/** The placeholder, when this version of Signet has given up on the page (or its file). */
async function rememberedFailure(ctx: PageImageContext, key: PageKey): Promise<PageImage | null> {
  const failure = await findPageImageFailure(ctx.db, key);
  return failure?.renderer === renderer ? placeholder(ctx, key) : null;
}

async function placeholder(ctx: PageImageContext, key: PageKey): Promise<PageImage> {
  // The page's size as stored at upload; never read from the file, which may be the very
  // thing that could not be read. A4 when it was never stored.
  const sizes = await findPageSizes(ctx.db, key.sha256);
  const pageSize = sizes?.[key.page - 1] ?? { width: 595, height: 842 };
  const png = await placeholderPng(fitRenderSize(pageSize, key.width));
  return { png, placeholder: true, cacheControl: placeholderCaching };
}

// ---------------------------------------------------------------------------------------
// The schedule: a lane per workspace that has asked for pages, a round of the lanes waiting
// for a place, and at most `limits.sessions` lanes drawing or holding a session.

interface Job {
  ctx: PageImageContext;
  key: PageKey;
  /** The worker's drawing ahead of time (background-pages.ts): a person's request goes first. */
  background: boolean;
  resolve: (image: PageImage) => void;
  reject: (error: unknown) => void;
}

interface Lane {
  workspaceId: string;
  jobs: Job[];
  state: 'idle' | 'waiting' | 'drawing';
  open: { sha256: string; session: RenderSession } | null;
  idle: NodeJS.Timeout | null;
  lastUsed: number;
}

const lanes = new Map<string, Lane>();
/** The worker's jobs waiting in a lane, by `pageImage`'s key: a person's request promotes one. */
const queuedJobs = new Map<string, Job>();
const jobKey = (workspaceId: string, key: PageKey) => `${workspaceId}:${key.sha256}:${key.page}:${key.width}`;
const round: Lane[] = [];
let drawing = 0;
/** Sessions opened and not yet closed (closing ones count until their thread is gone). */
let sessionCount = 0;
const closings = new Set<Promise<void>>();

function inTurn(
  ctx: PageImageContext,
  workspaceId: string,
  key: PageKey,
  background: boolean,
): Promise<PageImage> {
  return new Promise((resolve, reject) => {
    let lane = lanes.get(workspaceId);
    if (!lane) {
      lane = { workspaceId, jobs: [], state: 'idle', open: null, idle: null, lastUsed: 0 };
      lanes.set(workspaceId, lane);
    }
    const job: Job = { ctx, key, background, resolve, reject };
    lane.jobs.push(job);
    if (background) queuedJobs.set(jobKey(workspaceId, key), job);
    if (lane.state === 'idle') {
      lane.state = 'waiting';
      round.push(lane);
    }
    fillPlaces();
  });
}

function fillPlaces(): void {
  while (drawing < limits.sessions) {
    const lane = round.shift();
    if (!lane) return;
    void takeTurn(lane);
  }
}

async function takeTurn(lane: Lane): Promise<void> {
  lane.state = 'drawing';
  drawing += 1;
  if (lane.idle) clearTimeout(lane.idle);
  // A person's request before the worker's drawing ahead of time; then the open file's
  // pages first, so a browser's burst for one document shares one parse.
  const someoneWaits = lane.jobs.some((job) => !job.background);
  const eligible = (job: Job) => !(someoneWaits && job.background);
  const onOpenFile = lane.jobs.findIndex((job) => eligible(job) && job.key.sha256 === lane.open?.sha256);
  const index = onOpenFile >= 0 ? onOpenFile : Math.max(0, lane.jobs.findIndex(eligible));
  const [job] = lane.jobs.splice(index, 1) as [Job];
  queuedJobs.delete(jobKey(lane.workspaceId, job.key));
  try {
    job.resolve(await drawPage(lane, job));
  } catch (error) {
    job.reject(error);
  } finally {
    drawing -= 1;
    lane.lastUsed = performance.now();
    if (lane.jobs.length > 0) {
      lane.state = 'waiting';
      round.push(lane);
    } else {
      lane.state = 'idle';
      if (lane.open) {
        const current = lane;
        lane.idle = setTimeout(() => {
          if (current.state === 'idle') void closeSession(current);
        }, limits.idleMs).unref();
      } else {
        forget(lane);
      }
    }
    fillPlaces();
  }
}

async function drawPage(lane: Lane, { ctx, key }: Job): Promise<PageImage> {
  const deadline = performance.now() + limits.turnMs;
  // Another request may have stored it, or given up on it, while this one waited.
  const stored = await findPageImage(ctx.db, key);
  if (stored) return { png: stored.png, placeholder: false, cacheControl: drawnCaching };
  const failed = await rememberedFailure(ctx, key);
  if (failed) return failed;

  let session: RenderSession;
  try {
    session = await sessionFor(lane, ctx, key.sha256);
  } catch (error) {
    if (!(error instanceof RenderError) || error.code === 'closed') throw error;
    return giveUp(ctx, { ...key, page: 0 }, error, key);
  }
  try {
    if (key.page > session.pageCount) {
      throw new RenderError('invalid-pdf', `pdf.js sees ${session.pageCount} pages, not ${key.page}.`);
    }
    const timeoutMs = Math.max(1, deadline - performance.now());
    const png = Buffer.from(await session.renderPng(key.page, { width: key.width, timeoutMs }));
    // The image's height, from its IHDR chunk (narrower than asked only for a page over 1:4).
    await insertPageImage(ctx.db, { ...key, height: png.readUInt32BE(20), png });
    ctx.metrics.pageRenders.inc({ outcome: 'drawn' });
    return { png, placeholder: false, cacheControl: drawnCaching };
  } catch (error) {
    if (!(error instanceof RenderError)) throw error;
    // Out of time or memory, the parser's thread is gone, and after a page pdf.js could not
    // read its state is not to be trusted: the next turn opens anew.
    await closeSession(lane);
    if (error.code === 'closed') throw error;
    return giveUp(ctx, key, error, key);
  }
}

async function giveUp(
  ctx: PageImageContext,
  failure: PageKey,
  error: RenderError,
  asked: PageKey,
): Promise<PageImage> {
  await recordPageImageFailure(ctx.db, {
    ...failure,
    reason: error.code,
    renderer,
    failedAt: ctx.clock.now(),
  });
  ctx.metrics.pageRenders.inc({ outcome: error.code });
  return placeholder(ctx, asked);
}

/** Files this process has found within the decode budget. */
const withinBudget = new Set<string>();

/** The lane's session on `sha256`: the open one, or a new one once a place for it is free. */
async function sessionFor(lane: Lane, ctx: PageImageContext, sha256: string): Promise<RenderSession> {
  if (lane.open?.sha256 === sha256) return lane.open.session;
  await closeSession(lane);
  await makeRoomForSession();
  sessionCount += 1;
  try {
    // The one place where a stored file is opened for drawing: every check of its bytes
    // before pdf.js reads them goes here. A check that refuses the file throws a RenderError
    // (its code, and its sentence as the message): drawPage then remembers the whole file as
    // given up (page 0) and answers the placeholder, as for a file pdf.js cannot open.
    const data = await readFile(ctx.db, sha256);
    if (!data) throw new Error(`file ${sha256} is missing`);
    // The decode budget (pdf/decode-budget.ts), once per file and process: uploads pass it
    // before they are stored, but a file stored before it existed may be a bomb.
    if (!withinBudget.has(sha256)) {
      const refusal = await decodeBudgetInThread(data);
      if (refusal) throw new RenderError('invalid-pdf', inEnglish(refusal));
      if (withinBudget.size >= 10_000) withinBudget.clear();
      withinBudget.add(sha256);
    }
    const session = await openForRendering(data, {
      timeoutMs: limits.turnMs,
      parserHeapMb: limits.parserHeapMb,
    });
    lane.open = { sha256, session };
    return session;
  } catch (error) {
    // openForRendering ends its thread before it rejects.
    sessionCount -= 1;
    throw error;
  }
}

/** Closes idle lanes' sessions, least recently used first, until one more may open. */
async function makeRoomForSession(): Promise<void> {
  while (sessionCount >= limits.sessions) {
    const idle = [...lanes.values()]
      .filter((lane) => lane.open && lane.state !== 'drawing')
      .sort((a, b) => a.lastUsed - b.lastUsed)[0];
    if (idle) await closeSession(idle);
    else if (closings.size > 0) await Promise.race(closings);
    else return; // Not reached: every other session is an idle lane's or closing.
  }
}

async function closeSession(lane: Lane): Promise<void> {
  if (lane.idle) clearTimeout(lane.idle);
  lane.idle = null;
  const open = lane.open;
  if (!open) return;
  lane.open = null;
  const closing: Promise<void> = open.session
    .close()
    .catch(() => undefined)
    .finally(() => {
      sessionCount -= 1;
      closings.delete(closing);
    });
  closings.add(closing);
  await closing;
  if (lane.state === 'idle' && lane.jobs.length === 0 && !lane.open) forget(lane);
}

/** Drops an idle lane without a session (a workspace's next request makes a new one). */
function forget(lane: Lane): void {
  if (lanes.get(lane.workspaceId) === lane) lanes.delete(lane.workspaceId);
}
