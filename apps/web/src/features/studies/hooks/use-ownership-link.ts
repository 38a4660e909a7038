import { useEffect, useRef } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { paths } from '@/config/paths';
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { useTransferOwnership } from '../api/ownership';

/** The query parameters of the approve link an owner gets when a recipient asks for a study. */
const APPROVE_PARAMS = ['studyId', 'requesterId', 'ownerId'] as const;

/**
 * The Studies list's link parameters. studyId + requesterId + ownerId (the owner following the emailed
 * approve link) transfer the study to the requester once, then leave the URL; newOwnerId naming the
 * current user (the new owner following their notification) says so and goes to a clean /studies.
 * Returns whether a transfer is running, for the busy overlay.
 */
export function useOwnershipLink(userId: string): boolean {
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const transfer = useTransferOwnership(userId);
  const { mutate } = transfer;
  const handled = useRef<string | null>(null);
  const received = useRef(false);
  const studyId = params.get('studyId');
  const requesterId = params.get('requesterId');
  const ownerId = params.get('ownerId');
  const newOwnerId = params.get('newOwnerId');

  useEffect(() => {
    if (!studyId || !requesterId || !ownerId) return;
    // Once per link, also when the page renders again before the URL is cleaned.
    const key = `${studyId}:${requesterId}:${ownerId}`;
    if (handled.current === key) return;
    handled.current = key;
    mutate(
      { studyId, requesterId },
      {
        onSuccess: (res) => toast({ title: 'Ownership Transferred', description: res.message }),
        onError: (err) => toastError(errorMessage(err)),
        onSettled: () =>
          setParams(
            (prev) => {
              const next = new URLSearchParams(prev);
              for (const key of APPROVE_PARAMS) next.delete(key);
              return next;
            },
            { replace: true },
          ),
      },
    );
  }, [studyId, requesterId, ownerId, mutate, setParams]);

  useEffect(() => {
    if (!newOwnerId) {
      received.current = false;
      return;
    }
    if (newOwnerId === userId) {
      if (received.current) return;
      received.current = true;
      toast({ title: 'Ownership Received', description: 'You are the owner of study' });
      navigate(paths.studies, { replace: true });
      return;
    }
    // A link meant for another account: nothing to say, just leave it.
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        next.delete('newOwnerId');
        return next;
      },
      { replace: true },
    );
  }, [newOwnerId, userId, navigate, setParams]);

  return transfer.isPending;
}
