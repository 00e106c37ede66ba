// Holds the routes of /v1 and the contract to each other, so neither can change without the
// other: every route an area registers must name its operation (`config: { operation }`, the
// object declared beside it in the area's *.contract.ts) with the same method and path, that
// operation must be one the document lists (openapi.ts's `contractOperations`), and every
// operation listed must have its route. A mismatch fails the api plugin's registration, and
// so the start, with a sentence naming the route and the operation. HEAD is left out: Fastify
// answers it for every GET route, and the contract describes GET only (docs/api.md, HEAD).
import type { RouteOptions } from 'fastify';
import type { Operation } from '../http/openapi-parts.ts';

/** `/v1/documents/:id` under the prefix `/v1` → `/documents/{id}`, as OpenAPI writes paths. */
export function contractPath(url: string, prefix: string): string {
  const path = url.startsWith(prefix) ? url.slice(prefix.length) : url;
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

const named = (operation: Operation) => `${operation.operationId} (${operation.method} ${operation.path})`;

/**
 * An `onRoute` hook that records the routes registered, and the check of them against the
 * contract's operations. Call `verify` once the area's routes are registered: routes added
 * after it (the plugin's own: the contract itself, the 405 answers) are not operations.
 */
export function routeContractCheck(operations: readonly Operation[]) {
  const problems: string[] = [];
  const routed = new Set<Operation>();
  let verified = false;
  const listed = new Set(operations);
  return {
    onRoute(route: RouteOptions & { prefix?: string }): void {
      if (verified) return;
      for (const method of [route.method].flat()) {
        if (method === 'HEAD') continue;
        const where = `${method} ${route.url}`;
        const path = contractPath(route.url, route.prefix ?? '');
        const operation = route.config?.operation;
        if (!operation) {
          problems.push(
            `The route ${where} has no operation: declare its contract beside it (an Operation in the area's *.contract.ts) and name it in the route's options as config: { operation }.`,
          );
        } else if (operation.method !== method || operation.path !== path) {
          problems.push(
            `The route ${where} names the operation ${named(operation)}, which describes another route: give the operation this route's method and path (${method} ${path}), or the route the operation's.`,
          );
        } else if (!listed.has(operation)) {
          problems.push(
            `The route ${where} names the operation ${named(operation)}, which the contract does not list: add it to contractOperations in src/api/openapi.ts.`,
          );
        } else if (routed.has(operation)) {
          problems.push(`The operation ${named(operation)} is named by two routes: each route has its own.`);
        } else routed.add(operation);
      }
    },
    /** Throws, with a sentence per mismatch, unless every route and every operation match. */
    verify(): void {
      verified = true;
      for (const operation of operations)
        if (!routed.has(operation))
          problems.push(
            `The operation ${named(operation)} of the contract has no route: register the route, or take the operation out of contractOperations in src/api/openapi.ts.`,
          );
      if (problems.length > 0)
        throw new Error(`The /v1 routes and their contract disagree. ${problems.join(' ')}`);
    },
  };
}
