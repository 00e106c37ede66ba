// Owns the environment: every setting Signet reads is parsed and validated here, once,
// into a typed Config. Nothing else reads process.env.

export const logFormats = ['json', 'pretty'] as const;
export type LogFormat = (typeof logFormats)[number];

export interface Config {
  /** postgres://… when set; otherwise the embedded PGlite database in dataDir. */
  databaseUrl: string | null;
  dataDir: string;
  databasePoolSize: number;
  /** When set, rate-limit buckets live in Redis and are shared by every process. */
  redisUrl: string | null;
  host: string;
  port: number;
  /** Base of every public address the service prints (document urls, signing links). */
  publicUrl: string;
  /**
   * Whether SIGNET_PUBLIC_URL set publicUrl. When it did not, publicUrl names HOST and PORT,
   * and a command uses the running server's instead (db/server-settings.ts).
   */
  publicUrlSet: boolean;
  /** SIGNET_API_KEY: the key `signet listen --api-url` uses without --api-key. No server reads it. */
  apiKey: string | null;
  trustProxy: boolean;
  logLevel: string;
  /**
   * SIGNET_LOG_FORMAT: `json` (one JSON object a line, for a log collector: the default) or
   * `pretty` (one short line a request, for a person watching a terminal; http/pretty-log.ts).
   */
  logFormat: LogFormat;
  /** Whether SIGNET_LOG_FORMAT set logFormat; when not, `serve --demo` (npm start) prints pretty. */
  logFormatSet: boolean;
  /**
   * Whether an npm script started this process (npm sets npm_lifecycle_event): `serve` then
   * stops when its npm process is gone (cli/serve.ts), so a kill of `npm start` never leaves
   * it holding its port.
   */
  startedByNpm: boolean;
  /** GET /metrics: off, on the main port (port null), or only on a port of its own. */
  metrics: { enabled: boolean; port: number | null };
  /** How long SIGTERM waits for in-flight requests and webhook attempts. */
  shutdownTimeoutMs: number;
  rateLimit: { burst: number; refillPerSecond: number };
  /** smtp(s)://… to send mail; without it mail is logged and kept in the mails table. */
  smtpUrl: string | null;
  mailFrom: string;
  /** The largest PDF a sender may upload (bytes). */
  maxUploadBytes: number;
  /** What a workspace may upload in a UTC day, in all (bytes; documents/upload-usage.ts). */
  uploadBytesPerDay: number;
  /** SIGNET_BULK_MAX_ROWS: the most rows one bulk send's spreadsheet may have (templates/bulk-send.ts). */
  bulkMaxRows: number;
  /**
   * SIGNET_MAIL_PER_MINUTE: the most mails the workers hand the mail server in any minute, every
   * process together (mail/mail.service.ts); the rest wait their turn in the outbox.
   */
  mailPerMinute: number;
  /**
   * SIGNET_PUBLIC_LINK_CODE_MAILS_PER_DAY: the most code mails one workspace's public links may
   * send in a UTC day, all its links together (templates/public-link-caps.ts).
   */
  publicLinkCodeMailsPerDay: number;
  /** Open event streams (GET /v1/events/stream) per process: per workspace, and in all. */
  eventStreams: { perWorkspace: number; max: number };
  /**
   * How the sealed PDFs are signed: a PKCS#12 from a CA, or (null) the installation's own; the
   * time-stamp authority, and its certificate (PEM), the only one whose time-stamps /verify vouches for.
   */
  seal: {
    p12File: string | null;
    p12Passphrase: string;
    tsaUrl: string | null;
    tsaCertFile: string | null;
    /**
     * The key that encrypts the installation seal's private key in the database (never stored
     * there): SIGNET_SEAL_KEY_FILE names a file holding it, SIGNET_SEAL_KEY holds it (32 bytes,
     * base64 or hex). Neither, on a data folder: `seal.key` generated in it (seal-kek.ts).
     */
    keyFile: string | null;
    key: string | null;
    /** SIGNET_SEAL_ORGANIZATION: the O= of a self-signed seal made from now on (default: the public URL's host). */
    organization: string | null;
  };
  webhooks: {
    /** SIGNET_WEBHOOK_ALLOW_UNSAFE=1: http, any port, private addresses. Development only. */
    allowUnsafe: boolean;
    /** Minimum waits before retry 1, 2, 3 (spec: about 5 minutes, 30 minutes, 2 hours). */
    retryDelaysMs: number[];
    /** How often the sweep sends due retries (spec: every 10 minutes). */
    sweepIntervalMs: number;
    /** The whole exchange of one attempt (spec: 10 seconds). */
    timeoutMs: number;
    /** Attempts in flight per process, in all and per endpoint. */
    concurrency: number;
    perEndpointConcurrency: number;
    /** Deliveries and attempts older than this are pruned. */
    retentionMs: number;
  };
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

/** Open event streams per process unless the environment says otherwise (docs and tests read them here). */
export const eventStreamDefaults = { perWorkspace: 5, max: 100 } as const;

export function loadConfig(env: Env = process.env): Config {
  const port = readInteger(env, 'PORT', 3000, 0, 65535);
  const databaseUrl = readOptional(env, 'DATABASE_URL');
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const redisUrl = readOptional(env, 'REDIS_URL');
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError('REDIS_URL must start with redis:// or rediss://');
  }
  const host = readOptional(env, 'HOST') ?? '127.0.0.1';
  // By default links name the address the server listens on, as its startup lines do;
  // a wildcard address is not one to browse to.
  const listenHost =
    host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  const publicUrlSet = readOptional(env, 'SIGNET_PUBLIC_URL') !== null;
  const publicUrl = (readOptional(env, 'SIGNET_PUBLIC_URL') ?? `http://${listenHost}:${port}`).replace(
    /\/+$/,
    '',
  );
  if (!URL.canParse(publicUrl) || !/^https?:$/.test(new URL(publicUrl).protocol)) {
    throw new ConfigError('SIGNET_PUBLIC_URL must be an http(s) URL');
  }
  const smtpUrl = readOptional(env, 'SMTP_URL');
  if (smtpUrl !== null && !/^smtps?:\/\//.test(smtpUrl)) {
    throw new ConfigError('SMTP_URL must start with smtp:// or smtps://');
  }
  const metricsPort =
    readOptional(env, 'SIGNET_METRICS_PORT') === null
      ? null
      : readInteger(env, 'SIGNET_METRICS_PORT', 0, 0, 65535);
  if (metricsPort !== null && metricsPort !== 0 && metricsPort === port) {
    throw new ConfigError(
      'SIGNET_METRICS_PORT must differ from PORT (leave it unset to serve /metrics on PORT)',
    );
  }
  const p12File = readOptional(env, 'SIGNET_SEAL_P12_FILE');
  const p12Passphrase = readOptional(env, 'SIGNET_SEAL_P12_PASSPHRASE', { trim: false }) ?? '';
  if (p12File === null && p12Passphrase !== '') {
    throw new ConfigError('SIGNET_SEAL_P12_PASSPHRASE is set without SIGNET_SEAL_P12_FILE');
  }
  const tsaUrl = readOptional(env, 'SIGNET_SEAL_TSA_URL');
  if (tsaUrl !== null && (!URL.canParse(tsaUrl) || !/^https?:$/.test(new URL(tsaUrl).protocol))) {
    throw new ConfigError('SIGNET_SEAL_TSA_URL must be an http(s) URL');
  }
  const sealKeyFile = readOptional(env, 'SIGNET_SEAL_KEY_FILE');
  const sealKey = readOptional(env, 'SIGNET_SEAL_KEY');
  if (sealKeyFile !== null && sealKey !== null) {
    throw new ConfigError('set SIGNET_SEAL_KEY_FILE or SIGNET_SEAL_KEY, not both');
  }
  // The value itself is never repeated in a message: it is a secret.
  if (sealKey !== null && parseKeyEncryptionKey(sealKey) === null) {
    throw new ConfigError('SIGNET_SEAL_KEY must be 32 bytes in base64 or hex (openssl rand -base64 32)');
  }
  const sealOrganization = readOptional(env, 'SIGNET_SEAL_ORGANIZATION');
  if (sealOrganization !== null && sealOrganization.length > 64) {
    // X.520 ub-organization-name: 64 characters.
    throw new ConfigError('SIGNET_SEAL_ORGANIZATION must be at most 64 characters');
  }
  // A time-stamp proves a time only if it comes from the authority Signet uses: its certificate
  // is pinned, so a token from any other authority is never shown as a fact.
  const tsaCertFile = readOptional(env, 'SIGNET_SEAL_TSA_CERT_FILE');
  if ((tsaUrl === null) !== (tsaCertFile === null)) {
    throw new ConfigError(
      'SIGNET_SEAL_TSA_URL and SIGNET_SEAL_TSA_CERT_FILE go together: set both (the authority and its certificate, PEM) or neither',
    );
  }
  const logLevel = readOptional(env, 'LOG_LEVEL') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent');
  }
  const logFormatText = readOptional(env, 'SIGNET_LOG_FORMAT');
  if (logFormatText !== null && !(logFormats as readonly string[]).includes(logFormatText)) {
    throw new ConfigError(`SIGNET_LOG_FORMAT must be one of ${logFormats.join(', ')}`);
  }
  return {
    databaseUrl,
    dataDir: readOptional(env, 'SIGNET_DATA_DIR') ?? './data',
    databasePoolSize: readInteger(env, 'SIGNET_DB_POOL_SIZE', 10, 1, 1000),
    redisUrl,
    host,
    port,
    publicUrl,
    publicUrlSet,
    apiKey: readOptional(env, 'SIGNET_API_KEY'),
    trustProxy: readBoolean(env, 'SIGNET_TRUST_PROXY', false),
    logLevel,
    logFormat: (logFormatText ?? 'json') as LogFormat,
    logFormatSet: logFormatText !== null,
    startedByNpm: readOptional(env, 'npm_lifecycle_event') !== null,
    metrics: {
      enabled: readBoolean(env, 'SIGNET_METRICS', true),
      port: metricsPort,
    },
    shutdownTimeoutMs: readDuration(env, 'SIGNET_SHUTDOWN_TIMEOUT', '15s'),
    rateLimit: {
      burst: readInteger(env, 'SIGNET_RATE_LIMIT_BURST', 120, 1, 1_000_000_000),
      refillPerSecond: readNumber(env, 'SIGNET_RATE_LIMIT_REFILL_PER_SECOND', 1, 0.000001, 1_000_000_000),
    },
    smtpUrl,
    mailFrom: readOptional(env, 'SIGNET_MAIL_FROM') ?? 'Signet <no-reply@localhost>',
    maxUploadBytes: readInteger(env, 'SIGNET_MAX_UPLOAD_BYTES', 25 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    uploadBytesPerDay: readInteger(env, 'SIGNET_UPLOAD_BYTES_PER_DAY', 2 * 1024 ** 3, 1024, 2 ** 50),
    bulkMaxRows: readInteger(env, 'SIGNET_BULK_MAX_ROWS', 5_000, 1, 1_000_000),
    mailPerMinute: readInteger(env, 'SIGNET_MAIL_PER_MINUTE', 600, 1, 1_000_000),
    publicLinkCodeMailsPerDay: readInteger(env, 'SIGNET_PUBLIC_LINK_CODE_MAILS_PER_DAY', 500, 1, 1_000_000),
    eventStreams: {
      perWorkspace: readInteger(
        env,
        'SIGNET_EVENT_STREAMS_PER_WORKSPACE',
        eventStreamDefaults.perWorkspace,
        1,
        100_000,
      ),
      max: readInteger(env, 'SIGNET_EVENT_STREAMS_MAX', eventStreamDefaults.max, 1, 1_000_000),
    },
    seal: {
      p12File,
      p12Passphrase,
      tsaUrl,
      tsaCertFile,
      keyFile: sealKeyFile,
      key: sealKey,
      organization: sealOrganization,
    },
    webhooks: {
      allowUnsafe: readBoolean(env, 'SIGNET_WEBHOOK_ALLOW_UNSAFE', false),
      retryDelaysMs: readDurations(env, 'SIGNET_WEBHOOK_RETRY_DELAYS', '5m,30m,2h'),
      sweepIntervalMs: readDuration(env, 'SIGNET_WEBHOOK_SWEEP_INTERVAL', '10m'),
      timeoutMs: readDuration(env, 'SIGNET_WEBHOOK_TIMEOUT', '10s'),
      concurrency: readInteger(env, 'SIGNET_WEBHOOK_CONCURRENCY', 32, 1, 10_000),
      perEndpointConcurrency: readInteger(env, 'SIGNET_WEBHOOK_ENDPOINT_CONCURRENCY', 4, 1, 1000),
      retentionMs: readDuration(env, 'SIGNET_WEBHOOK_RETENTION', '30d'),
    },
  };
}

