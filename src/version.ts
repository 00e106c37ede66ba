// Signet's version, as package.json says: for `signet --version` and the OpenAPI document.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const signetVersion = (
  JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string }
).version;
