import type { DeidentifyPreview } from '@mi/contracts/deidentify';
import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { Checkbox } from '@/components/ui/checkbox';
import { Label } from '@/components/ui/label';
import { api, errorMessage } from '@/lib/api-client';

/** GET /api/studies/{id}/deidentify/preview: one instance before and after, and what stays out. */
export function useDeidentifyPreview(studyId: string | null) {
  return useQuery({
    queryKey: ['deidentify-preview', studyId],
    queryFn: () =>
      api.get<DeidentifyPreview>(`/api/studies/${encodeURIComponent(studyId ?? '')}/deidentify/preview`),
    enabled: studyId !== null,
    staleTime: 0,
  });
}

const KIND: Record<string, string> = {
  removed: 'Removed',
  emptied: 'Blank',
  replaced: 'Replaced',
  shifted: 'Date shifted',
  cleaned: 'Cleaned',
};

/** The patient's own attributes first, then the rest, the long replaced UIDs last. */
function rank(c: { tag: string; name: string }): number {
  if (c.tag.startsWith('(0010,')) return 0;
  return / UID$/.test(c.name) ? 2 : 1;
}

/** One sentence on what de-identification is, for dialogs that offer it. */
export function deidentifySummary(data: DeidentifyPreview | undefined): string {
  return data
    ? `${data.profile} of ${data.edition}, with the ${data.options.join(' and ')} options. Names, IDs and other identifying details are removed or replaced; dates move by the same number of days in all your copies.`
    : 'Checking what de-identification changes in this study…';
}

/**
 * What de-identification does to a study, shown before its first use (a copy, a download, a
 * de-identified share or link): each identifying attribute of one instance now and after, and the
 * instances that will be left out and why.
 */
export function DeidentifyPreviewDetails({ preview }: { preview: ReturnType<typeof useDeidentifyPreview> }) {
  const data = preview.data;
  return (
    <>
      {preview.isError && (
        <p role="alert" className="text-sm text-destructive">
          {errorMessage(preview.error, 'The preview could not be made.')}
        </p>
      )}
      {data?.sample && (
        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Identifying attributes of one image, now and after</caption>
            <thead>
              <tr className="border-b">
                <th scope="col" className="py-1 pr-2">
                  Attribute
                </th>
                <th scope="col" className="py-1 pr-2">
                  Now
                </th>
                <th scope="col" className="py-1">
                  After
                </th>
              </tr>
            </thead>
            <tbody>
              {[...data.sample.changes]
                .sort((a, b) => rank(a) - rank(b))
                .map((c) => (
                  <tr key={c.path} className="border-b align-top">
                    <td className="py-1 pr-2">
                      {c.name || c.tag} <span className="text-muted-foreground">{c.tag}</span>
                    </td>
                    <td className="py-1 pr-2 [overflow-wrap:anywhere]">{c.before ?? '—'}</td>
                    <td className="py-1 [overflow-wrap:anywhere]">
                      <span className="text-muted-foreground">{KIND[c.kind] ?? c.kind}</span>
                      {c.after ? `: ${c.after}` : ''}
                    </td>
                  </tr>
                ))}
            </tbody>
          </table>
          <p className="mt-2 text-sm text-muted-foreground">
            Also {data.sample.nestedChanges} change(s) inside sequences and {data.sample.privateRemoved}{' '}
            private attribute(s) removed.
          </p>
        </div>
      )}
      {data && (
        <section aria-label="Left out">
          <h3 className="text-sm font-medium">
            Left out: {data.leftOut.length} of {data.instanceCount} image(s)
          </h3>
          {data.leftOut.length > 0 && (
            <ul className="mt-1 list-disc pl-5 text-sm">
              {data.leftOut.map((l, i) => (
                <li key={`${l.sopInstanceUid ?? i}`}>
                  {l.modality ?? 'Image'}: {l.reason}
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </>
  );
}

/**
 * 'Share a de-identified copy' in the Share Study and 'Share by link / QR' dialogs: the choice, and
 * once chosen, the preview of what it changes (of the first study when there are several).
 */
export function DeidentifiedOption({
  studyId,
  several,
  label,
  checked,
  disabled,
  onCheckedChange,
}: {
  studyId: string;
  several?: boolean;
  label: string;
  checked: boolean;
  disabled?: boolean;
  onCheckedChange: (checked: boolean) => void;
}) {
  const id = useId();
  const preview = useDeidentifyPreview(checked ? studyId : null);
  return (
    <div className="grid gap-2">
      <div className="flex items-start gap-3">
        <Checkbox
          id={`${id}-deidentified`}
          checked={checked}
          disabled={disabled}
          onCheckedChange={(next) => onCheckedChange(next === true)}
          aria-describedby={`${id}-deidentified-hint`}
          className="mt-0.5"
        />
        <div className="grid gap-0.5">
          <Label htmlFor={`${id}-deidentified`}>{label}</Label>
          <p id={`${id}-deidentified-hint`} className="text-xs text-muted-foreground">
            A copy without your name, birth date, record numbers or other identifying details (DICOM PS3.15),
            dates shifted; images that may show burned-in text stay out. It is made first, then kept in My
            Studies and reused.
          </p>
        </div>
      </div>
      {checked && (
        <details open className="rounded-md border p-2.5 text-sm">
          <summary className="cursor-pointer font-medium">
            What changes{several ? ' (the first study)' : ''}
          </summary>
          {/* Scrolls when the list is long: focusable, so it can be scrolled from the keyboard. */}
          <div
            role="region"
            aria-label="What changes"
            tabIndex={0}
            className="mt-2 grid max-h-64 gap-2 overflow-y-auto"
          >
            <p className="text-xs text-muted-foreground">{deidentifySummary(preview.data)}</p>
            <DeidentifyPreviewDetails preview={preview} />
          </div>
        </details>
      )}
    </div>
  );
}
