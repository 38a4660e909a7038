import type { Provider, Share } from '@mi/contracts/sharing';
import { describe, expect, it } from 'vitest';
import {
  ALL_PROVIDERS_HEADING,
  FILTERED_HEADING,
  HINT_CONTINUE,
  HINT_NO_MATCH,
  HINT_START,
  addProvider,
  addTypedEmail,
  emailRejection,
  filterProviders,
  isProviderDisabled,
  shareBody,
  sharedDescription,
  sharedEmails,
  shareHint,
  submissionRecipients,
  suggestionHeading,
  type Recipient,
} from '../src/features/studies/utils/share-recipients';

function provider(id: string, name: string, email: string, specialty: string | null = null): Provider {
  return {
    _id: id,
    id,
    name,
    specialty,
    description: null,
    yearsOfExperience: null,
    rating: null,
    ratingCount: 0,
    kind: 'contact',
    verified: null,
    hospital: null,
    position: null,
    demo: false,
    credentials: [],
    location: null,
    academicProfile: null,
    contactInformation: { email, mobile: null, website: null },
    workingHours: null,
    onPlatform: false,
  };
}

function share(email: string, targetEmail?: string): Share {
  return {
    _id: email,
    id: email,
    email,
    targetUser: targetEmail ? { _id: 'u', email: targetEmail, name: null } : null,
    createdAt: '2024-03-01T10:00:00Z',
    accepted: !!targetEmail,
    provider: null,
    study: {
      _id: 's',
      studyId: null,
      metadata: { studyDescription: null, patientName: null, modality: null, studyDate: null },
    },
  };
}

const house = provider(
  '11111111-1111-4111-8111-111111111111',
  'Dr. Gregory House',
  'house@ppth.org',
  'Diagnostics',
);
const cuddy = provider(
  '22222222-2222-4222-8222-222222222222',
  'Lisa Cuddy',
  'cuddy@ppth.org',
  'Endocrinology',
);
const wilson = provider(
  '33333333-3333-4333-8333-333333333333',
  'James Wilson',
  'jw@oncology.example',
  'Oncology',
);
const providers = [house, cuddy, wilson];
const none = new Set<string>();

describe('provider suggestions', () => {
  it('lists every provider under "All your providers:" while the field is empty', () => {
    expect(filterProviders(providers, '  ')).toEqual(providers);
    expect(suggestionHeading('')).toBe(ALL_PROVIDERS_HEADING);
    expect(suggestionHeading('ho')).toBe(FILTERED_HEADING);
  });

  it('filters on name, email or specialty, in any letter case', () => {
    expect(filterProviders(providers, 'HOUSE')).toEqual([house]);
    expect(filterProviders(providers, 'ppth.org')).toEqual([house, cuddy]);
    expect(filterProviders(providers, 'oncol')).toEqual([wilson]);
    expect(filterProviders(providers, 'nobody')).toEqual([]);
  });

  it('disables providers already chosen or whose address already has the study', () => {
    const selected: Recipient[] = [{ kind: 'provider', provider: house }];
    expect(isProviderDisabled(house, selected, none)).toBe(true);
    expect(isProviderDisabled(cuddy, selected, none)).toBe(false);
    const shared = sharedEmails([share('CUDDY@ppth.org')]);
    expect(isProviderDisabled(cuddy, [], shared)).toBe(true);
    expect(addProvider(cuddy, [], shared)).toBeNull();
    expect(addProvider(wilson, selected, shared)).toEqual([
      ...selected,
      { kind: 'provider', provider: wilson },
    ]);
  });
});

describe('Enter adds a typed address', () => {
  it('adds a valid address, trimmed', () => {
    expect(addTypedEmail(' new@clinic.org ', [], none)).toEqual([{ kind: 'email', email: 'new@clinic.org' }]);
  });

  it('refuses an invalid address', () => {
    expect(addTypedEmail('not-an-email', [], none)).toBeNull();
    expect(emailRejection('a@b', [], none)).toBe('invalid');
  });

  it('refuses an address already selected, in any case', () => {
    const selected: Recipient[] = [{ kind: 'email', email: 'new@clinic.org' }];
    expect(addTypedEmail('NEW@clinic.org', selected, none)).toBeNull();
    expect(emailRejection('NEW@clinic.org', selected, none)).toBe('selected');
  });

  it("refuses a provider chip's address", () => {
    const selected: Recipient[] = [{ kind: 'provider', provider: house }];
    expect(emailRejection('house@PPTH.org', selected, none)).toBe('selected');
  });

  it('refuses an address the study is already shared with (as sent or as the account it reached)', () => {
    const shared = sharedEmails([share('old@clinic.org'), share('invited@clinic.org', 'Account@clinic.org')]);
    expect(emailRejection('Old@clinic.org', [], shared)).toBe('shared');
    expect(emailRejection('account@clinic.org', [], shared)).toBe('shared');
    expect(emailRejection('fresh@clinic.org', [], shared)).toBeNull();
  });
});

describe('hints', () => {
  it('invites to type while nothing is typed or chosen, then to continue after a chip', () => {
    expect(shareHint('', [], 3)).toBe(HINT_START);
    expect(shareHint('', [{ kind: 'email', email: 'a@b.co' }], 3)).toBe(HINT_CONTINUE);
  });

  it('says nothing matches only when the text is not an address either', () => {
    expect(shareHint('zzz', [], 0)).toBe(HINT_NO_MATCH);
    expect(shareHint('zzz@clinic.org', [], 0)).toBeNull();
    expect(shareHint('hou', [], 1)).toBeNull();
  });
});

describe('submission', () => {
  it('shares with the chips plus a valid new typed address; nothing when neither', () => {
    const selected: Recipient[] = [{ kind: 'provider', provider: house }];
    expect(submissionRecipients('', [], none)).toEqual([]);
    expect(submissionRecipients('half@', [], none)).toEqual([]);
    expect(submissionRecipients('x@clinic.org', selected, none)).toEqual([
      ...selected,
      { kind: 'email', email: 'x@clinic.org' },
    ]);
    expect(submissionRecipients('house@ppth.org', selected, none)).toEqual(selected);
  });

  it('sends providers by id and addresses with addProvider', () => {
    const studyId = '44444444-4444-4444-8444-444444444444';
    expect(shareBody(studyId, { kind: 'provider', provider: house })).toEqual({
      providerId: house.id,
      studyId,
    });
    expect(shareBody(studyId, { kind: 'email', email: ' x@clinic.org' })).toEqual({
      email: 'x@clinic.org',
      studyId,
      addProvider: true,
    });
  });

  it('names every invited address in the toast', () => {
    expect(sharedDescription(['a@x.org'])).toBe('You invited a@x.org to view your study');
    expect(sharedDescription(['a@x.org', 'b@y.org'])).toBe('You invited a@x.org, b@y.org to view your study');
  });
});
