#!/usr/bin/env node
// The `signet` command. The code is TypeScript run by Node's type stripping (Node >= 22.18);
// npm scripts run it on the Node 24 pinned in devDependencies.
import '../src/main.ts';
