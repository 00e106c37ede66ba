// The signing page with its sender's brand beside the same page without one (issue 52): the
// page a signer opens (test/support/signing-views.ts), rendered with an accent colour and
// "Sent with Signet" against the same view with neither, in alternation, round by round;
// microseconds per page and the ratio. The brand costs the page no query (it is read with the
// workspace's row, which the page already read) and its stylesheet is one cached request, so
// the rendering is the part measured.
//
// `npm run bench:brand` runs it alone; bench/all.ts calls measureBrandedSigningPage().
import { translator } from '../src/i18n/messages.ts';
import { renderSigningPage } from '../src/signing/signing-page.ts';
import { signingViewIn } from '../test/support/signing-views.ts';

export interface BrandRun {
  /** Microseconds per page without a brand (the ceiling), the median round. */
  plain: number;
  /** Microseconds per page with one, the median round, and the median of the rounds' ratios. */
  branded: number;
  ratio: number;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

export function measureBrandedSigningPage(options: { rounds: number; iterations: number }): BrandRun {
  const en = translator('en');
  const views = {
    plain: signingViewIn(en, { brand: { accent: null, sentWithSignet: false } }),
    branded: signingViewIn(en, {
      brand: { accent: '#0b6e4f', sentWithSignet: true },
      document: { ...signingViewIn(en).document, sender: 'Acme Bau GmbH' },
    }),
  };
  let sink = 0;
  const time = (kind: keyof typeof views, count: number) => {
    const started = performance.now();
    for (let i = 0; i < count; i++) sink += renderSigningPage(views[kind], en).length;
    return ((performance.now() - started) * 1000) / count;
  };
  time('plain', options.iterations / 4);
  time('branded', options.iterations / 4);
  const rounds: Array<{ plain: number; branded: number }> = [];
  for (let round = 0; round < options.rounds; round++) {
    const first = round % 2 === 0 ? 'plain' : 'branded';
    const a = time(first, options.iterations);
    const b = time(first === 'plain' ? 'branded' : 'plain', options.iterations);
    rounds.push(first === 'plain' ? { plain: a, branded: b } : { plain: b, branded: a });
  }
  if (sink === 0) throw new Error('nothing was rendered');
  return {
    plain: median(rounds.map((r) => r.plain)),
    branded: median(rounds.map((r) => r.branded)),
    ratio: median(rounds.map((r) => r.branded / r.plain)),
  };
}

if (import.meta.main) {
  const run = measureBrandedSigningPage({
    rounds: Number(process.env.SIGNET_BENCH_ROUNDS ?? 5),
    iterations: Number(process.env.SIGNET_BENCH_SIGNING_PAGES ?? 2000),
  });
  process.stdout.write(
    `signing page without a brand: ${run.plain.toFixed(1)} us per page (ceiling)\n` +
      `signing page with one: ${run.branded.toFixed(1)} us per page, ${run.ratio.toFixed(2)} x\n`,
  );
}
