// GET /docs: the API reference, rendered on the server from the same OpenAPI document as
// GET /v1/openapi.json (api/openapi.ts), so it cannot drift from the API. No script, no
// CDN, no session needed: integrators read it on any Signet. (A standalone bundle such as
// Redoc's would add megabytes of dependencies and inline styles for what a table shows.)
// Each object's fields are listed with those of the objects and array items nested in it
// (`files[].kind`), named objects link to their own section, every example is shown, and
// descriptions are Markdown (reference-markdown.ts: raw HTML escaped, links kept safe).
import type { FastifyInstance } from 'fastify';
import { buildOpenApiDocument } from '../api/openapi.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { signetVersion } from '../version.ts';
import type { Web } from './kit.ts';
import { markdown, markdownInline } from './reference-markdown.ts';

type Schema = {
  $ref?: string;
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  type?: string;
  format?: string;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  default?: unknown;
  description?: string;
};
type Examples = Record<string, { summary?: string; value: unknown }>;
type Media = { schema: Schema; examples?: Examples };
type Parameter = {
  name: string;
  in: string;
  required: boolean;
  schema: Schema;
  description?: string;
  example?: unknown;
};
type Operation = {
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { content: { 'application/json': Media } };
  responses: Record<string, { description: string; content?: { 'application/json': Media } }>;
};
type Contract = {
  info: { description?: string };
  servers: Array<{ url: string }>;
  tags: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: Operation }>;
  components: { schemas: Record<string, Schema> };
  'x-error-codes': Record<string, number>;
};

const refName = (ref: string) => ref.split('/').at(-1) as string;
const anchor = (operationId: string) => operationId;

/** What a value may be, in a line: types and formats, links to named objects, enumerations, limits. */
function typeText(schema: Schema): SafeHtml {
  if (schema.$ref) {
    const name = refName(schema.$ref);
    return html`<a href="#schema-${name}">${name}</a>`;
  }
  if (schema.const !== undefined) return html`<code>${JSON.stringify(schema.const)}</code>`;
  if (schema.enum)
    return html`one of ${schema.enum.map((v, i) => html`${i ? ', ' : ''}<code>${JSON.stringify(v)}</code>`)}`;
  if (schema.anyOf) return html`${schema.anyOf.map((s, i) => html`${i ? ' or ' : ''}${typeText(s)}`)}`;
  if (schema.type === 'array') return html`array of ${typeText(schema.items ?? {})}${limits(schema)}`;
  return html`${schema.type ?? 'any'}${schema.format ? html` <span class="muted">(${schema.format})</span>` : ''}${limits(schema)}`;
}

function limits(schema: Schema): SafeHtml | '' {
  const rules = [
    schema.pattern ? `pattern ${schema.pattern}` : '',
    schema.minimum !== undefined ? `at least ${schema.minimum}` : '',
    schema.maximum !== undefined ? `at most ${schema.maximum}` : '',
    schema.minLength !== undefined ? `at least ${schema.minLength} characters` : '',
    schema.maxLength !== undefined ? `at most ${schema.maxLength} characters` : '',
    schema.minItems !== undefined ? `at least ${schema.minItems}` : '',
    schema.maxItems !== undefined ? `at most ${schema.maxItems}` : '',
    schema.uniqueItems ? 'no repeats' : '',
    schema.default !== undefined ? `default ${JSON.stringify(schema.default)}` : '',
  ].filter(Boolean);
  return rules.length ? html` <span class="small muted">(${rules.join('; ')})</span>` : '';
}

/** Named objects, for the fields of an operation's bodies to be listed down to the last one. */
type Components = Record<string, Schema>;

/**
 * The object a field holds (itself, its array items, or a branch of anyOf), whose fields are
 * listed under it: an inline one always, a named one when `components` is given (not one
 * already open above it: no cycles).
 */
