// The styles and the one script of every HTML page, kept as real files beside this module
// (assets/base.css, assets/app.css, assets/app.js) and read once at start-up:
// - base.css: what every page shares. Signing pages carry it inline, allowed by its
//   SHA-256 in their Content-Security-Policy (security.ts), so a recipient's page loads
//   nothing else; the web application links it with its own styles as /assets/app.css.
// - app.js + field-editor.js, served as one /assets/app.js: progressive enhancement of the
//   web application only (copy buttons, the live value of a document form, a progress page
//   updated in place instead of reloaded, drawing and dragging fields); every page works
//   without it.
// - sign.js: the signing page's signature pad, inline (hashed in its policy); and the
//   handwriting face of typed signatures, served as /assets/signature.ttf.
// - favicon.svg (/assets/favicon.svg, linked by every page's shell) and favicon.ico, the
//   same drawing at 16, 32 and 48 px (made from the SVG with @napi-rs/canvas), answered at
//   /favicon.ico for the browsers and tools that ask there whatever the page links.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { fontFile } from '../pdf/font-faces.ts';

const read = (name: string) => readFileSync(join(import.meta.dirname, 'assets', name), 'utf8');

export const baseStyles = read('base.css');
/** The stylesheet every application page links: /assets/app.css. */
export const appStylesheet = `${baseStyles}${read('app.css')}`;
// The field editor's pointer path rides in the same script: one file for the browser to fetch.
export const appScript = `${read('app.js')}\n${read('field-editor.js')}`;
/** The signing page's script (the signature pad) and styles, inline and hashed in its policy. */
export const signScript = read('sign.js');
export const signStyles = read('signing.css');
/** The handwriting face of typed signatures (the one the sealed PDF uses), for previews. */
const signatureFont = readFileSync(fontFile('hand'));
const faviconIco = readFileSync(join(import.meta.dirname, 'assets', 'favicon.ico'));

/** A CSP hash source for inline content (`'sha256-…'`). */
export function hashSource(content: string): string {
  return `'sha256-${createHash('sha256').update(content).digest('base64')}'`;
}

const assets: Record<string, { type: string; body: string | Buffer }> = {
  '/assets/app.css': { type: 'text/css; charset=utf-8', body: appStylesheet },
  '/assets/app.js': { type: 'text/javascript; charset=utf-8', body: appScript },
  '/assets/signature.ttf': { type: 'font/ttf', body: signatureFont },
  '/assets/favicon.svg': { type: 'image/svg+xml', body: read('favicon.svg') },
  '/favicon.ico': { type: 'image/x-icon', body: faviconIco },
};

/** The same for everyone: public, cached an hour, never behind a session. */
export async function assetRoutes(app: FastifyInstance) {
  for (const [path, asset] of Object.entries(assets)) {
    app.get(path, (_request, reply) =>
      reply
        .header('content-type', asset.type)
        .header('cache-control', 'public, max-age=3600')
        .send(asset.body),
    );
  }
}
