// Page images of a PDF, drawn on the server so the signing page shows a document without
// JavaScript. pdf.js parses and draws (its legacy build, the one it supports in Node) on a
// canvas from @napi-rs/canvas; a session opens the file once and renders as many pages, at
// as many widths, as the caller asks. Caching the PNGs is the caller's job.
//
// Each session parses in its own worker thread. Left to itself, pdf.js in Node parses on
// the calling thread ("fake worker") in steps chained as microtasks, so a hard page held up
// every request of the process for seconds and no timer could stop it. In a thread the
// parse can be stopped at any moment (the thread is terminated) and its heap is capped;
// the drawing stays on this thread, in 15 ms slices between which the event loop turns.
//
// Hostile input is expected: whatever the bytes, a session rejects with a RenderError and
// never crashes the process, holds an unbounded canvas or works forever. The bounds:
// - width: at most MAX_RENDER_WIDTH pixels per image, asked for by the caller;
// - height: at most MAX_HEIGHT_RATIO times the width. A page taller than that (a till
//   receipt, or a hostile 1 x 100000 point page) is scaled down to fit, whole: its image is
//   narrower than asked (at least 1 pixel). A very wide page gives an image at least 1
//   pixel high. So no image has more than 1600 x 6400 pixels (41 MB of canvas);
// - embedded images over MAX_IMAGE_PIXELS are left out of the drawing (pdf.js's
//   maxImageSize) rather than decoded;
// - the parser's heap: PARSER_HEAP_MB; past it the thread dies and the session rejects
//   with 'out-of-memory';
// - time: opening the file, and then each call (a page: reading it and drawing it), may take
//   `timeoutMs` in all (a call may ask for less); past it the session rejects with 'timeout'.
// After 'timeout' or 'out-of-memory' the session is closed (its thread is gone); a caller
// that wants the other pages opens a new one.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker } from 'node:worker_threads';
import type { Canvas } from '@napi-rs/canvas';
import type { PDFDocumentLoadingTask, PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';

export const MAX_RENDER_WIDTH = 1600;
export const MAX_HEIGHT_RATIO = 4;
// An A4 or Letter page scanned at 600 dpi (35 million pixels) still shows; larger images
// would need hundreds of megabytes each to decode.
export const MAX_IMAGE_PIXELS = 40_000_000;
// The parser's JavaScript heap (file, cross-reference table, fonts, drawing instructions).
// Decoded images are ArrayBuffers, outside it, and bounded by MAX_IMAGE_PIXELS instead.
export const PARSER_HEAP_MB = 512;
export const MIN_PARSER_HEAP_MB = 8;
const DEFAULT_TIMEOUT_MS = 30_000;

export type RenderErrorCode = 'invalid-pdf' | 'encrypted' | 'timeout' | 'out-of-memory' | 'closed';

export class RenderError extends Error {
  readonly code: RenderErrorCode;
  constructor(code: RenderErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = `RenderError(${code})`;
    this.code = code;
  }
}

export interface PageSize {
  width: number;
  height: number;
}

export interface RenderOptions {
  /** The image's width in pixels, an integer from 1 to MAX_RENDER_WIDTH. */
  width: number;
  /** How long this call may take, reading the page and drawing it (default: the session's). */
  timeoutMs?: number;
}

export interface OpenOptions {
  /** How long opening the file, and then each call (each page), may take in all. */
  timeoutMs?: number;
  /**
   * The cap on the parser thread's JavaScript heap, in MB (default PARSER_HEAP_MB), at least
   * MIN_PARSER_HEAP_MB: below about 3 MB, V8 aborts the whole process as it starts the thread.
   */
  parserHeapMb?: number;
}

export interface RenderSession extends AsyncDisposable {
  readonly pageCount: number;
  /**
   * The page as pdf.js's viewport at scale 1 sees it: after /Rotate, the crop box and
   * /UserUnit, one unit per PDF point (1/72 inch), which pdf.js treats as one CSS pixel.
   */
  pageSize(pageNumber: number): Promise<PageSize>;
  /** The pixel size of the PNG that renderPng gives for these options (see the bounds above). */
  renderSize(pageNumber: number, options: RenderOptions): Promise<PageSize>;
  /** A PNG of the page on white, `width` pixels wide (narrower only for a page over 1:4). */
  renderPng(pageNumber: number, options: RenderOptions): Promise<Uint8Array>;
  /**
   * Finishes what was asked before, then ends the parser's thread and frees pdf.js's memory;
   * later calls reject with 'closed'.
   */
  close(): Promise<void>;
}

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
type Libraries = { pdfjs: PdfJs; createCanvas: (width: number, height: number) => Canvas };

// Loaded on first use: pdf.js is a large module that most commands of the CLI never need.
let loading: Promise<Libraries> | undefined;
function loadLibraries(): Promise<Libraries> {
  loading ??= Promise.all([import('pdfjs-dist/legacy/build/pdf.mjs'), import('@napi-rs/canvas')]).then(
    ([pdfjs, canvas]) => ({ pdfjs, createCanvas: canvas.createCanvas }),
  );
  return loading;
}

// The data pdf.js reads from disk: the 14 standard fonts a PDF may use without embedding
// them, the CMaps of CJK text, and the WebAssembly decoders of JPEG 2000 and JBIG2 images.
// In Node pdf.js reads them with fs.readFile on this thread, so plain paths, ending with a
// slash.
const pdfjsFolder = dirname(fileURLToPath(import.meta.resolve('pdfjs-dist/package.json')));
const dataFolders = {
  standardFontDataUrl: `${pdfjsFolder}/standard_fonts/`,
  cMapUrl: `${pdfjsFolder}/cmaps/`,
  cMapPacked: true,
  wasmUrl: `${pdfjsFolder}/wasm/`,
  // No iccUrl: pdf.js reads ICC profiles with a synchronous XMLHttpRequest, which Node does
  // not have; CMYK colours fall back to pdf.js's own conversion, which is close enough.
  // (And no isEvalSupported: pdf.js 6 no longer compiles anything from a file with eval or
  // new Function, so there is nothing to turn off.)
};

// The parser's thread: pdf.js's own worker module, listening on a port of ours. The source
// is valid both as a script and as a module: a thread inherits the process's flags, and
// with --input-type=module its source is a module, where `require` does not exist.
const parserUrl = import.meta.resolve('pdfjs-dist/legacy/build/pdf.worker.mjs');
const parserSource = `
const { workerData } = process.getBuiltinModule('node:worker_threads');
import(workerData.parserUrl).then(({ WorkerMessageHandler }) => WorkerMessageHandler.initializeFromPort(workerData.port));
`;

// One session's parser thread, and the one way everything in the session waits: `guard`
// settles as the promise does, unless the time runs out or the thread dies first, and then
// ends the thread. The time is one deadline per step of the session (`startClock`: opening,
// each call, closing), shared by every wait of that step, so a page that is slow to read
// and then slow to draw still gets `timeoutMs` in all, not twice.
function startParser(
  pdfjs: PdfJs,
  { timeoutMs = DEFAULT_TIMEOUT_MS, parserHeapMb = PARSER_HEAP_MB }: OpenOptions,
) {
  if (!(parserHeapMb >= MIN_PARSER_HEAP_MB)) {
    throw new RangeError(`parserHeapMb must be at least ${MIN_PARSER_HEAP_MB}, not ${parserHeapMb}.`);
  }
  const { port1, port2 } = new MessageChannel();
  const thread = new Worker(parserSource, {
    eval: true,
    workerData: { parserUrl, port: port2 },
    transferList: [port2],
    resourceLimits: { maxOldGenerationSizeMb: parserHeapMb },
  });
  // pdf.js's types say a port is null; it takes any object with postMessage and
  // addEventListener, as Node's MessagePort has.
  const worker = new pdfjs.PDFWorker({ port: port1 as never, verbosity: pdfjs.VerbosityLevel.ERRORS });
  let death: RenderError | undefined;
  const died = new Promise<never>((_, reject) => {
    // `on`, not `once`: an 'error' event that no one listens to would crash the process.
    thread.on('error', (error: Error & { code?: string }) => {
      death ??=
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new RenderError('out-of-memory', 'Reading the PDF needs more memory than allowed.', {
              cause: error,
            })
          : new RenderError('invalid-pdf', `The PDF reader failed: ${error.message}`, { cause: error });
      reject(death);
    });
    thread.once('exit', () => {
      death ??= new RenderError('closed', 'The render session is closed.');
      reject(death);
    });
  });
  died.catch(() => undefined);
  let busy = 0;
  let stepMs = timeoutMs;
  let deadline = performance.now() + stepMs;

  async function stop(): Promise<void> {
    worker.destroy();
    port1.close();
    await thread.terminate();
  }

  return {
    worker,
    stop,
    get death() {
      return death;
    },
    /** Starts a step: its waits together may take `ms` (the session's timeoutMs by default). */
    startClock(ms = timeoutMs): void {
      stepMs = ms;
      deadline = performance.now() + ms;
    },
    // Keeps the process alive only while the session is working: a session left open does
    // not stop the process from exiting.
    async guard<T>(promise: Promise<T>, doing: string, abandon?: () => void): Promise<T> {
      if (busy++ === 0) {
        thread.ref();
        port1.ref();
      }
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => {
            // Rejects first, so the race ends with this reason and not with the cancellation.
            death ??= new RenderError('timeout', `Gave up ${doing} after ${stepMs} ms.`);
            reject(death);
            abandon?.();
            void stop();
          },
          Math.max(0, deadline - performance.now()),
        );
      });
      try {
        return await Promise.race([promise, timeout, died]);
      } finally {
        clearTimeout(timer);
        if (--busy === 0) {
          thread.unref();
          port1.unref();
        }
      }
    },
  };
}
type Parser = ReturnType<typeof startParser>;