function nestedObject(
  schema: Schema,
  components: Components | null,
  open: Set<string>,
): { schema: Schema; suffix: string; name?: string } | null {
  if (schema.$ref) {
    const name = refName(schema.$ref);
    const target = components?.[name];
    if (!target || open.has(name)) return null;
    const inner = nestedObject(target, components, open);
    return inner ? { ...inner, name } : null;
  }
  if (schema.type === 'object' && schema.properties) return { schema, suffix: '' };
  if (schema.type === 'array' && schema.items) {
    const inner = nestedObject(schema.items, components, open);
    return inner ? { ...inner, suffix: `[]${inner.suffix}` } : null;
  }
  for (const branch of schema.anyOf ?? []) {
    const inner = nestedObject(branch, components, open);
    if (inner) return inner;
  }
  return null;
}

type Row = { path: string; depth: number; schema: Schema; required: boolean };

/** The fields of an object and, beneath each, those of the objects it holds (`files[].kind`). */
function rowsOf(
  schema: Schema,
  components: Components | null,
  prefix = '',
  depth = 0,
  open = new Set<string>(),
): Row[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).flatMap(([name, field]) => {
    const path = `${prefix}${name}`;
    const nested = nestedObject(field, components, open);
    const inner = nested?.name ? new Set([...open, nested.name]) : open;
    return [
      { path, depth, schema: field, required: required.has(name) },
      ...(nested ? rowsOf(nested.schema, components, `${path}${nested.suffix}.`, depth + 1, inner) : []),
    ];
  });
}

/**
 * A table of the fields of `schema`: with `components`, the named objects it holds are
 * listed too (an operation's body, read in one place); without, they are links (Objects).
 */
function fieldsTable(schema: Schema, label: string, components: Components | null): SafeHtml {
  const rows = rowsOf(schema, components);
  if (!rows.length) return html`<p>${typeText(schema)}</p>`;
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="${label}"><table class="reference-fields">
<thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Required</th></tr></thead>
<tbody>${rows.map(
    (row) =>
      html`<tr class="depth-${Math.min(row.depth, 4)}"><td class="field"><code>${row.path}</code>${row.schema.description ? html`<div class="small muted">${markdownInline(row.schema.description)}</div>` : ''}</td><td class="type">${typeText(row.schema)}</td><td class="required">${row.required ? 'required' : 'optional'}</td></tr>`,
  )}</tbody></table></div>`;
}

function examplesOf(media: Media | undefined, what: string): SafeHtml | '' {
  const entries = Object.entries(media?.examples ?? {});
  if (!entries.length) return '';
  return html`${entries.map(
    ([name, example]) =>
      html`<details class="example"><summary>Example${entries.length > 1 ? html`: ${example.summary ?? name}` : ''} <span class="visually-hidden">(${what})</span></summary><pre tabindex="0"><code>${JSON.stringify(example.value, null, 2)}</code></pre></details>`,
  )}`;
}

function parametersTable(parameters: Parameter[]): SafeHtml {
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="Parameters"><table class="reference-fields parameters">
<thead><tr><th scope="col">Parameter</th><th scope="col">In</th><th scope="col">Type</th><th scope="col">Required</th></tr></thead>
<tbody>${parameters.map(
    (p) =>
      html`<tr><td class="field"><code>${p.name}</code>${p.description ? html`<div class="small muted">${markdownInline(p.description)}</div>` : ''}</td><td class="in">${p.in}</td><td class="type">${typeText(p.schema)}</td><td class="required">${p.required ? 'required' : 'optional'}</td></tr>`,
  )}</tbody></table></div>`;
}

function responsesList(op: Operation, components: Components): SafeHtml {
  return html`<ul class="plain responses">${Object.entries(op.responses).map(([status, response]) => {
    const media = response.content?.['application/json'];
    const success = status.startsWith('2');
    return html`<li><strong>${status}</strong>: ${markdownInline(response.description)}${
      success && media
        ? html`${fieldsTable(media.schema, `${status} body`, components)}${examplesOf(media, `${status} answer`)}`
        : ''
    }</li>`;
  })}</ul>`;
}

function operationSection(path: string, method: string, op: Operation, components: Components): SafeHtml {
  const body = op.requestBody?.content['application/json'];
  const id = anchor(op.operationId);
  return html`<section class="card" id="${id}" aria-labelledby="${id}-title">
<h3 id="${id}-title"><code>${method.toUpperCase()} ${path}</code></h3>
<p><strong>${op.summary}</strong> <span class="small muted">(${op.operationId})</span></p>
${op.description ? markdown(op.description) : ''}
${op.parameters?.length ? html`<h4>Parameters</h4>${parametersTable(op.parameters)}` : ''}
${body ? html`<h4>Body (JSON)</h4>${fieldsTable(body.schema, 'Body fields', components)}${examplesOf(body, 'request body')}` : ''}
<h4>Responses</h4>
${responsesList(op, components)}
</section>`;
}

