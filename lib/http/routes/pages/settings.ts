import type { H3, H3Event } from 'h3';
import type { AppContext } from '../../../context.js';
import { invalid } from '../../../errors.js';
import { FIRST_HUNDRED } from '../../../store/queries/page-window.js';
import type { RequestForgeryGuard } from '../../csrf.js';
import { htmlResponse } from '../../html-response.js';
import { repoBase } from '../../pages/repo-layout.js';
import { collaboratorsView, deployKeysView, hookView, hooksView, optionsView, protectionView, type SettingsFrame } from '../../pages/settings-view.js';
import { idParam, pathParam, queryString, type FormFields } from '../../validate.js';
import { redirectTo } from '../web.js';
import { repoForm, repoPageRequest, type RepoPageRequest } from './page-request.js';
import { ownValue } from '../../../own-value.js';

/** The one confirmation a success redirect may ask the next page to show (never text from the query itself). */
const SAVED = 'saved';
/** What a settings form did, by the key its redirect carries: a ping or a redelivery saves nothing. */
const NOTICES: Readonly<Record<string, string>> = {
  '1': 'Saved.',
  ping: 'Ping sent: its delivery is listed below.',
  redelivered: 'Delivery sent again: the new attempt is listed below.',
};

function frameOf(request: RepoPageRequest, error?: string, notice?: string): SettingsFrame {
  return { viewer: request.user!, repo: request.repo, access: request.access, error, notice };
}

/** Values of checkboxes named `<prefix><anything>`: several boxes, one list (readForm keeps one value per name). */
function checkedValues(form: FormFields, prefix: string): string[] {
  return Object.entries(form)
    .filter(([key, value]) => key.startsWith(prefix) && typeof value === 'string')
    .map(([, value]) => value as string);
}

/** A comma-separated text field as a list of names. */
function nameList(value: unknown): string[] {
  return typeof value === 'string' ? value.split(',').map((name) => name.trim()).filter(Boolean) : [];
}

/** The hook fields of the form: an empty secret on an existing hook keeps the one it has. */
function hookInput(form: FormFields, existing: boolean) {
  return {
    url: form.url,
    content_type: form.content_type,
    secret: existing && form.secret === '' ? undefined : form.secret,
    events: checkedValues(form, 'event_'),
    active: form.active,
  };
}

/**
 * Repository settings (admin only). Everyone else gets the 404 page, whether or not they can read the repository:
 * a settings page is nothing a reader needs to know exists (GitHub answers the same way).
 */
