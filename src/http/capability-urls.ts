// **The** list of capability URLs: addresses whose path or query holds a secret that alone
// grants access (a recipient's signing link, an invitation, a sign-up confirmation, a password
// reset, a template's public link and its visitor's confirmation page). The database keeps most
// of them only as hashes, so nothing may write them in full anywhere else: every log line's URL
// goes through `redactUrl`. A capability URL added later (a download link) adds its shape here,
// and the logging test covers it.
//
// A client may spell a path many ways (`//sign//T`, `/%73ign/`, `/SIGN/`, `\sign\`, `;x`,
// `/a/../sign/`); most answer 404, but all are logged. So the path is normalised first, as
// a router or a proxy in front might read it, and anything that then reaches a capability
// prefix is redacted: exactly (only the secret segment) when the path was sent in the one
// canonical shape, wholly (everything after the prefix) when it was not, since then which
// segment holds the secret is a guess.

/** Canonical shapes: each segment matched by a group named `secret…` (`secret`, `secret2`) is replaced. */
const uuid = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const canonicalShapes: RegExp[] = [
  new RegExp(`^/sign/${uuid}/(?<secret>[A-Za-z0-9_-]+)(?:/[a-z-]+(?:/[0-9]{1,4})?)?/?$`, 'd'),
  new RegExp(`^/sign/${uuid}/?$`, 'd'),
  /^\/invitations\/(?<secret>[A-Za-z0-9_-]+)\/?$/d,
  /^\/signup\/confirm\/(?<secret>[A-Za-z0-9_-]+)\/?$/d,
  // "Check your inbox" after asking for a reset: no secret (a token is 43 characters).
  /^\/password-reset\/sent\/?$/d,
  /^\/password-reset\/(?<secret>[A-Za-z0-9_-]+)\/?$/d,
  // A public link (its token is published on purpose, but is the link's only key), and its
  // visitor's confirmation page, whose request id opens the visitor's code form.
  /^\/t\/(?<secret>[A-Za-z0-9_-]+)\/?$/d,
  /^\/t\/(?<secret>[A-Za-z0-9_-]+)\/confirm\/(?<secret2>[A-Za-z0-9_-]+)\/?$/d,
  // Owners' pages whose path names a capability prefix but holds no secret.
  new RegExp(`^/settings/members/invitations(?:/${uuid}/withdraw)?/?$`, 'd'),
];

/** Normalised path prefixes under which a segment is a secret. */
const capabilityPrefixes: string[][] = [
  ['sign'],
  ['invitations'],
  ['signup', 'confirm'],
  ['password-reset'],
  ['t'],
];

/** Query parameters whose value is a secret whatever it looks like. */
const secretParameters = new Set(['token', 'code', 'secret', 'key', 'sig', 'signature', 'apikey', 'api_key']);

export const redactedMark = '[redacted]';

const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#\\]*/i;

/** Percent-decoded until it stops changing (`%2573` is `%73` is `s`), at most a few rounds. */
function decodedFully(value: string): string {
  let current = value;
  for (let round = 0; round < 4; round++) {
    const next = decoded(current);
    if (next === current) break;
    current = next;
  }
  return current;
}

function decoded(value: string): string {
  try {
    return decodeURIComponent(value.replaceAll('+', ' '));
  } catch {
    // A malformed escape elsewhere must not hide a well-formed one: decode each one alone.
    return value.replace(/%[0-9a-fA-F]{2}/g, (sequence) =>
      String.fromCharCode(Number.parseInt(sequence.slice(1), 16)),
    );
  }
}

/**
 * The path's segments as any reader might route them: decoded, backslashes as slashes,
 * `;parameters` dropped, empty and `.` segments dropped, `..` applied, lower-cased.
 */
function routedSegments(path: string): string[] {
  const segments: string[] = [];
  for (const raw of decodedFully(path).replaceAll('\\', '/').split('/')) {
    const segment = (raw.split(';')[0] ?? '').trim().toLowerCase();
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return segments;
}

/** Where, in the routed segments, the first capability prefix ends (its secret's index), or -1. */
function secretStart(segments: string[]): number {
  for (let i = 0; i < segments.length; i++) {
    for (const prefix of capabilityPrefixes) {
      if (prefix.every((name, k) => segments[i + k] === name) && segments.length > i + prefix.length)
        return i + prefix.length;
    }
  }
  return -1;
}

/** A path, or an absolute URL's path after its origin, with its secrets replaced. */
function redactPath(url: string): string {
  const prefix = origin.exec(url)?.[0] ?? '';
  const path = url.slice(prefix.length);
  for (const shape of canonicalShapes) {
    const match = shape.exec(path);
    if (!match) continue;
    const secrets = Object.entries(match.indices?.groups ?? {})
      .filter(([name, at]) => name.startsWith('secret') && at !== undefined)
      .map(([, at]) => at as [number, number])
      .sort((a, b) => a[0] - b[0]);
    let redacted = '';
    let from = 0;
    for (const [start, end] of secrets) {
      redacted += path.slice(from, start) + redactedMark;
      from = end;
    }
    return prefix + redacted + path.slice(from);
  }
  const segments = routedSegments(path);
  const at = secretStart(segments);
  if (at === -1) return url;
  return `${prefix}/${segments.slice(0, at).join('/')}/${redactedMark}`;
}

/**
 * The URL (a path or an absolute URL, with an optional query) with every secret
 * path segment and secret query value replaced by "[redacted]". A query value is secret
 * when its name says so or when it is itself a capability path (`/login?next=/sign/…`).
 */
export function redactUrl(url: string): string {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const redactedPath = redactPath(path);
  if (queryAt === -1) return redactedPath;
  const query = url
    .slice(queryAt + 1)
    .split(/[&;]/)
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals === -1) return redactPath(decodedFully(pair)) !== decodedFully(pair) ? redactedMark : pair;
      const name = decodedFully(pair.slice(0, equals)).trim().toLowerCase();
      const value = decodedFully(pair.slice(equals + 1));
      const isSecret = secretParameters.has(name) || redactPath(value) !== value;
      return isSecret ? `${pair.slice(0, equals)}=${redactedMark}` : pair;
    })
    .join('&');
  return `${redactedPath}?${query}`;
}
