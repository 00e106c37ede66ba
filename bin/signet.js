#!/usr/bin/env node
// The `signet` command. The code is TypeScript run by Node's type stripping (Node >= 22.18);
// npm scripts and npx run it on the Node 24 pinned in devDependencies (its `node` comes
// first on their PATH). Run by an older Node directly, it says so instead of failing on
// the first line of TypeScript. (No `engines` field: npm would warn on every npx under the
// machine's own older Node, although npx runs the pinned one.)
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  console.error(
    `signet needs Node 22.18 or newer; this is Node ${process.versions.node}. Run it as \`npx signet\` in the project (it uses the Node 24 pinned there), or install Node 24.`,
  );
  process.exit(1);
}
await import('../src/main.ts');
