import { zodResolver } from '@hookform/resolvers/zod';
import { RATING_COMMENT_MAX, RATING_EDIT_DAYS, ratingBodySchema } from '@mi/contracts/directory';
import type { Purchase } from '@mi/contracts/orders';
import { Controller, useForm } from 'react-hook-form';
import { z } from 'zod';
import { StarRatingInput } from '@/components/star-rating-input';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { FieldError } from '@/components/ui/field-error';
import { Label } from '@/components/ui/label';
import { Textarea } from '@/components/ui/textarea';
import { toast } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { formatDate } from '@/lib/format';
import { useRateOrder } from '../api/rate-order';

// The server's rule, with the comment as the text box holds it (empty is no comment).
const ratingFormSchema = z.object({
  stars: ratingBodySchema.shape.stars,
  comment: z.string().trim().max(RATING_COMMENT_MAX, `At most ${RATING_COMMENT_MAX} characters`),
});
type RatingFormValues = z.input<typeof ratingFormSchema>;
type RatingFormOutput = z.output<typeof ratingFormSchema>;

/**
 * Rate this order: 1-5 stars and an optional comment for a completed order's provider. Saving
 * again within the editing window changes the rating; the provider's mean follows.
 */
export function RateOrderDialog({ order, onClose }: { order: Purchase; onClose: () => void }) {
  const rate = useRateOrder();
  const editing = order.rating !== null;
  const form = useForm<RatingFormValues, unknown, RatingFormOutput>({
    resolver: zodResolver(ratingFormSchema),
    defaultValues: { stars: order.rating?.stars, comment: order.rating?.comment ?? '' },
  });
  const errors = form.formState.errors;
  const comment = form.watch('comment') ?? '';

  const onSubmit = form.handleSubmit(({ stars, comment }) =>
    rate.mutate(
      { orderId: order.id, rating: comment ? { stars, comment } : { stars } },
      {
        onSuccess: () => {
          toast({
            title: 'Rating saved',
            description: `Thank you: your rating of ${order.provider.name} was saved.`,
          });
          onClose();
        },
        onError: (err) =>
          form.setError('root', {
            type: 'server',
            message: errorMessage(err, 'Your rating could not be saved. Please try again.'),
          }),
      },
    ),
  );

  return (
    <Dialog open onOpenChange={(open) => !open && onClose()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Rate this order</DialogTitle>
          <DialogDescription>
            {order.service.name} by {order.provider.name}. Your stars count towards the provider&apos;s
            rating, shown to everyone; you can change them for {RATING_EDIT_DAYS} days
            {editing && order.rating ? ` (until ${formatDate(order.rating.editableUntil)})` : ''}.
          </DialogDescription>
        </DialogHeader>
        <form id="rate-order-form" className="grid gap-4" onSubmit={onSubmit} noValidate>
          <div className="grid gap-1">
            <Controller
              control={form.control}
              name="stars"
              render={({ field }) => (
                <StarRatingInput
                  legend="Your rating"
                  name={field.name}
                  value={field.value}
                  onChange={(stars) => field.onChange(stars)}
                  invalid={!!errors.stars}
                  describedBy={errors.stars ? 'rate-order-stars-error' : undefined}
                />
              )}
            />
            <FieldError id="rate-order-stars-error" message={errors.stars?.message} />
          </div>
          <div className="grid gap-1.5">
            <Label htmlFor="rate-order-comment">Comment (optional)</Label>
            <Textarea
              id="rate-order-comment"
              rows={4}
              aria-invalid={!!errors.comment}
              aria-describedby="rate-order-comment-help rate-order-comment-error"
              {...form.register('comment')}
            />
            <p id="rate-order-comment-help" className="text-xs text-muted-foreground">
              {comment.length}/{RATING_COMMENT_MAX} characters. Shown with your rating in the provider&apos;s
              details, without your name; an administrator may hide it.
            </p>
            <FieldError id="rate-order-comment-error" message={errors.comment?.message} />
          </div>
          {errors.root?.message && (
            <p role="alert" className="text-sm text-destructive">
              {errors.root.message}
            </p>
          )}
        </form>
        <DialogFooter>
          <Button variant="outline" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" form="rate-order-form" disabled={rate.isPending}>
            {rate.isPending ? 'Saving...' : 'Save rating'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
