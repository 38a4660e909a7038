/** An action of PS3.15 Table E.1-1 (E.1.1): a single code, or a choice the IOD's Type settles. */
export type ProfileAction = 'D' | 'Z' | 'X' | 'K' | 'C' | 'U' | 'Z/D' | 'X/Z' | 'X/D' | 'X/Z/D' | 'X/Z/U*';

/** The option columns of Table E.1-1. */
export type ProfileOption =
  | 'retainSafePrivate'
  | 'retainUids'
  | 'retainDeviceIdentity'
  | 'retainInstitutionIdentity'
  | 'retainPatientCharacteristics'
  | 'retainLongitudinalFullDates'
  | 'retainLongitudinalModifiedDates'
  | 'cleanDescriptors'
  | 'cleanStructuredContent'
  | 'cleanGraphics';

export interface ProfileRow {
  /** `GGGGEEEE`; a lower-case `x` matches any hex digit; `private` stands for every odd group. */
  tag: string;
  name: string;
  basic: ProfileAction;
  options: Partial<Record<ProfileOption, ProfileAction>>;
}
