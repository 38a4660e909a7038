import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { getPurchases } from '../src/features/orders/api/get-purchases';
import { getUserStudies } from '../src/features/studies/api/get-user-studies';

// The lists' requests as the pages make them: what the server answers decides empty or failed.
const fetchMock = vi.fn<typeof fetch>();
beforeEach(() => {
  fetchMock.mockReset();
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

const answer = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

describe('a list request that fails is an error, never an empty list', () => {
  it('purchases: [] is empty; the 404 for another user id is an error', async () => {
    fetchMock.mockResolvedValueOnce(answer(200, []));
    await expect(getPurchases('me')).resolves.toEqual([]);
    fetchMock.mockResolvedValueOnce(
      answer(404, { error: 'No purchases found for this user', code: 'NOT_FOUND' }),
    );
    await expect(getPurchases('someone-else')).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('studies: an empty data list is empty; a 404 or a server failure is an error', async () => {
    fetchMock.mockResolvedValueOnce(answer(200, { data: [] }));
    await expect(getUserStudies('me')).resolves.toEqual([]);
    fetchMock.mockResolvedValueOnce(
      answer(404, { error: 'No studies found for this user', code: 'NOT_FOUND' }),
    );
    await expect(getUserStudies('someone-else')).rejects.toMatchObject({ status: 404 });
    fetchMock.mockResolvedValueOnce(answer(500, { error: 'Internal error', code: 'INTERNAL' }));
    await expect(getUserStudies('me')).rejects.toMatchObject({ status: 500 });
  });
});