/**
 * A seal key-encryption key as written in SIGNET_SEAL_KEY or its file: 32 bytes as 64 hex
 * digits or as base64 (with or without padding, standard or URL alphabet); null otherwise.
 */
export function parseKeyEncryptionKey(text: string): Buffer | null {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) {
    const bytes = Buffer.from(value.replace(/=$/, ''), 'base64');
    if (bytes.byteLength === 32) return bytes;
  }
  return null;
}

/** The variable's value, or null when unset or empty; trimmed unless it is a secret. */
function readOptional(env: Env, name: string, options = { trim: true }): string | null {
  const raw = env[name];
  const value = options.trim ? raw?.trim() : raw;
  return value ? value : null;
}

function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = readOptional(env, name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function readNumber(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = readOptional(env, name);
  if (raw === null) return fallback;
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || value < min || value > max) {
    throw new ConfigError(`${name} must be a number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

const durationUnits: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "250ms", "10s", "5m", "2h", "30d". */
export function parseDurationMs(text: string): number | null {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) return null;
  const value = Number(match[1]) * (durationUnits[match[2] as string] as number);
  return value > 0 && value <= 365 * 86_400_000 ? value : null;
}

function readDuration(env: Env, name: string, fallback: string): number {
  const raw = readOptional(env, name) ?? fallback;
  const value = parseDurationMs(raw);
  if (value === null)
    throw new ConfigError(`${name} must be a duration such as 10s, 5m, 2h or 30d, got "${raw}"`);
  return value;
}

function readDurations(env: Env, name: string, fallback: string): number[] {
  const raw = readOptional(env, name) ?? fallback;
  const values = raw.split(',').map(parseDurationMs);
  if (values.length === 0 || values.some((v) => v === null)) {
    throw new ConfigError(
      `${name} must be a comma-separated list of durations such as 5m,30m,2h, got "${raw}"`,
    );
  }
  return values as number[];
}

function readBoolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = readOptional(env, name);
  if (raw === null) return fallback;
  if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}
