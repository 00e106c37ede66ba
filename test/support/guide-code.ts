// The code of a guide in docs/guides/, as published: the tests run what readers copy.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A guide's text. */
export function readGuide(name: string): string {
  return readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'guides', name), 'utf8');
}

/** The first code block of `language` under `heading` in `guide`. */
export function guideBlock(guide: string, heading: string, language: string): string {
  const section = guide.slice(guide.indexOf(heading));
  const code = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(section)?.[1];
  assert.ok(section.length < guide.length && code, `the guide has a ${language} block under "${heading}"`);
  return code;
}
