import { writeFileSync } from 'node:fs';
import { ambiguousPdfs, updatedPdf, activeContentPdfs, linkPdf } from './test/hostile-pdfs.ts';
import { inspectPdf } from './src/pdf/inspect.ts';
let i=0;
for (const [name, data] of [...ambiguousPdfs(), ['updated', updatedPdf()] as [string, Uint8Array]]) {
  writeFileSync(`/tmp/h${i++}.pdf`, data);
  try { console.log(name, await inspectPdf(data, {maxBytes: 1e7})); } catch (e) { console.log(name, '->', JSON.stringify((e as any).fields ?? (e as Error).message)); }
}
for (const [name, p] of [...activeContentPdfs(), ['link', linkPdf(), /x/] as const]) {
  try { console.log(name, await inspectPdf(await p, {maxBytes: 1e7})); } catch (e) { console.log(name, '->', JSON.stringify((e as any).fields ?? (e as Error).message)); }
}