export async function openForRendering(pdf: Uint8Array, options: OpenOptions = {}): Promise<RenderSession> {
  const libraries = await loadLibraries();
  const { pdfjs } = libraries;
  const parser = startParser(pdfjs, options);
  parser.startClock();
  const task = pdfjs.getDocument({
    // pdf.js takes over (detaches) an array it is given whole, and refuses a Buffer: a copy
    // leaves the caller's bytes alone.
    data: new Uint8Array(pdf),
    worker: parser.worker,
    ...dataFolders,
    maxImageSize: MAX_IMAGE_PIXELS,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
  });
  try {
    const document = await parser.guard(task.promise, 'opening the PDF');
    // pdf.js opens a file encrypted with an empty user password without asking; Signet
    // neither stores nor seals encrypted files, so it does not show them either.
    const { info } = await parser.guard(document.getMetadata(), 'opening the PDF');
    if ((info as { EncryptFilterName?: string | null }).EncryptFilterName) {
      throw new RenderError('encrypted', 'The PDF is encrypted.');
    }
    return createSession(task, document, parser, libraries);
  } catch (error) {
    if (!parser.death) await parser.guard(task.destroy(), 'closing the PDF').catch(() => undefined);
    await parser.stop();
    throw toRenderError(error, pdfjs);
  }
}

