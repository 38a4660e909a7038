// @vitest-environment jsdom
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { base64url, CompactEncrypt } from 'jose';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LINK_ENDED_MESSAGE, ShlPage } from '../src/features/shl-viewer/components/shl-page';
import { parseShlink } from '../src/features/shl-viewer/utils/shlink';

const KEY = base64url.encode(new Uint8Array(32).map((_, i) => i + 1));
const STUDY_ID = '0b6f3c1e-5a51-4d1b-9a34-1f4b8f3a2c10';
const UID = '1.2.840.113619.2.55.3.1234';
const MANIFEST = 'http://localhost:3000/api/shl/m/abc123';
const PDF = Buffer.from('%PDF-1.4 a tiny report').toString('base64');

const bundle = {
  resourceType: 'Bundle',
  type: 'collection',
  timestamp: '2026-05-01T10:00:00Z',
  entry: [
    {
      fullUrl: 'urn:uuid:p1',
      resource: {
        resourceType: 'Patient',
        id: 'p1',
        name: [{ family: 'Doe', given: ['Jane'] }],
        birthDate: '1980-02-03',
      },
    },
    {
      resource: {
        resourceType: 'ImagingStudy',
        id: STUDY_ID,
        status: 'available',
        subject: { reference: 'Patient/p1' },
        identifier: [{ system: 'urn:dicom:uid', value: `urn:oid:${UID}` }],
        started: '2025-11-20T09:30:00Z',
        description: '<b>MRI Knee</b>',
        modality: [{ system: 'http://dicom.nema.org/resources/ontology/DCM', code: 'MR' }],
        numberOfSeries: 4,
        numberOfInstances: 312,
        endpoint: [{ reference: 'Endpoint/wado' }],
      },
    },
    {
      resource: {
        resourceType: 'Endpoint',
        id: 'wado',
        status: 'active',
        connectionType: { code: 'dicom-wado-rs' },
        address: 'http://localhost:3000/dicomweb',
        header: ['Authorization: Bearer shl_secret'],
      },
    },
    {
      resource: {
        resourceType: 'DiagnosticReport',
        id: 'r1',
        status: 'final',
        code: { text: 'Expert review' },
        issued: '2025-11-22T12:00:00Z',
        conclusion: 'No tear.',
        imagingStudy: [{ reference: `ImagingStudy/${STUDY_ID}` }],
      },
    },
    {
      resource: {
        resourceType: 'DocumentReference',
        id: 'r1',
        status: 'current',
        content: [{ attachment: { contentType: 'application/pdf', data: PDF, title: 'Expert review' } }],
        context: {
          related: [{ reference: 'DiagnosticReport/r1' }, { reference: `ImagingStudy/${STUDY_ID}` }],
        },
      },
    },
  ],
};

/** jose checks `instanceof Uint8Array` against the page's globals, which jsdom provides. */
function bytes(buffer: Buffer): Uint8Array {
  return Uint8Array.from(buffer);
}

/** A file as the IG says: jose deflates it (`zip: DEF`) and encrypts it. */
async function conformingJwe(content: unknown): Promise<string> {
  return new CompactEncrypt(bytes(Buffer.from(JSON.stringify(content))))
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', cty: 'application/fhir+json', zip: 'DEF' })
    .encrypt(base64url.decode(KEY));
}

function fragment(payload: Record<string, unknown>): string {
  return `#shlink:/${base64url.encode(JSON.stringify(payload))}`;
}

const exp = () => Math.floor(Date.now() / 1000) + 3600;

