import { Spinner } from '@/components/ui/spinner';

export function FullPageSpinner({ label = 'Loading' }: { label?: string }) {
  return (
    <div className="flex min-h-full items-center justify-center p-8">
      <Spinner className="size-8" label={label} />
    </div>
  );
}