function createSession(
  task: PDFDocumentLoadingTask,
  document: PDFDocumentProxy,
  parser: Parser,
  { pdfjs, createCanvas }: Libraries,
): RenderSession {
  const pageCount = document.numPages;
  let isClosed = false;
  // One page at a time, so that callers who fire many renders at once still hold one canvas.
  let queue: Promise<unknown> = Promise.resolve();

  // Work asked for before close() is still done; close() waits for it.
  function serially<T>(work: () => Promise<T>, timeoutMs?: number): Promise<T> {
    if (isClosed) return Promise.reject(new RenderError('closed', 'The render session is closed.'));
    const result = queue.then(async () => {
      if (parser.death) throw parser.death;
      parser.startClock(timeoutMs);
      try {
        return await work();
      } catch (error) {
        throw toRenderError(error, pdfjs);
      }
    });
    queue = result.catch(() => undefined);
    return result;
  }

  // The page last drawn keeps its drawing instructions, so drawing it again at another width
  // (the caller draws each page at two) does not parse it again; moving to another page
  // drops them, and its decoded images, so a session holds one page's worth at most.
  let lastPage: PDFPageProxy | undefined;
  function releaseLastPage(): void {
    lastPage?.cleanup();
    lastPage = undefined;
  }

  async function withPage<T>(pageNumber: number, use: (page: PDFPageProxy) => Promise<T>): Promise<T> {
    if (lastPage?.pageNumber !== pageNumber) releaseLastPage();
    lastPage = await parser.guard(document.getPage(pageNumber), `reading page ${pageNumber}`);
    try {
      return await use(lastPage);
    } catch (error) {
      releaseLastPage();
      throw error;
    }
  }

  // A page or width out of range is the caller's mistake, not the file's: a RangeError,
  // before any work.
  function checkPage(pageNumber: number): void {
    if (!Number.isInteger(pageNumber) || pageNumber < 1 || pageNumber > pageCount) {
      throw new RangeError(`Page ${pageNumber} is not between 1 and ${pageCount}.`);
    }
  }

  async function render(page: PDFPageProxy, width: number): Promise<Uint8Array> {
    const pageSize = sizeOf(page);
    const size = fitRenderSize(pageSize, width);
    const canvas = createCanvas(size.width, size.height);
    try {
      const task = page.render({
        // pdf.js declares the DOM's canvas; @napi-rs/canvas has the part of it pdf.js uses.
        canvas: canvas as unknown as Parameters<PDFPageProxy['render']>[0]['canvas'],
        // The smaller of the two, so that a rounded side never pushes the page off the canvas.
        viewport: page.getViewport({
          scale: Math.min(size.width / pageSize.width, size.height / pageSize.height),
        }),
        background: 'white',
        // Form fields drawn from their stored appearances, as every reader draws them once the
        // form does not ask readers to draw fields themselves (NeedAppearances is refused at
        // upload, active-content.ts): signers see the fields the sealed file shows. pdf.js's
        // default leaves them to an HTML layer these pages do not have.
        annotationMode: pdfjs.AnnotationMode.ENABLE,
      });
      // pdf.js draws in slices of 15 ms and, left alone, chains them as microtasks, so
      // nothing else (a request, the timer of the guard) runs until the page is done.
      task.onContinue = (next: () => void) => setImmediate(next);
      await parser.guard(task.promise, `drawing page ${page.pageNumber}`, () => task.cancel());
      // PNG encoding runs on libuv's thread pool.
      return await canvas.encode('png');
    } finally {
      // Frees the pixels now rather than whenever the garbage collector notices the canvas,
      // which may be late: they live outside the JavaScript heap.
      canvas.width = 0;
      canvas.height = 0;
    }
  }

  async function close(): Promise<void> {
    if (isClosed) return;
    isClosed = true;
    await queue;
    if (!parser.death) {
      releaseLastPage();
      parser.startClock();
      await parser.guard(task.destroy(), 'closing the PDF').catch(() => undefined);
    }
    await parser.stop();
  }

  const session: RenderSession = {
    pageCount,
    pageSize: async (pageNumber) => {
      checkPage(pageNumber);
      return serially(() => withPage(pageNumber, async (page) => sizeOf(page)));
    },
    renderSize: async (pageNumber, { width, timeoutMs }) => {
      checkPage(pageNumber);
      checkWidth(width);
      return serially(
        () => withPage(pageNumber, async (page) => fitRenderSize(sizeOf(page), width)),
        timeoutMs,
      );
    },
    renderPng: async (pageNumber, { width, timeoutMs }) => {
      checkPage(pageNumber);
      checkWidth(width);
      return serially(() => withPage(pageNumber, (page) => render(page, width)), timeoutMs);
    },
    close,
    [Symbol.asyncDispose]: close,
  };
  return session;
}

