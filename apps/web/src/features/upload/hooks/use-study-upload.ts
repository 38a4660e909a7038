import type { User } from '@mi/contracts/auth';
import { useQueryClient } from '@tanstack/react-query';
import CRC32 from 'crc-32';
import { useCallback, useEffect, useRef, useState } from 'react';
import { toast } from '@/hooks/use-toast';
import { errorMessage, isApiError } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { useProcessStudy } from '../api/process-study';
import { selectDicomMediaFiles } from '../utils/dicom-media';
import { archiveSources } from '../utils/store-zip';
import { uploadArchive, uploadErrorMessage } from '../utils/tus-upload';

/** The four ways to pick a study (the tiles of the Upload Medical Study page). */
export type UploadMethod = 'files' | 'folder' | 'zip' | 'cd';

/** One selected file: its name, size and the file itself. */
export interface SelectedFile {
  name: string;
  size: number;
  file: File;
}

/** Upload phases; 'idle' is the page before (or after a failed) upload. */
export type UploadPhase = 'idle' | 'archiving' | 'uploading' | 'done';

const GIB = 1024 ** 3;

function failure(title: string, description?: string): void {
  toast({ title, description, variant: 'destructive' });
}

function contentIdOfZip(file: File): string {
  return ['zip', file.size, file.lastModified, encodeURIComponent(file.name)].join(':');
}

/** A digest of the archive's central directory: names, sizes and CRCs of every entry. */
async function contentIdOfArchive(centralDirectory: Uint8Array<ArrayBuffer>, size: number): Promise<string> {
  if (crypto.subtle) {
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', centralDirectory));
    return `zip-sha256:${size}:${Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('')}`;
  }
  // Without a secure context there is no SubtleCrypto; size plus the bytes' own checksum will do.
  return `zip-crc32:${size}:${centralDirectory.length}:${(CRC32.buf(centralDirectory) >>> 0).toString(16)}`;
}

/** An upload on behalf of the user who shared an invite link: it goes to their account. */
export interface SharedUploadTarget {
  targetUserId: string;
  /** The invite link's token; the server checks it on upload and on processing. */
  invitation: string;
  inviterName: string;
  /** Room left in the inviter's storage (their quota is charged). */
  room: { remainingBytes: number; maxStorageGB: number } | null;
}

/**
 * Selection, checks (folder, DICOM media, empty selection, storage limit), in-browser archiving,
 * resumable upload and the processing request of one study upload.
 */
