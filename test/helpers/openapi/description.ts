import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * GitHub's own description of its REST API (`@octokit/openapi`, pinned in devDependencies: api.github.com), read once
 * per test process, and the operations repohost serves (the table in docs/github-api.md).
 */
export interface Operation {
  /** `METHOD /template` as GitHub writes it, e.g. `GET /repos/{owner}/{repo}/issues/{issue_number}`. */
  key: string;
  operationId: string;
  method: string;
  template: string;
  /** The template's shape with its parameters unnamed (`/repos/{}/{}/issues/{}`), to compare templates by. */
  shape: string;
  responses: Record<string, unknown>;
}

export interface Description {
  document: { components: Record<string, unknown>; paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>> };
  operations: Operation[];
  /** The operation an answered request was, by method and path (below `/api/v3`), or undefined. */
  match(method: string, path: string): Operation | undefined;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
const ROOT = join(import.meta.dirname, '..', '..', '..');

export const shapeOf = (template: string) => template.replace(/\{[^}]+\}/g, '{}');

let loaded: Description | undefined;

export function githubDescription(): Description {
  if (loaded) return loaded;
  const file = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');
  const document = JSON.parse(readFileSync(file, 'utf8')) as Description['document'];
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const upper = method.toUpperCase();
      operations.push({ key: `${upper} ${template}`, operationId: operation.operationId, method: upper, template, shape: shapeOf(template), responses: operation.responses });
    }
  }
  // Each segment is tried one by one; a literal segment wins over a parameter (`/pulls/comments` over `/pulls/{n}`).
  const byMethod = new Map<string, Array<{ operation: Operation; segments: string[] }>>();
  for (const operation of operations) {
    const list = byMethod.get(operation.method) ?? [];
    list.push({ operation, segments: operation.template.split('/').slice(1) });
    byMethod.set(operation.method, list);
  }
  const match = (method: string, path: string): Operation | undefined => {
    const parts = path.split('/').slice(1);
    let best: { operation: Operation; score: string } | undefined;
    for (const candidate of byMethod.get(method) ?? []) {
      const score = scoreOf(candidate.segments, parts);
      if (score !== undefined && (!best || score > best.score)) best = { operation: candidate.operation, score };
    }
    return best?.operation;
  };
  loaded = { document, operations, match };
  return loaded;
}

/** The parameters whose values may hold `/` (git refs, branch and tag names, file paths, label names). */
const SPANNING = new Set(['{path}', '{ref}', '{branch}', '{basehead}', '{tag}', '{name}']);

/**
 * How well a template's segments fit a path's: undefined when they don't; otherwise a string that sorts higher for a
 * literal earlier. A template's last parameter may take several segments (branch names, refs and file paths hold `/`).
 */
function scoreOf(segments: string[], parts: string[]): string | undefined {
  if (parts.length < segments.length) return undefined;
  const exact = parts.length === segments.length;
  if (!exact && !SPANNING.has(segments.at(-1)!)) return undefined;
  let digits = '';
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    if (segment.startsWith('{')) {
      if (!parts[index]) return undefined;
      digits += '1';
    } else {
      if (segment !== parts[index]) return undefined;
      digits += '2';
    }
  }
  return `${exact ? 1 : 0}${String(segments.length).padStart(2, '0')}${digits}`;
}

/** The operations docs/github-api.md says repohost serves, in GitHub's templates. */
export function servedOperations(description: Description): { served: Operation[]; unknown: string[] } {
  if (servedCache?.description === description) return servedCache.result;
  const page = readFileSync(join(ROOT, 'docs', 'github-api.md'), 'utf8');
  const table = /<!-- endpoints:start -->([\s\S]*?)<!-- endpoints:end -->/.exec(page)?.[1] ?? '';
  const listed = [...table.matchAll(/`((?:GET|POST|PUT|PATCH|DELETE) \/[^`]*)`/g)].map((found) => found[1]!);
  const byShape = new Map(description.operations.map((operation) => [`${operation.method} ${operation.shape}`, operation]));
  const served: Operation[] = [];
  const unknown: string[] = [];
  for (const entry of new Set(listed)) {
    const [method, listedTemplate] = entry.split(' ') as [string, string];
    // Release assets are uploaded to GitHub's uploads host, which repohost serves under /api/uploads.
    const template = listedTemplate.replace(/^\/api\/uploads(?=\/)/, '');
    const operation = byShape.get(`${method} ${shapeOf(template)}`);
    if (operation) served.push(operation);
    else unknown.push(entry);
  }
  servedCache = { description, result: { served, unknown } };
  return servedCache.result;
}

let servedCache: { description: Description; result: { served: Operation[]; unknown: string[] } } | undefined;

/** Whether a request's path is one of the listed paths GitHub's description lacks (older paths GitHub still answers). */
export function isListedExtra(description: Description, method: string, path: string): boolean {
  return servedOperations(description).unknown.some((entry) => {
    const [listedMethod, template] = entry.split(' ') as [string, string];
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}$/, '.+').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    return listedMethod === method && pattern.test(path);
  });
}
