import { experienceBucket, type Provider } from '@mi/contracts/sharing';

/** The provider list filter: name or email contains the search, specialty, country and experience bucket. */
export interface ProviderFilter {
  search: string;
  /** 'all' or one specialty. */
  specialty: string;
  /** 'all' or one country. */
  country: string;
  /** 'all' or one of EXPERIENCE_BUCKETS. */
  experience: string;
}

export const EMPTY_PROVIDER_FILTER: ProviderFilter = {
  search: '',
  specialty: 'all',
  country: 'all',
  experience: 'all',
};

export function isFiltered(filter: ProviderFilter): boolean {
  return (
    filter.search.trim() !== '' ||
    filter.specialty !== 'all' ||
    filter.country !== 'all' ||
    filter.experience !== 'all'
  );
}

export function filterProviders(providers: readonly Provider[], filter: ProviderFilter): Provider[] {
  const needle = filter.search.trim().toLowerCase();
  return providers.filter(
    (p) =>
      (!needle ||
        p.name.toLowerCase().includes(needle) ||
        p.contactInformation.email.toLowerCase().includes(needle)) &&
      (filter.specialty === 'all' || p.specialty === filter.specialty) &&
      (filter.country === 'all' || p.location?.country === filter.country) &&
      (filter.experience === 'all' || experienceBucket(p.yearsOfExperience) === filter.experience),
  );
}

function distinct(values: Array<string | null | undefined>): string[] {
  return [...new Set(values.filter((v): v is string => Boolean(v)))].sort((a, b) => a.localeCompare(b));
}

export const distinctSpecialties = (providers: Provider[]) => distinct(providers.map((p) => p.specialty));
export const distinctCountries = (providers: Provider[]) =>
  distinct(providers.map((p) => p.location?.country));

/** 'Bristol, United Kingdom' (what the location has of city and country). */
export function placeOf(p: Provider): string {
  return [p.location?.city, p.location?.country].filter(Boolean).join(', ');
}

/** '12 years' / '1 year'; empty when unknown. */
export function experienceText(years: string | null): string {
  if (years == null || years === '') return '';
  return `${years} ${years === '1' ? 'year' : 'years'}`;
}

/** A website as a link target only when it is http(s): directory text is not trusted to be a safe URL. */
export function httpUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}
