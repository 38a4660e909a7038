import type { MailService } from '../mail';
import { studyProcessedEmail } from '../mail';
import { wantsNotificationEmail } from '../notifications';
import type { NewNotification } from '../studies';
import type { UsersRepository } from '../accounts';
import { DICOMDIR_READ } from './classify.stage';
import type { Summary } from './ingest-run';

/**
 * The email part of a processing notification. The in-app notification is written in the same
 * transaction that indexes the upload (or fails it), so it survives a crash; this email is queued
 * after that commit as a send-email job (retried by the queue), under the rule every notification
 * email follows (`wantsNotificationEmail`). It says only that processing ended: no study details.
 */
export async function notifyByEmail(
  deps: { users: Pick<UsersRepository, 'findById'>; mail: Pick<MailService, 'send'>; appUrl: string },
  ownerId: string,
  ok: boolean,
): Promise<void> {
  const owner = await deps.users.findById(ownerId);
  if (owner && wantsNotificationEmail(owner))
    await deps.mail.send(owner.email, studyProcessedEmail({ ok, appUrl: deps.appUrl }));
}

/**
 * The in-app notification of a processed upload. A shared upload (someone the owner invited sent
 * it) says so, since the owner did not upload it themselves.
 */
export function successNotification(
  ownerId: string,
  studyCount: number,
  summary: Summary,
  shared = false,
): NewNotification {
  if (shared)
    return {
      userId: ownerId,
      type: 'system',
      title: 'New study uploaded for you',
      description: `Someone you invited uploaded files for you. ${describeSuccess(studyCount, summary)}`,
    };
  return {
    userId: ownerId,
    type: 'system',
    title: studyCount === 1 ? 'Study processed' : 'Studies processed',
    description: describeSuccess(studyCount, summary),
  };
}

/** What a shared upload's row says about who sent it. */
interface SentUpload {
  ownerId: string;
  uploadType: 'regular' | 'shared';
  uploadedBy: string | null;
}

/** Who sent a shared upload, when that is someone other than its owner (the inviter). */
function sender(upload: SentUpload): string | null {
  return upload.uploadType === 'shared' && upload.uploadedBy && upload.uploadedBy !== upload.ownerId
    ? upload.uploadedBy
    : null;
}

/**
 * What the sender of a shared upload (someone who used an invite link) is told when it was processed
 * or could not be: they cannot see the inviter's studies, so this is where they learn the outcome.
 * Nothing of the images is named; none when the upload is not someone else's shared upload.
 */
export function senderNotification(
  upload: SentUpload,
  outcome: { ok: true; studyCount: number; images: number } | { ok: false; reason: string },
): NewNotification[] {
  const userId = sender(upload);
  if (!userId) return [];
  if (!outcome.ok)
    return [
      {
        userId,
        type: 'system',
        title: 'Your upload could not be delivered',
        description: `The files you sent through an invite link could not be processed: ${outcome.reason}`,
      },
    ];
  const { studyCount: n, images } = outcome;
  return [
    {
      userId,
      type: 'system',
      title: 'Your upload was delivered',
      description: `The files you sent through an invite link were processed: ${n} ${n === 1 ? 'study' : 'studies'} with ${images} ${images === 1 ? 'image' : 'images'} went to the account of the person who invited you. They have been notified; the studies are theirs, so they are not listed in yours.`,
    },
  ];
}

/** The in-app notification of an upload that could not be processed. */
export function failureNotification(ownerId: string, reason: string): NewNotification {
  return {
    userId: ownerId,
    type: 'system',
    title: /^(No DICOM images|The upload is empty)/.test(reason)
      ? 'No study found in your upload'
      : 'Upload could not be processed',
    description: reason,
  };
}

export function describeSuccess(studyCount: number, s: Summary): string {
  const images = s.instances + s.unchanged;
  let text = `Your upload has been processed: ${studyCount} ${studyCount === 1 ? 'study' : 'studies'} with ${images} ${images === 1 ? 'image' : 'images'} ${studyCount === 1 ? 'is' : 'are'} ready in My Studies.`;
  // A re-upload adds nothing: say so, rather than read as if new images arrived.
  if (s.unchanged > 0 && s.instances === 0)
    text += ` ${s.unchanged === 1 ? 'It was' : 'All of them were'} already there, so nothing new was added.`;
  else if (s.unchanged > 0)
    text += ` ${s.unchanged} of them ${s.unchanged === 1 ? 'was' : 'were'} already there.`;
  const skippedFiles = s.skipped - (s.skipReasons[DICOMDIR_READ] ?? 0);
  if (skippedFiles > 0) {
    const reasons = skipReasonsText(s.skipReasons, (r) => !r.startsWith('DICOMDIR'), s.skippedNames);
    text += ` ${skippedFiles} ${skippedFiles === 1 ? 'file was' : 'files were'} skipped (${reasons}).`;
  }
  return text;
}

/**
 * Why files were skipped, for the user: "39 files: duplicate instance in the upload — S/1.dcm, S/2.dcm,
 * S/3.dcm and 36 more; 1 file: not a DICOM file — README.TXT". A reason is a phrase about one file, so
 * the count goes before it, not into it; the names (the first few kept, see IngestRun.skip) after it.
 */
export function skipReasonsText(
  skipReasons: Record<string, number>,
  include: (reason: string) => boolean = () => true,
  names: Record<string, string[]> = {},
): string {
  return Object.entries(skipReasons)
    .filter(([r]) => include(r))
    .map(([r, n]) => `${n} ${n === 1 ? 'file' : 'files'}: ${r}${namesText(names[r], n)}`)
    .join('; ');
}

function namesText(names: string[] | undefined, count: number): string {
  if (!names?.length) return '';
  const more = count - names.length;
  return ` — ${names.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}
