// The contract as the tests hold the API to it: every answer from /v1 that a test receives
// through `callApi` (harness.ts) is checked against docs/openapi.json, the committed file,
// with @hyperjump/json-schema's OpenAPI 3.1 dialect, not the TypeBox schemas and Fastify's
// ajv that the server itself uses. An answer must be documented for its operation (its
// status), be JSON when the contract says so, match the body schema (formats included),
// and carry the headers the contract marks required, each matching its schema. Answers
// outside any operation (a method a path lacks, a path that does not exist) must be the
// error envelope with a code whose status in `x-error-codes` is the status answered, and
// carry the rate-limit headers, which the contract promises on every answer; so must an
// answer with a code no operation documents (the HTTP itself refused, before routing).
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BASIC } from '@hyperjump/json-schema/experimental';
import {
  type OutputUnit,
  setShouldValidateFormat,
  type Validator,
  validate,
} from '@hyperjump/json-schema/openapi-3-1';
import '@hyperjump/json-schema/formats';

setShouldValidateFormat(true);

export const contractPath = join(import.meta.dirname, '..', '..', 'docs', 'openapi.json');
const contractUri = pathToFileURL(contractPath).href;

type Header = { $ref?: string; required?: boolean; schema?: { type?: string } };
type Response = { headers?: Record<string, Header>; content?: Record<string, unknown> };
type Operation = { operationId: string; responses: Record<string, Response> };
interface Contract {
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { headers: Record<string, Header> };
  'x-error-codes': Record<string, number>;
}

export const contract = JSON.parse(readFileSync(contractPath, 'utf8')) as Contract;
/** Where the contract's paths start: `/v1`. */
const basePath = new URL(contract.servers[0]?.url ?? 'http://x/v1').pathname.replace(/\/$/, '');

/** A JSON pointer fragment (`#/a~1b/c`) to the value at `tokens`, written as a URI fragment. */
export const pointer = (...tokens: string[]) =>
  `#/${tokens.map((t) => encodeURIComponent(t.replaceAll('~', '~0').replaceAll('/', '~1'))).join('/')}`;

