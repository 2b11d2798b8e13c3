import { Ajv, type ValidateFunction } from 'ajv';
import * as formatsModule from 'ajv-formats';
import { githubDescription, isListedExtra, servedOperations, type Description, type Operation } from './description.js';
import { ANY_OPERATION_STATUSES, excepted, type Mismatch } from './exceptions.js';

/** One answer under `/api/v3` as a test host sent it. */
export interface Answer {
  method: string;
  /** The path below `/api/v3`, without the query. */
  path: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The request's Accept: which of an operation's media types was asked for (`application/vnd.github.star+json`). */
  accept?: string;
}

export type Verdict =
  | { kind: 'validated'; operation: Operation; mismatches: Mismatch[] }
  /** An operation repohost does not serve (its "does not implement" 404), or a path GitHub does not have either. */
  | { kind: 'unserved'; key: string }
  /** A path docs/github-api.md lists that GitHub's description lacks (an older path GitHub still answers). */
  | { kind: 'extra'; key: string };

const BASE = 'https://api.github.com/openapi.json';

interface Checker {
  description: Description;
  served: Set<string>;
  ajv: Ajv;
  validators: Map<string, ValidateFunction | null>;
}

let checker: Checker | undefined;

function load(): Checker {
  if (checker) return checker;
  const description = githubDescription();
  const ajv = new Ajv({ strict: false, allErrors: true, verbose: true, logger: false });
  const addFormats = ((formatsModule as unknown as { default?: unknown }).default ?? formatsModule) as (ajv: Ajv) => void;
  addFormats(ajv);
  // Formats GitHub names that are no standard's: int64 holds any integer here, `timestamp` any value.
  ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isInteger(value) });
  ajv.addFormat('timestamp', true);
  const { components } = description.document as { components: Record<string, unknown> };
  ajv.addSchema({ $id: BASE, components: jsonSchema({ schemas: components.schemas, responses: components.responses, headers: components.headers }) });
  checker = { description, served: new Set(servedOperations(description).served.map((operation) => operation.key)), ajv, validators: new Map() };
  return checker;
}

/** A `$ref` of GitHub's document made absolute, so a schema compiled on its own still resolves it. */
const anchored = (schema: unknown) => JSON.parse(JSON.stringify(jsonSchema(schema)).replaceAll('"#/components/', `"${BASE}#/components/`)) as object;

/** OpenAPI 3.0's `nullable: true` in JSON Schema's words: `null` one more type (and enum value) the field may take. */
function jsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(jsonSchema);
  if (!node || typeof node !== 'object') return node;
  const { nullable, ...rest } = node as Record<string, unknown>;
  const converted = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, key === 'example' || key === 'examples' ? undefined : jsonSchema(value)]));
  if (nullable !== true) return converted;
  if (typeof converted.type === 'string') {
    const withNull: Record<string, unknown> = { ...converted, type: [converted.type, 'null'] };
    if (Array.isArray(converted.enum) && !converted.enum.includes(null)) withNull.enum = [...converted.enum, null];
    return withNull;
  }
  return { anyOf: [converted, { type: 'null' }] };
}

function resolved(value: unknown, components: Record<string, Record<string, unknown>>): Record<string, unknown> {
  const reference = (value as { $ref?: string }).$ref;
  if (!reference) return value as Record<string, unknown>;
  const [, kind, name] = /^#\/components\/(\w+)\/(.+)$/.exec(reference)!;
  return components[kind!]![name!] as Record<string, unknown>;
}

function validator(state: Checker, id: string, schema: unknown): ValidateFunction | null {
  if (!state.validators.has(id)) state.validators.set(id, schema === undefined ? null : state.ajv.compile(anchored(schema)));
  return state.validators.get(id)!;
}

/** The operation's content for the media type the request asked for, if it describes one (`v3.` in its name or not). */
function mediaTypeAsked<T>(content: Record<string, T>, accept: string | undefined): [string, T] | undefined {
  const asked = (accept ?? '').split(',').map((type) => type.split(';')[0]!.trim().replace('vnd.github.v3.', 'vnd.github.'));
  return Object.entries(content).find(([type]) => type !== 'application/json' && asked.includes(type.replace('vnd.github.v3.', 'vnd.github.')));
}

