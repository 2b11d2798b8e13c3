import type { H3 } from 'h3';
import type { AppContext } from '../../../context.js';
import { currentUser } from '../../auth.js';
import { parseJsonObject, readLimitedText } from '../../validate.js';

export function mountCiRoutes(app: H3, ctx: AppContext): void {
  app.post('/api/v1/ci/status', async (event) => {
    const body = parseJsonObject(await readLimitedText(event, ctx.options.maxBodyBytes), 'Invalid request body');
    const run = await ctx.ci.report(await currentUser(ctx, event), body);
    return { success: true, run_id: run.run_id, repo_id: String(run.repo_id), status: run.status };
  });
}
