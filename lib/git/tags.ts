import { objectInfo, parseIdentity, type CommitIdentity } from './objects.js';
import { runGit } from './run-git.js';

/** An annotated tag object. */
export interface TagObject {
  id: string;
  tag: string;
  message: string;
  tagger: CommitIdentity | null;
  object: { type: string; id: string };
}

/** The annotated tag object `id`, or undefined when it is not one. */
export async function readTag(gitDir: string, id: string): Promise<TagObject | undefined> {
  if ((await objectInfo(gitDir, id))?.type !== 'tag') return undefined;
  const text = (await runGit(['cat-file', 'tag', id], { gitDir })).stdout.toString('utf8');
  const split = text.indexOf('\n\n');
  const header = new Map<string, string>();
  for (const line of (split < 0 ? text : text.slice(0, split)).split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0 && !header.has(line.slice(0, space))) header.set(line.slice(0, space), line.slice(space + 1));
  }
  return {
    id,
    tag: header.get('tag') ?? '',
    message: split < 0 ? '' : text.slice(split + 2),
    tagger: header.has('tagger') ? parseIdentity(header.get('tagger')!) : null,
    object: { type: header.get('type') ?? 'commit', id: header.get('object') ?? '' },
  };
}

/** Tags, newest first: the name and the commit it leads to (annotated tags peeled). */
export async function listTags(gitDir: string): Promise<Array<{ name: string; commit: string }>> {
  const { stdout } = await runGit(['for-each-ref', '--sort=-creatordate', '--format=%(refname:strip=2)%00%(objectname)%00%(*objectname)', 'refs/tags/'], { gitDir });
  return stdout
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [name, id, peeled] = line.split('\0');
      return { name: name!, commit: peeled || id! };
    });
}
