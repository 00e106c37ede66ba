// GET /docs: the API reference, rendered on the server from the same OpenAPI document as
// GET /v1/openapi.json (http/openapi.ts), so it cannot drift from the API. No script, no
// CDN, no session needed: integrators read it on any Signet. (A standalone bundle such as
// Redoc's would add megabytes of dependencies and inline styles for what a table shows.)
import type { FastifyInstance } from 'fastify';
import { buildOpenApiDocument } from '../http/openapi.ts';
import { html, type SafeHtml } from '../ui/html.ts';
import { signetVersion } from '../version.ts';
import type { Web } from './kit.ts';

type Schema = {
  $ref?: string;
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  type?: string;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  description?: string;
};
type Parameter = { name: string; in: string; required: boolean; schema: Schema; description?: string };
type Operation = {
  operationId: string;
  summary: string;
  parameters?: Parameter[];
  requestBody?: { content: { 'application/json': { schema: Schema } } };
  responses: Record<string, { description: string; content?: { 'application/json': { schema: Schema } } }>;
};
type Contract = {
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: { summary: string; parameters: Parameter[] } }>;
  components: { schemas: Record<string, Schema> };
  'x-error-codes': Record<string, number>;
};

function typeText(schema: Schema): SafeHtml {
  if (schema.$ref) {
    const name = schema.$ref.split('/').at(-1) as string;
    return html`<a href="#schema-${name}">${name}</a>`;
  }
  if (schema.const !== undefined) return html`<code>${JSON.stringify(schema.const)}</code>`;
  if (schema.enum)
    return html`${schema.enum.map((v, i) => html`${i ? ' | ' : ''}<code>${JSON.stringify(v)}</code>`)}`;
  if (schema.anyOf) return html`${schema.anyOf.map((s, i) => html`${i ? ' | ' : ''}${typeText(s)}`)}`;
  if (schema.type === 'array') return html`array of ${typeText(schema.items ?? {})}`;
  const rules = [
    schema.pattern ? `pattern ${schema.pattern}` : '',
    schema.minLength !== undefined ? `at least ${schema.minLength} characters` : '',
    schema.maxLength !== undefined ? `at most ${schema.maxLength} characters` : '',
    schema.minItems !== undefined ? `at least ${schema.minItems}` : '',
    schema.maxItems !== undefined ? `at most ${schema.maxItems}` : '',
  ].filter(Boolean);
  return html`${schema.type ?? 'any'}${rules.length ? html` <span class="small muted">(${rules.join(', ')})</span>` : ''}`;
}

function fieldsTable(schema: Schema): SafeHtml {
  const required = new Set(schema.required ?? []);
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="Fields"><table>
<thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Required</th></tr></thead>
<tbody>${Object.entries(schema.properties ?? {}).map(
    ([name, field]) =>
      html`<tr><td><code>${name}</code>${field.description ? html`<div class="small muted">${field.description}</div>` : ''}</td><td>${typeText(field)}</td><td>${required.has(name) ? 'yes' : 'no'}</td></tr>`,
  )}</tbody></table></div>`;
}

function operationSection(path: string, method: string, op: Operation): SafeHtml {
  const body = op.requestBody?.content['application/json'].schema;
  return html`<section class="card" id="${op.operationId}" aria-labelledby="${op.operationId}-title">
<h3 id="${op.operationId}-title"><code>${method.toUpperCase()} ${path}</code></h3>
<p>${op.summary}</p>
${
  op.parameters?.length
    ? html`<h4>Parameters</h4><ul class="plain">${op.parameters.map(
        (p) =>
          html`<li><code>${p.name}</code> (${p.in}${p.required ? ', required' : ''}): ${typeText(p.schema)}${p.description ? html` — ${p.description}` : ''}</li>`,
      )}</ul>`
    : ''
}
${body ? html`<h4>Body (JSON)</h4>${fieldsTable(body)}` : ''}
<h4>Responses</h4>
<ul class="plain">${Object.entries(op.responses).map(
    ([status, response]) => html`<li><strong>${status}</strong>: ${response.description}</li>`,
  )}</ul>
</section>`;
}

export function renderReference(contract: Contract): (csrf: string) => SafeHtml {
  return () => html`<h1>Signet API reference</h1>
<p>Base URL <code>${contract.servers[0]?.url}</code>. Every request carries <code>Authorization: Bearer &lt;API key&gt;</code>; every answer is JSON with a boolean <code>ok</code>, the <code>X-RateLimit-Limit</code> and <code>X-RateLimit-Remaining</code> headers. The machine-readable version of this page is <a href="/v1/openapi.json"><code>/v1/openapi.json</code></a>.</p>
<nav class="card" aria-label="Contents"><ul class="plain">
${Object.entries(contract.paths).flatMap(([path, item]) =>
  Object.entries(item).map(
    ([method, op]) =>
      html`<li><a href="#${op.operationId}"><code>${method.toUpperCase()} ${path}</code></a></li>`,
  ),
)}
<li><a href="#errors">Error codes</a> · <a href="#webhooks">Webhooks</a> · <a href="#schemas">Objects</a></li>
</ul></nav>
<h2>Operations</h2>
${Object.entries(contract.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => operationSection(path, method, op)),
)}
<section class="card" id="errors" aria-labelledby="errors-title">
<h2 id="errors-title">Error codes</h2>
<p>Failures are <code>{"ok": false, "error": "&lt;code&gt;"}</code>, with no message: the codes are stable.</p>
<ul class="plain">${Object.entries(contract['x-error-codes']).map(([code, status]) => html`<li><code>${code}</code>: ${status}</li>`)}</ul>
</section>
<section class="card" id="webhooks" aria-labelledby="webhooks-title">
<h2 id="webhooks-title">Webhooks</h2>
<p>Signet POSTs <code>{id, type, createdAt, data}</code> to your endpoints, with these headers:</p>
<ul class="plain">${(Object.values(contract.webhooks)[0]?.post.parameters ?? []).map(
    (p) => html`<li><code>${p.name}</code>${p.description ? html`: ${p.description}` : ''}</li>`,
  )}</ul>
<ul class="plain">${Object.entries(contract.webhooks).map(([type, hook]) => html`<li><code>${type}</code>: ${hook.post.summary}</li>`)}</ul>
</section>
<h2 id="schemas">Objects</h2>
${Object.entries(contract.components.schemas).map(
  ([name, schema]) =>
    html`<section class="card" id="schema-${name}" aria-labelledby="schema-${name}-title"><h3 id="schema-${name}-title">${name}</h3>${fieldsTable(schema)}</section>`,
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