function sizeOf(page: PDFPageProxy): PageSize {
  const { width, height } = page.getViewport({ scale: 1 });
  if (!(width > 0 && height > 0 && Number.isFinite(width) && Number.isFinite(height))) {
    throw new RenderError('invalid-pdf', `Page ${page.pageNumber} has no area.`);
  }
  return { width, height };
}

/** The image size for a page of `page` size at `width` pixels, within the bounds above. */
export function fitRenderSize(page: PageSize, width: number): PageSize {
  const maxHeight = MAX_HEIGHT_RATIO * width;
  const height = (width * page.height) / page.width;
  if (height <= maxHeight) return { width, height: Math.max(1, Math.round(height)) };
  return { width: Math.max(1, Math.round((maxHeight * page.width) / page.height)), height: maxHeight };
}

function checkWidth(width: number): void {
  if (!Number.isInteger(width) || width < 1 || width > MAX_RENDER_WIDTH) {
    throw new RangeError(`An image width must be an integer from 1 to ${MAX_RENDER_WIDTH}, not ${width}.`);
  }
}

function toRenderError(error: unknown, pdfjs: PdfJs): RenderError {
  if (error instanceof RenderError) return error;
  if (error instanceof pdfjs.PasswordException) {
    return new RenderError('encrypted', 'The PDF is protected by a password.', { cause: error });
  }
  const detail = error instanceof Error ? error.message : String(error);
  return new RenderError('invalid-pdf', `The PDF cannot be read: ${detail}`, { cause: error });
}
