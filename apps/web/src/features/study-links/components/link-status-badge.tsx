import type { LinkStatus } from '@mi/contracts/links';
import { Badge } from '@/components/ui/badge';
import { LINK_STATUS_LABELS } from '../utils/link-policy';

/** A link's status: active reads as the primary badge, paused as secondary, ended ones as outlines. */
export function LinkStatusBadge({ status }: { status: LinkStatus }) {
  const variant = status === 'active' ? 'default' : status === 'paused' ? 'secondary' : 'outline';
  return <Badge variant={variant}>{LINK_STATUS_LABELS[status]}</Badge>;
}
