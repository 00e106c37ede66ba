// **The** list of capability URLs: addresses whose path or query holds a secret that alone
// grants access (a recipient's signing link, an invitation, a sign-up confirmation). The
// database keeps only their hashes, so nothing may write them in full anywhere else: every
// log line's URL goes through `redactUrl`. A capability URL added later (a download link)
// adds its shape here, and the logging test covers it.

/** Path shapes: the segments matched by the group named `secret` are replaced. */
const secretPaths: RegExp[] = [
  /^\/sign\/[^/?#]+\/(?<secret>[^/?#]+)/,
  /^\/invitations\/(?<secret>[^/?#]+)/,
  /^\/signup\/confirm\/(?<secret>[^/?#]+)/,
];

/** Query parameters whose value is a secret whatever it looks like. */
const secretParameters = new Set(['token', 'code', 'secret', 'key', 'sig', 'signature', 'apikey', 'api_key']);

export const redactedMark = '[redacted]';

const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/** A path, or an absolute URL's path after its origin, with its secret segment replaced. */
function redactPath(url: string): string {
  const prefix = origin.exec(url)?.[0] ?? '';
  const path = url.slice(prefix.length);
  for (const shape of secretPaths) {
    const match = shape.exec(path);
    const secret = match?.groups?.secret;
    if (match && secret !== undefined) {
      const start = match.index + match[0].length - secret.length;
      return prefix + path.slice(0, start) + redactedMark + path.slice(start + secret.length);
    }
  }
  return url;
}

/** A percent-encoded path routes like its decoded form, so it is checked decoded too. */
function redactPathAsRouted(path: string): string {
  const asSent = redactPath(path);
  if (asSent !== path) return asSent;
  const plain = decoded(path);
  const asRouted = redactPath(plain);
  return asRouted !== plain ? asRouted : path;
}

function decoded(value: string): string {
  try {
    return decodeURIComponent(value.replaceAll('+', ' '));
  } catch {
    return value;
  }
}

/**
 * The URL (a path or an absolute URL, with an optional query) with every secret
 * path segment and secret query value replaced by "[redacted]". A query value is secret
 * when its name says so or when it is itself a capability path (`/login?next=/sign/…`).
 */
export function redactUrl(url: string): string {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const redactedPath = redactPathAsRouted(path);
  if (queryAt === -1) return redactedPath;
  const query = url
    .slice(queryAt + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals === -1) return pair;
      const name = decoded(pair.slice(0, equals)).toLowerCase();
      const value = decoded(pair.slice(equals + 1));
      const isSecret = secretParameters.has(name) || redactPath(value) !== value;
      return isSecret ? `${pair.slice(0, equals)}=${redactedMark}` : pair;
    })
    .join('&');
  return `${redactedPath}?${query}`;
}
