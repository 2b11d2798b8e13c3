import { RequestError } from '@octokit/request-error';

/** Where GitHub's error bodies point (`documentation_url`), as the host answers them. */
export const DOCS = 'https://docs.github.com/rest';

/** The error a request fails with (Octokit throws RequestError with GitHub's body as `response.data`). */
export async function failure(request: Promise<unknown>): Promise<{ status: number; data: any }> {
  try {
    await request;
  } catch (error) {
    if (error instanceof RequestError) return { status: error.status, data: error.response?.data };
    throw error;
  }
  throw new Error('the request succeeded');
}
