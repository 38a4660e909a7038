import type { StorageToken } from '@mi/contracts/studies';
import type { Locker } from '@tus/utils';
import { AppError } from '../../http/app-error';
import type { AuditRecorder } from '../audit';
import type { AuthenticatedSession, AuthService } from '../auth';
import type { RequestMeta } from '../../http/request-meta';
import type { InvitationsService } from '../invitations';
import { defaultQuotaBytes, exceedsQuota, quotaGB, quotaOf } from '../accounts';
import type { UsersRepository } from '../accounts';
import type { UploadArea, UploadWriteObserver } from './upload-area';
import { OBJECT_NAME, UPLOAD_PATH } from './upload-paths';
import type { UploadTokens } from './upload-token';

interface Deps {
  tokens: UploadTokens;
  auth: Pick<AuthService, 'authenticate' | 'isSessionUnrevoked'>;
  users: Pick<UsersRepository, 'findById'>;
  uploadArea: UploadArea;
  audit: AuditRecorder;
  /** Reads file uploads while they arrive (local upload area only). */
  /** Reads file uploads while they arrive (modules/ingest/archive-prescan.ts). */
  prescan?: UploadWriteObserver & {
    forget(uploadId: string): void;
    finished(uploadId: string, size: number): void;
  };
  defaultMaxStorageGB: number;
  /** The rule for uploads on behalf of an inviter (their quota is charged). */
  invitations: Pick<InvitationsService, 'requireSharedUpload'>;
  /** One request at a time per upload, across every API node (upload-locker.ts). */
  locker: Locker;
}

/** One request to the upload endpoint, as far as the upload rules need it. */
export type UploadRequest = {
  /** The upload credential from the storage token route (`Authorization: Bearer …`). */
  credential: string | undefined;
  /** The app's sign-in token, when the browser sent its session cookie along. */
  sessionToken: string | undefined;
} & (
  | {
      method: 'POST';
      /** The client asked to say the length later (Upload-Defer-Length). */
      deferLength: boolean;
      /**
       * Upload-Metadata; `objectName` names the object to create. A shared upload also names the
       * inviter (`targetUserId`) and carries the invitation token (`invitation`).
       */
      metadata: Record<string, string>;
      /** Upload-Length (NaN when missing). */
      length: number;
    }
  | {
      /** HEAD, PATCH or DELETE of an existing upload. */
      method: string;
      /** The upload addressed, from the URL (undefined when the URL names none). */
      uploadId: string | undefined;
    }
);

const EXPIRED = 'The upload credential is missing, invalid or expired. Please start the upload again.';

/** The upload area, the default storage limit, and refusals recorded. */
function createUploadsTools(deps: Deps) {
  const { tokens, uploadArea } = deps;
  const defaultMaxBytes = defaultQuotaBytes(deps.defaultMaxStorageGB);

  async function deny(userId: string | null, method: string, reason: string, meta: RequestMeta) {
    await deps.audit({
      actorId: userId,
      action: 'upload.write',
      outcome: 'denied',
      requestId: meta.requestId,
      ip: meta.ip,
      details: { reason, method },
    });
  }

  return { tokens, uploadArea, defaultMaxBytes, deny };
}
type UploadsTools = ReturnType<typeof createUploadsTools>;

/** Where uploads go, the credentials the browser's uploader uses, and restarts of an upload. */
function createUploadTokens(deps: Deps, tools: UploadsTools) {
  const { tokens, uploadArea } = tools;
  return {
    /** Where tus keeps the uploads. */
    datastore: uploadArea.datastore,

    locker: deps.locker,

    /** Whether the bytes of file uploads are read while they arrive (see ArchivePrescan). */
    prescans: Boolean(deps.prescan),

    /** An upload was created anew or terminated: whatever was read of its earlier bytes is dropped. */
    restarted(uploadId: string): void {
      deps.prescan?.forget(uploadId);
    },

    /** An upload received its last byte: the prescan lists its archive before processing is asked for. */
    finished(uploadId: string, size: number | undefined): void {
      if (size !== undefined) deps.prescan?.finished(uploadId, size);
    },

    /** The storage token: a credential for uploading into the caller's own folder only. */
    async issueToken(auth: AuthenticatedSession, meta: RequestMeta): Promise<StorageToken> {
      const { token, expiresAt } = tokens.issue(auth.user.id, auth.session.id);
      await deps.audit({
        actorId: auth.user.id,
        actorRole: auth.user.role,
        action: 'upload.token',
        outcome: 'success',
        targetType: 'user',
        targetId: auth.user.id,
        requestId: meta.requestId,
        ip: meta.ip,
      });
      return {
        accessToken: token,
        bucket: uploadArea.bucket,
        expiresAt: expiresAt.toISOString(),
        uploadUrl: UPLOAD_PATH,
      };
    },
  };
}

