// Argument parsing shared by the commands: node:util parseArgs in strict mode, with
// every mistake turned into one UsageError line.
import { type ParseArgsConfig, parseArgs } from 'node:util';

export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

/** `positionals` names the arguments the command takes, in order, for the usage message. */
export function parseCommandArgs<O extends Options>(argv: string[], options: O, positionals: string[]) {
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
  >;
  // `--documents -5` is a value, not an option: give it to the option so the command can
  // say what the value must be.
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const next = argv[i + 1];
    if (arg.startsWith('--') && options[arg.slice(2)]?.type === 'string' && next && /^-\d/.test(next)) {
      args.push(`${arg}=${next}`);
      i++;
    } else {
      args.push(arg);
    }
  }
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]);
  }
  const given = parsed.positionals.length;
  if (given > positionals.length)
    throw new UsageError(`unexpected argument "${parsed.positionals[positionals.length]}"`);
  if (given < positionals.length)
    throw new UsageError(`missing argument ${positionals.slice(given).join(' ')}`);
  return parsed;
}

export function requireUuid(value: string | undefined, what: string): string {
  if (!value || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) {
    throw new UsageError(`${what} must be a UUID`);
  }
  return value.toLowerCase();
}

export function requireText(value: string | undefined, what: string, max = 200): string {
  const text = value?.trim();
  if (!text) throw new UsageError(`${what} must not be empty`);
  if (text.length > max) throw new UsageError(`${what} must be at most ${max} characters`);
  return text;
}

export function parseCount(
  value: string | undefined,
  what: string,
  fallback: number,
  max: number,
  min = 0,
): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) > max || Number(value) < min) {
    const range = `from ${min} to ${max}`;
    throw new UsageError(
      min === 1
        ? `${what} must be a positive whole number (${range})`
        : `${what} must be a whole number ${range}`,
    );
  }
  return Number(value);
}