/** A delivery: its body's named objects (the seven bodies share them) are links, not listed again. */
function webhookSection(type: string, op: Operation): SafeHtml {
  const body = op.requestBody?.content['application/json'];
  const id = anchor(op.operationId);
  return html`<section class="card" id="${id}" aria-labelledby="${id}-title">
<h3 id="${id}-title"><code>${type}</code></h3>
<p><strong>${op.summary}</strong> <span class="small muted">(${op.operationId})</span></p>
${op.description ? markdown(op.description) : ''}
${body ? html`<h4>Body (JSON)</h4>${fieldsTable(body.schema, `${type} body fields`, null)}${examplesOf(body, `${type} body`)}` : ''}
</section>`;
}

export function renderReference(contract: Contract): (csrf: string) => SafeHtml {
  const operations = Object.entries(contract.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op })),
  );
  const firstWebhook = Object.values(contract.webhooks)[0]?.post;
  const apiTags = contract.tags.filter((tag) => operations.some(({ op }) => op.tags?.includes(tag.name)));
  const webhookTag = contract.tags.find((tag) => tag.name === 'Webhooks');
  return () => html`<h1>Signet API reference</h1>
<p>Base URL <code>${contract.servers[0]?.url}</code>. The machine-readable version of this page is <a href="/v1/openapi.json"><code>/v1/openapi.json</code></a> (OpenAPI 3.1).</p>
${contract.info.description ? markdown(contract.info.description) : ''}
<nav class="card" aria-label="Contents"><ul class="plain">
${operations.map(
  ({ path, method, op }) =>
    html`<li><a href="#${anchor(op.operationId)}"><code>${method.toUpperCase()} ${path}</code></a></li>`,
)}
<li><a href="#errors">Error codes</a> · <a href="#webhooks">Webhooks</a> · <a href="#schemas">Objects</a></li>
</ul></nav>
<h2>Operations</h2>
${apiTags.map(
  (tag) => html`<h3 class="section-title">${tag.name}</h3>${tag.description ? markdown(tag.description) : ''}
${operations.filter(({ op }) => op.tags?.includes(tag.name)).map(({ path, method, op }) => operationSection(path, method, op, contract.components.schemas))}`,
)}
<section class="card" id="errors" aria-labelledby="errors-title">
<h2 id="errors-title">Error codes</h2>
<p>Failures are <code>{"ok": false, "error": "&lt;code&gt;"}</code>, with no message: the codes are stable. Each operation above lists the codes it can answer; every code and its status:</p>
<ul class="plain">${Object.entries(contract['x-error-codes']).map(([code, status]) => html`<li><code>${code}</code>: ${status}</li>`)}</ul>
</section>
<h2 id="webhooks">Webhooks</h2>
${webhookTag?.description ? markdown(webhookTag.description) : ''}
<p>Every delivery is a POST with <code>Content-Type: application/json</code> and these headers:</p>
${firstWebhook?.parameters ? parametersTable(firstWebhook.parameters) : ''}
${Object.entries(contract.webhooks).map(([type, hook]) => webhookSection(type, hook.post))}
<h2 id="schemas">Objects</h2>
${Object.entries(contract.components.schemas).map(
  ([name, schema]) =>
    html`<section class="card" id="schema-${name}" aria-labelledby="schema-${name}-title"><h3 id="schema-${name}-title">${name}</h3>${schema.description ? markdown(schema.description) : ''}${fieldsTable(schema, `${name} fields`, null)}</section>`,
)}`;
}

export function referencePages(web: Web) {
  const contract = buildOpenApiDocument({
    serverUrl: `${web.ctx.config.publicUrl}/v1`,
    version: signetVersion,
  }) as unknown as Contract;
  const body = renderReference(contract);
  return async function register(app: FastifyInstance) {
    app.get('/docs', (request, reply) => web.render(request, reply, 200, { title: 'API reference', body }));
  };
}
