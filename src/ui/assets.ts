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

/** The accent darkened by a sixth, for a button under the pointer. */
function hoverShade(accent: string): string {
  const dark = (at: number) =>
    Math.round(Number.parseInt(accent.slice(at, at + 2), 16) * (5 / 6))
      .toString(16)
      .padStart(2, '0');
  return `#${dark(1)}${dark(3)}${dark(5)}`;
}

/**
 * The address of a brand's stylesheet (workspaces/brand.ts): the accent colour (`#rrggbb`) as
 * the pages' primary colour. The address names the colour, so what it answers never changes:
 * no session, no database, cached a year, and allowed by the pages' `style-src 'self'`.
 */
export function brandStylesheetPath(accent: string): string {
  return `/assets/brand/${accent.slice(1)}.css`;
}

/** What brandStylesheetPath answers. */
export function brandStylesheet(accent: string): string {
  return [
    `:root {\n  --primary: ${accent};\n  --primary-hover: ${hoverShade(accent)};\n  --focus: 0 0 0 3px #ffffff, 0 0 0 5px ${accent};\n}`,
    // The company's colour seen at once, above everything the page says.
    `body {\n  border-top: 6px solid ${accent};\n}`,
    '',
  ].join('\n');
}

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
  app.get<{ Params: { file: string } }>('/assets/brand/:file', (request, reply) => {
    const colour = /^([0-9a-f]{6})\.css$/.exec(request.params.file)?.[1];
    if (!colour) return reply.callNotFound();
    return reply
      .header('content-type', 'text/css; charset=utf-8')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .send(brandStylesheet(`#${colour}`));
  });
}
