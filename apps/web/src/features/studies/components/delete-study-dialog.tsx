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

/** Confirmation before a study and its files are removed for good. */
export function DeleteStudyDialog({
  study,
  onCancel,
  onConfirm,
}: {
  study: StudyListItem | null;
  onCancel: () => void;
  onConfirm: (study: StudyListItem) => void;
}) {
  return (
    <Dialog open={study !== null} onOpenChange={(open) => !open && onCancel()}>
      <DialogContent role="alertdialog">
        <DialogHeader>
          <DialogTitle>Delete Study</DialogTitle>
          <DialogDescription>
            Are you sure you want to delete{' '}
            <span className="font-medium text-foreground">
              {study?.metadata.studyDescription || 'this study'}
            </span>
            ? Its images are removed for good and this cannot be undone.
          </DialogDescription>
        </DialogHeader>
        <DialogFooter>
          <Button variant="outline" onClick={onCancel}>
            Cancel
          </Button>
          <Button variant="destructive" onClick={() => study && onConfirm(study)}>
            Delete
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