export function mountSettingsPages(app: H3, ctx: AppContext, guard: RequestForgeryGuard): void {
  const admin = (event: H3Event) => repoPageRequest(ctx, guard, event, 'admin');
  /** The note a settings page shows after a form: which one by key, never text taken from the query. */
  const notice = (event: H3Event) => {
    const key = queryString(event, SAVED) ?? '';
    return ownValue(NOTICES, key);
  };
  /** A settings form: admin only, back to `where` with the saved note, or the section again with the error. */
  const settingsForm = (
    event: H3Event,
    action: (request: Parameters<Parameters<typeof repoForm>[3]>[0], form: FormFields) => Promise<string>,
    rerender: (request: RepoPageRequest, message: string) => string | Promise<string>,
    done: keyof typeof NOTICES = '1',
  ) =>
    repoForm(
      ctx,
      guard,
      event,
      async (request, form) => redirectTo(`${await action(request, form)}?${SAVED}=${done}`),
      (request, message) => rerender(request, message),
      'admin',
    );

  // Options: description and visibility, default branch, rename, delete.
  const renderOptions = (request: RepoPageRequest, error?: string, saved?: string) => optionsView(frameOf(request, error, saved));
  app.get('/:owner/:repo/settings', async (event) => htmlResponse(renderOptions(await admin(event), undefined, notice(event))));
  app.post('/:owner/:repo/settings', (event) =>
    settingsForm(
      event,
      async ({ viewer, repo }, form) => {
        await ctx.repos.updateDetails(viewer, repo.owner_name, repo.name, { description: form.description, visibility: form.visibility });
        return `${repoBase(repo)}/settings`;
      },
      renderOptions,
    ),
  );
  app.post('/:owner/:repo/settings/default-branch', (event) =>
    settingsForm(
      event,
      async ({ viewer, repo }, form) => `${repoBase(await ctx.repos.setDefaultBranch(viewer, repo.owner_name, repo.name, form.default_branch))}/settings`,
      renderOptions,
    ),
  );
  app.post('/:owner/:repo/settings/rename', (event) =>
    settingsForm(
      event,
      async ({ viewer, repo }, form) => `${repoBase(await ctx.repos.rename(viewer, repo.owner_name, repo.name, form.name))}/settings`,
      renderOptions,
    ),
  );
  app.post('/:owner/:repo/settings/delete', (event) =>
    repoForm(
      ctx,
      guard,
      event,
      async ({ viewer, repo }, form) => {
        const fullName = `${repo.owner_name}/${repo.name}`;
        if (form.confirm !== fullName) throw invalid(`type ${fullName} to confirm the deletion`);
        await ctx.repos.remove(viewer, repo.owner_name, repo.name);
        return redirectTo('/');
      },
      (request, message) => renderOptions(request, message),
      'admin',
    ),
  );

  // Collaborators.
  const renderCollaborators = async (request: RepoPageRequest, error?: string, saved?: string) =>
    collaboratorsView(frameOf(request, error, saved), (await ctx.collaborators.list(request.repo, request.viewer, FIRST_HUNDRED)).items);
  app.get('/:owner/:repo/settings/collaborators', async (event) => htmlResponse(await renderCollaborators(await admin(event), undefined, notice(event))));
  app.post('/:owner/:repo/settings/collaborators', (event) =>
    settingsForm(
      event,
      async ({ viewer, repo }, form) => {
        await ctx.collaborators.set(repo, viewer, typeof form.username === 'string' ? form.username.trim() : '', form.permission);
        return `${repoBase(repo)}/settings/collaborators`;
      },
      renderCollaborators,
    ),
  );
  app.post('/:owner/:repo/settings/collaborators/:username', (event) =>
    settingsForm(
      event,
      async ({ viewer, repo }, form) => {
        await ctx.collaborators.set(repo, viewer, pathParam(event, 'username'), form.permission);
        return `${repoBase(repo)}/settings/collaborators`;
      },
      renderCollaborators,
    ),
  );
  app.post('/:owner/:repo/settings/collaborators/:username/delete', (event) =>
    settingsForm(
      event,
      async ({ viewer, repo }) => {
        await ctx.collaborators.remove(repo, viewer, pathParam(event, 'username'));
        return `${repoBase(repo)}/settings/collaborators`;
      },
      renderCollaborators,
    ),
  );

  // Deploy keys.
  const renderKeys = async (request: RepoPageRequest, error?: string, saved?: string) =>
    deployKeysView(frameOf(request, error, saved), (await ctx.sshKeys.listDeploy(request.repo, request.viewer, FIRST_HUNDRED)).items);
  app.get('/:owner/:repo/settings/keys', async (event) => htmlResponse(await renderKeys(await admin(event), undefined, notice(event))));
  app.post('/:owner/:repo/settings/keys', (event) =>
    settingsForm(
      event,
      async ({ viewer, repo }, form) => {
        await ctx.sshKeys.addDeploy(repo, viewer, { title: form.title, key: form.key, read_only: form.write !== 'true' });
        return `${repoBase(repo)}/settings/keys`;
      },
      renderKeys,
    ),
  );
  app.post('/:owner/:repo/settings/keys/:id/delete', (event) =>
    settingsForm(
      event,
      async ({ viewer, repo }) => {
        await ctx.sshKeys.removeDeploy(repo, viewer, idParam(event, 'id'));
        return `${repoBase(repo)}/settings/keys`;
      },
      renderKeys,
    ),
  );

  // Webhooks and their deliveries.
  const renderHooks = async (request: RepoPageRequest, error?: string, saved?: string) => hooksView(frameOf(request, error, saved), await ctx.webhooks.list(request.repo, request.viewer));
  const renderHook = (event: H3Event) => async (request: RepoPageRequest, error?: string, saved?: string) => {
    const id = idParam(event, 'id');
    return hookView(frameOf(request, error, saved), await ctx.webhooks.get(request.repo, request.viewer, id), (await ctx.webhooks.deliveries(request.repo, request.viewer, id, FIRST_HUNDRED)).items);
  };
  const hookHome = (repo: RepoPageRequest['repo'], id: number) => `${repoBase(repo)}/settings/hooks/${id}`;
  app.get('/:owner/:repo/settings/hooks', async (event) => htmlResponse(await renderHooks(await admin(event), undefined, notice(event))));
  app.post('/:owner/:repo/settings/hooks', (event) =>
    settingsForm(event, async ({ viewer, repo }, form) => hookHome(repo, (await ctx.webhooks.create(repo, viewer, hookInput(form, false))).id), renderHooks),
  );
  app.get('/:owner/:repo/settings/hooks/:id', async (event) => htmlResponse(await renderHook(event)(await admin(event), undefined, notice(event))));
  app.post('/:owner/:repo/settings/hooks/:id', (event) =>
    settingsForm(event, async ({ viewer, repo }, form) => hookHome(repo, (await ctx.webhooks.update(repo, viewer, idParam(event, 'id'), hookInput(form, true))).id), renderHook(event)),
  );
  app.post('/:owner/:repo/settings/hooks/:id/ping', (event) =>
    settingsForm(
      event,
      async ({ viewer, repo }) => {
        await ctx.webhooks.ping(repo, viewer, idParam(event, 'id'));
        return hookHome(repo, idParam(event, 'id'));
      },
      renderHook(event),
      'ping',
    ),
  );
  app.post('/:owner/:repo/settings/hooks/:id/delete', (event) =>
    settingsForm(
      event,
      async ({ viewer, repo }) => {
        await ctx.webhooks.remove(repo, viewer, idParam(event, 'id'));
        return `${repoBase(repo)}/settings/hooks`;
      },
      renderHook(event),
    ),
  );
  app.post('/:owner/:repo/settings/hooks/:id/deliveries/:delivery_id/redeliver', (event) =>
    settingsForm(
      event,
      async ({ viewer, repo }) => {
        await ctx.webhooks.redeliver(repo, viewer, idParam(event, 'id'), idParam(event, 'delivery_id'));
        return hookHome(repo, idParam(event, 'id'));
      },
      renderHook(event),
      'redelivered',
    ),
  );

  // Branch protection: patterns hold `/` and `*`, so they travel in the form, not the path.
  const renderProtection = (event: H3Event) => async (request: RepoPageRequest, error?: string, saved?: string) => {
    const rules = await ctx.protection.list(request.repo, request.viewer);
    const editing = queryString(event, 'edit');
    return protectionView(frameOf(request, error, saved), rules, rules.find((rule) => rule.branch === editing));
  };
  app.get('/:owner/:repo/settings/branches', async (event) => htmlResponse(await renderProtection(event)(await admin(event), undefined, notice(event))));
  app.post('/:owner/:repo/settings/branches', (event) =>
    settingsForm(
      event,
      async ({ viewer, repo }, form) => {
        await ctx.protection.set(repo, viewer, typeof form.branch === 'string' ? form.branch.trim() : '', {
          require_pull_request: form.require_pull_request,
          allow_force_push: form.allow_force_push,
          allow_deletion: form.allow_deletion,
          required_status_contexts: nameList(form.required_status_contexts),
          push_allowlist: nameList(form.push_allowlist),
        });
        return `${repoBase(repo)}/settings/branches`;
      },
      renderProtection(event),
    ),
  );
  app.post('/:owner/:repo/settings/branches/delete', (event) =>
    settingsForm(
      event,
      async ({ viewer, repo }, form) => {
        await ctx.protection.remove(repo, viewer, typeof form.branch === 'string' ? form.branch : '');
        return `${repoBase(repo)}/settings/branches`;
      },
      renderProtection(event),
    ),
  );
}
