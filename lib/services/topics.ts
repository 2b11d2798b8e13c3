import { invalid } from '../errors.js';
import type { Db } from '../store/interface.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { replaceTopics, topicsOf } from '../store/queries/topics.js';
import { requireAccess, type Viewer } from './permissions.js';
import { writeToRepository } from './repository-write.js';

/** GitHub's rules for a topic, and how many a repository has at most. */
const TOPIC = /^[a-z0-9][a-z0-9-]{0,49}$/;
const MAX_TOPICS = 20;
/** GitHub's words for a topic it refuses. */
const TOPIC_RULE = 'Topics must start with a lowercase letter or number, consist of 50 characters or less, and can include hyphens.';

/** A repository's topics (GitHub's `topics`): anyone who sees the repository reads them, admins replace them. */
export class TopicService {
  constructor(private readonly store: Db) {}

  async get(repo: RepositoryRow): Promise<string[]> {
    return await topicsOf(this.store, repo.id);
  }

  /** Replaces them all (in lower case, each once, in the order given); the ones now kept. */
  async replace(repo: RepositoryRow, viewer: Viewer, names: unknown): Promise<string[]> {
    await requireAccess(this.store, viewer, repo, 'admin', 'Changing topics needs admin access');
    if (!Array.isArray(names) || names.some((name) => typeof name !== 'string')) throw invalid('names must be an array of topics');
    // GitHub saves topic names in lower case.
    const topics = [...new Set((names as string[]).map((name) => name.toLowerCase()))];
    if (topics.some((name) => !TOPIC.test(name))) throw invalid(TOPIC_RULE);
    if (topics.length > MAX_TOPICS) throw invalid(`A repository has at most ${MAX_TOPICS} topics`);
    await writeToRepository(this.store, repo, async (tx) => await replaceTopics(tx, repo.id, topics));
    return topics;
  }
}