export function useStudyUpload(user: User, shared?: SharedUploadTarget) {
  const queryClient = useQueryClient();
  const processStudy = useProcessStudy();
  const [method, setMethod] = useState<UploadMethod | null>(null);
  const [files, setFiles] = useState<SelectedFile[]>([]);
  const [scanning, setScanning] = useState(false);
  const [phase, setPhase] = useState<UploadPhase>('idle');
  const [percent, setPercent] = useState(0);
  const [busy, setBusy] = useState(false);
  const abortRef = useRef<AbortController | null>(null);

  // Leaving the page stops the transfer; what arrived stays on the server for a later resume.
  useEffect(() => () => abortRef.current?.abort(), []);

  const clear = useCallback(() => {
    setFiles([]);
    setMethod(null);
  }, []);

  const removeFile = useCallback((file: File) => {
    setFiles((prev) => {
      const next = prev.filter((f) => f.file !== file);
      if (next.length === 0) setMethod(null);
      return next;
    });
  }, []);

  const select = useCallback(async (picked: UploadMethod, list: File[]) => {
    if (list.length === 0) return;
    let chosen = list;
    if (picked === 'folder' && list.some((f) => !f.webkitRelativePath)) {
      failure('Folder upload error', 'Please select a folder rather than individual files.');
      return;
    }
    if (picked === 'cd') {
      setScanning(true);
      try {
        chosen = await selectDicomMediaFiles(list);
      } catch {
        chosen = [];
      } finally {
        setScanning(false);
      }
      if (chosen.length === 0) {
        failure('No DICOM Files Found', 'Please select a CD/DVD containing DICOM files.');
        return;
      }
    }
    setMethod(picked);
    setFiles(chosen.map((file) => ({ name: file.name, size: file.size, file })));
  }, []);

  const start = useCallback(async () => {
    if (files.length === 0) {
      failure('No Files Selected');
      return;
    }
    if (!user.id) {
      failure('Authentication Error');
      return;
    }
    const selectionBytes = files.reduce((sum, f) => sum + f.size, 0);
    const { currentStorageGB, maxStorageGB } = user.uploadLimits;
    if (shared) {
      // A shared upload is charged to the inviter: their room counts, not the uploader's.
      if (shared.room && selectionBytes > shared.room.remainingBytes) {
        failure(
          'Storage Limit Exceeded',
          `Uploading these files would exceed the storage limit of ${shared.room.maxStorageGB} GB of ${shared.inviterName}.`,
        );
        return;
      }
    } else if (currentStorageGB + selectionBytes / GIB > maxStorageGB) {
      failure(
        'Storage Limit Exceeded',
        `Uploading these files would exceed your storage limit of ${maxStorageGB} GB.`,
      );
      return;
    }

    const controller = new AbortController();
    abortRef.current = controller;
    setBusy(true);
    setPercent(0);
    const report = (fraction: number) => setPercent(Math.min(100, Math.floor(fraction * 100)));
    try {
      let archive: Blob;
      let contentId: string;
      const single = files[0]!;
      if (method === 'zip' && files.length === 1) {
        // A ZIP the user already has goes up as it is (it starts directly in the uploading phase).
        archive = single.file;
        contentId = contentIdOfZip(single.file);
      } else {
        setPhase('archiving');
        const zip = await archiveSources(
          files.map((f) => ({ path: f.file.webkitRelativePath || f.name, file: f.file })),
          report,
          controller.signal,
        );
        archive = zip.blob;
        contentId = await contentIdOfArchive(zip.centralDirectory, zip.blob.size);
      }
      setPhase('uploading');
      setPercent(0);
      let objectName: string;
      try {
        objectName = await uploadArchive({
          file: archive,
          contentId,
          userId: user.id,
          onProgress: report,
          signal: controller.signal,
          ...(shared
            ? { extraMetadata: { targetUserId: shared.targetUserId, invitation: shared.invitation } }
            : {}),
        });
      } catch (err) {
        if (controller.signal.aborted) throw err;
        throw new Error(
          isApiError(err) ? errorMessage(err, 'Failed to start upload') : uploadErrorMessage(err),
        );
      }
      setPercent(100);
      try {
        await processStudy.mutateAsync({
          prefix: objectName,
          jobContext: shared
            ? { uploadType: 'shared', targetUserId: shared.targetUserId, invitation: shared.invitation }
            : { uploadType: 'regular' },
        });
      } catch (err) {
        throw new Error(errorMessage(err, 'Upload error'));
      }
      setPhase('done');
    } catch (err) {
      if (controller.signal.aborted) return;
      setPhase('idle');
      // A file changed or removed since it was picked cannot be read any more.
      const unreadable = err instanceof DOMException && err.name === 'NotReadableError';
      failure(
        'Upload Error',
        unreadable
          ? 'A selected file could not be read. Please select the files again.'
          : (err instanceof Error && err.message) || 'Upload error',
      );
    } finally {
      if (abortRef.current === controller) abortRef.current = null;
      setBusy(false);
    }
  }, [files, method, processStudy, user, shared]);

  /** Back To Studies resets the page and refreshes pending jobs and the studies list. */
  const finish = useCallback(() => {
    clear();
    setPhase('idle');
    setPercent(0);
    void queryClient.invalidateQueries({ queryKey: queryKeys.pendingJobs.all });
    void queryClient.invalidateQueries({ queryKey: queryKeys.userStudies.all });
  }, [clear, queryClient]);

  return { method, files, scanning, phase, percent, busy, select, removeFile, clear, start, finish };
}
