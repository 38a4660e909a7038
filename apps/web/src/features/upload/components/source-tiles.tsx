import { Disc3, FileArchive, Files, FolderOpen, type LucideIcon } from 'lucide-react';
import { useRef, type ChangeEvent } from 'react';
import type { UploadMethod } from '../hooks/use-study-upload';

interface Tile {
  method: UploadMethod;
  title: string;
  description: string;
  icon: LucideIcon;
  accept?: string;
  directory?: boolean;
  multiple?: boolean;
}

/** The upload sources: four tiles in two columns. */
const TILES: Tile[] = [
  {
    method: 'files',
    title: 'Select Files',
    description: 'Pick one or more DICOM files.',
    icon: Files,
    multiple: true,
  },
  {
    method: 'folder',
    title: 'Select Folder',
    description: 'Pick a folder; every file inside it is uploaded.',
    icon: FolderOpen,
    directory: true,
  },
  {
    method: 'zip',
    title: 'Upload ZIP',
    description: 'Pick a ZIP archive (.zip) of a study.',
    icon: FileArchive,
    accept: '.zip,application/zip,application/x-zip-compressed',
  },
  {
    method: 'cd',
    title: 'CD/DVD',
    description: 'Pick the disc drive; only its DICOM files are uploaded.',
    icon: Disc3,
    directory: true,
  },
];

function TileButton({
  tile,
  disabled,
  onFiles,
}: {
  tile: Tile;
  disabled: boolean;
  onFiles: (method: UploadMethod, files: File[]) => void;
}) {
  const inputRef = useRef<HTMLInputElement>(null);
  const Icon = tile.icon;
  const onChange = (event: ChangeEvent<HTMLInputElement>) => {
    const files = Array.from(event.target.files ?? []);
    // Cleared so that picking the same folder again still reports a change.
    event.target.value = '';
    onFiles(tile.method, files);
  };
  return (
    <>
      <button
        type="button"
        disabled={disabled}
        onClick={() => inputRef.current?.click()}
        aria-describedby={`tile-${tile.method}-description`}
        className="group flex h-full flex-col items-start gap-3 rounded-lg border bg-card p-4 text-left shadow-sm transition-colors hover:border-primary hover:bg-accent/40 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring disabled:pointer-events-none disabled:opacity-50 sm:p-5"
      >
        <span className="flex size-10 items-center justify-center rounded-full bg-accent text-accent-foreground">
          <Icon className="size-5" aria-hidden="true" />
        </span>
        <span className="font-medium">{tile.title}</span>
        <span id={`tile-${tile.method}-description`} className="text-sm text-muted-foreground">
          {tile.description}
        </span>
      </button>
      <input
        ref={(el) => {
          inputRef.current = el;
          if (el) el.webkitdirectory = tile.directory ?? false;
        }}
        type="file"
        name={tile.method}
        className="hidden"
        tabIndex={-1}
        aria-hidden="true"
        multiple={tile.multiple || tile.directory}
        accept={tile.accept}
        onChange={onChange}
      />
    </>
  );
}

export function SourceTiles({
  disabled,
  onFiles,
}: {
  disabled: boolean;
  onFiles: (method: UploadMethod, files: File[]) => void;
}) {
  return (
    <div className="grid grid-cols-2 gap-3 sm:gap-4">
      {TILES.map((tile) => (
        <TileButton key={tile.method} tile={tile} disabled={disabled} onFiles={onFiles} />
      ))}
    </div>
  );
}
