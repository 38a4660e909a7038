import type { StudyListItem } from '@mi/contracts/studies';
import {
  DeidentifyPreviewDetails,
  deidentifySummary,
  useDeidentifyPreview,
} from '@/components/deidentify-preview';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';

export type DeidentifyMode = 'copy' | 'download';

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
  const title = target?.mode === 'download' ? 'Download de-identified' : 'Make a de-identified copy';
  return (
    <Dialog open={target !== null} onOpenChange={(open) => !open && onCancel()}>
      <DialogContent className="max-h-[90vh] overflow-y-auto sm:max-w-3xl">
        <DialogHeader>
          <DialogTitle>{title}</DialogTitle>
          <DialogDescription>{deidentifySummary(preview.data)}</DialogDescription>
        </DialogHeader>
        <DeidentifyPreviewDetails preview={preview} />
        <DialogFooter>
          <Button variant="outline" onClick={onCancel}>
            Cancel
          </Button>
          <Button
            disabled={!preview.data?.sample || busy}
            onClick={() => target && onConfirm(target.study, target.mode)}
          >
            {target?.mode === 'download' ? 'Download' : 'Make copy'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
