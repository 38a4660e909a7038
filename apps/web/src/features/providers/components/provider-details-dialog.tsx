import type { Provider } from '@mi/contracts/sharing';
import { Award, BookOpen, Clock, Globe, Mail, MapPin, Phone, Star } from 'lucide-react';
import type { ReactNode } from 'react';
import { Badge } from '@/components/ui/badge';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog';
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
            <div className="flex flex-wrap items-center gap-2">
              <span className="text-lg font-semibold [overflow-wrap:anywhere]">{p.name}</span>
              {p.specialty && <Badge variant="secondary">{p.specialty}</Badge>}
              {p.onPlatform && <Badge>On the platform</Badge>}
            </div>
            {p.description && <p className="text-sm text-muted-foreground">{p.description}</p>}
            <dl className="grid grid-cols-2 gap-3 rounded-md border p-3 text-sm sm:grid-cols-3">
              <div>
                <dt className="text-muted-foreground">Experience</dt>
                <dd>{experienceText(p.yearsOfExperience) || 'N/A'}</dd>
              </div>
              <div>
                <dt className="text-muted-foreground">Rating</dt>
                <dd className="flex items-center gap-1">
                  <Star className="size-4 fill-amber-400 text-amber-400" aria-hidden="true" />
                  {p.rating === null ? 'N/A' : `${p.rating.toFixed(1)} / 5`}
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
                  <a
                    className="underline-offset-2 hover:underline"
                    href={`mailto:${p.contactInformation.email}`}
                  >
                    {p.contactInformation.email}
                  </a>
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
          </div>
        )}
      </DialogContent>
    </Dialog>
  );
}
