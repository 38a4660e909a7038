import type { AdminRating } from '@mi/contracts/directory';
import { Eye, EyeOff, Star } from 'lucide-react';
import { listStatus, ListStatus } from '@/components/list/list-status';
import { EmptyState } from '@/components/empty-state';
import { Stars } from '@/components/provider-trust';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { toast } from '@/hooks/use-toast';
import { formatDateTime } from '@/lib/format';
import { cn } from '@/lib/utils';
import { RefreshButton } from '../../shared/components/list-actions';
import { toastFailure } from '../../shared/utils/change-toasts';
import { useAdminRatings, useHideRatingComment } from '../api/admin-ratings';

function RatingItem({ rating: r }: { rating: AdminRating }) {
  const hide = useHideRatingComment();
  const toggle = () =>
    hide.mutate(
      { orderId: r.orderId, hidden: !r.commentHidden },
      {
        onSuccess: (res) =>
          toast({
            title: res.commentHidden ? 'Comment hidden' : 'Comment shown',
            description: res.commentHidden
              ? `Patients no longer see this comment on ${res.providerName}; the stars still count.`
              : `Patients see this comment on ${res.providerName} again.`,
          }),
        onError: toastFailure,
      },
    );
  return (
    <li className="grid gap-2 p-4" aria-label={`${r.stars} stars for ${r.providerName}`}>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <Stars value={r.stars} />
        <span className="font-medium [overflow-wrap:anywhere]">{r.providerName}</span>
        <span className="text-sm text-muted-foreground">{r.serviceName}</span>
      </div>
      <p className="text-xs text-muted-foreground [overflow-wrap:anywhere]">
        By {r.authorEmail} · <time dateTime={r.createdAt}>{formatDateTime(r.createdAt)}</time>
        {r.updatedAt !== r.createdAt && <> · changed {formatDateTime(r.updatedAt)}</>}
      </p>
      {r.comment ? (
        <div className="grid gap-2">
          <div className="flex flex-wrap items-start gap-2">
            {r.commentHidden && <Badge variant="outline">Hidden from patients</Badge>}
            <p
              className={cn(
                'min-w-0 flex-1 whitespace-pre-line text-sm [overflow-wrap:anywhere]',
                r.commentHidden && 'text-muted-foreground',
              )}
            >
              {r.comment}
            </p>
          </div>
          <div>
            <Button size="sm" variant="outline" disabled={hide.isPending} onClick={toggle}>
              {r.commentHidden ? (
                <>
                  <Eye aria-hidden="true" /> Show comment
                </>
              ) : (
                <>
                  <EyeOff aria-hidden="true" /> Hide comment
                </>
              )}
            </Button>
          </div>
        </div>
      ) : (
        <p className="text-sm text-muted-foreground">No comment.</p>
      )}
    </li>
  );
}

/**
 * Admin → Ratings: every rating patients gave a completed order, newest first. An admin may hide a
 * comment that should not be shown (its stars still count) and show it again.
 */
export function RatingsAdmin() {
  const ratings = useAdminRatings();
  const list = ratings.data ?? [];
  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-end justify-between gap-3 space-y-0">
        <div>
          <CardTitle>Ratings</CardTitle>
          <CardDescription>
            Patients rate an order once it is completed (1-5 stars, an optional comment). Hide a comment that
            should not be shown; the stars still count towards the provider&apos;s rating.
          </CardDescription>
        </div>
        <RefreshButton query={ratings} />
      </CardHeader>
      <CardContent>
        <ListStatus
          query={ratings}
          count={list.length}
          error="The ratings could not be loaded"
          empty={
            <EmptyState icon={Star} title="No ratings yet">
              Ratings appear here when patients rate their completed orders.
            </EmptyState>
          }
        />
        {listStatus(ratings, list.length) === null && (
          <ul className="divide-y rounded-md border" aria-label="Ratings">
            {list.map((r) => (
              <RatingItem key={r.orderId} rating={r} />
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}
