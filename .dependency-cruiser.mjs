// Which folder of src/ may import which: the order below, written once, top to bottom.
// A module may import at run time its own folder (or, for a file of src/ itself, nothing
// of src/ but what is below it) and anything in a LOWER layer; never a layer above, nor
// another folder of its own layer. So no two folders can ever import each other at run
// time: a new two-way dependency fails `npm run lint:folders` (part of `npm run check`)
// with the rule's sentence and the two files, from → to.
//
// - A layer is a list of units; a unit is a folder of src/ ('documents': src/documents/**)
//   or one file of src/ itself ('src/ids.ts'): src/*.ts holds both the composition roots
//   (main.ts, server.ts, app.ts, context.ts: near the top) and the small shared modules
//   every folder may use (ids.ts, config.ts, …: at the bottom), so each stands where it
//   belongs instead of making `src` one folder that is both above and below the others.
// - Type-only imports (`import type`) may go upward: they are erased before Node runs the
//   code (erasable syntax only), so they add no load order and no cycle at run time, and
//   every folder names `type Context` (context.ts builds it from the folders below it).
//   Biome's noImportCycles keeps files free of cycles, types included.
// - A unit that does not exist yet (sending, while it is being created) matches nothing.
//   A folder of src/ that is in no layer fails `folder-not-in-order`: place it first.
// - There is no list of tolerated exceptions: every import keeps to the order.
// - Some folders are kept apart altogether (`apart`, below): no import either way, not even
//   `import type`, whatever their places in the order.
//
// Parsed with swc (@swc/core): dependency-cruiser reads TypeScript through the `typescript`
// package up to 6, and this project type-checks with TypeScript 7, which has no JavaScript
// API. swc reads the source as written, so `import type` is seen (and marked type-only).

/** Top to bottom. */
const layers = [
  ['src/main.ts'],
  ['cli'],
  ['src/server.ts'],
  ['src/app.ts', 'src/context.ts', 'worker', 'demo'],
  ['web'],
  ['api'],
  ['templates'],
  ['signing'],
  ['sending'],
  ['sealing'],
  ['accounts'],
  ['webhooks'],
  ['progress'],
  ['documents'],
  ['fields'],
  ['mail'],
  ['files'],
  ['keys'],
  ['workspaces'],
  ['ui'],
  ['pdf'],
  ['http'],
  ['metrics'],
  ['queue'],
  ['db'],
  ['i18n'],
  [
    'src/clock.ts',
    'src/config.ts',
    'src/ids.ts',
    'src/input-error.ts',
    'src/thread-pool.ts',
    'src/version.ts',
    'src/wake-loop.ts',
  ],
];

/**
 * Pairs of folders that import nothing of each other, type-only imports included. The
 * recipient's side (signing/) and the sender's (sending/) or the sealer's (sealing/) share only
 * what lies below them (progress/: the document lock, invitations, recipient mail, completion
 * and the seal's channel), so a change on one side reaches the other through that module alone,
 * never through a type of the other side's files.
 */
const apart = [
  ['signing', 'sending'],
  ['signing', 'sealing'],
];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The path pattern of a unit: a folder of src/ and everything in it, or one file. */
const pathOf = (unit) => (unit.endsWith('.ts') ? `^${escape(unit)}$` : `^src/${escape(unit)}/`);
const nameOf = (unit) => unit.replace(/^src\//, '').replace(/\.ts$/, '').replace(/[^a-zA-Z0-9]+/g, '-');
const anyOf = (units) => units.map(pathOf).join('|');
const runTime = { dependencyTypesNot: ['type-only', 'type-import'] };

const upwardRules = layers.flatMap((layer, index) =>
  layer.flatMap((unit) => {
    const above = layers.slice(0, index).flat();
    const beside = layer.filter((other) => other !== unit);
    const forbidden = [...above, ...beside];
    if (forbidden.length === 0) return [];
    return {
      name: `${nameOf(unit)}-imports-upward`,
      severity: 'error',
      comment:
        `${unit.endsWith('.ts') ? unit : `src/${unit}/`} imports at run time a folder above it or beside it in the ` +
        'order of .dependency-cruiser.mjs, so the two would depend on each other. Import it as `import type`, or ' +
        'move what both need to the lower one, or into a small shared module of src/ (like src/ids.ts).',
      from: { path: pathOf(unit) },
      to: { path: anyOf(forbidden), ...runTime },
    };
  }),
);

const apartRules = apart
  .flatMap(([one, other]) => [
    [one, other],
    [other, one],
  ])
  .map(([from, to]) => ({
    name: `${nameOf(from)}-apart-from-${nameOf(to)}`,
    severity: 'error',
    comment:
      `src/${from}/ imports src/${to}/, and the two are kept apart, \`import type\` included (\`apart\` in ` +
      '.dependency-cruiser.mjs): the recipient\'s side (signing/) shares with the sender\'s (sending/) and the ' +
      'sealer\'s (sealing/) only what lies below them. Move what both need to src/progress/ (the document lock, ' +
      'invitations, recipient mail, completion and the seal\'s channel) and import it from there.',
    from: { path: pathOf(from) },
    to: { path: pathOf(to) },
  }));

export default {
  forbidden: [
    ...upwardRules,
    ...apartRules,
    {
      name: 'folder-not-in-order',
      severity: 'error',
      comment:
        'This module is in no layer of .dependency-cruiser.mjs: add its folder (or, for a file of src/ itself, the file) where it belongs in the order.',
      from: { path: '^src/', pathNot: anyOf(layers.flat()) },
      to: {},
    },
  ],
  options: {
    parser: 'swc',
    exclude: { path: '^(node_modules|src/ui/assets/)' },
    doNotFollow: { path: 'node_modules' },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
