// Argument parsing shared by the commands: node:util parseArgs in strict mode, with
// every mistake turned into one UsageError line.
import { type ParseArgsConfig, parseArgs } from 'node:util';

export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

export function parseCommandArgs<O extends Options>(argv: string[], options: O, positionals: number) {
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
  >;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]);
  }
  if (parsed.positionals.length !== positionals) {
    throw new UsageError(
      parsed.positionals.length > positionals
        ? `unexpected argument "${parsed.positionals[positionals]}"`
        : 'missing argument',
    );
  }
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

export function parseCount(value: string | undefined, what: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) > max)
    throw new UsageError(`${what} must be a whole number from 0 to ${max}`);
  return Number(value);
}
