import { useSearchParams } from 'react-router';
import { useCurrentUser } from '@/features/auth/api/get-me';
import { UploadStudy } from '@/features/upload/components/upload-study';
import { safeAppPath } from '@/lib/safe-url';

/** /upload and /uploadOnly (spec §2 Upload Medical Study). */
export default function UploadRoute() {
  const [params] = useSearchParams();
  const user = useCurrentUser();
  return <UploadStudy user={user} backUrl={safeAppPath(params.get('backUrl'))} />;
}
