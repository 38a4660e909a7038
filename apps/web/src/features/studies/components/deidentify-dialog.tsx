import type { StudyListItem } from '@mi/contracts/studies';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { errorMessage } from '@/lib/api-client';
import { useDeidentifyPreview } from '../api/deidentify';

export type DeidentifyMode = 'copy' | 'download';

const KIND: Record<string, string> = {
  removed: 'Removed',
  emptied: 'Blank',
  replaced: 'Replaced',
  shifted: 'Date shifted',
  cleaned: 'Cleaned',
};

/**
 * What de-identification does to this study, shown before a copy or a download: each identifying
 * attribute of one instance now and after, and the instances that will be left out and why.
 */
export function DeidentifyDialog({
  target,
  onCancel,
  onConfirm,
  busy,
}: {
  target: { study: StudyListItem; mode: DeidentifyMode } | null;
  onCancel: () => void;
  onConfirm: (study: StudyListItem, mode: DeidentifyMode) => void;
  busy?: boolean;
}) {
  const preview = useDeidentifyPreview(target?.study.id ?? null);
  const data = preview.data;
  const title = target?.mode === 'download' ? 'Download de-identified' : 'Make a de-identified copy';
  return (
    <Dialog open={target !== null} onOpenChange={(open) => !open && onCancel()}>
      <DialogContent className="max-h-[90vh] overflow-y-auto sm:max-w-3xl">
        <DialogHeader>
          <DialogTitle>{title}</DialogTitle>
          <DialogDescription>
            {data
              ? `${data.profile} of ${data.edition}, with the ${data.options.join(' and ')} options. Names, IDs and other identifying details are removed or replaced; dates move by the same number of days in all your copies.`
              : 'Checking what de-identification changes in this study…'}
          </DialogDescription>
        </DialogHeader>
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
                {data.sample.changes.map((c) => (
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
        <DialogFooter>
          <Button variant="outline" onClick={onCancel}>
            Cancel
          </Button>
          <Button
            disabled={!data?.sample || busy}
            onClick={() => target && onConfirm(target.study, target.mode)}
          >
            {target?.mode === 'download' ? 'Download' : 'Make copy'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
