// The only "now" of domain code: a Clock passed in the context, so tests move time instead
// of sleeping. Its own module, so that what the context is built from can take a clock
// without importing the context.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