const templates = Object.keys(contract.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/\{[^/}]+\}/g, '[^/]+')}$`),
}));

/** Every error code some operation documents. */
const codesOfOperations = new Set(
  Object.values(contract.paths).flatMap((item) =>
    Object.values(item).flatMap((op) =>
      Object.values(op.responses).flatMap(
        (response) =>
          (
            response.content?.['application/json'] as
              | { schema?: { properties?: { error?: { enum?: string[] } } } }
              | undefined
          )?.schema?.properties?.error?.enum ?? [],
      ),
    ),
  ),
);

/** The statuses of the codes no operation documents. */
const statusesBeforeRouting = new Set(
  Object.entries(contract['x-error-codes'])
    .filter(([code]) => !codesOfOperations.has(code))
    .map(([, status]) => status),
);

const validators = new Map<string, Promise<Validator>>();
function validatorAt(location: string): Promise<Validator> {
  let compiled = validators.get(location);
  if (!compiled) {
    compiled = validate(`${contractUri}${location}`);
    validators.set(location, compiled);
  }
  return compiled;
}

function valueAt(instance: unknown, location: string): unknown {
  let value = instance;
  for (const token of location.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    const key = decodeURIComponent(token).replaceAll('~1', '/').replaceAll('~0', '~');
    value = (value as Record<string, unknown> | undefined)?.[key];
  }
  return value;
}

/** The validator's errors in a line each: where in the answer, which keyword of which schema, and the value there. */
function explain(errors: OutputUnit[] | undefined, instance: unknown): string {
  return (errors ?? [])
    .map((e) => {
      const keyword = e.keyword.split('/').at(-1);
      const schema = e.absoluteKeywordLocation.slice(e.absoluteKeywordLocation.indexOf('#'));
      const value = JSON.stringify(valueAt(instance, e.instanceLocation)) ?? 'undefined';
      return `  ${e.instanceLocation}: fails ${keyword} at ${schema} (value ${value.slice(0, 120)})`;
    })
    .join('\n');
}

/** Null when `instance` matches the schema at `location` (a fragment of docs/openapi.json), else the errors, a line each. */
export async function check(location: string, instance: unknown): Promise<string | null> {
  const output = (await validatorAt(location))(instance as Parameters<Validator>[0], BASIC);
  return output.valid ? null : explain(output.errors, instance);
}

/** A header's text as the value its schema describes (OpenAPI's simple style: an integer is digits). */
function headerValue(text: string, schema: { type?: string } | undefined): unknown {
  return schema?.type === 'integer' && /^-?\d+$/.test(text) ? Number(text) : text;
}

/** Headers as node:http or a raw parse gives them, as a fetch Headers. */
export function headersOf(
  from: Record<string, string | string[] | undefined> | Map<string, string>,
): Headers {
  const headers = new Headers();
  for (const [name, value] of from instanceof Map ? from : Object.entries(from)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      headers.append(name, one);
    }
  }
  return headers;
}

export interface ContractAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * Answers checked in this process: `validated` against their operation, `outsideOperations`
 * by the rules for answers outside any operation; `notChecked` were outside /v1 or the
 * contract document itself.
 */
export const contractStats = { validated: 0, outsideOperations: 0, notChecked: 0 };

/**
 * What is wrong with `answer` to `method path` by the contract (an empty list when nothing
 * is), or null when the request is not one the contract covers (outside /v1, and the
 * contract document itself).
 */
export async function contractProblems(
  method: string,
  path: string,
  answer: ContractAnswer,
): Promise<{ operation: string; problems: string[] } | null> {
  // The path as the router sees it: no dot segments removed, no percent-decoding.
  const pathname = path.split(/[?#]/)[0] ?? '';
  const inApi = pathname === basePath || pathname.startsWith(`${basePath}/`);
  if (!inApi || pathname === `${basePath}/openapi.json`) {
    contractStats.notChecked++;
    return null;
  }
  const relative = pathname.slice(basePath.length);
  const template = templates.find((t) => t.pattern.test(relative))?.template;
  const lower = method.toLowerCase();
  // HEAD is answered as GET without a body (HTTP); its headers are GET's.
  const operation = template ? contract.paths[template]?.[lower === 'head' ? 'get' : lower] : undefined;
  const problems: string[] = [];
  const status = String(answer.status);
  const key = operation && [status, `${status[0]}XX`, 'default'].find((k) => operation.responses[k]);
  const documentedTypes = Object.keys((key && operation?.responses[key]?.content) || {});
  const mediaType = (answer.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  // A JSON body is expected unless this is HEAD, the contract documents no body for the
  // answer and none came (a 204), or the answer is of another media type the contract
  // documents for it (an event stream, say: its type is checked, not its content).
  const hasBody =
    lower !== 'head' &&
    !(key && documentedTypes.length === 0 && answer.text === '') &&
    !(mediaType !== 'application/json' && documentedTypes.includes(mediaType));
  let body: unknown;
  if (hasBody) {
    try {
      body = JSON.parse(answer.text);
    } catch {
      problems.push(`the body is not JSON: ${JSON.stringify(answer.text.slice(0, 200))}`);
    }
  }
  const contentType = answer.headers.get('content-type') ?? '';
  if (hasBody && !/^application\/json(;|$)/.test(contentType))
    problems.push(`Content-Type is ${JSON.stringify(contentType)}, not application/json`);

  // A code the contract documents on no operation (x-error-codes only) refuses the HTTP
  // itself, before any route (header-too-large, malformed-request, …): judged as outside.
  // A HEAD answer has no body to name its code: its status alone tells.
  const code = (body as { error?: unknown } | undefined)?.error;
  const beforeRouting = hasBody
    ? typeof code === 'string' && !codesOfOperations.has(code)
    : operation !== undefined &&
      !operation.responses[String(answer.status)] &&
      statusesBeforeRouting.has(answer.status);
  if (!operation || !template || beforeRouting) {
    // Outside the operations: the envelope, a code of x-error-codes with the status answered.
    contractStats.outsideOperations++;
    const name = `${method} ${relative} (${beforeRouting ? 'refused before routing' : 'no operation'})`;
    if (hasBody && body !== undefined) {
      const { ok, error, ...rest } = (body ?? {}) as Record<string, unknown>;
      if (ok !== false || typeof error !== 'string' || Object.keys(rest).length > 0)
        problems.push(`not the error envelope {ok: false, error}: ${answer.text.slice(0, 200)}`);
      else if (contract['x-error-codes'][error] !== answer.status)
        problems.push(
          `${error} answered with ${answer.status}; x-error-codes says ${contract['x-error-codes'][error] ?? 'nothing'}`,
        );
    }
    for (const header of ['X-RateLimit-Limit', 'X-RateLimit-Remaining'] as const) {
      const problem = await checkHeader(
        header,
        contract.components.headers[header] ?? {},
        pointer('components', 'headers', header, 'schema'),
        answer.headers,
      );
      if (problem) problems.push(problem);
    }
    return { operation: name, problems };
  }

  contractStats.validated++;
  const name = `${operation.operationId} (${method} ${template})`;
  if (!key) {
    problems.push(
      `answered ${status}, which the contract does not document for it (documented: ${Object.keys(operation.responses).join(', ')})`,
    );
    return { operation: name, problems };
  }
  const documented = operation.responses[key] as Response;
  const responsePointer = ['paths', template, lower === 'head' ? 'get' : lower, 'responses', key];
  if (hasBody && body !== undefined) {
    if (documented.content?.['application/json']) {
      const problem = await check(pointer(...responsePointer, 'content', 'application/json', 'schema'), body);
      if (problem) problems.push(`the body does not match the ${key} schema:\n${problem}`);
    } else {
      problems.push(
        `the contract documents ${documentedTypes.join(', ') || 'no body'} for ${key}, and JSON came: ${answer.text.slice(0, 200)}`,
      );
    }
  }
  for (const [header, object] of Object.entries(documented.headers ?? {})) {
    const resolved = object.$ref
      ? contract.components.headers[object.$ref.split('/').at(-1) as string]
      : object;
    const schemaPointer = object.$ref
      ? `${object.$ref}/schema`
      : pointer(...responsePointer, 'headers', header, 'schema');
    const problem = await checkHeader(header, resolved ?? {}, schemaPointer, answer.headers);
    if (problem) problems.push(problem);
  }
  return { operation: name, problems };
}

async function checkHeader(
  name: string,
  header: Header,
  schemaPointer: string,
  headers: Headers,
): Promise<string | null> {
  const text = headers.get(name);
  if (text === null) return header.required ? `the required header ${name} is missing` : null;
  const problem = await check(schemaPointer, headerValue(text, header.schema));
  return problem
    ? `the header ${name}: ${JSON.stringify(text)} does not match its schema:\n${problem}`
    : null;
}

/** Throws, naming the request, the operation, the status and every problem, when `answer` breaks the contract. */
export async function assertContract(method: string, path: string, answer: ContractAnswer): Promise<void> {
  const result = await contractProblems(method, path, answer);
  if (!result || result.problems.length === 0) return;
  const error = new Error(
    `the answer to ${method} ${path} breaks docs/openapi.json: ${result.operation} answered ${answer.status}\n${result.problems.join('\n')}`,
  );
  error.name = 'ContractError';
  throw error;
}

/**
 * `fetch`, with every answer from /v1 held to the contract as `callApi`'s are: for tests that
 * talk to the API otherwise (the client package, raw requests to other apps and processes).
 * Network errors pass through untouched; a broken answer rejects with the ContractError.
 */
export const contractFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const request = input instanceof Request ? input : null;
  const url = new URL(request ? request.url : String(input));
  const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
  await assertContract(method, `${url.pathname}${url.search}`, {
    status: response.status,
    headers: response.headers,
    text: await response.clone().text(),
  });
  return response;
};

// SIGNET_CONTRACT_LOG=<file>: each test process appends how many answers it checked.
if (process.env.SIGNET_CONTRACT_LOG) {
  const log = process.env.SIGNET_CONTRACT_LOG;
  process.on('exit', () => {
    if (contractStats.validated + contractStats.outsideOperations + contractStats.notChecked === 0) return;
    appendFileSync(log, `${JSON.stringify({ file: process.argv[1] ?? '', ...contractStats })}\n`);
  });
}