/** Each upload request checked: its credential, the uploader's right and room. */
function createUploadAuthorization(deps: Deps, tools: UploadsTools) {
  const { tokens, uploadArea, defaultMaxBytes, deny } = tools;
  return {
    /** Checks the credential and what it is used for; throws a clear 4xx when the request may not go on. */
    async authorize(request: UploadRequest, meta: RequestMeta): Promise<void> {
      const claims = tokens.verify(request.credential);
      if (!claims) {
        await deny(null, request.method, 'invalid_credential', meta);
        throw new AppError('UNAUTHORIZED', EXPIRED);
      }
      const userId = claims.userId;
      // Signing out (or any revocation of the session that asked for it) ends the credential too.
      if (claims.sessionId && !(await deps.auth.isSessionUnrevoked(claims.sessionId))) {
        await deny(userId, request.method, 'session_ended', meta);
        throw new AppError('UNAUTHORIZED', EXPIRED);
      }
      // A browser signed in as someone else must not use this credential.
      if (request.sessionToken) {
        const session = await deps.auth.authenticate(request.sessionToken, meta);
        if (session && session.user.id !== userId) {
          await deny(userId, request.method, 'credential_of_another_user', meta);
          throw new AppError('FORBIDDEN', 'This upload credential belongs to another user.');
        }
      }

      if ('deferLength' in request) {
        if (request.deferLength) throw new AppError('BAD_REQUEST', 'Upload-Length is required.');
        const objectName = request.metadata.objectName ?? '';
        const match = OBJECT_NAME.exec(objectName);
        if (!match) {
          throw new AppError(
            'BAD_REQUEST',
            'Upload-Metadata must name the object as {userId}/{uuid}/study.zip.',
          );
        }
        if (match[1] !== userId) {
          await deny(userId, request.method, 'foreign_prefix', meta);
          throw new AppError('FORBIDDEN', 'You can only upload into your own storage folder.');
        }
        const { length } = request;
        if (!Number.isSafeInteger(length) || length < 0)
          throw new AppError('BAD_REQUEST', 'Upload-Length is required.');
        const user = await deps.users.findById(userId);
        if (!user) throw new AppError('UNAUTHORIZED', EXPIRED);
        // An upload for an inviter goes into their account, so it must fit in their storage.
        const shared = request.metadata.invitation
          ? await deps.invitations.requireSharedUpload(
              userId,
              request.metadata.invitation,
              request.metadata.targetUserId,
              meta,
            )
          : undefined;
        const quota = shared?.quota ?? quotaOf(user, defaultMaxBytes);
        if (exceedsQuota(quota, length)) {
          if (shared)
            throw new AppError(
              'PAYLOAD_TOO_LARGE',
              'Storage Limit Exceeded: these files would not fit in the storage of the person who invited you.',
            );
          throw new AppError(
            'PAYLOAD_TOO_LARGE',
            `Storage Limit Exceeded: Uploading these files would exceed your storage limit of ${quotaGB(quota.maxBytes)} GB.`,
          );
        }
        if (await uploadArea.info(objectName))
          throw new AppError('CONFLICT', 'An upload with this name already exists.');
        return;
      }

      const id = request.uploadId;
      // Someone else's upload looks the same as a missing one.
      if (!id || !OBJECT_NAME.test(id) || !id.startsWith(`${userId}/`)) {
        await deny(userId, request.method, 'foreign_upload', meta);
        throw new AppError('NOT_FOUND', 'Upload not found.');
      }
    },
  };
}

/**
 * Uploads of study archives: short-lived credentials, and the rules every upload request must pass
 * before it reaches the tus server — a valid credential of a session still signed in, used by its
 * own user, for an object in that user's folder, within the storage quota and not taken already.
 */
export function createUploadsService(deps: Deps) {
  const tools = createUploadsTools(deps);
  return {
    ...createUploadTokens(deps, tools),
    ...createUploadAuthorization(deps, tools),
  };
}
export type UploadsService = ReturnType<typeof createUploadsService>;
