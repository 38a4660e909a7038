/** The pinned @ohif/app release (apps/viewer/package.json). */
export declare const pinned: { package: string; version: string; integrity: string };
/** Puts the release's built app, as published but for one repair, into `target` (which must not exist). */
export declare function extractRelease(
  target: string,
  prepare?: (dir: string) => Promise<void>,
): Promise<void>;
/** Restores onnxruntime-web's `typeof __filename` guard that OHIF's build folded away. */
export declare function repairBundle(source: string): string;
