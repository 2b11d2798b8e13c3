import type { WriteTx } from '../store/interface.js';
import { hasCrossReference, insertIssueEvent } from '../store/queries/issue-events.js';
import { conversationExists } from '../store/queries/conversations.js';
import { repositoryByFullName, type RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import { accessLevel, atLeast } from './permissions.js';

/**
 * GitHub's references: `owner/repo#12`, `#12` (in a repository's context) and `@name`, each after the start or a
 * character that cannot continue a word, path or address (so `a@b.example` and `x#1` stay text). The pages link them
 * (http/pages/markdown.ts); cross-references are noted from them.
 */
export const REFERENCE = /(^|[^\p{L}\p{N}_/@.#-])(?:([A-Za-z0-9_][A-Za-z0-9_.-]*)\/([A-Za-z0-9_][A-Za-z0-9_.-]*)#(\d{1,9})|#(\d{1,9})|@([A-Za-z0-9_][A-Za-z0-9_-]*))(?![\p{L}\p{N}_-])/gu;

/** Fenced code blocks and code spans, where nothing is a reference (as in rendered Markdown). */
const CODE = /^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\1[`~]*[ \t]*$|(?![\s\S]))|(`+)(?!`)[\s\S]*?(?<!`)\2(?!`)/gm;

/** Issues and pull requests one text cross-references at most (GitHub's limit is not documented; a bound on work). */
const MAX_REFERENCES = 20;

/** The issues and pull requests a text mentions (`owner`/`name` of the repository; `#12` is the text's own), in order, once each. */
export function mentionedConversations(text: string, repo: Pick<RepositoryRow, 'owner_name' | 'name'>): Array<{ owner: string; name: string; number: number }> {
  const found = new Map<string, { owner: string; name: string; number: number }>();
  for (const match of text.replace(CODE, ' ').matchAll(REFERENCE)) {
    const [, , owner, name, crossNumber, number] = match;
    const reference = crossNumber ? { owner: owner!, name: name!, number: Number(crossNumber) } : number ? { owner: repo.owner_name, name: repo.name, number: Number(number) } : undefined;
    if (!reference) continue;
    found.set(`${reference.owner.toLowerCase()}/${reference.name.toLowerCase()}#${reference.number}`, reference);
    if (found.size === MAX_REFERENCES) break;
  }
  return [...found.values()];
}

/** Accounts one text can call on at most (a bound on work, as for cross-references). */
const MAX_MENTIONS = 50;

/** The names a text mentions (`@name`, outside code), in order, once each regardless of case. */
export function mentionedUsernames(text: string): string[] {
  const found = new Map<string, string>();
  for (const match of text.replace(CODE, ' ').matchAll(REFERENCE)) {
    const name = match[6];
    if (name && !found.has(name.toLowerCase())) found.set(name.toLowerCase(), name);
    if (found.size === MAX_MENTIONS) break;
  }
  return [...found.values()];
}

/**
 * Notes on each issue or pull request that `text` (of `source`'s issue, pull request or comment) mentions that the
 * source mentioned it: a `cross-referenced` event on its timeline, once per source, inside the source's write.
 * Unknown repositories and numbers, and repositories the actor may not read, are passed over; who may see the event is
 * decided when it is read (its source may be private).
 */
export async function noteCrossReferences(tx: WriteTx, source: RepositoryRow, sourceNumber: number, actor: UserRow, text: string, now: string): Promise<void> {
  for (const reference of mentionedConversations(text, source)) {
    const own = reference.owner.toLowerCase() === source.owner_name.toLowerCase() && reference.name.toLowerCase() === source.name.toLowerCase();
    const target = own ? source : await repositoryByFullName(tx, reference.owner, reference.name);
    if (!target || (target.id === source.id && reference.number === sourceNumber)) continue;
    // Nobody writes onto the timeline of a repository they may not read.
    if (!own && !atLeast(await accessLevel(tx, actor, target), 'read')) continue;
    if (!(await conversationExists(tx, target.id, reference.number))) continue;
    const from = { repoId: source.id, number: sourceNumber };
    if (await hasCrossReference(tx, target.id, reference.number, from)) continue;
    await insertIssueEvent(tx, target.id, reference.number, 'cross-referenced', { actorId: actor.id, source: from }, now);
  }
}
