// Entry of the render pool's worker threads (render-pool.ts): decodes and draws one frame per task.
import { renderFitted, renderFrame, renderThumbnail } from './render';

export type RenderTask =
  | { kind: 'thumbnail'; file: Uint8Array; maxDecodedBytes: number }
  | { kind: 'frame'; file: Uint8Array; frame: number; format: 'jpeg' | 'png'; maxDecodedBytes: number }
  | {
      kind: 'fitted';
      file: Uint8Array;
      frame: number | undefined;
      format: 'jpeg' | 'png';
      width: number;
      height: number;
      maxDecodedBytes: number;
    };

/** Errors cross the thread boundary as plain objects; the name says which kind the caller rethrows. */
export default async function render(task: RenderTask): Promise<Uint8Array> {
  switch (task.kind) {
    case 'thumbnail':
      return renderThumbnail(task.file, task.maxDecodedBytes);
    case 'frame':
      return renderFrame(task.file, task.frame, task.format, task.maxDecodedBytes);
    case 'fitted':
      return renderFitted(task.file, task.frame, task.format, task.width, task.height, task.maxDecodedBytes);
  }
}
