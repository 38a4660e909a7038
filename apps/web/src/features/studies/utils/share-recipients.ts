import { EMAIL_PATTERN, normalizeEmail } from '@mi/contracts/rules';
import type { CreateShareBody, Provider, Share } from '@mi/contracts/sharing';

/**
 * The Share Study dialog's rules (share-study-dialog.tsx): which providers it suggests, what Enter
 * adds, which hint it shows and the calls a submission makes. Kept pure so they are tested alone.
 */

/** A chip of the dialog: a provider of the user's network, or a typed email address. */
export type Recipient = { kind: 'provider'; provider: Provider } | { kind: 'email'; email: string };

export const ALL_PROVIDERS_HEADING = 'All your providers:';
export const FILTERED_HEADING = 'Filtered suggestions:';
export const HINT_START = 'Start typing to see provider suggestions or enter any email address to add';
export const HINT_CONTINUE = 'Continue typing to add more providers or email addresses';
export const HINT_NO_MATCH = 'No providers found. Enter a valid email address to add it.';

export function isValidEmail(text: string): boolean {
  return EMAIL_PATTERN.test(text.trim());
}

export function providerEmail(provider: Provider): string {
  return provider.contactInformation.email;
}

/** The address a recipient's share goes to (what the success toast names). */
export function recipientEmail(recipient: Recipient): string {
  return recipient.kind === 'provider' ? providerEmail(recipient.provider) : recipient.email.trim();
}

export function recipientKey(recipient: Recipient): string {
  return recipient.kind === 'provider'
    ? `provider:${recipient.provider.id}`
    : `email:${normalizeEmail(recipient.email)}`;
}

/** The address a share went to: the recipient's account email once it reached one. */
export function shareEmail(share: Share): string {
  return share.email || share.targetUser?.email || '';
}

/** Lower-cased addresses the study is already shared with. */
export function sharedEmails(shares: readonly Share[]): Set<string> {
  const set = new Set<string>();
  for (const share of shares) {
    if (share.email) set.add(normalizeEmail(share.email));
    if (share.targetUser?.email) set.add(normalizeEmail(share.targetUser.email));
  }
  return set;
}

/** Providers whose name, email or specialty contains the typed text (any case); all when empty. */
export function filterProviders(providers: readonly Provider[], query: string): Provider[] {
  const needle = query.trim().toLowerCase();
  if (!needle) return [...providers];
  return providers.filter((p) =>
    [p.name, providerEmail(p), p.specialty].some((value) => value?.toLowerCase().includes(needle)),
  );
}

export function suggestionHeading(query: string): string {
  return query.trim() ? FILTERED_HEADING : ALL_PROVIDERS_HEADING;
}

/** A provider already chosen as a chip, or whose address already has the study, cannot be chosen again. */
export function isProviderDisabled(
  provider: Provider,
  selected: readonly Recipient[],
  shared: ReadonlySet<string>,
): boolean {
  if (selected.some((r) => r.kind === 'provider' && r.provider.id === provider.id)) return true;
  return shared.has(normalizeEmail(providerEmail(provider)));
}

/** Why a typed address cannot become a chip, or null when it can. */
export function emailRejection(
  text: string,
  selected: readonly Recipient[],
  shared: ReadonlySet<string>,
): 'invalid' | 'selected' | 'shared' | null {
  if (!isValidEmail(text)) return 'invalid';
  const email = normalizeEmail(text);
  // Already a chip, as an address or as a provider's address.
  if (selected.some((r) => normalizeEmail(recipientEmail(r)) === email)) return 'selected';
  if (shared.has(email)) return 'shared';
  return null;
}

/** Enter adds a valid address to the chips unless it is already selected, a provider chip, or already shared. */
export function addTypedEmail(
  text: string,
  selected: readonly Recipient[],
  shared: ReadonlySet<string>,
): Recipient[] | null {
  if (emailRejection(text, selected, shared)) return null;
  return [...selected, { kind: 'email', email: text.trim() }];
}

/** Adds a provider chip (ignored when the provider cannot be chosen). */
export function addProvider(
  provider: Provider,
  selected: readonly Recipient[],
  shared: ReadonlySet<string>,
): Recipient[] | null {
  if (isProviderDisabled(provider, selected, shared)) return null;
  return [...selected, { kind: 'provider', provider }];
}

/** The hint under the field: before anything is typed, after a chip, or when nothing matches. */
export function shareHint(query: string, selected: readonly Recipient[], matches: number): string | null {
  if (!query.trim()) return selected.length ? HINT_CONTINUE : HINT_START;
  if (matches === 0 && !isValidEmail(query)) return HINT_NO_MATCH;
  return null;
}

/**
 * Everything a submission shares with: the chips, plus the typed address when it is valid and new.
 * Share Study is enabled exactly when this is not empty.
 */
export function submissionRecipients(
  text: string,
  selected: readonly Recipient[],
  shared: ReadonlySet<string>,
): Recipient[] {
  return addTypedEmail(text, selected, shared) ?? [...selected];
}

/** One POST /api/users/shares body per recipient: providers by id, addresses added to the network. */
export function shareBody(studyId: string, recipient: Recipient): CreateShareBody {
  return recipient.kind === 'provider'
    ? { providerId: recipient.provider.id, studyId }
    : { email: recipient.email.trim(), studyId, addProvider: true };
}

/** The 'Study Shared' toast's text: 'You invited a@x.org, b@y.org to view your study'. */
export function sharedDescription(emails: readonly string[]): string {
  return `You invited ${emails.join(', ')} to view your study`;
}