const fetchMock = vi.fn<typeof fetch>();
beforeEach(() => {
  window.localStorage.clear();
  fetchMock.mockReset();
  vi.stubGlobal('fetch', fetchMock);
  let n = 0;
  vi.stubGlobal(
    'URL',
    Object.assign(URL, { createObjectURL: () => `blob:test/${++n}`, revokeObjectURL: () => {} }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

function routeFetch(manifest: () => Response) {
  fetchMock.mockImplementation(async (input) => {
    const url = String(input);
    if (url.startsWith(MANIFEST)) return manifest();
    if (url.endsWith('/thumbnail')) return new Response(new Blob(['jpeg']), { status: 200 });
    return new Response('not found', { status: 404 });
  });
}

describe('the study link page', () => {
  it.each([['a conforming file', conformingJwe]])(
    'asks the name and passcode, decrypts %s and shows the studies',
    async (_what, encrypt) => {
      const user = userEvent.setup();
      const jwe = await encrypt(bundle);
      routeFetch(() => json(200, { files: [{ contentType: 'application/fhir+json', embedded: jwe }] }));
      render(
        <ShlPage
          fragment={fragment({
            url: MANIFEST,
            key: KEY,
            exp: exp(),
            flag: 'P',
            label: 'For Dr Rivera',
            v: 1,
          })}
        />,
      );

      expect(screen.getByRole('heading', { name: 'For Dr Rivera' })).toBeTruthy();
      expect(screen.getByText(/Available until/)).toBeTruthy();
      await user.click(screen.getByRole('button', { name: 'Open studies' }));
      expect(screen.getByText('Enter your name.')).toBeTruthy();
      expect(screen.getByText('Enter the passcode you were given.')).toBeTruthy();
      expect(fetchMock).not.toHaveBeenCalled();

      await user.type(screen.getByLabelText('Your name'), 'Dr Ana Rivera');
      await user.type(screen.getByLabelText('Passcode'), 'abcd');
      await user.click(screen.getByRole('button', { name: 'Open studies' }));

      expect(await screen.findByText('Jane Doe')).toBeTruthy();
      expect(screen.getByText('Born Feb 03, 1980')).toBeTruthy();
      // Text from the bundle stays text.
      expect(screen.getByRole('heading', { name: '<b>MRI Knee</b>' })).toBeTruthy();
      expect(screen.getByText('MR · 4 series · 312 images')).toBeTruthy();
      expect(screen.getByText('No tear.')).toBeTruthy();
      expect(await screen.findByTitle('Expert review (PDF)')).toBeTruthy();
      expect(screen.getByRole('link', { name: /Download PDF/ }).getAttribute('download')).toBe(
        'Expert review.pdf',
      );
      expect(screen.getByRole('button', { name: /Open images/ })).toBeTruthy();
      expect(screen.getByRole('button', { name: /Download/ })).toBeTruthy();

      // The manifest request: the name and passcode, never a cookie; the key never leaves the page.
      const [url, init] = fetchMock.mock.calls.find(([u]) => String(u) === MANIFEST)!;
      expect(url).toBe(MANIFEST);
      expect(init?.method).toBe('POST');
      expect(init?.credentials).toBe('omit');
      expect(JSON.parse(String(init?.body))).toEqual({ recipient: 'Dr Ana Rivera', passcode: 'abcd' });
      for (const [, call] of fetchMock.mock.calls) expect(String(call?.body ?? '')).not.toContain(KEY);
      // The thumbnail is asked with the link's credential from the bundle's Endpoint.
      await waitFor(() =>
        expect(fetchMock).toHaveBeenCalledWith(
          `http://localhost:3000/dicomweb/studies/${UID}/thumbnail`,
          expect.objectContaining({
            headers: expect.objectContaining({ Authorization: 'Bearer shl_secret' }),
          }),
        ),
      );

      // Opened again on this device, the name is offered; the passcode is asked again.
      cleanup();
      render(<ShlPage fragment={fragment({ url: MANIFEST, key: KEY, exp: exp(), flag: 'P', v: 1 })} />);
      expect((screen.getByLabelText('Your name') as HTMLInputElement).value).toBe('Dr Ana Rivera');
      expect((screen.getByLabelText('Passcode') as HTMLInputElement).value).toBe('');
    },
  );

  it('says how many passcode attempts are left', async () => {
    const user = userEvent.setup();
    routeFetch(() => json(401, { remainingAttempts: 3 }));
    render(<ShlPage fragment={fragment({ url: MANIFEST, key: KEY, exp: exp(), flag: 'P' })} />);
    await user.type(screen.getByLabelText('Your name'), 'Front desk');
    await user.type(screen.getByLabelText('Passcode'), 'nope');
    await user.click(screen.getByRole('button', { name: 'Open studies' }));
    expect(await screen.findByText('Wrong passcode. 3 attempts left.')).toBeTruthy();
  });

  it('says when a link has ended', async () => {
    const user = userEvent.setup();
    routeFetch(() => json(404, { error: 'gone' }));
    render(<ShlPage fragment={fragment({ url: MANIFEST, key: KEY, exp: exp(), flag: '' })} />);
    expect(screen.queryByLabelText('Passcode')).toBeNull();
    await user.type(screen.getByLabelText('Your name'), 'Front desk');
    expect(screen.getByText(/Available until/)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Open studies' }));
    expect(await screen.findByText(LINK_ENDED_MESSAGE)).toBeTruthy();
    // An ended link no longer says until when it opens.
    expect(screen.queryByText(/Available until/)).toBeNull();
  });

  it('opens a check-in link by GET with the recipient', async () => {
    const user = userEvent.setup();
    const jwe = await conformingJwe(bundle);
    routeFetch(() => new Response(jwe, { status: 200, headers: { 'Content-Type': 'application/jose' } }));
    render(<ShlPage fragment={fragment({ url: MANIFEST, key: KEY, exp: exp(), flag: 'U' })} />);
    await user.type(screen.getByLabelText('Your name'), 'Front desk');
    await user.click(screen.getByRole('button', { name: 'Open studies' }));
    expect(await screen.findByText('Jane Doe')).toBeTruthy();
    expect(String(fetchMock.mock.calls[0]![0])).toBe(`${MANIFEST}?recipient=Front+desk`);
  });

  it('refuses a fragment that is not a link, and an expired link without asking the server', () => {
    expect(parseShlink('#nothing')).toBeNull();
    expect(parseShlink(fragment({ url: 'javascript:alert(1)', key: KEY }))).toBeNull();
    expect(parseShlink(fragment({ url: MANIFEST, key: 'short' }))).toBeNull();
    render(<ShlPage fragment={fragment({ url: MANIFEST, key: KEY, exp: 1_000, flag: '' })} />);
    expect(screen.getByText(LINK_ENDED_MESSAGE)).toBeTruthy();
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
