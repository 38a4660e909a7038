import { describe, expect, it } from 'vitest';
import {
  carrySearch,
  handedEmail,
  modeRedirect,
  sharedStudyInvite,
} from '../src/features/auth/utils/post-sign-in-target';

describe('an emailed share link through sign-in', () => {
  const link = '?mode=shared_studies&shareId=abc&shareToken=t0k&email=b%40x.org';

  it('carries shareId and shareToken between the signed-out pages', () => {
    const carried = new URLSearchParams(carrySearch(link));
    expect(carried.get('shareId')).toBe('abc');
    expect(carried.get('shareToken')).toBe('t0k');
    expect(carried.get('mode')).toBe('shared_studies');
    expect(carried.has('email')).toBe(false);
  });

  it('tells the sign-in page the address it was sent to, and only for a share link', () => {
    expect(sharedStudyInvite(link)).toEqual({ email: 'b@x.org' });
    expect(sharedStudyInvite('?mode=shared_studies&shareId=abc')).toEqual({ email: '' });
    expect(sharedStudyInvite('?mode=shared_studies&email=b%40x.org')).toBeNull();
    expect(sharedStudyInvite('?mode=direct_upload&shareId=abc&email=b%40x.org')).toBeNull();
    expect(handedEmail({ email: 'b@x.org' })).toBe('b@x.org');
    expect(handedEmail(null)).toBe('');
    expect(handedEmail({ email: 42 })).toBe('');
  });

  it('lands on Shared Studies without the link parameters', () => {
    expect(modeRedirect(link)).toBe('/studies?tab=shared_studies');
  });

  it('sends a transfer_ownership link to My Studies keeping newOwnerId', () => {
    expect(modeRedirect('?newOwnerId=u1&mode=transfer_ownership')).toBe('/studies?newOwnerId=u1&tab=studies');
  });
});
