import { X } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import type { SelectedFile } from '../hooks/use-study-upload';

/** File size in MB with two decimals. */
function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(2)} MB`;
}

export function SelectedFiles({
  files,
  disabled,
  onRemove,
  onClear,
}: {
  files: SelectedFile[];
  disabled: boolean;
  onRemove: (file: File) => void;
  onClear: () => void;
}) {
  const [shown, setShown] = useState(false);
  return (
    <section aria-label="Selection" className="grid gap-3 rounded-lg border bg-card p-4 shadow-sm">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="font-medium" role="status">
          You selected {files.length} file(s)
        </p>
        <div className="flex gap-2">
          <Button variant="outline" size="sm" onClick={() => setShown((v) => !v)} aria-expanded={shown}>
            {shown ? 'Hide files' : 'Show files'}
          </Button>
          <Button variant="ghost" size="sm" onClick={onClear} disabled={disabled}>
            Clear
          </Button>
        </div>
      </div>
      {shown && (
        <ul aria-label="Selected files" className="max-h-80 divide-y overflow-y-auto rounded-md border">
          {files.map((f) => (
            <li
              key={`${f.file.webkitRelativePath}/${f.name}/${f.size}`}
              className="flex items-center gap-3 px-3 py-2 text-sm"
            >
              <span className="min-w-0 flex-1 truncate" title={f.file.webkitRelativePath || f.name}>
                {f.name}
              </span>
              <span className="shrink-0 tabular-nums text-muted-foreground">{megabytes(f.size)}</span>
              <Button
                variant="ghost"
                size="icon"
                className="size-8 shrink-0"
                aria-label={`Remove ${f.name}`}
                disabled={disabled}
                onClick={() => onRemove(f.file)}
              >
                <X aria-hidden="true" />
              </Button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