/** Checks an answer against the operation GitHub's description has for its method and path. */
export function checkAnswer(answer: Answer, bodiless = false): Verdict {
  const state = load();
  if (answer.path.length > 1 && answer.path.endsWith('/')) return checkAnswer({ ...answer, path: answer.path.slice(0, -1) }, bodiless);
  // HEAD is GET without its body, as on GitHub: its status and headers are GET's.
  if (answer.method === 'HEAD') return checkAnswer({ ...answer, method: 'GET', body: '' }, true);
  if (isListedExtra(state.description, answer.method, answer.path)) return { kind: 'extra', key: `${answer.method} ${answer.path}` };
  const operation = state.description.match(answer.method, answer.path);
  if (!operation || !state.served.has(operation.key)) {
    const key = operation?.key ?? `${answer.method} ${answer.path}`;
    // A path repohost does not serve answers "does not implement" with 404; anything else is served and must be known.
    if (answer.status === 404) return { kind: 'unserved', key };
    const mismatch: Mismatch = { operation: key, status: answer.status, field: '', rule: 'operation', message: operation ? 'answered, but docs/github-api.md does not list it' : 'GitHub has no such operation' };
    return { kind: 'validated', operation: operation ?? { key, operationId: key, method: answer.method, template: answer.path, shape: answer.path, responses: {} }, mismatches: [mismatch] };
  }
  const mismatches: Mismatch[] = [];
  const found = (field: string, rule: string, message: string) => {
    const mismatch = { operation: operation.key, operationId: operation.operationId, status: answer.status, field, rule, message };
    if (!excepted(mismatch)) mismatches.push(mismatch);
  };
  // What GitHub sends with every answer, whatever the operation's description lists.
  if (!/^[0-9A-F]{4}(?::[0-9A-F]+){4}$/.test(answer.headers['x-github-request-id'] ?? '')) found('header X-GitHub-Request-Id', 'header', `every answer has one; was ${JSON.stringify(answer.headers['x-github-request-id'])}`);
  const components = (state.description.document as { components: Record<string, Record<string, unknown>> }).components;
  const listed = operation.responses[String(answer.status)];
  let schema: unknown;
  let schemaId = `${operation.key} ${answer.status}`;
  let headers: Record<string, unknown> = {};
  if (listed) {
    const response = resolved(listed, components);
    const content = response.content as Record<string, { schema?: unknown }> | undefined;
    const asked = content && mediaTypeAsked(content, answer.accept);
    const json = content && (asked?.[1] ?? content['application/json'] ?? Object.entries(content).find(([type]) => type.includes('json'))?.[1]);
    if (asked) schemaId += ` ${asked[0]}`;
    schema = json?.schema;
    headers = (response.headers as Record<string, unknown>) ?? {};
    if (content && !json && answer.body.length > 0) schema = undefined;
  } else if (ANY_OPERATION_STATUSES.has(answer.status)) {
    const general = ANY_OPERATION_STATUSES.get(answer.status)!;
    schema = general.schema && { $ref: `#/components/schemas/${general.schema}` };
    schemaId = `general ${general.schema}`;
    if (answer.status >= 300 && answer.status < 400 && answer.status !== 304 && !answer.headers.location) found('header Location', 'header', `a ${answer.status} without Location`);
  } else {
    found('', 'status', `${answer.status} is not a status GitHub lists (${Object.keys(operation.responses).join(', ')})`);
    return { kind: 'validated', operation, mismatches };
  }
  const validate = validator(state, schemaId, schema);
  // A media type other than JSON (`raw`, `html`, a tarball) is GitHub's too; only JSON bodies have a schema to check.
  const isJson = /json/.test(answer.headers['content-type'] ?? '');
  if (validate && !bodiless && answer.body.length === 0) {
    found('', 'body', 'GitHub answers a JSON body here; the answer had none');
  } else if (validate && isJson && !bodiless) {
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      found('', 'json', `the body is not JSON (${answer.body.slice(0, 60)}…)`);
      return { kind: 'validated', operation, mismatches };
    }
    if (!validate(body)) {
      for (const error of validate.errors ?? []) {
        const extra = error.keyword === 'required' ? ` ${(error.params as { missingProperty: string }).missingProperty}` : '';
        found(error.instancePath, error.keyword, `${error.message ?? ''}${extra}, was ${JSON.stringify(error.data)?.slice(0, 80)} (${error.schemaPath})`);
      }
    }
  } else if (answer.body.length > 0 && [204, 304].includes(answer.status)) {
    found('', 'body', `${answer.status} has no body in GitHub's description, but ${answer.body.length} bytes were sent`);
  }
  for (const [name, described] of Object.entries(headers)) {
    const value = answer.headers[name.toLowerCase()];
    const header = resolved(described, components) as { schema?: unknown };
    if (value === undefined || !header.schema) continue;
    const check = validator(state, `header ${JSON.stringify(header.schema)}`, header.schema)!;
    const typed = (header.schema as { type?: string }).type === 'integer' ? Number(value) : value;
    if (!check(typed)) found(`header ${name}`, 'header', `${JSON.stringify(value)}: ${check.errors?.[0]?.message ?? ''}`);
  }
  return { kind: 'validated', operation, mismatches };
}
