import type { Provider } from '@mi/contracts/sharing';
import { Award, BookOpen, Clock, Globe, Mail, MapPin, MessageSquare, Phone, Star } from 'lucide-react';
import type { ReactNode } from 'react';
import { ProviderBadges, RatingSummary, specialtyLabel, Stars } from '@/components/provider-trust';
import { Badge } from '@/components/ui/badge';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { formatDate } from '@/lib/format';
import { useProviderRatings } from '../api/get-provider-ratings';
import { experienceText, httpUrl } from '../utils/provider-filter';

function Section({ icon: Icon, title, children }: { icon: typeof Star; title: string; children: ReactNode }) {
  return (
    <section className="grid gap-1">
      <h3 className="flex items-center gap-2 text-sm font-medium">
        <Icon className="size-4 text-muted-foreground" aria-hidden="true" /> {title}
      </h3>
      <div className="pl-6 text-sm [overflow-wrap:anywhere]">{children}</div>
    </section>
  );
}

const orNA = (v: string | number | null | undefined) =>
  v === null || v === undefined || v === '' ? 'N/A' : v;

/** What patients said: each rating's stars, the service it was for, when, and its comment. */
function RatingsSection({ providerId }: { providerId: string }) {
  const ratings = useProviderRatings(providerId);
  let body: ReactNode;
  if (ratings.isPending) body = <Spinner className="size-4" label="Loading ratings" />;
  else if (ratings.isError)
    body = (
      <p className="text-destructive">{errorMessage(ratings.error, 'The ratings could not be loaded.')}</p>
    );
  else if (ratings.data.data.length === 0) body = <p className="text-muted-foreground">No ratings yet</p>;
  else
    body = (
      <ul className="grid gap-2" aria-label="Ratings">
        {ratings.data.data.map((r, i) => (
          <li key={`${r.createdAt}-${i}`} className="grid gap-1 rounded-md border p-2">
            <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-muted-foreground">
              <Stars value={r.stars} />
              <span>{r.serviceName}</span>
              <span>{formatDate(r.createdAt)}</span>
            </div>
            {r.comment && <p className="whitespace-pre-line text-sm [overflow-wrap:anywhere]">{r.comment}</p>}
          </li>
        ))}
      </ul>
    );
  return (
    <Section icon={MessageSquare} title="Ratings and comments">
      {ratings.data && ratings.data.ratingCount > 0 && (
        <p className="mb-2">
          <RatingSummary rating={ratings.data.rating} count={ratings.data.ratingCount} />
        </p>
      )}
      {body}
    </Section>
  );
}

/** Provider Details: every field of a provider, grouped. */
export function ProviderDetailsDialog({
  provider,
  onClose,
}: {
  provider: Provider | null;
  onClose: () => void;
}) {
  const p = provider;
  const website = p?.contactInformation.website ? httpUrl(p.contactInformation.website) : null;
  const address = p?.location
    ? [
        p.location.street,
        p.location.city,
        [p.location.state, p.location.zipCode].filter(Boolean).join(' '),
        p.location.country,
      ]
        .filter(Boolean)
        .join(', ')
    : '';
  return (
    <Dialog open={p !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent className="max-w-2xl">
        <DialogHeader>
          <DialogTitle>Provider Details</DialogTitle>
          <DialogDescription>{p?.name}</DialogDescription>
        </DialogHeader>
        {p && (
          <div className="grid gap-4">
            <div className="grid gap-1.5">
              <div className="flex flex-wrap items-center gap-2">
                <span className="text-lg font-semibold [overflow-wrap:anywhere]">{p.name}</span>
                {specialtyLabel(p) && <Badge variant="secondary">{specialtyLabel(p)}</Badge>}
                {p.onPlatform && <Badge>On the platform</Badge>}
              </div>
              <ProviderBadges provider={p} />
              {(p.position || p.hospital) && (
                <p className="text-sm [overflow-wrap:anywhere]">
                  {[p.position, p.hospital].filter(Boolean).join(' · ')}
                </p>
              )}
            </div>
            {p.description && (
              <p className="whitespace-pre-line text-sm text-muted-foreground [overflow-wrap:anywhere]">
                {p.description}
              </p>
            )}
            <dl className="grid grid-cols-2 gap-3 rounded-md border p-3 text-sm sm:grid-cols-3">
              <div>
                <dt className="text-muted-foreground">Experience</dt>
                <dd>{experienceText(p.yearsOfExperience) || 'N/A'}</dd>
              </div>
              <div>
                <dt className="text-muted-foreground">Rating</dt>
                <dd>
                  <RatingSummary rating={p.rating} count={p.ratingCount} />
                </dd>
              </div>
              <div className="col-span-2 sm:col-span-1">
                <dt className="text-muted-foreground">Specialty</dt>
                <dd>{orNA(p.specialty)}</dd>
              </div>
            </dl>
            <div className="grid gap-4 sm:grid-cols-2">
              <Section icon={Award} title="Credentials">
                {p.credentials.length ? (
                  <ul className="flex flex-wrap gap-1">
                    {p.credentials.map((c) => (
                      <li key={c}>
                        <Badge variant="outline">{c}</Badge>
                      </li>
                    ))}
                  </ul>
                ) : (
                  'N/A'
                )}
              </Section>
              <Section icon={BookOpen} title="Academic Profile">
                {p.academicProfile ? (
                  <>
                    <p>{orNA(p.academicProfile.rank)}</p>
                    <p className="text-muted-foreground">
                      {p.academicProfile.numberOfPublications} publications
                    </p>
                  </>
                ) : (
                  'N/A'
                )}
              </Section>
              <Section icon={MapPin} title="Location">
                {address || 'N/A'}
              </Section>
              <Section icon={Clock} title="Working Hours">
                {p.workingHours ? (
                  <dl className="grid grid-cols-[auto_1fr] gap-x-2">
                    <dt className="text-muted-foreground">Weekdays</dt>
                    <dd>{orNA(p.workingHours.weekdays)}</dd>
                    <dt className="text-muted-foreground">Weekends</dt>
                    <dd>{orNA(p.workingHours.weekends)}</dd>
                  </dl>
                ) : (
                  'N/A'
                )}
              </Section>
            </div>
            <Section icon={Mail} title="Contact Information">
              <ul className="grid gap-1">
                <li className="flex items-center gap-2">
                  <Mail className="size-3.5 shrink-0 text-muted-foreground" aria-hidden="true" />
                  {p.contactInformation.email ? (
                    <a
                      className="underline-offset-2 hover:underline"
                      href={`mailto:${p.contactInformation.email}`}
                    >
                      {p.contactInformation.email}
                    </a>
                  ) : (
                    'N/A'
                  )}
                </li>
                <li className="flex items-center gap-2">
                  <Phone className="size-3.5 shrink-0 text-muted-foreground" aria-hidden="true" />
                  {orNA(p.contactInformation.mobile)}
                </li>
                <li className="flex items-center gap-2">
                  <Globe className="size-3.5 shrink-0 text-muted-foreground" aria-hidden="true" />
                  {website ? (
                    <a
                      className="underline-offset-2 hover:underline"
                      href={website}
                      target="_blank"
                      rel="noopener noreferrer"
                    >
                      {p.contactInformation.website}
                    </a>
                  ) : (
                    orNA(p.contactInformation.website)
                  )}
                </li>
              </ul>
            </Section>
            {p.kind !== 'contact' && <RatingsSection providerId={p.id} />}
          </div>
        )}
      </DialogContent>
    </Dialog>
  );
}
