import { getCookie, type H3, type H3Event } from 'h3';
import type { AppContext } from '../../../context.js';
import type { UserRow } from '../../../store/queries/users.js';
import { clientAddress, SESSION_COOKIE } from '../../auth.js';
import { RequestForgeryGuard } from '../../csrf.js';
import { htmlResponse } from '../../html-response.js';
import { accountView } from '../../pages/account-view.js';
import { idParam, pathParam, queryString, readForm, type FormFields } from '../../validate.js';
import { notFound } from '../../../errors.js';
import { FIRST_HUNDRED } from '../../../store/queries/page-window.js';
import { apiTokensView } from '../../pages/views.js';
import { readAvatarUpload } from '../api/avatar.js';
import { formAction, redirectTo, signedInOrLogin } from '../web.js';
import { pageUserOf } from './page-request.js';
import { ownValue } from '../../../own-value.js';

/** Confirmations a success redirect may ask for, by key (the page never shows text taken from the query). */
const NOTICES: Readonly<Record<string, string>> = {
  avatar: 'Your avatar was updated.',
  password: 'Your password was changed; your other sessions are signed out.',
  revoked: 'The session was revoked.',
  'key-added': 'The SSH key was added.',
  'key-removed': 'The SSH key was removed.',
};

/**
 * Account settings of the signed-in user under `/user/settings` (`user` is a reserved username): avatar, password,
 * SSH keys, sessions; the API tokens page stays at `/:username/settings/api-tokens`.
 */
export function mountAccountPages(app: H3, ctx: AppContext, guard: RequestForgeryGuard): void {
  const render = async (event: H3Event, user: UserRow, error?: string, notice?: string) =>
    accountView(pageUserOf(guard, event, user), {
      avatar: ctx.users.summary(await ctx.users.byId(user.id) ?? user).avatar,
      sessions: await ctx.credentials.sessions(user.id, getCookie(event, SESSION_COOKIE)),
      sshKeys: (await ctx.sshKeys.list(user, FIRST_HUNDRED)).items,
      error,
      notice,
    });

  /** A form of the account page: signed in, back to the page with a notice, or the page with the error. */
  const accountForm = async (event: H3Event, form: FormFields, action: (user: UserRow) => Promise<keyof typeof NOTICES>) => {
    const user = await signedInOrLogin(ctx, event, form);
    if (user instanceof Response) return user;
    return formAction(
      form,
      async () => redirectTo(`/user/settings?done=${await action(user)}`),
      async (message) => await render(event, user, message),
    );
  };

  app.get('/user/settings', async (event) => {
    const user = await signedInOrLogin(ctx, event);
    if (user instanceof Response) return user;
    return htmlResponse(await render(event, user, undefined, ownValue(NOTICES, queryString(event, 'done') ?? '')));
  });

  // Multipart: the same reader and service as the spec's avatar endpoint; the token is checked before anything is kept.
  app.post('/user/settings/avatar', async (event) => {
    const user = await signedInOrLogin(ctx, event);
    if (user instanceof Response) return user;
    const response = await formAction(
      {},
      async () => {
        const upload = await readAvatarUpload(event, ctx.options.maxAvatarBytes);
        RequestForgeryGuard.verifyForm(event, upload.fields);
        await ctx.avatars.replace(user, upload.bytes, upload.mimetype);
        return redirectTo('/user/settings?done=avatar');
      },
      async (message) => await render(event, user, message),
    );
    // Refused for size, the rest of the upload is unread: the connection closes rather than read it (as app.ts does).
    if (response.status === 413) response.headers.set('connection', 'close');
    return response;
  });

  app.post('/user/settings/password', async (event) => {
    const form = await readForm(event, ctx.options.maxBodyBytes);
    return accountForm(event, form, async (user) => {
      await ctx.users.changePassword(user, form.current_password, form.new_password, getCookie(event, SESSION_COOKIE), clientAddress(event));
      return 'password';
    });
  });

  // API tokens are listed at /:username/settings/api-tokens (routes/web.ts); each row's button revokes it here.
  app.post('/:username/settings/api-tokens/:id/revoke', async (event) => {
    const form = await readForm(event, ctx.options.maxBodyBytes);
    const user = await signedInOrLogin(ctx, event, form);
    if (user instanceof Response) return user;
    if (user.username.toLowerCase() !== pathParam(event, 'username').toLowerCase()) throw notFound('Not found');
    const home = `/${user.username}/settings/api-tokens`;
    return formAction(
      form,
      async () => {
        await ctx.credentials.revokeApiToken(user.id, String(idParam(event, 'id')));
        return redirectTo(`${home}?revoked=1`);
      },
      async (message) => apiTokensView(pageUserOf(guard, event, user), (await ctx.credentials.apiTokens(user.id, FIRST_HUNDRED)).items, undefined, message),
    );
  });

  app.post('/user/settings/keys', async (event) => {
    const form = await readForm(event, ctx.options.maxBodyBytes);
    return accountForm(event, form, async (user) => {
      await ctx.sshKeys.add(user, { title: form.title, key: form.key });
      return 'key-added';
    });
  });

  app.post('/user/settings/keys/:id/delete', async (event) => {
    const form = await readForm(event, ctx.options.maxBodyBytes);
    return accountForm(event, form, async (user) => {
      await ctx.sshKeys.remove(user, idParam(event, 'id'));
      return 'key-removed';
    });
  });

  app.post('/user/settings/sessions/:id/revoke', async (event) => {
    const form = await readForm(event, ctx.options.maxBodyBytes);
    return accountForm(event, form, async (user) => {
      await ctx.credentials.revokeSession(user.id, idParam(event, 'id'));
      return 'revoked';
    });
  });
}
