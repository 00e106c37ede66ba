// The cost of a secret rotation's overlap: while the previous secret is still valid, every
// attempt is signed with both (signature.ts: `t=…,v1=<new>,v1=<previous>`). The part of a
// delivery that depends on the number of secrets is building the request: signingSecrets()
// picks the secrets and signatureHeader() computes one HMAC-SHA256 of the body per secret.
// The claim reads the same row either way (previous_secret and its expiry are selected for
// every delivery), and the request is the same but for a header 68 bytes longer. So this
// measures buildRequest() (request.ts, what the worker calls for each attempt) on an event
// body as the engine stores it, for an endpoint with one secret and for the same endpoint
// in an overlap, in alternation, round by round; a ratio, and the microseconds the second
// secret adds per delivery. A delivery-rate comparison would put those few microseconds
// inside the ±10 % spread of the delivery rounds (bench:webhooks): it would measure noise.
//
// `npm run bench:rotation` runs it alone (with a sample body); bench/event-stream.ts and
// bench/all.ts call measureRotation() with a body read from their database.
import { randomUUID } from 'node:crypto';
import { buildRequest } from '../src/webhooks/request.ts';

export interface RotationRun {
  /** Microseconds per request built, one secret and two (the median round of each). */
  one: number;
  two: number;
  /** The median of the rounds' ratios two / one. */
  ratio: number;
  rounds: Array<{ one: number; two: number }>;
  bodyBytes: number;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** `rounds` rounds of `iterations` requests built with one secret, then with two. */
export function measureRotation(options: {
  payload: string;
  rounds: number;
  iterations: number;
}): RotationRun {
  const secret = `whsec_${randomUUID().replaceAll('-', '')}`;
  const previous = `whsec_${randomUUID().replaceAll('-', '')}`;
  const delivery = {
    id: randomUUID(),
    url: 'http://127.0.0.1:9/hooks',
    event_type: 'document.opened',
    payload: options.payload,
    secret,
  };
  const far = new Date(Date.now() + 86_400_000);
  const single = { ...delivery, previous_secret: null, previous_secret_expires_at: null };
  const overlap = { ...delivery, previous_secret: previous, previous_secret_expires_at: far };
  let sink = 0;
  const time = (endpoint: typeof single | typeof overlap, count: number) => {
    const started = performance.now();
    for (let i = 0; i < count; i++)
      sink += buildRequest(endpoint, new Date()).headers['x-service-signature'].length;
    return ((performance.now() - started) * 1000) / count;
  };
  // Warm-up: both paths compiled before anything is counted.
  time(single, options.iterations / 4);
  time(overlap, options.iterations / 4);
  if (buildRequest(overlap, new Date()).headers['x-service-signature'].split(',v1=').length !== 3)
    throw new Error('the overlap endpoint is not signed with two secrets');
  const rounds: Array<{ one: number; two: number }> = [];
  for (let round = 0; round < options.rounds; round++) {
    // Which goes first alternates: a drift within a round falls on both alike.
    if (round % 2 === 0) {
      const one = time(single, options.iterations);
      rounds.push({ one, two: time(overlap, options.iterations) });
    } else {
      const two = time(overlap, options.iterations);
      rounds.push({ one: time(single, options.iterations), two });
    }
  }
  if (sink === 0) throw new Error('nothing was built');
  return {
    one: median(rounds.map((r) => r.one)),
    two: median(rounds.map((r) => r.two)),
    ratio: median(rounds.map((r) => r.two / r.one)),
    rounds,
    bodyBytes: Buffer.byteLength(options.payload),
  };
}

export function rotationDetails(run: RotationRun): string {
  return `Signing during a rotation's overlap (buildRequest on a ${run.bodyBytes}-byte event body, ${run.rounds.length} alternating rounds): one secret ${run.rounds.map((r) => r.one.toFixed(2)).join(' / ')} us per request, two secrets ${run.rounds.map((r) => r.two.toFixed(2)).join(' / ')} us; the second secret adds ${(run.two - run.one).toFixed(2)} us per delivery (median rounds)`;
}

async function main() {
  const rounds = Number(process.env.SIGNET_BENCH_ROUNDS ?? 5);
  const iterations = Number(process.env.SIGNET_BENCH_ROTATION_ITERATIONS ?? 20_000);
  // With no database at hand: a body of the size the engine stores for the benches'
  // document.opened (433 bytes measured by bench:stream), its shape roughly.
  const payload = JSON.stringify({
    id: randomUUID(),
    type: 'document.opened',
    createdAt: new Date().toISOString(),
    data: {
      document: { id: randomUUID(), title: 'Bench agreement', status: 'sent', padding: 'x'.repeat(186) },
      recipient: null,
    },
  });
  const run = measureRotation({ payload, rounds, iterations });
  console.log(rotationDetails(run));
  console.log(`ratio two secrets / one: ${run.ratio.toFixed(2)} (median of the rounds' ratios)`);
}

if (import.meta.main) main();
