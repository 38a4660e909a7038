// @vitest-environment jsdom
import type { ProfessionalProfile } from '@mi/contracts/directory';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProfileForm } from '../src/features/professional-profile/components/profile-form';
import { missingSentence } from '../src/features/professional-profile/utils/profile-form';

function profile(over: Partial<ProfessionalProfile> = {}): ProfessionalProfile {
  return {
    providerId: 'p1',
    name: 'Meredith Grey',
    specialty: 'Radiology',
    hospital: 'Grey Sloan Memorial',
    position: 'Attending',
    licenseState: 'WA',
    verifiedAt: '2026-03-12T09:00:00.000Z',
    description: '',
    yearsOfExperience: '',
    credentials: [],
    workingHours: { weekdays: '', weekends: '' },
    location: { street: '', city: '', state: '', zipCode: '', country: '' },
    contact: { email: '', mobile: '', website: '' },
    publishedAt: null,
    offersPausedAt: null,
    missing: ['a description', 'years of experience', 'a city and country'],
    rating: null,
    ratingCount: 0,
    ...over,
  };
}

afterEach(cleanup);

describe('Directory profile form', () => {
  it("checks the fields with the server's rules before sending anything", async () => {
    const user = userEvent.setup();
    const onSave = vi.fn().mockResolvedValue(undefined);
    render(<ProfileForm profile={profile()} saving={false} onSave={onSave} />);

    await user.type(screen.getByLabelText('Years of experience'), 'twelve');
    await user.type(screen.getByLabelText('Contact email'), 'not-an-email');
    await user.type(screen.getByLabelText('Website'), 'javascript:alert(1)');
    await user.click(screen.getByRole('button', { name: 'Add credential' }));
    await user.click(screen.getByRole('button', { name: 'Save profile' }));

    expect(await screen.findByText('Years of experience must be a whole number from 0 to 99')).toBeTruthy();
    expect(screen.getByText('City is required')).toBeTruthy();
    expect(screen.getByText('Country is required')).toBeTruthy();
    expect(screen.getByText('Please enter a valid email address')).toBeTruthy();
    expect(screen.getByText('Website must start with http:// or https://')).toBeTruthy();
    expect(screen.getByText('Enter the credential or remove it')).toBeTruthy();
    expect(screen.getByLabelText('City').getAttribute('aria-invalid')).toBe('true');
    expect(onSave).not.toHaveBeenCalled();
  });

  it('refuses a description over 2000 characters', async () => {
    const user = userEvent.setup();
    const onSave = vi.fn().mockResolvedValue(undefined);
    render(
      <ProfileForm
        profile={profile({
          description: 'x'.repeat(2001),
          location: { street: '', city: 'Seattle', state: 'WA', zipCode: '', country: 'United States' },
        })}
        saving={false}
        onSave={onSave}
      />,
    );
    await user.click(screen.getByRole('button', { name: 'Save profile' }));
    expect(await screen.findByText('At most 2000 characters')).toBeTruthy();
    expect(onSave).not.toHaveBeenCalled();
  });

  it('sends the profile with its credentials as a list, trimmed', async () => {
    const user = userEvent.setup();
    const onSave = vi.fn().mockResolvedValue(undefined);
    render(
      <ProfileForm profile={profile({ credentials: ['Board Certified'] })} saving={false} onSave={onSave} />,
    );

    await user.type(screen.getByLabelText('Description'), 'Musculoskeletal MRI and CT.');
    await user.type(screen.getByLabelText('Years of experience'), '12');
    await user.click(screen.getByRole('button', { name: 'Add credential' }));
    await user.type(screen.getByLabelText('Credential 2'), '  FRCR  ');
    await user.type(screen.getByLabelText('Weekdays'), '9:00-17:00');
    await user.type(screen.getByLabelText('City'), 'Seattle');
    await user.type(screen.getByLabelText('Country'), 'United States');
    await user.type(screen.getByLabelText('Website'), 'https://grey.example');
    await user.click(screen.getByRole('button', { name: 'Save profile' }));

    await waitFor(() => expect(onSave).toHaveBeenCalledTimes(1));
    expect(onSave.mock.calls[0]![0]).toEqual({
      description: 'Musculoskeletal MRI and CT.',
      yearsOfExperience: '12',
      credentials: ['Board Certified', 'FRCR'],
      workingHours: { weekdays: '9:00-17:00', weekends: '' },
      location: { street: '', city: 'Seattle', state: '', zipCode: '', country: 'United States' },
      contact: { email: '', mobile: '', website: 'https://grey.example' },
    });
  });

  it('removes a credential row', async () => {
    const user = userEvent.setup();
    const onSave = vi.fn().mockResolvedValue(undefined);
    render(
      <ProfileForm
        profile={profile({
          credentials: ['Board Certified', 'FRCR'],
          description: 'Reads CT.',
          yearsOfExperience: '3',
          location: { street: '', city: 'Seattle', state: '', zipCode: '', country: 'United States' },
        })}
        saving={false}
        onSave={onSave}
      />,
    );
    const list = screen.getByRole('list', { name: 'Credentials' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(2);
    await user.click(screen.getByRole('button', { name: 'Remove credential number 1' }));
    await user.click(screen.getByRole('button', { name: 'Save profile' }));
    await waitFor(() => expect(onSave).toHaveBeenCalledTimes(1));
    expect(onSave.mock.calls[0]![0].credentials).toEqual(['FRCR']);
  });
});

describe('What is missing before publishing', () => {
  it('reads as one sentence', () => {
    expect(missingSentence(['a description', 'years of experience', 'a city and country'])).toBe(
      'Before publishing, add a description, years of experience and a city and country.',
    );
    expect(missingSentence(['a description'])).toBe('Before publishing, add a description.');
    expect(missingSentence([])).toBe('');
  });
});
