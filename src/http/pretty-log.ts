// SIGNET_LOG_FORMAT=pretty (what `npm start` prints): the JSON lines pino writes, each read
// back and written as one short line a person can read in a terminal:
//
//   14:03:07 GET /documents?q=acme 200 12 ms
//   14:03:09 WARN mail is logged, not sent: set SMTP_URL to send it
//
// Fastify logs a request twice (incoming, completed); the method and URL of the first are
// kept by request id until the second, so a request is one line, written when it ends. The
// lines are pino's after its redaction and serializers (context.ts loggerOptions): the URL
// is already redactUrl's, a secret header or field already "[redacted]"; nothing here sees
// more than the JSON log would show.
import type { DestinationStream } from 'pino';

interface Entry {
  level?: number;
  time?: number;
  msg?: string;
  reqId?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  err?: { message?: string; stack?: string };
  [key: string]: unknown;
}

const levelNames: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** pino's own fields and Fastify's request fields: shown in the line's own shape, not as key=value. */
const shownApart = new Set([
  'level',
  'time',
  'pid',
  'hostname',
  'msg',
  'reqId',
  'req',
  'res',
  'responseTime',
  'err',
]);
/** Requests begun and not yet ended: a bound, so requests that never end cannot grow it. */
const maxPending = 10_000;

const two = (n: number) => String(n).padStart(2, '0');

function clock(time: number | undefined): string {
  const at = new Date(time ?? Date.now());
  return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
}

function valueText(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

/** The extra fields of an entry, as ` key=value` pairs. */
function extras(entry: Entry): string {
  return Object.entries(entry)
    .filter(([key, value]) => !shownApart.has(key) && value !== undefined && value !== null)
    .map(([key, value]) => ` ${key}=${valueText(value)}`)
    .join('');
}

/** A pino destination writing one readable line for each request and for each other entry. */
export function prettyLogDestination(out: { write(text: string): unknown }): DestinationStream {
  const pending = new Map<string, string>();
  return {
    write(line: string) {
      let entry: Entry;
      try {
        entry = JSON.parse(line) as Entry;
      } catch {
        out.write(line.endsWith('\n') ? line : `${line}\n`);
        return;
      }
      const time = clock(entry.time);
      if (entry.msg === 'incoming request' && entry.reqId !== undefined && entry.req) {
        if (pending.size >= maxPending) pending.clear();
        pending.set(entry.reqId, `${entry.req.method ?? '?'} ${entry.req.url ?? '?'}`);
        return;
      }
      if (entry.msg === 'request completed' && entry.res) {
        const request = (entry.reqId !== undefined && pending.get(entry.reqId)) || 'request';
        if (entry.reqId !== undefined) pending.delete(entry.reqId);
        const ms = Math.round(entry.responseTime ?? 0);
        out.write(`${time} ${request} ${entry.res.statusCode ?? '?'} ${ms} ms\n`);
        return;
      }
      const level = levelNames[entry.level ?? 30];
      const request = entry.reqId !== undefined ? pending.get(entry.reqId) : undefined;
      const error = entry.err
        ? `\n  ${(entry.err.stack ?? entry.err.message ?? '').replaceAll('\n', '\n  ')}`
        : '';
      out.write(
        `${time}${level ? ` ${level}` : ''} ${entry.msg ?? ''}${request ? ` (${request})` : ''}${extras(entry)}${error}\n`,
      );
    },
  };
}
