import { BadgeCheck, Bot, Building2, FlaskConical, Star } from 'lucide-react';
import { Fragment } from 'react';
import { Badge } from '@/components/ui/badge';
import { formatDate } from '@/lib/format';
import { cn } from '@/lib/utils';

/**
 * What tells a user how far to trust a directory entry, the same on every page that shows one:
 * its earned rating, the licence an admin verified, what kind of provider it is, and whether it is
 * demo data.
 */

/** '4.7/5 · 23 ratings', '5.0/5 · 1 rating', or 'No ratings yet'. */
export function ratingText(rating: number | null, count: number): string {
  if (rating === null || count <= 0) return 'No ratings yet';
  return `${rating.toFixed(1)}/5 · ${count} ${count === 1 ? 'rating' : 'ratings'}`;
}

/**
 * Orders by rating, best first; a provider without ratings comes after every rated one whichever
 * way the list is sorted (`dir` 'asc' puts the lowest rated first, still before the unrated).
 */
export function compareRatings(
  a: { rating: number | null; ratingCount: number },
  b: { rating: number | null; ratingCount: number },
  dir: 'asc' | 'desc' = 'desc',
): number {
  const ra = a.ratingCount > 0 ? a.rating : null;
  const rb = b.ratingCount > 0 ? b.rating : null;
  if (ra === null || rb === null) return ra === rb ? 0 : ra === null ? 1 : -1;
  const c = dir === 'desc' ? rb - ra : ra - rb;
  return c !== 0 ? c : b.ratingCount - a.ratingCount;
}

/** A provider's rating with its count, after a star ('No ratings yet' without one). */
export function RatingSummary({
  rating,
  count,
  className,
}: {
  rating: number | null;
  count: number;
  className?: string;
}) {
  const rated = rating !== null && count > 0;
  return (
    <span
      className={cn(
        'inline-flex items-center gap-1 whitespace-nowrap',
        !rated && 'text-muted-foreground',
        className,
      )}
    >
      <Star
        className={cn('size-3.5 shrink-0', rated ? 'fill-amber-400 text-amber-400' : 'text-muted-foreground')}
        aria-hidden="true"
      />
      {ratingText(rating, count)}
    </span>
  );
}

/** Read-only stars: 'n of 5 stars' to a screen reader. */
export function Stars({ value, className }: { value: number; className?: string }) {
  return (
    <span
      role="img"
      aria-label={`${value} of 5 stars`}
      className={cn('inline-flex items-center gap-0.5', className)}
    >
      {[1, 2, 3, 4, 5].map((n) => (
        <Star
          key={n}
          className={cn(
            'size-3.5',
            n <= value ? 'fill-amber-400 text-amber-400' : 'text-muted-foreground/50',
          )}
          aria-hidden="true"
        />
      ))}
    </span>
  );
}

/** The parts of the Verified badge: 'Verified', 'licensed in CA', 'since Mar 12, 2026'. */
function verifiedParts(verified: { licenseState: string; verifiedAt: string }): string[] {
  const since = formatDate(verified.verifiedAt);
  return ['Verified', `licensed in ${verified.licenseState}`, since && `since ${since}`].filter(
    (part): part is string => Boolean(part),
  );
}

/** 'Verified · licensed in CA · since Mar 12, 2026': the licence an admin checked, and when. */
export function verifiedText(verified: { licenseState: string; verifiedAt: string }): string {
  return verifiedParts(verified).join(' · ');
}

/** The Verified badge; on a narrow screen it breaks between its parts, never inside one. */
export function VerifiedBadge({
  verified,
  className,
}: {
  verified: { licenseState: string; verifiedAt: string };
  className?: string;
}) {
  const parts = verifiedParts(verified);
  return (
    <Badge
      variant="outline"
      className={cn('gap-1 rounded-md border-emerald-300 bg-emerald-50 text-emerald-800', className)}
      title="An administrator checked this professional's medical licence."
    >
      <BadgeCheck className="size-3.5 shrink-0" aria-hidden="true" />
      <span>
        {parts.map((part, i) => (
          <Fragment key={part}>
            {i > 0 && ' · '}
            <span className="whitespace-nowrap">{part}</span>
          </Fragment>
        ))}
      </span>
    </Badge>
  );
}

export type ProviderKind = 'professional' | 'organisation' | 'automated' | 'contact';

/** 'Organisation', 'Automated analysis', 'Professional' or 'Private contact'. */
export function providerKindLabel(kind: ProviderKind): string {
  switch (kind) {
    case 'organisation':
      return 'Organisation';
    case 'automated':
      return 'Automated analysis';
    case 'professional':
      return 'Professional';
    case 'contact':
      return 'Private contact';
  }
}

/** The specialty worth a badge of its own: none when it only repeats the kind ('Automated analysis'). */
export function specialtyLabel(p: { specialty: string | null; kind: ProviderKind }): string | null {
  if (!p.specialty) return null;
  return p.specialty.trim().toLowerCase() === providerKindLabel(p.kind).toLowerCase() ? null : p.specialty;
}

/**
 * The kind of an organisation or of the platform's automated analysis; nothing for a professional
 * (their Verified badge says it) or a private contact unless `all`.
 */
export function ProviderKindBadge({
  kind,
  all = false,
  className,
}: {
  kind: ProviderKind;
  all?: boolean;
  className?: string;
}) {
  if (!all && (kind === 'professional' || kind === 'contact')) return null;
  const Icon = kind === 'automated' ? Bot : Building2;
  return (
    <Badge variant="secondary" className={cn('gap-1 whitespace-nowrap', className)}>
      {kind !== 'professional' && kind !== 'contact' && (
        <Icon className="size-3.5 shrink-0" aria-hidden="true" />
      )}
      {providerKindLabel(kind)}
    </Badge>
  );
}

/** Marks an entry seeded by `npm run demo`: not a real provider, order or account. */
export function DemoBadge({ className }: { className?: string }) {
  return (
    <Badge
      variant="outline"
      className={cn('gap-1 whitespace-nowrap border-amber-300 bg-amber-50 text-amber-900', className)}
      title="Demo data: not a real provider"
    >
      <FlaskConical className="size-3 shrink-0" aria-hidden="true" />
      Demo
    </Badge>
  );
}

/** The trust badges of a directory entry, in one order everywhere. */
export function ProviderBadges({
  provider: p,
  className,
}: {
  provider: {
    kind: ProviderKind;
    demo: boolean;
    verified?: { licenseState: string; verifiedAt: string } | null;
  };
  className?: string;
}) {
  if (!p.verified && !p.demo && (p.kind === 'professional' || p.kind === 'contact')) return null;
  return (
    <span className={cn('inline-flex flex-wrap items-center gap-1', className)}>
      {p.verified && <VerifiedBadge verified={p.verified} />}
      <ProviderKindBadge kind={p.kind} />
      {p.demo && <DemoBadge />}
    </span>
  );
}
