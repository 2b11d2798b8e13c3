import { getRequestHeader, type H3 } from 'h3';
import type { AppContext } from '../../../context.js';
import { unsupported } from '../../../errors.js';
import { currentUser } from '../../auth.js';
import { parseJsonObject, readLimitedText } from '../../validate.js';

export function mountCiRoutes(app: H3, ctx: AppContext): void {
  app.post('/api/v1/ci/status', async (event) => {
    // Only JSON: a form or text/plain body could be posted cross-site by any page without a preflight.
    const type = (getRequestHeader(event, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') throw unsupported('Invalid request body: Content-Type must be application/json');
    const body = parseJsonObject(await readLimitedText(event, ctx.options.maxBodyBytes), 'Invalid request body');
    const run = await ctx.ci.report(await currentUser(ctx, event), body);
    return { success: true, run_id: run.run_id, repo_id: String(run.repo_id), status: run.status };
  });
}
