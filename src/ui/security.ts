// **The** security headers of every HTML page, at `/` and under `/sign`: one set, through
// @fastify/helmet, with one Content-Security-Policy per kind of page.
// - Plain pages (messages, the unavailable page): no script at all, one inline stylesheet
//   allowed by its hash, so they load nothing else.
// - Signing pages: the same, plus the document's page images, the signature face and the
//   inline signature-pad script (by its hash), all from this origin.
// - Application pages: stylesheet and script from this origin only (/assets/app.*).
// Both: nothing inline that is not hashed, forms post here only, no <base>, no framing
// (a Sign button cannot be clickjacked), no referrer (links carry secrets), nosniff.
// HSTS is set for every response in app.ts, where HTTPS is known (SIGNET_TRUST_PROXY).
import type { FastifyHelmetOptions } from '@fastify/helmet';
import { baseStyles, hashSource, signScript, signStyles } from './assets.ts';

const plainDirectives = {
  defaultSrc: ["'none'"],
  styleSrc: [hashSource(baseStyles)],
  formAction: ["'self'"],
  baseUri: ["'none'"],
  frameAncestors: ["'none'"],
};

// The signing page: a plain page that also shows the document's pages (images from this
// origin), a preview of the typed signature in the handwriting face (a font from this
// origin), the workspace's brand (a stylesheet from this origin), and carries one inline
// script, the signature pad, allowed by its hash.
const signingDirectives = {
  ...plainDirectives,
  // 'self': the workspace's brand, a stylesheet of this origin (assets.ts brandStylesheetPath).
  styleSrc: [hashSource(baseStyles), hashSource(signStyles), "'self'"],
  scriptSrc: [hashSource(signScript)],
  imgSrc: ["'self'"],
  fontSrc: ["'self'"],
};

const appDirectives = {
  defaultSrc: ["'none'"],
  styleSrc: ["'self'"],
  scriptSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  formAction: ["'self'"],
  baseUri: ["'none'"],
  frameAncestors: ["'none'"],
};

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The plain pages' policy as a header value, for answers sent outside a helmet scope. */
export const plainPagePolicy = Object.entries(plainDirectives)
  .map(([name, sources]) => `${kebab(name)} ${sources.join(' ')}`)
  .join('; ');

const directives = { plain: plainDirectives, signing: signingDirectives, app: appDirectives };

/** Helmet's options for a scope of plain pages, signing pages (`/sign`) or application pages (`/`). */
export function securityHeaders(kind: keyof typeof directives): FastifyHelmetOptions {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: directives[kind],
    },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: false,
    crossOriginEmbedderPolicy: false,
    frameguard: { action: 'deny' },
  };
}
