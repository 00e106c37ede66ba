import { test } from 'node:test';
import { useHarness } from '../support/harness.ts';

const h = useHarness('pglite');
test('print', () => {
  console.log(h.app.printRoutes({ commonPrefix: false }));
});
